"""The exact solve of a small quadratic model formed explicitly, under a separable penalty: the inner
step of proximal Newton wherever a working set's model Hessian :math:`Q` is held as a q x q matrix
(the two-class model on dense X or on a few sparse columns, :class:`.prox_newton.RowModel`; the
coupled K-class model, :mod:`.prox_newton_coupled`; the chunked fit's model,
:mod:`.prox_newton_chunked`), as :mod:`.small_grouped` is for the grouped penalty.

The model, in the step :math:`\\delta` from the point ``w``,

.. math::  \\text{grad}^T\\delta + \\tfrac12\\delta^TQ\\delta + r(w + \\delta),

is minimised by coordinate descent on Q (glmnet's covariance updates,
:func:`~linclass.linear.compiled.cd_gram`) and, for an elastic net without bounds, the feature-sign
search from its point to the exact minimiser (:func:`feature_sign`); where descent creeps along the
flat directions of a singular model, by steps on the signed subspace of its non-zero coefficients
(:func:`_subspace_step`).  A small design's fit loads no compiled loop: its model has a NumPy twin
(:func:`solve_small_model_uncompiled`)."""

from __future__ import annotations

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

from linclass.linear import compiled
from linclass.linear.penalties.kernel import PenaltyKernel

__all__ = ["feature_sign", "kernel_on", "solve_small_model", "solve_small_model_uncompiled"]


def kernel_on(kernel: PenaltyKernel, cols) -> PenaltyKernel:
    """The penalty's kernel (of every column) on the columns ``cols`` only: column ``t`` of the
    result is column ``cols[t]`` (a column may repeat: the K entries of one feature in a K-class
    model).  The layout of a working set's small model, which :func:`solve_small_model` takes."""
    cols = np.asarray(cols)
    return PenaltyKernel(
        kernel.prox, kernel.value, np.ascontiguousarray(kernel.params[:, cols]),
        np.ascontiguousarray(kernel.curvature[cols]), np.ascontiguousarray(kernel.lower[cols]),
        np.ascontiguousarray(kernel.upper[cols]),
        None if kernel.elastic is None else tuple(np.ascontiguousarray(e[cols])
                                                   for e in kernel.elastic))


def solve_small_model(Q, grad, w, pen, cols, kernel, tol: float, max_sweeps: int,
                      nu: float = 0.0, first: int = 32):
    """Minimise :math:`\\text{grad}^T\\delta + \\frac12\\delta^T(Q + \\nu I)\\delta + r(w + \\delta)`
    for a small dense Q: coordinate descent from zero, then, for an elastic net without bounds,
    :func:`feature_sign` from its point to the exact minimiser.  Coordinate descent alone converges
    slowly when the features are correlated; the exact step makes the outer iteration a proximal
    Newton method with exact steps (fast local convergence).  ``pen``: the penalty; ``cols``: the
    penalty's column of each coordinate; ``kernel``: the penalty on those columns as the compiled
    loops take it (:func:`kernel_on`); any penalty but an elastic net without bounds (bounds, a
    non-convex one) is solved by coordinate descent alone, to ``tol``.  ``nu``: the damping
    (:class:`Damping`).  ``first``: coordinate descent's passes before the search (at most
    ``max_sweeps``); where they meet ``tol`` the search is not needed.  A pass costs
    :math:`q^2` for q coordinates, a step of the search a factorisation and Python's overhead: on
    the dense 100-value L1 path (50,000 x 100, working sets up to 82 columns) 50 of the 219
    models missed ``tol`` in 32 passes and took 0.24 s of search (38 steps each); with all 200
    passes one did, and descent took 21 ms where it took 15.  Returns ``(delta, passes)``.
    """
    q = w.size
    if nu:
        Q = Q + nu * np.eye(q)
    delta = np.zeros(q)

    def descend(budget):
        return compiled.cd_gram(Q, grad, w, delta, kernel.prox, kernel.params, kernel.curvature,
                                tol, budget)

    def checked(step):
        return _checked(step, Q, grad, w, pen, cols, kernel.curvature)

    if kernel.elastic is None:  # the feature-sign search knows no bounds: coordinate descent to tol
        sweeps = descend(max_sweeps)
        if sweeps >= max_sweeps and kernel.prox is None:  # creeping: steps on its signed subspace
            sweeps += _subspace_rounds(Q, grad, w, delta, kernel.params, descend)
        return checked(delta), sweeps
    M, c, step = _elastic_model(Q, grad, w, kernel)
    if step is not None:
        return step, 0
    first = min(first, max_sweeps)
    sweeps = descend(first)
    if sweeps < first:  # coordinate descent met the tolerance: an inexact step is all it takes
        return checked(delta), sweeps
    u = feature_sign(M, c, kernel.elastic[0], w + delta)
    if u is None:  # singular: coordinate descent to the tolerance instead
        more = descend(max_sweeps)
        sweeps += more
        if more >= max_sweeps:  # creeping: steps on its signed subspace
            sweeps += _subspace_rounds(Q, grad, w, delta, kernel.params, descend)
        return checked(delta), sweeps
    return checked(u - w), sweeps


_SUBSPACE_ROUNDS = 8  # subspace steps, each followed by up to 32 passes of coordinate descent
_CG_STEPS = 50  # conjugate-gradient steps per subspace step (each a product with its q x q model)


def _subspace_rounds(Q, grad, w, delta, params, descend) -> int:
    """Where coordinate descent on an elastic-net model (``params``: its rows l1, l2, lower,
    upper) used all its passes: up to :data:`_SUBSPACE_ROUNDS` rounds of a step on the signed
    subspace (:func:`_subspace_step`) and 32 passes of descent (``descend``), until the passes meet
    their tolerance.  Coordinate descent creeps along the flat directions of a singular or nearly
    singular model (columns that are copies or combinations of others: words that occur only
    together in text), where it lowers the model by a rounding-sized amount per pass; the step
    moves along them at once.  ``delta`` is updated in place; returns the passes."""
    sweeps = 0
    for _ in range(_SUBSPACE_ROUNDS):
        if not _subspace_step(Q, grad, w, delta, params):
            break
        more = descend(32)
        sweeps += more
        if more < 32:
            break
    return sweeps


def _subspace_step(Q, grad, w, delta, params) -> bool:
    """One step of the model :math:`\\text{grad}^T\\delta + \\frac12\\delta^TQ\\delta + r(w + \\delta)`
    (r an elastic net with box constraints, ``params`` its rows l1, l2, lower, upper) on the
    coordinates that are non-zero and inside their box, with their signs held: there the model is
    a convex quadratic, minimised by conjugate gradients (:func:`_conjugate_gradients`: on a
    singular system they stay in its range, the least-norm solution's direction), then followed
    to its minimum along the line or to the first coordinate that reaches zero or its box, which
    stops there.  The model falls (or stays) at every step, so coordinate descent from the new
    point keeps its guarantees.  Updates ``delta``; False when no coordinate is free or the step is
    zero.  (An active-set subspace step of the kind of Wen, Yin, Goldfarb and Zhang 2010, "A fast
    algorithm for sparse reconstruction based on shrinkage, subspace optimization, and
    continuation".)"""
    l1, l2, lower, upper = params[0], params[1], params[2], params[3]
    u = w + delta
    free = np.flatnonzero((u != 0.0) & (u > lower) & (u < upper))
    if free.size == 0:
        return False
    uf, theta = u[free], np.sign(u[free])
    A = Q[np.ix_(free, free)] + np.diag(l2[free])
    gm = grad[free] + Q[free] @ delta + l2[free] * uf + l1[free] * theta
    step = _conjugate_gradients(A, -gm, max_iter=min(free.size, _CG_STEPS))
    slope, curve = float(gm @ step), float(step @ A @ step)
    if not (np.isfinite(slope) and np.isfinite(curve)) or slope >= 0.0 or curve <= 0.0:
        return False
    t = min(1.0, -slope / curve)
    with np.errstate(divide="ignore", invalid="ignore"):
        to_zero = np.where(theta * step < 0.0, -uf / step, np.inf)
        to_box = np.where(step > 0.0, (upper[free] - uf) / step,
                          np.where(step < 0.0, (lower[free] - uf) / step, np.inf))
    reach = np.minimum(to_zero, to_box)
    t = min(t, float(reach.min()))
    if not t > 0.0:
        return False
    new = uf + t * step
    hit = reach <= t
    new[hit & (to_zero <= to_box)] = 0.0
    box = hit & (to_box < to_zero)
    new[box] = np.where(step[box] > 0.0, upper[free][box], lower[free][box])
    delta[free] = new - w[free]
    return True


def _conjugate_gradients(A, b, max_iter: int | None = None):
    """Conjugate gradients for :math:`Ax = b` from zero (A symmetric positive semi-definite): the
    quadratic :math:`\\frac12x^TAx - b^Tx` falls at every iterate, and on a singular A the iterates
    stay in its range.  Stops at a residual of 1e-12 of ``b`` or after ``max_iter`` (the size)."""
    x = np.zeros_like(b)
    r = b.copy()
    p = r.copy()
    rr = float(r @ r)
    stop = 1e-24 * rr
    for _ in range(b.size if max_iter is None else max_iter):
        if rr <= stop:
            break
        Ap = A @ p
        pAp = float(p @ Ap)
        if not pAp > 0.0:
            break
        a = rr / pAp
        x += a * p
        r -= a * Ap
        rr, previous = float(r @ r), rr
        p = r + (rr / previous) * p
    return x


def solve_small_model_uncompiled(Q, grad, w, pen, cols, kernel, tol: float, max_sweeps: int,
                                 nu: float = 0.0):
    """:func:`solve_small_model` for a small design's model (``small`` in
    :class:`~linclass.linear.logistic.design.Design`: its fit loads no compiled loop), the same
    arguments and result: for an elastic net without bounds, the feature-sign search from ``w``
    first, then coordinate descent from its point in Python (:func:`_descend_elastic`) until it
    meets ``tol``: usually one pass, where the search's own tolerance, relative to the model's
    largest linear term, is looser than ``tol`` asks (weakly penalised fits at tol 1e-10 then
    stopped moving); descent before the search, 32 passes in Python, would cost more than the fit
    (on breast cancer it used all 32 at every step).  Any other penalty: :func:`solve_small_model`.
    """
    if kernel.elastic is None:
        return solve_small_model(Q, grad, w, pen, cols, kernel, tol, max_sweeps, nu)
    if nu:
        Q = Q + nu * np.eye(w.size)
    M, c, step = _elastic_model(Q, grad, w, kernel)
    if step is not None:
        return step, 0
    delta = np.zeros(w.size)
    u = feature_sign(M, c, kernel.elastic[0], w)  # (one pass: its tolerance is relative to |c|)
    if u is not None:
        delta += u - w
    sweeps = _descend_elastic(Q, grad, w, delta, *kernel.elastic, kernel.curvature, tol,
                              max_sweeps)
    return _checked(delta, Q, grad, w, pen, cols, kernel.curvature), sweeps


def _elastic_model(Q, grad, w, kernel):
    """``(M, c, step)``: an elastic net's model in :math:`u = w + \\delta`, :math:`\\frac12 u^TMu -
    c^Tu + \\lVert l_1 \\circ u\\rVert_1` (+ a constant), and, when it has no L1 part, its Newton
    step (None otherwise, or when M is singular)."""
    l1, l2 = kernel.elastic
    M = Q + np.diag(l2)
    c = Q @ w - grad
    if not np.any(l1):  # a smooth model: the Newton step itself
        try:
            return M, c, cho_solve(cho_factor(M, check_finite=False), c, check_finite=False) - w
        except (LinAlgError, ValueError):
            pass
    return M, c, None


def _descend_elastic(Q, grad, w, delta, l1, l2, curvature, tol: float, max_sweeps: int) -> int:
    """:func:`~linclass.linear.compiled.cd_gram` for an elastic net without bounds (``l1``, ``l2``
    per coordinate), in Python: the same updates in the same order, so the same numbers.  For a
    small design's model (``exact`` in :func:`solve_small_model`) where the feature-sign search
    finds no exact step (its system singular at working precision, as near the optimum of breast
    cancer's unscaled features, whose Gram's condition number is about 1e11): its fit then still
    loads no compiled loop.  Q is symmetric (its row t is its column t).  Returns passes."""
    q = Q.shape[0]
    Qd = Q @ delta
    diagonal, g0, w0 = Q.diagonal().tolist(), grad.tolist(), w.tolist()
    l1, l2, curvature = l1.tolist(), l2.tolist(), curvature.tolist()
    sweeps = 0
    while sweeps < max_sweeps:
        biggest = 0.0
        for t in range(q):
            at = diagonal[t]
            old = w0[t] + float(delta[t])
            u = at * old - (g0[t] + float(Qd[t]))
            if at > 0.0 or l2[t] > 0.0:  # elastic_net_kernel.coordinate_update
                new = ((u - l1[t]) / (at + l2[t]) if u > l1[t] else
                       (u + l1[t]) / (at + l2[t]) if u < -l1[t] else 0.0)
            else:  # elastic_net_kernel.flat_update without bounds
                new = 0.0 if abs(-u) <= l1[t] else old
            d = new - old
            if d != 0.0:
                delta[t] += d
                Qd += d * Q[t]
                change = abs(d) * (at + curvature[t])
                if change > biggest:
                    biggest = change
        sweeps += 1
        if biggest <= tol:
            break
    return sweeps


def _checked(delta, Q, grad, w, pen, cols, curvature):
    """``delta``, or NaN where it cannot be the minimiser of the model: the model is zero at no
    step and every method above only lowers it, and the data's curvature along the step,
    :math:`\\delta^T(Q + \\operatorname{diag}(c))\\delta` (c the penalty's convex quadratic part,
    ``curvature``), is not negative.  A step that fails either (or is not finite) says that Q is
    not positive semi-definite at working precision and the iteration ran down a direction of
    negative curvature.  The NaN reaches the caller's slope, and :func:`damped_step` damps the
    model instead of searching along a step of 1e200.  The penalty's change along the step is its
    own (``pen.change``, on the columns ``cols``)."""
    with np.errstate(over="ignore", invalid="ignore"):
        Qd = Q @ delta
        data_curvature = float(delta @ Qd) + float(np.sum(curvature * delta * delta))
        model = float(grad @ delta) + 0.5 * float(delta @ Qd) + pen.change(w, delta, 1.0, cols)
        size = float(delta @ delta) * max(float(np.abs(np.diag(Q)).max(initial=0.0)),
                                          float(np.max(curvature, initial=0.0)))
        rounding = 1e-9 * (abs(float(grad @ delta))
                           + float(np.sum(np.abs(pen.column_values(w, cols)))) + 1e-300)
    if (np.isfinite(model) and model <= rounding and np.isfinite(size)
            and data_curvature >= -1e-9 * size):
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
