"""
Decision regions on iris
========================

Four classifiers fitted on the two petal measurements of the iris flowers, each drawn with
:func:`linclass.plot.decision_regions`: the predicted class over the plane, the boundaries
between the regions, and the training points coloured by their true species.

* :class:`~linclass.LinearDiscriminantAnalysis` (LDA) gives every class a Gaussian density with
  one shared covariance matrix, so the boundaries are straight lines.
* :class:`~linclass.QuadraticDiscriminantAnalysis` (QDA) gives every class its own covariance
  matrix, so the boundaries are conics.
* :class:`~linclass.LogisticRegression` on three classes is softmax regression: one linear score
  per class and the largest wins, so the plane is split without gaps or overlaps.
* :class:`~linclass.OneVsRestClassifier` trains three "class k against the rest" logistic
  models.  Read as three separate yes/no decisions, they leave points that no classifier claims,
  or that several claim: those ambiguous cells are hatched (Bishop 2006, section 4.1.2).
"""

# %%
# The data: petal length and petal width, 150 flowers of three species.
import matplotlib.pyplot as plt
from sklearn.datasets import load_iris

import linclass
from linclass.plot import decision_regions

iris = load_iris()
X = iris.data[:, 2:]
y = iris.target_names[iris.target]          # string labels: the legends show the species
feature_names = ["petal length (cm)", "petal width (cm)"]

# %%
# Four models, one panel each.  ``resolution`` sets the grid on which the predictions are
# evaluated; 200 points per axis is plenty for a figure of this size.
models = {
    "LDA (shared covariance)": linclass.LinearDiscriminantAnalysis(),
    "QDA (one covariance per class)": linclass.QuadraticDiscriminantAnalysis(),
    "softmax regression": linclass.LogisticRegression(C=10.0),
    "one-vs-rest logistic": linclass.OneVsRestClassifier(linclass.LogisticRegression(C=10.0)),
}

fig, axes = plt.subplots(2, 2, figsize=(11, 9), layout="constrained")
for ax, (name, model) in zip(axes.flat, models.items()):
    model.fit(X, y)
    decision_regions(model, X, y, feature_names=feature_names, resolution=200, ax=ax)
    ax.set_title(f"{name}\n{ax.get_title()}".strip(), fontsize=10)
plt.show()

# %%
# The one-versus-rest wrapper says how much of a set of points is ambiguous.  Versicolor lies
# between the other two species, so no single line cuts it from "the rest": its classifier
# claims few points, and about a third of the training flowers are claimed by no classifier or
# by several (``predict`` still answers, by the largest score, but the three yes/no answers
# disagree).
import numpy as np

ovr = models["one-vs-rest logistic"]
print(f"ambiguous training points: {ovr.ambiguous(X).mean():.1%}")
grid = np.mgrid[0.5:7.5:0.05, -0.2:2.8:0.05].reshape(2, -1).T
print(f"ambiguous points of a grid over the plane: {ovr.ambiguous(grid).mean():.1%}")

# %%
# A single K-class discriminant (the largest of K linear scores, Bishop's eq. 4.9) built from
# the same binary logistic models is never ambiguous:
single = linclass.KClassDiscriminant(linclass.LogisticRegression(C=10.0)).fit(X, y)
print(f"ambiguous with argmax: {single.ambiguous(grid).sum()} points")

# %%
# Training accuracy of each model (on the same 150 flowers, so an optimistic figure):
for name, model in models.items():
    print(f"{name:32s} {model.score(X, y):.3f}")
