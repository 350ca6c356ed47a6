"""Where a logistic / softmax fit starts: the shared-covariance Gaussian model, which has the logistic
form exactly.

Bishop 2006 sec. 4.2.1 (docs/math/gaussian.md#two-class-gaussian-model-in-logistic-form): Gaussian classes
with one covariance :math:`\\Sigma` give

.. math::  p(C_k \\mid x) = \\frac{e^{a_k(x)}}{\\sum_j e^{a_j(x)}}, \\qquad
           a_k(x) = (\\Sigma^{-1}\\mu_k)^T x - \\tfrac12\\mu_k^T\\Sigma^{-1}\\mu_k + \\ln\\pi_k,

for two classes :math:`\\sigma(\\theta^Tx + \\theta_0)` with :math:`\\theta = \\Sigma^{-1}(\\mu_1 - \\mu_0)`:
a logistic (softmax) model.  Its parameters come from the class statistics (counts, means, pooled
scatter) that the fit computes anyway for the Hessian bound, so the start costs one small solve; it is
the logistic optimum when the classes are Gaussian with a shared covariance, and close to it whenever
linear discriminant analysis fits the data well (on the benchmark's binary problem it starts 1.8e-3
above the optimal mean log-loss, where the intercept-only start is 0.32 above).

Written about the centre :math:`c` (the grand mean), the scores are
:math:`(\\Sigma^{-1}(\\mu_k - c))^T(x - c) - \\tfrac12(\\mu_k - c)^T\\Sigma^{-1}(\\mu_k - c) + \\ln\\pi_k` plus a
constant shared by the classes, which cancels: no large numbers cancel for data far from the origin.
The solve is a Cholesky factorisation of :math:`\\Sigma`; a singular (or nearly singular: a pivot
below 1e-10 of the largest variance) :math:`\\Sigma` gives no start, since the model's coefficients
outside its range are arbitrary.

:func:`gaussian_start` keeps the intercept-only start (:meth:`ObjectiveLayout.null_start`) whenever that
is at least as good (a strong penalty, data far from Gaussian, separable classes).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, solve_triangular

from linclass.generative.precision import gaussian_discriminants

__all__ = ["gaussian_start", "gaussian_theta"]

_SINGULAR = 1e-10  # Cholesky pivots below this fraction of the largest variance: singular


def gaussian_theta(layout, stats) -> np.ndarray | None:
    """The Gaussian model's parameters in ``layout``'s coefficient layout (shape ``layout.shape``), or
    None when they are not finite.

    Parameters
    ----------
    layout : ObjectiveLayout
        The objective (its offset, basis and intercept setting).
    stats : ClassStats
        Class statistics under the objective's weights, kind 'tied' or 'full'.
    """
    counts = stats.counts
    present = counts > 0
    if present.sum() < 2:
        return None
    d = stats.n_features
    sigma = stats.pooled_scatter() / stats.total
    scale = float(np.mean(np.diag(sigma)))
    if not np.isfinite(scale) or scale <= 0:
        return None
    try:
        factor = cho_factor(sigma, lower=True, check_finite=False)
    except LinAlgError:
        return None
    # (near-)singular Sigma (collinear features, fewer rows than features): the model's directions
    # outside its range are arbitrary and huge; no start from it
    if np.min(np.diag(factor[0]) ** 2) <= _SINGULAR * np.max(np.diag(sigma)):
        return None
    log_priors = np.full(counts.shape, -1e3)  # a class without weight: never predicted
    log_priors[present] = np.log(counts[present] / stats.total)
    centre = stats.grand_mean() if layout.fit_intercept else np.zeros(d)
    L = factor[0]  # Sigma = L L^T: the root H = L^-T, without a rank rule (singular: no start)
    coef, intercept = gaussian_discriminants(
        stats.means, log_priors,
        lambda A: solve_triangular(L, A.T, lower=True, check_finite=False).T,
        lambda Z: solve_triangular(L, Z.T, lower=True, trans="T", check_finite=False).T, centre)
    theta = np.zeros(layout.shape)
    if layout.basis is None:
        theta[:d, 0] = coef[1] - coef[0]
        if layout.fit_intercept:
            theta[d, 0] = intercept[1] - intercept[0]
    else:
        theta[:d] = coef.T @ layout.basis
        if layout.fit_intercept:
            theta[d] = intercept @ layout.basis
    if layout.fit_intercept:  # scores about the objective's offset instead of c
        theta[d] += (layout.offset - centre) @ theta[:d]
    return theta if np.all(np.isfinite(theta)) else None


def gaussian_start(objective) -> np.ndarray:
    """:func:`gaussian_theta` of the objective's class statistics (``objective.start_stats()``: on
    large data, those of a sample of rows), or the intercept-only start where that is not lower.

    Evaluating the objective at the Gaussian start is the solver's first evaluation (objectives keep
    their last one), so the comparison costs no extra pass over the data.  Sparse X starts at the
    intercept-only point.
    """
    null = objective.null_start()
    if getattr(objective, "sparse", False):  # class statistics of sparse rows would be dense d x d
        return null
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        theta = gaussian_theta(objective, objective.start_stats())
        if theta is None:
            return null
        value = objective.value(theta)
    return theta if np.isfinite(value) and value < objective.null_value() else null
