"""
Fisher's discriminant: projections and histograms
=================================================

Fisher's linear discriminant looks for the direction :math:`w` on which the projected classes
are as far apart as possible relative to their spread: it maximises
:math:`J(w) = (m_2 - m_1)^2 / (s_1^2 + s_2^2)`, and the answer is
:math:`w \\propto S_W^{-1}(m_2 - m_1)` (Bishop 2006, section 4.1.4).

This example draws Bishop's figure 4.6 on the breast cancer data with
:func:`linclass.plot.fisher_figure`, then uses
:class:`~linclass.FisherDiscriminantAnalysis` as a transformer on the three wine cultivars.
"""

# %%
# Two classes: mean difference against Fisher's direction
# --------------------------------------------------------
# Two features of the breast cancer data, mean compactness and mean fractal dimension, are
# correlated within each class.  Projected on the line joining the class means, the benign and
# malignant tumours overlap; projected on Fisher's direction, which takes the within-class
# covariance into account, they overlap less.  Each histogram's title gives the criterion
# :math:`J` of its projection (twice as large on the right).
#
# The figure functions of :mod:`linclass.plot` draw on the Axes they are given (``ax=``); without
# one they return a new :class:`matplotlib.figure.Figure` that pyplot does not manage.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer, load_wine

import linclass
from linclass.plot import fisher_figure

cancer = load_breast_cancer()
names = ["mean compactness", "mean fractal dimension"]
X2 = cancer.data[:, [list(cancer.feature_names).index(name) for name in names]]
X2 = X2 / X2.std(axis=0)           # comparable units, so that the mean difference means something
y2 = cancer.target_names[cancer.target]

fig, axes = plt.subplots(1, 3, figsize=(13, 4), layout="constrained")
labels = ("benign", "malignant")       # sorted, as the classes are: the same colours throughout
means = np.array([X2[y2 == label].mean(axis=0) for label in labels])
difference = means[1] - means[0]
fisher2 = linclass.FisherDiscriminantAnalysis().fit(X2, y2)
direction = fisher2.scalings_[:, 0]
direction *= np.sign(direction @ difference)
for label in labels:
    rows = y2 == label
    axes[0].scatter(*X2[rows].T, s=8, alpha=0.6, label=label)
centre = means.mean(axis=0)
for vector, colour, text in ((difference, "k", "mean difference"), (direction, "C3", "Fisher")):
    vector = 2.5 * vector / np.linalg.norm(vector)
    axes[0].annotate("", xy=centre + vector, xytext=centre,
                     arrowprops=dict(arrowstyle="->", color=colour, lw=2))
    axes[0].text(*(centre + 1.2 * vector), text, color=colour, ha="center",
                 bbox=dict(facecolor="white", alpha=0.8, edgecolor="none"))
axes[0].set_xlabel(f"{names[0]} (standardised)")
axes[0].set_ylabel(f"{names[1]} (standardised)")
axes[0].set_aspect("equal", adjustable="datalim")
axes[0].legend()
fisher_figure(X2, y2, ax=axes[1:])
plt.show()

# %%
# With all 30 features the projection separates the tumours almost perfectly:
fig, axes = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
fisher_figure(cancer.data, cancer.target, ax=axes)
plt.show()

# %%
# Three classes: a two-dimensional projection
# -------------------------------------------
# With :math:`K` classes Fisher's discriminant has at most :math:`K - 1` directions: the
# eigenvectors of :math:`S_W^{-1} S_B`.  For the 13 chemical measurements of the wine data that
# is a plane, in which the three cultivars fall apart.
wine = load_wine()
fisher = linclass.FisherDiscriminantAnalysis().fit(wine.data, wine.target)
Z = fisher.transform(wine.data)
print("eigenvalues (between / within variance):", fisher.eigenvalues_.round(3))
print("canonical correlations:", fisher.canonical_correlations_.round(3))
print(f"Wilks' lambda: {fisher.wilks_lambda_:.4f}")

fig, (ax_scatter, ax_hist) = plt.subplots(1, 2, figsize=(11, 4.5), layout="constrained")
for k, name in enumerate(wine.target_names):
    rows = wine.target == k
    ax_scatter.scatter(Z[rows, 0], Z[rows, 1], s=18, label=name, edgecolor="k", linewidth=0.3)
    ax_hist.hist(Z[rows, 0], bins=20, alpha=0.6, label=name)
ax_scatter.set_xlabel("first discriminant")
ax_scatter.set_ylabel("second discriminant")
ax_scatter.set_title("wine: the Fisher plane")
ax_scatter.legend(title="cultivar")
ax_hist.set_xlabel("first discriminant")
ax_hist.set_ylabel("wines")
ax_hist.set_title("the first direction alone")
ax_hist.legend(title="cultivar")
plt.show()

# %%
# The first direction carries two thirds of the between-class variance and already orders the
# three cultivars; the second moves cultivar 1 away from the other two.
print("explained variance ratio:", fisher.explained_variance_ratio_.round(3))

# %%
# As a classifier, :class:`~linclass.FisherDiscriminantAnalysis` assigns a point to a class by
# Gaussian class densities on the projection; held-out accuracy by 5-fold cross-validation:
from sklearn.model_selection import cross_val_score

scores = cross_val_score(linclass.FisherDiscriminantAnalysis(), wine.data, wine.target, cv=5)
print(f"5-fold accuracy: {scores.mean():.3f} +/- {scores.std():.3f}")
