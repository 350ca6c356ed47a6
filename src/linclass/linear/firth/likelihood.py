"""Firth's penalised log-likelihood at many points at once, and its maximisation over some
parameters from many starts at once (the profile search of :mod:`linclass.linear.firth.profile`).

:class:`PenalisedLikelihood` evaluates
:math:`\\ell^*(\\theta) = \\ell(\\theta) + \\tfrac12\\ln|I(\\theta)|` on the uncentred design
:math:`\\tilde X = [X, 1]` (parameters ``[coef..., intercept]``, as
:class:`linclass.linear.firth.objective.FirthObjective` with a zero offset), for a stack of S parameter
vectors in one pass of array operations.  With :math:`W = \\mathrm{diag}(w\\mu(1-\\mu))`,
:math:`I = \\tilde X^TW\\tilde X = LL^T`, :math:`b_i = \\sqrt{W_i}\\,L^{-1}\\tilde x_i` and the hat
diagonal :math:`h_i = |b_i|^2 \\in [0, 1]`:

.. math::  \\nabla\\ell^* = \\tilde X^T\\big(w(y-\\mu) + h\\odot(\\tfrac12-\\mu)\\big),

           \\nabla^2\\ell^* = -I + \\tfrac12\\tilde X^T\\mathrm{diag}\\big(h\\odot(1-6\\mu(1-\\mu))\\big)
           \\tilde X - \\tfrac12 M^TM, \\qquad
           M_{(r,s),\\,c} = \\textstyle\\sum_i (1-2\\mu_i)\\,b_{ir}b_{is}\\tilde x_{ic}

(:math:`\\tfrac12 M^TM = \\tfrac12[\\mathrm{tr}(I^{-1}I_cI^{-1}I_d)]_{cd}` with
:math:`I_c = \\partial I/\\partial\\theta_c`).  The exact Hessian costs :math:`O(np^3)` per point;
above :data:`EXACT_MAX` parameters it is not formed and Fisher scoring runs alone.

:func:`maximise` runs Newton's method from every start in step: the exact Hessian's step where it
is negative definite, else Fisher scoring's :math:`I^{-1}\\nabla\\ell^*` (always an ascent
direction), a backtracking (Armijo) line search on :math:`\\ell^*`, convergence on the gradient or
on the Newton decrement.  Newton's method converges quadratically where Fisher scoring, far along
a profile under separation, converges only linearly.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import log_expit

__all__ = ["EXACT_MAX", "Parts", "PenalisedLikelihood", "maximise"]

EXACT_MAX = 40  # parameters up to which the exact Hessian of l* is formed
_BLOCK = 1 << 22  # entries of one block of the Hessian's third term (starts x p^2 x rows)
# near the edge of its domain (I nearly singular, fitted probabilities near 0 and 1) l* carries
# rounding errors near 1e-11 relative: a step may lose _NOISE (relative), and a Newton decrement
# below _DECREMENT (relative) is the optimum as far as l* resolves it
_NOISE = 1e-10
_DECREMENT = 1e-12
_HALVINGS = 40
_SAME = 1e-9  # starts this close (relative, in every parameter) are at the same point


class Parts(NamedTuple):
    """:math:`\\ell^*` and its derivatives at S points (None past the order asked for)."""

    value: np.ndarray  # (S,), -inf where I is numerically singular
    gradient: np.ndarray | None  # (S, p)
    info: np.ndarray | None  # (S, p, p), the Fisher information I
    hessian: np.ndarray | None  # (S, p, p); None above EXACT_MAX parameters


class PenalisedLikelihood:
    """:math:`\\ell^*`, its gradient, the Fisher information and the exact Hessian.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), in {0, 1}
    sample_weight : ndarray of shape (n_samples,) or None
        Frequency weights.
    fit_intercept : bool
        Whether the last parameter is an intercept (a column of ones is appended).
    """

    def __init__(self, X, y, sample_weight=None, fit_intercept: bool = True):
        X = np.asarray(X, dtype=np.float64)
        self.design = np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X
        self.y = np.asarray(y, dtype=np.float64)
        self.w = (np.ones(X.shape[0]) if sample_weight is None
                  else np.asarray(sample_weight, dtype=np.float64))
        self.total = float(self.w.sum())
        self.n_params = self.design.shape[1]
        self.exact_max = EXACT_MAX  # parameters up to which evaluate() forms the exact Hessian

    def value(self, theta) -> float:
        """:math:`\\ell^*(\\theta)` at one point of shape (p,)."""
        return float(self.evaluate(np.asarray(theta)[None, :], order=0).value[0])

    def evaluate(self, thetas, order: int = 2) -> Parts:
        """:class:`Parts` at the rows of ``thetas`` (shape (S, p)) up to ``order`` (0, 1 or 2)."""
        thetas = np.atleast_2d(np.asarray(thetas, dtype=np.float64))
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            parts = self._evaluate(thetas, order)
        if parts.gradient is None:
            return parts
        bad = ~np.all(np.isfinite(parts.gradient), axis=1)
        value = np.where(bad, -np.inf, parts.value)
        hessian = parts.hessian
        if hessian is not None and not np.all(np.isfinite(hessian[~bad])):
            hessian = None  # I too near singular somewhere for the third derivatives
        return Parts(value, np.where(bad[:, None], 0.0, parts.gradient), parts.info, hessian)

    def _evaluate(self, T, order) -> Parts:
        Xd, w = self.design, self.w
        eta = T @ Xd.T  # (S, n)
        log_p = log_expit(eta)
        log_q = log_p - eta  # log(1 - p)
        W = w * np.exp(log_p + log_q)
        info = (Xd.T[None, :, :] * W[:, None, :]) @ Xd  # (S, p, p)
        sign, log_det = np.linalg.slogdet(info)
        ok = (sign > 0) & np.isfinite(log_det)
        value = np.where(ok, (self.y * log_p + (1.0 - self.y) * log_q) @ w + 0.5 * log_det,
                         -np.inf)
        if order == 0:
            return Parts(value, None, None, None)
        L, ok = _cholesky(np.where(ok[:, None, None], info, np.eye(self.n_params)), ok)
        value = np.where(ok, value, -np.inf)
        # B = L^{-1} X^T sqrt(W), by the p x p inverse and one product: OpenBLAS's threaded
        # triangular solve with many right-hand sides can be a hundred times slower on a busy
        # machine, and a general solve with n right-hand sides took 0.6 ms a point at n = 20,000
        B = np.linalg.inv(L) @ (Xd.T[None, :, :] * np.sqrt(W)[:, None, :])  # (S, p, n)
        h = np.einsum("sin,sin->sn", B, B)
        mu = np.exp(log_p)
        gradient = (w * (self.y - mu) + h * (0.5 - mu)) @ Xd
        if order == 1 or self.n_params > self.exact_max:
            return Parts(value, gradient, info, None)
        S, p, n = B.shape
        # M's rows (r, s) and (s, r) are equal: the pairs r <= s only, the others counted twice
        starts = np.concatenate([[0], np.cumsum(np.arange(p, 0, -1))])
        pairs = int(starts[-1])
        twice = np.full(pairs, 2.0)
        twice[starts[:-1]] = 1.0  # the pairs (r, r)
        M = np.zeros((S, pairs, p))
        rows = max(1, _BLOCK // (S * pairs))
        K = np.empty((S, pairs, min(rows, n)))
        for start in range(0, n, rows):
            b = B[:, :, start:start + rows]
            m = b.shape[2]
            for r in range(p):
                np.multiply(b[:, r:r + 1, :], b[:, r:, :], out=K[:, starts[r]:starts[r + 1], :m])
            odd = 1.0 - 2.0 * mu[:, start:start + rows, None]
            M += K[:, :, :m] @ (Xd[None, start:start + rows, :] * odd)
        second = (Xd.T[None, :, :] * (h * (1.0 - 6.0 * mu * (1.0 - mu)))[:, None, :]) @ Xd
        hessian = -info + 0.5 * second - 0.5 * np.swapaxes(M, 1, 2) @ (M * twice[:, None])
        return Parts(value, gradient, info, 0.5 * (hessian + np.swapaxes(hessian, 1, 2)))


def _cholesky(matrices, ok):
    """Lower Cholesky factors of a stack; a matrix that is not numerically positive definite gets
    the identity and ``ok`` False."""
    try:
        return np.linalg.cholesky(matrices), ok
    except np.linalg.LinAlgError:
        factors, ok = np.empty_like(matrices), ok.copy()
        for k, matrix in enumerate(matrices):
            try:
                factors[k] = np.linalg.cholesky(matrix)
            except np.linalg.LinAlgError:
                factors[k], ok[k] = np.eye(matrix.shape[0]), False
        return factors, ok


def maximise(problem: PenalisedLikelihood, starts, free, *, tol: float = 1e-10,
             max_iter: int = 200, with_parts: bool = False):
    """Maximise :math:`\\ell^*` over the parameters ``free`` from every row of ``starts``, the
    others held at their values there.

    Parameters
    ----------
    problem : PenalisedLikelihood
    starts : ndarray of shape (S, p)
    free : ndarray of bool of shape (p,)
    tol : float
        A start has converged when the largest entry of its free gradient is at most ``tol``
        times the total weight, or its Newton decrement is below float64's resolution of
        :math:`\\ell^*`.
    max_iter : int
    with_parts : bool
        Also return the :class:`Parts` at the returned points (their gradient, information and,
        up to :data:`EXACT_MAX` parameters, Hessian: what a profile's slope and tangent need).

    Returns
    -------
    thetas : ndarray of shape (S, p)
    values : ndarray of shape (S,)
        :math:`\\ell^*` there (:math:`-\\infty` for a start where it is not defined).
    converged : ndarray of bool of shape (S,)
    parts : Parts, with ``with_parts``
    """
    theta = np.array(np.atleast_2d(starts), dtype=np.float64)
    free = np.asarray(free, dtype=bool)
    value, gradient, info, hessian = problem.evaluate(theta)
    converged = np.zeros(len(theta), dtype=bool)
    active = np.isfinite(value)
    fisher = np.zeros(len(theta), dtype=bool)  # Newton's step failed its line search last time
    ahead = np.zeros(len(theta), dtype=bool)  # expected to take the full step
    limit = tol * max(problem.total, 1.0)
    follows = np.arange(len(theta))  # a start that met another one follows it from then on
    for _ in range(max_iter):
        active &= np.isfinite(value)
        _merge(theta, active, converged, follows)
        g = gradient[:, free]
        small = np.max(np.abs(g), axis=1, initial=0.0) <= limit
        converged |= active & small
        active &= ~small
        if not active.any():
            break
        idx = np.flatnonzero(active)
        step, newton = _steps(None if hessian is None else hessian[idx], info[idx], free, g[idx],
                              fisher[idx])
        slope = np.einsum("si,si->s", g[idx], step)
        usable = np.isfinite(slope) & (slope > 0)
        flat = usable & (slope <= _DECREMENT * (1.0 + np.abs(value[idx])))
        converged[idx[flat]] = True
        active[idx[flat | ~usable]] = False
        keep = usable & ~flat
        idx, step, slope, newton = idx[keep], step[keep], slope[keep], newton[keep]
        ahead_before = ahead[idx]
        moved, took_full, parts = _line_search(problem, theta, value, idx, step, slope, free,
                                               ahead_before)
        full = took_full & ahead_before
        ahead[idx] = took_full  # near a maximum: expect the full step again
        fisher[idx] = newton & ~moved  # retry with Fisher's step next time
        active[idx[~moved & ~newton]] = False  # not even Fisher's step ascends: stalled
        for rows in (full, moved & ~full):  # the expected full steps were evaluated in full
            if not rows.any():
                continue
            new = (Parts(*(None if a is None else a[full[ahead_before]] for a in parts))
                   if rows is full else problem.evaluate(theta[idx[rows]]))
            value[idx[rows]], gradient[idx[rows]], info[idx[rows]] = new[:3]
            if hessian is not None and new.hessian is not None:
                hessian[idx[rows]] = new.hessian
            else:
                hessian = None
    while np.any(follows[follows] != follows):  # to the end of each chain
        follows = follows[follows]
    merged = follows != np.arange(len(theta))
    theta[merged], value[merged], converged[merged] = (theta[follows[merged]],
                                                       value[follows[merged]],
                                                       converged[follows[merged]])
    if not with_parts:
        return theta, value, converged
    gradient, info = gradient[follows], info[follows]
    if hessian is not None:
        hessian = hessian[follows]
    return theta, value, converged, Parts(value, gradient, info, hessian)


def _merge(theta, active, converged, follows) -> None:
    """Stop the active starts that have reached the point of another start (active or converged,
    within :data:`_SAME` relative in every parameter): from the same point Newton's method takes
    the same path, so each such start follows the other one from then on (``follows``) and ends
    where it ends.  Starts continued from neighbouring profile points mostly meet within a few
    steps, after which one evaluation serves them all."""
    live = np.flatnonzero(active | converged)
    if live.size < 2:
        return
    points = theta[live]
    for a in range(1, live.size):
        i = live[a]
        if not active[i]:
            continue
        gap = np.max(np.abs(points[:a] - points[a]) / (1.0 + np.abs(points[:a])), axis=1)
        near = np.flatnonzero((gap <= _SAME) & (active | converged)[live[:a]])
        if near.size:
            follows[i] = live[near[0]]
            active[i] = False


def _steps(hessian, info, free, g, fisher):
    """Each start's ascent step over the free parameters: Newton's where its Hessian is
    negative definite (and not ``fisher``), else Fisher scoring's; and which it is."""
    sub = np.ix_(np.ones(len(g), dtype=bool), free, free)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        step = _solve(info[sub], g)
        newton = np.zeros(len(g), dtype=bool)
        if hessian is not None:
            negative = -hessian[sub]
            newton = ~fisher & (np.linalg.eigvalsh(negative)[:, 0] > 0)
            if newton.any():
                step[newton] = _solve(negative[newton], g[newton])
    return step, newton


def _solve(matrices, vectors):
    """``matrices[k]^{-1} vectors[k]`` for each k; NaN where a matrix is singular."""
    try:
        return np.linalg.solve(matrices, vectors[:, :, None])[:, :, 0]
    except np.linalg.LinAlgError:
        out = np.full(vectors.shape, np.nan)
        for k, (A, v) in enumerate(zip(matrices, vectors)):
            try:
                out[k] = np.linalg.solve(A, v)
            except np.linalg.LinAlgError:
                pass
        return out


def _line_search(problem, theta, value, idx, step, slope, free, ahead):
    """Backtrack each start ``idx[k]`` along ``step[k]`` to Armijo's condition, updating ``theta``
    in place.  The full steps of the starts ``ahead`` (near a maximum, where every start takes
    it) are evaluated in full at once.  Returns which moved, which took the full step, and the
    :class:`Parts` at the full steps of ``ahead``."""
    scale = np.ones(len(idx))
    moved = np.zeros(len(idx), dtype=bool)
    pending = np.arange(len(idx))
    noise = _NOISE * (1.0 + np.abs(value[idx]))
    first, took_full = None, np.zeros(len(idx), dtype=bool)
    for k in range(_HALVINGS):
        if not pending.size:
            break
        candidate = theta[idx[pending]].copy()
        candidate[:, free] += scale[pending, None] * step[pending]
        if k == 0:
            new = np.empty(len(pending))
            if ahead.any():
                first = problem.evaluate(candidate[ahead], order=2)
                new[ahead] = first.value
            if not ahead.all():
                new[~ahead] = problem.evaluate(candidate[~ahead], order=0).value
        else:
            new = problem.evaluate(candidate, order=0).value
        good = np.isfinite(new) & (
            new >= value[idx[pending]] + 1e-4 * scale[pending] * slope[pending] - noise[pending])
        theta[idx[pending[good]]] = candidate[good]
        moved[pending[good]] = True
        if k == 0:
            took_full = good
        pending = pending[~good]
        scale[pending] *= 0.5
    return moved, took_full, first
