"""Gaussian class-conditional models: their parameters from class statistics (scores of new points:
:mod:`linclass.generative.gaussian_scores`).

For every covariance structure the classifier is :math:`\\arg\\max_k p(x\\mid C_k)\\,p(C_k)` with
:math:`p(x \\mid C_k) = \\mathcal N(x; \\mu_k, \\Sigma_k)` (Bishop 2006 sec. 4.2.1-4.2.2).

``'tied'`` (LDA), one full :math:`\\Sigma`: the quadratic term cancels and the scores are linear
(Bishop 2006 eqs. 4.68-4.70; for two classes, docs/math/gaussian.md#two-class-gaussian-model-in-logistic-form:
:math:`\\theta = \\Sigma^{-1}(\\mu_1-\\mu_0)`, :math:`\\theta_0 = \\log\\frac{\\phi}{1-\\phi} +
\\tfrac12(\\mu_0^T\\Sigma^{-1}\\mu_0 - \\mu_1^T\\Sigma^{-1}\\mu_1)`):

.. math:: a_k(x) = w_k^T x + w_{k0}, \\quad w_k = \\Sigma^{-1}\\mu_k, \\quad
          w_{k0} = -\\tfrac12 \\mu_k^T \\Sigma^{-1} \\mu_k + \\ln p(C_k)

The Gaussian density has :math:`\\Sigma^{-1}` in the exponent and the normaliser
:math:`|2\\pi\\Sigma|^{1/2}` (Bishop 2006 eq. 2.43), and the two-class bias is not
:math:`-\\tfrac12(\\mu_1-\\mu_0)^T\\Sigma^{-1}(\\mu_1-\\mu_0) - \\log\\frac{1-\\pi}{\\pi}`, a slip easily
made in deriving it; the correct bias, implemented here, is
:math:`-\\tfrac12(\\mu_1-\\mu_0)^T\\Sigma^{-1}(\\mu_1+\\mu_0) + \\log\\frac{\\pi}{1-\\pi}`.

``'tied_diag'``, one shared per-feature variance :math:`\\sigma_j^2`
(docs/math/gaussian.md#one-shared-variance-per-feature,
:math:`\\hat\\sigma_j^2 = \\frac1n\\sum_i (x_{ij}-\\hat\\mu_{y_i j})^2`): linear as well, with
:math:`\\Sigma = \\mathrm{diag}(\\sigma^2)`.  (Each row contributes :math:`\\log\\sigma_j`, not
:math:`\\tfrac12\\log\\sigma_j`, to the negative log-likelihood; the estimate is as above either way.)

``'full'`` (QDA), ``'diag'`` (Gaussian naive Bayes) and ``'spherical'`` keep the quadratic term
(Bishop 2006 sec. 4.2.1; Hastie, Tibshirani and Friedman 2009 sec. 4.3):

.. math:: \\ln p(x, C_k) = -\\tfrac12 (x-\\mu_k)^T\\Sigma_k^{-1}(x-\\mu_k) - \\tfrac12\\ln|\\Sigma_k|
          - \\tfrac d2 \\ln 2\\pi + \\ln p(C_k)

computed by whitening: :math:`\\Sigma_k = U_k \\Lambda_k U_k^T`,
:math:`\\lVert (x-\\mu_k)^T U_k \\Lambda_k^{-1/2} \\rVert^2`, for all classes in one matrix product.
A singular covariance follows the rank rule of :mod:`linclass.core.precision`.
"""

from __future__ import annotations

import numpy as np

from linclass.core import covariance as cov_
from linclass.core.class_stats import ClassStats
from linclass.core.precision import feature_scale, rank_scale
from linclass.core.row_covariance import RowCovariances
from linclass.core.priors import class_log_priors
from linclass.generative.gaussian_forms import (
    LOG_2PI,
    GaussianModel,
    floor_values,
    full_form,
    linear_form,
    warn_singular,
)

# feature_scale and rank_scale (the rank rule's units) are named here too, where the first release
# defined them
__all__ = [
    "COVARIANCE_TYPES",
    "GaussianModel",
    "estimate",
    "feature_scale",
    "full_model",
    "rank_scale",
    "stats_kind",
]

COVARIANCE_TYPES = ("tied", "full", "diag", "tied_diag", "spherical")
LINEAR_TYPES = ("tied", "tied_diag")


def stats_kind(covariance_type: str, shrinkage) -> tuple[str, bool]:
    """Which :class:`ClassStats` kind a model needs, and whether it needs fourth moments.

    Ledoit-Wolf needs :math:`\\sum w\\lVert x-\\mu_k\\rVert^4`, which merges exactly only alongside
    per-class scatter, so a tied model with ``shrinkage='ledoit-wolf'`` collects 'full' statistics;
    ``shrinkage='auto'`` (:mod:`linclass.core.row_covariance`) needs the per-class scatter too.
    """
    lw = shrinkage == "ledoit-wolf"
    if covariance_type == "tied":
        if shrinkage == "auto":
            return "full", False
        return ("full", True) if lw else ("tied", False)
    if covariance_type == "full":
        return "full", lw
    return "diag", False


def _shrunk(sigma, mle, n, fourth, shrinkage):
    """Shrink ``sigma`` with the intensity that ``shrinkage`` gives on the MLE covariance ``mle``
    (Ledoit-Wolf and OAS are defined on the MLE).  Returns ``(matrix, intensity or None)``."""
    if shrinkage is None:
        return sigma, None
    alpha = cov_.shrinkage_intensity(shrinkage, mle, n, fourth)
    return cov_.shrink(sigma, alpha), alpha


def _ridge(cov, reg_param, eps):
    """``reg_param`` blend towards I, then ``eps`` added to the diagonal."""
    if reg_param:
        cov = cov_.blend_identity(cov, reg_param)
    if eps:
        cov = cov + eps * np.eye(cov.shape[0])
    return cov


def _common(stats: ClassStats, covariance_type: str, priors, var_smoothing: float):
    """What every covariance structure starts from: the model's fields (type, means, log priors),
    the variance :math:`\\epsilon` that ``var_smoothing`` adds, the centre (the grand mean) and the
    per-feature fallback scale."""
    log_priors = class_log_priors(stats, priors)
    eps = var_smoothing * float(np.max(stats.total_variance())) if var_smoothing else 0.0
    fields = dict(covariance_type=covariance_type, means=stats.means, log_priors=log_priors)
    return fields, eps, stats.grand_mean(), feature_scale(stats)


def estimate(
    stats: ClassStats,
    covariance_type: str = "tied",
    *,
    priors: np.ndarray | None = None,
    unbiased: bool = False,
    shrinkage=None,
    reg_param: float = 0.0,
    var_smoothing: float = 0.0,
    tol: float = 1e-10,
    row_covariances: RowCovariances | None = None,
    on_singular: str = "warn",
) -> GaussianModel:
    """Gaussian parameters of the given covariance structure, from class statistics.

    Parameters
    ----------
    stats : ClassStats of the kind given by :func:`stats_kind`.
    covariance_type : {'tied', 'full', 'diag', 'tied_diag', 'spherical'}
    priors : ndarray of shape (n_classes,) or None
        None: maximum likelihood :math:`n_k / n`.
    unbiased : bool
        Divide scatter by :math:`n - K` (pooled) or :math:`n_k - 1` (per class) instead of the MLE's
        :math:`n` / :math:`n_k`.
    shrinkage : None, float in [0, 1], 'ledoit-wolf' or 'oas'
        'tied' and 'full' only; the intensity of Ledoit-Wolf / OAS is computed on the MLE.
    reg_param : float in [0, 1]
        :math:`(1-r)\\Sigma + rI` (for diagonal types, on the variances).
    var_smoothing : float >= 0
        Adds :math:`\\epsilon = \\text{var\\_smoothing}\\cdot\\max_j \\mathrm{Var}(x_j)` to every variance
        (scikit-learn's GaussianNB rule), for every covariance type.
    tol : float
        Eigenvalues / variances at or below ``tol`` times the largest are treated as zero: the tied
        models use the pseudo-inverse, the others floor them (each with a warning).
    row_covariances : RowCovariances or None
        Per-class covariances estimated from the rows ('tied' and 'full' only;
        :mod:`linclass.core.row_covariance`: scikit-learn's ``shrinkage='auto'`` or a covariance
        estimator object).  They replace the maximum-likelihood :math:`S_k/n_k`; 'tied' pools them as
        :math:`\\sum_k \\frac{n_k}{n}\\Sigma_k` (which is :math:`S_W/n` for the MLE).  ``shrinkage``
        must then be None or 'auto' and ``unbiased`` False.
    on_singular : {'warn', 'raise'}
        'full' only: 'raise' refuses a class covariance of less than full rank with a
        ``numpy.linalg.LinAlgError`` (scikit-learn's QDA) instead of flooring it with a warning.
    """
    if covariance_type not in COVARIANCE_TYPES:
        raise ValueError(f"covariance_type must be one of {COVARIANCE_TYPES}; got {covariance_type!r}.")
    if shrinkage is not None and covariance_type not in ("tied", "full"):
        raise ValueError(
            f"shrinkage applies to covariance_type 'tied' or 'full', not {covariance_type!r}; use "
            "var_smoothing for diagonal models."
        )
    if row_covariances is not None:
        if covariance_type not in ("tied", "full") or shrinkage not in (None, "auto") or unbiased:
            raise ValueError(
                "covariances estimated from the rows (shrinkage='auto' or a covariance_estimator) "
                "apply to the 'tied' and 'full' models, without another shrinkage and with "
                "unbiased=False."
            )
        return _from_rows(stats, covariance_type, row_covariances, priors, reg_param,
                          var_smoothing, tol, on_singular)
    if shrinkage == "auto":
        raise ValueError("shrinkage='auto' standardizes each class by its own rows: it needs "
                         "row_covariances (linclass.core.row_covariance.standardized_ledoit_wolf).")
    d = stats.n_features
    fields, eps, center, fallback = _common(stats, covariance_type, priors, var_smoothing)
    if covariance_type == "tied":
        fourth = None if stats.fourth is None else float(stats.fourth.sum())
        sigma, alpha = _shrunk(
            cov_.pooled_covariance(stats, unbiased=unbiased), cov_.pooled_covariance(stats),
            stats.total, fourth, shrinkage,
        )
        return linear_form(fields, _ridge(sigma, reg_param, eps), alpha, tol, center, fallback)
    if covariance_type == "tied_diag":
        var = cov_.pooled_covariance(stats, unbiased=unbiased, diagonal=True)
        var = (1 - reg_param) * var + reg_param + eps
        return linear_form(fields, var, None, tol, center, fallback)
    if covariance_type == "full":
        sigmas = cov_.class_covariances(stats, unbiased=unbiased)
        mles = cov_.class_covariances(stats) if unbiased else sigmas
        alphas = np.zeros(stats.n_classes) if shrinkage is not None else None
        for k in np.flatnonzero(stats.counts > 0):
            fourth = None if stats.fourth is None else float(stats.fourth[k])
            sigmas[k], alpha = _shrunk(sigmas[k], mles[k], stats.counts[k], fourth, shrinkage)
            sigmas[k] = _ridge(sigmas[k], reg_param, eps)
            if alphas is not None:
                alphas[k] = alpha
        return full_form(fields, stats, sigmas, alphas, tol, center, fallback, on_singular)
    # diag, spherical
    var = cov_.class_covariances(stats, unbiased=unbiased, diagonal=True)
    if covariance_type == "spherical":
        var = np.repeat(var.mean(axis=1, keepdims=True), d, axis=1)
    var = (1 - reg_param) * var + reg_param + eps
    var, low = floor_values(var, tol, fallback**2)  # per feature: tol x that feature's total variance
    present = stats.counts > 0
    if np.any(low[present]):
        warn_singular(
            f"per-class variance of class(es) {stats.classes[present & low.any(axis=1)].tolist()}",
            int((~low[present]).sum(axis=1).min()), d,
            f"Zero variances were floored at {tol:g} x the feature's total variance.",
        )
    var[~present] = 1.0
    inv_var = 1.0 / var
    M = stats.means - center
    const = fields["log_priors"] - 0.5 * np.sum(np.log(var), axis=1) - 0.5 * d * LOG_2PI
    covariance = var[:, 0].copy() if covariance_type == "spherical" else var
    return GaussianModel(
        **fields, covariance=covariance, center=center, inv_var=inv_var,
        offsets=M, const=const,
    )


def full_model(stats: ClassStats, sigmas: np.ndarray, *, priors: np.ndarray | None = None,
               tol: float = 1e-10, shrinkage=None) -> GaussianModel:
    """A 'full' model (QDA's structure) from per-class covariances the caller estimated (regularised
    discriminant analysis, robust fits), with the rank rule of :func:`estimate`.

    Parameters
    ----------
    stats : ClassStats (counts and means are used)
    sigmas : ndarray of shape (n_classes, d, d)
    priors : ndarray of shape (n_classes,) or None
    tol : float
    shrinkage : float, ndarray or None
        Recorded in the model (``GaussianModel.shrinkage``).
    """
    fields, _, center, fallback = _common(stats, "full", priors, 0.0)
    return full_form(fields, stats, np.array(sigmas, dtype=np.float64), shrinkage, tol, center, fallback)


def _from_rows(stats, covariance_type, rows, priors, reg_param, var_smoothing, tol,
               on_singular="warn") -> GaussianModel:
    """:func:`estimate` with the per-class covariances of ``rows`` in place of :math:`S_k/n_k`."""
    fields, eps, center, fallback = _common(stats, covariance_type, priors, var_smoothing)
    if covariance_type == "tied":
        share = stats.counts / stats.total
        sigma = np.einsum("k,kde->de", share, rows.covariances)
        return linear_form(fields, _ridge(sigma, reg_param, eps), rows.intensity, tol, center, fallback)
    sigmas = rows.covariances.copy()
    for k in np.flatnonzero(stats.counts > 0):
        sigmas[k] = _ridge(sigmas[k], reg_param, eps)
    return full_form(fields, stats, sigmas, rows.intensity, tol, center, fallback, on_singular)
