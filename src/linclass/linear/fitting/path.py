"""Regularisation paths: the penalised fit for a decreasing sequence of penalties, each warm-started
from the last, with sequential strong rules.

The path starts where every coefficient vanishes, :math:`C_0 = \\rho / \\max_j|G_j(0)|`
(:meth:`~linclass.linear.penalties.elastic_net.ElasticNet.c_at_null`; for ridge, :math:`\\rho = 10^{-3}` stands in
as in glmnet), and runs up to :math:`C_0 / \\epsilon` on a log scale, :math:`\\epsilon = 10^{-4}` when
there are more samples than features and :math:`10^{-2}` otherwise (glmnet's ``lambda.min.ratio``):
in glmnet's terms, :math:`\\lambda` from :math:`\\lambda_{\\max}` down to :math:`\\epsilon\\lambda_{\\max}`
with :math:`\\lambda = 1/(CN)`.

Sequential strong rule (Tibshirani, Bien, Friedman, Hastie, Simon, Taylor and Tibshirani 2012,
"Strong rules for discarding predictors in lasso-type problems", eq. 6): going from
:math:`\\lambda_1^{(k-1)}` to :math:`\\lambda_1^{(k)}` (here :math:`\\lambda_1 = \\rho/C`), a column whose
loss gradient at the previous solution satisfies

.. math::  |G_j| < 2\\lambda_1^{(k)} - \\lambda_1^{(k-1)}

is likely to stay at zero and is left out of the starting working set; the solver's final check of
every column (the KKT check) brings back any that the rule dropped wrongly, so the path is exact.
The previous solution's full gradient comes from that same check: screening costs nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from linclass.linear.fitting.choice import coordinate_descent
from linclass.linear.solvers.prox_newton import PenalisedResult, WarmState

__all__ = ["c_at_null", "c_grid", "default_ratio", "path_steps"]


def default_ratio(n_samples: int, n_features: int) -> float:
    """glmnet's ``lambda.min.ratio``: :math:`10^{-4}` when n > d, else :math:`10^{-2}`."""
    return 1e-4 if n_samples > n_features else 1e-2


def c_at_null(objective) -> float:
    """The largest C at which every penalised coefficient of ``objective``'s penalty is zero
    (:meth:`~linclass.linear.penalties.elastic_net.ElasticNet.c_at_null` at the intercept-only
    fit; with unpenalised features (factor 0), at their own fit, which every model on the path
    contains, as glmnet's null model does).  ``objective``: a
    :class:`~linclass.linear.logistic.penalised.PenalisedObjective`."""
    W, b = objective.null_start()
    pen = objective.penalty
    factor = getattr(pen, "factor", None)
    if factor is not None and np.any(np.broadcast_to(factor, (objective.d,)) == 0):
        # a penalty so strong that only the unpenalised columns move
        only = objective.with_penalty(pen.at(1e-9 / max(objective.total, 1.0),
                                             max(pen.l1_ratio, 1e-3)))
        result = coordinate_descent(only, W, b, tol=1e-13, max_iter=500)
        W, b = result.W, result.b
    _, G, _ = objective.gradient(W, b)
    return pen.c_at_null(G)


def c_grid(c_null: float, n_values: int, ratio: float) -> np.ndarray:
    """``n_values`` values of C from ``c_null`` (all coefficients zero) to ``c_null / ratio``,
    evenly spaced on a log scale, increasing (the penalty decreasing)."""
    if not np.isfinite(c_null):
        raise ValueError("No penalty zeroes the coefficients here (every feature's gradient at the "
                         "intercept-only fit is zero): give Cs explicitly.")
    if n_values == 1:
        return np.array([c_null])
    return np.geomspace(c_null, c_null / ratio, int(n_values))


def path_steps(obj, Cs: np.ndarray, l1_ratio: float, *, W0=None, b0=None, tol: float = 1e-6,
               max_iter: int = 100, **solver) -> Iterator[tuple[float, PenalisedResult]]:
    """Fit ``obj`` (a :class:`~linclass.linear.logistic.penalised.PenalisedObjective`; its own penalty,
    with its per-feature factors and bounds, is moved to each C: ``obj.penalty.at(C, l1_ratio)``) at
    each C of ``Cs`` in increasing order, warm-started and screened (the penalty's own strong rule:
    per unit of each feature's factor, by groups for the grouped penalty); yields ``(C, result)``
    one step at a time (a cross-validation scores each step and keeps nothing).

    ``W0, b0``: the start (internal layout); default the intercept-only fit.  Further keyword
    arguments go to :func:`~linclass.linear.fitting.choice.coordinate_descent`.
    """
    Cs = np.asarray(Cs, dtype=np.float64)
    if np.any(np.diff(Cs) < 0):
        raise ValueError("path_steps needs Cs in increasing order (penalties decreasing).")
    if W0 is None:
        W, b = obj.null_start()
    else:
        W, b = np.array(W0, dtype=np.float64), np.array(b0, dtype=np.float64)
    template = obj.penalty
    _, G, _ = obj.with_penalty(template.at(Cs[0], l1_ratio)).gradient(W, b)
    l1_old = None
    warm = WarmState()  # each step starts where the previous ended: its scores, products and
    # model Hessian may serve
    for C in Cs:
        penalty = template.at(C, l1_ratio)
        step = obj.with_penalty(penalty)
        if l1_old is None:  # the first step: screen against the penalty that zeroes everything
            l1_old = max(penalty.null_l1(G), penalty.l1)
        strong = penalty.strong_set(G, penalty.l1, l1_old)
        if strong is not None and obj.binary:
            strong = strong[0]
        result = coordinate_descent(step, W, b, tol=tol, max_iter=max_iter, working_set=strong,
                                    warm=warm, **solver)
        W, b, G = result.W, result.b, result.gradient
        l1_old = penalty.l1
        yield float(C), result
