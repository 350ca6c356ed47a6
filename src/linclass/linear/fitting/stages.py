"""The stages of a fit that depend on its penalty: the objective it is minimised through, where a
smooth fit starts, the estimator's coefficients at the solution and what is recorded at the end.

A penalty is a leaf (:mod:`linclass.linear.penalties`): it knows its value, its proximal and
coordinate updates and its optimality conditions, and nothing of designs, objectives or
inference.  The fit builds the rest here, the same way for every separable penalty: proximal
Newton's :class:`~linclass.linear.logistic.penalised.PenalisedObjective`, or the smooth objective
with the penalty's L2 part (:class:`~linclass.linear.logistic.objective.LinearObjective` in memory,
:class:`~linclass.linear.logistic.chunked.ChunkedObjective` on a chunk source).  A fit that
modifies the likelihood itself (Firth's, :mod:`linclass.linear.firth`; liblinear's penalised
intercept, :mod:`linclass.linear.fitting.liblinear`) brings its own stages as methods of the same
names, and they are used instead.
"""

from __future__ import annotations

from linclass.linear.inference.wald import logistic_inference
from linclass.linear.logistic.chunked import ChunkedObjective
from linclass.linear.logistic.objective import LinearObjective
from linclass.linear.logistic.separation import check_separation
from linclass.linear.logistic.start import gaussian_start

__all__ = ["coefficients_of", "finish_of", "objective_of", "start_of"]


def objective_of(penalty, problem, *, proximal: bool):
    """The objective to minimise over ``problem``'s design
    (:class:`~linclass.linear.fitting.problem.LogisticProblem`): proximal Newton's penalised
    objective, or the smooth one with the penalty's L2 part."""
    own = getattr(penalty, "objective", None)
    if own is not None:
        return own(problem, proximal=proximal)
    if proximal:
        from linclass.linear.logistic.penalised import PenalisedObjective  # numba on first use

        return PenalisedObjective(problem.X, problem.y, problem.n_classes, problem.weight, penalty,
                                  fit_intercept=problem.fit_intercept, score_offset=problem.offset)
    if problem.source is not None:
        return ChunkedObjective(problem.source, class_weight=problem.class_weight, l2=penalty.l2,
                                fit_intercept=problem.fit_intercept)
    return LinearObjective(problem.X, problem.y, problem.n_classes, problem.weight, l2=penalty.l2,
                           fit_intercept=problem.fit_intercept, score_offset=problem.offset,
                           column_sums=problem.column_sums)


def start_of(penalty, objective, warm, max_iter: int):
    """The objective's parameters where a smooth fit starts: the warm start ``(coef, intercept)``
    when there is one, the intercept-only fit for ``max_iter=0`` (scikit-learn's starting point),
    else the shared-covariance Gaussian model
    (:func:`~linclass.linear.logistic.start.gaussian_start`)."""
    own = getattr(penalty, "start", None)
    if own is not None:
        return own(objective, warm, max_iter)
    if warm is not None:
        return objective.from_coefficients(*warm)
    return objective.null_start() if max_iter == 0 else gaussian_start(objective)


def coefficients_of(penalty, objective, theta):
    """``(coef, intercept)`` of the estimator at the objective's parameters ``theta``."""
    own = getattr(penalty, "coefficients", None)
    return own(objective, theta) if own is not None else objective.coefficients(theta)


def finish_of(penalty, objective, result, problem, hessian=None):
    """``(separation, record, log_likelihood)`` at the end of a smooth fit: an unpenalised fit's
    separation check (:func:`~linclass.linear.logistic.separation.check_separation`, which warns),
    and the Wald record (:func:`~linclass.linear.inference.wald.logistic_inference`)."""
    own = getattr(penalty, "finish", None)
    if own is not None:
        return own(objective, result, problem, hessian)
    separation = None
    if penalty.l2 == 0.0:
        X, y = (None, None) if problem.source is not None else (problem.X, problem.y)
        separation = check_separation(objective, result.theta, X, y, problem.weight,
                                      converged=result.converged)
    record = logistic_inference(objective, result, separation=separation, hessian=hessian)
    return separation, record, record.log_likelihood
