"""Penalties on the coefficients of a linear model: their value, their coordinate update (the proximal
step on one coefficient) and their optimality (subgradient) check.

One family covers every penalty :class:`~linclass.LogisticRegression` offers, the elastic net on
scikit-learn's scale,

.. math::

    r(W) = \\frac1C\\Big(\\rho\\lVert W\\rVert_1 + \\frac{1-\\rho}{2}\\lVert W\\rVert_F^2\\Big)
         = \\lambda_1\\lVert W\\rVert_1 + \\frac{\\lambda_2}{2}\\lVert W\\rVert_F^2,
    \\qquad \\lambda_1 = \\rho / C, \\quad \\lambda_2 = (1-\\rho)/C,

added to the *sum* of the (weighted) log-losses; ``penalty='l1'`` is :math:`\\rho = 1`, ``'l2'`` is
:math:`\\rho = 0`, ``None`` (or ``C = inf``) is :math:`\\lambda_1 = \\lambda_2 = 0`.  The intercepts are
never penalised.  glmnet writes the same objective per unit weight,
:math:`\\frac1N\\sum_i w_i\\ell_i + \\lambda(\\alpha\\lVert W\\rVert_1 + \\frac{1-\\alpha}2\\lVert
W\\rVert^2)`, so :math:`\\alpha = \\rho` and :math:`\\lambda = 1/(CN)` (Friedman, Hastie and Tibshirani
2010, eq. 1).

The pieces a solver needs
-------------------------
value
    :math:`r(W)`.
coordinate update
    The minimiser over :math:`v` of :math:`\\frac a2 v^2 - u v + \\lambda_1|v| + \\frac{\\lambda_2}2v^2`,

    .. math::  v^\\star = \\frac{\\operatorname{sign}(u)\\max(|u| - \\lambda_1, 0)}{a + \\lambda_2},

    which is one coordinate step of coordinate descent on a quadratic model with curvature :math:`a`
    (Friedman et al. 2010, eq. 5) and, for :math:`a = 1/t`, the proximal step of length :math:`t`
    (:meth:`ElasticNet.prox`).  The compiled loops of :mod:`linclass.linear.compiled` take it as
    the penalty's kernel (:meth:`ElasticNet.kernel`, :mod:`linclass.linear.penalties.kernel`), one
    compiled copy of this update (:mod:`linclass.linear.penalties.elastic_net_kernel`).
optimality
    :math:`0 \\in \\nabla_W f + \\partial r(W)`; its violation for each coefficient is
    :math:`|G_j + \\lambda_1\\operatorname{sign}(w_j) + \\lambda_2 w_j|` where :math:`w_j \\ne 0` and
    :math:`\\max(|G_j| - \\lambda_1, 0)` where :math:`w_j = 0` (:meth:`ElasticNet.violation`), with
    :math:`G = \\nabla_W f` the gradient of the summed loss.  Every penalised fit reports the largest
    violation, so it says how far from the optimum it stopped.
the largest useful penalty
    All coefficients vanish exactly when :math:`\\max_j |G_j(0)| \\le \\lambda_1`, the gradient taken at
    the intercept-only fit: :math:`C \\le \\rho / \\max_j|G_j(0)|` (:meth:`ElasticNet.c_at_null`), where
    a regularisation path starts.
"""

from __future__ import annotations

import math

import numpy as np

from linclass.linear.penalties.conjugate import conjugate, dual_scale, soft_threshold
from linclass.linear.penalties.kernel import PenaltyKernel
from linclass.linear.penalties.softmax_shift import best_shift

__all__ = ["ElasticNet", "SMOOTH_SOLVERS", "abs_change", "soft_threshold"]

#: the solvers of smooth objectives (:mod:`linclass.linear.solvers`); 'cd' is proximal Newton
SMOOTH_SOLVERS = ("newton", "bohning", "lbfgs", "sgd")


def abs_change(w: np.ndarray, d: np.ndarray) -> np.ndarray:
    """:math:`|w + d| - |w|` elementwise, exact where no sign changes (:math:`\\operatorname{sign}(w)d`:
    the plain difference loses the step's digits to :math:`|w|` near the optimum)."""
    w, d = np.asarray(w, dtype=np.float64), np.asarray(d, dtype=np.float64)
    u = w + d
    same = (w != 0) & (np.sign(u) == np.sign(w))
    return np.where(same, np.sign(w) * d, np.abs(u) - np.abs(w))


class ElasticNet:
    """The elastic-net penalty :math:`\\lambda_1\\lVert W\\rVert_1 + \\frac{\\lambda_2}2\\lVert
    W\\rVert_F^2` with :math:`\\lambda_1 = \\rho/C`, :math:`\\lambda_2 = (1-\\rho)/C`.

    Parameters
    ----------
    C : float
        Inverse strength, in (0, inf]; ``inf`` is no penalty.
    l1_ratio : float
        :math:`\\rho \\in [0, 1]`: 1 is the lasso (L1), 0 ridge (L2).
    """

    grouped = False  # one group norm per feature across the classes: penalties.grouped

    def __init__(self, C: float, l1_ratio: float, *, factor=None, lower=None, upper=None):
        C, rho = float(C), float(l1_ratio)
        if not C > 0:
            raise ValueError(f"C must be positive; got {C!r}.")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"l1_ratio must be in [0, 1]; got {l1_ratio!r}.")
        self.C, self.l1_ratio = C, rho
        self.l1 = 0.0 if math.isinf(C) else rho / C
        self.l2 = 0.0 if math.isinf(C) else (1.0 - rho) / C
        self.factor = None if factor is None else np.asarray(factor, dtype=np.float64)
        self.lower = None if lower is None else np.asarray(lower, dtype=np.float64)
        self.upper = None if upper is None else np.asarray(upper, dtype=np.float64)
        self._columns = None
        self._kernel = None

    @property
    def bounded(self) -> bool:
        """Whether the coefficients are confined to a box (``lower`` / ``upper``)."""
        return self.lower is not None or self.upper is not None

    @property
    def per_feature(self) -> bool:
        """Whether any column has its own penalty or bounds (then only 'cd' fits it)."""
        return self.factor is not None or self.bounded

    def columns(self, d: int) -> np.ndarray:
        """The penalty of each of ``d`` columns, shape (4, d): :math:`\\lambda_1f_j`,
        :math:`\\lambda_2f_j`, the lower and the upper bound (what the compiled loops read)."""
        if self._columns is None or self._columns.shape[1] != d:
            out = np.empty((4, d))
            f = 1.0 if self.factor is None else self.factor
            out[0], out[1] = self.l1 * f, self.l2 * f
            out[2] = -np.inf if self.lower is None else self.lower
            out[3] = np.inf if self.upper is None else self.upper
            self._columns = out
        return self._columns

    def kernel(self, d: int) -> PenaltyKernel:
        """The penalty of ``d`` columns as the compiled loops take it: :meth:`columns`, whose
        update (:mod:`~linclass.linear.penalties.elastic_net_kernel`) the loops inline."""
        if self._kernel is None or self._kernel.params.shape[1] != d:
            c = self.columns(d)  # prox / value None: the loops inline the elastic net's update
            self._kernel = PenaltyKernel(None, None, c, c[1], c[2], c[3],
                                         None if self.bounded else (c[0], c[1]))
        return self._kernel

    def column_values(self, v: np.ndarray, cols) -> np.ndarray:
        """:math:`\\lambda_1f_j|v_j| + \\frac{\\lambda_2f_j}2v_j^2` at the columns ``cols``."""
        c = self._layout()
        return c[0, cols] * np.abs(v) + 0.5 * c[1, cols] * v * v

    def _weights(self, d: int | None = None, cols=None):
        """``(l1, l2)`` per column (scalars when every column has the same): of ``d`` columns, or
        at the columns ``cols`` of the layout :meth:`columns` made."""
        if self.factor is None:
            return self.l1, self.l2
        c = self.columns(d) if cols is None else self._layout()
        return (c[0], c[1]) if cols is None else (c[0, cols], c[1, cols])

    def _layout(self) -> np.ndarray:
        if self._columns is None:
            raise RuntimeError("the penalty's columns(d) must be laid out before per-column use")
        return self._columns

    def clip(self, W: np.ndarray) -> np.ndarray:
        """W projected onto the box (a copy; W itself without bounds)."""
        if not self.bounded:
            return W
        c = self.columns(np.shape(W)[-1])
        return np.clip(W, c[2], c[3])

    def __repr__(self) -> str:
        extra = "".join(f", {k}=..." for k in ("factor", "lower", "upper")
                        if getattr(self, k) is not None)
        return f"ElasticNet(C={self.C!r}, l1_ratio={self.l1_ratio!r}{extra})"

    @property
    def kind(self) -> str | None:
        """'l1', 'l2', 'elasticnet' or None (no penalty)."""
        if self.l1 == 0.0 and self.l2 == 0.0:
            return None
        if self.l1 == 0.0:
            return "l2"
        return "l1" if self.l2 == 0.0 else "elasticnet"

    @property
    def sparse(self) -> bool:
        """Whether the penalty sets coefficients exactly to zero (an L1 part)."""
        return self.l1 > 0.0

    # ---- the penalty protocol (linclass.linear.fitting.choice)
    @property
    def name(self) -> str | None:
        return self.kind

    @property
    def smooth(self) -> bool:
        """Whether the smooth solvers minimise it (no L1 part, no per-feature factors or bounds)."""
        return not (self.sparse or self.per_feature)

    @property
    def solvers(self) -> tuple:
        """The linclass solvers that minimise it: 'cd' always, the smooth ones when it is smooth."""
        return ("cd", *SMOOTH_SOLVERS) if self.smooth else ("cd",)

    in_memory = False  # the smooth fits read chunked designs too
    score = "gradient"  # the stationarity condition a smooth fit stops on

    @property
    def certifiable(self) -> bool:
        """Whether a smooth fit is certified by the duality gap of its penalised objective (the L2
        penalty: :meth:`~linclass.linear.logistic.penalised.PenalisedObjective.duality_gap`)."""
        return self.l2 > 0.0

    final_step = True  # a converged smooth fit ends with one exact Newton step

    def check(self, problem) -> None:
        """Every number of classes and design is fitted; per-feature factors and bounds must have
        one entry per feature (or be one number)."""
        d = problem.n_features
        for name, value in (("penalty_factor", self.factor), ("lower_bounds", self.lower),
                            ("upper_bounds", self.upper)):
            if value is not None and value.ndim and value.shape != (d,):
                raise ValueError(f"{name} has {value.size} entries; X has {d} features (give one "
                                 f"number, or one per feature).")
        self.columns(d)

    def scalars(self) -> tuple[float, float]:
        """:math:`(\\lambda_1, \\lambda_2)` before the per-feature factors."""
        return self.l1, self.l2

    def value(self, W: np.ndarray) -> float:
        """:math:`r(W) = \\sum_j f_j(\\lambda_1\\sum_k|W_{kj}| + \\frac{\\lambda_2}2\\sum_kW_{kj}^2)`
        over every column (intercepts excluded by the caller)."""
        W = np.asarray(W, dtype=np.float64)
        if self.factor is None:
            out = self.l1 * float(np.abs(W).sum()) if self.l1 else 0.0
            return out + (0.5 * self.l2 * float(np.vdot(W, W)) if self.l2 else 0.0)
        l1, l2 = self._weights(W.shape[-1])
        return float(np.sum(np.abs(W) @ l1) + 0.5 * np.sum((W * W) @ l2))

    def change(self, w: np.ndarray, d: np.ndarray, t: float, cols) -> float:
        """:math:`r(w + td) - r(w)` on the columns ``cols`` (w and d of shape (..., len(cols))),
        exact where no sign changes (:func:`abs_change`)."""
        l1, l2 = self._weights(cols=cols)
        out = float(np.sum(l1 * abs_change(w, t * d))) if self.l1 else 0.0
        if self.l2:
            out += float(np.sum(l2 * (t * w * d + 0.5 * t * t * d * d)))
        return out

    def slope(self, w: np.ndarray, d: np.ndarray, cols) -> float:
        """The penalty's part of the directional derivative of a proximal step :math:`d` at w:
        :math:`\\sum_j \\lambda_{2j}w_jd_j + \\lambda_{1j}(|w_j + d_j| - |w_j|)` (the L2 part as
        smooth, the L1 part as in the model; Tseng and Yun 2009), on the columns ``cols``."""
        l1, l2 = self._weights(cols=cols)
        out = float(np.sum(l2 * w * d)) if self.l2 else 0.0
        return out + (float(np.sum(l1 * abs_change(w, d))) if self.l1 else 0.0)

    def coordinate(self, a, u):
        """:math:`\\arg\\min_v \\frac a2 v^2 - uv + \\lambda_1|v| + \\frac{\\lambda_2}2 v^2` (elementwise,
        over the columns of the last axis; within the bounds)."""
        u = np.asarray(u, dtype=np.float64)
        l1, l2 = self._weights(u.shape[-1])
        return self.clip(soft_threshold(u, l1) / (np.asarray(a) + l2))

    def prox(self, V: np.ndarray, step: float) -> np.ndarray:
        """:math:`\\operatorname{prox}_{t r}(V) = \\arg\\min_W \\frac1{2t}\\lVert W - V\\rVert^2 + r(W)`."""
        return self.coordinate(1.0 / step, np.asarray(V, dtype=np.float64) / step)

    def violation(self, W: np.ndarray, G: np.ndarray, cols=None) -> np.ndarray:
        """Elementwise distance of :math:`-G` from the subdifferential :math:`\\partial r(W)`.

        Parameters
        ----------
        W : ndarray
            Coefficients (no intercepts).
        G : ndarray, same shape
            Gradient of the summed loss at W (no penalty term).
        cols : ndarray of int or None
            The columns W holds (its last axis), None for every column.

        Returns
        -------
        ndarray, same shape: zero exactly where the optimality condition holds.
        """
        W = np.asarray(W, dtype=np.float64)
        l1, l2 = self._weights(W.shape[-1] if cols is None else None, cols)
        G = np.asarray(G, dtype=np.float64) + l2 * W
        out = np.where(W != 0.0, np.abs(G + l1 * np.sign(W)), np.maximum(np.abs(G) - l1, 0.0))
        if not self.bounded:
            return out
        # at a bound the normal cone of the box takes the part of -G pointing out of it
        c = self.columns(W.shape[-1]) if cols is None else self._layout()
        lo, hi = (c[2], c[3]) if cols is None else (c[2, cols], c[3, cols])
        at_lo, at_hi = (W <= lo) & (lo < hi), (W >= hi) & (lo < hi)
        up = G + l1 * np.where(W >= 0.0, 1.0, -1.0)     # the largest derivative moving up
        down = G + l1 * np.where(W <= 0.0, -1.0, 1.0)   # the smallest derivative moving down
        out = np.where(at_lo, np.maximum(-up, 0.0), out)
        out = np.where(at_hi, np.maximum(down, 0.0), out)
        return np.where(lo == hi, 0.0, out)

    def best_shift(self, W: np.ndarray) -> np.ndarray:
        """For each column of W (K x d, one row per class), the shift :math:`c_j` minimising
        :math:`\\sum_k r(W_{kj} - c_j)` within the bounds
        (:func:`linclass.linear.penalties.softmax_shift.best_shift`)."""
        W = np.asarray(W, dtype=np.float64)
        d = W.shape[1]
        l1, l2 = self._weights(d)
        if not (self.factor is not None or self.bounded):
            return best_shift(W, l1, l2)
        c = self.columns(d)
        return best_shift(W, c[0], c[1], c[2] if self.bounded else None,
                          c[3] if self.bounded else None)

    def dual_scale(self, U: np.ndarray) -> float:
        """The largest :math:`\\alpha \\in [0, 1]` with :math:`h^*(\\alpha U)` finite, U of shape
        (d, m) (:func:`linclass.linear.penalties.conjugate.dual_scale`)."""
        U = np.asarray(U, dtype=np.float64)
        return 1.0 if U.size == 0 else dual_scale(U, self.columns(U.shape[0]))

    def conjugate(self, U: np.ndarray) -> float:
        """:math:`h^*(U)`, the Fenchel conjugate of the penalty with its box, U of shape (d, m)
        (:func:`linclass.linear.penalties.conjugate.conjugate`)."""
        U = np.asarray(U, dtype=np.float64)
        return 0.0 if U.size == 0 else conjugate(U, self.columns(U.shape[0]))

    def at(self, C: float, l1_ratio: float) -> ElasticNet:
        """The same penalty (factors, bounds) at another C and mixing: a path's step."""
        return ElasticNet(C, l1_ratio, factor=self.factor, lower=self.lower, upper=self.upper)

    def null_l1(self, G: np.ndarray) -> float:
        """The smallest :math:`\\lambda_1` at which zero is optimal for every column given the loss
        gradient G (m, d) there: :math:`\\max_j |G_j|/f_j` over the penalised columns, counting only
        the directions the bounds leave open (a column that cannot leave zero never enters)."""
        G = np.asarray(G, dtype=np.float64)
        if G.size == 0:
            return 0.0
        if self.bounded:
            c = self.columns(G.shape[-1])
            G = np.maximum(np.where(c[3] > 0, np.maximum(-G, 0.0), 0.0),
                           np.where(c[2] < 0, np.maximum(G, 0.0), 0.0))
        else:
            G = np.abs(G)
        return self._per_factor(G)

    def _per_factor(self, G: np.ndarray) -> float:
        """:math:`\\max_j G_j/f_j` over the columns with :math:`f_j > 0` (G non-negative)."""
        if self.factor is not None:
            f = np.broadcast_to(self.factor, G.shape[-1:])
            G = np.where(f > 0, G / np.where(f > 0, f, 1.0), 0.0)
        return float(np.max(G)) if G.size else 0.0

    def strong_set(self, G: np.ndarray, l1_new: float, l1_old: float):
        """The sequential strong rule's columns (Tibshirani et al. 2012), one array per row of G:
        those with :math:`|G_j| \\ge f_j(2\\lambda_1^{new} - \\lambda_1^{old})`; None keeps every
        column."""
        threshold = 2.0 * l1_new - l1_old
        if threshold <= 0.0:
            return None
        f = 1.0 if self.factor is None else np.broadcast_to(self.factor, G.shape[-1:])
        return [np.flatnonzero(np.abs(row) >= threshold * f) for row in G]

    def c_at_null(self, G0: np.ndarray) -> float:
        """The largest C at which every coefficient is zero, :math:`\\rho / \\max_j |G_j(0)|`, with
        :math:`G(0)` the summed-loss gradient at the intercept-only fit.

        For :math:`\\rho = 0` no finite penalty zeroes the coefficients; as glmnet does, the value for
        :math:`\\rho = 10^{-3}` is returned (where a ridge path starts).  ``inf`` when
        :math:`G(0) = 0` (no feature carries any signal).
        """
        top = self.null_l1(G0)  # per unit of each column's factor, in the bounds' open directions
        rho = max(self.l1_ratio, 1e-3)
        return math.inf if top == 0.0 else rho / top
