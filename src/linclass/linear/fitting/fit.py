"""One logistic fit, from a problem and its options to a :class:`LogisticFit`.

    problem (X, y, weights | a chunk source) + options (penalty, solver, tol, ...)
      -> choose_solver (linclass.linear.fitting.choice)
      -> objective_of(penalty, problem)      the objective over the design (dense, sparse, chunks)
      -> a solver (linclass.linear.solvers)  smooth: newton / bohning / lbfgs / sgd; proximal: 'cd'
      -> finish_of(penalty, ...)             separation, the inference record, the log-likelihood
      -> LogisticFit

:class:`~linclass.LogisticRegression` validates its input, calls :func:`fit_logistic` and sets its
attributes from the result once; :func:`path_fits` gives the same :class:`LogisticFit` at every C of
a penalty path (``logistic_path``, ``LogisticRegressionCV``).  The records are in
:mod:`linclass.linear.fitting.problem`, the proximal Newton fits in
:mod:`linclass.linear.fitting.proximal`; this module is the dispatch and the smooth fits.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from linclass.core.chunks import require_two_classes
from linclass.core.dtype_policy import LOW_PRECISION_MIN, is_low
from linclass.generative.scatter_float32 import CONDITION_LIMIT, standardized_condition
from linclass.core.threads import blas_threads_for
from linclass.core.finiteness import check_finite, check_magnitude, explain_non_finite
from linclass.exceptions import AliasedColumnsWarning, SingularCovarianceWarning
from linclass.linear.fitting.stages import coefficients_of, finish_of, objective_of, start_of
from linclass.linear.fitting.problem import FitOptions, LogisticFit, LogisticProblem, warm_start
from linclass.linear.fitting.proximal import (not_converged_message, path_fits, penalised_fit,
                                              proximal, proximal_chunked, warn_unconverged)
from linclass.linear.fitting.choice import (
    auto_solver,
    check_chunked,
    choose_solver,
    continues_with_newton,
    hand_over,
)
from linclass.linear.inference.wald import (MAX_PARAMS, SINGULAR, expand_covariance,
                                            inference_hessian)
from linclass.linear.logistic.aliasing import aliased_columns
from linclass.linear.logistic.separation import overlap_proved
from linclass.linear.penalties.elastic_net import ElasticNet
from linclass.linear.solvers import SOLVERS
from linclass.linear.solvers.final_step import final_newton_step, until_certified

__all__ = ["FitOptions", "LogisticFit", "LogisticProblem", "fit_logistic", "not_converged_message",
           "path_fits", "penalised_fit", "warn_unconverged"]

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
