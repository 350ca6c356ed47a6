"""Gaussian class-conditional models: their parameters from class statistics, and the forms that score
with them (scores of new points: :mod:`linclass.generative.gaussian_scores`).

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
A singular covariance follows the rank rule of :mod:`linclass.generative.precision`.

The forms: from the covariance estimates of :func:`estimate` to linear weights
:math:`w_k = \\Sigma^{-1}\\mu_k`, :math:`w_{k0}` for a shared covariance (:func:`linear_form`) or to
whitening factors :math:`H_k H_k^T = \\Sigma_k^{-1}` for per-class ones (:func:`full_form`), with the
rank rule's warnings.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.linalg import get_lapack_funcs

from linclass.exceptions import SingularCovarianceWarning
from linclass.generative import covariance as cov_
from linclass.generative.class_stats import ClassStats
from linclass.generative.covariance import RowCovariances
from linclass.generative.precision import (
    feature_scale, gaussian_discriminants, precision_root, rank_scale, scaled_eigh, whitening,
)
from linclass.generative.priors import class_log_priors

# feature_scale and rank_scale (the rank rule's units) are named here too, where the first release
# defined them
__all__ = [
    "COVARIANCE_TYPES",
    "GaussianModel",
    "estimate",
    "feature_scale",
    "floor_values",
    "full_form",
    "full_model",
    "linear_form",
    "rank_scale",
    "refuse_singular",
    "stats_kind",
    "warn_singular",
]

LOG_2PI = np.log(2 * np.pi)
_FAR = 100.0  # |training mean| / spread above which linear scores centre X first


@dataclass(frozen=True, eq=False)
class GaussianModel:
    """Fitted Gaussian class-conditional parameters and the factors that score new points.

    Attributes
    ----------
    covariance_type : str
    means : ndarray of shape (n_classes, d)
    log_priors : ndarray of shape (n_classes,)
        :math:`\\ln p(C_k)`; ``-inf`` for classes that cannot be predicted (no training weight).
    covariance : ndarray
        (d, d) tied; (K, d, d) full; (K, d) diag; (d,) tied_diag; (K,) spherical.
    shrinkage : float, ndarray of shape (n_classes,) or None
        The shrinkage intensity applied (per class for 'full').
    coef, intercept : ndarray of shape (K, d) and (K,), linear types only
        Bishop's (2006, eqs. 4.69-4.70) :math:`w_k` and :math:`w_{k0}`.
    centred_intercept : ndarray of shape (K,), linear types only
        :math:`-\\tfrac12 (\\mu_k-c)^T\\Sigma^{-1}(\\mu_k-c) + \\ln p(C_k)`: scores are computed as
        :math:`w_k^T(x - c)` plus this, which equals :math:`w_k^Tx + w_{k0}` up to a constant shared by
        all classes but does not cancel catastrophically when the data sit far from the origin.
    centre_first : bool, linear types only
        Whether the training mean is far from the origin relative to the spread of the data
        (more than 100 standard deviations in some feature), in which case X is centred before
        the product.
    center : ndarray of shape (d,)
        Point subtracted from X before quadratic scores (the grand mean, for accuracy).
    whiten : ndarray of shape (d, K*d), 'full' only
        :math:`[H_1, \\dots, H_K]`, upper-triangular :math:`H_k` with :math:`H_kH_k^T = \\Sigma_k^{-1}`.
    whiten_panels : tuple of ndarray, 'full' only
        The same with the class offsets, split for the scores of :mod:`linclass.generative.gaussian_scores` (see
        :func:`_panels`).
    offsets : ndarray of shape (K*d,), 'full' only
        Whitened class means relative to ``center``.
    inv_var : ndarray of shape (K, d), 'diag' and 'spherical' only
    const : ndarray of shape (K,), quadratic types
        :math:`\\ln p(C_k) - \\tfrac12\\ln|\\Sigma_k| - \\tfrac d2\\ln 2\\pi`.
    rank : int or ndarray
        Numerical rank of the covariance (per class for 'full').
    """

    covariance_type: str
    means: np.ndarray
    log_priors: np.ndarray
    covariance: np.ndarray
    shrinkage: float | np.ndarray | None = None
    coef: np.ndarray | None = None
    intercept: np.ndarray | None = None
    centred_intercept: np.ndarray | None = None
    centre_first: bool = False
    whiten_panels: tuple = ()
    center: np.ndarray | None = None
    whiten: np.ndarray | None = None
    offsets: np.ndarray | None = None
    inv_var: np.ndarray | None = None
    const: np.ndarray | None = None
    rank: int | np.ndarray | None = None


COVARIANCE_TYPES = ("tied", "full", "diag", "tied_diag", "spherical")
LINEAR_TYPES = ("tied", "tied_diag")


def stats_kind(covariance_type: str, shrinkage) -> tuple[str, bool]:
    """Which :class:`ClassStats` kind a model needs, and whether it needs fourth moments.

    Ledoit-Wolf needs :math:`\\sum w\\lVert x-\\mu_k\\rVert^4`, which merges exactly only alongside
    per-class scatter, so a tied model with ``shrinkage='ledoit-wolf'`` collects 'full' statistics;
    ``shrinkage='auto'`` (:mod:`linclass.generative.covariance`) needs the per-class scatter too.
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
        :mod:`linclass.generative.covariance`: scikit-learn's ``shrinkage='auto'`` or a covariance
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
                         "row_covariances (linclass.generative.covariance.standardized_ledoit_wolf).")
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
    var, floored = floor_values(var, tol, fallback**2)  # per feature: tol x that feature's total variance
    present = stats.counts > 0
    if np.any(floored[present]):
        warn_singular(
            f"per-class variance of class(es) {stats.classes[present & floored.any(axis=1)].tolist()}",
            int((~floored[present]).sum(axis=1).min()), d,
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


# ------------------------------------------------------------------ scoring forms
def warn_singular(what: str, rank, d: int, action: str) -> None:
    warnings.warn(
        f"The {what} is singular (rank {rank} of {d}): some features are constant or collinear"
        f"{' within a class' if 'class' in what else ''}, or there are fewer samples than features. "
        f"{action} To regularise instead, set the model's shrinkage (a float in [0, 1]; LDA and "
        "GaussianDiscriminantAnalysis also take 'ledoit-wolf' or 'oas'), reg_param (QDA) or "
        "var_smoothing (GaussianNB).",
        SingularCovarianceWarning,
        stacklevel=4,
    )


def floor_values(values: np.ndarray, tol: float, scale) -> tuple[np.ndarray, np.ndarray]:
    """Raise eigenvalues / variances at or below ``tol * scale`` to that floor; also return where."""
    floor = tol * np.where(np.asarray(scale) > 0, scale, 1.0)
    floored = values <= floor
    return np.where(floored, floor, values), floored


def linear_form(fields, sigma, alpha, tol, center, fallback_scale) -> GaussianModel:
    """Linear discriminants :math:`w_k = \\Sigma^{-1}\\mu_k`, :math:`w_{k0} = -\\tfrac12\\mu_k^T\\Sigma^{-1}\\mu_k
    + \\ln p(C_k)` (Bishop 2006 eqs. 4.69-4.70).

    With :math:`\\Sigma = DRD` and :math:`R = U\\Lambda U^T`, :math:`\\Sigma^{-1} = HH^T`,
    :math:`H = D^{-1}U\\Lambda^{-1/2}`.  Eigenvalues of R at or below ``tol`` times the largest are
    dropped (a generalized inverse on the range of :math:`\\Sigma`, with a warning).
    """
    means, log_priors = fields["means"], fields["log_priors"]
    root, rank = precision_root(sigma, tol, fallback_scale)
    if rank < sigma.shape[0]:
        if sigma.ndim == 1:  # tied_diag: Sigma = diag(var), R = I on the features that vary
            warn_singular("shared per-feature variance", rank, sigma.size,
                           "Features with zero within-class variance are ignored.")
        else:
            warn_singular("shared covariance", rank, sigma.shape[0],
                           "Using a pseudo-inverse on its range.")
    whiten, unwhiten = whitening(root)  # coef = Sigma^+ mu = H H^T mu
    coef, intercept = gaussian_discriminants(means, log_priors, whiten, unwhiten)
    _, centred = gaussian_discriminants(means, log_priors, whiten, unwhiten, center)
    return GaussianModel(
        **fields, covariance=sigma, shrinkage=alpha, coef=coef, intercept=intercept,
        centred_intercept=centred, center=center, rank=rank,
        centre_first=bool(np.any(np.abs(center) > _FAR * fallback_scale)),
    )


def refuse_singular(classes, rank, d: int, tol: float, weight: float | None = None) -> None:
    """scikit-learn's QDA rule: a covariance that is not of full rank is an error, not a floor
    (``weight``: the class's total sample weight, named in the message)."""
    rows = "" if weight is None else f", from {weight:g} samples"
    listed = np.asarray(classes).tolist()
    more = f" (and of {len(listed) - 1} more)" if len(listed) > 1 else ""
    raise np.linalg.LinAlgError(
        f"The covariance matrix of class {listed[0]!r} is singular{more}: "
        f"class(es) {listed} is not full rank (rank "
        f"{rank} of {d}{rows}: eigenvalues of the standardized covariance at or below {tol:g} x the largest): "
        "some features are constant or collinear within the class, or it has fewer samples than "
        "features. Increase reg_param (a float in [0, 1]) or set shrinkage ('auto', 'ledoit-wolf', "
        "'oas' or a float in [0, 1]) to regularise it."
    )


def _inverse_transpose(L: np.ndarray) -> np.ndarray | None:
    """:math:`H = L^{-T}` (upper triangular) of a lower-triangular Cholesky factor L (zeros above its
    diagonal), by LAPACK's triangular inverse of :math:`L^T` (trtri: a third of the flops of
    solving :math:`LX = I` for the identity, and none of the solver's checks); None when L is
    singular."""
    trtri, = get_lapack_funcs(("trtri",), (L,))
    H, info = trtri(L.T, lower=0)
    return H if info == 0 else None


def _certified_full_rank(sigmas, present, tol, fallback_scale):
    """``{k: (L_k, L_k^{-T})}`` for every present class when cheap bounds prove that :func:`full_form`
    floors no eigenvalue; None when they do not (then the eigenvalues decide).

    For the standardized :math:`R_k = D_k^{-1}\\Sigma_kD_k^{-1}` (:func:`scaled_eigh`), the row-sum
    norm bounds the largest eigenvalue from above,
    :math:`\\lambda_{\\max}(R_k) \\le \\lVert R_k\\rVert_\\infty`, and
    :math:`\\operatorname{tr}(R_k^{-1}) = \\sum_j D_{k,j}^2 \\lVert L_k^{-1}e_j\\rVert^2 \\ge
    1/\\lambda_{\\min}(R_k)` bounds the smallest from below, from the Cholesky factor that the
    whitening needs anyway.  When every lower bound exceeds ``tol`` times the largest upper bound (by a
    factor 2, and by far more than the rounding of an eigensolver), no eigenvalue is at or below the
    floor, and the d x d eigenvalue problems (most of the cost for a few hundred features) are
    skipped.  The classes are taken together (one stacked Cholesky factorisation, array operations
    over the stack), their inverse factors one by one (:func:`_inverse_transpose`)."""
    present = np.asarray(present)
    if present.size == 0:
        return {}
    S = sigmas[present]
    scale = rank_scale(np.diagonal(S, axis1=1, axis2=2), fallback_scale)
    if not np.all(scale > 0):
        return None
    top = float(np.max(np.abs(S / scale[:, :, None] / scale[:, None, :]).sum(axis=2)))
    try:
        L = np.linalg.cholesky(S)
    except np.linalg.LinAlgError:
        return None
    H = [_inverse_transpose(factor) for factor in L]
    if any(h is None for h in H):
        return None
    H = np.array(H)
    # column j of L^{-1} is row j of L^{-T}
    trace = np.einsum("kj,kji->k", scale**2, H * H)
    if not np.all(np.isfinite(trace)) or np.any(trace <= 0):
        return None
    lowest = 1.0 / float(np.max(trace))
    rounding = 1e3 * np.finfo(float).eps * max(len(fallback_scale), 1)
    if not np.isfinite(top) or lowest <= max(2.0 * tol, rounding) * top:
        return None
    return {k: (L[j], H[j]) for j, k in enumerate(present.tolist())}


def full_form(fields, stats, sigmas, alphas, tol, center, fallback_scale,
              on_singular: str = "warn") -> GaussianModel:
    """Per-class triangular whitening.

    The eigenvalues of the standardized form :math:`R_k = D^{-1}\\Sigma_kD^{-1} = U\\Lambda U^T` (as in
    :func:`_linear`) are floored at ``tol`` times the largest of all classes; the floored
    :math:`\\tilde\\Sigma_k = DU\\tilde\\Lambda U^TD = L_kL_k^T` is factored by Cholesky and
    :math:`H_k = L_k^{-T}` (upper triangular), so that :math:`\\lVert (x-\\mu_k)^T H_k\\rVert^2` is the
    Mahalanobis distance and :math:`\\ln|\\tilde\\Sigma_k| = 2\\sum_j\\ln L_{k,jj}`.  The triangular
    shape lets the scores skip the zero half of every :math:`H_k`
    (:mod:`linclass.generative.gaussian_scores`).  ``on_singular='raise'`` refuses a floored class
    instead (:func:`refuse_singular`)."""
    K, d = stats.n_classes, stats.n_features
    present = stats.counts > 0
    W = np.empty((K, d, d))
    log_det = np.zeros(K)
    ranks = np.zeros(K, dtype=int)
    singular = []
    factors = _certified_full_rank(sigmas, np.flatnonzero(present), tol, fallback_scale)
    if factors is not None:  # no eigenvalue is floored: the factors are those of the loop below
        for k in range(K):
            W[k] = factors[k][1] if present[k] else np.eye(d)
            log_det[k] = 2 * np.sum(np.log(np.diag(factors[k][0]))) if present[k] else 0.0
        ranks[present] = d
        return _full_model(fields, stats, sigmas, alphas, center, W, log_det, ranks)
    # eigenvalues first (a third of the cost of the vectors, which only a floored class needs)
    eigen = {k: scaled_eigh(sigmas[k], fallback_scale, vectors=False) for k in np.flatnonzero(present)}
    # one floor for every class (in the shared standardized units): a direction that is degenerate in
    # every class (a constant feature) then adds the same log-determinant to each and cancels
    top = max((float(e[1][-1]) for e in eigen.values()), default=0.0)
    for k in range(K):
        if not present[k]:
            W[k] = np.eye(d)
            continue
        _, evals, _ = eigen[k]
        _, floored = floor_values(evals, tol, top)
        ranks[k] = d - int(floored.sum())
        if np.any(floored):
            singular.append(stats.classes[k])
            if on_singular == "raise":
                refuse_singular(singular, ranks[k], d, tol, float(stats.counts[k]))
        L = None
        if not np.any(floored):  # nothing floored: the floored Sigma_k is Sigma_k
            try:
                L = np.linalg.cholesky(sigmas[k])
            except np.linalg.LinAlgError:  # positive only to rounding (tol=0)
                L = None
        if L is None:
            scale, evals, U = scaled_eigh(sigmas[k], fallback_scale)
            floored, _ = floor_values(evals, tol, top)
            root = U * np.sqrt(floored) * scale[:, None]  # root @ root.T == floored Sigma_k
            L = np.linalg.cholesky(root @ root.T)
        H = _inverse_transpose(L)
        if H is None:  # a zero on L's diagonal: cholesky succeeded only to rounding
            raise np.linalg.LinAlgError(f"The covariance of class {stats.classes[k]!r} is singular.")
        W[k] = H
        log_det[k] = 2 * np.sum(np.log(np.diag(L)))
    if singular:
        warn_singular(
            f"covariance of class(es) {np.asarray(singular).tolist()}", int(ranks[present].min()), d,
            f"Its eigenvalues (in standardized form) were floored at {tol:g} x the largest.",
        )
    return _full_model(fields, stats, sigmas, alphas, center, W, log_det, ranks)


def _full_model(fields, stats, sigmas, alphas, center, W, log_det, ranks) -> GaussianModel:
    """:func:`full_form`'s model from the whitening factors :math:`H_k` (``W``) and log-determinants."""
    K, d = stats.n_classes, stats.n_features
    offsets = np.einsum("kd,kde->ke", stats.means - center, W)
    const = fields["log_priors"] - 0.5 * log_det - 0.5 * d * LOG_2PI
    whiten = np.ascontiguousarray(W.transpose(1, 0, 2).reshape(d, K * d))
    return GaussianModel(
        **fields, covariance=sigmas, shrinkage=alphas, center=center, whiten=whiten,
        offsets=offsets.reshape(-1), const=const, rank=ranks,
        whiten_panels=_panels(whiten, offsets.reshape(-1), K),
    )


def _panels(whiten: np.ndarray, offsets: np.ndarray, K: int, n_panels: int = 4) -> tuple:
    """Split the upper-triangular whitening into column panels without their zero rows.

    Panel j holds columns :math:`[c_j, c_{j+1})` of every :math:`H_k`, stacked over classes, under a first
    row of :math:`-\\mu_k^TH_k` (the offsets); only rows ``1 .. c_{j+1}`` can be non-zero, so the product
    with :math:`[1, x-c]` needs just the first :math:`c_{j+1}` features.  Four panels do
    :math:`10/16` of the dense product's work.
    """
    d = whiten.shape[0]
    cuts = np.linspace(0, d, n_panels + 1).round().astype(int)
    full = np.vstack([-offsets, whiten]).reshape(d + 1, K, d)
    return tuple(
        np.ascontiguousarray(full[: 1 + hi, :, lo:hi].reshape(1 + hi, -1))
        for lo, hi in zip(cuts[:-1], cuts[1:])
        if hi > lo
    )
