"""Profile-likelihood intervals and likelihood-ratio tests of the parameters of an unpenalised
logistic / softmax fit, as R's ``confint`` of a ``glm`` (MASS's ``profile.glm``) defines them.

For the reported parameter :math:`\\beta_j` (the intercept or a coefficient of one equation, in the
parameters of :mod:`linclass.linear.inference.sandwich`) the profile log-likelihood and deviance are

.. math::

    \\ell_p(t) = \\max_{\\beta:\\ \\beta_j = t} \\ell(\\beta), \\qquad
    D_j(t) = 2\\,[\\ell(\\hat\\beta) - \\ell_p(t)],

and the :math:`1-\\alpha` interval is :math:`\\{t: D_j(t) \\le \\chi^2_{1,1-\\alpha}\\}`: its ends
solve :math:`\\mathrm{sign}(t - \\hat\\beta_j)\\sqrt{D_j(t)} = \\pm\\Phi^{-1}(1-\\alpha/2)`
(Venables and Ripley 2002, *Modern Applied Statistics with S*, sec. 8.4; the binomial dispersion is
1).  :math:`D_j(0)` is the likelihood-ratio statistic of :math:`\\beta_j = 0`
(:math:`\\chi^2_1`; R's ``drop1(fit, test="LRT")`` for a single-column term).

:math:`\\ell` is concave, so each :math:`\\ell_p(t)` is one Newton fit of the other parameters with
:math:`\\beta_j` held at :math:`t` (its column an offset, as R's ``glm(..., offset=)``), started from
the fit at the nearest :math:`t` computed.  An end is found by Brent's method on the signed root,
between :math:`\\hat\\beta_j` and the first of the points :math:`\\hat\\beta_j \\pm z\\,\\mathrm{se}_j
2^s` (:math:`s = 0, 1, ...`) beyond it; it is infinite when :math:`D_j` stays below the quantile
(the profile flattens: the data nearly separate the classes on that side).  R's ``confint``
interpolates a spline through a few profile points instead; the exact roots computed here agree
with a root finder on R's own profile deviance (``tests/data/r/profile_confint.R``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import brentq
from scipy.stats import chi2, norm

from linclass.linear.solvers import SymmetricSolver

__all__ = ["ProfileIntervals", "profile_intervals"]

_MAX_NEWTON = 100
_MAX_DOUBLINGS = 40  # of the first step from the estimate before an end is declared infinite
_DRIFT = 0.05  # the polished estimate moved by more standard errors: not the fit's rows


@dataclass(frozen=True)
class ProfileIntervals:
    """The profile quantities of every reported parameter (equation-major, intercept first).

    Attributes
    ----------
    lower, upper : ndarray of shape (k,)
        The ends of the :math:`1-\\alpha` intervals (infinite where the profile stays below the
        quantile).
    lr_statistic, p_value : ndarray of shape (k,)
        :math:`D_j(0)` and its :math:`\\chi^2_1` p-value.
    alpha : float
    estimate : ndarray of shape (k,)
        :math:`\\hat\\beta` after the Newton polish of the fit's parameters on these rows.
    """

    lower: np.ndarray
    upper: np.ndarray
    lr_statistic: np.ndarray
    p_value: np.ndarray
    alpha: float
    estimate: np.ndarray


class _Likelihood:
    """:math:`\\ell`, its gradient and Hessian in the reported parameters (an (m, p) array) over the
    rows: :math:`\\tilde X` (n, p), class index y, frequency weights w."""

    def __init__(self, X, y, weight, fit_intercept: bool, m: int, offset=None):
        X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
        self.offset = np.zeros((X.shape[0], m)) if offset is None else offset
        self.Xt = np.hstack([np.ones((X.shape[0], 1)), X]) if fit_intercept else X
        self.w = np.ones(X.shape[0]) if weight is None else np.asarray(weight, dtype=np.float64)
        self.y, self.m = y, m
        self.onehot = (y[:, None] == np.arange(1, m + 1)).astype(np.float64)

    def parts(self, beta: np.ndarray, with_hessian: bool = True):
        """``(l, gradient (m*p,), Hessian (m*p, m*p) or None)``."""
        Xt, w = self.Xt, self.w
        eta = np.hstack([np.zeros((Xt.shape[0], 1)), Xt @ beta.T + self.offset])
        top = eta.max(axis=1, keepdims=True)
        E = np.exp(eta - top)
        total = E.sum(axis=1, keepdims=True)
        lse = (np.log(total) + top)[:, 0]
        value = float(w @ (eta[np.arange(eta.shape[0]), self.y] - lse))
        mu = (E / total)[:, 1:]
        gradient = ((self.onehot - mu) * w[:, None]).T @ Xt  # (m, p)
        if not with_hessian:
            return value, gradient.ravel(), None
        p = Xt.shape[1]
        U = (mu[:, :, None] * Xt[:, None, :]).reshape(Xt.shape[0], -1)
        H = -((U * w[:, None]).T @ U)
        for k in range(self.m):
            block = slice(k * p, (k + 1) * p)
            H[block, block] += (Xt * (w * mu[:, k])[:, None]).T @ Xt
        return value, gradient.ravel(), (H + H.T) / 2

    def maximise(self, beta: np.ndarray, free: np.ndarray) -> tuple[np.ndarray, float]:
        """Newton's method with step halving over the parameters ``free`` (a boolean mask of the
        flattened parameters), the others held: ``(beta, l)`` at the maximum (the best point when
        the maximum is not attained, as under separation)."""
        beta = np.array(beta, dtype=np.float64)
        value, g, H = self.parts(beta)
        for _ in range(_MAX_NEWTON):
            gf = g[free]
            system = SymmetricSolver(H[np.ix_(free, free)])
            step = system.solve(gf)
            decrement = float(gf @ step)
            if not np.isfinite(decrement) or decrement <= 1e-20 * max(1.0, abs(value)):
                break
            t = 1.0
            while True:
                trial = beta.ravel().copy()
                trial[free] += t * step
                trial = trial.reshape(beta.shape)
                new = self.parts(trial, with_hessian=False)[0]
                if new >= value - 1e-12 * max(1.0, abs(value)) or t < 1e-10:
                    break
                t /= 2
            if new < value:  # no ascent at this precision: the maximum
                break
            beta, (value, g, H) = trial, self.parts(trial)
        return beta, value


class _Profile:
    """:math:`D_j(t)` of one parameter by warm-started constrained fits."""

    def __init__(self, likelihood: _Likelihood, beta: np.ndarray, best: float, j: int):
        self.likelihood, self.best, self.j = likelihood, best, j
        self.shape = beta.shape
        self.free = np.ones(beta.size, dtype=bool)
        self.free[j] = False
        self.centre = float(beta.ravel()[j])
        self.fits = {self.centre: beta.ravel().copy()}

    def deviance(self, t: float) -> float:
        t = float(t)
        near = min(self.fits, key=lambda s: abs(s - t))
        start = self.fits[near].copy()
        start[self.j] = t
        beta, value = self.likelihood.maximise(start.reshape(self.shape), self.free)
        self.fits[t] = beta.ravel()
        return max(2.0 * (self.best - value), 0.0)

    def end(self, side: float, z: float, scale: float) -> float:
        """The end of the interval on the side ``side`` (-1 or +1) for the normal quantile z."""
        def signed(t):
            return side * np.sqrt(self.deviance(t)) - side * z

        inside = self.centre
        for s in range(_MAX_DOUBLINGS):
            t = self.centre + side * z * scale * 2.0**s
            if signed(t) * side >= 0:  # beyond the end
                tol = 1e-12 * max(1.0, abs(t))
                return float(brentq(signed, inside, t, xtol=tol, rtol=4 * np.finfo(float).eps))
            inside = t
        return float(side * np.inf)


def profile_intervals(X, y: np.ndarray, weight, coef: np.ndarray, intercept: np.ndarray,
                      fit_intercept: bool, std_err: np.ndarray, alpha: float = 0.05,
                      offset: np.ndarray | None = None) -> ProfileIntervals:
    """:class:`ProfileIntervals` of the reported parameters ``coef`` (m, d) / ``intercept`` (m,)
    (contrasts against class 0) over the rows ``X`` (n, d), class index ``y``, frequency weights
    ``weight`` (None: ones) and the fit's ``offset`` (n, m) in the reported parametrisation
    (None: none).  ``std_err`` (k,) sets the first steps of the search.

    The fit's parameters are first polished by Newton's method on these rows, so that
    :math:`\\hat\\beta` is the maximum to rounding (:math:`D_j \\ge 0` near it).

    Warns
    -----
    UserWarning
        When that polish moves a parameter by more than 0.05 standard errors: the rows are not
        those of the fit (or the fit stopped far from the optimum).
    """
    m = coef.shape[0]
    beta = np.column_stack([intercept, coef]) if fit_intercept else np.asarray(coef, dtype=float)
    likelihood = _Likelihood(X, y, weight, fit_intercept, m, offset)
    everything = np.ones(beta.size, dtype=bool)
    polished, best = likelihood.maximise(beta, everything)
    scale = np.where(np.isfinite(std_err) & (std_err > 0), std_err, 1.0 + np.abs(beta.ravel()))
    drift = np.max(np.abs(polished - beta).ravel() / scale)
    if drift > _DRIFT:
        warnings.warn(f"The fitted coefficients are not the maximum-likelihood estimate of these rows "
                      f"(Newton's method moves one by {drift:.3g} standard errors): are they the rows "
                      "the model was fitted on (X, y, sample_weight)? The profile is that of these "
                      "rows' estimate.", UserWarning, stacklevel=4)
    z = float(norm.ppf(1 - alpha / 2))
    k = beta.size
    lower, upper, lr = np.empty(k), np.empty(k), np.empty(k)
    for j in range(k):
        profile = _Profile(likelihood, polished, best, j)
        lower[j] = profile.end(-1.0, z, scale[j])
        upper[j] = profile.end(1.0, z, scale[j])
        lr[j] = profile.deviance(0.0)
    return ProfileIntervals(lower=lower, upper=upper, lr_statistic=lr, p_value=chi2.sf(lr, 1),
                            alpha=float(alpha), estimate=polished.ravel())
