"""The exact solve of a small quadratic model with an L1 part: the inner step of proximal Newton on
an explicit model Hessian (dense X, or sparse X with a small working set), by coordinate descent
and then the feature-sign search."""

from __future__ import annotations

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

from linclass.linear import compiled

__all__ = ["feature_sign", "solve_small_model"]


def solve_small_model(Q, grad, w, pen, tol: float, max_sweeps: int, nu: float = 0.0):
    """Minimise :math:`\\text{grad}^T\\delta + \\frac12\\delta^T(Q + \\nu I)\\delta + r(w + \\delta)`
    for a small dense Q: coordinate descent from zero, then, for an elastic net without bounds,
    :func:`feature_sign` from its point to the exact minimiser.  Coordinate descent alone converges
    slowly when the features are correlated; the exact step makes the outer iteration a proximal
    Newton method with exact steps (fast local convergence).  ``pen``: the penalty of each
    coordinate (a :class:`~linclass.linear.penalties.kernel.PenaltyKernel` laid out on the working
    set); any other penalty (bounds, a non-convex one) is solved by coordinate descent alone, to
    ``tol``.  ``nu``: the damping of :mod:`.damping`.  Returns ``(delta, passes)``.
    """
    q = w.size
    if nu:
        Q = Q + nu * np.eye(q)
    delta = np.zeros(q)

    def descend(budget):
        return compiled.cd_gram(Q, grad, w, delta, pen.prox, pen.params, pen.curvature, tol,
                                budget)

    if pen.elastic is None:  # the feature-sign search knows no bounds: coordinate descent to tol
        sweeps = descend(max_sweeps)
        return _checked(delta, Q, grad, w, pen), sweeps
    l1, l2 = pen.elastic
    M = Q + np.diag(l2)
    c = Q @ w - grad  # the model in u = w + delta: 1/2 u'Mu - c'u + l1 |u|_1 (+ constant)
    if not np.any(l1):  # a smooth model: the Newton step itself
        try:
            return cho_solve(cho_factor(M, check_finite=False), c, check_finite=False) - w, 0
        except (LinAlgError, ValueError):
            pass
    first = min(32, max_sweeps)
    sweeps = descend(first)
    if sweeps < first:  # coordinate descent met the tolerance: an inexact step is all it takes
        return _checked(delta, Q, grad, w, pen), sweeps
    u = feature_sign(M, c, l1, w + delta)
    if u is None:  # singular: coordinate descent to the tolerance instead
        sweeps += descend(max_sweeps)
        return _checked(delta, Q, grad, w, pen), sweeps
    return _checked(u - w, Q, grad, w, pen), sweeps


def _checked(delta, Q, grad, w, pen):
    """``delta``, or NaN where it cannot be the minimiser of the model: the model is zero at no
    step and every method above only lowers it, and the data's curvature along the step,
    :math:`\\delta^T(Q + \\operatorname{diag}(c))\\delta` (c the penalty's convex quadratic part), is
    not negative.  A step that fails either (or is not finite) says that Q is not positive
    semi-definite at working precision and the iteration ran down a direction of negative
    curvature.  The NaN reaches the caller's slope, and
    :func:`~linclass.linear.solvers.damping.damped_step` damps the model instead of searching
    along a step of 1e200."""
    with np.errstate(over="ignore", invalid="ignore"):
        Qd = Q @ delta
        curvature = float(delta @ Qd) + float(np.sum(pen.curvature * delta * delta))
        model = float(grad @ delta) + 0.5 * float(delta @ Qd) + pen.change(w, delta)
        size = float(delta @ delta) * max(float(np.abs(np.diag(Q)).max(initial=0.0)),
                                          float(np.max(pen.curvature, initial=0.0)))
        rounding = 1e-9 * (abs(float(grad @ delta)) + float(np.sum(np.abs(pen.values(
            w, np.arange(w.size) if pen.cols is None else pen.cols)))) + 1e-300)
    if np.isfinite(model) and model <= rounding and np.isfinite(size) and curvature >= -1e-9 * size:
        return delta
    return np.full_like(delta, np.nan)


def feature_sign(M, c, l1, u, max_iter: int | None = None):
    """Exact minimiser of :math:`\\frac12u^TMu - c^Tu + \\lambda_1\\lVert u\\rVert_1` (M positive
    definite on the non-zero set) by the feature-sign search of Lee, Battle, Raina and Ng (2007,
    "Efficient sparse coding algorithms", Algorithm 1), started from ``u``.

    Each step solves the stationarity condition with the current signs,
    :math:`M_{AA}u_A = c_A - \\lambda_1\\theta_A`, then moves towards that point and stops at the lowest
    objective among the points where a coefficient changes sign; when the non-zero set is optimal, the
    zero coefficient that violates :math:`|(Mu - c)_t| \\le \\lambda_1` most joins.  The objective falls
    at every step, so the search ends, at the exact minimiser.  ``l1`` is one number or one per
    coordinate (per-feature penalty factors).  Returns None when a system is singular
    or the iteration budget runs out.
    """
    q = c.size
    max_iter = 4 * q + 10 if max_iter is None else max_iter
    u = np.array(u, dtype=np.float64)
    l1 = np.broadcast_to(np.asarray(l1, dtype=np.float64), (q,))
    theta = np.sign(u)
    active = u != 0
    scale = max(float(np.abs(c).max(initial=0.0)), float(l1.max(initial=0.0)), 1e-300)
    eps = 1e-11 * scale

    for _ in range(max_iter):
        grad = M @ u - c
        A = np.flatnonzero(active)
        lA = l1[A]
        if A.size and np.max(np.abs(grad[A] + lA * theta[A])) > eps:
            try:
                target = cho_solve(cho_factor(M[np.ix_(A, A)], check_finite=False),
                                   c[A] - lA * theta[A], check_finite=False)
            except (LinAlgError, ValueError):
                return None
            current = u[A]
            flips = np.flatnonzero((current != 0) & (np.sign(target) != np.sign(current)))
            steps = np.append(current[flips] / (current[flips] - target[flips]), 1.0)
            # along u + t d the smooth part is f0 + t slope + t^2 curve: one product for all t
            d = target - current
            Md = M[:, A] @ d
            slope, curve = float(grad[A] @ d), 0.5 * float(d @ Md[A])
            best, best_value = None, float(lA @ np.abs(current))
            for t in steps:
                v = current + t * d
                small = np.abs(v) <= 1e-15 * np.abs(current).max(initial=1.0)
                v[small] = 0.0
                f = t * slope + t * t * curve + float(lA @ np.abs(v))
                if f < best_value:
                    best, best_value = v, f
            if best is not None:
                v, best = best, u.copy()
                best[A] = v
            if best is None:  # no decrease at working precision: optimal on this set
                theta[A] = np.sign(u[A])
                active = u != 0
                if np.max(np.abs((M @ u - c)[A] + lA * theta[A]), initial=0.0) > 1e3 * eps:
                    return None
            else:
                u = best
                active = u != 0
                theta = np.sign(u)
            continue
        off = np.flatnonzero(~active)
        if off.size == 0:
            return u
        excess = np.abs(grad[off]) - l1[off]
        t = int(np.argmax(excess))
        if excess[t] <= eps:
            return u
        j = off[t]
        active[j] = True
        theta[j] = -np.sign(grad[j])
    return None
