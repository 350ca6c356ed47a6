"""Coordinate descent on the coupled quadratic model of a penalised softmax, one *feature* at a time
(all K classes of a column together).

The model.  At the current point, with probabilities :math:`\\mu_{ik}`, sample weights :math:`w_i` and
score gradients :math:`g_{ik} = w_i(\\mu_{ik} - [y_i = k])`, the second-order expansion of the summed
log-loss in a change :math:`Z` of the scores is

.. math::

    q(Z) = \\sum_{ik} g_{ik}Z_{ik} + \\frac12\\sum_i w_i\\Big(\\sum_k\\mu_{ik}Z_{ik}^2
           - \\big(\\sum_k\\mu_{ik}Z_{ik}\\big)^2\\Big),
    \\qquad Z_{ik} = \\tilde x_i^T\\delta_k + \\delta_{b,k}

(the softmax Hessian :math:`\\mathrm{diag}(\\mu_i) - \\mu_i\\mu_i^T` per row, Bishop 2006 sec. 4.3.4, in the
full K-row layout).  Its gradient in the scores is :math:`R_{ik} = g_{ik} + w_i\\mu_{ik}(Z_{ik} - U_i)`
with :math:`U_i = \\sum_l\\mu_{il}Z_{il}`; the kernels keep Z and U (never R), so a change of the K
coefficients of column j costs one pass over the column's stored entries, K operations each.
The update of one feature's K-block is :mod:`linclass.linear.compiled.blocks`.

Why blocks by feature.  The K coefficients of one feature have the block Hessian
:math:`B_j = \\sum_i w_i\\tilde x_{ij}^2(\\mathrm{diag}(\\mu_i) - \\mu_i\\mu_i^T)`, which is singular
along :math:`\\mathbf 1` (a common shift of a feature's K coefficients changes no probability), and the
gradient is orthogonal to :math:`\\mathbf 1` as well.  Coordinate descent one class at a time zig-zags
along that flat direction, pinned only by the penalty's kinks; solving each feature's K-block (a few
coordinate passes on :math:`B_j`, then the penalty's best shift along :math:`\\mathbf 1`) removes the
strongest coupling of the classes exactly.  The K intercepts form one more block, solved by a linear
system each sweep.  The damping :math:`\\frac\\nu2\\lVert\\delta\\rVert^2` of
:class:`linclass.linear.solvers.prox_newton.Damping` adds :math:`\\nu` to every block's diagonal.

Arrays: ``P``, ``Gs``, ``Z`` of shape (n, K) (a row's classes adjacent), ``U`` and ``sw`` (n,),
``B`` (q, K, K) for the working-set columns ``ws`` (positions t, columns ``ws[t]``), coefficients ``W``
and the step ``Delta`` of shape (K, d).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from linclass.linear.compiled.columns import JIT as _JIT
from linclass.linear.compiled.columns import _entry, _parallel, _span
from linclass.linear.compiled.blocks import block_eigen, block_update
from linclass.linear.compiled.descent import anderson_target, cycle

__all__ = ["cd_coupled", "coupled_terms"]



# --------------------------------------------------------------------------- the model's terms
@njit(inline="always")
def _terms_column(X, shift, ws, Gs, P, sw, G, B, t):
    j = ws[t]
    K = P.shape[1]
    c = shift[j]
    start, stop = _span(X, j)
    for k in range(K):
        G[t, k] = 0.0
        for l in range(K):
            B[t, k, l] = 0.0
    for p in range(start, stop):
        i, x = _entry(X, j, c, p)
        if x == 0.0:
            continue
        w2 = sw[i] * x * x
        for k in range(K):
            G[t, k] += x * Gs[i, k]
            mk = w2 * P[i, k]
            B[t, k, k] += mk
            for l in range(k + 1):
                B[t, k, l] -= mk * P[i, l]
    for k in range(K):
        for l in range(k):
            B[t, l, k] = B[t, k, l]


@njit(**_JIT)
def _terms_serial(X, shift, ws, Gs, P, sw, G, B):
    for t in range(ws.shape[0]):
        _terms_column(X, shift, ws, Gs, P, sw, G, B, t)


@njit(parallel=True, **_JIT)
def _terms_parallel(X, shift, ws, Gs, P, sw, G, B):
    for t in prange(ws.shape[0]):
        _terms_column(X, shift, ws, Gs, P, sw, G, B, t)


def coupled_terms(X, shift, ws, Gs, P, sw, G, B):
    """For each working-set column (one read of it): the loss gradient ``G[t, k]`` =
    :math:`\\sum_i\\tilde x_{ij}g_{ik}` and the feature's block Hessian ``B[t]`` (module docstring).
    Columns in parallel on large X."""
    kernel = _terms_parallel if _parallel(X, ws.size) else _terms_serial
    kernel(X, shift, ws, Gs, P, sw, G, B)


@njit(inline="always")
def _feature(X, shift, j, t, W, Delta, B, Gs, P, sw, Z, U, pc, nu, tol, g, cur, v, lam, E,
             grouped):
    """One feature's K-block: gradient from the column's entries, block solve, state update."""
    K = P.shape[1]
    l1, l2, lo, hi = pc[0, j], pc[1, j], pc[2, j], pc[3, j]
    c = shift[j]
    start, stop = _span(X, j)
    for k in range(K):
        g[k] = nu * Delta[k, j]  # the damping's gradient at the step so far
        cur[k] = W[k, j] + Delta[k, j]
    for p in range(start, stop):
        i, x = _entry(X, j, c, p)
        if x == 0.0:
            continue
        for k in range(K):
            g[k] += x * (Gs[i, k] + sw[i] * P[i, k] * (Z[i, k] - U[i]))
    at_zero = True
    size = 0.0
    for k in range(K):
        size += g[k] * g[k]
        if cur[k] != 0.0 or (abs(g[k]) > l1 and not grouped) or lo > 0.0 or hi < 0.0:
            at_zero = False
            break
    if grouped and size > l1 * l1:
        at_zero = False
    if at_zero:  # zero, and zero is the block's minimiser: nothing to solve
        return 0.0
    e = t if grouped else 0  # the block's eigendecomposition (the grouped penalty's)
    biggest = block_update(g, B[t], lam[e], E[e], cur, v, l1, l2, lo, hi, nu, tol, grouped)
    if biggest == 0.0:
        return 0.0
    for k in range(K):
        Delta[k, j] += v[k]
    for p in range(start, stop):
        i, x = _entry(X, j, c, p)
        if x == 0.0:
            continue
        du = 0.0
        for k in range(K):
            e = v[k] * x
            Z[i, k] += e
            du += P[i, k] * e
        U[i] += du
    return biggest


@njit(inline="always")
def _intercepts(Gs, P, sw, Z, U, Bb, db, nu, g, v):
    """The K intercepts' block: :math:`(B_b + \\nu I)v = -\\nabla`, with :math:`B_b` singular along
    :math:`\\mathbf 1` (where the gradient vanishes too): solved with :math:`\\mathbf 1\\mathbf 1^T`
    added, the minimum-norm step.  Returns the largest :math:`(B_{b,kk} + \\nu)|v_k|`."""
    n, K = P.shape
    for k in range(K):
        g[k] = nu * db[k]
    for i in range(n):
        for k in range(K):
            g[k] += Gs[i, k] + sw[i] * P[i, k] * (Z[i, k] - U[i])
    scale = max(np.trace(Bb) / K, 1e-300)
    M = Bb + (scale if nu == 0.0 else 0.0) * np.ones((K, K))
    for k in range(K):
        M[k, k] += nu + 1e-12 * scale
    step = np.linalg.solve(M, -g)
    biggest = 0.0
    for k in range(K):
        v[k] = step[k]
        db[k] += step[k]
        e = abs(step[k]) * (Bb[k, k] + nu)
        if e > biggest:
            biggest = e
    for i in range(n):
        du = 0.0
        for k in range(K):
            Z[i, k] += v[k]
            du += P[i, k] * v[k]
        U[i] += du
    return biggest


@njit(**_JIT)
def _sweep(X, shift, ws, order, W, Delta, B, Gs, P, sw, Z, U, Bb, db, intercept, pc, nu, tol,
           lam, E, grouped):
    K = P.shape[1]
    g, cur, v = np.empty(K), np.empty(K), np.empty(K)
    biggest = 0.0
    for t in order:
        e = _feature(X, shift, ws[t], t, W, Delta, B, Gs, P, sw, Z, U, pc, nu, tol, g, cur, v,
                     lam, E, grouped)
        if e > biggest:
            biggest = e
    if intercept:
        e = _intercepts(Gs, P, sw, Z, U, Bb, db, nu, g, v)
        if e > biggest:
            biggest = e
    return biggest


@njit(**_JIT)
def cd_coupled(X, shift, ws, W, Delta, B, Gs, P, sw, Z, U, Bb, db, intercept, pc, nu, tol,
               max_sweeps, grouped=False):
    """Coordinate descent by feature blocks on the coupled softmax model (module docstring).

    Cycles as glmnet's inner loop does (:func:`~linclass.linear.compiled.descent.cycle`, which
    :func:`~linclass.linear.compiled.descent.cd_naive` runs too): one sweep over the whole working
    set, then sweeps over the features that are non-zero in some class until they settle (every
    few extrapolated), then the whole set again; stops when a sweep over the whole set moves no
    coefficient by more than ``tol`` in gradient units, or after ``max_sweeps`` sweeps.
    ``Delta`` (K, d), ``db`` (K,), ``Z`` (n, K) and ``U`` (n,) hold the step and its score change
    (start from zeros); ``Bb`` is the intercepts' block Hessian
    :math:`\\sum_i w_i(\\mathrm{diag}(\\mu_i) - \\mu_i\\mu_i^T)`; ``pc`` (4, d) the penalty of
    each column (``ElasticNet.columns``); ``grouped``: one group norm per feature across the
    classes (:func:`group_update`).  Returns the sweeps made.
    """
    n, K = P.shape
    lam, E = block_eigen(B, grouped)  # each block decomposed once (the grouped penalty)
    model = (X, shift, ws, W, Delta, B, Gs, P, sw, Z, U, Bb, db, intercept, pc, nu, tol, lam, E,
             grouped, np.empty((n, K)), np.empty(n))
    return cycle(model, _pass, _live, _record, _anderson, ws.shape[0], K, tol, max_sweeps)


@njit(**_JIT)
def _pass(model, order):
    (X, shift, ws, W, Delta, B, Gs, P, sw, Z, U, Bb, db, intercept, pc, nu, tol, lam, E, grouped,
     _, _) = model
    return _sweep(X, shift, ws, order, W, Delta, B, Gs, P, sw, Z, U, Bb, db, intercept, pc, nu,
                  tol, lam, E, grouped)


@njit(**_JIT)
def _live(model, t):
    """Whether the feature at position t is non-zero in some class."""
    W, Delta, j = model[3], model[4], model[2][t]
    for k in range(W.shape[0]):
        if W[k, j] + Delta[k, j] != 0.0:
            return True
    return False


@njit(**_JIT)
def _record(model, order, row):
    ws, Delta = model[2], model[4]
    K = Delta.shape[0]
    for u in range(order.shape[0]):
        j = ws[order[u]]
        for k in range(K):
            row[u * K + k] = Delta[k, j]


@njit(**_JIT)
def _anderson(model, order, U_hist):
    (X, shift, ws, W, Delta, B, Gs, P, sw, Z, U, Bb, db, intercept, pc, nu, tol, lam, E, grouped,
     dZ, dU) = model
    _extrapolate(X, shift, ws, order, U_hist, W, Delta, Gs, P, sw, Z, U, dZ, dU, pc, nu, grouped)


@njit(**_JIT)
def _extrapolate(X, shift, ws, order, U_hist, W, Delta, Gs, P, sw, Z, U, dZ, dU, pc, nu,
                 grouped):
    """Anderson extrapolation of the last iterates (Anderson 1965; for coordinate descent, Bertrand
    and Massias 2021, "Anderson acceleration of coordinate descent"), kept when it lowers the model:
    the change of the model is computed exactly from the change of the scores it implies."""
    found, target = anderson_target(U_hist)
    if not found:
        return
    n, K = P.shape
    dZ[:, :] = 0.0
    dU[:] = 0.0
    change = 0.0
    for u in range(order.shape[0]):
        j = ws[order[u]]
        any_step = False
        new2, old2 = 0.0, 0.0  # the group's squared norms after and before (grouped penalty)
        for k in range(K):  # within the bounds first (a feasible point)
            target[u * K + k] = min(max(target[u * K + k], pc[2, j] - W[k, j]), pc[3, j] - W[k, j])
            step = target[u * K + k] - Delta[k, j]
            new, old = W[k, j] + target[u * K + k], W[k, j] + Delta[k, j]
            new2 += new * new
            old2 += old * old
            if step != 0.0:
                any_step = True
                change += nu * (0.5 * step + Delta[k, j]) * step
                if not grouped:
                    change += pc[0, j] * (abs(new) - abs(old))
        if not any_step:
            continue
        change += 0.5 * pc[1, j] * (new2 - old2)
        if grouped:
            change += pc[0, j] * (np.sqrt(new2) - np.sqrt(old2))
        c_j = shift[j]
        start, stop = _span(X, j)
        for p in range(start, stop):
            i, x = _entry(X, j, c_j, p)
            if x == 0.0:
                continue
            for k in range(K):
                e = (target[u * K + k] - Delta[k, j]) * x
                dZ[i, k] += e
                dU[i] += P[i, k] * e
    for i in range(n):
        quad = 0.0
        for k in range(K):
            d = dZ[i, k]
            change += Gs[i, k] * d
            quad += P[i, k] * (2.0 * Z[i, k] + d) * d
        change += 0.5 * sw[i] * (quad - (2.0 * U[i] + dU[i]) * dU[i])
    if change < 0.0:
        for u in range(order.shape[0]):
            j = ws[order[u]]
            for k in range(K):
                Delta[k, j] = target[u * K + k]
        for i in range(n):
            for k in range(K):
                Z[i, k] += dZ[i, k]
            U[i] += dU[i]
