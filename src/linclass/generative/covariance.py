"""Covariance estimates from :class:`~linclass.generative.class_stats.ClassStats` (pure functions),
and from the rows of each class where an estimate needs them.

The raw statistics are never modified; every regularisation below returns a new matrix.

* Maximum likelihood (docs/math/gaussian.md#maximum-likelihood-class-statistics, the default): pooled
  :math:`\\Sigma = S_W / n` (Bishop 2006 eq. 4.78), per class :math:`\\Sigma_k = S_k / n_k`.
* Unbiased: pooled :math:`S_W / (n - K)`, per class :math:`S_k / (n_k - 1)`.
* Shrinkage towards the scaled identity :math:`(1-\\alpha)\\Sigma + \\alpha\\,(\\mathrm{tr}\\Sigma/d)\\,I`
  with :math:`\\alpha` fixed, Ledoit-Wolf (2004) or OAS (Chen et al. 2010), both computed on the
  within-class residuals :math:`x_i - \\mu_{y_i}` treated as a zero-mean sample.
* ``reg_param`` (scikit-learn's QDA convention): :math:`(1-r)\\Sigma + r I`.

Two estimates of scikit-learn's discriminant analysis need the rows of each class, not only
their statistics (:class:`RowCovariances`):

* ``shrinkage='auto'``: each class is standardized by its own per-feature standard deviations
  :math:`D_k` (maximum likelihood, a constant feature keeps scale 1), the Ledoit-Wolf intensity
  :math:`\\alpha_k` is computed on the standardized residuals :math:`z_i = D_k^{-1}(x_i - \\mu_k)`, and
  the shrunk correlation is scaled back:

  .. math:: \\Sigma_k = D_k\\big((1-\\alpha_k)R_k + \\alpha_k\\tfrac{\\mathrm{tr}R_k}{d}I\\big)D_k,
            \\qquad R_k = D_k^{-1}\\hat\\Sigma_kD_k^{-1}

  so the covariance is shrunk towards its own diagonal.  Only
  :math:`\\sum_i w_i\\lVert z_i\\rVert^4` needs the rows; it depends on :math:`D_k`, which is known only
  once the class is complete, so this estimate does not stream.
* a covariance estimator object (anything with ``fit(X)`` and a ``covariance_`` attribute after it,
  e.g. :class:`sklearn.covariance.OAS` or :class:`~sklearn.covariance.MinCovDet`), fitted on the rows
  of each class: a fresh clone per class when it is a scikit-learn estimator (has ``get_params``; the
  object passed in stays unfitted), else the object itself, refitted for each class, as
  scikit-learn uses it.

The shared (LDA) covariance built from them is the pooled :math:`\\sum_k \\frac{n_k}{n}\\Sigma_k`
(:func:`linclass.generative.gaussian.estimate`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from linclass.generative.class_stats import ClassStats

__all__ = [
    "RowCovariances",
    "blend_identity",
    "class_covariances",
    "estimator_covariances",
    "ledoit_wolf_intensity",
    "oas_intensity",
    "pooled_covariance",
    "shrink",
    "shrinkage_intensity",
    "standardized_ledoit_wolf",
]

SHRINKAGE_RULES = ("ledoit-wolf", "oas")


def _present(stats: ClassStats) -> np.ndarray:
    return stats.counts > 0


def pooled_covariance(stats: ClassStats, *, unbiased: bool = False, diagonal: bool = False) -> np.ndarray:
    """Shared covariance :math:`S_W / n` (MLE) or :math:`S_W / (n - K)` (unbiased).

    Returns shape (d, d), or (d,) with ``diagonal=True`` (the shared per-feature variances
    :math:`\\hat\\sigma_j^2` of naive Bayes with a shared variance).
    """
    denom = stats.total - (np.count_nonzero(_present(stats)) if unbiased else 0)
    if denom <= 0:
        raise ValueError(
            "The unbiased pooled covariance needs more samples than classes "
            f"(total weight {stats.total:g} for {np.count_nonzero(_present(stats))} classes); "
            "use the maximum-likelihood estimate (unbiased=False)."
        )
    scatter = stats.pooled_diagonal() if diagonal else stats.pooled_scatter()
    return scatter / denom


def class_covariances(stats: ClassStats, *, unbiased: bool = False, diagonal: bool = False) -> np.ndarray:
    """Per-class covariances :math:`S_k / n_k` (MLE) or :math:`S_k / (n_k - 1)` (unbiased).

    Shape (K, d, d), or (K, d) with ``diagonal=True``.  Classes without weight get zeros.
    """
    denom = stats.counts - (1.0 if unbiased else 0.0)
    present = _present(stats)
    if unbiased and np.any(present & (denom <= 0)):
        bad = stats.classes[present & (denom <= 0)]
        raise ValueError(
            f"The unbiased covariance of class(es) {bad.tolist()} needs a total weight above 1; "
            "use the maximum-likelihood estimate (unbiased=False)."
        )
    scatter = stats.class_diagonals() if diagonal else stats.scatter
    scale = np.divide(1.0, denom, out=np.zeros_like(denom), where=present)
    return scatter * scale.reshape((-1,) + (1,) * (scatter.ndim - 1))


def shrink(cov: np.ndarray, alpha: float) -> np.ndarray:
    """:math:`(1-\\alpha)\\Sigma + \\alpha\\,\\frac{\\mathrm{tr}\\,\\Sigma}{d} I`, shape (d, d)."""
    d = cov.shape[0]
    out = (1.0 - alpha) * cov
    out[np.diag_indices(d)] += alpha * np.trace(cov) / d
    return out


def blend_identity(cov: np.ndarray, r: float) -> np.ndarray:
    """:math:`(1-r)\\Sigma + r I` (scikit-learn's QDA ``reg_param``), shape (d, d)."""
    out = (1.0 - r) * cov
    out[np.diag_indices(cov.shape[0])] += r
    return out


def ledoit_wolf_intensity(cov: np.ndarray, fourth: float, n: float) -> float:
    """Ledoit-Wolf shrinkage intensity for a zero-mean sample of total weight n.

    ``cov`` is the MLE :math:`S = \\sum w r r^T / n`, ``fourth`` is :math:`\\sum w \\lVert r\\rVert^4`.
    With :math:`m = \\mathrm{tr}S/d`:

    .. math::

        \\delta = \\lVert S - m I\\rVert_F^2 / d, \\quad
        \\beta = \\frac{1}{n d}\\Big(\\frac{1}{n}\\sum w\\lVert r\\rVert^4 - \\lVert S\\rVert_F^2\\Big),
        \\quad \\alpha = \\min(\\beta, \\delta) / \\delta

    (the estimator of scikit-learn's ``ledoit_wolf_shrinkage`` with ``assume_centered=True``).
    """
    d = cov.shape[0]
    m = np.trace(cov) / d
    frob = float(np.sum(cov * cov))
    delta = (frob - 2 * m * np.trace(cov) + d * m * m) / d
    beta = (fourth / n - frob) / (n * d)
    if delta <= 0:
        return 0.0
    return float(max(min(beta, delta), 0.0) / delta)


def oas_intensity(cov: np.ndarray, n: float) -> float:
    """Oracle Approximating Shrinkage intensity (Chen, Wiesel, Eldar & Hero 2010).

    .. math::

        a = \\lVert S\\rVert_F^2 / d^2, \\quad m = \\mathrm{tr}S / d, \\quad
        \\alpha = \\min\\Big(1, \\frac{a + m^2}{(n + 1)(a - m^2/d)}\\Big)
    """
    d = cov.shape[0]
    m = np.trace(cov) / d
    a = float(np.mean(cov * cov))
    den = (n + 1.0) * (a - m * m / d)
    return 1.0 if den <= 0 else float(min((a + m * m) / den, 1.0))


def shrinkage_intensity(shrinkage, cov_mle: np.ndarray, n: float, fourth: float | None) -> float:
    """Resolve the user's ``shrinkage`` (float, 'ledoit-wolf' or 'oas') to a number."""
    if isinstance(shrinkage, str):
        if shrinkage == "oas":
            return oas_intensity(cov_mle, n)
        if shrinkage == "ledoit-wolf":
            return ledoit_wolf_intensity(cov_mle, fourth, n)
        raise ValueError(
            f"shrinkage={shrinkage!r} is not understood; use a float in [0, 1], 'ledoit-wolf' or "
            "'oas'. (scikit-learn's 'auto' standardizes each class first: standardize X and use "
            "'ledoit-wolf'.)"
        )
    alpha = float(shrinkage)
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"shrinkage must be in [0, 1]; got {shrinkage!r}.")
    return alpha


# ------------------------------------------------------------------ from the rows of each class

@dataclass(frozen=True, eq=False)
class RowCovariances:
    """Per-class covariances estimated from the rows.

    Attributes
    ----------
    covariances : ndarray of shape (n_classes, d, d)
        Zero for a class without weight.
    intensity : ndarray of shape (n_classes,) or None
        The Ledoit-Wolf intensity per class (``'auto'``); None for an estimator object.
    """

    covariances: np.ndarray
    intensity: np.ndarray | None = None


def _scale(variances: np.ndarray, means: np.ndarray) -> np.ndarray:
    """Per-feature standard deviations, 1 for a feature that is constant in the class (exactly, or
    at the rounding level of its mean), as a standard scaler does."""
    constant = variances <= (10 * np.finfo(float).eps * np.maximum(np.abs(means), 1.0)) ** 2
    return np.where(constant, 1.0, np.sqrt(np.maximum(variances, 0.0)))


def standardized_ledoit_wolf(X: np.ndarray, y: np.ndarray, stats: ClassStats,
                             sample_weight: np.ndarray | None = None) -> RowCovariances:
    """scikit-learn's ``shrinkage='auto'``: Ledoit-Wolf on each class's standardized residuals.

    Parameters
    ----------
    X : ndarray of shape (n_samples, d)
    y : ndarray of shape (n_samples,), int
        Class index of each row.
    stats : ClassStats of kind 'full' of the same rows (means and per-class scatter).
    sample_weight : ndarray of shape (n_samples,) or None
        Frequency weights (the weighted residuals count as repeated rows).

    Returns
    -------
    RowCovariances with per-class intensities.
    """
    K, d = stats.n_classes, stats.n_features
    present = stats.counts > 0
    mle = class_covariances(stats)
    scales = np.ones((K, d))
    for k in np.flatnonzero(present):
        scales[k] = _scale(np.diag(mle[k]), stats.means[k])
    # sum_i w_i ||z_i||^4 per class, all classes in one pass over an (n, d) temporary
    Z = (X - stats.means[y]) / scales[y]
    q = np.einsum("ij,ij->i", Z, Z)
    fourth = np.bincount(y, weights=q * q if sample_weight is None else sample_weight * q * q,
                         minlength=K)
    out = np.zeros((K, d, d))
    alpha = np.zeros(K)
    for k in np.flatnonzero(present):
        outer = np.outer(scales[k], scales[k])
        R = mle[k] / outer
        alpha[k] = ledoit_wolf_intensity(R, float(fourth[k]), float(stats.counts[k]))
        out[k] = shrink(R, alpha[k]) * outer
    return RowCovariances(out, alpha)


def estimator_covariances(estimator, X: np.ndarray, y: np.ndarray, n_classes: int,
                          sample_weight: np.ndarray | None = None) -> RowCovariances:
    """Fit ``estimator`` on the rows of each class and collect ``covariance_``: a fresh clone per class
    when it has ``get_params`` (a scikit-learn estimator), else the object itself, which cannot be
    cloned (scikit-learn's LDA and QDA fit the object they are given).

    Parameters
    ----------
    estimator : object with ``fit(X)`` and, after it, ``covariance_`` of shape (d, d)
    X : ndarray of shape (n_samples, d)
    y : ndarray of shape (n_samples,), int
    n_classes : int
    sample_weight : ndarray or None
        Covariance estimators take no weights: only None or equal weights are accepted.

    Returns
    -------
    RowCovariances (no intensities).
    """
    from sklearn.base import clone  # scikit-learn only when an estimator object is given

    name = type(estimator).__name__
    positive = None if sample_weight is None else sample_weight[sample_weight > 0]
    if positive is not None and positive.size and np.ptp(positive) > 0:
        raise ValueError(
            f"covariance_estimator={name} takes no sample weights, so it cannot honour unequal "
            "sample_weight; fit without sample_weight (or repeat rows), or use shrinkage instead."
        )
    keep = None if sample_weight is None else sample_weight > 0
    d = X.shape[1]
    out = np.zeros((n_classes, d, d))
    order = np.argsort(y, kind="stable")
    if keep is not None:
        order = order[keep[order]]
    bounds = np.searchsorted(y[order], np.arange(n_classes + 1))
    for k in range(n_classes):
        rows = order[bounds[k]:bounds[k + 1]]
        if rows.size == 0:
            continue
        fresh = clone(estimator) if hasattr(estimator, "get_params") else estimator
        fresh.fit(X[rows])  # (fit's return value is not used: scikit-learn's does not need self)
        cov = getattr(fresh, "covariance_", None)
        if cov is None:
            raise ValueError(f"covariance_estimator={name} has no covariance_ attribute after fit: "
                             "it must follow scikit-learn's covariance API (fit, then covariance_).")
        cov = np.asarray(cov, dtype=np.float64)
        if cov.shape != (d, d) or not np.all(np.isfinite(cov)):
            raise ValueError(f"covariance_estimator={name} gave a covariance_ of shape {cov.shape}"
                             f"{'' if cov.shape != (d, d) else ' with non-finite entries'}; a "
                             f"finite ({d}, {d}) matrix is needed.")
        out[k] = 0.5 * (cov + cov.T)
    return RowCovariances(out)
