"""Linear discriminant analysis: the tied Gaussian classifier plus Fisher's projection."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted

from .. import fisher
from ..dask import lazy_on_dask
from .._validation import validate_predict
from .gaussian import _GaussianBase

__all__ = ["LinearDiscriminantAnalysis"]


class LinearDiscriminantAnalysis(ClassNamePrefixFeaturesOutMixin, TransformerMixin, _GaussianBase):
    """Linear discriminant analysis: Gaussian classes with one shared covariance.

    The classifier of seeds 001, 002 and 004 (``GaussianDiscriminantAnalysis(covariance_type='tied')``),
    with scikit-learn's LDA interface.  For two classes ``coef_`` and ``intercept_`` are exactly
    :math:`\\theta = \\Sigma^{-1}(\\mu_1-\\mu_0)` and :math:`\\theta_0` of seed 002, and ``predict_proba``
    is :math:`\\sigma(\\theta^Tx + \\theta_0)`.  ``transform`` projects on Fisher's discriminant
    directions (:math:`S_B v = \\lambda \\Sigma v`, seed 003 sec. 4.1.4-4.1.6).

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
        None: maximum-likelihood priors :math:`n_k / n`.
    unbiased : bool, default=False
        False: :math:`\\Sigma = S_W/n` (MLE, the seeds, and scikit-learn 1.9's LDA); True:
        :math:`S_W/(n-K)`.
    shrinkage : None, float in [0, 1], 'ledoit-wolf' or 'oas', default=None
        Shrinkage of :math:`\\Sigma` towards :math:`(\\mathrm{tr}\\Sigma/d)I`.  A float gives
        scikit-learn's ``shrinkage=float`` exactly.  'ledoit-wolf' and 'oas' compute the intensity
        from the pooled within-class residuals in the units of X; scikit-learn's ``shrinkage='auto'``
        instead standardizes each class and shrinks towards the diagonal, so with features of very
        different scales, standardize X first.
    n_components : int, default=None
        Number of Fisher directions kept by ``transform`` (at most ``min(n_classes - 1, n_features)``).
    var_smoothing : float, default=0.0
        Adds this fraction of the largest feature variance to the diagonal of :math:`\\Sigma`.
    tol : float, default=1e-10
        Relative eigenvalue threshold below which :math:`\\Sigma` counts as singular; the
        pseudo-inverse is then used, with a :class:`~linclass.SingularCovarianceWarning`.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    covariance_ : ndarray of shape (n_features, n_features)
        The shared covariance actually used (after shrinkage).
    means_, priors_, classes_, class_count_, stats_, model_ : see GaussianDiscriminantAnalysis
    scalings_ : ndarray of shape (n_features, rank)
        Fisher directions, normalised to :math:`v^T\\Sigma v = 1`, by decreasing eigenvalue.
    explained_variance_ratio_ : ndarray of shape (n_components,)
        Share of the between-class variance along each kept direction.
    xbar_ : ndarray of shape (n_features,)
        Centre subtracted by ``transform`` (the weighted mean of the training data).
    shrinkage_ : float, when ``shrinkage`` is set
    """

    _parameter_constraints = {
        **_GaussianBase._parameter_constraints,
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(
        self,
        *,
        priors=None,
        unbiased: bool = False,
        shrinkage=None,
        n_components: int | None = None,
        var_smoothing: float = 0.0,
        tol: float = 1e-10,
    ):
        self.priors = priors
        self.unbiased = unbiased
        self.shrinkage = shrinkage
        self.n_components = n_components
        self.var_smoothing = var_smoothing
        self.tol = tol

    def _covariance_type(self) -> str:
        return "tied"

    def _describe(self, model) -> None:
        super()._describe(model)
        max_components = min(len(self.classes_) - 1, self.n_features_in_)
        if self.n_components is not None and self.n_components > max_components:
            raise ValueError(
                f"n_components={self.n_components} cannot be larger than min(n_features, "
                f"n_classes - 1) = {max_components}."
            )
        between = fisher.between_class_covariance(self.stats_, self.priors_)
        evals, directions = fisher.discriminant_directions(between, model.covariance, self.tol)
        self._max_components = min(max_components, directions.shape[1])
        n_out = self._max_components if self.n_components is None else min(self.n_components, directions.shape[1])
        total = evals.sum()
        ratio = evals / total if total > 0 else np.zeros_like(evals)
        self.scalings_ = directions
        self.explained_variance_ratio_ = ratio[:n_out]
        self.xbar_ = self.stats_.grand_mean()
        self._n_features_out = n_out

    @lazy_on_dask
    def transform(self, X):
        """Project X on the Fisher directions: :math:`(x - \\bar x)^T V`.

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        check_is_fitted(self)
        X = validate_predict(self, X)
        return (X - self.xbar_) @ self.scalings_[:, : self._n_features_out]
