"""scikit-learn estimators over the Gaussian spine.

validate -> :class:`~linclass.stats.ClassStats` (merged across ``partial_fit`` calls) ->
:func:`linclass.gaussian.estimate` -> :func:`linclass.gaussian.joint_log_likelihood` ->
:func:`linclass.posterior.log_posterior`.  No mathematics lives here.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from .. import gaussian
from ._base import StatsClassifier

__all__ = [
    "GaussianDiscriminantAnalysis",
    "GaussianNB",
    "QuadraticDiscriminantAnalysis",
]

_SHRINKAGE = [None, StrOptions({"ledoit-wolf", "oas"}), Interval(Real, 0, 1, closed="both")]


class _GaussianBase(StatsClassifier):
    """Gaussian class-conditional densities on the :class:`StatsClassifier` machinery.

    Subclasses name their covariance structure in :meth:`_covariance_type` and may add fitted
    attributes in :meth:`_describe`.
    """

    _parameter_constraints: dict = {
        "priors": ["array-like", None],
        "unbiased": ["boolean"],
        "shrinkage": _SHRINKAGE,
        "reg_param": [Interval(Real, 0, 1, closed="both")],
        "var_smoothing": [Interval(Real, 0, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
    }

    def _covariance_type(self) -> str:
        return self.covariance_type

    def _settings(self) -> dict:
        return {
            "unbiased": getattr(self, "unbiased", False),
            "shrinkage": getattr(self, "shrinkage", None),
            "reg_param": getattr(self, "reg_param", 0.0),
            "var_smoothing": getattr(self, "var_smoothing", 0.0),
            "tol": getattr(self, "tol", 1e-10),
        }

    def _stats_request(self) -> tuple[str, bool]:
        return gaussian.stats_kind(self._covariance_type(), self._settings()["shrinkage"])

    def _estimate(self, stats, priors):
        return gaussian.estimate(stats, self._covariance_type(), priors=priors, **self._settings())

    def _joint_log_likelihood(self, model, X):
        return gaussian.joint_log_likelihood(model, X)

    def _describe(self, model) -> None:
        """Expose the fitted parameters under their usual names."""
        self.means_ = model.means
        self.covariance_ = model.covariance
        if model.coef is not None:  # sigmoid(theta^T x + theta_0) for two classes: seeds 000, 002
            self._describe_linear(model.coef, model.intercept)
        if model.shrinkage is not None:
            self.shrinkage_ = model.shrinkage


class GaussianDiscriminantAnalysis(_GaussianBase):
    """Gaussian discriminant analysis with a choice of covariance structure.

    Parameters
    ----------
    covariance_type : {'tied', 'full', 'diag', 'tied_diag', 'spherical'}, default='tied'
        'tied': one full covariance shared by all classes (LDA; seeds 001, 002, 004);
        'full': one full covariance per class (QDA; seed 003 sec. 4.2.2);
        'diag': per-class diagonal covariance (Gaussian naive Bayes);
        'tied_diag': one diagonal covariance shared by all classes (the naive Bayes of seed 000
        sec. 3.1, whose decision function is linear);
        'spherical': per-class :math:`\\sigma_k^2 I`.
    priors : array-like of shape (n_classes,), default=None
        Class priors; None estimates them by maximum likelihood (:math:`n_k/n`).
    unbiased : bool, default=False
        False divides scatter by :math:`n` (pooled) / :math:`n_k` (per class), the maximum-likelihood
        estimate the seeds derive; True by :math:`n-K` / :math:`n_k-1`.
    shrinkage : None, float in [0, 1], 'ledoit-wolf' or 'oas', default=None
        Shrink the covariance towards :math:`(\\mathrm{tr}\\Sigma/d)I` ('tied' and 'full' only), in
        the units of X: standardize features of very different scales first.
    reg_param : float in [0, 1], default=0.0
        :math:`(1-r)\\Sigma + rI` (scikit-learn's QDA regularisation).
    var_smoothing : float >= 0, default=0.0
        Adds this fraction of the largest feature variance to every variance.
    tol : float, default=1e-10
        Eigenvalues below ``tol`` times the largest count as zero (pseudo-inverse for 'tied', an
        eigenvalue floor otherwise, each with a :class:`~linclass.SingularCovarianceWarning`).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        Total sample weight per class.
    priors_ : ndarray of shape (n_classes,)
    means_ : ndarray of shape (n_classes, n_features)
    covariance_ : ndarray
        (d, d) 'tied'; (K, d, d) 'full'; (K, d) 'diag'; (d,) 'tied_diag'; (K,) 'spherical'.
    coef_, intercept_ : ndarray, linear types ('tied', 'tied_diag') only
        Shapes (1, d) and (1,) for two classes (:math:`\\theta`, :math:`\\theta_0` with
        :math:`p(C_1|x) = \\sigma(\\theta^Tx+\\theta_0)`), (K, d) and (K,) otherwise.
    shrinkage_ : float or ndarray of shape (n_classes,)
        Shrinkage intensity used, when ``shrinkage`` is set.
    stats_ : ClassStats
        The sufficient statistics (mergeable; see :meth:`partial_fit`).
    model_ : GaussianModel
    n_features_in_ : int
    feature_names_in_ : ndarray of str, when X had string column names
    """

    _parameter_constraints = {
        **_GaussianBase._parameter_constraints,
        "covariance_type": [StrOptions(set(gaussian.COVARIANCE_TYPES))],
    }

    def __init__(
        self,
        covariance_type: str = "tied",
        *,
        priors=None,
        unbiased: bool = False,
        shrinkage=None,
        reg_param: float = 0.0,
        var_smoothing: float = 0.0,
        tol: float = 1e-10,
    ):
        self.covariance_type = covariance_type
        self.priors = priors
        self.unbiased = unbiased
        self.shrinkage = shrinkage
        self.reg_param = reg_param
        self.var_smoothing = var_smoothing
        self.tol = tol


class QuadraticDiscriminantAnalysis(_GaussianBase):
    """Quadratic discriminant analysis: a full covariance per class (seed 003 sec. 4.2.2).

    Same as ``GaussianDiscriminantAnalysis(covariance_type='full')``.  Parameters as there; the
    default maximum-likelihood covariance (divided by :math:`n_k`) and ``reg_param`` are those of
    scikit-learn 1.9's QDA, so the probabilities agree.

    Attributes
    ----------
    classes_, class_count_, priors_, means_, stats_, model_ : see GaussianDiscriminantAnalysis
    covariance_ : ndarray of shape (n_classes, d, d)
    rank_ : ndarray of shape (n_classes,)
        Numerical rank of each :math:`\\Sigma_k` (below ``n_features``: eigenvalues were floored).
    quadratic_, linear_, constant_ : ndarrays of shape (K, d, d), (K, d), (K,)
        The quadratic form :math:`\\ln p(x, C_k) = x^TQ_kx + l_k^Tx + c_k`.
    """

    def __init__(self, *, priors=None, unbiased: bool = False, shrinkage=None, reg_param: float = 0.0,
                 tol: float = 1e-10):
        self.priors = priors
        self.unbiased = unbiased
        self.shrinkage = shrinkage
        self.reg_param = reg_param
        self.tol = tol

    def _covariance_type(self) -> str:
        return "full"

    def _describe(self, model) -> None:
        super()._describe(model)
        self.rank_ = model.rank
        self.quadratic_, self.linear_, self.constant_ = gaussian.quadratic_form(model)


class GaussianNB(_GaussianBase):
    """Gaussian naive Bayes: independent features, a variance per class and feature.

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
    var_smoothing : float, default=1e-9
        Adds ``var_smoothing * max(feature variance)`` to every variance (scikit-learn's rule; with
        the same value the probabilities equal scikit-learn's GaussianNB).
    unbiased : bool, default=False

    Attributes
    ----------
    classes_, class_count_, priors_, stats_, model_ : see GaussianDiscriminantAnalysis
    theta_ : ndarray of shape (n_classes, n_features)
        Class means (scikit-learn's name; also ``means_``).
    var_ : ndarray of shape (n_classes, n_features)
        Variances including the smoothing (also ``covariance_``).
    epsilon_ : float
        The variance added.
    """

    def __init__(self, *, priors=None, var_smoothing: float = 1e-9, unbiased: bool = False):
        self.priors = priors
        self.var_smoothing = var_smoothing
        self.unbiased = unbiased

    def _covariance_type(self) -> str:
        return "diag"

    def _describe(self, model) -> None:
        super()._describe(model)
        self.theta_ = model.means
        self.var_ = model.covariance
        self.epsilon_ = self.var_smoothing * float(np.max(self.stats_.total_variance()))
