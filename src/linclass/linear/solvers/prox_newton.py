"""Proximal Newton with coordinate descent on the quadratic model (glmnet / newGLMNET), for the
penalised objective of :mod:`linclass.linear.penalised`.

The columns it works on form a *working set*: at the start, the columns that are non-zero or violate
their optimality condition (or a path's strong set, :mod:`linclass.linear.path`); the others would
stay at zero in coordinate descent's first pass.  Each outer iteration, at the current point
:math:`(w, b)` with score gradients :math:`g` and curvatures :math:`h` (two classes:
:math:`g_i = w_i(\\mu_i - y_i)`, :math:`h_i = w_i\\mu_i(1-\\mu_i)`):

1. **gradient and check**: :math:`G = \\tilde X^Tg` on the working set (one read of its columns,
   which also gives the model's curvatures).  When the largest violation of the optimality
   conditions there (:meth:`~linclass.linear.penalised.PenalisedObjective.violation`), per unit of
   sample weight, is at most ``tol``, every column is checked (one pass over X); columns that
   violate theirs join the working set (the KKT check of Tibshirani et al. 2012), and when none
   does the fit has converged: the reported violation is the largest over every column.
2. **quadratic model** :math:`q(\\delta) = g^Tz + \\frac12\\sum_i h_iz_i^2 + r(w + \\delta)`,
   :math:`z = \\tilde X\\delta + \\delta_b`, minimised approximately by coordinate descent
   (:func:`~linclass.linear.compiled.cd_naive`: glmnet's inner loop with its active-set cycling, the
   intercept profiled out, Anderson extrapolation) to an inner tolerance that shrinks with the outer
   violation (an inexact Newton method's forcing sequence; Yuan, Ho and Lin 2012, "An Improved
   GLMNET", sec. 3).  On dense X with a small working set the model's Hessian is formed once with
   BLAS and the model is solved exactly (:func:`solve_small_model`: coordinate descent, glmnet's
   covariance updates, then the feature-sign search).
3. **line search**: backtracking (halving) until :math:`F(w + t\\delta) \\le F(w) + \\sigma t D`,
   :math:`D = \\nabla f^T\\delta + r(w + \\delta) - r(w)` (newGLMNET eq. 10, Tseng and Yun 2009),
   :math:`\\sigma = 0.01`.  The step is usually accepted at :math:`t = 1`; the line search is what
   makes the iteration converge from any start.

Softmax (K > 2) runs the same step on one class's row at a time (:mod:`.prox_newton_softmax`;
:mod:`.coordinate_descent` chooses).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

from linclass.linear import compiled

__all__ = ["PenalisedResult", "prox_newton", "line_search"]

_SIGMA = 0.01            # sufficient-decrease constant of the line search
_MAX_HALVINGS = 50
_FORCING = 0.1           # inner tolerance = _FORCING x the outer violation
GRAM_MAX = 500           # dense working sets up to this size use the explicit model Hessian
MAX_SWEEPS = 200         # coordinate-descent passes per outer iteration


@dataclass
class PenalisedResult:
    """The outcome of a penalised fit.

    Attributes
    ----------
    W, b : ndarrays of shape (m, d) and (m,)
        Coefficients and internal (shifted-design) intercepts.
    n_iter : int
        Outer (Newton) iterations; for softmax, passes over the classes.
    converged : bool
    violation : float
        Largest violation of the optimality conditions per unit of sample weight at (W, b).
    value : float
        The objective :math:`F` (summed scale) at (W, b).
    history : ndarray
        :math:`F` per unit weight at the start and after each outer iteration.
    n_sweeps : int
        Coordinate-descent passes in total (the work done, in units of one pass over the working set).
    gradient : ndarray of shape (m, d)
        Summed-loss gradient at (W, b) on the columns last checked (candidates or all).
    """

    W: np.ndarray
    b: np.ndarray
    n_iter: int
    converged: bool
    violation: float
    value: float
    history: np.ndarray
    n_sweeps: int = 0
    gradient: np.ndarray = field(default=None, repr=False)


def line_search(f0: float, slope: float, evaluate) -> tuple[float, float]:
    """Largest :math:`t = 2^{-k}` with ``evaluate(t) <= f0 + sigma t slope``; returns ``(t, f(t))``,
    ``t = 0`` when none is found.

    Near the optimum the predicted decrease falls below the rounding of :math:`F` itself (a sum of n
    terms); then the full step is accepted when it does not raise :math:`F` beyond that rounding, and
    the next optimality check judges it (the quadratic model is exact to far better than rounding
    there)."""
    noise = 16 * np.finfo(float).eps * max(abs(f0), 1.0)
    t = 1.0
    for k in range(_MAX_HALVINGS):
        f = evaluate(t)
        if np.isfinite(f) and f <= f0 + _SIGMA * t * slope:
            return t, f
        if k == 0 and -slope <= noise and f <= f0 + noise:
            return t, f
        t *= 0.5
    return 0.0, f0


def solve_small_model(Q, grad, w, l1: float, l2: float, tol: float, max_sweeps: int):
    """Minimise :math:`\\text{grad}^T\\delta + \\frac12\\delta^TQ\\delta + r(w + \\delta)` for a
    small dense Q: coordinate descent from zero, then :func:`feature_sign` from its point to the exact
    minimiser.  Coordinate descent alone converges slowly when the features are correlated; the exact
    step makes the outer iteration a proximal Newton method with exact steps (fast local
    convergence).  Returns ``(delta, passes)``.
    """
    q = w.size
    M = Q + l2 * np.eye(q)
    c = Q @ w - grad  # the model in u = w + delta: 1/2 u'Mu - c'u + l1 |u|_1 (+ constant)
    if l1 == 0.0:  # a smooth model: the Newton step itself
        try:
            return cho_solve(cho_factor(M, check_finite=False), c, check_finite=False) - w, 0
        except (LinAlgError, ValueError):
            pass
    delta = np.zeros(q)
    sweeps = compiled.cd_gram(Q, grad, w, delta, l1, l2, tol, min(32, max_sweeps))
    u = feature_sign(M, c, l1, w + delta)
    if u is None:  # singular: coordinate descent to the tolerance instead
        sweeps += compiled.cd_gram(Q, grad, w, delta, l1, l2, tol, max_sweeps)
        return delta, sweeps
    return u - w, sweeps


def feature_sign(M, c, l1: float, u, max_iter: int | None = None):
    """Exact minimiser of :math:`\\frac12u^TMu - c^Tu + \\lambda_1\\lVert u\\rVert_1` (M positive
    definite on the non-zero set) by the feature-sign search of Lee, Battle, Raina and Ng (2007,
    "Efficient sparse coding algorithms", Algorithm 1), started from ``u``.

    Each step solves the stationarity condition with the current signs,
    :math:`M_{AA}u_A = c_A - \\lambda_1\\theta_A`, then moves towards that point and stops at the lowest
    objective among the points where a coefficient changes sign; when the non-zero set is optimal, the
    zero coefficient that violates :math:`|(Mu - c)_t| \\le \\lambda_1` most joins.  The objective falls
    at every step, so the search ends, at the exact minimiser.  Returns None when a system is singular
    or the iteration budget runs out.
    """
    q = c.size
    max_iter = 4 * q + 10 if max_iter is None else max_iter
    u = np.array(u, dtype=np.float64)
    theta = np.sign(u)
    active = u != 0
    scale = max(float(np.abs(c).max(initial=0.0)), l1, 1e-300)
    eps = 1e-11 * scale

    def value(v):
        return 0.5 * float(v @ (M @ v)) - float(c @ v) + l1 * float(np.abs(v).sum())

    for _ in range(max_iter):
        grad = M @ u - c
        A = np.flatnonzero(active)
        if A.size and np.max(np.abs(grad[A] + l1 * theta[A])) > eps:
            try:
                target = cho_solve(cho_factor(M[np.ix_(A, A)], check_finite=False),
                                   c[A] - l1 * theta[A], check_finite=False)
            except (LinAlgError, ValueError):
                return None
            current = u[A]
            flips = np.flatnonzero((current != 0) & (np.sign(target) != np.sign(current)))
            steps = np.append(current[flips] / (current[flips] - target[flips]), 1.0)
            best, best_value = None, value(u)
            for t in steps:
                v = u.copy()
                v[A] = current + t * (target - current)
                small = np.abs(v[A]) <= 1e-15 * np.abs(current).max(initial=1.0)
                v[A[small]] = 0.0
                f = value(v)
                if f < best_value:
                    best, best_value = v, f
            if best is None:  # no decrease at working precision: optimal on this set
                theta[A] = np.sign(u[A])
                active = u != 0
                if np.max(np.abs((M @ u - c)[A] + l1 * theta[A]), initial=0.0) > 1e3 * eps:
                    return None
            else:
                u = best
                active = u != 0
                theta = np.sign(u)
            continue
        off = np.flatnonzero(~active)
        if off.size == 0:
            return u
        excess = np.abs(grad[off]) - l1
        t = int(np.argmax(excess))
        if excess[t] <= eps:
            return u
        j = off[t]
        active[j] = True
        theta[j] = -np.sign(grad[j])
    return None


class RowModel:
    """The quadratic model of one row of coefficients (the binary log-odds, or one class) at the
    current point, restricted to a working set.

    Built from the score gradients g and curvatures h, in one read of the working-set columns: the
    gradient :math:`G = \\tilde X_{ws}^Tg` and either the column curvatures (coordinate descent on
    the data, :func:`~linclass.linear.compiled.cd_naive`) or, for dense X and a small working set,
    the profiled Hessian :math:`Q` (one BLAS product; :func:`~linclass.linear.compiled.cd_gram`).
    """

    def __init__(self, design, ws, g, h, *, intercept: bool, gram_max: int = GRAM_MAX):
        self.design, self.ws, self.g, self.h = design, ws, g, h
        self.H = float(h.sum()) if intercept else 0.0
        self.gb = float(g.sum()) if intercept else 0.0
        self.gram = not design.sparse and ws.size <= gram_max
        if self.gram:  # the Hessian is formed when a step is asked for (not for a last check)
            self.G = design.gradient(g[None, :], ws)[:, 0]
        else:
            q = ws.size
            self.G, self.hx, self.a = np.empty(q), np.empty(q), np.empty(q)
            self.hptr = np.zeros(q + 1, dtype=np.int64)
            if design.sparse:
                np.cumsum(design.column_nnz()[ws], out=self.hptr[1:])
            self.hd = np.empty(int(self.hptr[-1]))
            compiled.column_terms(design.kernel_X, design.shift, ws, g, h, self.H, self.G, self.hx,
                                 self.a, self.hd, self.hptr)

    def solve(self, w, l1, l2, inner_tol, max_sweeps):
        """Minimise the model approximately; returns ``(delta (d,), db, z (n,), sweeps)`` with z the
        score change :math:`\\tilde X\\delta` (the intercept step db not included)."""
        design, ws, H = self.design, self.ws, self.H
        delta = np.zeros(design.d)
        if self.gram:
            self.Q, self.hx = design.weighted_gram(ws, self.h, H)
            grad = self.G - self.hx * (self.gb / H) if H > 0 else self.G.copy()
            d_ws, sweeps = solve_small_model(self.Q, grad, np.ascontiguousarray(w[ws]), l1, l2,
                                             inner_tol, max_sweeps)
            delta[ws] = d_ws
            db = -(self.gb + self.hx @ d_ws) / H if H > 0 else 0.0
            z = design.step(delta, ws)
        else:
            m = self.hx / H if H > 0 else np.zeros(ws.size)
            r = self.g.copy()
            state = np.array([self.gb, H])
            sweeps = compiled.cd_naive(design.kernel_X, design.shift, ws, w, delta, self.a, m, self.h,
                                      self.hd, self.hptr, r, state, l1, l2, inner_tol, max_sweeps)
            db = -state[0] / H if H > 0 else 0.0
            z = design.step(delta, ws)
        return delta, db, z, sweeps

    def slope(self, w, delta, l1, l2, db) -> float:
        """:math:`D = \\nabla f^T\\delta + r(w + \\delta) - r(w)` (the L2 part counted as smooth)."""
        ws = self.ws
        dw, ww = delta[ws], w[ws]
        D = float(self.G @ dw) + self.gb * db + l2 * float(ww @ dw)
        if l1:
            D += l1 * l1_change(ww, dw)
        return D


def l1_change(w: np.ndarray, d: np.ndarray) -> float:
    """:math:`\\lVert w + d\\rVert_1 - \\lVert w\\rVert_1`, exact where no sign changes (the plain
    difference loses the step's digits to :math:`\\lVert w\\rVert_1` near the optimum)."""
    u = w + d
    same = (w != 0) & (np.sign(u) == np.sign(w))
    return float(np.sum(np.sign(w[same]) * d[same]) + np.sum(np.abs(u[~same]) - np.abs(w[~same])))


def working_set_violation(pen, w, model, intercept: bool) -> float:
    """Largest optimality violation on the working set (and the intercept), summed scale."""
    v = pen.violation(w[model.ws], model.G)
    out = float(v.max()) if v.size else 0.0
    return max(out, abs(model.gb)) if intercept else out


def screen(pen, w, G, cols, threshold: float) -> np.ndarray:
    """The columns among ``cols`` whose optimality violation exceeds ``threshold``."""
    return cols[pen.violation(w[cols], G) > threshold]


def prox_newton(obj, W0, b0, *, tol: float = 1e-6, max_iter: int = 100, working_set=None,
                max_sweeps: int = MAX_SWEEPS, gram_max: int = GRAM_MAX) -> PenalisedResult:
    """Minimise the objective ``obj`` from ``(W0, b0)`` (internal layout); see the module docstring.

    Parameters
    ----------
    obj : :class:`~linclass.linear.penalised.PenalisedObjective`
    W0, b0 : ndarrays of shape (m, d) and (m,)
    tol : float
        Stop when the largest optimality violation per unit of sample weight is at most ``tol``.
    max_iter : int
        Outer iterations (passes over the classes for softmax).
    working_set : ndarray of int, or list of them (one per class), or None
        The columns to start from (a path's strong set, Tibshirani et al. 2012); None: the columns
        non-zero at the start or violating their condition there (one pass over X).  Columns left
        out are checked at the end and join when they violate their conditions.
    max_sweeps : int
        Coordinate-descent passes per quadratic model.
    gram_max : int
        Largest dense working set whose model Hessian is formed explicitly.
    """
    if not obj.binary:
        raise ValueError("prox_newton fits two classes; K classes: linear.solvers.coordinate_descent")
    design, pen = obj.design, obj.penalty
    l1, l2 = pen.scalars()
    N, intercept = obj.total, obj.fit_intercept
    limit = tol * N
    w = np.array(W0, dtype=np.float64).reshape(-1).copy()
    b = float(np.reshape(b0, -1)[0]) if intercept else 0.0
    s = obj.scores(w[None, :], np.array([b]))[0]
    n = s.size
    g, h = np.empty(n), np.empty(n)
    F = compiled.binary_terms(s, obj.target, obj.sw, g, h) + pen.value(w)
    history, sweeps_total, converged, n_iter = [F / N], 0, False, 0
    # the working set: columns non-zero or violating at the start, grown by the checks below
    if working_set is None:
        G0 = design.gradient(g[None, :])[:, 0]
        ws = np.union1d(np.flatnonzero(w), screen(pen, w, G0, design.all_columns, 0.0))
    else:
        ws = np.union1d(np.flatnonzero(w), np.asarray(working_set, dtype=np.int64).reshape(-1))
    while True:
        model = RowModel(design, ws, g, h, intercept=intercept, gram_max=gram_max)
        violation = working_set_violation(pen, w, model, intercept)
        if violation <= limit:  # the working set is solved: check every column
            G = design.gradient(g[None, :])[:, 0]
            outside = screen(pen, w, G, design.all_columns, limit)
            if outside.size == 0:
                converged = True
                violation = max(violation, float(pen.violation(w, G).max()) if G.size else 0.0)
                break
            ws = np.union1d(ws, outside)
            model = RowModel(design, ws, g, h, intercept=intercept, gram_max=gram_max)
            violation = working_set_violation(pen, w, model, intercept)
        if n_iter >= max_iter:
            break
        n_iter += 1
        inner_tol = max(_FORCING * violation, 0.1 * limit)
        delta, db, z, sweeps = model.solve(w, l1, l2, inner_tol, max_sweeps)
        sweeps_total += sweeps
        D = model.slope(w, delta, l1, l2, db)
        if not D < 0:
            break  # the model sees no descent: stalled at rounding level
        zb = z + db
        w_ws, d_ws = w[ws], delta[ws]
        rest = pen.value(w) - pen.value(w_ws)  # the penalty off the working set does not move

        def evaluate(t):
            return (compiled.binary_loss(s, zb, t, obj.target, obj.sw) + rest
                    + pen.value(w_ws + t * d_ws))

        t, _ = line_search(F, D, evaluate)
        if t == 0.0:
            break
        w[ws] += t * d_ws
        b += t * db
        s += t * zb
        F = compiled.binary_terms(s, obj.target, obj.sw, g, h) + pen.value(w)
        history.append(F / N)
    if not converged:
        G = design.gradient(g[None, :])[:, 0]
        violation = max(float(pen.violation(w, G).max()) if G.size else 0.0,
                        abs(float(g.sum())) if intercept else 0.0)
    return PenalisedResult(w[None, :], np.array([b]), n_iter, converged, violation / N, F,
                           np.asarray(history), sweeps_total, G[None, :])
