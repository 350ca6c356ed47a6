"""
Kernel Fisher discriminant on a non-linear problem
==================================================

Fisher's linear discriminant projects the data on a line; when no line separates the classes,
as for two concentric rings, it is no better than a coin.
:class:`~linclass.KernelFisherDiscriminantAnalysis` finds Fisher's direction in the feature space
of a kernel (here the Gaussian RBF kernel) instead, where the rings are separable, and classifies
by Gaussian class densities along that direction.
"""

# %%
# Two rings and two moons
# -----------------------
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_circles, make_moons
from sklearn.model_selection import train_test_split

import linclass
from linclass.plot import decision_regions

problems = {
    "rings": make_circles(n_samples=600, noise=0.1, factor=0.5, random_state=0),
    "moons": make_moons(n_samples=600, noise=0.2, random_state=0),
}

fig, axes = plt.subplots(2, 2, figsize=(10, 9), layout="constrained")
for row, (name, (X, y)) in zip(axes, problems.items()):
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    linear = linclass.FisherDiscriminantAnalysis().fit(X_train, y_train)
    kernel = linclass.KernelFisherDiscriminantAnalysis(kernel="rbf", gamma=2.0).fit(X_train,
                                                                                    y_train)
    for ax, model, label in ((row[0], linear, "Fisher (linear)"),
                             (row[1], kernel, "kernel Fisher (RBF)")):
        decision_regions(model, X_train, y_train, resolution=150, ax=ax)
        ax.set_title(f"{name}: {label}\nheld-out accuracy {model.score(X_test, y_test):.3f}",
                     fontsize=10)
plt.show()

# %%
# The projection
# --------------
# ``transform`` gives each point's coordinate on the discriminant direction in the feature
# space.  On the rings the two classes fall on the two sides of it; the eigenvalue is the
# share of the feature-space variance between the classes.
X, y = problems["rings"]
kfda = linclass.KernelFisherDiscriminantAnalysis(kernel="rbf", gamma=2.0).fit(X, y)
z = kfda.transform(X)[:, 0]
print(f"eigenvalue: {kfda.eigenvalues_[0]:.3f}")

fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
for k, label in enumerate(("outer ring", "inner ring")):
    ax.hist(z[y == k], bins=40, alpha=0.6, label=label)
ax.set_xlabel("kernel Fisher projection")
ax.set_ylabel("points")
ax.legend()
plt.show()

# %%
# Many rows: the Nystroem approximation
# -------------------------------------
# The exact fit needs a few :math:`n \times n` matrices.  With
# ``approximation="nystroem"`` it works on the kernel's values at a set of landmarks instead
# (chosen by k-means++), in time linear in :math:`n`: 10,000 points with 100 landmarks.
X_big, y_big = make_circles(n_samples=10_000, noise=0.1, factor=0.5, random_state=1)
X_train, X_test, y_train, y_test = train_test_split(X_big, y_big, random_state=0)
nystroem = linclass.KernelFisherDiscriminantAnalysis(
    kernel="rbf", gamma=2.0, approximation="nystroem", n_landmarks=100, random_state=0,
).fit(X_train, y_train)
print(f"Nystroem, 100 landmarks, {len(X_train)} training points: "
      f"held-out accuracy {nystroem.score(X_test, y_test):.3f}")
