"""Folded concave penalties: what they share, written once for every such penalty.

A folded concave penalty is :math:`\\rho(|v|)` with :math:`\\rho` concave on :math:`[0, \\infty)`,
:math:`\\rho(0) = 0` and slope :math:`\\rho'(0^+) = \\lambda`: it is the lasso near zero (so it
selects) and flattens out for large :math:`|v|` (so large coefficients are not shrunk; Fan and Li
2001, Zhang 2010).  Every one in use is *piecewise quadratic* in :math:`x = |v|`: on pieces
:math:`[x_0, x_1]`,

.. math::  \\rho(x) = c_0 + c_1 x + \\frac{c_2}2 x^2,

which is all a penalty module states (:meth:`FoldedConcave.pieces`); value, derivative, the
coordinate update, the optimality check and the line search's slope follow here.  On the summed
log-loss the penalty of a column is :math:`N\\rho(|w_j|; \\lambda f_j, \\gamma)`, N the total
sample weight and :math:`\\lambda = 1/(CN)` (ncvreg's and skglm's per-observation scale, as glmnet's
:math:`\\lambda` for the elastic net), so :math:`N\\lambda = 1/C` is the L1 weight at zero, as
``penalty='l1'``'s.

The coordinate update
    The global minimiser of :math:`\\frac a2 v^2 - uv + N\\rho(|v|)`, a one-dimensional problem
    that is not convex where :math:`a/N < -c_2` (the model's curvature below the penalty's
    concavity, common for the logistic loss, whose curvature is at most 1/4 per unit weight): each
    piece is a quadratic in :math:`x` on each side of zero, minimised in closed form on its
    interval (at an end when it is concave), and the lowest of those minima is taken.  Where the
    piece is convex this is the closed form of Breheny and Huang (2011, "Coordinate descent
    algorithms for nonconvex penalized regression").
Optimality
    A local minimum satisfies :math:`0 \\in G_j + N\\partial\\rho` with
    :math:`\\partial\\rho(0) = [-\\lambda, \\lambda]` and :math:`\\rho'(|w|)\\operatorname{sign}(w)`
    elsewhere (:meth:`FoldedConcave.violation`).
The line search
    The slope of a proximal step counts the penalty as the model does, :math:`D = \\nabla f^T\\delta
    + r(w + \\delta) - r(w)` (Tseng and Yun 2009), which the model's minimiser makes negative
    (:math:`D \\le -\\frac12\\delta^TQ\\delta`) even when the step carries a coefficient past a knot
    into the flat part.  A linearised concave part (the bound of a difference of convex
    functions) made such steps look uphill, and proximal Newton crawled under a damping it did not
    need (250 iterations on breast cancer).  Where backtracking finds no step the model is damped
    (:class:`linclass.linear.solvers.prox_newton.Damping`), and a damped step is a local one.

The fit is a local minimum (the problem is not convex): the lowest of those proximal Newton reaches
from zero and from the ridge solution at the same C
(:func:`linclass.linear.fitting.fit.lowest_of_starts`, which gives the measurements).
"""

from __future__ import annotations

import math

import numpy as np
from numba import cfunc, njit

from linclass.linear.penalties.elastic_net import ElasticNet, abs_change
from linclass.linear.penalties.kernel import PROX, VALUE, typed, PenaltyKernel

__all__ = ["FoldedConcave"]

_P = 5  # numbers per piece in a kernel's params: x0, x1, c0, c1, c2


@njit(inline="always")
def _piece_min(A, B, x0, x1):
    """The minimiser of :math:`\\frac A2x^2 + Bx` on :math:`[x_0, x_1]` (x1 may be inf; A of any
    sign) and its value; ``x1`` is returned with value -inf when the problem is unbounded."""
    best, value = x0, 0.5 * A * x0 * x0 + B * x0
    if x1 == np.inf:
        if A < 0.0 or (A == 0.0 and B < 0.0):
            return x1, -np.inf
    else:
        v1 = 0.5 * A * x1 * x1 + B * x1
        if v1 < value:
            best, value = x1, v1
    if A > 0.0:
        x = min(max(-B / A, x0), x1)
        v = 0.5 * A * x * x + B * x
        if v < value:
            best, value = x, v
    return best, value


@cfunc(PROX, cache=True)
def _prox(a, u, old, j, pp):
    """Global minimiser of :math:`\\frac a2v^2 - uv + s\\rho(|v|)` over the pieces of column j
    (``pp``: scale s first, then ``x0, x1, c0, c1, c2`` per piece); 0 wins ties (sparsity), and an
    unbounded model (no curvature beyond the last knot) leaves the coordinate at ``old``."""
    s = pp[0, j]
    n_pieces = (pp.shape[0] - 1) // _P
    best_v, best = 0.0, 0.0
    for sign in (1.0, -1.0):
        for k in range(n_pieces):
            r = 1 + _P * k
            x0, x1, c0, c1, c2 = pp[r, j], pp[r + 1, j], pp[r + 2, j], pp[r + 3, j], pp[r + 4, j]
            x, v = _piece_min(a + s * c2, s * c1 - sign * u, x0, x1)
            if v == -np.inf:
                return old
            v += s * c0
            if v < best:
                best, best_v = v, sign * x
    return best_v


_prox = typed(_prox, PROX)


@cfunc(VALUE, cache=True)
def _value(v, j, pp):
    s = pp[0, j]
    x = abs(v)
    n_pieces = (pp.shape[0] - 1) // _P
    for k in range(n_pieces):
        r = 1 + _P * k
        if x <= pp[r + 1, j] or k == n_pieces - 1:
            return s * (pp[r + 2, j] + x * (pp[r + 3, j] + 0.5 * pp[r + 4, j] * x))
    return 0.0


_value = typed(_value, VALUE)


class FoldedConcave(ElasticNet):
    """A folded concave penalty :math:`N\\rho(|w_j|; \\lambda f_j, \\gamma)` (module docstring).

    A subclass names itself and gives :meth:`pieces`, ``gamma``'s default and its least value;
    everything else is here.  It inherits the elastic net's place in the fit (a non-smooth
    penalty that proximal Newton minimises, solver 'cd') as the lasso at the same C, whose L1 weight
    :math:`1/C` it shares at zero.

    Parameters
    ----------
    C : float
        Inverse strength: :math:`\\lambda = 1/(CN)`.
    gamma : float or None
        The concavity parameter (None: the subclass's default).
    """

    name = None           # the penalty's name in LogisticRegression(penalty=...)
    default_gamma = None  # gamma's default (ncvreg's)
    least_gamma = 1.0     # gamma must exceed this
    convex = False        # no duality gap certifies its fits; two KKT points that agree do

    def __init__(self, C: float, gamma: float | None = None):
        gamma = self.default_gamma if gamma is None else gamma
        try:
            gamma = float(gamma)
        except (TypeError, ValueError):
            raise ValueError(f"gamma must be a number > {self.least_gamma:g}; got {gamma!r}.") from None
        if not gamma > self.least_gamma:
            raise ValueError(f"penalty={self.name!r} needs gamma > {self.least_gamma:g} (the "
                             f"penalty's concavity; the lasso is gamma -> inf); got {gamma!r}.")
        super().__init__(C, 1.0)
        if math.isinf(self.C):
            raise ValueError(f"penalty={self.name!r} needs a finite C.")
        self.gamma = gamma
        self.total = None  # N, the total sample weight, set by bind()

    # ---- what a subclass states
    def pieces(self, lam: float, gamma: float) -> list[tuple[float, float, float, float, float]]:
        """``(x0, x1, c0, c1, c2)`` per piece of :math:`\\rho` on :math:`[0, \\infty)`, the last
        piece ending at inf; the first must have ``c0 = 0`` and ``c1 = lam``."""
        raise NotImplementedError

    # ---- the fit's protocol
    @property
    def kind(self) -> str:
        return self.name

    @property
    def smooth(self) -> bool:
        return False

    certifiable = False

    def __repr__(self) -> str:
        return f"{type(self).__name__}(C={self.C!r}, gamma={self.gamma!r})"

    def describe(self) -> str:
        """The penalty in words (the summary's title)."""
        return f"{type(self).__name__}, C={self.C:g}, gamma={self.gamma:g}"

    def at(self, C: float, l1_ratio: float = 1.0) -> FoldedConcave:
        """The same penalty at another C (a path's step)."""
        other = type(self)(C, self.gamma)
        other.total = self.total
        return other

    def starts(self) -> tuple[ElasticNet, ...]:
        """The convex penalties whose solutions start a fit, beside zero (module docstring): ridge
        at the same C."""
        return (ElasticNet(self.C, 0.0),)

    def check(self, problem) -> None:
        """Two classes (a multinomial fit would couple the classes' non-convex problems)."""
        if problem.n_classes > 2:
            raise ValueError(f"penalty={self.name!r} fits two classes; for {problem.n_classes} use "
                             f"OneVsRestClassifier(LogisticRegression(penalty={self.name!r})).")
        super().check(problem)

    def bind(self, d: int, total: float) -> None:
        """Lay the penalty out for a design of ``d`` columns and total sample weight ``total``."""
        if self.total != total:
            self.total, self._kernel = float(total), None
        self.columns(d)

    # ---- the penalty's numbers
    def _lam(self) -> float:
        if self.total is None:
            raise RuntimeError("a folded concave penalty is bound to its data (bind) before use")
        return 1.0 / (self.C * self.total)

    def _table(self, d: int) -> np.ndarray:
        """The pieces as an array of shape (n_pieces, 5)."""
        return np.array(self.pieces(self._lam(), self.gamma), dtype=np.float64)

    def kernel(self, d: int) -> PenaltyKernel:
        if self._kernel is None or self._kernel.params.shape[1] != d:
            table = self._table(d)
            pp = np.empty((1 + table.size, d))
            pp[0] = self.total
            pp[1:] = table.reshape(-1)[:, None]
            c = self.columns(d)
            self._kernel = PenaltyKernel(_prox, _value, pp, np.zeros(d), c[2], c[3], None)
        return self._kernel

    def _rho(self, x: np.ndarray, derivative: bool = False) -> np.ndarray:
        """:math:`\\rho(x)` (or :math:`\\rho'(x)`) for x >= 0, elementwise."""
        table = self._table(0)
        k = np.searchsorted(table[:, 1], x, side="left").clip(0, len(table) - 1)
        c0, c1, c2 = table[k, 2], table[k, 3], table[k, 4]
        return c1 + c2 * x if derivative else c0 + x * (c1 + 0.5 * c2 * x)

    def column_values(self, v: np.ndarray, cols=None) -> np.ndarray:
        """:math:`N\\rho(|v_j|)` elementwise (every column's penalty is the same: ``cols`` is not
        read)."""
        return self.total * self._rho(np.abs(v))

    def value(self, W: np.ndarray) -> float:
        """:math:`N\\sum_j\\rho(|w_j|)` (intercepts excluded by the caller)."""
        W = np.asarray(W, dtype=np.float64)
        return float(np.sum(self.column_values(W)))

    def change(self, w: np.ndarray, d: np.ndarray, t: float, cols) -> float:
        """:math:`r(w + td) - r(w)`, exact where both points lie on one piece (the difference of the
        quadratic taken in closed form, :func:`abs_change` for :math:`|w + td| - |w|`)."""
        w, step = np.asarray(w, dtype=np.float64), t * np.asarray(d, dtype=np.float64)
        x, x_new = np.abs(w), np.abs(w + step)
        table = self._table(0)
        k = np.searchsorted(table[:, 1], x, side="left").clip(0, len(table) - 1)
        k_new = np.searchsorted(table[:, 1], x_new, side="left").clip(0, len(table) - 1)
        dx = abs_change(w, step)
        same = dx * (table[k, 3] + 0.5 * table[k, 4] * (x + x_new))
        apart = self._rho(x_new) - self._rho(x)
        return float(self.total * np.sum(np.where(k == k_new, same, apart)))

    def slope(self, w: np.ndarray, d: np.ndarray, cols) -> float:
        """The penalty's part of the line search's slope: its change over the whole step,
        :math:`r(w + d) - r(w)` (module docstring)."""
        return self.change(w, d, 1.0, cols)

    def violation(self, W: np.ndarray, G: np.ndarray, cols=None) -> np.ndarray:
        """Elementwise distance of :math:`-G` from :math:`N\\partial\\rho(|w|)`."""
        W, G = np.asarray(W, dtype=np.float64), np.asarray(G, dtype=np.float64)
        s, lam = self.total, self._lam()
        inside = np.abs(G + s * np.sign(W) * self._rho(np.abs(W), derivative=True))
        return np.where(W != 0.0, inside, np.maximum(np.abs(G) - s * lam, 0.0))

    def coordinate(self, a, u):
        raise NotImplementedError("a folded concave penalty is minimised by the compiled loops")

    def prox(self, V, step):
        raise NotImplementedError("a folded concave penalty is minimised by the compiled loops")

    def best_shift(self, W):
        raise NotImplementedError("a folded concave penalty fits two classes")

    def dual_scale(self, U):
        raise NotImplementedError("a folded concave penalty has no duality gap")

    conjugate = dual_scale
