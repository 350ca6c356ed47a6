"""Covariance estimates from :class:`~linclass.core.class_stats.ClassStats`: pure functions.

The raw statistics are never modified; every regularisation below returns a new matrix.

* Maximum likelihood (docs/math/gaussian.md#maximum-likelihood-class-statistics, the default): pooled
  :math:`\\Sigma = S_W / n` (Bishop 2006 eq. 4.78), per class :math:`\\Sigma_k = S_k / n_k`.
* Unbiased: pooled :math:`S_W / (n - K)`, per class :math:`S_k / (n_k - 1)`.
* Shrinkage towards the scaled identity :math:`(1-\\alpha)\\Sigma + \\alpha\\,(\\mathrm{tr}\\Sigma/d)\\,I`
  with :math:`\\alpha` fixed, Ledoit-Wolf (2004) or OAS (Chen et al. 2010), both computed on the
  within-class residuals :math:`x_i - \\mu_{y_i}` treated as a zero-mean sample.
* ``reg_param`` (scikit-learn's QDA convention): :math:`(1-r)\\Sigma + r I`.
"""

from __future__ import annotations

import numpy as np

from linclass.core.class_stats import ClassStats

__all__ = [
    "blend_identity",
    "class_covariances",
    "ledoit_wolf_intensity",
    "oas_intensity",
    "pooled_covariance",
    "shrink",
    "shrinkage_intensity",
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
