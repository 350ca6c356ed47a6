"""
The perceptron: training curves and the pocket algorithm
========================================================

Rosenblatt's perceptron visits the training patterns one by one and, for each one it
misclassifies, adds it to (or subtracts it from) the weights.  On linearly separable data the
perceptron convergence theorem says that it stops making mistakes after finitely many updates;
on data that are not separable it never settles, and the *pocket* variant keeps the best weights
seen so far.  :func:`linclass.plot.training_curve` draws the mistakes made in each epoch
(``errors_``).
"""

# %%
# Separable: setosa against the other irises
# ------------------------------------------
# ``tol=None`` is Rosenblatt's stopping rule: train until an epoch makes no mistake.
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_iris
from sklearn.exceptions import ConvergenceWarning

import linclass
from linclass.plot import decision_regions, training_curve

iris = load_iris()
X = iris.data[:, :2]                             # sepal length and width
setosa = np.where(iris.target == 0, "setosa", "other")
separable = linclass.Perceptron(tol=None, max_iter=1000, random_state=0).fit(X, setosa)
print(f"converged after {separable.n_iter_} epochs, "
      f"{int(separable.errors_.sum())} updates in all")

# %%
# Not separable: versicolor against virginica
# -------------------------------------------
# On the sepal measurements these two species overlap.  The plain perceptron runs to
# ``max_iter`` epochs (and warns); with ``pocket=True`` it keeps, in its pocket, the weights that
# made the fewest training errors.
rows = iris.target > 0
X2, y2 = X[rows], iris.target_names[iris.target[rows]]
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)
    plain = linclass.Perceptron(tol=None, max_iter=100, random_state=0).fit(X2, y2)
    pocket = linclass.Perceptron(tol=None, max_iter=100, pocket=True, random_state=0).fit(X2, y2)
for name, model in (("plain", plain), ("pocket", pocket)):
    print(f"{name:6s} training accuracy {model.score(X2, y2):.3f}")

fig, axes = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
training_curve(separable, ax=axes[0])
axes[0].set_title("setosa vs the rest: separable, stops")
training_curve(plain, ax=axes[1])
axes[1].set_title("versicolor vs virginica: not separable, never stops")
plt.show()

# %%
# The final weights of the plain perceptron are wherever the last update left them; the
# pocket's are the best of the 100 epochs.
fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), layout="constrained")
for ax, (name, model) in zip(axes, (("plain perceptron", plain), ("pocket algorithm", pocket))):
    decision_regions(model, X2, y2, feature_names=iris.feature_names[:2], resolution=150, ax=ax)
    ax.set_title(f"{name}: training accuracy {model.score(X2, y2):.3f}")
plt.show()

# %%
# Basis functions
# ---------------
# With ``basis='poly'`` the perceptron works on every monomial of the inputs up to ``degree``:
# a linear rule in :math:`\phi(x)` draws a conic in :math:`x`.  Standardised sepal measurements of
# all three species (the multi-class perceptron, one weight vector per class), with pocket:
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)
    quadratic = make_pipeline(
        StandardScaler(),
        linclass.Perceptron(basis="poly", degree=2, tol=None, max_iter=300, pocket=True,
                            random_state=0),
    ).fit(X, iris.target_names[iris.target])
fig, ax = plt.subplots(figsize=(6, 5), layout="constrained")
decision_regions(quadratic, X, iris.target_names[iris.target],
                 feature_names=iris.feature_names[:2], resolution=150, ax=ax)
ax.set_title(f"quadratic basis, three classes: training accuracy "
             f"{quadratic.score(X, iris.target_names[iris.target]):.3f}")
plt.show()
