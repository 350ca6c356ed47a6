"""One logistic fit, from a problem and its options to a :class:`LogisticFit`: the records it
passes along, its stages, the smooth fits and the proximal Newton fits (and those along a penalty
path).

    problem (X, y, weights | a chunk source) + options (penalty, solver, tol, ...)
      -> choose_solver (linclass.linear.fitting.choice)
      -> objective_of(penalty, problem)      the objective over the design (dense, sparse, chunks)
      -> a solver (linclass.linear.solvers)  smooth: newton / bohning / lbfgs / sgd; proximal: 'cd'
      -> finish_of(penalty, ...)             separation, the inference record, the log-likelihood
      -> LogisticFit

:class:`~linclass.LogisticRegression` validates its input, calls :func:`fit_logistic` and sets its
attributes from the result once; :func:`path_fits` gives the same :class:`LogisticFit` at every C of
a penalty path (``logistic_path``, ``LogisticRegressionCV``).

The stages that depend on the penalty (:func:`objective_of`, :func:`start_of`,
:func:`coefficients_of`, :func:`finish_of`) are built here the same way for every separable
penalty.  A penalty is a leaf (:mod:`linclass.linear.penalties`): it knows its value, its proximal
and coordinate updates and its optimality conditions, and nothing of designs, objectives or
inference.  Its objective is proximal Newton's
:class:`~linclass.linear.logistic.penalised.PenalisedObjective`, or the smooth objective with the
penalty's L2 part (:class:`~linclass.linear.logistic.objective.LinearObjective` in memory,
:class:`~linclass.linear.logistic.chunked.ChunkedObjective` on a chunk source).  A fit that
modifies the likelihood itself (Firth's, :mod:`linclass.linear.firth`; liblinear's penalised
intercept, :mod:`linclass.linear.fitting.liblinear`) brings its own stages as methods of the same
names, and they are used instead.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from linclass.core.chunks import require_two_classes
from linclass.core.validation import (
    LOW_PRECISION_MIN, check_finite, check_magnitude, explain_non_finite, is_low,
)
from linclass.generative.scatter_float32 import CONDITION_LIMIT, standardized_condition
from linclass.core.threads import blas_threads_for
from linclass.exceptions import AliasedColumnsWarning, SingularCovarianceWarning
from linclass.linear.fitting.choice import (
    auto_solver,
    check_chunked,
    choose_solver,
    continues_with_newton,
    coordinate_descent,
    hand_over,
)
from linclass.linear.fitting.records import PenalisedFacts
from linclass.linear.inference.wald import (MAX_PARAMS, SINGULAR, expand_covariance,
                                            inference_hessian, logistic_inference)
from linclass.linear.logistic.aliasing import aliased_columns
from linclass.linear.logistic.chunked import ChunkedObjective
from linclass.linear.logistic.objective import LinearObjective
from linclass.linear.logistic.separation import check_separation, overlap_proved
from linclass.linear.logistic.start import gaussian_start
from linclass.linear.penalties.elastic_net import ElasticNet
from linclass.linear.solvers import SOLVERS
from linclass.linear.solvers.final_step import final_newton_step, until_certified

__all__ = ["FitOptions", "LogisticFit", "LogisticProblem", "coefficients_of", "finish_of",
           "fit_logistic", "lowest_of_starts", "not_converged_message", "objective_of",
           "path_fits", "penalised_fit", "proximal", "proximal_chunked", "start_of",
           "warm_start", "warn_unconverged"]


# -------------------------------------------------------------------------------- the records
@dataclass(frozen=True, eq=False)
class LogisticProblem:
    """The rows of a fit: in memory (``X`` dense or sparse, ``y`` as class codes, ``classes``,
    ``weight`` the sample weights times the class weights, ``offset`` the known terms of the
    scores, shape (n, 1) or (n, K): :mod:`linclass.linear.logistic.offsets`) or a chunk source
    (``source``, whose class weights ``class_weight`` are applied in its first pass);
    ``column_sums``: X's column sums where a pass over X has formed them already."""

    X: Any = None
    y: np.ndarray | None = None
    classes: np.ndarray | None = None
    weight: np.ndarray | None = None
    fit_intercept: bool = True
    source: Any = None
    class_weight: Any = None
    offset: np.ndarray | None = None
    #: X's column sums, when the magnitude check's pass formed them (the centre reuses them)
    column_sums: np.ndarray | None = None

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
    """How to fit: the penalty object (:mod:`linclass.linear.fitting.choice`), the solver as the
    user named it, its stopping rule, SGD's settings, a warm start ``(classes, coef, intercept)``,
    scikit-learn's callback task (:mod:`linclass.estimators.logistic.callbacks`), and the name and
    feature names the messages use (plain values: no estimator object reaches the fit)."""

    penalty: Any
    solver: str = "auto"
    tol: float = 1e-6
    max_iter: int = 100
    random_state: Any = None
    batch_size: int = 256
    eta0: float = 0.5
    warm: tuple | None = None
    task: Any = None
    name: str = "LogisticRegression"
    feature_names: Any = None


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


def warm_start(options: FitOptions, classes, shape) -> tuple | None:
    """The warm start ``(coef, intercept)`` when its classes and shape match the problem's."""
    warm = options.warm
    if warm is not None and np.array_equal(warm[0], classes) and np.shape(warm[1]) == shape:
        return warm[1], warm[2]
    return None


# ------------------------------------------------------------------------------------ the fit
def fit_logistic(problem: LogisticProblem, options: FitOptions) -> LogisticFit:
    """Fit a logistic / softmax model; warns (ConvergenceWarning) when it did not converge.

    An unpenalised fit in memory whose information matrix is singular because some features are
    linear combinations of the ones before them is refitted without them, as R's ``glm`` does
    (:mod:`linclass.linear.logistic.aliasing`).  BLAS runs one thread on small problems
    (:func:`linclass.core.threads.blas_threads_for`)."""
    with blas_threads_for(problem_work(problem)):
        return _fit_aliased(problem, options)


def problem_work(problem: LogisticProblem) -> float:
    """Multiply-adds of one product of the problem's rows with its coefficients (0: a chunk
    source, whose products run where the chunks are)."""
    if problem.source is not None:
        return float("inf")
    X = problem.X
    m = 1 if problem.n_classes <= 2 else problem.n_classes
    return float(X.nnz if hasattr(X, "nnz") else X.shape[0] * X.shape[1]) * m


def _fit_aliased(problem: LogisticProblem, options: FitOptions) -> LogisticFit:
    """:func:`fit_logistic` with R's aliasing of collinear columns."""
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
    names = options.feature_names
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
    penalty, who, names = options.penalty, options.name, options.feature_names
    if problem.source is not None:
        if problem.offset is not None:
            raise ValueError("offset= is taken for rows in memory, not for a chunk source.")
        check_chunked(options.solver, penalty)  # before the first pass
        objective = objective_of(penalty, problem, proximal=False)
        require_two_classes(options.name, objective.stats)
        problem = replace(problem, classes=objective.classes)
        solver = choose_solver(options.solver, penalty, n_features=problem.n_features,
                               n_classes=problem.n_classes, sparse=False, max_iter=options.max_iter)
        if solver == "cd":  # proximal Newton (OWL-QN when wide), one pass per iteration
            return proximal_chunked(problem, options, objective)
        objective.with_hessian = solver == "newton"
        if hasattr(objective, "settle_below"):  # Firth's lagged scores are read exactly below tol
            objective.settle_below = options.tol
        return replace(_smooth(problem, options, objective, solver), passes=objective.passes)
    penalty.check(problem)
    solver = choose_solver(options.solver, penalty, n_features=problem.n_features,
                           n_classes=problem.n_classes, sparse=problem.sparse,
                           max_iter=options.max_iter)
    if solver == "cd" and problem.fit_intercept and problem.sparse:
        check_finite(problem.X, feature_names=names)
    problem = _working_precision(problem, penalty, solver)
    # the Gram matrix and Hessians square X (float32 values square within float64's range); on
    # dense rows the check's pass also gives the column sums the smooth objective centres with
    checked = solver != "cd" and not problem.sparse and not is_low(problem.X)
    if checked:
        problem = replace(problem, column_sums=check_magnitude(who, problem.X,
                                                               feature_names=names))
    with np.errstate(invalid="ignore", over="ignore"):
        objective = objective_of(penalty, problem, proximal=solver == "cd")
    shift = objective.design.shift if solver == "cd" else objective.offset
    explain_non_finite(who, problem.X, shift, feature_names=names)
    if not is_low(problem.X) and not checked:
        check_magnitude(who, problem.X, feature_names=names)
    if solver == "cd":
        return proximal(problem, options, objective)
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


def _smooth(problem, options, objective, solver) -> LogisticFit:
    """A smooth objective by newton / bohning / lbfgs / sgd, certified by the duality gap where the
    penalty has one, and ended by exact Newton steps (:func:`_final_steps`)."""
    penalty, task = options.penalty, options.task
    classes = problem.classes
    n_rows = objective.X.shape[0] if problem.source is None else int(objective.stats.n_rows.sum())
    if solver == "auto":  # dense X: the solver with the lower predicted cost
        solver = auto_solver(objective, n_rows)
    K = classes.size
    theta0 = start_of(penalty, objective,
                           warm_start(options, classes, (1 if K == 2 else K, problem.n_features)),
                           options.max_iter)
    settings = {"tol": options.tol, "max_iter": options.max_iter}
    if solver == "sgd":
        settings.update(random_state=options.random_state, batch_size=options.batch_size,
                        eta0=options.eta0)
    handing = hand_over(options.solver, solver, objective, n_rows, options.tol)
    if handing is not None:  # 'auto' stops an L-BFGS run that Newton would finish sooner
        settings["hand_over"] = handing

    def attributes(theta):  # the fitted attributes at theta (a callback's fitted_estimator)
        coef, intercept = coefficients_of(penalty, objective, theta)
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
    # an L-BFGS run of 'auto' that did not converge (handed over, or at max_iter), or met the
    # gradient test on its last allowed iteration with a duality gap still too large, goes on with
    # Newton (and is certified again)
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
    explore = getattr(penalty, "explore", None)  # Firth's: the highest of several local maxima
    if explore is not None and problem.source is None and result.converged and not stopped():
        result = explore(problem, objective, result, options)
    if (penalty.final_step and options.max_iter > 0 and solver == "lbfgs" and K > 2
            and problem.source is None and result.converged and not stopped()):
        result = _polished(objective, result, budget - result.n_iter, observer(solver))
    hessian = None  # the exact one inference needs (None above MAX_PARAMS); max_iter=0: the start
    if penalty.final_step and options.max_iter > 0:
        hessian = inference_hessian(objective, result.theta)
        if _refine_exactly(objective, hessian):
            objective.exact_products()  # the last step with float64 products (see there)
        result, hessian = _final_steps(problem, objective, result, hessian, budget, stopped,
                                       None if task is None else observer("newton"))
    if not np.all(np.isfinite(result.theta)):  # cannot happen with finite X; never return NaN
        raise FloatingPointError(
            "The fit produced non-finite coefficients; rescale the features or use a finite C."
        )
    coef, intercept = coefficients_of(penalty, objective, result.theta)
    with warnings.catch_warnings():
        if stopped():  # stopped by a callback: not a convergence failure
            warnings.simplefilter("ignore", ConvergenceWarning)
        separation, record, log_likelihood = finish_of(penalty, objective, result, problem, hessian)
        if not result.converged:
            warnings.warn(_smooth_message(options, penalty, solver, result), ConvergenceWarning,
                          stacklevel=4)
    return LogisticFit(
        classes=classes, coef=coef, intercept=intercept, n_iter=int(result.n_iter),
        converged=bool(result.converged), violation=float(result.gradient_norm),
        history=result.history, solver=solver, separation=separation,
        log_likelihood=float(log_likelihood), inference=record, stopped=bool(stopped()),
    )


_POLISH_TOL = 1e-13  # the largest gradient entry (mean objective) a softmax L-BFGS run goes on to
_POLISH_ITER = 30


def _polished(objective, result, left: int, observe):
    """A converged softmax L-BFGS run continued to a gradient of :data:`_POLISH_TOL`, so that the
    Newton step with the Hessian formed next usually moves no score by more than
    :data:`_HESSIAN_KEPT` and that Hessian is the one at the returned estimate (not where the
    Hessian is ill-conditioned: on standardised digits the step still moves the scores by 9e-10,
    and the Hessian is formed again at the estimate): with K classes the Hessian costs about
    (K - 1)^2 d / 4 times an iteration (the gradient), and going on is cheaper than forming it
    twice (K = 10, d = 50, 100,000 rows: 12 more iterations, 0.57 s, where a Hessian took 0.95 s;
    the step after them moved the scores by 5e-12).  Not with float32 products (which round
    above that gradient), nor without a penalty where rows are fitted with probability one
    (maybe separated: no optimum to go on to); iterations count against ``left``."""
    if (left <= 0 or objective.rounding > 1e-13
            or (objective.l2 == 0.0 and objective.count_perfect(result.theta))):
        return result
    more = SOLVERS["lbfgs"](objective, result.theta, tol=_POLISH_TOL,
                            max_iter=min(_POLISH_ITER, left), on_iteration=observe)
    if not (np.all(np.isfinite(more.theta)) and more.value <= result.value):
        return result
    return replace(more, n_iter=result.n_iter + more.n_iter, converged=True,
                   history=np.concatenate([result.history, more.history[1:]]))


_FINAL_STEPS = 3  # Newton steps at most after the solver's (the second is usually the last)


def _final_steps(problem, objective, result, hessian, budget: int, stopped, observe):
    """``(result, hessian)``: Newton steps with the exact Hessian at the solver's result
    (:func:`~linclass.linear.solvers.final_step.final_newton_step`) while they are worth taking,
    then the Hessian at the returned estimate (the covariance there).

    The first step squares the distance to the optimum (from the solver's gradient ``tol`` to
    about ``tol**2``); the next, with the same Hessian, multiplies it by about the relative change
    of the Hessian over the first (the distance itself), which ends at rounding; then the Newton
    decrement is below its floor and the steps stop.  So one Hessian more than a single step
    needs, at the returned estimate, and none when no step was taken or the steps moved no score
    by more than :data:`_HESSIAN_KEPT` (:func:`_scores_moved`).  Each kept step counts against
    ``budget`` and is reported to ``observe`` (a callback's iteration); a fit a callback stopped
    stays where it was stopped."""
    overlap, proved = None, []
    if problem.source is None and objective.l2 == 0.0 and objective.n_params <= MAX_PARAMS:
        def overlap(theta):  # rows fitted with probability one: step only if overlap is proved
            # overlap is a property of the rows: once proved, the later steps need no new proof
            if not proved and overlap_proved(problem.X, problem.y, objective.scores(theta),
                                             objective.n_classes, problem.weight,
                                             problem.fit_intercept):
                proved.append(True)
            return bool(proved)
    start, decrements = result.theta, []
    for _ in range(_FINAL_STEPS):
        if hessian is None or stopped() or result.n_iter >= budget:
            break
        stepped = final_newton_step(objective, result, hessian, overlap=overlap,
                                    decrements=decrements)
        if stepped.n_iter == result.n_iter:  # not taken
            break
        if observe is not None:  # that step is an iteration
            observe(stepped.theta)
        result = stepped
    if result.theta is not start and (_surely_moved(objective, decrements)
                                      or _scores_moved(objective, start, result.theta)
                                      > _HESSIAN_KEPT):
        hessian = inference_hessian(objective, result.theta)
    return result, hessian


_HESSIAN_KEPT = 1e-11  # a step that moves no score by more than this keeps the Hessian


def _surely_moved(objective, decrements) -> bool:
    """Whether the first step's Newton decrement alone proves that it moved some score by more
    than :data:`_HESSIAN_KEPT` (then :func:`_scores_moved` need not read X): without a penalty the
    decrement is the mean over the rows of :math:`\\Delta\\eta_i^T V_i \\Delta\\eta_i`, with
    :math:`V_i` the variance of the row's class indicators, at most a quarter of the squared
    spread of :math:`\\Delta\\eta_i` (a variable within [a, b] varies by at most
    :math:`(b-a)^2/4`), so the largest spread is at least twice its square root."""
    return (objective.l2 == 0.0 and bool(decrements)
            and 2.0 * np.sqrt(decrements[0]) > _HESSIAN_KEPT)


def _scores_moved(objective, before, after) -> float:
    """How far a step moved the rows' scores: the largest change (for K classes, its largest
    spread over the classes, which is what the probabilities see); inf without the rows in
    memory.  A step that moves every score by at most e changes every row's weight in the
    Hessian by a factor within exp(+-e) (two classes: d log mu(1-mu) / d eta = 1 - 2 mu; K
    classes: each p_j p_l within exp(+-2e)), so the Hessian, the covariance and the standard
    errors change by as little: below :data:`_HESSIAN_KEPT` it is not formed again."""
    X = getattr(objective, "X", None)
    if X is None or not hasattr(objective, "scores"):
        return np.inf
    step = (np.asarray(after, dtype=np.float64) - np.asarray(before, dtype=np.float64))
    S = np.asarray(objective.scores(step.reshape(objective.shape), X))
    if S.ndim == 1:
        return float(np.max(np.abs(S), initial=0.0))
    return float(np.max(S.max(axis=1) - S.min(axis=1), initial=0.0))


def _refine_exactly(objective, hessian) -> bool:
    """Whether the last Newton step of a fit in float32 products is taken with float64 products:
    when the Hessian is ill-conditioned enough (standardized, above
    :data:`~linclass.generative.scatter_float32.CONDITION_LIMIT`) that the float32 gradient's rounding
    would move the optimum visibly.  One step of this iterative refinement makes it the float64
    optimum."""
    return (hessian is not None and getattr(objective, "products", None) == "float32"
            and standardized_condition(hessian) > CONDITION_LIMIT)


#: scikit-learn's ConvergenceWarning for each of its solver names: the first sentence of the
#: warning when the user names that solver, so that code which matches scikit-learn's words (its
#: own tests do) finds them; linclass's sentence after it says how far from the optimum it stopped
_SKLEARN_WORDS = {
    "lbfgs": "lbfgs failed to converge after {n} iteration(s).",
    "newton-cg": "newton-cg failed to converge. Increase the number of iterations.",
    "newton-cholesky": "Newton solver did not converge after {n} iterations.",
    "liblinear": "Liblinear failed to converge, increase the number of iterations.",
    "sag": "The max_iter was reached which means the coef_ did not converge.",
    "saga": "The max_iter was reached which means the coef_ did not converge.",
}


def _smooth_message(options, penalty, solver, result) -> str:
    """The ConvergenceWarning of a smooth fit, in the words of the penalty's stationarity condition
    (``penalty.score``: the gradient, or Firth's modified score), after scikit-learn's sentence
    for the solver name the user gave (:data:`_SKLEARN_WORDS`)."""
    theirs = _SKLEARN_WORDS.get(options.solver, "").format(n=int(result.n_iter))
    return (theirs + " " if theirs else "") + _own_message(options, penalty, solver, result)


def _own_message(options, penalty, solver, result) -> str:
    advice = "" if len(penalty.solvers) == 1 or solver == "newton" else ", or use solver='newton'"
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
    # float32 rows stay float32 (Design.precision): the gap's two products with X need no copy
    penalised = objective_of(penalty, problem, proximal=True)

    def gap_at(theta):
        W, b = penalised.internal(*objective.coefficients(theta))
        return penalised.gap_and_value(W, b)

    name = "newton" if objective.n_params <= MAX_PARAMS else "lbfgs"
    result, _ = until_certified(objective, result, gap_at, options.tol, SOLVERS[name], budget,
                                on_iteration=observer(name))
    return result


# ------------------------------------------------------------------- the penalty's stages
def objective_of(penalty, problem, *, proximal: bool):
    """The objective to minimise over ``problem``'s design
    (:class:`~linclass.linear.fitting.fit.LogisticProblem`): proximal Newton's penalised
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


# ------------------------------------------------------------- the proximal Newton fits
def proximal_chunked(problem, options, smooth) -> LogisticFit:
    """Proximal Newton on a chunk source (:mod:`linclass.linear.solvers.prox_newton_chunked`),
    from the first pass's ``smooth`` objective, or OWL-QN (:mod:`linclass.linear.solvers.owlqn`:
    gradient passes only, ``solver_`` 'owlqn') for models of more than
    :data:`~linclass.linear.inference.wald.MAX_PARAMS` parameters, whose Hessian proximal Newton
    would form in every pass; the fit reports its passes over the data."""
    from linclass.linear.inference import wald  # its MAX_PARAMS read now (tests narrow it)
    from linclass.linear.logistic.penalised_chunked import ChunkedPenalised
    from linclass.linear.solvers.owlqn import owlqn_chunked
    from linclass.linear.solvers.prox_newton_chunked import prox_newton_chunked

    objective = ChunkedPenalised(smooth, options.penalty)
    wide = objective.n_params > wald.MAX_PARAMS
    fit = proximal(problem, options, objective,
                   solve=owlqn_chunked if wide else prox_newton_chunked,
                   name="owlqn" if wide else "cd")
    return replace(fit, passes=objective.passes, solver="owlqn" if wide else fit.solver)


def proximal(problem, options, objective, solve=None, name: str = "cd") -> LogisticFit:
    """Proximal Newton with coordinate descent on the penalised objective (``solve``: the solver,
    coordinate descent on rows in memory)."""
    if solve is None:
        solve = coordinate_descent

    W, b = objective.null_start()
    warm = warm_start(options, problem.classes, (W.shape[0], problem.n_features))
    if warm is not None:
        W, b = objective.internal(*warm)
    task, on_iteration = options.task, None
    if task is not None:  # each outer iteration a subtask, its fitted attributes those at (W, b)
        def attributes(state):
            coef, intercept = objective.coefficients(*state)
            return {"classes_": problem.classes, "coef_": coef, "intercept_": intercept}

        task.start("cd-iter", (W, b), attributes)
        on_iteration = task.observer("cd-iter", attributes)
    if warm is None and hasattr(objective.penalty, "starts"):  # not convex: several starts
        result = lowest_of_starts(objective, W, b, solve, options.tol, options.max_iter,
                                  on_iteration)
    else:
        result = solve(objective, W, b, tol=options.tol, max_iter=options.max_iter,
                       on_iteration=on_iteration)
    fit = penalised_fit(objective, result, objective.penalty, problem.classes,
                        problem.fit_intercept)
    if task is not None and task.stopped:  # stopped by a callback: not a convergence failure
        return replace(fit, stopped=True)
    if not fit.converged:
        warnings.warn(not_converged_message(f"{options.name} (solver={name!r})", result,
                                            options.max_iter, options.tol),
                      ConvergenceWarning, stacklevel=3)
    return fit


def lowest_of_starts(objective, W, b, solve, tol: float, max_iter: int, on_iteration=None):
    """The fit under a non-convex penalty (``objective.penalty.starts``: the convex penalties whose
    solutions start it): one proximal Newton run from zero and one from each convex fit, the
    lowest converged local minimum returned (the lowest of all when none converged).

    Which local minimum a start reaches decides the fit: on standardised breast cancer with the
    minimax concave penalty at lambda = 0.05, the run from zero stopped at 0.09290 (mean
    objective), from the lasso's solution at 0.10004, along a warm-started path of C from the null model at 0.1298, and from the ridge
    solution at the same C at 0.08388 (skglm 0.5 from zero: 0.09179); at lambda = 0.01 zero gave
    0.04489 and ridge 0.04226.  The ridge start leaves every coefficient large, so the penalty
    drops the weak ones from a point where the strong ones are already unshrunk."""
    runs = [solve(objective, W, b, tol=tol, max_iter=max_iter, on_iteration=on_iteration)]
    for convex in objective.penalty.starts():
        start = solve(objective.with_penalty(convex), W, b, tol=tol, max_iter=max_iter)
        runs.append(solve(objective, start.W, start.b, tol=tol, max_iter=max_iter,
                          on_iteration=on_iteration))
    converged = [r for r in runs if r.converged] or runs
    return min(converged, key=lambda r: r.value)


def penalised_fit(objective, result, penalty, classes,
                  fit_intercept: bool | None = None) -> LogisticFit:
    """The :class:`LogisticFit` of a proximal Newton result on ``objective`` (a
    :class:`~linclass.linear.logistic.penalised.PenalisedObjective`) under ``penalty``, whose
    record keeps the plain numbers of its report
    (:class:`~linclass.linear.fitting.records.PenalisedFacts`); ``fit_intercept``: whether the
    model has an intercept (None: the objective's; liblinear's objective holds it as a penalised
    column)."""
    if not (np.all(np.isfinite(result.W)) and np.all(np.isfinite(result.b))):
        raise FloatingPointError(  # cannot happen with finite X; never return NaN
            "The fit produced non-finite coefficients; rescale the features or use a smaller C."
        )
    coef, intercept = objective.coefficients(result.W, result.b)
    log_likelihood = -(result.value - penalty.value(result.W))
    # the null model with an offset is a fit of its own over the rows, made while they are here
    offset = getattr(objective, "score_offset", None)
    record = PenalisedFacts(
        penalty=penalty.kind, C=penalty.C, l1_ratio=penalty.l1_ratio,
        gamma=getattr(penalty, "gamma", None),
        factors=getattr(penalty, "factor", None) is not None,
        bounded=getattr(penalty, "bounded", False), objective=float(result.value),
        log_likelihood=float(log_likelihood), class_totals=objective.class_totals,
        n_obs=float(objective.total),
        intercept=objective.fit_intercept if fit_intercept is None else bool(fit_intercept),
        null=None if offset is None else objective.null_log_likelihood(),
        violation=float(result.violation), converged=bool(result.converged))
    return LogisticFit(
        classes=classes, coef=coef, intercept=intercept, n_iter=int(result.n_iter),
        converged=bool(result.converged), violation=float(result.violation), history=result.history,
        solver="cd", separation=None, log_likelihood=float(log_likelihood), inference=record,
    )


def path_fits(objective, Cs, l1_ratio: float, classes, *, tol: float, max_iter: int):
    """The :class:`LogisticFit` at each C of ``Cs`` (increasing) on ``objective`` (a
    :class:`~linclass.linear.logistic.penalised.PenalisedObjective`), warm-started and screened
    (:func:`linclass.linear.fitting.path.path_steps`); yields ``(C, fit)``."""
    from linclass.core.progress import tick
    from linclass.linear.fitting.path import path_steps  # numba on first use

    X = objective.design.X
    m = 1 if len(classes) <= 2 else len(classes)
    work = float(X.nnz if hasattr(X, "nnz") else X.shape[0] * X.shape[1]) * m
    steps = path_steps(objective, Cs, l1_ratio, tol=tol, max_iter=max_iter)
    while True:  # one BLAS thread on small problems, held only while a fit runs
        with blas_threads_for(work):
            step = next(steps, None)
        if step is None:
            return
        C, result = step
        tick(result.n_iter)  # a progress bar over a long cross-validation counts the iterations
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
