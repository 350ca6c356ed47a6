"""Proximal Newton for the penalised softmax (K > 2 classes) on the coupled K x d model.

Each outer iteration expands the summed log-loss to second order in every class at once, with the
softmax Hessian :math:`\\mathrm{diag}(\\mu_i) - \\mu_i\\mu_i^T` per row (Bishop 2006 sec. 4.3.4, in the full
K-row layout), minimises that model plus the penalty approximately, and searches along the step on
the true objective (newGLMNET's step, Yuan, Ho and Lin 2012, on the multinomial model):

1. **model terms** on the working set (the columns non-zero in some class or violating their
   optimality condition): per column the K gradients and the K x K block Hessian, one read of each
   column (:func:`~linclass.linear.compiled.coupled.coupled_terms`).  When the largest violation there
   is at most ``tol`` (per unit of sample weight), every column is checked and the violators join; the
   fit has converged when none does.
2. **inner solve**: coordinate descent by feature blocks (all K classes of a column together) and the
   K intercepts as one more block (:func:`~linclass.linear.compiled.coupled.cd_coupled`), to an inner
   tolerance that shrinks with the outer violation.  Blocks by feature matter: the K coefficients of
   one feature share a Hessian block that is singular along a common shift, which coordinate (or
   class-by-class) updates cross only in many small zig-zag steps.
3. **damped line search** (:class:`~.prox_newton.Damping`): backtracking on the softmax
   objective along the step; where the model cannot be trusted (rows predicted confidently and
   wrongly have curvature near zero), the model is damped until a step is accepted.

Class-by-class block coordinate descent (glmnet's multinomial scheme, Friedman, Hastie and Tibshirani
2010 sec. 4) converges only linearly, at a rate set by how strongly the classes are coupled: on
standardised digits and on text it needed hundreds of passes, and with undamped models it stopped
36% above the optimum.  The coupled model converges in a few tens of outer iterations on both.

On dense X whose working set fits an explicit Hessian (``K x columns <= gram_max``) the model is
formed with BLAS and solved exactly instead (:mod:`.prox_newton_coupled`), until the working set
outgrows it.  Between steps the coefficients take the penalty's best common shift per feature
(:meth:`~linclass.linear.penalties.elastic_net.ElasticNet.best_shift`), which leaves the loss unchanged.
"""

from __future__ import annotations

import numpy as np

from linclass.linear import compiled
from linclass.linear.solvers.prox_newton import (
    GRAM_MAX,
    MAX_SWEEPS,
    Growth,
    PenalisedResult,
    damped_step,
    line_search,
    newton_loop,
)
from linclass.linear.solvers.softmax_point import SoftmaxPoint, softmax_exit, softmax_move

__all__ = ["ByFeature", "prox_newton_softmax"]


def _start_set(obj, W, P, onehot, working_set):
    """The shared working set: columns non-zero in some class, plus ``working_set`` (one array, or
    one per class) or, when None, every column violating its condition at the start."""
    design, pen = obj.design, obj.penalty
    nonzero = np.flatnonzero(np.any(W != 0, axis=0))
    if working_set is None:
        G0 = design.gradient((P - onehot) * obj.sw).T
        start = [Growth(pen).grow(W, G0, nonzero, 0.0)]
    elif isinstance(working_set, (list, tuple)):
        start = [np.asarray(c, dtype=np.int64) for c in working_set]
    else:
        start = [np.asarray(working_set, dtype=np.int64)]
    return np.unique(np.concatenate([nonzero, *start])).astype(np.int64)


def prox_newton_softmax(obj, W0, b0, *, tol: float = 1e-6, max_iter: int = 100, working_set=None,
                        max_sweeps: int = MAX_SWEEPS, gram_max: int = GRAM_MAX,
                        coupled: bool = True, on_iteration=None) -> PenalisedResult:
    """Minimise the K-class objective ``obj`` from ``(W0, b0)`` (internal layout, shapes (K, d) and
    (K,)); the parameters are those of :func:`.prox_newton`.  On dense X whose working set, in all
    classes together, fits the explicit model (``K x columns <= gram_max``) the explicit model of
    :mod:`.prox_newton_coupled` is used first (``coupled=False``: never).  ``on_iteration`` is
    called with ``(W, b)`` after each pass; a true result stops the run."""
    design, pen = obj.design, obj.penalty
    intercept, K = obj.fit_intercept, obj.n_classes
    W = np.array(W0, dtype=np.float64).reshape(K, design.d).copy()
    b = np.array(b0, dtype=np.float64).reshape(K).copy() if intercept else np.zeros(K)
    y, sw = obj.y, obj.sw
    n = y.size
    S = obj.scores(W, b)
    P = np.empty_like(S)
    onehot = np.zeros_like(S)
    onehot[y, np.arange(n)] = 1.0
    F = compiled.softmax_terms(S, y, sw, P) + pen.value(W)
    ws = _start_set(obj, W, P, onehot, working_set)
    if coupled and not design.sparse and K * ws.size <= gram_max:
        from linclass.linear.solvers.prox_newton_coupled import prox_newton_coupled

        result, grown = prox_newton_coupled(obj, W, b, ws, tol=tol, max_iter=max_iter,
                                            max_sweeps=max_sweeps, gram_max=gram_max,
                                            on_iteration=on_iteration)
        if result is not None:
            return result
        # the working set outgrew the explicit model: go on with coordinate descent from this point
        return prox_newton_softmax(obj, W, b, tol=tol, max_iter=max_iter, working_set=grown,
                                   max_sweeps=max_sweeps, gram_max=gram_max, coupled=False,
                                   on_iteration=on_iteration)
    return newton_loop(ByFeature(obj, W, b, S, P, onehot, F, ws, max_sweeps), tol=tol,
                       max_iter=max_iter, on_iteration=on_iteration)


class ByFeature(SoftmaxPoint):
    """The K-class strategy of :func:`~.prox_newton.newton_loop` on the coupled model solved by
    coordinate descent over feature blocks (:func:`~linclass.linear.compiled.coupled.cd_coupled`)."""

    def __init__(self, obj, W, b, S, P, onehot, F, ws, max_sweeps: int):
        self.obj, self.W, self.b, self.S, self.P, self.onehot = obj, W, b, S, P, onehot
        self.F, self.ws, self.max_sweeps = F, ws, max_sweeps
        self.growth = Growth(obj.penalty)
        self.pc = obj.penalty.columns(obj.design.d)
        self.grouped = getattr(obj.penalty, "grouped", False)  # one norm per feature

    def model(self):
        from linclass.linear.compiled.coupled import cd_coupled, coupled_terms  # numba

        obj, W, ws = self.obj, self.W, self.ws
        design, pen, K, sw = obj.design, obj.penalty, obj.n_classes, obj.sw
        n = sw.size
        X, shift = design.kernel_X, design.shift
        Pn = np.ascontiguousarray(self.P.T)
        Gs = np.ascontiguousarray(((self.P - self.onehot) * sw).T)
        self.Gs = Gs
        Gws, B = np.empty((ws.size, K)), np.empty((ws.size, K, K))
        coupled_terms(X, shift, ws, Gs, Pn, sw, Gws, B)
        gb = Gs.sum(axis=0)
        v = float(pen.violation(W[:, ws], Gws.T, ws).max()) if ws.size else 0.0
        violation = max(v, float(np.abs(gb).max())) if obj.fit_intercept else v

        def step(inner_tol, F, damping):
            Ps = Pn * sw[:, None]
            Bb = np.diag(Ps.sum(axis=0)) - Pn.T @ Ps
            scale = float(np.mean(np.diagonal(B, axis1=1, axis2=2))) if ws.size else 1.0
            w_ws = np.ascontiguousarray(W[:, ws])

            def propose(nu):
                Delta, db = np.zeros((K, design.d)), np.zeros(K)
                Z, U = np.zeros((n, K)), np.zeros(n)
                sweeps = cd_coupled(X, shift, ws, W, Delta, B, Gs, Pn, sw, Z, U, Bb, db,
                                    obj.fit_intercept, self.pc, float(nu), inner_tol,
                                    self.max_sweeps, self.grouped)
                d_ws = Delta[:, ws]
                D = float(np.vdot(Gws.T, d_ws)) + float(gb @ db) + pen.slope(w_ws, d_ws, ws)
                return (d_ws, db, Z.T), D, sweeps

            def search(step, D):
                d_ws, _, Zt = step
                Zt = np.ascontiguousarray(Zt)

                def change(t):
                    return (compiled.softmax_loss_change(self.S, Zt, t, obj.y, sw)
                            + pen.change(w_ws, d_ws, t, ws))
                return line_search(F, D, change)

            return damped_step(propose, search, damping, scale, F)
        return violation, step

    def gradient(self):
        return self.obj.design.gradient(self.Gs.T).T

    def add(self, columns) -> bool:
        self.ws = np.union1d(self.ws, columns).astype(np.int64)
        return True

    def move(self, step) -> float:
        t, (d_ws, db, Zt) = step.t, step.step
        obj = self.obj
        return softmax_move(obj.penalty, self.W, self.b, self.S, self.ws, t, d_ws, db, Zt, obj.y,
                            obj.sw, self.P)

    def finish(self, *, n_iter, converged, stalled, violation, F, history, sweeps, G, gap, tol):
        obj, W, pen = self.obj, self.W, self.obj.penalty
        if pen.l1 + pen.l2 > 0 or pen.bounded:  # the reported point: the penalty's own shift
            W -= pen.best_shift(W)                 # (unique, see best_shift)
        if not converged:
            violation, G, converged = softmax_exit(pen, obj.design, W, self.P, self.onehot, obj.sw,
                                                   obj.fit_intercept, stalled, tol, obj.total)
        return PenalisedResult(W, self.b, n_iter, converged, violation / obj.total, F, history,
                               sweeps, G, stalled, gap)
