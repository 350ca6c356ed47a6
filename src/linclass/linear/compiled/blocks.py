"""The update of one feature's K coefficients in the coupled softmax model
(:mod:`linclass.linear.compiled.coupled`): a few coordinate passes on the block Hessian under the
elastic net with the feature's bounds, or the exact group update of the grouped penalty
(:mod:`linclass.linear.penalties.grouped`), then the penalty's best shift along :math:`\\mathbf 1`
(the direction the undamped block does not see).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from linclass.linear.compiled.columns import JIT as _JIT
from linclass.linear.penalties.elastic_net_kernel import coordinate_update
from linclass.linear.penalties.elastic_net_kernel import flat_update as _flat

__all__ = ["best_shift", "block_update", "block_eigen", "group_step", "group_update"]

_BLOCK_PASSES = 4  # coordinate passes inside one feature's K-block per sweep


@njit(**_JIT)
def best_shift(u, l1, l2, lo, hi):
    """The shift c minimising :math:`\\sum_k \\lambda_1|u_k - c| + \\frac{\\lambda_2}2(u_k - c)^2`
    with :math:`u - c` within [lo, hi] (:meth:`linclass.linear.penalties.elastic_net.ElasticNet.best_shift`
    for one column; the mean for a column without penalty)."""
    K = u.shape[0]
    A = np.sort(u)
    total = A.sum()
    if l1 == 0.0 and l2 == 0.0:
        return min(max(total / K, A[K - 1] - hi), A[0] - lo)
    return min(max(_penalised_shift(A, total, l1, l2), A[K - 1] - hi), A[0] - lo)


@njit(inline="always")
def _penalised_shift(A, total, l1, l2):
    K = A.shape[0]
    m = 0
    for r in range(K):
        if l1 * (2 * r - (K - 1)) + l2 * (K * A[r] - total) < 0.0:
            m += 1
    lo = A[m - 1] if m > 0 else -np.inf
    hi = A[m] if m < K else np.inf
    if l2 > 0.0:
        return min(max((total - l1 * (2 * m - K) / l2) / K, lo), hi)
    if 2 * m == K:
        return 0.5 * (lo + hi)
    return hi


@njit(**_JIT)
def group_update(g, Bt, cur, v, l1, l2, nu):
    """The grouped penalty's block update (:mod:`linclass.linear.penalties.grouped`): v minimising
    :math:`g^Tv + \\frac12v^TAv + \\lambda_1\\lVert u\\rVert + \\frac{\\lambda_2}2\\lVert u\\rVert^2`,
    :math:`u = \\text{cur} + v`, :math:`A = B + \\nu I`, exactly: u = 0 when
    :math:`\\lVert A\\,\\text{cur} - g\\rVert \\le \\lambda_1`, else
    :math:`u = (A + (\\lambda_2 + \\mu)I)^{-1}(A\\,\\text{cur} - g)` with :math:`\\mu\\lVert u\\rVert =
    \\lambda_1`, whose left side increases in :math:`\\mu`: bisection in A's eigenbasis, between 0 and
    :math:`\\lambda_1(\\lambda_{max} + \\lambda_2)/(\\lVert q\\rVert - \\lambda_1)`."""
    lam, E = np.linalg.eigh(Bt)
    group_step(g, Bt, lam, E, cur, v, l1, l2, nu)


@njit(inline="always")
def group_step(g, Bt, lam, E, cur, v, l1, l2, nu):
    """:func:`group_update` with the eigendecomposition ``lam``, ``E`` of the undamped block
    ``Bt`` given (coordinate descent decomposes each feature's block once per model, not once per
    sweep: the damping :math:`\\nu` only shifts its eigenvalues)."""
    K = g.shape[0]
    q = Bt @ cur + nu * cur - g
    size = np.sqrt(np.sum(q * q))
    if size <= l1:
        for k in range(K):
            v[k] = -cur[k]
        return
    qh = E.T @ q
    shifted = np.empty(K)
    top = 0.0
    for k in range(K):
        shifted[k] = max(lam[k], 0.0) + nu  # (a negative eigenvalue: rounding of a PSD block)
        if shifted[k] > top:
            top = shifted[k]
    mu = 0.0
    if l1 > 0.0:
        low, high = 0.0, l1 * (top + l2) / (size - l1) + 1e-300
        for _ in range(200):
            mu = 0.5 * (low + high)
            total = 0.0
            for k in range(K):
                e = mu * qh[k] / (shifted[k] + l2 + mu)
                total += e * e
            if total > l1 * l1:
                high = mu
            else:
                low = mu
            if high - low <= 1e-15 * high:
                break
        mu = 0.5 * (low + high)
    uh = np.empty(K)
    for k in range(K):
        den = shifted[k] + l2 + mu
        uh[k] = qh[k] / den if den > 0.0 else 0.0
    u = E @ uh
    for k in range(K):
        v[k] = u[k] - cur[k]


@njit(inline="always")
def block_update(g, Bt, lam, E, cur, v, l1, l2, lo, hi, nu, tol, grouped):
    """Minimise :math:`g^Tv + \\frac12v^T(B + \\nu I)v + r(\\text{cur} + v)` over the K-vector v
    (written in place, from zero) by a few coordinate passes, then the penalty's best shift along
    :math:`\\mathbf 1` (a direction the undamped model does not see).  Returns the largest
    :math:`(B_{kk} + \\nu + \\lambda_2)|v_k|`.  ``lam``, ``E``: the eigendecomposition of B (the
    grouped penalty's)."""
    K = g.shape[0]
    for k in range(K):
        v[k] = 0.0
    if grouped:
        group_step(g, Bt, lam, E, cur, v, l1, l2, nu)
    for _ in range(0 if grouped else _BLOCK_PASSES):
        moved = 0.0
        for k in range(K):
            a = Bt[k, k] + nu
            grad = g[k] + nu * v[k]
            for l in range(K):
                grad += Bt[k, l] * v[l]
            old = cur[k] + v[k]
            if a > 0.0 or l2 > 0.0:
                d = coordinate_update(a, a * old - grad, l1, l2, lo, hi) - old
            else:  # no curvature: the model is linear, minimised at 0 when |grad| <= l1
                d = _flat(grad, l1, old, lo, hi) - old
            if d != 0.0:
                v[k] += d
                if abs(d) * (a + l2) > moved:
                    moved = abs(d) * (a + l2)
        if moved <= tol:
            break
    if nu == 0.0 and (l1 > 0.0 or l2 > 0.0 or lo > -np.inf or hi < np.inf):
        u = cur + v
        v -= u.mean() if grouped else best_shift(u, l1, l2, lo, hi)
    biggest = 0.0
    for k in range(K):
        e = abs(v[k]) * (Bt[k, k] + nu + l2)
        if e > biggest:
            biggest = e
    return biggest


@njit(**_JIT)
def block_eigen(B, grouped):
    """The eigendecomposition of each block of B (q, K, K) for the grouped penalty (one unused row
    otherwise)."""
    q, K = B.shape[0], B.shape[1]
    n = q if grouped else 1
    lam, E = np.empty((n, K)), np.empty((n, K, K))
    for t in range(n):
        lam[t], E[t] = np.linalg.eigh(B[t])
    return lam, E
