"""
Gaussian class densities in 2-D and 3-D
=======================================

The Gaussian discriminant models describe each class by a density
:math:`\\mathcal N(x \\mid \\mu_k, \\Sigma_k)` and classify by Bayes' rule.  What differs between
them is the covariance: one per class (QDA), one shared by all classes (LDA), or diagonal
(Gaussian naive Bayes).  This example draws the fitted densities on two features of the wine
data, first as contour ellipses with :func:`linclass.plot.gaussian_contours`, then as surfaces
with :func:`linclass.plot.gaussian_surface`.
"""

# %%
# Contours at 1, 2 and 3 standard deviations
# ------------------------------------------
# Each ellipse is a contour of constant Mahalanobis distance :math:`(x-\mu_k)^T \Sigma_k^{-1}
# (x-\mu_k) = n^2`.  LDA's ellipses have the same shape and orientation in every class; QDA's
# follow each class; naive Bayes keeps the axes of its ellipses parallel to the features.
import matplotlib.pyplot as plt
from sklearn.datasets import load_wine

import linclass
from linclass.plot import gaussian_contours, gaussian_surface

wine = load_wine()
features = [list(wine.feature_names).index(name) for name in ("alcohol", "flavanoids")]
X = wine.data[:, features]
y = wine.target_names[wine.target]
feature_names = ["alcohol (%)", "flavanoids"]

models = {
    "QDA: one covariance per class": linclass.QuadraticDiscriminantAnalysis(store_covariance=True),
    "LDA: one shared covariance": linclass.LinearDiscriminantAnalysis(),
    "Gaussian naive Bayes: diagonal": linclass.GaussianNB(),
}
fig, axes = plt.subplots(1, 3, figsize=(14, 4.6), layout="constrained", sharex=True, sharey=True)
for ax, (name, model) in zip(axes, models.items()):
    model.fit(X, y)
    gaussian_contours(model, X, y, feature_names=feature_names, ax=ax)
    ax.set_title(f"{name}\naccuracy on the training wines {model.score(X, y):.3f}", fontsize=10)
plt.show()

# %%
# The class-conditional density as a surface
# ------------------------------------------
# :func:`~linclass.plot.gaussian_surface` draws one class's density (``class_index``) or the
# mixture :math:`p(x) = \sum_k \pi_k \mathcal N(x \mid \mu_k, \Sigma_k)` weighted by the priors.
# It makes its own 3-D figure (it takes no ``ax``, and names the axes x1 and x2); we label the
# axes, and ``plt.figure(fig)`` hands the figure to pyplot so that it is shown like the others.
qda = models["QDA: one covariance per class"]


def show_surface(fig):
    ax = fig.axes[0]
    ax.set_xlabel(feature_names[0])
    ax.set_ylabel(feature_names[1])
    plt.figure(fig)
    plt.show()


show_surface(gaussian_surface(qda, class_index=0))

# %%
# The mixture of the three classes: three bumps, of heights set by the priors and the spread
# of each class.
show_surface(gaussian_surface(qda))

# %%
# The fitted parameters behind the pictures: the class means and each class's covariance (the
# maximum-likelihood estimates; ``store_covariance=True`` keeps them in ``covariance_``, as in
# scikit-learn).
for k, label in enumerate(qda.classes_):
    print(label, "mean", qda.means_[k].round(2), "covariance",
          qda.covariance_[k].round(3).tolist())
