"""The smooth fits of :class:`~linclass.LogisticRegression` (the L2 penalty or none, Firth's):
a solver of :mod:`linclass.linear.solvers` on a :class:`~linclass.linear.logistic.objective.LinearObjective`
(or its chunked or Firth counterpart), then the fitted attributes, the separation check and the
inference state.  No mathematics here.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from linclass.estimators.logistic_firth import finish_firth
from linclass.estimators.logistic_options import SKLEARN_SOLVERS
from linclass.linear.penalties import intercept as intercept_penalty
from linclass.linear.inference.wald import MAX_PARAMS, inference_hessian, logistic_inference
from linclass.linear.logistic.separation import check_separation
from linclass.linear.solvers import SOLVERS
from linclass.linear.fitting.choice import auto_solver
from linclass.linear.solvers.final_step import final_newton_step, until_certified
from linclass.linear.logistic.start import gaussian_start

__all__ = ["fit_smooth"]


def fit_smooth(model, objective, classes, solver, previous, data, weight, scaling=None, task=None):
    """Run ``solver`` on ``objective`` and set the fitted attributes (``data`` / ``weight``:
    the in-memory rows, for the exact separation check; None for chunked data; ``scaling``: the
    constant feature of liblinear's objective, whose weight times it is the intercept; ``task``:
    the fit as scikit-learn's callbacks see it, each iteration a subtask,
    :mod:`linclass.estimators.fit_callbacks`)."""
    K = classes.size
    if solver == "auto":  # dense X: the solver with the lower predicted cost
        n_rows = objective.X.shape[0] if data is not None else int(objective.stats.n_rows.sum())
        solver = auto_solver(objective, n_rows)
    if previous is not None and np.array_equal(previous[0], classes) and (
        previous[1].shape == (1 if K == 2 else K, objective.n_features)
    ):
        theta0 = objective.from_coefficients(previous[1], previous[2])
    elif model.max_iter == 0 or model.penalty == "firth":
        theta0 = objective.null_start()  # max_iter=0 returns scikit-learn's starting point
    else:
        theta0 = gaussian_start(objective)
    options = {"tol": model.tol, "max_iter": model.max_iter}
    if solver == "sgd":
        options.update(random_state=model.random_state, batch_size=model.batch_size, eta0=model.eta0)

    def attributes(theta):  # the fitted attributes at theta (a callback's fitted_estimator)
        coef, intercept = objective.coefficients(theta)
        if scaling is not None:
            coef, intercept = intercept_penalty.split(coef, scaling)
        return {"classes_": classes, "coef_": coef, "intercept_": intercept}

    stopped = lambda: task is not None and task.stopped  # noqa: E731 (a callback asked to stop)
    if task is not None:
        options["on_iteration"] = task.observer(f"{solver}-iter", attributes)
    result = SOLVERS[solver](objective, theta0, **options)
    auto = SKLEARN_SOLVERS.get(model.solver, model.solver) == "auto"
    if (auto and solver == "lbfgs" and not result.converged and objective.n_params <= MAX_PARAMS
            and not stopped()):
        more = None if task is None else task.observer("newton-iter", attributes)
        result, solver = _continue_with_newton(model, objective, result, more), "lbfgs+newton"
    if _certifiable(model, objective, data, scaling, solver) and result.converged and not stopped():
        result = _certified(model, objective, result, classes, data, weight)
    hessian = None  # the exact one inference needs (None above MAX_PARAMS); max_iter=0: the start
    if model.penalty != "firth" and model.max_iter > 0:
        hessian = inference_hessian(objective, result.theta)
        if not stopped():  # a stopped fit stays where it was stopped
            stepped = final_newton_step(objective, result, hessian)
            if task is not None and stepped.n_iter > result.n_iter:  # that step is an iteration
                task.observer("newton-step", attributes)(stepped.theta)
            result = stepped
    if not np.all(np.isfinite(result.theta)):  # cannot happen with finite X; never return NaN
        raise FloatingPointError(
            "The fit produced non-finite coefficients; rescale the features or use a finite C."
        )
    model.classes_ = classes
    model.coef_, model.intercept_ = objective.coefficients(result.theta)
    if scaling is not None:
        model.coef_, model.intercept_ = intercept_penalty.split(model.coef_, scaling)
    model.n_iter_ = np.array([result.n_iter], dtype=np.int32)
    model.converged_ = bool(result.converged)
    model.violation_ = float(result.gradient_norm)
    model.loss_curve_ = result.history
    model.solver_ = solver
    with warnings.catch_warnings():
        if stopped():  # stopped by a callback: not a convergence failure
            warnings.simplefilter("ignore", ConvergenceWarning)
        _finish(model, objective, result, data, weight, scaling, hessian)
    if task is not None:
        task.end()
    if model.verbose:
        for i, value in enumerate(result.history):
            print(f"LogisticRegression ({solver}) iteration {i}: objective {value:.10g}")
    return model


def _certifiable(model, objective, data, scaling, solver) -> bool:
    """Whether the fit's objective has a duality gap to certify it with: an L2 penalty, rows in
    memory, not liblinear's penalised intercept, not Firth's likelihood, not SGD."""
    return (data is not None and scaling is None and model.penalty != "firth"
            and objective.l2 > 0.0 and solver != "sgd" and model.max_iter > 0)


def _certified(model, objective, result, classes, data, weight):
    """Continue the fit until the duality gap of its penalised objective is at most ``tol`` times
    the objective (:func:`~linclass.linear.solvers.final_step.until_certified`)."""
    from linclass.linear.penalties.penalised import PenalisedObjective
    from linclass.linear.penalties.elastic_net import ElasticNet

    penalised = PenalisedObjective(data.X, data.y, classes.size, weight,
                                   ElasticNet(1.0 / objective.l2, 0.0),
                                   fit_intercept=model.fit_intercept)

    def gap_at(theta):
        W, b = penalised.internal(*objective.coefficients(theta))
        F = penalised.value(W, b)
        return penalised.duality_gap(W, b, F), F

    solver = SOLVERS["newton" if objective.n_params <= MAX_PARAMS else "lbfgs"]
    result, _ = until_certified(objective, result, gap_at, model.tol, solver, model.max_iter)
    return result


def _continue_with_newton(model, objective, result, on_iteration=None):
    """'auto': an L-BFGS run that stopped at ``max_iter`` (an ill-conditioned problem, such as
    unscaled pixel counts) goes on with Newton from where it stopped, when the Hessian is one
    that the inference table forms anyway (at most ``MAX_PARAMS`` parameters).  The iterations
    and the training curve are those of both runs."""
    if hasattr(objective, "with_hessian"):  # a chunked objective forms it only when asked
        objective.with_hessian = True
    more = SOLVERS["newton"](objective, result.theta, tol=model.tol, max_iter=model.max_iter,
                             on_iteration=on_iteration)
    return replace(more, n_iter=result.n_iter + more.n_iter,
                   history=np.concatenate([result.history, more.history[1:]]))


def _finish(model, objective, result, data, weight, scaling=None, hessian=None) -> None:
    """Separation check, inference state and warnings."""
    model.separation_ = None
    if model.penalty == "firth":
        return finish_firth(model, objective, result, data, weight)
    if objective.l2 == 0.0:
        X, y = (None, None) if data is None else (data.X, data.y)
        model.separation_ = check_separation(objective, result.theta, X, y, weight,
                                             converged=result.converged)
    if not result.converged:
        warnings.warn(
            f"LogisticRegression (solver={model.solver_!r}) did not converge in max_iter="
            f"{model.max_iter} iterations: the largest gradient entry is {result.gradient_norm:.3g} "
            f"> tol={model.tol:g}. Increase max_iter, or use solver='newton'.",
            ConvergenceWarning, stacklevel=4,
        )
    inference = logistic_inference(objective, result, separation=model.separation_,
                                   hessian=hessian)
    if scaling is not None:
        inference = intercept_penalty.reported_inference(inference, scaling, objective.class_weight)
    model.log_likelihood_ = inference.log_likelihood
    # stored as model files of format version 1 hold it (a dict), read by summary()
    model._inference = inference.as_state()
