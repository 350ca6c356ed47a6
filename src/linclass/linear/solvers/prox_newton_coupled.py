"""Proximal Newton for the penalised softmax on the full, coupled K x d quadratic model (dense X,
small working sets).

When the working set is small and X is dense, the model of :mod:`.prox_newton_softmax` (the exact
second-order expansion in every class at once) is formed explicitly with BLAS, and solved exactly
rather than by coordinate descent, with the softmax Hessian

.. math::

    H_{(k,j),(l,j')} = \\sum_i w_i\\,\\mu_{ik}([k = l] - \\mu_{il})\\,\\tilde x_{ij}\\tilde x_{ij'},

(the softmax Hessian of Bishop 2006 sec. 4.3.4, here in the full K-row layout), the intercepts profiled out
by the Schur complement :math:`Q = H_{WW} - H_{Wb}H_{bb}^+H_{bW}` (:math:`H_{bb}` is singular along the
common shift of the K intercepts, which the loss does not see: the pseudo-inverse,
:func:`shift_free_inverse`, takes the minimum-norm step there).  The model :math:`\\nabla^T\\delta + \\frac12\\delta^TQ\\delta + r(W + \\delta)`
is minimised exactly (:func:`~.small_model.solve_small_model`: coordinate descent, then the
feature-sign search), the intercept step recovered as
:math:`\\delta_b = -H_{bb}^+(g_b + H_{bW}\\delta)`, and a backtracking line search on the softmax
objective accepts it (newGLMNET's step, Yuan, Ho and Lin 2012, with the full Hessian): proximal Newton
with exact steps, locally quadratic.  Between steps the coefficients take the penalty's best common
shift (:meth:`~linclass.linear.penalties.elastic_net.ElasticNet.best_shift`), which leaves the loss unchanged.
"""

from __future__ import annotations

import numpy as np

from linclass.linear import compiled
from linclass.linear.solvers.prox_newton import (
    Growth,
    PenalisedResult,
    damped_step,
    line_search,
    newton_loop,
)
from linclass.linear.solvers.softmax_point import SoftmaxPoint, softmax_exit, softmax_move
from linclass.linear.solvers.small_grouped import solve_small_grouped
from linclass.linear.solvers.small_model import kernel_on, solve_small_model

__all__ = ["Coupled", "coupled_model", "prox_newton_coupled", "shift_free_inverse"]


def coupled_model(Xc: np.ndarray, P: np.ndarray, sw: np.ndarray, intercept: bool):
    """The softmax Hessian on the centred columns ``Xc`` (n x q) at probabilities ``P`` (K x n).

    Returns a function ``nu -> (Q, R)``: Q of shape (Kq, Kq), class-major, the Hessian damped by
    :math:`\\nu` (:class:`~.prox_newton.Damping`) with the intercepts profiled out when
    ``intercept``, and R of shape (K, Kq + K) with :math:`\\delta_b = -R\\,[\\delta; g_b]` (:math:`R = (H_{bb} + \\nu
    I)^{-1}[H_{bW}, I]`, the pseudo-inverse for :math:`\\nu = 0`; None without an intercept).  On
    nearly separable data :math:`H_{bb}` is nearly singular and its pseudo-inverse inaccurate
    enough to turn the step uphill; the damped block is positive definite."""
    K, q = P.shape[0], Xc.shape[1]
    Hww = np.empty((K, q, K, q))
    Hbw = np.empty((K, K, q))
    Hbb = np.empty((K, K))
    for k in range(K):
        for l in range(k, K):
            c = sw * P[k] * ((1.0 if k == l else 0.0) - P[l])
            B = Xc.T @ (c[:, None] * Xc)
            Hww[k, :, l, :] = B
            Hww[l, :, k, :] = B.T
            Hbw[k, l] = Hbw[l, k] = c @ Xc
            Hbb[k, l] = Hbb[l, k] = c.sum()
    H = Hww.reshape(K * q, K * q)
    HbW = Hbw.reshape(K, K * q)  # row k, column (l, j): sum_i c_kl,i x_ij

    def profiled(nu: float = 0.0):
        Q = H + nu * np.eye(K * q) if nu else H
        if not intercept:
            return Q, None
        inv = np.linalg.inv(Hbb + nu * np.eye(K)) if nu else shift_free_inverse(Hbb)
        R = inv @ np.hstack([HbW, np.eye(K)])
        return Q - HbW.T @ R[:, : K * q], R
    return profiled


def shift_free_inverse(Hbb: np.ndarray) -> np.ndarray:
    """The pseudo-inverse of the intercepts' Hessian block, whose null direction is known exactly:
    the common shift of the K intercepts (every row of :math:`H_{bb}` sums to zero).  With
    :math:`J = \\mathbf 1\\mathbf 1^T/K` and any :math:`\\alpha > 0`,
    :math:`H_{bb}^+ = (H_{bb} + \\alpha J)^{-1} - J/\\alpha`.  A generic pseudo-inverse decides the
    null direction by a relative cut-off instead, and keeps it when rounding leaves its eigenvalue
    just above the cut-off (1.8e-16 against 8.9e-17 on separable data): the profiled Hessian then
    carries a term of size 1/1.8e-16 and is far from positive semi-definite.  Other directions
    (a class with no probability anywhere) keep the generic cut-off."""
    K = Hbb.shape[0]
    J = np.full((K, K), 1.0 / K)
    centre = np.eye(K) - J
    alpha = max(float(np.trace(Hbb)) / K, np.finfo(float).tiny)
    inv = np.linalg.pinv(centre @ Hbb @ centre + alpha * J, hermitian=True) - J / alpha
    return centre @ inv @ centre


def prox_newton_coupled(obj, W, b, ws, *, tol: float, max_iter: int, max_sweeps: int,
                        gram_max: int, on_iteration=None):
    """Minimise the K-class objective ``obj`` from ``(W, b)`` (internal layout, modified in place)
    with the coupled model on the shared working set ``ws`` (columns, every class).

    Returns ``(result, None)`` when done, or ``(None, ws)`` when the working set has grown past
    ``K * len(ws) > gram_max`` (the caller goes on by class blocks from the current point).
    ``on_iteration`` is called with ``(W, b)`` after each iteration; a true result stops the run."""
    return newton_loop(Coupled(obj, W, b, ws, max_sweeps, gram_max), tol=tol, max_iter=max_iter,
                       on_iteration=on_iteration)


class Coupled(SoftmaxPoint):
    """The K-class strategy of :func:`~.prox_newton.newton_loop` on the explicit coupled model
    (module docstring), while ``K x len(ws) <= gram_max``."""

    def __init__(self, obj, W, b, ws, max_sweeps: int, gram_max: int):
        self.obj, self.W, self.b, self.ws = obj, W, b, ws
        self.max_sweeps, self.gram_max = max_sweeps, gram_max
        pen, K, y = obj.penalty, obj.n_classes, obj.y
        self.pc, self.kernel = pen.columns(obj.design.d), pen.kernel(obj.design.d)
        self.grouped = getattr(pen, "grouped", False)  # one norm per feature: solvers.small_grouped
        self.onehot = np.zeros((K, y.size))
        self.onehot[y, np.arange(y.size)] = 1.0
        self.S = obj.scores(W, b)
        self.P = np.empty_like(self.S)
        self.F = compiled.softmax_terms(self.S, y, obj.sw, self.P) + pen.value(W)
        self.growth = Growth(pen)

    def model(self):
        obj, W, ws = self.obj, self.W, self.ws
        design, pen, K, sw, intercept = obj.design, obj.penalty, obj.n_classes, obj.sw, obj.fit_intercept
        Xc = design.X[:, ws] - design.shift[ws]
        self.V = V = (self.P - self.onehot) * sw
        Gws, gb = V @ Xc, V.sum(axis=1)
        v = float(pen.violation(W[:, ws], Gws, ws).max()) if ws.size else 0.0
        violation = max(v, float(np.abs(gb).max())) if intercept else v

        def step(inner_tol, F, damping):
            q = ws.size
            model = coupled_model(Xc, self.P, sw, intercept)
            w = np.ascontiguousarray(W[:, ws]).reshape(-1)
            cols = np.tile(ws, K)  # each entry's column
            pen_w = kernel_on(self.kernel, cols)

            def propose(nu):
                Q, R = model(nu)
                grad = Gws.reshape(-1)
                if intercept:
                    grad = grad - R[:, : K * q].T @ gb  # the profiled gradient
                if self.grouped:
                    delta, sweeps = solve_small_grouped(Q, grad, w, self.pc[0, ws], self.pc[1, ws],
                                                        K, inner_tol, self.max_sweeps)
                else:
                    delta, sweeps = solve_small_model(Q, grad, w, pen, cols, pen_w, inner_tol,
                                                      self.max_sweeps)
                db = -(R @ np.concatenate([delta, gb])) if intercept else np.zeros(K)
                D = (float(Gws.reshape(-1) @ delta + gb @ db)
                     + pen.slope(w.reshape(K, q), delta.reshape(K, q), ws))
                return (delta, db), D, sweeps

            def search(step, D):
                delta, db = step
                Z = delta.reshape(K, q) @ Xc.T + db[:, None]

                def change(t):
                    return (compiled.softmax_loss_change(self.S, Z, t, obj.y, sw)
                            + pen.change(w.reshape(K, q), delta.reshape(K, q), t, ws))
                return line_search(F, D, change)

            scale = float(np.mean(np.diag(model()[0]))) if q else 1.0
            taken = damped_step(propose, search, damping, scale, F)
            taken.Xc = Xc  # the columns the step was taken on, for the move
            return taken
        return violation, step

    def gradient(self):
        return self.obj.design.gradient(self.V).T

    def add(self, columns) -> bool:
        self.ws = np.union1d(self.ws, columns)
        return self.obj.n_classes * self.ws.size <= self.gram_max

    def outgrown(self):
        return None, self.ws

    def move(self, step) -> float:
        obj, K = self.obj, self.obj.n_classes
        t, (delta, db) = step.t, step.step
        dW = delta.reshape(K, -1)
        Z = dW @ step.Xc.T + db[:, None]
        return softmax_move(obj.penalty, self.W, self.b, self.S, self.ws, t, dW, db, Z, obj.y,
                            obj.sw, self.P)

    def finish(self, *, n_iter, converged, stalled, violation, F, history, sweeps, G, gap, tol):
        obj = self.obj
        if not converged:
            violation, G, converged = softmax_exit(obj.penalty, obj.design, self.W, self.P,
                                                   self.onehot, obj.sw, obj.fit_intercept,
                                                   stalled, tol, obj.total)
        return PenalisedResult(self.W, self.b, n_iter, converged, violation / obj.total, F,
                               history, sweeps, G, stalled, gap), None
