"""Coordinate descent on the quadratic model of one row of coefficients: on the data, column by
column (:func:`cd_naive`, with Anderson extrapolation), or on an explicit small Hessian
(:func:`cd_gram`).  The model and its profiled intercept are described in
:mod:`linclass.linear.compiled.columns`.

The penalty arrives as its compiled coordinate update and value and its table of numbers per
column (:mod:`linclass.linear.penalties.kernel`): ``prox, value, pp`` with ``curv`` (the curvature
of its convex quadratic part) and the box ``lo``, ``hi``.  ``prox`` and ``value`` None mean the
elastic net (``pp`` its rows l1, l2, lower, upper), whose update is inlined (numba compiles that
case apart, the other branch pruned): an indirect call per coordinate made these loops 4-18%
slower where a coordinate's work is small (a sparse column of ~75 entries; a 100-column model).  These loops know no penalty by name.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from linclass.linear.compiled.columns import JIT as _JIT
from linclass.linear.compiled.columns import _col_axpy, _col_dot, _col_scatter
from linclass.linear.penalties.elastic_net_kernel import coordinate_update, flat_update

__all__ = ["cd_gram", "cd_naive", "cycle"]


_ANDERSON = 5  # passes between extrapolations (and the number of iterates combined)


@njit(**_JIT)
def cd_naive(X, shift, ws, w, delta, a, m, h, r, state, prox, value, pp, curv, lo, hi,
             tol, max_sweeps, nu=0.0):
    """Coordinate descent on the quadratic model of one block of coefficients (glmnet's inner loop,
    Friedman et al. 2010 sec. 3), data updated column by column ("naive" updates), with Anderson
    extrapolation of the iterates.

    Minimises :math:`\\sum_i (g_i z_i + \\frac12 h_i z_i^2) + \\frac\\nu2\\lVert\\delta\\rVert^2 +
    r(w + \\delta)`, :math:`z = \\tilde X\\delta`, over the step :math:`\\delta` on the working set ``ws`` (positions ``t``, columns
    ``ws[t]``), the intercept profiled out (module docstring).  Cycles: one pass over the whole
    working set, then passes over the coefficients that are non-zero until they settle, then the whole
    set again; stops when a pass over the whole set moves no coefficient by more than ``tol`` in
    gradient units (:math:`(a_j + \\nu + c_j)|\\delta_j|`, :math:`c_j` the penalty's ``curv``) or after ``max_sweeps`` passes.

    Every few passes over the non-zero set, the last iterates are combined by Anderson extrapolation
    (the combination whose successive differences are smallest; Anderson 1965, applied to coordinate
    descent by Bertrand and Massias 2021, "Anderson acceleration of coordinate descent") and the
    result is kept when it lowers the model: on ill-conditioned models (correlated columns, nearly
    separable classes) this saves most of the passes.

    Parameters
    ----------
    w : (d,) the block's coefficients at the expansion point (read only)
    delta : (d,) the step, updated on ``ws`` (start from zeros)
    a, m : (q,) curvatures and weighted means of the working-set columns (:func:`column_terms`)
    h : (n,) curvatures of the loss in the scores
    r : (n,) :math:`g + h\\circ z`, updated (start from g)
    state : (2,) ``[S, H]``, S updated
    prox, value, pp, curv, lo, hi : the penalty (module docstring), columns indexed as X's
    nu : float
        Damping of the step (:class:`linclass.linear.solvers.prox_newton.Damping`; 0: the plain
        Newton model).

    Returns
    -------
    int : passes made.
    """
    model = (X, shift, ws, w, delta, a, m, h, r, state, prox, value, pp, curv, lo, hi, nu)
    return cycle(model, _naive_pass, _naive_live, _naive_record, _naive_extrapolate, ws.shape[0],
                 1, tol, max_sweeps)


@njit(inline="always")
def cycle(model, sweep, live_at, record, extrapolate, q, width, tol, max_sweeps):
    """The passes of a coordinate descent over the q positions of a working set, with glmnet's
    active-set cycling and Anderson extrapolation (:func:`cd_naive`; by feature blocks,
    :func:`linclass.linear.compiled.coupled.cd_coupled`), over a ``model`` (a tuple of its arrays)
    that four compiled functions know:

    ``sweep(model, order)``               one pass over the positions ``order``; returns the largest
                                          change, in gradient units
    ``live_at(model, t)``                 whether position t holds a non-zero coefficient
    ``record(model, order, row)``         the iterate on ``order`` into ``row`` (``width`` numbers
                                          per position)
    ``extrapolate(model, order, U)``      the Anderson step over the iterates U (rows, oldest first)

    One pass over the whole set, then passes over its live positions until they settle (every
    :data:`_ANDERSON` of them extrapolated), then the whole set again; stops when a pass over the
    whole set changes nothing by more than ``tol`` or after ``max_sweeps`` passes, which it
    returns.  Inlined into its callers: a compiled function handed to one that is not inlined is a
    run-time value, and numba then refuses to cache the caller (compiling it in every process)."""
    everything = np.arange(q)
    live = np.empty(q, dtype=np.int64)
    order = everything
    full = True  # a pass over the whole set; else over its live positions
    history = np.empty((_ANDERSON + 1, 0))
    stored = 0
    sweeps = 0
    while sweeps < max_sweeps:
        biggest = sweep(model, order)
        sweeps += 1
        if biggest <= tol:
            if full:
                break
            order, full = everything, True  # settled: the whole set again
            continue
        if full:  # on to the live positions, their iterates kept for extrapolation
            n_live = 0
            for t in range(q):
                if live_at(model, t):
                    live[n_live] = t
                    n_live += 1
            order, full = live[:n_live], False
            history = np.empty((_ANDERSON + 1, n_live * width))
            stored = 0
        else:
            stored += 1
        record(model, order, history[stored])
        if stored == _ANDERSON:
            extrapolate(model, order, history)
            stored = 0
            record(model, order, history[0])
    return sweeps


@njit(**_JIT)
def _naive_pass(model, order):
    X, shift, ws, w, delta, a, m, h, r, state, prox, value, pp, curv, lo, hi, nu = model
    return _naive_sweep(X, shift, ws, order, w, delta, a, m, h, r, state, prox, pp, curv, nu)


@njit(**_JIT)
def _naive_live(model, t):
    w, delta, j = model[3], model[4], model[2][t]
    return w[j] + delta[j] != 0.0


@njit(**_JIT)
def _naive_record(model, order, row):
    ws, delta = model[2], model[4]
    for u in range(order.shape[0]):
        row[u] = delta[ws[order[u]]]


@njit(**_JIT)
def _naive_extrapolate(model, order, U):
    X, shift, ws, w, delta, a, m, h, r, state, prox, value, pp, curv, lo, hi, nu = model
    _extrapolate(X, shift, ws, order, U, w, delta, m, h, r, state, value, pp, lo, hi, nu)


@njit(**_JIT)
def anderson_target(U):
    """The Anderson combination of the iterates U (rows, oldest first): weights c summing to one
    that minimise the norm of the combined differences (Anderson 1965), their Gram matrix
    regularised by 1e-10 of its trace.  Returns ``(found, target)``; ``found`` is False when the
    iterates did not move or the system is singular."""
    k = U.shape[0] - 1
    R = U[1:] - U[:-1]
    RR = R @ R.T
    scale = 0.0
    for i in range(k):
        scale += RR[i, i]
    if scale <= 0.0:
        return False, U[-1].copy()
    for i in range(k):
        RR[i, i] += 1e-10 * scale
    c = np.linalg.solve(RR, np.ones(k))
    total = c.sum()
    if not np.isfinite(total) or total == 0.0:
        return False, U[-1].copy()
    c /= total
    return True, c @ U[1:]


@njit(inline="always")
def _value(value, v, j, pp):
    """The penalty of column j at v (the elastic net's, inlined, when ``value`` is None)."""
    if value is None:
        return pp[0, j] * abs(v) + 0.5 * pp[1, j] * v * v
    return value(v, j, pp)


@njit(inline="always")
def _update(prox, a, u, old, j, pp):
    """The coordinate update of column j (the elastic net's, inlined, when ``prox`` is None)."""
    if prox is None:
        if a > 0.0 or pp[1, j] > 0.0:
            return coordinate_update(a, u, pp[0, j], pp[1, j], pp[2, j], pp[3, j])
        return flat_update(-u, pp[0, j], old, pp[2, j], pp[3, j])
    return prox(a, u, old, j, pp)


@njit(**_JIT)
def _extrapolate(X, shift, ws, order, U, w, delta, m, h, r, state, value, pp, lo, hi, nu):
    """Anderson step over the iterates U (rows: successive values of delta on ``order``), kept when
    it lowers the model: the change is :math:`\\nabla q^T\\Delta + \\frac12(\\sum_i h_iv_i^2 -
    (h^Tv)^2/H + \\nu\\lVert\\Delta\\rVert^2) + ` the penalty's change, with :math:`v = \\tilde X\\Delta` (one pass for the gradient,
    one for v).  The combination is clipped to the bounds first (it stays a feasible point)."""
    found, target = anderson_target(U)
    if not found:
        return
    S, H = state[0], state[1]
    v = np.zeros(r.shape[0])
    change = 0.0
    for u in range(order.shape[0]):
        t = order[u]
        j = ws[t]
        target[u] = min(max(target[u], lo[j] - w[j]), hi[j] - w[j])
        step = target[u] - delta[j]
        if step == 0.0:
            continue
        grad = _col_dot(X, j, shift[j], r) - m[t] * S + nu * delta[j]
        new, old = w[j] + target[u], w[j] + delta[j]
        change += (grad * step + 0.5 * nu * step * step + _value(value, new, j, pp)
                   - _value(value, old, j, pp))
        _col_scatter(X, j, shift[j], step, v)
    hv, hvv = 0.0, 0.0
    for i in range(v.shape[0]):
        e = h[i] * v[i]
        hv += e
        hvv += e * v[i]
    change += 0.5 * hvv - (0.5 * hv * hv / H if H > 0.0 else 0.0)
    if change < 0.0:
        for u in range(order.shape[0]):
            delta[ws[order[u]]] = target[u]
        for i in range(r.shape[0]):
            r[i] += h[i] * v[i]
        state[0] = S + hv


@njit(**_JIT)
def _naive_sweep(X, shift, ws, order, w, delta, a, m, h, r, state, prox, pp, curv, nu):
    S, H = state[0], state[1]
    biggest = 0.0
    for t in order:
        j = ws[t]
        at = a[t] + nu
        grad = _col_dot(X, j, shift[j], r) - m[t] * S + nu * delta[j]
        old = w[j] + delta[j]
        new = _update(prox, at, at * old - grad, old, j, pp)
        d = new - old
        if d != 0.0:
            delta[j] += d
            _col_axpy(X, j, shift[j], d, h, r)
            S += d * m[t] * H
            change = abs(d) * (at + curv[j])
            if change > biggest:
                biggest = change
    state[0] = S
    return biggest


@njit(**_JIT)
def cd_gram(Q, grad, w, delta, prox, pp, curv, tol, max_sweeps):
    """Coordinate descent on :math:`\\frac12\\delta^TQ\\delta + \\text{grad}^T\\delta + r(w + \\delta)`
    for a small dense model (q x q, the working set's profiled Hessian: glmnet's "covariance"
    updates).  ``w``, ``delta``, ``grad`` and the penalty ``prox, pp, curv`` (module docstring)
    are indexed by working-set position (``prox`` None: the elastic net's update, inlined; an
    indirect call made this loop 18% slower on a 100-column lasso model, 0.159 against 0.135 ms
    for 42 passes).  Returns passes."""
    q = Q.shape[0]
    Qd = Q @ delta
    sweeps = 0
    while sweeps < max_sweeps:
        biggest = 0.0
        for t in range(q):
            at = Q[t, t]
            g = grad[t] + Qd[t]
            old = w[t] + delta[t]
            new = _update(prox, at, at * old - g, old, t, pp)
            d = new - old
            if d != 0.0:
                delta[t] += d
                for u in range(q):
                    Qd[u] += d * Q[u, t]
                change = abs(d) * (at + curv[t])
                if change > biggest:
                    biggest = change
        sweeps += 1
        if biggest <= tol:
            break
    return sweeps
