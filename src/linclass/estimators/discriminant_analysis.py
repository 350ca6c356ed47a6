"""Gaussian discriminant analysis: LDA, QDA and the general covariance structures.

validate -> :class:`~linclass.stats.ClassStats` (merged across ``partial_fit`` calls) ->
:func:`linclass.generative.gaussian.estimate` ->
:func:`linclass.generative.gaussian_scores.joint_log_likelihood` ->
:func:`linclass.posterior.log_posterior`.  No mathematics lives here.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from linclass.core.validation import validate_predict, validate_priors
from linclass.estimators.stats_classifier import StatsClassifier


def _gaussian_method(self) -> bool:
    """partial_fit merges Gaussian statistics; the t fit needs every row at once."""
    return getattr(self, "method", "gaussian") == "gaussian"
from linclass.core.finiteness import explain_non_finite
from linclass.generative import fisher, gaussian, gaussian_scores, leave_one_out, predictive, robust
from linclass.sources.dask import lazy_on_dask

__all__ = [
    "GaussianDiscriminantAnalysis",
    "LinearDiscriminantAnalysis",
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
        self._check_posterior(stats)
        return gaussian.estimate(stats, self._covariance_type(), priors=priors, **self._settings())

    def _posterior(self) -> str:
        return getattr(self, "posterior", "plug-in")

    def _check_posterior(self, stats) -> None:
        """MASS's other posteriors are functions of the unregularised statistics."""
        posterior = self._posterior()
        if posterior == "plug-in":
            return
        settings = self._settings()
        if settings["shrinkage"] is not None or settings["reg_param"] or settings["var_smoothing"]:
            raise ValueError(
                f"posterior={posterior!r} is defined for the unregularised estimates; drop "
                "shrinkage / reg_param / var_smoothing, or use posterior='plug-in'."
            )
        predictive.check_defined(stats, self._covariance_type(), posterior)

    def _joint_log_likelihood(self, model, X):
        posterior = self._posterior()
        if posterior == "plug-in":
            return gaussian_scores.joint_log_likelihood(model, X)
        return predictive.scores(self.stats_, X, self._covariance_type(), posterior,
                                 model.log_priors)

    def _loo_scores(self, data):
        """Class scores of each training row under the model fitted without it (the rows ``data``
        this model was fitted on; :func:`linclass.loo_predict_proba`)."""
        if self._posterior() != "plug-in":
            raise ValueError("The closed-form leave-one-out is implemented for posterior='plug-in'.")
        settings = self._settings()
        del settings["tol"]
        priors = validate_priors(self.priors, self.stats_.n_classes)
        return leave_one_out.loo_joint_log_likelihood(
            self.stats_, self.model_, data.X, data.y, data.sample_weight, self._covariance_type(), priors=priors,
            **settings,
        )

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
    scikit-learn 1.9's QDA, so the probabilities agree.  ``posterior`` chooses among MASS's three
    posteriors (``predict.qda(method=...)``): 'plug-in' (the estimates in Bayes' rule), 'predictive'
    (the Bayesian predictive density, a multivariate t per class) or 'debiased' (unbiased estimates
    of the Mahalanobis distance and log-determinant); see :mod:`linclass.generative.predictive`,
    which lists where MASS's code differs from the textbook formulas implemented here.

    Attributes
    ----------
    classes_, class_count_, priors_, means_, stats_, model_ : see GaussianDiscriminantAnalysis
    covariance_ : ndarray of shape (n_classes, d, d)
    rank_ : ndarray of shape (n_classes,)
        Numerical rank of each :math:`\\Sigma_k` (below ``n_features``: eigenvalues were floored).
    quadratic_, linear_, constant_ : ndarrays of shape (K, d, d), (K, d), (K,)
        The quadratic form :math:`\\ln p(x, C_k) = x^TQ_kx + l_k^Tx + c_k` (of the plug-in posterior).
    """

    _parameter_constraints = {
        **_GaussianBase._parameter_constraints,
        "posterior": [StrOptions(set(predictive.POSTERIORS))],
    }

    def __init__(self, *, priors=None, unbiased: bool = False, shrinkage=None, reg_param: float = 0.0,
                 tol: float = 1e-10, posterior: str = "plug-in"):
        self.posterior = posterior
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
        self.quadratic_, self.linear_, self.constant_ = gaussian_scores.quadratic_form(model)


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
    method : {'gaussian', 't'}, default='gaussian'
        't': robust class means and shared covariance from a multivariate-t fit with ``nu``
        degrees of freedom (MASS's ``lda(method="t")``, iterated to the fixed point;
        :mod:`linclass.generative.robust`): rows far from their class are downweighted, so a few
        gross outliers move neither the means nor the covariance much.  Needs every row at once
        (no ``partial_fit`` or chunked fit); ``stats_`` then holds the t fit's means and
        ``N`` times its covariance; ``n_iter_`` the EM iterations.
    nu : float > 2, default=5
        Degrees of freedom of the t (``method='t'``).
    posterior : {'plug-in', 'predictive', 'debiased'}, default='plug-in'
        MASS's three posteriors (``predict.lda(method=...)``): the estimates in Bayes' rule, the
        Bayesian predictive density (a multivariate t per class; no longer linear in x), or
        unbiased estimates of the Mahalanobis distances (:mod:`linclass.generative.predictive`,
        which lists where MASS's code differs).  ``coef_`` and ``intercept_`` describe the plug-in
        rule.

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
        "posterior": [StrOptions(set(predictive.POSTERIORS))],
        "method": [StrOptions({"gaussian", "t"})],
        "nu": [Interval(Real, 2, None, closed="neither")],
    }

    def __init__(
        self,
        *,
        posterior: str = "plug-in",
        priors=None,
        unbiased: bool = False,
        shrinkage=None,
        n_components: int | None = None,
        var_smoothing: float = 0.0,
        tol: float = 1e-10,
        method: str = "gaussian",
        nu: float = 5.0,
    ):
        self.method = method
        self.nu = nu
        self.posterior = posterior
        self.priors = priors
        self.unbiased = unbiased
        self.shrinkage = shrinkage
        self.n_components = n_components
        self.var_smoothing = var_smoothing
        self.tol = tol

    def _covariance_type(self) -> str:
        return "tied"

    partial_fit = available_if(_gaussian_method)(StatsClassifier.partial_fit)

    def _absorb(self, data):
        if self.method == "gaussian":
            return super()._absorb(data)
        if self.shrinkage is not None or self.unbiased or self.posterior != "plug-in":
            raise ValueError("method='t' estimates the covariance itself: drop shrinkage, unbiased "
                             "and posterior (or use method='gaussian').")
        with np.errstate(invalid="ignore", over="ignore"):  # non-finite X: explained below
            stats, weights, n_iter, converged = robust.t_statistics(
                data.X, data.y, data.classes, data.sample_weight, nu=self.nu)
        explain_non_finite(self, data.X, *stats.arrays())
        self.n_iter_ = n_iter
        return self._install(stats)

    def _fit_source(self, source, *, first: bool = True):
        if self.method != "gaussian":
            raise ValueError("method='t' needs every row at once: fit it on arrays in memory.")
        return super()._fit_source(source, first=first)

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
        self.scalings_ = directions
        self.explained_variance_ratio_ = fisher.explained_variance_ratio(evals, n_out)
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
