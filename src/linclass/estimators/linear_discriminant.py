"""Linear discriminant analysis, scikit-learn's ``LinearDiscriminantAnalysis``: one covariance
shared by the classes, a classifier and a transformer onto the Fisher directions (the shared
machinery: :mod:`linclass.estimators.gaussian_base`).

validate -> :class:`~linclass.generative.class_stats.ClassStats` (merged across ``partial_fit`` calls) ->
:func:`linclass.generative.gaussian.estimate` ->
:func:`linclass.generative.gaussian_scores.joint_log_likelihood` ->
:func:`linclass.core.posterior.log_posterior`; ``scalings_`` and ``transform`` from
:mod:`linclass.projection.discriminant_axes`, ``summary()`` with :mod:`linclass.projection.lda_summary`.
No mathematics lives here.
"""

from __future__ import annotations

from typing import Any
from numbers import Integral, Real

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils._param_validation import Interval, StrOptions

from linclass.core.validation import FLOAT32_KEPT, explain_non_finite, validate_predict
from linclass.estimators.gaussian_base import _SKLEARN_COVARIANCE, _GaussianBase, _SklearnCovariance
from linclass.generative import predictive, robust
from linclass.projection import discriminant_axes, fisher
from linclass.projection.lda_summary import LDASummary
from linclass.sources.dask import lazy_on_dask

__all__ = ["LinearDiscriminantAnalysis"]


class LinearDiscriminantAnalysis(ClassNamePrefixFeaturesOutMixin, TransformerMixin, _SklearnCovariance,
                                 _GaussianBase):
    """Linear discriminant analysis: Gaussian classes with one shared covariance.

    Linear discriminant analysis (Bishop 2006 sec. 4.2.1-4.2.2;
    ``GaussianDiscriminantAnalysis(covariance_type='tied')``), with scikit-learn 1.9's LDA interface.  For
    two classes ``coef_`` and ``intercept_`` are exactly :math:`\\theta = \\Sigma^{-1}(\\mu_1-\\mu_0)` and
    :math:`\\theta_0` of :doc:`/math/gaussian` (section "Two-class Gaussian model in logistic form"), and
    ``predict_proba`` is :math:`\\sigma(\\theta^Tx + \\theta_0)`.  ``transform`` projects on Fisher's
    discriminant directions (:math:`S_B v = \\lambda \\Sigma v`, Bishop 2006 sec. 4.1.4-4.1.6).

    Parameters
    ----------
    solver : {'svd', 'lsqr', 'eigen'}, default='svd'
        The same model and probabilities whichever is named (see Notes); ``scalings_`` and
        ``transform`` are those of scikit-learn's solver ('lsqr', which has none in scikit-learn,
        gets those of 'svd').  Unlike scikit-learn's, every solver accepts ``shrinkage`` and
        ``covariance_estimator`` and supports ``transform``.
    shrinkage : None, 'auto', float in [0, 1], 'ledoit-wolf' or 'oas', default=None
        A float: :math:`(1-\\alpha)\\Sigma + \\alpha(\\mathrm{tr}\\Sigma/d)I`, scikit-learn's
        ``shrinkage=float`` exactly.  'auto' (scikit-learn's): each class standardized by its own
        standard deviations, Ledoit-Wolf on that, scaled back and pooled: shrinkage towards each
        class's diagonal (:mod:`linclass.generative.covariance`; needs ``fit`` on all rows).
        'ledoit-wolf' and 'oas' (linclass's): the intensity from the pooled within-class residuals in
        the units of X, from statistics that stream (``partial_fit``, chunks).
    priors : array-like of shape (n_classes,), default=None
        None: maximum-likelihood priors :math:`n_k / n`.  Priors that do not sum to one are divided by
        their sum (a warning), as in scikit-learn.
    n_components : int, default=None
        Number of Fisher directions kept by ``transform`` (at most ``min(n_classes - 1, n_features)``;
        with 'svd', no more than it finds).
    store_covariance : bool, default=False
        With ``solver='svd'``, set ``covariance_`` only when True, as scikit-learn does ('lsqr' and
        'eigen' always set it; the model keeps the covariance in ``model_`` either way).
    tol : float, default=1e-4
        Rank threshold on scikit-learn's scale: directions of the standardized :math:`\\Sigma` whose
        standard deviation is at or below ``tol`` times the largest (eigenvalues at ``tol**2`` times
        the largest) are dropped and the pseudo-inverse on the rest is used, with a
        :class:`~linclass.SingularCovarianceWarning`.  (scikit-learn's 'svd' compares the singular
        values of the within-class-standardized data with ``tol`` absolutely.)
    covariance_estimator : estimator object or None, default=None
        Any object with scikit-learn's covariance API (``fit(X)``, then ``covariance_``), e.g.
        :class:`sklearn.covariance.OAS` or :class:`~sklearn.covariance.MinCovDet`: a clone (the
        object itself when it has no ``get_params``) is fitted
        on each class's rows and the shared covariance is :math:`\\sum_k \\frac{n_k}{n}\\Sigma_k`.
    unbiased : bool, default=False
        False: :math:`\\Sigma = S_W/n` (MLE, Bishop 2006 eq. 4.78, and scikit-learn 1.9's LDA); True:
        :math:`S_W/(n-K)`.
    var_smoothing : float, default=0.0
        Adds this fraction of the largest feature variance to the diagonal of :math:`\\Sigma`.
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

    See Also
    --------
    linclass.QuadraticDiscriminantAnalysis : One covariance per class (quadratic boundaries).
    linclass.GaussianDiscriminantAnalysis : Every covariance structure, tied to diagonal.
    linclass.RegularizedDiscriminantAnalysis : Friedman's blend of LDA, QDA and the identity.
    linclass.FisherDiscriminantAnalysis : Fisher's projection without the Gaussian model.
    sklearn.discriminant_analysis.LinearDiscriminantAnalysis : scikit-learn's LDA, the same
        interface; R's counterpart is ``MASS::lda``.

    Notes
    -----
    Every solver reaches the same closed form.  scikit-learn's solvers are three numerical routes to
    one model (Gaussian classes with a shared covariance, estimated by maximum likelihood): 'lsqr'
    solves :math:`\\Sigma w_k = \\mu_k`, 'eigen' diagonalises :math:`S_B` against :math:`\\Sigma`, 'svd'
    whitens the centred data by its singular value decomposition without forming :math:`\\Sigma`.
    linclass computes the one answer they all approximate from the class statistics (one pass and
    one :math:`d \\times d` product, never larger than X itself when n_samples >= n_features) and
    the eigendecomposition of the standardized :math:`\\Sigma`, so ``solver`` selects no arithmetic
    and the probabilities agree with each of scikit-learn's solvers to rounding.

    The shared covariance is always pooled with the class shares :math:`n_k/n` (the
    maximum-likelihood estimate); scikit-learn's 'lsqr' and 'eigen' pool the class covariances with
    ``priors_``, which differs only when ``priors`` are given.

    The projection is scikit-learn's for each solver (:mod:`linclass.projection.discriminant_axes`):
    Fisher's directions :math:`S_Bv = \\lambda\\Sigma v` with :math:`v^T\\Sigma v = 1`, where
    :math:`S_B = \\sum_k\\pi_k(\\mu_k - \\bar x)(\\mu_k - \\bar x)^T` weights the classes by
    ``priors_``.  'svd' (and 'lsqr'): the directions with a non-negligible eigenvalue (at most
    :math:`K-1`), signed as scikit-learn's and MASS's SVD signs them, and ``transform`` centres on
    ``xbar_``.  'eigen': all ``n_features`` generalized eigenvectors, signed as
    :func:`scipy.linalg.eigh` signs them, and ``transform`` does not centre; the columns after the
    first :math:`K-1` are a basis of the null space of :math:`S_B`, which rounding chooses in both
    libraries.  scikit-learn's numbers are reproduced to rounding, signs included, except where
    linclass's model is not scikit-learn's: 'eigen' with ``priors`` (scikit-learn pools the
    covariance with the priors and takes :math:`S_B` as the total covariance less that; linclass
    uses the :math:`S_B` and :math:`\\Sigma` of its model, as its 'svd' does), 'eigen' with
    ``shrinkage`` or a ``covariance_estimator`` (scikit-learn shrinks the total covariance too, so
    its :math:`S_B` is not the between-class covariance; linclass solves :math:`S_B` against the
    shrunk :math:`\\Sigma`), 'svd' with shrinkage (refused by scikit-learn; linclass whitens the
    shrunk :math:`\\Sigma`), and a singular :math:`\\Sigma` (scikit-learn's 'eigen' fails; linclass
    solves on its range, with ``rank`` columns).  A model loaded from a file projects as it did when
    it was saved: files written before the projection followed the solver hold an ``n_features`` x
    ``n_features`` ``scalings_`` with other signs and centre on ``xbar_``; refit to get
    scikit-learn's.  :meth:`summary` prints what MASS's ``print.lda`` prints.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    covariance_ : ndarray of shape (n_features, n_features)
        The shared covariance actually used (after shrinkage); with ``solver='svd'`` only when
        ``store_covariance=True``.
    means_, priors_, classes_, class_count_, stats_, model_ : see GaussianDiscriminantAnalysis
    scalings_ : ndarray of shape (n_features, rank) ('svd', 'lsqr') or (n_features, n_features) ('eigen')
        Fisher directions, normalised to :math:`v^T\\Sigma v = 1`, by decreasing eigenvalue, as
        scikit-learn's solver gives them (see Notes).
    explained_variance_ratio_ : ndarray of shape (n_components,)
        Share of the between-class variance along each kept direction: each eigenvalue over the
        sum of all that the solver finds (scikit-learn's).
    xbar_ : ndarray of shape (n_features,)
        :math:`\\sum_k \\pi_k\\mu_k` (``priors_ @ means_``, the training mean unless ``priors`` are
        given), as in scikit-learn; ``transform`` subtracts it except with ``solver='eigen'``.
    shrinkage_ : float (ndarray of shape (n_classes,) for 'auto'), when ``shrinkage`` is set

    Examples
    --------
    >>> from sklearn.datasets import load_wine
    >>> import linclass
    >>> X, y = load_wine(return_X_y=True)  # 13 measurements of wines of 3 cultivars
    >>> lda = linclass.LinearDiscriminantAnalysis().fit(X, y)
    >>> lda.explained_variance_ratio_.round(3)  # the between-class variance along each direction
    array([0.687, 0.313])
    >>> lda.transform(X[[0, 60, 130]]).round(1)  # one wine of each cultivar, in the 2 dimensions
    array([[-4.7,  2. ],
           [ 0.8, -1.4],
           [ 2.3,  0.2]])
    """

    _fixed_covariance_type = "tied"
    _keeps_float32 = True
    _output_attribute = "coef_"
    _parameter_constraints = {
        **_GaussianBase._parameter_constraints,
        **_SKLEARN_COVARIANCE,
        "solver": [StrOptions({"svd", "lsqr", "eigen"})],
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "posterior": [StrOptions(set(predictive.POSTERIORS))],
        "method": [StrOptions({"gaussian", "t"})],
        "nu": [Interval(Real, 2, None, closed="neither")],
    }

    def __init__(self, solver: str = "svd", shrinkage: float | str | None = None,
                 priors: ArrayLike | None = None, n_components: int | None = None,
                 store_covariance: bool = False, tol: float = 1e-4,
                 covariance_estimator: Any = None, *, unbiased: bool = False,
                 var_smoothing: float = 0.0, method: str = "gaussian", nu: float = 5.0,
                 posterior: str = "plug-in") -> None:
        self.method = method
        self.nu = nu
        self.posterior = posterior
        self.solver = solver
        self.shrinkage = shrinkage
        self.priors = priors
        self.n_components = n_components
        self.store_covariance = store_covariance
        self.tol = tol
        self.covariance_estimator = covariance_estimator
        self.unbiased = unbiased
        self.var_smoothing = var_smoothing

    def _float32_names(self) -> tuple:
        """scikit-learn 1.9's LDA on float32 X: 'svd' keeps every attribute float32 but the
        covariance; 'lsqr' and 'eigen' only the priors and means (their solve is float64), and
        with two classes ``coef_`` and ``intercept_`` too (cast to X's dtype, so the scores and
        probabilities are float32)."""
        if self.solver == "svd":
            return ("priors_", "means_", "xbar_", "_projection_centre", "explained_variance_ratio_",
                    "scalings_", "coef_", "intercept_")
        if len(getattr(self, "classes_", ())) == 2:
            return ("priors_", "means_", "xbar_", "coef_", "intercept_")
        return ("priors_", "means_", "xbar_")

    def _stores_covariance(self) -> bool:
        return bool(self.store_covariance) or self.solver != "svd"

    def _check_training_rows(self, data) -> None:
        if data.X.shape[0] == data.classes.size:
            raise ValueError(f"The number of samples must be more than the number of classes "
                             f"({data.X.shape[0]} samples, {data.classes.size} classes): the shared "
                             "covariance is estimated from the rows' deviations from their class "
                             "means.")

    def _needs_rows(self) -> str | None:
        if self.method != "gaussian":
            return "method='t' (a fit iterated over the rows)"
        return super()._needs_rows()

    def _absorb(self, data):
        if self.method == "gaussian":
            return super()._absorb(data)
        if (self.shrinkage is not None or self.unbiased or self.posterior != "plug-in"
                or self.covariance_estimator is not None):
            raise ValueError("method='t' estimates the covariance itself: drop shrinkage, unbiased, "
                             "covariance_estimator and posterior (or use method='gaussian').")
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
                f"n_classes - 1) = {max_components}: n_components cannot be larger than the number "
                "of discriminant directions there are."
            )
        seen = self.stats_.counts > 0
        means, priors = self.stats_.means[seen], self.priors_[seen]
        self.xbar_ = self.priors_ @ self.stats_.means
        if self.solver == "eigen":
            evals, directions = discriminant_axes.eigen_axes(means, priors, model.covariance,
                                                             rank_tol=self._eigen_tol())
            self._projection_centre = np.zeros_like(self.xbar_)
        else:
            evals, directions = discriminant_axes.svd_axes(means, priors, model.covariance,
                                                           rank_tol=self._eigen_tol(), tol=self.tol)
            self._projection_centre = self.xbar_
        n_components = max_components if self.n_components is None else self.n_components
        self.scalings_ = directions
        self.explained_variance_ratio_ = fisher.explained_variance_ratio(evals, n_components)
        self._n_features_out = min(n_components, directions.shape[1])

    @lazy_on_dask
    def transform(self, X: ArrayLike) -> np.ndarray:
        """Project X on the discriminant directions, as scikit-learn's solver does: 'svd' (and
        'lsqr') :math:`(x - \\bar x)^T V`, 'eigen' :math:`x^T V`, with :math:`V` the first
        ``n_components`` columns of ``scalings_``.

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        self._require_model()
        X = validate_predict(self, X, dtype=FLOAT32_KEPT)  # float32 out for float32 X and axes
        # a model saved before the projection followed the solver holds no _projection_centre: it
        # projected (X - xbar_) with every solver, and still does
        centre = getattr(self, "_projection_centre", self.xbar_)
        return (X - centre) @ self.scalings_[:, : self._n_features_out]

    def summary(self) -> LDASummary:
        """What MASS's ``print(lda(...))`` shows: prior probabilities of the groups, group means,
        coefficients of the linear discriminants (MASS's ``scaling``) and the proportion of trace.

        The coefficients are MASS's ``lda(method="moment")``: Fisher's directions normalised so
        that the scores have pooled within-group covariance :math:`I` with the divisor
        :math:`n - K` (the model's shared covariance, shrunk or not, rescaled from the divisor
        :math:`n` unless ``unbiased=True``), signed as MASS signs them (the same signs as
        ``scalings_`` of ``solver='svd'``; :mod:`linclass.projection.discriminant_axes`), whichever
        ``solver`` was fitted.  The numbers come from the fitted statistics, so a model loaded from
        a file has its summary too.

        Returns
        -------
        :class:`~linclass.projection.lda_summary.LDASummary`
            ``print()`` it; its parts are ``prior``, ``means``, ``scaling``, ``svd``,
            ``proportion_of_trace`` (pandas objects labelled as MASS labels them) and
            ``to_frame()``.
        """
        self._require_model()
        seen = self.stats_.counts > 0
        scaling, svd = discriminant_axes.mass_scaling(
            self.stats_.means[seen], self.priors_[seen], self.model_.covariance, self.stats_.total,
            divisor="n-K" if self.unbiased else "n", rank_tol=self._eigen_tol(), tol=self.tol)
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            names = [f"x{j}" for j in range(self.n_features_in_)]
        return LDASummary(classes=list(self.classes_[seen]), feature_names=[str(f) for f in names],
                          prior_probabilities=self.priors_[seen], class_counts=self.stats_.counts[seen],
                          group_means=self.stats_.means[seen], coefficients=scaling,
                          singular_values=svd, n_obs=float(self.stats_.total))
