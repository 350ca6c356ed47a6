"""Maximum likelihood for the proportional odds model by Newton's method on
:math:`\\theta = (\\beta, \\zeta)` itself, and the fit's record (:class:`OrdinalFit`).

The steps, as the iteration reads:

1. start at :math:`\\beta = 0` and the thresholds of the model without features (its maximum:
   :func:`~linclass.linear.ordinal.likelihood.null_thresholds`);
2. gradient :math:`g` and Hessian :math:`H` of the log-likelihood at :math:`\\theta`;
3. the Newton direction :math:`s = (-H)^{-1} g` by a Cholesky factor (the log-likelihood is
   concave; a singular :math:`-H`, from collinear features, takes the pseudo-inverse);
4. step halving from the full step until the thresholds are strictly increasing and the
   log-likelihood has not decreased;
5. stop after the step whose Newton decrement :math:`g^T s / 2` (the predicted gain of the
   log-likelihood) was at most ``tol``: the step taken after it leaves an error of the order of
   its square.

MASS's ``polr`` maximises over :math:`(\\beta, \\zeta_1, \\log(\\zeta_2 - \\zeta_1), \\dots)` by BFGS
(Venables & Ripley, 2002, sec. 7.3); the maximum is the same point, and the covariance of
:math:`(\\beta, \\zeta)` is the inverse of :math:`-H` there (polr's ``vcov`` maps its Hessian by
the delta method to the same matrix).  The data enter through two functions of
:math:`(\\beta, \\zeta)` only (the log-likelihood, and it with its derivatives), so the same
iteration fits rows in memory and rows read in chunks.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy import linalg

from linclass.exceptions import SingularCovarianceWarning
from linclass.linear.ordinal.likelihood import Derivatives

__all__ = ["OrdinalFit", "fit_ordinal", "newton_direction"]


@dataclass(frozen=True)
class OrdinalFit:
    """A fitted proportional odds model.

    Attributes
    ----------
    coef : ndarray of shape (n_features,)
    thresholds : ndarray of shape (n_classes - 1,)
        polr's ``zeta``, strictly increasing.
    log_likelihood, null_log_likelihood : float
        At the estimate, and of the model without features.
    covariance : ndarray of shape (n_features + n_classes - 1,) * 2
        The inverse of the observed information :math:`-H` at the estimate (a pseudo-inverse when
        it is singular), coefficients first, then thresholds.
    n_iter : int
        Newton steps taken.
    converged : bool
    n_obs : float
        The sum of the frequency weights.
    link : str
    """

    coef: np.ndarray
    thresholds: np.ndarray
    log_likelihood: float
    null_log_likelihood: float
    covariance: np.ndarray
    n_iter: int
    converged: bool
    n_obs: float
    link: str


def _information_solve(hessian, gradient):
    """:math:`(-H)^{-1} g` and whether :math:`-H` was positive definite."""
    information = -hessian
    try:
        factor = linalg.cho_factor(information, check_finite=False)
        step = linalg.cho_solve(factor, gradient, check_finite=False)
        if np.all(np.isfinite(step)):
            return step, True
    except linalg.LinAlgError:
        pass
    return linalg.pinvh(information, atol=0.0, rtol=1e-12) @ gradient, False


def newton_direction(derivatives: Derivatives) -> tuple[np.ndarray, float, bool]:
    """The Newton step :math:`s = (-H)^{-1} g`, the decrement :math:`g^T s / 2` and whether the
    information was positive definite."""
    step, definite = _information_solve(derivatives.hessian, derivatives.gradient)
    return step, 0.5 * float(derivatives.gradient @ step), definite


def _ordered(thresholds) -> bool:
    return bool(np.all(np.isfinite(thresholds)) and np.all(np.diff(thresholds) > 0))


def fit_ordinal(value: Callable, derivatives: Callable, *, n_features: int, start: np.ndarray,
                null_log_likelihood: float, n_obs: float, link: str, tol: float,
                max_iter: int) -> OrdinalFit:
    """Newton's method with step halving (the module's steps).

    Parameters
    ----------
    value : callable
        ``value(coef, thresholds)``: the log-likelihood.
    derivatives : callable
        ``derivatives(coef, thresholds)``: a
        :class:`~linclass.linear.ordinal.likelihood.Derivatives`.
    n_features : int
    start : ndarray of shape (n_classes - 1,)
        Ordered starting thresholds (with :math:`\\beta = 0`).
    null_log_likelihood, n_obs : float
        Recorded in the fit.
    link : str
    tol : float
        The Newton decrement below which the iteration stops (one step later).
    max_iter : int

    Returns
    -------
    OrdinalFit
    """
    d = n_features
    theta = np.concatenate([np.zeros(d), np.asarray(start, dtype=np.float64)])
    current = derivatives(theta[:d], theta[d:])
    n_iter, converged = 0, False
    while n_iter < max_iter:
        step, decrement, _ = newton_direction(current)
        t, moved = 1.0, False
        while t > 1e-10:
            candidate = theta + t * step
            if _ordered(candidate[d:]):
                gain = value(candidate[:d], candidate[d:]) - current.value
                # (at the optimum the gain is rounding: a tiny loss is not a failed step)
                if gain >= -1e-12 * max(1.0, abs(current.value)):
                    moved = True
                    break
            t *= 0.5
        n_iter += 1
        if not moved:  # no ordered point along s gains: the maximum, to rounding
            converged = decrement <= max(tol, 1e-9 * max(1.0, abs(current.value)))
            break
        theta = candidate
        current = derivatives(theta[:d], theta[d:])
        if decrement <= tol:
            converged = True
            break
    covariance, definite = _information_solve(current.hessian, np.eye(theta.size))
    covariance = 0.5 * (covariance + covariance.T)
    if not definite:
        warnings.warn("The information matrix of the ordinal fit is singular (collinear or constant "
                      "features): the covariance is its pseudo-inverse and the coefficients of the "
                      "collinear features are not identified. Drop the redundant features.",
                      SingularCovarianceWarning, stacklevel=3)
    return OrdinalFit(coef=theta[:d].copy(), thresholds=theta[d:].copy(),
                      log_likelihood=float(current.value),
                      null_log_likelihood=float(null_log_likelihood), covariance=covariance,
                      n_iter=n_iter, converged=converged, n_obs=float(n_obs), link=link)
