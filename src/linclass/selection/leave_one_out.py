"""Leave-one-out class scores of the Gaussian models in closed form: for every training row, the
scores of the model fitted without it, from rank-one downdates of the class statistics
(:mod:`linclass.selection.downdate`) and the Sherman-Morrison / determinant-lemma forms of
:mod:`linclass.selection.rank_one`, never n refits.

Without row :math:`i` (class :math:`k`, weight :math:`w_i`, :math:`r_i = x_i - \\mu_k`) the scatter
that row belongs to (:math:`S_k` per class, :math:`S_W` pooled) loses :math:`c_i r_ir_i^T`,
:math:`c_i = w_in_k/(n_k - w_i)`, and every covariance the models build is

.. math::

    \\Sigma^{(i)} = (1 - \\rho)\\Big[(1-\\alpha_i)\\frac{S'}{m_i}
        + \\alpha_i\\frac{\\mathrm{tr}\\,S'}{m_i d} I\\Big] + (\\rho + \\epsilon_i) I
    = a_i S + b_i I - a_ic_i\\, r_ir_i^T

with :math:`m_i` the divisor (:math:`n - w_i` or :math:`n - w_i - K` pooled, :math:`n_k - w_i` or
:math:`n_k - w_i - 1` per class), :math:`\\alpha_i` the shrinkage intensity (fixed, or Ledoit-Wolf /
OAS recomputed on the remaining rows: both depend on the data only through :math:`\\mathrm{tr}\\,S'`,
:math:`\\lVert S'\\rVert_F^2` and the fourth moments, which downdate in closed form too),
:math:`\\rho` = ``reg_param`` and :math:`\\epsilon_i` = ``var_smoothing`` times the largest feature
variance of the remaining rows.  Learned priors are re-learned, :math:`(n_j - w_i[j = k]) /
(n - w_i)`: the result is the model fitted without the row, as a refit (and scikit-learn's
``cross_val_predict`` with ``LeaveOneOut``) gives; pass ``priors`` to hold them fixed, as MASS's
``lda(CV=TRUE)`` / ``qda(CV=TRUE)`` do.

The closed form needs every leave-one-out covariance to be non-singular (where the fitted model
would fall back to its rank rule, no downdate reproduces a refit): otherwise a ValueError says so.
"""

from __future__ import annotations

import numpy as np

from linclass.selection import rank_one
from linclass.generative.class_stats import ClassStats
from linclass.selection.downdate import RowDowndates, fourth_without, row_downdates, total_variance_without
from linclass.generative import gaussian_scores
from linclass.generative.gaussian import GaussianModel

__all__ = ["loo_joint_log_likelihood", "loo_log_priors"]

_LOG_2PI = np.log(2 * np.pi)
_SINGULAR = 1e-10  # relative eigenvalue (or determinant factor) at or below which a downdate is singular


def loo_joint_log_likelihood(stats: ClassStats, model: GaussianModel, X: np.ndarray, y: np.ndarray,
                             sample_weight: np.ndarray | None = None, covariance_type: str = "tied",
                             *, priors: np.ndarray | None = None, unbiased: bool = False,
                             shrinkage=None, reg_param: float = 0.0,
                             var_smoothing: float = 0.0) -> np.ndarray:
    """For each training row, the class scores :math:`\\ln p(x_i, C_j)` of the model fitted without it.

    Parameters
    ----------
    stats : ClassStats of (X, y, sample_weight), of the kind
        :func:`linclass.generative.gaussian.stats_kind` gives (with fourth moments for Ledoit-Wolf)
    model : GaussianModel
        The model fitted on all rows (:func:`linclass.generative.gaussian.estimate` with the same
        settings); must not be singular.
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), int
    sample_weight : ndarray of shape (n_samples,) or None
    covariance_type, priors, unbiased, shrinkage, reg_param, var_smoothing :
        as in :func:`linclass.generative.gaussian.estimate`

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
        Exact :math:`\\ln p(x_i, C_j)` under the leave-one-out model (for 'tied' and 'tied_diag'
        also exact: the shared log-determinant is included).
    """
    rows = row_downdates(stats, X, y, sample_weight)
    eps = 0.0
    if var_smoothing:
        eps = var_smoothing * total_variance_without(stats, X, rows).max(axis=1)
    settings = dict(unbiased=unbiased, shrinkage=shrinkage, reg=reg_param, eps=eps)
    if covariance_type == "tied":
        scores = _tied(stats, X, rows, **settings)
    elif covariance_type == "full":
        scores = _full(stats, model, X, rows, **settings)
    elif covariance_type == "tied_diag":
        scores = _tied_diag(stats, X, rows, **settings)
    else:
        scores = _diag(stats, X, rows, spherical=covariance_type == "spherical", **settings)
    return scores + loo_log_priors(stats, rows, priors)


def loo_log_priors(stats: ClassStats, rows: RowDowndates, priors) -> np.ndarray:
    """Shape (n, K): the given priors, or :math:`(n_j - w_i[j = y_i]) / (n - w_i)`."""
    K = stats.n_classes
    with np.errstate(divide="ignore"):
        if priors is not None:
            return np.broadcast_to(np.log(np.asarray(priors, dtype=float)), (rows.own.size, K))
        counts = np.broadcast_to(stats.counts, (rows.own.size, K)).copy()
        counts[np.arange(rows.own.size), rows.own] = rows.remaining
        return np.log(counts / rows.total[:, None])


def _intensity(shrinkage, n, trace, frob, fourth, d):
    """Shrinkage intensity per row of the MLE covariance :math:`S'/n` from :math:`\\mathrm{tr}\\,S'`,
    :math:`\\lVert S'\\rVert_F^2` and :math:`\\sum w\\lVert x-\\mu\\rVert^4` (the formulas of
    :func:`linclass.generative.covariance.ledoit_wolf_intensity` / ``oas_intensity``, vectorised)."""
    if shrinkage is None:
        return 0.0
    if not isinstance(shrinkage, str):
        return float(shrinkage)
    frob_c, tr_c = frob / (n * n), trace / n
    m = tr_c / d
    if shrinkage == "oas":
        mean_sq = frob_c / (d * d)
        den = (n + 1.0) * (mean_sq - m * m / d)
        ratio = np.divide(mean_sq + m * m, den, out=np.ones_like(den), where=den > 0)
        return np.where(den > 0, np.minimum(ratio, 1.0), 1.0)
    delta = (frob_c - 2 * m * tr_c + d * m * m) / d
    beta = (fourth / n - frob_c) / (n * d)
    alpha = np.divide(np.clip(np.minimum(beta, delta), 0.0, None), delta,
                      out=np.zeros_like(delta), where=delta > 0)
    return np.where(delta > 0, alpha, 0.0)


def _coefficients(divisor, alpha, trace, d, reg, eps):
    """:math:`(a, b)` of :math:`(1-\\rho)[(1-\\alpha)S/m + \\alpha\\,\\mathrm{tr}S/(md)\\,I] + (\\rho+\\epsilon)I`."""
    a = (1.0 - reg) * (1.0 - alpha) / divisor
    b = (1.0 - reg) * alpha * trace / (divisor * d) + reg + eps
    return a, b


def _needs_identity(shrinkage, reg, eps) -> bool:
    return shrinkage is not None or bool(reg) or np.any(np.asarray(eps) != 0)


def _refuse_singular(den, relative, what: str) -> None:
    bad = (den <= _SINGULAR) | (relative <= _SINGULAR)
    if np.any(bad):
        raise ValueError(
            f"Leaving out some rows makes the {what} singular ({int(np.count_nonzero(bad))} rows): "
            "the closed-form leave-one-out needs non-singular covariances. Regularise the model "
            "(shrinkage, reg_param or var_smoothing), or give each class more rows than features."
        )


def _tied(stats, X, rows, *, unbiased, shrinkage, reg, eps):
    """Shared covariance: :math:`S_W' = S_W - c_ir_ir_i^T` for every class; the row's own class mean
    moves to :math:`\\mu_k - \\frac{w_i}{n_k'}r_i`, so :math:`x_i - \\mu_k' = \\frac{n_k}{n_k'}r_i`."""
    n, d, K = X.shape[0], stats.n_features, stats.n_classes
    S = stats.pooled_scatter()
    identity = _needs_identity(shrinkage, reg, eps)
    B = rank_one.basis(S, orthogonal=identity)
    c = stats.grand_mean()
    Z = (X - c) @ B.U
    M = (stats.means - c) @ B.U
    Zr = Z - M[rows.own]
    rr = np.einsum("ij,ij->i", rows.residual, rows.residual)
    trace = np.trace(S) - rows.coef * rr
    alpha = 0.0
    if isinstance(shrinkage, str):
        rSr = np.einsum("il,il,l->i", Zr, Zr, B.nu)
        frob = float(np.sum(S * S)) - 2 * rows.coef * rSr + rows.coef**2 * rr * rr
        fourth = None
        if shrinkage == "ledoit-wolf":
            own_S_r = np.einsum("ij,ijk->ik", rows.residual, stats.scatter[rows.own])
            third_r = np.einsum("ij,ij->i", stats.third[rows.own], rows.residual)
            fourth = (stats.fourth.sum() - stats.fourth[rows.own]
                      + fourth_without(stats, rows, np.einsum("ij,ij->i", own_S_r, rows.residual),
                                       third_r))
        alpha = _intensity(shrinkage, rows.total, trace, frob, fourth, d)
    elif shrinkage is not None:
        alpha = float(shrinkage)
    a, b = _coefficients(rows.total - (K if unbiased else 0), alpha, trace, d, reg, eps)
    if not identity:
        b = 0.0
    beta = a * rows.coef
    if identity:  # per-row weights 1 / (a_i nu + b_i): elementwise, in row blocks
        q_ee, q_er = np.empty((n, K)), np.empty((n, K))
        for blk in _blocks(n):
            Wt = 1.0 / (a[blk, None] * B.nu + b[blk, None])
            E = Z[blk, None, :] - M[None, :, :]
            EW = E * Wt[:, None, :]
            q_ee[blk] = np.einsum("ikl,ikl->ik", EW, E)
            q_er[blk] = np.einsum("ikl,il->ik", EW, Zr[blk])
    else:  # weights nu / a_i: expanded into one product (the data are centred)
        root = 1.0 / np.sqrt(B.nu)
        Zs, Ms = Z * root, M * root
        G = Zs @ Ms.T
        zz = np.einsum("ij,ij->i", Zs, Zs)[:, None]
        mm = np.einsum("kj,kj->k", Ms, Ms)
        q_ee = (zz - 2 * G + mm) / a[:, None]
        own_G = G[np.arange(n), rows.own][:, None]
        q_er = (zz - G - own_G + (Ms @ Ms.T)[rows.own]) / a[:, None]
    q_rr = q_er[np.arange(n), rows.own]
    den = 1.0 - beta * q_rr
    _refuse_singular(den, rank_one.smallest(B, a, b), "shared covariance")
    maha = q_ee + (beta / den)[:, None] * q_er * q_er
    own_scale = rows.own_scale
    maha[np.arange(n), rows.own] = own_scale * own_scale * q_rr / den
    log_det = rank_one.log_det(B, a, b) + np.log(den)
    return -0.5 * (maha + (log_det + d * _LOG_2PI)[:, None])


def _blocks(n: int, size: int = 2048):
    for start in range(0, n, size):
        yield slice(start, min(start + size, n))


def _full(stats, model, X, rows, *, unbiased, shrinkage, reg, eps):
    """Per-class covariances: only the row's own class changes, by :math:`S_k - c_ir_ir_i^T`.

    The other classes keep the fitted model's covariance, so their scores are the model's own
    (one prediction); with ``var_smoothing`` each row's :math:`\\epsilon_i` changes every class, and
    all classes are scored in their eigenbases instead.  Each class's own rows are then redone
    with their downdate."""
    d, K = stats.n_features, stats.n_classes
    one = 1.0 if unbiased else 0.0
    if not _needs_identity(shrinkage, reg, eps):
        return _full_plain(stats, model, rows, one, X)
    bases = [rank_one.basis(stats.scatter[j], orthogonal=True) for j in range(K)]
    traces = np.trace(stats.scatter, axis1=1, axis2=2)
    frobs = np.sum(stats.scatter**2, axis=(1, 2))
    fourth = stats.fourth if stats.fourth is not None else np.zeros(K)
    alphas = [_intensity(shrinkage, stats.counts[j], traces[j], frobs[j], fourth[j], d)
              for j in range(K)]
    if np.ndim(eps) == 0:
        scores = _densities(model, X)
    else:
        scores = np.empty((X.shape[0], K))
        c = stats.grand_mean()
        for j, B in enumerate(bases):
            a, b = _coefficients(stats.counts[j] - one, alphas[j], traces[j], d, reg, eps)
            Z = (X - c) @ B.U - (stats.means[j] - c) @ B.U
            maha = rank_one.weighted_sum(Z * Z, B.nu, a, b)
            scores[:, j] = -0.5 * (maha + rank_one.log_det(B, a, b) + d * _LOG_2PI)
    order = np.argsort(rows.own, kind="stable")
    stops = np.cumsum(np.bincount(rows.own, minlength=K))
    for j, B in enumerate(bases):
        own = order[stops[j] - np.count_nonzero(rows.own == j): stops[j]]
        if own.size == 0:
            continue
        sub = rows.subset(own)
        R = sub.residual
        Zr = R @ B.U
        rr = np.einsum("ij,ij->i", R, R)
        trace = traces[j] - sub.coef * rr
        alpha = alphas[j]
        if isinstance(shrinkage, str):
            rSr = np.einsum("il,il,l->i", Zr, Zr, B.nu)
            frob = frobs[j] - 2 * sub.coef * rSr + sub.coef**2 * rr * rr
            f_own = None
            if shrinkage == "ledoit-wolf":
                f_own = fourth_without(stats, sub, rSr, R @ stats.third[j])
            alpha = _intensity(shrinkage, sub.remaining, trace, frob, f_own, d)
        e_own = eps if np.ndim(eps) == 0 else eps[own]
        a, b = _coefficients(sub.remaining - one, alpha, trace, d, reg, e_own)
        maha, den = rank_one.downdated(None, Zr, B.nu, a, b, a * sub.coef, scale=sub.own_scale)
        _refuse_singular(den, rank_one.smallest(B, a, b), f"covariance of class {stats.classes[j]!r}")
        scores[own, j] = -0.5 * (maha + rank_one.log_det(B, a, b) + np.log(den) + d * _LOG_2PI)
    return scores


def _densities(model, X) -> np.ndarray:
    """The fitted model's :math:`\\ln p(x \\mid C_j)`, shape (n, K) (its scores without the priors)."""
    scores = gaussian_scores.joint_log_likelihood(model, X)
    finite = np.isfinite(model.log_priors)
    scores[:, finite] -= model.log_priors[finite]
    return scores


def _full_plain(stats, model, rows, one, X):
    """QDA without regularisation (MASS's ``qda(CV=TRUE)`` formula): with the fitted
    :math:`\\Sigma_k = S_k/D_k` and :math:`\\Delta_i = r_i^T\\Sigma_k^{-1}r_i`, the row's own class
    without it has divisor :math:`m_i = D_k - w_i` and

    .. math::

        (x_i - \\mu_k')^T\\Sigma_k'^{-1}(x_i - \\mu_k') = \\Big(\\frac{n_k}{n_k'}\\Big)^2
            \\frac{m_i\\Delta_i / D_k}{1 - c_i\\Delta_i/D_k}, \\qquad
        \\ln|\\Sigma_k'| = \\ln|\\Sigma_k| + d\\ln\\frac{D_k}{m_i} + \\ln(1 - c_i\\Delta_i/D_k)

    so the model's own Mahalanobis distances (one prediction) give everything."""
    n, d, K = X.shape[0], stats.n_features, stats.n_classes
    maha = gaussian_scores.mahalanobis(model, X)
    log_dets = np.array([np.linalg.slogdet(model.covariance[j])[1] for j in range(K)])
    scores = maha + log_dets
    idx = np.arange(n)
    D = stats.counts[rows.own] - one
    m = rows.remaining - one
    delta = maha[idx, rows.own]
    den = 1.0 - rows.coef * delta / D
    _refuse_singular(den, m / D, "covariance of a class")
    scores[idx, rows.own] = (rows.own_scale**2 * (m * delta / D) / den
                             + log_dets[rows.own] + d * np.log(D / m) + np.log(den))
    return -0.5 * (scores + d * _LOG_2PI)


def _diag(stats, X, rows, *, spherical, unbiased, shrinkage, reg, eps):
    """Per-class diagonal (or spherical) covariances, elementwise."""
    n, d, K = X.shape[0], stats.n_features, stats.n_classes
    one = 1.0 if unbiased else 0.0
    idx = np.arange(n)
    # (n, K, d) variances and offsets x_i - mu_j', the row's own class downdated
    scatter = np.broadcast_to(stats.class_diagonals(), (n, K, d)).copy()
    divisor = np.broadcast_to(stats.counts - one, (n, K)).copy()
    scatter[idx, rows.own] -= rows.coef[:, None] * rows.residual**2
    divisor[idx, rows.own] = rows.remaining - one
    var = scatter / divisor[:, :, None]
    if spherical:
        var[:] = var.mean(axis=2, keepdims=True)
    var = (1.0 - reg) * var + reg + np.reshape(eps, (-1, 1, 1))
    E = X[:, None, :] - stats.means[None, :, :]
    E[idx, rows.own] = rows.own_scale[:, None] * rows.residual
    _refuse_singular(np.ones(1), np.atleast_1d(var.min() / max(var.max(), np.finfo(float).tiny)),
                     "per-class variances")
    maha = np.einsum("ikj,ikj->ik", E * E, 1.0 / var)
    return -0.5 * (maha + np.log(var).sum(axis=2) + d * _LOG_2PI)


def _tied_diag(stats, X, rows, *, unbiased, shrinkage, reg, eps):
    """One shared diagonal covariance, downdated per row."""
    n, d, K = X.shape[0], stats.n_features, stats.n_classes
    divisor = rows.total - (K if unbiased else 0)
    var = (stats.pooled_diagonal() - rows.coef[:, None] * rows.residual**2) / divisor[:, None]
    var = (1.0 - reg) * var + reg + np.reshape(eps, (-1, 1))
    _refuse_singular(np.ones(1), np.atleast_1d(var.min() / max(var.max(), np.finfo(float).tiny)),
                     "shared per-feature variances")
    E = X[:, None, :] - stats.means[None, :, :]
    E[np.arange(n), rows.own] = rows.own_scale[:, None] * rows.residual
    maha = np.einsum("ikj,ij->ik", E * E, 1.0 / var)
    return -0.5 * (maha + np.log(var).sum(axis=1)[:, None] + d * _LOG_2PI)
