"""One logistic fit, from a problem and its options to a :class:`LogisticFit`.

    problem (X, y, weights | a chunk source) + options (penalty, solver, tol, ...)
      -> choose_solver (linclass.linear.fitting.choice)
      -> penalty.objective(problem)          the objective over the design (dense, sparse, chunks)
      -> a solver (linclass.linear.solvers)  smooth: newton / bohning / lbfgs / sgd; proximal: 'cd'
      -> penalty.finish(...)                 separation, the inference record, the log-likelihood
      -> LogisticFit

:class:`~linclass.LogisticRegression` validates its input, calls :func:`fit_logistic` and sets its
attributes from the result once; :func:`path_fits` gives the same :class:`LogisticFit` at every C of
a penalty path (``logistic_path``, ``LogisticRegressionCV``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from linclass.core.chunks import require_two_classes
from linclass.core.dtype_policy import LOW_PRECISION_MIN, is_low
from linclass.core.scatter_float32 import CONDITION_LIMIT, standardized_condition
from linclass.core.finiteness import check_finite, check_magnitude, explain_non_finite
from linclass.exceptions import AliasedColumnsWarning, SingularCovarianceWarning
from linclass.linear.fitting.choice import (
    auto_solver,
    check_chunked,
    check_chunked_width,
    choose_solver,
    continues_with_newton,
    sklearn_name,
)
from linclass.linear.inference.penalised_summary import PenalisedRecord
from linclass.linear.inference.wald import (MAX_PARAMS, SINGULAR, expand_covariance,
                                            inference_hessian)
from linclass.linear.logistic.aliasing import aliased_columns
from linclass.linear.logistic.design import Design
from linclass.linear.penalties.elastic_net import ElasticNet
from linclass.linear.solvers import SOLVERS
from linclass.linear.solvers.final_step import final_newton_step, until_certified

__all__ = ["FitOptions", "LogisticFit", "LogisticProblem", "fit_logistic", "not_converged_message",
           "path_fits", "penalised_fit", "warn_unconverged"]


@dataclass(frozen=True, eq=False)
class LogisticProblem:
    """The rows of a fit: in memory (``X`` dense or sparse, ``y`` as class codes, ``classes``,
    ``weight`` the sample weights times the class weights, ``offset`` the known terms of the
    scores, shape (n, 1) or (n, K): :mod:`linclass.linear.logistic.offsets`) or a chunk source
    (``source``, whose class weights ``class_weight`` are applied in its first pass)."""

    X: Any = None
    y: np.ndarray | None = None
    classes: np.ndarray | None = None
    weight: np.ndarray | None = None
    fit_intercept: bool = True
    source: Any = None
    class_weight: Any = None
    offset: np.ndarray | None = None

    @property
    def n_classes(self) -> int:
        return int(self.classes.size)

    @property
    def n_features(self) -> int:
        return int(self.source.n_features if self.source is not None else self.X.shape[1])

    @property
    def sparse(self) -> bool:
        return self.source is None and hasattr(self.X, "tocsc")


@dataclass(frozen=True, eq=False)
class FitOptions:
    """How to fit: the penalty object (:mod:`linclass.linear.penalties.table`), the solver as the
    user named it, its stopping rule, SGD's settings, a warm start ``(classes, coef, intercept)``,
    scikit-learn's callback task (:mod:`linclass.estimators.fit_callbacks`), and the estimator
    ``owner`` whose name and feature names the messages use."""

    penalty: Any
    solver: str = "auto"
    tol: float = 1e-6
    max_iter: int = 100
    random_state: Any = None
    batch_size: int = 256
    eta0: float = 0.5
    warm: tuple | None = None
    task: Any = None
    owner: Any = None

    @property
    def name(self) -> str:
        return "LogisticRegression" if self.owner is None else type(self.owner).__name__


@dataclass(frozen=True, eq=False)
class LogisticFit:
    """The outcome of a fit: what the estimator's fitted attributes are.

    Attributes
    ----------
    classes : ndarray
    coef, intercept : ndarrays of shape (m, d) and (m,)
    n_iter : int
        Iterations (epochs for 'sgd'; outer proximal Newton iterations for 'cd'; both runs of
        'lbfgs+newton').
    converged : bool
    violation : float
        How far from the optimum it stopped (the number ``tol`` bounds).
    history : ndarray
        The mean objective at the start and after each iteration.
    solver : str
        The linclass solver that ran.
    separation : str or None
    log_likelihood : float
        At the fitted parameters, without the penalty.
    inference : a record of :mod:`linclass.linear.fitting.records`
    stopped : bool
        Whether a callback stopped the fit.
    aliased : ndarray of shape (d,), bool, or None
        The features left out of an unpenalised fit as linear combinations of the ones before them
        (:mod:`linclass.linear.logistic.aliasing`; their coefficients are 0 and their summary rows
        NA); None when none is.
    passes : int or None
        Passes over the data of a fit on a chunk source (the first, for the labels and totals,
        included); None for rows in memory.
    """

    classes: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    n_iter: int
    converged: bool
    violation: float
    history: np.ndarray
    solver: str
    separation: str | None
    log_likelihood: float
    inference: Any
    stopped: bool = False
    aliased: np.ndarray | None = None
    passes: int | None = None


# ------------------------------------------------------------------------------------ the fit
def fit_logistic(problem: LogisticProblem, options: FitOptions) -> LogisticFit:
    """Fit a logistic / softmax model; warns (ConvergenceWarning) when it did not converge.

    An unpenalised fit in memory whose information matrix is singular because some features are
    linear combinations of the ones before them is refitted without them, as R's ``glm`` does
    (:mod:`linclass.linear.logistic.aliasing`)."""
    if not _may_alias(problem, options.penalty):
        return _fit(problem, options)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = _fit(problem, options)
    if getattr(fit.inference, "reason", None) == SINGULAR and fit.separation is None:
        X = problem.X.astype(np.float64) if is_low(problem.X) else problem.X  # a float64 QR
        aliased = aliased_columns(X, problem.weight, problem.fit_intercept)
        if aliased.any() and not aliased.all():
            return _without_aliased(problem, options, aliased, fit)
    for w in caught:  # the fit's own warnings, where the fit raised them
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
    return fit


def _may_alias(problem: LogisticProblem, penalty) -> bool:
    """Whether a singular information matrix means aliased columns to set aside: an unpenalised,
    unbounded fit of rows in memory (a penalty makes the estimate unique)."""
    return (problem.source is None and isinstance(penalty, ElasticNet) and penalty.l1 == 0.0
            and penalty.l2 == 0.0 and not penalty.per_feature and problem.n_features > 1)


def _without_aliased(problem: LogisticProblem, options: FitOptions, aliased: np.ndarray,
                     first: LogisticFit):
    """The fit on the columns that are not aliased, reported on every column: coefficients 0 and
    covariance NaN (R's NA) for the aliased ones; its iterations count those of the ``first`` fit,
    on every column, too."""
    keep = ~aliased
    names = getattr(options.owner, "feature_names_in_", None)
    names = [str(names[j]) if names is not None else f"x{j}" for j in np.flatnonzero(aliased)]
    warnings.warn(f"{options.name}: {', '.join(names)} "
                  f"{'is a linear combination' if len(names) == 1 else 'are linear combinations'} "
                  "of the features before (or of the intercept), so the information matrix is "
                  "singular; fitted without, as R's glm does: coefficient 0 in coef_, NA in "
                  "summary() (aliased_ marks them).", AliasedColumnsWarning
                  if options.solver == "newton-cholesky" else SingularCovarianceWarning,
                  stacklevel=5)
    fit = _fit(replace(problem, X=problem.X[:, keep]), options)
    m, d = fit.coef.shape[0], problem.n_features
    coef = np.zeros((m, d))
    coef[:, keep] = fit.coef
    record = fit.inference
    if getattr(record, "covariance", None) is not None:
        record = replace(record, covariance=expand_covariance(
            record.covariance, keep, max(m - 1, 1), problem.fit_intercept))
    return replace(fit, coef=coef, inference=record, aliased=aliased,
                   n_iter=first.n_iter + fit.n_iter)


def _fit(problem: LogisticProblem, options: FitOptions) -> LogisticFit:
    """:func:`fit_logistic` on these columns as they are."""
    penalty, owner = options.penalty, options.owner
    if problem.source is not None:
        if problem.offset is not None:
            raise ValueError("offset= is taken for rows in memory, not for a chunk source.")
        check_chunked(options.solver, penalty)  # before the first pass
        proximal = penalty.sparse or sklearn_name(options.solver) == "cd"
        if proximal:
            check_chunked_width(penalty, problem.n_features, None)
        objective = penalty.objective(problem, proximal=False)
        require_two_classes(options.name, objective.stats)
        problem = replace(problem, classes=objective.classes)
        solver = choose_solver(options.solver, penalty, n_features=problem.n_features,
                               n_classes=problem.n_classes, sparse=False, max_iter=options.max_iter)
        if solver == "cd":  # proximal Newton, one pass per iteration
            check_chunked_width(penalty, problem.n_features, problem.n_classes)
            return _proximal_chunked(problem, options, objective)
        objective.with_hessian = solver == "newton"
        return replace(_smooth(problem, options, objective, solver), passes=objective.passes)
    penalty.check(problem)
    solver = choose_solver(options.solver, penalty, n_features=problem.n_features,
                           n_classes=problem.n_classes, sparse=problem.sparse,
                           max_iter=options.max_iter)
    if solver == "cd" and problem.fit_intercept and problem.sparse:
        check_finite(problem.X, feature_names=getattr(owner, "feature_names_in_", None))
    problem = _working_precision(problem, penalty, solver)
    with np.errstate(invalid="ignore", over="ignore"):
        objective = penalty.objective(problem, proximal=solver == "cd")
    shift = objective.design.shift if solver == "cd" else objective.offset
    explain_non_finite(owner, problem.X, shift)
    if not is_low(problem.X):  # (float32 values square within float64's range)
        check_magnitude(owner, problem.X)  # the Gram matrix and Hessians square X
    if solver == "cd":
        return _proximal(problem, options, objective)
    return _smooth(problem, options, objective, solver)


def _working_precision(problem: LogisticProblem, penalty, solver: str) -> LogisticProblem:
    """The problem as the fit reads it: a large float32 X (``LOW_PRECISION_MIN`` entries or more)
    is fitted as it is by the smooth solvers on dense rows with the elastic net's L2 part (float32
    products, float64 sums: :mod:`linclass.linear.logistic.objective`, which turns to float64
    products should float32 ones overflow); every other fit of a float32 X reads a float64 copy (a
    small X, whose float64 products cost little, sparse X, coordinate descent, SGD, Firth's and
    liblinear's objectives)."""
    X = problem.X
    if not is_low(X):
        return problem
    if (not problem.sparse and X.size >= LOW_PRECISION_MIN
            and solver in ("auto", "newton", "bohning", "lbfgs")
            and isinstance(penalty, ElasticNet) and not getattr(penalty, "per_feature", False)
            and penalty.l1 == 0.0):
        return problem
    return replace(problem, X=X.astype(np.float64))


def _warm(options: FitOptions, classes, shape) -> tuple | None:
    """The warm start ``(coef, intercept)`` when its classes and shape match the problem's."""
    warm = options.warm
    if warm is not None and np.array_equal(warm[0], classes) and np.shape(warm[1]) == shape:
        return warm[1], warm[2]
    return None


def _smooth(problem, options, objective, solver) -> LogisticFit:
    """A smooth objective by newton / bohning / lbfgs / sgd, certified by the duality gap where the
    penalty has one, and ended by one exact Newton step."""
    penalty, task = options.penalty, options.task
    classes = problem.classes
    if solver == "auto":  # dense X: the solver with the lower predicted cost
        n_rows = objective.X.shape[0] if problem.source is None else int(objective.stats.n_rows.sum())
        solver = auto_solver(objective, n_rows)
    K = classes.size
    theta0 = penalty.start(objective, _warm(options, classes, (1 if K == 2 else K, problem.n_features)),
                           options.max_iter)
    settings = {"tol": options.tol, "max_iter": options.max_iter}
    if solver == "sgd":
        settings.update(random_state=options.random_state, batch_size=options.batch_size,
                        eta0=options.eta0)

    def attributes(theta):  # the fitted attributes at theta (a callback's fitted_estimator)
        coef, intercept = penalty.coefficients(objective, theta)
        return {"classes_": classes, "coef_": coef, "intercept_": intercept}

    stopped = lambda: task is not None and task.stopped  # noqa: E731 (a callback asked to stop)
    observer = (lambda name: None) if task is None else (  # noqa: E731 (each iteration a subtask)
        lambda name: task.observer(f"{name}-iter", attributes))
    if task is not None:
        task.start(f"{solver}-iter", theta0, attributes)
    # every iteration counts against max_iter (twice it for 'lbfgs+newton'), so that the fit with
    # max_iter=i is the i-th iterate of the fit with more (scikit-learn's callback contract)
    budget = options.max_iter
    result = SOLVERS[solver](objective, theta0, **settings, on_iteration=observer(solver))
    certify = _certifiable(problem, penalty, solver, options)
    if certify and result.converged and not stopped():
        result = _certified(problem, penalty, objective, result, options,
                            budget - result.n_iter, observer)
    # an L-BFGS run of 'auto' that did not converge, or met the gradient test on its last allowed
    # iteration with a duality gap still too large, goes on with Newton (and is certified again)
    if continues_with_newton(options.solver, solver, result, objective) and not stopped():
        if hasattr(objective, "with_hessian"):  # a chunked objective forms it only when asked
            objective.with_hessian = True
        budget += options.max_iter
        more = SOLVERS["newton"](objective, result.theta, tol=options.tol, max_iter=options.max_iter,
                                 on_iteration=observer("newton"))
        result = replace(more, n_iter=result.n_iter + more.n_iter,
                         history=np.concatenate([result.history, more.history[1:]]))
        solver = "lbfgs+newton"
        if certify and result.converged and not stopped():
            result = _certified(problem, penalty, objective, result, options,
                                budget - result.n_iter, observer)
    hessian = None  # the exact one inference needs (None above MAX_PARAMS); max_iter=0: the start
    if penalty.final_step and options.max_iter > 0:
        hessian = inference_hessian(objective, result.theta)
        if _refine_exactly(objective, hessian):
            objective.exact_products()  # the last step with float64 products (see there)
        if not stopped() and result.n_iter < budget:  # a stopped fit stays where it was stopped
            stepped = final_newton_step(objective, result, hessian)
            if task is not None and stepped.n_iter > result.n_iter:  # that step is an iteration
                observer("newton")(stepped.theta)
            result = stepped
    if not np.all(np.isfinite(result.theta)):  # cannot happen with finite X; never return NaN
        raise FloatingPointError(
            "The fit produced non-finite coefficients; rescale the features or use a finite C."
        )
    coef, intercept = penalty.coefficients(objective, result.theta)
    with warnings.catch_warnings():
        if stopped():  # stopped by a callback: not a convergence failure
            warnings.simplefilter("ignore", ConvergenceWarning)
        separation, record, log_likelihood = penalty.finish(objective, result, problem, hessian)
        if not result.converged:
            warnings.warn(_smooth_message(options, penalty, solver, result), ConvergenceWarning,
                          stacklevel=4)
    return LogisticFit(
        classes=classes, coef=coef, intercept=intercept, n_iter=int(result.n_iter),
        converged=bool(result.converged), violation=float(result.gradient_norm),
        history=result.history, solver=solver, separation=separation,
        log_likelihood=float(log_likelihood), inference=record, stopped=bool(stopped()),
    )


def _refine_exactly(objective, hessian) -> bool:
    """Whether the last Newton step of a fit in float32 products is taken with float64 products:
    when the Hessian is ill-conditioned enough (standardized, above
    :data:`~linclass.core.scatter_float32.CONDITION_LIMIT`) that the float32 gradient's rounding
    would move the optimum visibly.  One step of this iterative refinement makes it the float64
    optimum."""
    return (hessian is not None and getattr(objective, "products", None) == "float32"
            and standardized_condition(hessian) > CONDITION_LIMIT)


def _smooth_message(options, penalty, solver, result) -> str:
    """The ConvergenceWarning of a smooth fit, in the words of the penalty's stationarity condition
    (``penalty.score``: the gradient, or Firth's modified score)."""
    advice = "" if len(penalty.solvers) == 1 else ", or use solver='newton'"
    if result.gradient_norm <= options.tol:  # the gradient test met, the duality gap not
        return (f"{options.name} (solver={solver!r}, penalty={penalty.name!r}) did not converge in "
                f"max_iter={options.max_iter} iterations: the largest entry of the {penalty.score} "
                f"is {result.gradient_norm:.3g} <= tol={options.tol:g}, but the duality gap is "
                f"still above tol times the objective (not yet at the optimum). Increase "
                f"max_iter{advice}.")
    return (f"{options.name} (solver={solver!r}, penalty={penalty.name!r}) did not converge in "
            f"max_iter={options.max_iter} iterations: the largest entry of the {penalty.score} is "
            f"{result.gradient_norm:.3g} > tol={options.tol:g}. Increase max_iter{advice}.")


def _certifiable(problem, penalty, solver, options) -> bool:
    """Whether the fit's objective has a duality gap to certify it with (``penalty.certifiable``:
    the elastic net's L2 penalty), on rows in memory, after a solver other than SGD."""
    return (problem.source is None and penalty.certifiable and solver != "sgd"
            and options.max_iter > 0)


def _certified(problem, penalty, objective, result, options, budget: int, observer):
    """Continue the fit, for at most ``budget`` iterations (each reported by ``observer(name)``),
    until the duality gap of its penalised objective is at most ``tol`` times the objective
    (:func:`~linclass.linear.solvers.final_step.until_certified`)."""
    if is_low(problem.X):  # the gap's two products with X in float32 too (no float64 copy)
        problem = replace(problem, X=Design(problem.X, center=problem.fit_intercept,
                                            keep_float32=True))
    penalised = penalty.objective(problem, proximal=True)

    def gap_at(theta):
        W, b = penalised.internal(*objective.coefficients(theta))
        F = penalised.value(W, b)
        return penalised.duality_gap(W, b, F), F

    name = "newton" if objective.n_params <= MAX_PARAMS else "lbfgs"
    result, _ = until_certified(objective, result, gap_at, options.tol, SOLVERS[name], budget,
                                on_iteration=observer(name))
    return result


# ------------------------------------------------------------------------- proximal Newton ('cd')
def _proximal_chunked(problem, options, smooth) -> LogisticFit:
    """Proximal Newton on a chunk source (:mod:`linclass.linear.solvers.prox_newton_chunked`),
    from the first pass's ``smooth`` objective; the fit reports its passes over the data."""
    from linclass.linear.penalties.penalised_chunked import ChunkedPenalised
    from linclass.linear.solvers.prox_newton_chunked import prox_newton_chunked

    objective = ChunkedPenalised(smooth, options.penalty)
    fit = _proximal(problem, options, objective, solve=prox_newton_chunked)
    return replace(fit, passes=objective.passes)


def _proximal(problem, options, objective, solve=None) -> LogisticFit:
    """Proximal Newton with coordinate descent on the penalised objective (``solve``: the solver,
    coordinate descent on rows in memory)."""
    if solve is None:
        from linclass.linear.solvers.coordinate_descent import coordinate_descent as solve

    W, b = objective.null_start()
    warm = _warm(options, problem.classes, (W.shape[0], problem.n_features))
    if warm is not None:
        W, b = objective.internal(*warm)
    task, on_iteration = options.task, None
    if task is not None:  # each outer iteration a subtask, its fitted attributes those at (W, b)
        def attributes(state):
            coef, intercept = objective.coefficients(*state)
            return {"classes_": problem.classes, "coef_": coef, "intercept_": intercept}

        task.start("cd-iter", (W, b), attributes)
        on_iteration = task.observer("cd-iter", attributes)
    result = solve(objective, W, b, tol=options.tol, max_iter=options.max_iter,
                   on_iteration=on_iteration)
    fit = penalised_fit(objective, result, objective.penalty, problem.classes)
    if task is not None and task.stopped:  # stopped by a callback: not a convergence failure
        return replace(fit, stopped=True)
    if not fit.converged:
        warnings.warn(not_converged_message(f"{options.name} (solver='cd')", result,
                                            options.max_iter, options.tol),
                      ConvergenceWarning, stacklevel=3)
    return fit


def penalised_fit(objective, result, penalty, classes) -> LogisticFit:
    """The :class:`LogisticFit` of a proximal Newton result on ``objective`` (a
    :class:`~linclass.linear.penalties.penalised.PenalisedObjective`) under ``penalty``."""
    if not (np.all(np.isfinite(result.W)) and np.all(np.isfinite(result.b))):
        raise FloatingPointError(  # cannot happen with finite X; never return NaN
            "The fit produced non-finite coefficients; rescale the features or use a smaller C."
        )
    coef, intercept = objective.coefficients(result.W, result.b)
    log_likelihood = -(result.value - penalty.value(result.W))
    record = PenalisedRecord.of(
        penalty, objective=result.value, log_likelihood=log_likelihood,
        null=objective.null_log_likelihood(),
        n_obs=objective.total, violation=result.violation, converged=result.converged)
    return LogisticFit(
        classes=classes, coef=coef, intercept=intercept, n_iter=int(result.n_iter),
        converged=bool(result.converged), violation=float(result.violation), history=result.history,
        solver="cd", separation=None, log_likelihood=float(log_likelihood), inference=record,
    )


def path_fits(objective, Cs, l1_ratio: float, classes, *, tol: float, max_iter: int):
    """The :class:`LogisticFit` at each C of ``Cs`` (increasing) on ``objective`` (a
    :class:`~linclass.linear.penalties.penalised.PenalisedObjective`), warm-started and screened
    (:func:`linclass.linear.fitting.path.path_steps`); yields ``(C, fit)``."""
    from linclass.linear.fitting.path import path_steps  # numba on first use

    for C, result in path_steps(objective, Cs, l1_ratio, tol=tol, max_iter=max_iter):
        yield C, penalised_fit(objective, result, objective.penalty.at(C, l1_ratio), classes)


def not_converged_message(what: str, result, max_iter: int, tol: float) -> str:
    """What a penalised fit that did not converge says: a stall (no step lowers the objective at
    working precision, so more iterations cannot help) is told apart from running out of
    iterations, and each names what helps."""
    if result.stalled:
        return (f"{what} stopped after {result.n_iter} iterations, short of tol={tol:g}: the largest "
                f"optimality violation is {result.violation:.3g}, and no step lowers the objective "
                f"at working precision from this point, so a larger max_iter will not help. "
                f"Standardise the features (e.g. StandardScaler), use a smaller C (a stronger "
                f"penalty), or accept tol={result.violation:.2g}.")
    return (f"{what} did not converge in max_iter={max_iter} iterations: the largest optimality "
            f"violation is {result.violation:.3g} > tol={tol:g}, and it was still falling. "
            f"Increase max_iter.")


def warn_unconverged(what: str, Cs, converged, violation, n_iter, max_iter: int, tol: float,
                     stacklevel: int = 3) -> None:
    """One :class:`~sklearn.exceptions.ConvergenceWarning` for the fits of a path (or of
    cross-validation's folds) that did not converge, naming their C and what helps; nothing when
    all did."""
    converged = np.asarray(converged, dtype=bool)
    if converged.all():
        return
    Cs = np.broadcast_to(np.asarray(Cs, dtype=float), converged.shape).reshape(-1)
    converged = converged.reshape(-1)
    violation = np.asarray(violation, dtype=float).reshape(-1)
    ran_out = np.asarray(n_iter).reshape(-1) >= max_iter
    bad = ~converged
    names = ", ".join(f"{c:.3g}" for c in np.unique(Cs[bad])[:5]) + (" ..." if bad.sum() > 5 else "")
    advice = ("increase max_iter" if ran_out[bad].all() else
              "standardise the features or use a smaller C; a larger max_iter will not help the "
              "fits that stalled" if not ran_out[bad].any() else
              "increase max_iter (for those that ran out of iterations); standardise the features "
              "for those that stalled")
    warnings.warn(f"{what}: {int(bad.sum())} of {converged.size} fits did not converge to "
                  f"tol={tol:g} (C = {names}; largest optimality violation "
                  f"{violation[bad].max():.3g}): {advice}.", ConvergenceWarning,
                  stacklevel=stacklevel)
