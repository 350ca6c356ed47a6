"""The penalised fit of :class:`~linclass.LogisticRegression` (solver 'cd': the L1 and elastic-net
penalties, and any penalty on sparse X) from validated data to fitted attributes (the settings resolve
in :mod:`linclass.estimators.logistic_options`).  The mathematics is :mod:`linclass.linear.penalties.elastic_net`,
:mod:`linclass.linear.penalties.penalised` and :mod:`linclass.linear.solvers.coordinate_descent`.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from linclass.core.finiteness import check_finite, check_magnitude, explain_non_finite
from linclass.linear.inference.penalised_summary import penalised_state
from linclass.linear.penalties.elastic_net import ElasticNet

__all__ = ["fit_penalised", "not_converged_message", "null_log_likelihood", "warn_unconverged"]

def null_log_likelihood(class_totals: np.ndarray, total: float, fit_intercept: bool) -> float:
    """:math:`\\ell_0 = \\sum_k N_k\\ln(N_k/N)` with an intercept, else :math:`-N\\ln K`."""
    counts = class_totals[class_totals > 0]
    if fit_intercept:
        return float(counts @ np.log(counts / counts.sum()))
    return -float(total) * math.log(class_totals.size)


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


def fit_penalised(estimator, data, weight, penalty: ElasticNet, previous) -> None:
    """Fit ``estimator`` (a :class:`~linclass.LogisticRegression`) by proximal Newton with
    coordinate descent and set its fitted attributes.

    Parameters
    ----------
    data : :class:`~linclass.core.validation.FitData`
    weight : ndarray or None
        Sample weights times class weights.
    penalty : ElasticNet
    previous : (classes, coef, intercept) or None
        The earlier fit (``warm_start``).
    """
    # the compiled loops (numba) load on the first penalised fit, not with the package
    from linclass.linear.penalties.penalised import PenalisedObjective
    from linclass.linear.solvers.coordinate_descent import coordinate_descent

    K = data.classes.size
    if estimator.fit_intercept and hasattr(data.X, "tocsc"):
        check_finite(data.X, feature_names=getattr(estimator, "feature_names_in_", None))
    with np.errstate(invalid="ignore", over="ignore"):
        objective = PenalisedObjective(data.X, data.y, K, weight, penalty,
                                       fit_intercept=estimator.fit_intercept)
    explain_non_finite(estimator, data.X, objective.design.shift)
    check_magnitude(estimator, data.X)
    W, b = objective.null_start()
    if previous is not None and np.array_equal(previous[0], data.classes) and (
        np.shape(previous[1]) == W.shape
    ):
        W, b = objective.internal(previous[1], previous[2])
    result = coordinate_descent(objective, W, b, tol=estimator.tol, max_iter=estimator.max_iter)
    if not (np.all(np.isfinite(result.W)) and np.all(np.isfinite(result.b))):
        raise FloatingPointError(  # cannot happen with finite X; never return NaN
            "The fit produced non-finite coefficients; rescale the features or use a smaller C."
        )
    estimator.classes_ = data.classes
    estimator.coef_, estimator.intercept_ = objective.coefficients(result.W, result.b)
    estimator.n_iter_ = int(result.n_iter)
    estimator.converged_ = bool(result.converged)
    estimator.loss_curve_ = result.history
    estimator.violation_ = float(result.violation)
    estimator.solver_ = "cd"
    estimator.separation_ = None
    estimator.log_likelihood_ = -(result.value - penalty.value(result.W))
    if not result.converged:
        warnings.warn(not_converged_message("LogisticRegression (solver='cd')", result,
                                            estimator.max_iter, estimator.tol),
                      ConvergenceWarning, stacklevel=4)
    estimator._inference = penalised_state(
        penalty=penalty, objective=result.value, log_likelihood=estimator.log_likelihood_,
        null=null_log_likelihood(objective.class_totals, objective.total, estimator.fit_intercept),
        n_obs=objective.total, violation=result.violation, converged=result.converged,
    )
