"""Proximal Newton fits (solver 'cd': an L1 part, per-feature factors or bounds) of a penalised
logistic objective, in memory or over chunks, the fits along a penalty path, and what an unconverged
penalised fit says.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from linclass.linear.fitting.problem import LogisticFit, warm_start
from linclass.linear.inference.penalised_summary import PenalisedRecord

__all__ = ["not_converged_message", "path_fits", "penalised_fit", "proximal", "proximal_chunked",
           "warn_unconverged"]


def proximal_chunked(problem, options, smooth) -> LogisticFit:
    """Proximal Newton on a chunk source (:mod:`linclass.linear.solvers.prox_newton_chunked`),
    from the first pass's ``smooth`` objective, or OWL-QN (:mod:`linclass.linear.solvers.owlqn`:
    gradient passes only, ``solver_`` 'owlqn') for models of more than
    :data:`~linclass.linear.inference.wald.MAX_PARAMS` parameters, whose Hessian proximal Newton
    would form in every pass; the fit reports its passes over the data."""
    from linclass.linear.inference.wald import MAX_PARAMS
    from linclass.linear.logistic.penalised_chunked import ChunkedPenalised
    from linclass.linear.solvers.owlqn import owlqn_chunked
    from linclass.linear.solvers.prox_newton_chunked import prox_newton_chunked

    objective = ChunkedPenalised(smooth, options.penalty)
    wide = objective.n_params > MAX_PARAMS
    fit = proximal(problem, options, objective,
                   solve=owlqn_chunked if wide else prox_newton_chunked,
                   name="owlqn" if wide else "cd")
    return replace(fit, passes=objective.passes, solver="owlqn" if wide else fit.solver)


def proximal(problem, options, objective, solve=None, name: str = "cd") -> LogisticFit:
    """Proximal Newton with coordinate descent on the penalised objective (``solve``: the solver,
    coordinate descent on rows in memory)."""
    if solve is None:
        from linclass.linear.solvers.prox_newton_softmax import coordinate_descent as solve

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
    fit = penalised_fit(objective, result, objective.penalty, problem.classes)
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


def penalised_fit(objective, result, penalty, classes) -> LogisticFit:
    """The :class:`LogisticFit` of a proximal Newton result on ``objective`` (a
    :class:`~linclass.linear.logistic.penalised.PenalisedObjective`) under ``penalty``."""
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
    :class:`~linclass.linear.logistic.penalised.PenalisedObjective`), warm-started and screened
    (:func:`linclass.linear.fitting.path.path_steps`); yields ``(C, fit)``."""
    from linclass.core.progress import tick
    from linclass.core.threads import blas_threads_for
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
