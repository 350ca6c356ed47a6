"""Proximal Newton for the penalised logistic / softmax objective on a chunked design (Dask, files):
solver 'cd' where the rows are read one pass at a time
(:class:`~linclass.linear.logistic.penalised_chunked.ChunkedPenalised`).

The in-memory 'cd' (:mod:`.prox_newton`, :mod:`.prox_newton_coupled`) on its explicit model,
with the rows reached only through passes.  Each outer iteration:

1. **check**: at the current point the pass that accepted it brought the summed loss, its
   gradient and its Hessian (every column: no working set, the model is small).  The largest
   optimality violation (the penalty's subgradient conditions and the intercepts' gradient) is
   compared with ``tol`` times the total sample weight, and a point within it is judged by
   :class:`~.prox_newton.Certificate`, as in memory; the duality gap needs an iteration of its own
   over the rows and is not formed, so the fit ends on two such points a decade apart whose
   objectives agree to ``tol`` (or at the certificate's floor).
2. **model**: the intercepts profiled out of the Hessian (the Schur complement, with
   :func:`~.prox_newton_coupled.shift_free_inverse` for the K softmax intercepts, whose common
   shift the loss does not see), the model
   :math:`\\nabla^T\\delta + \\frac12\\delta^TQ\\delta + r(W + \\delta)` minimised exactly in the
   client (:func:`~.small_model.solve_small_model`: coordinate descent, then the feature-sign
   search), the intercept step recovered from it.
3. **line search** on the true objective, :math:`F(w + t\\delta) \\le F(w) + \\sigma tD` (the rule
   of :func:`~.prox_newton.line_search`): the full step's value comes in one pass together with
   the next model's gradient and Hessian, so an iteration whose full step is accepted reads the
   data once; a rejected one tries eight halvings per value-only pass, then one pass for the model
   at the point accepted.  Where no step is accepted the model is damped (:class:`~.prox_newton.Damping`).

The iteration is written as a generator of :class:`Evaluation` requests
(:func:`prox_newton_requests`), answered by one pass each: :func:`prox_newton_chunked` answers them
from the objective's own passes; a cross-validation answers the requests of every fold's fit (and of
the fit on all rows) in one pass together (:mod:`linclass.linear.fitting.chunked_path`).

Softmax coefficients take the penalty's best common shift per feature after each step
(:meth:`~linclass.linear.penalties.elastic_net.ElasticNet.best_shift`), which leaves the loss, its
gradient and its Hessian unchanged.  The Hessian has m(d + 1) rows; wider models are refused by
the fit (:func:`linclass.linear.fitting.choice.check_chunked`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from linclass.linear.solvers.prox_newton import (
    _FORCING,
    _GRAM_FORCING,
    _MAX_HALVINGS,
    _SIGMA,
    MAX_SWEEPS,
    Certificate,
    Damping,
    PenalisedResult,
    damped_steps,
    run_requests,
)
from linclass.linear.solvers.prox_newton_coupled import shift_free_inverse
from linclass.linear.solvers.small_model import kernel_on, solve_small_model

__all__ = ["Evaluation", "prox_newton_chunked", "prox_newton_requests"]

_BATCH = 8  # step lengths tried per value-only pass of a line search


@dataclass(frozen=True)
class Evaluation:
    """What one pass computes for a fit (the arguments of
    :meth:`~linclass.linear.logistic.penalised_chunked.ChunkedPenalised.evaluate`): the loss
    changes at ``(W, b) + t (dW, db)`` for each t of ``ts`` and, when ``model``, the terms
    ``(loss, G, H, ...)`` at the first t; the answer is ``(changes, terms)``."""

    W: np.ndarray
    b: np.ndarray
    dW: np.ndarray | None = None
    db: np.ndarray | None = None
    ts: tuple = (0.0,)
    model: bool = True


def _profiled(H: np.ndarray, m: int, d: int, intercept: bool, nu: float):
    """``(Q, R)`` from the augmented Hessian H (class-major, d + 1 columns per class): Q of shape
    (md, md) with the intercepts profiled out, :math:`\\delta_b = -R[\\delta; g_b]` (R None without
    an intercept); damped by ``nu`` as :func:`~.prox_newton_coupled.coupled_model`."""
    p = d + 1
    H4 = H.reshape(m, p, m, p)
    Q = np.ascontiguousarray(H4[:, :d, :, :d]).reshape(m * d, m * d)
    if nu:
        Q = Q + nu * np.eye(m * d)
    if not intercept:
        return Q, None
    HbW = np.ascontiguousarray(H4[:, d, :, :d]).reshape(m, m * d)
    Hbb = H4[:, d, :, d]
    if nu:
        inv = np.linalg.inv(Hbb + nu * np.eye(m))
    elif m == 1:
        inv = np.array([[1.0 / Hbb[0, 0]]]) if Hbb[0, 0] > 0 else np.zeros((1, 1))
    else:
        inv = shift_free_inverse(Hbb)
    R = inv @ np.hstack([HbW, np.eye(m)])
    return Q - HbW.T @ R[:, : m * d], R


def prox_newton_chunked(obj, W0, b0, *, tol: float = 1e-6, max_iter: int = 100,
                        on_iteration=None) -> PenalisedResult:
    """Minimise the penalised objective ``obj`` (a
    :class:`~linclass.linear.logistic.penalised_chunked.ChunkedPenalised`) from ``(W0, b0)``
    (internal layout, shapes (m, d) and (m,)); see the module docstring.  ``tol`` bounds the
    largest optimality violation per unit of sample weight; ``max_iter`` the outer iterations;
    ``on_iteration(W, b)`` is called after each, a true result stops the run.  The passes over
    the data are counted in ``obj.passes``."""
    def answer(request: Evaluation):
        return obj.evaluate(request.W, request.b, request.dW, request.db, ts=request.ts,
                            model=request.model)

    result, _ = run_requests(prox_newton_requests(obj, W0, b0, tol=tol, max_iter=max_iter,
                                                  on_iteration=on_iteration), answer)
    return result


def prox_newton_requests(obj, W0, b0, *, tol: float = 1e-6, max_iter: int = 100,
                         on_iteration=None, terms=None):
    """:func:`prox_newton_chunked` as a generator: yields an :class:`Evaluation` for each pass it
    needs and is sent the answer ``(changes, terms)``; returns ``(result, terms)``, the
    :class:`~.prox_newton.PenalisedResult` and the model's terms at its final point (loss,
    gradient and Hessian there, and whatever else the answers carried).  ``obj`` gives the
    penalty, the layout (``m``, ``d``, ``binary``, ``fit_intercept``), ``total`` and
    ``duality_gap``; ``terms``: the terms at ``(W0, b0)`` when already known (a path's previous
    fit ends where the next starts: a common shift of softmax coefficients per feature leaves
    them unchanged), which saves the first pass."""
    pen, m, d = obj.penalty, obj.m, obj.d
    N, intercept, softmax = obj.total, obj.fit_intercept, not obj.binary
    shifts = softmax and (pen.l1 + pen.l2 > 0)
    W = np.array(W0, dtype=np.float64).reshape(m, d).copy()
    b = np.array(b0, dtype=np.float64).reshape(m).copy() if intercept else np.zeros(m)
    if shifts:
        W -= pen.best_shift(W)
    cols = np.tile(np.arange(d), m)  # each entry's column
    pen_w = kernel_on(pen.kernel(d), cols)
    if terms is None:
        _, terms = yield Evaluation(W, b)
    loss, G, H = terms[:3]
    F = loss + pen.value(W)
    history, sweeps_total, n_iter = [F / N], 0, 0
    converged, stalled = False, False
    limit = tol * N
    certificate, damping = Certificate(obj, tol), Damping()

    def violation_at(W, G):
        v = float(pen.violation(W, G[:, :d]).max()) if d else 0.0
        return max(v, float(np.abs(G[:, d]).max())) if intercept else v

    while True:
        violation = violation_at(W, G)
        if violation <= limit:
            converged, limit = certificate.check(W, b, F, limit, violation)
            if converged:
                break
        if n_iter >= max_iter:
            break
        n_iter += 1
        Gw, gb = G[:, :d].reshape(-1), G[:, d]
        w = W.reshape(-1)
        inner_tol = max(_FORCING * violation, 0.1 * limit)
        found = {}  # the model's terms at the point the line search accepts, when it has them

        def propose(nu):
            Q, R = _profiled(H, m, d, intercept, nu)
            grad = Gw - R[:, : m * d].T @ gb if intercept else Gw
            delta, sweeps = solve_small_model(Q, grad, w, pen, cols, pen_w,
                                              inner_tol * _GRAM_FORCING, MAX_SWEEPS)
            db = -(R @ np.concatenate([delta, gb])) if intercept else np.zeros(m)
            D = float(Gw @ delta + gb @ db) + pen.slope(W, delta.reshape(m, d), None)
            return (delta.reshape(m, d), db), D, sweeps

        def search(step, D):
            dW, db = step
            resolution = np.finfo(float).eps * max(abs(F), 1.0)
            changes, at_step = yield Evaluation(W, b, dW, db, (1.0,), True)
            c = changes[0] + pen.change(W, dW, 1.0, None)
            if (np.isfinite(c) and c <= _SIGMA * D) or (-D <= resolution and c <= resolution):
                found["terms"] = at_step
                return 1.0, F + c
            ts = 0.5 ** np.arange(1, _MAX_HALVINGS)
            for start in range(0, ts.size, _BATCH):
                batch = ts[start:start + _BATCH]
                changes, _ = yield Evaluation(W, b, dW, db, tuple(batch), False)
                for t, change in zip(batch, changes):
                    c = change + pen.change(W, dW, t, None)
                    if np.isfinite(c) and c <= _SIGMA * t * D:
                        return float(t), F + c
            return 0.0, F

        scale = float(np.mean(np.diag(_profiled(H, m, d, intercept, 0.0)[0]))) if d else 1.0
        step = yield from damped_steps(propose, search, damping, scale, F)
        sweeps_total += step.sweeps
        if step.t == 0.0:  # no step lowers F at working precision, however damped
            stalled = True
            break
        t, (dW, db) = step.t, step.step
        W = W + t * dW
        b = b + t * db
        if "terms" not in found or t != 1.0:
            _, found["terms"] = yield Evaluation(W, b)
        terms = found["terms"]
        loss, G, H = terms[:3]
        if shifts:  # the loss (and its derivatives) do not see a common shift of the classes
            W -= pen.best_shift(W)
        F = loss + pen.value(W)
        history.append(F / N)
        if on_iteration is not None and on_iteration((W, b)):
            break
    violation = violation_at(W, G)
    if not converged:  # stalled while tightening for the certificate: the point still meets tol
        converged = stalled and violation <= tol * N
    return PenalisedResult(W, b, n_iter, converged, violation / N, F, np.asarray(history),
                           sweeps_total, G[:, :d], stalled, certificate.gap), terms
