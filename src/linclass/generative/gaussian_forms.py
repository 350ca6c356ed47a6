"""The scoring forms of a Gaussian class-conditional model (:class:`GaussianModel`): from the
covariance estimates of :func:`linclass.generative.gaussian.estimate` to linear weights
:math:`w_k = \\Sigma^{-1}\\mu_k`, :math:`w_{k0}` for a shared covariance (``linear_form``) or to
whitening factors :math:`H_k H_k^T = \\Sigma_k^{-1}` for per-class ones (``full_form``), with the rank
rule of :mod:`linclass.core.precision` and its warnings.  The scores themselves:
:mod:`linclass.generative.gaussian_scores`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.linalg import solve_triangular

from linclass.core.precision import (
    gaussian_discriminants, precision_root, rank_scale, scaled_eigh, whitening,
)
from linclass.exceptions import SingularCovarianceWarning

__all__ = ["GaussianModel", "floor_values", "full_form", "linear_form", "refuse_singular",
           "warn_singular"]

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
    low = values <= floor
    return np.where(low, floor, values), low


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
    raise np.linalg.LinAlgError(
        f"The covariance matrix of class(es) {np.asarray(classes).tolist()} is not full rank (rank "
        f"{rank} of {d}{rows}: eigenvalues of the standardized covariance at or below {tol:g} x the largest): "
        "some features are constant or collinear within the class, or it has fewer samples than "
        "features. Increase reg_param (a float in [0, 1]) or set shrinkage ('auto', 'ledoit-wolf', "
        "'oas' or a float in [0, 1]) to regularise it."
    )


def _certified_full_rank(sigmas, present, tol, fallback_scale):
    """``{k: (L_k, L_k^{-1})}`` for every present class when cheap bounds prove that :func:`full_form`
    floors no eigenvalue; None when they do not (then the eigenvalues decide).

    For the standardized :math:`R_k = D_k^{-1}\\Sigma_kD_k^{-1}` (:func:`scaled_eigh`), the row-sum
    norm bounds the largest eigenvalue from above,
    :math:`\\lambda_{\\max}(R_k) \\le \\lVert R_k\\rVert_\\infty`, and
    :math:`\\operatorname{tr}(R_k^{-1}) = \\sum_j D_{k,j}^2 \\lVert L_k^{-1}e_j\\rVert^2 \\ge
    1/\\lambda_{\\min}(R_k)` bounds the smallest from below, from the Cholesky factor that the
    whitening needs anyway.  When every lower bound exceeds ``tol`` times the largest upper bound (by a
    factor 2, and by far more than the rounding of an eigensolver), no eigenvalue is at or below the
    floor, and the d x d eigenvalue problems (most of the cost for a few hundred features) are
    skipped."""
    factors, top, lowest = {}, 0.0, np.inf
    eye = None
    for k in present:
        scale = rank_scale(np.diag(sigmas[k]), fallback_scale)
        if not np.all(scale > 0):
            return None
        R = sigmas[k] / scale[:, None] / scale[None, :]
        top = max(top, float(np.max(np.abs(R).sum(axis=1))))
        try:
            L = np.linalg.cholesky(sigmas[k])
        except np.linalg.LinAlgError:
            return None
        eye = np.eye(L.shape[0]) if eye is None else eye
        inverse = solve_triangular(L, eye, lower=True, check_finite=False)
        trace = float(scale**2 @ np.einsum("ij,ij->j", inverse, inverse))
        if not np.isfinite(trace) or trace <= 0:
            return None
        lowest = min(lowest, 1.0 / trace)
        factors[k] = (L, inverse)
    rounding = 1e3 * np.finfo(float).eps * max(len(fallback_scale), 1)
    if not np.isfinite(top) or lowest <= max(2.0 * tol, rounding) * top:
        return None
    return factors


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
            W[k] = factors[k][1].T if present[k] else np.eye(d)
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
        _, low = floor_values(evals, tol, top)
        ranks[k] = d - int(low.sum())
        if np.any(low):
            singular.append(stats.classes[k])
            if on_singular == "raise":
                refuse_singular(singular, ranks[k], d, tol, float(stats.counts[k]))
        L = None
        if not np.any(low):  # nothing floored: the floored Sigma_k is Sigma_k
            try:
                L = np.linalg.cholesky(sigmas[k])
            except np.linalg.LinAlgError:  # positive only to rounding (tol=0)
                L = None
        if L is None:
            scale, evals, U = scaled_eigh(sigmas[k], fallback_scale)
            floored, _ = floor_values(evals, tol, top)
            root = U * np.sqrt(floored) * scale[:, None]  # root @ root.T == floored Sigma_k
            L = np.linalg.cholesky(root @ root.T)
        W[k] = solve_triangular(L, np.eye(d), lower=True, check_finite=False).T
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
