"""OWL-QN (orthant-wise limited-memory quasi-Newton; Andrew and Gao 2007) for the L1 / elastic-net
logistic or softmax objective on a chunked design, where the model is too wide for proximal
Newton's Hessian (more than :data:`~linclass.linear.inference.wald.MAX_PARAMS` parameters).

Each evaluation is one pass over the data for the summed loss and its gradient
(:meth:`~linclass.linear.logistic.penalised_chunked.ChunkedPenalised.value_gradient`); nothing of
size (m(d + 1))² is formed.  With :math:`f` the smooth part (summed loss plus the L2 term) and
:math:`\\lambda_1` the L1 weight on the coefficients (none on the intercepts), each iteration

1. forms the **pseudo-gradient** :math:`\\diamond F`: :math:`\\nabla_i f + \\lambda_1\\,
   \\mathrm{sign}(x_i)` off zero; at zero the one-sided derivative that points downhill, or 0 when
   neither does (then :math:`-\\diamond F` is the steepest-descent direction of :math:`F`);
2. takes the L-BFGS direction :math:`d = -H\\diamond F` from the last :data:`MEMORY` pairs of steps
   and changes of :math:`\\nabla f` (the two-loop recursion; Nocedal and Wright 2006, alg. 7.4), with
   every component whose sign disagrees with :math:`-\\diamond F` set to zero;
3. searches along the **orthant** :math:`\\xi` of the current point (the sign of :math:`x_i`, or
   of :math:`-\\diamond F_i` at zero): :math:`x(t) = \\pi(x + td;\\,\\xi)`, which zeroes every
   component that would leave its orthant, accepted when
   :math:`F(x(t)) \\le F(x) + \\sigma\\,\\diamond F^T(x(t) - x)`, halving t otherwise.  The point
   accepted brings its gradient from the same pass: an iteration whose first step is taken reads
   the data once.

Stopping is proximal Newton's: the largest optimality violation (the penalty's subgradient
conditions, the intercepts' gradient) within ``tol`` times the total weight, judged by
:class:`~.prox_newton.Certificate` (two such points a decade apart whose objectives agree).
"""

from __future__ import annotations

import numpy as np

from linclass.linear.solvers.lbfgs import _Diagonal, _direction
from linclass.linear.solvers.prox_newton import Certificate, PenalisedResult

__all__ = ["MEMORY", "owlqn_chunked"]

MEMORY = 10  # (step, gradient change) pairs kept
_SIGMA = 1e-4
_MAX_HALVINGS = 40


def _pseudo_gradient(x: np.ndarray, g: np.ndarray, l1: np.ndarray) -> np.ndarray:
    """:math:`\\diamond F` at x from the smooth gradient g (module docstring, step 1)."""
    off = np.where(x > 0, g + l1, g - l1)
    at_zero = np.where(g + l1 < 0, g + l1, np.where(g - l1 > 0, g - l1, 0.0))
    return np.where(x != 0, off, at_zero)


def _two_loop(v: np.ndarray, pairs: list) -> np.ndarray:
    """:math:`H v` for the L-BFGS inverse-Hessian approximation of ``pairs`` (s, y, 1 / y^Ts)
    (:func:`~.lbfgs._direction`), its initial matrix the identity scaled by :math:`s^Ty / y^Ty` of
    the newest pair."""
    gamma = 1.0
    if pairs:
        s, y, _ = pairs[-1]
        gamma = float(s @ y) / float(y @ y)
    return -_direction(v, pairs, _Diagonal(np.ones(v.size)), gamma)


def owlqn_chunked(obj, W0, b0, *, tol: float = 1e-6, max_iter: int = 100,
                  on_iteration=None) -> PenalisedResult:
    """Minimise the penalised objective ``obj`` (a
    :class:`~linclass.linear.logistic.penalised_chunked.ChunkedPenalised`, scalar L1 / L2
    weights) from ``(W0, b0)`` (internal layout, shapes (m, d) and (m,)); see the module
    docstring.  Arguments and result as
    :func:`~linclass.linear.solvers.prox_newton_chunked.prox_newton_chunked`, with ``n_sweeps``
    the passes that evaluated rejected step lengths."""
    pen, m, d = obj.penalty, obj.m, obj.d
    N, intercept = obj.total, obj.fit_intercept
    coef = np.zeros((m, d + 1), dtype=bool)
    coef[:, :d] = True
    coef = coef.reshape(-1)
    l1 = np.where(coef, pen.l1, 0.0)
    l2 = np.where(coef, pen.l2, 0.0)
    free = coef | intercept  # without an intercept its entries stay at zero

    def unpack(x):
        T = x.reshape(m, d + 1)
        return T[:, :d], T[:, d].copy()

    def evaluate(x):
        W, b = unpack(x)
        loss, G = obj.value_gradient(W, b)
        g = np.where(free, G.reshape(-1) + l2 * x, 0.0)
        return loss + 0.5 * float(l2 @ (x * x)) + float(l1 @ np.abs(x)), g, G

    def violation_at(x, G):
        W, _ = unpack(x)
        v = float(pen.violation(W, G[:, :d]).max()) if d else 0.0
        return max(v, float(np.abs(G[:, d]).max())) if intercept else v

    x = np.hstack([np.asarray(W0, dtype=np.float64).reshape(m, d),
                   np.asarray(b0, dtype=np.float64).reshape(m, 1)]).reshape(-1)
    if not intercept:
        x = np.where(coef, x, 0.0)
    F, g, G = evaluate(x)
    history, pairs = [F / N], []
    n_iter, rejected, converged, stalled = 0, 0, False, False
    limit = tol * N
    certificate = Certificate(obj, tol)
    while True:
        violation = violation_at(x, G)
        if violation <= limit:
            converged, limit = certificate.check(*unpack(x), F, limit, violation)
            if converged:
                break
        if n_iter >= max_iter:
            break
        n_iter += 1
        pg = _pseudo_gradient(x, g, l1)
        direction = -_two_loop(pg, pairs)
        direction[direction * pg >= 0] = 0.0
        slope = float(pg @ direction)
        if not slope < 0:  # the quasi-Newton metric lost its way: steepest descent, fresh memory
            pairs, direction = [], -pg
            slope = -float(pg @ pg)
            if not slope < 0:
                stalled = True
                break
        orthant = np.where(x != 0, np.sign(x), np.sign(-pg))
        t = 1.0 if pairs else min(1.0, 1.0 / max(float(np.abs(pg).max()), 1e-300))
        resolution = np.finfo(float).eps * max(abs(F), 1.0)
        for _ in range(_MAX_HALVINGS):
            trial = x + t * direction
            trial = np.where(l1 > 0, np.where(np.sign(trial) == orthant, trial, 0.0), trial)
            F_new, g_new, G_new = evaluate(trial)
            decrease = float(pg @ (trial - x))
            if np.isfinite(F_new) and (F_new <= F + _SIGMA * decrease
                                       or (-decrease <= resolution and F_new <= F + resolution)):
                break
            rejected += 1
            t *= 0.5
        else:
            stalled = True
            break
        s, y = trial - x, g_new - g
        sy = float(s @ y)
        if sy > np.finfo(float).eps * float(y @ y):
            pairs.append((s, y, 1.0 / sy))
            del pairs[:-MEMORY]
        x, F, g, G = trial, F_new, g_new, G_new
        history.append(F / N)
        if on_iteration is not None and on_iteration(unpack(x)):
            break
    W, b = unpack(x)
    W = np.array(W)
    if not obj.binary and pen.l1 + pen.l2 > 0:  # the loss does not see a common shift of classes
        before = pen.value(W)
        W -= pen.best_shift(W)
        F += pen.value(W) - before
        x = np.hstack([W, b[:, None]]).reshape(-1)
    violation = violation_at(x, G)
    if not converged:
        converged = stalled and violation <= tol * N
    return PenalisedResult(W, b, n_iter, converged, violation / N, F, np.asarray(history),
                           rejected, G[:, :d], stalled, certificate.gap)
