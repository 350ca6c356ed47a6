"""The refit of :class:`~linclass.LogisticRegressionCV` on all rows at the chosen C: the penalty path
up to it (warm starts make it cost about one fit), relaxed at ``relax_``, setting the refit's
attributes.  Glue over :mod:`linclass.linear.fitting`.
"""

from __future__ import annotations

from linclass.linear.fitting.fit import LogisticProblem, path_fits, warn_unconverged
from linclass.linear.fitting.relax import relax_fit

__all__ = ["set_refit"]


def set_refit(model, objective, data, design, grid, rho, C):
    """The refit on all rows at the chosen C: the path up to it (warm starts make it cost about
    one fit), relaxed at ``relax_``."""
    fit = None
    for _, fit in path_fits(objective, grid, rho, data.classes, tol=model.tol,
                            max_iter=model.max_iter):
        pass
    warn_unconverged("LogisticRegressionCV (the refit)", [C], [fit.converged],
                     [fit.violation], [fit.n_iter], model.max_iter, model.tol)
    if model.verbose:
        print(f"LogisticRegressionCV refit at C={C:.6g}, l1_ratio={rho:g}: {fit.n_iter} "
              f"iterations, violation {fit.violation:.3g}")
    model.converged_, model.violation_ = fit.converged, fit.violation
    model.loss_curve_, model.log_likelihood_ = fit.history, fit.log_likelihood
    if model.relax_ < 1.0:
        problem = LogisticProblem(X=data.X, y=data.y, classes=data.classes,
                                  weight=objective.sw, fit_intercept=model.fit_intercept)
        fit = relax_fit(fit, problem, model.relax_, tol=model.tol, max_iter=model.max_iter,
                        what="LogisticRegressionCV's refit", penalty=objective.penalty)
        model.converged_, model.violation_ = fit.converged, fit.violation
        model.loss_curve_, model.log_likelihood_ = fit.history, fit.log_likelihood
        model.solver_ = fit.solver
    model.coef_, model.intercept_ = design.coefficients(fit.coef, fit.intercept)
