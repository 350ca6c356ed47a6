"""The exact solve of a small quadratic model under the grouped penalty (one Euclidean norm per
feature across the K classes, :mod:`linclass.linear.penalties.grouped`): the inner step of proximal
Newton on the explicit softmax model (:mod:`.prox_newton_coupled`), as
:func:`.small_model.solve_small_model` is for the elastic net.

The model, in :math:`u = w + \\delta` (class-major, entry ``k * q + t`` is class k of feature t),

.. math::  \\phi(u) = \\frac12u^TMu - c^Tu + \\sum_t\\lambda_t\\lVert u_t\\rVert,
           \\qquad M = Q + \\mathrm{diag}(\\lambda_2f), \\quad c = Qw - \\text{grad},

is minimised by alternating two moves until its optimality conditions hold to ``tol``:

1. a sweep of exact block updates, one feature at a time (the group soft threshold in the
   block's eigenbasis, :func:`~linclass.linear.compiled.blocks.group_update`), which finds the
   groups that are zero;
2. Newton's method on the groups that are not (where the norm is smooth: its Hessian is
   :math:`(I - \\hat u\\hat u^T)/\\lVert u\\rVert`), with a backtracking line search on
   :math:`\\phi`: fast local convergence where block updates alone crawl (correlated features,
   nearly separable classes).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve


__all__ = ["block_minimiser", "solve_small_grouped"]

_ROUNDS = 50


def block_minimiser(A: np.ndarray, b: np.ndarray, lam: float) -> np.ndarray:
    """The minimiser of :math:`\\frac12u^TAu - b^Tu + \\lambda\\lVert u\\rVert` (A positive
    semi-definite): the compiled group update (:func:`linclass.linear.compiled.blocks.group_update`)
    from zero, with gradient :math:`-b`."""
    from linclass.linear.compiled.blocks import group_update  # numba, on first use

    u = np.zeros_like(b)
    group_update(-np.asarray(b, dtype=np.float64), np.ascontiguousarray(A, dtype=np.float64),
                 np.zeros_like(u), u, float(lam), 0.0, 0.0)
    return u


def _violations(M, c, u, lam, groups):
    """Each group's distance from optimality: :math:`\\lVert r_t + \\lambda_t\\hat u_t\\rVert` for
    a non-zero group, :math:`(\\lVert r_t\\rVert - \\lambda_t)_+` for a zero one, with
    :math:`r = Mu - c`."""
    r = (M @ u - c)[groups]  # (q, K)
    U = u[groups]
    norms = np.linalg.norm(U, axis=1)
    unit = U / np.where(norms > 0, norms, 1.0)[:, None]
    inside = np.linalg.norm(r + lam[:, None] * unit, axis=1)
    return np.where(norms > 0, inside, np.maximum(np.linalg.norm(r, axis=1) - lam, 0.0))


def _value(M, c, u, lam, groups) -> float:
    return float(0.5 * u @ M @ u - c @ u + lam @ np.linalg.norm(u[groups], axis=1))


def solve_small_grouped(Q, grad, w, l1, l2, K: int, tol: float, max_sweeps: int, nu: float = 0.0):
    """Minimise :math:`\\text{grad}^T\\delta + \\frac12\\delta^T(Q + \\nu I)\\delta + r(w + \\delta)`
    under the grouped penalty (module docstring); ``l1``, ``l2``: per feature (q,); w and grad of
    size K q, class-major.  Returns ``(delta, passes)``."""
    n = w.size
    q = n // K
    groups = np.arange(K)[None, :] * q + np.arange(q)[:, None]  # (q, K): the entries of each group
    if nu:
        Q = Q + nu * np.eye(n)
    M = Q + np.diag(np.tile(l2, K))
    c = Q @ w - grad
    u = np.array(w, dtype=np.float64)
    lam = np.asarray(l1, dtype=np.float64)
    sweeps = 0
    for _ in range(_ROUNDS):
        for t in range(q):  # exact block updates
            g = groups[t]
            b = c[g] - M[g] @ u + M[np.ix_(g, g)] @ u[g]
            u[g] = block_minimiser(M[np.ix_(g, g)], b, lam[t])
        sweeps += 1
        v = _violations(M, c, u, lam, groups)
        if v.max(initial=0.0) <= tol or sweeps >= max_sweeps:
            break
        u = _newton(M, c, u, lam, groups, tol)
        v = _violations(M, c, u, lam, groups)
        if v.max(initial=0.0) <= tol:
            break
    return u - w, sweeps


def _newton(M, c, u, lam, groups, tol, max_iter: int = 30):
    """Newton's method with a backtracking line search on the non-zero groups (zero ones fixed)."""
    for _ in range(max_iter):
        norms = np.linalg.norm(u[groups], axis=1)
        live = np.flatnonzero(norms > 0)
        if live.size == 0:
            return u
        idx = groups[live].reshape(-1)
        U = u[groups[live]] / norms[live, None]
        grad = (M @ u - c)[idx] + (lam[live, None] * U).reshape(-1)
        if np.max(np.abs(grad)) <= 0.1 * tol:
            return u
        H = M[np.ix_(idx, idx)].copy()
        K = groups.shape[1]
        for s, t in enumerate(live):
            block = slice(s * K, (s + 1) * K)
            H[block, block] += lam[t] / norms[t] * (np.eye(K) - np.outer(U[s], U[s]))
        try:
            step = -cho_solve(cho_factor(H, check_finite=False), grad, check_finite=False)
        except (LinAlgError, ValueError):
            return u
        f0, slope, a = _value(M, c, u, lam, groups), float(grad @ step), 1.0
        if not slope < 0:
            return u
        for _ in range(40):
            trial = u.copy()
            trial[idx] += a * step
            if _value(M, c, trial, lam, groups) <= f0 + 1e-4 * a * slope:
                u = trial
                break
            a *= 0.5
        else:
            return u
    return u
