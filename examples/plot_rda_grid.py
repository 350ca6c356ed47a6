"""
Regularised discriminant analysis: choosing the covariance on a grid
====================================================================

Friedman's regularised discriminant analysis (RDA) moves between QDA and LDA, and towards
spherical covariances, with two parameters:

* the *pooling* :math:`\\lambda` mixes each class covariance with the pooled one
  (:math:`\\lambda = 0`: QDA, :math:`\\lambda = 1`: LDA);
* the *shrinkage* :math:`\\gamma` moves the result towards a multiple of the identity,
  :math:`(1 - \\gamma) \\Sigma_k(\\lambda) + \\gamma\\, \\mathrm{tr}(\\Sigma_k(\\lambda))/d\\; I`.

:class:`~linclass.RegularizedDiscriminantAnalysisCV` scores a whole grid of both from one set of
class statistics, by exact leave-one-out in closed form (no refit per row).  The heat map shows
the held-out score over the grid.
"""

# %%
# Digits: 64 pixels, 1,797 images, 10 classes
# -------------------------------------------
# Some pixels are blank in every image and many are constant within a class, so without
# shrinkage every covariance, even the pooled one, is singular: the whole
# :math:`\gamma = 0` column is scored ``-inf``, and some shrinkage is needed.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import linclass

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y,
                                                    random_state=0)

poolings = np.linspace(0, 1, 6)
shrinkages = np.array([0.0, 0.001, 0.01, 0.03, 0.1, 0.2, 0.4, 1.0])
rda = linclass.RegularizedDiscriminantAnalysisCV(poolings=poolings, shrinkages=shrinkages)
rda.fit(X_train, y_train)
print(f"chosen pooling {rda.pooling_:.2f}, shrinkage {rda.shrinkage_:.3f}, "
      f"leave-one-out log-loss {-rda.best_score_:.3f}")

# %%
# The grid: the mean leave-one-out log posterior of the true class (higher is better).
# Singular grid points (``-inf``) are left blank.
scores = np.where(np.isfinite(rda.cv_scores_), rda.cv_scores_, np.nan)
fig, ax = plt.subplots(figsize=(8, 6), layout="constrained")
image = ax.imshow(np.maximum(scores, -1.0), origin="lower", aspect="auto", cmap="viridis")
ax.set_xticks(np.arange(len(shrinkages)), [f"{value:g}" for value in shrinkages])
ax.set_yticks(np.arange(len(poolings)), [f"{value:.1f}" for value in poolings])
ax.set_xlabel("shrinkage $\\gamma$ (towards spherical)")
ax.set_ylabel("pooling $\\lambda$ (0: QDA, 1: LDA)")
best = np.unravel_index(np.nanargmax(scores), scores.shape)
ax.plot(best[1], best[0], marker="*", color="white", markersize=18, markeredgecolor="k")
fig.colorbar(image, ax=ax, label="leave-one-out mean log posterior (floored at -1)")
ax.set_title("RDA on digits: leave-one-out score over the grid")
plt.show()

# %%
# On the held-out images, the chosen model against LDA and QDA, each with the least shrinkage
# of the grid that keeps its covariances invertible:
candidates = {
    "RDA, chosen": rda,
    "LDA, slightly shrunk (pooling 1, shrinkage 0.001)": linclass.RegularizedDiscriminantAnalysis(
        pooling=1.0, shrinkage=0.001),
    "QDA, slightly shrunk (pooling 0, shrinkage 0.03)": linclass.RegularizedDiscriminantAnalysis(
        pooling=0.0, shrinkage=0.03),
}
for name, model in candidates.items():
    if model is not rda:
        model.fit(X_train, y_train)
    print(f"{name:50s} test accuracy {model.score(X_test, y_test):.3f}")
