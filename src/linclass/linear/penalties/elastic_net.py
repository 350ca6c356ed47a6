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
    (:meth:`ElasticNet.prox`).  The compiled loops of :mod:`linclass.linear.compiled` take the two
    scalars :meth:`ElasticNet.scalars` returns and call one compiled copy of this update,
    :func:`linclass.linear.compiled.descent.coordinate_update`.
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

from linclass.linear.inference.wald import logistic_inference
from linclass.linear.logistic.chunked import ChunkedObjective
from linclass.linear.logistic.objective import LinearObjective
from linclass.linear.logistic.separation import check_separation
from linclass.linear.logistic.start import gaussian_start

__all__ = ["ElasticNet", "SMOOTH_SOLVERS", "soft_threshold"]

#: the solvers of smooth objectives (:mod:`linclass.linear.solvers`); 'cd' is proximal Newton
SMOOTH_SOLVERS = ("newton", "bohning", "lbfgs", "sgd")


def soft_threshold(u: np.ndarray, threshold: float) -> np.ndarray:
    """:math:`\\operatorname{sign}(u)\\max(|u| - t, 0)`, elementwise."""
    return np.sign(u) * np.maximum(np.abs(u) - threshold, 0.0)


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

    def __init__(self, C: float, l1_ratio: float):
        C, rho = float(C), float(l1_ratio)
        if not C > 0:
            raise ValueError(f"C must be positive; got {C!r}.")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"l1_ratio must be in [0, 1]; got {l1_ratio!r}.")
        self.C, self.l1_ratio = C, rho
        self.l1 = 0.0 if math.isinf(C) else rho / C
        self.l2 = 0.0 if math.isinf(C) else (1.0 - rho) / C

    def __repr__(self) -> str:
        return f"ElasticNet(C={self.C!r}, l1_ratio={self.l1_ratio!r})"

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

    # ---- the penalty protocol (linclass.linear.penalties.table)
    @property
    def name(self) -> str | None:
        return self.kind

    @property
    def smooth(self) -> bool:
        """Whether the smooth solvers minimise it (no L1 part)."""
        return not self.sparse

    @property
    def solvers(self) -> tuple:
        """The linclass solvers that minimise it: 'cd' always, the smooth ones without an L1 part."""
        return ("cd",) if self.sparse else ("cd", *SMOOTH_SOLVERS)

    in_memory = False  # the smooth fits read chunked designs too
    score = "gradient"  # the stationarity condition a smooth fit stops on

    @property
    def certifiable(self) -> bool:
        """Whether a smooth fit is certified by the duality gap of its penalised objective (the L2
        penalty: :meth:`~linclass.linear.penalties.penalised.PenalisedObjective.duality_gap`)."""
        return self.l2 > 0.0

    def objective(self, problem, *, proximal: bool):
        """The objective to minimise over ``problem``'s design
        (:class:`~linclass.linear.fitting.fit.LogisticProblem`): the
        :class:`~linclass.linear.penalties.penalised.PenalisedObjective` of proximal Newton, or
        the smooth :class:`~linclass.linear.logistic.objective.LinearObjective` (in memory) or
        :class:`~linclass.linear.logistic.chunked.ChunkedObjective` (a chunk source) with this
        penalty's L2 part."""
        if proximal:
            from linclass.linear.penalties.penalised import PenalisedObjective  # numba on first use

            return PenalisedObjective(problem.X, problem.y, problem.n_classes, problem.weight, self,
                                      fit_intercept=problem.fit_intercept)
        if problem.source is not None:
            return ChunkedObjective(problem.source, class_weight=problem.class_weight, l2=self.l2,
                                    fit_intercept=problem.fit_intercept)
        return LinearObjective(problem.X, problem.y, problem.n_classes, problem.weight, l2=self.l2,
                               fit_intercept=problem.fit_intercept)

    def coefficients(self, objective, theta):
        """``(coef, intercept)`` of the estimator at the objective's parameters ``theta``."""
        return objective.coefficients(theta)

    final_step = True  # a converged smooth fit ends with one exact Newton step

    def start(self, objective, warm, max_iter: int):
        """The objective's parameters where a smooth fit starts: the warm start ``(coef,
        intercept)`` when there is one, the intercept-only fit for ``max_iter=0`` (scikit-learn's
        starting point), else the shared-covariance Gaussian model
        (:func:`~linclass.linear.logistic.start.gaussian_start`)."""
        if warm is not None:
            return objective.from_coefficients(*warm)
        return objective.null_start() if max_iter == 0 else gaussian_start(objective)

    def check(self, problem) -> None:
        """Every number of classes and design is fitted."""

    def finish(self, objective, result, problem, hessian=None):
        """``(separation, record, log_likelihood)`` at the end of a smooth fit: an unpenalised fit's
        separation check (:func:`~linclass.linear.logistic.separation.check_separation`, which warns),
        and the Wald record (:func:`~linclass.linear.inference.wald.logistic_inference`)."""
        separation = None
        if self.l2 == 0.0:
            X, y = (None, None) if problem.source is not None else (problem.X, problem.y)
            separation = check_separation(objective, result.theta, X, y, problem.weight,
                                          converged=result.converged)
        record = logistic_inference(objective, result, separation=separation, hessian=hessian)
        return separation, record, record.log_likelihood

    def scalars(self) -> tuple[float, float]:
        """:math:`(\\lambda_1, \\lambda_2)`, what the compiled coordinate updates take."""
        return self.l1, self.l2

    def value(self, W: np.ndarray) -> float:
        """:math:`r(W)` (intercepts excluded by the caller)."""
        W = np.asarray(W, dtype=np.float64)
        out = 0.0
        if self.l1:
            out += self.l1 * float(np.abs(W).sum())
        if self.l2:
            out += 0.5 * self.l2 * float(np.vdot(W, W))
        return out

    def coordinate(self, a, u):
        """:math:`\\arg\\min_v \\frac a2 v^2 - uv + \\lambda_1|v| + \\frac{\\lambda_2}2 v^2` (elementwise)."""
        return soft_threshold(np.asarray(u, dtype=np.float64), self.l1) / (np.asarray(a) + self.l2)

    def prox(self, V: np.ndarray, step: float) -> np.ndarray:
        """:math:`\\operatorname{prox}_{t r}(V) = \\arg\\min_W \\frac1{2t}\\lVert W - V\\rVert^2 + r(W)`."""
        return self.coordinate(1.0 / step, np.asarray(V, dtype=np.float64) / step)

    def violation(self, W: np.ndarray, G: np.ndarray) -> np.ndarray:
        """Elementwise distance of :math:`-G` from the subdifferential :math:`\\partial r(W)`.

        Parameters
        ----------
        W : ndarray
            Coefficients (no intercepts).
        G : ndarray, same shape
            Gradient of the summed loss at W (no penalty term).

        Returns
        -------
        ndarray, same shape: zero exactly where the optimality condition holds.
        """
        W = np.asarray(W, dtype=np.float64)
        G = np.asarray(G, dtype=np.float64) + self.l2 * W
        return np.where(W != 0.0, np.abs(G + self.l1 * np.sign(W)),
                        np.maximum(np.abs(G) - self.l1, 0.0))

    def best_shift(self, W: np.ndarray) -> np.ndarray:
        """For each column of W (K x d, one row per class), the shift :math:`c_j` minimising
        :math:`\\sum_k r(W_{kj} - c_j)`.

        A softmax model's loss does not change when the same number is subtracted from every class's
        coefficient of a feature, so the optimum takes the shift the penalty prefers: the mean for
        L2, a median for L1, between for the elastic net (glmnet's centring of multinomial
        coefficients).  The objective is convex and piecewise quadratic in :math:`c`; its derivative
        :math:`\\lambda_1(\\#\\{W_{kj} < c\\} - \\#\\{W_{kj} > c\\}) + \\lambda_2(Kc - \\sum_kW_{kj})`
        increases, and its root is found among the K + 1 intervals the sorted column defines.  Where
        the minimisers form an interval (L1, even K) its midpoint is returned, so that the shifted
        column has its own interval centred on 0: every optimal column of the same fit then reports
        the same coefficients, whatever point of the interval the solver reached.
        """
        A = np.sort(np.asarray(W, dtype=np.float64), axis=0)
        K, d = A.shape
        if K == 0 or d == 0:
            return np.zeros(d)
        l1, l2 = self.l1, self.l2
        total = A.sum(axis=0)
        ranks = np.arange(K)[:, None]
        # derivative at each sorted value (m smaller, K - 1 - m larger): increasing in m
        phi = l1 * (2 * ranks - (K - 1)) + l2 * (K * A - total)
        m = np.sum(phi < 0, axis=0)  # the root lies in [A[m-1], A[m]]
        lo = np.where(m > 0, A[np.maximum(m - 1, 0), np.arange(d)], -np.inf)
        hi = np.where(m < K, A[np.minimum(m, K - 1), np.arange(d)], np.inf)
        if l2 > 0:
            return np.clip((total - l1 * (2 * m - K) / l2) / K, lo, hi)
        # L1 alone: between lo and hi the derivative is l1 (2m - K); zero (a flat minimum) only for
        # 2m = K, else the root is the jump at hi (the median of an odd K)
        return np.where(2 * m == K, (lo + hi) / 2, hi)

    def c_at_null(self, G0: np.ndarray) -> float:
        """The largest C at which every coefficient is zero, :math:`\\rho / \\max_j |G_j(0)|`, with
        :math:`G(0)` the summed-loss gradient at the intercept-only fit.

        For :math:`\\rho = 0` no finite penalty zeroes the coefficients; as glmnet does, the value for
        :math:`\\rho = 10^{-3}` is returned (where a ridge path starts).  ``inf`` when
        :math:`G(0) = 0` (no feature carries any signal).
        """
        top = float(np.max(np.abs(G0))) if np.size(G0) else 0.0
        rho = max(self.l1_ratio, 1e-3)
        return math.inf if top == 0.0 else rho / top
