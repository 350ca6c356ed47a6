"""What a :class:`~linclass.LogisticRegression`'s parameters make, and how a fit becomes its
attributes: the parameter constraints (scikit-learn's declarative validation), the penalty object of
``penalty`` / ``C`` / ``l1_ratio`` and the column settings, the fit options, scikit-learn's
deprecation warnings, and the fitted attributes set once from a
:class:`~linclass.linear.fitting.problem.LogisticFit`.  Functions of the estimator (``model``), so
that the class stays glue.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions

from linclass.core.dtype_policy import cast_fitted
from linclass.linear.fitting.choice import LINCLASS_SOLVERS, SKLEARN_SOLVERS
from linclass.linear.fitting.fit import FitOptions
from linclass.linear.fitting.relax import check_relax
from linclass.linear.penalties.table import (
    PENALTIES,
    grouped,
    make_penalty,
    with_columns,
    with_penalised_intercept,
)

__all__ = ["PARAMETER_CONSTRAINTS", "fit_options", "logistic_penalty", "set_fitted",
           "warn_deprecated"]

PARAMETER_CONSTRAINTS: dict = {
    "penalty": [StrOptions({"auto", "deprecated", *(k for k in PENALTIES if k)}), None],
    "C": [Interval(Real, 0, None, closed="right")],  # (0, inf]: inf = no penalty
    "l1_ratio": [Interval(Real, 0, 1, closed="both"), None],
    "dual": ["boolean"],
    "tol": [Interval(Real, 0, None, closed="left")],
    "fit_intercept": ["boolean"],
    "intercept_scaling": [Interval(Real, 0, None, closed="neither")],
    "class_weight": [dict, StrOptions({"balanced"}), None],
    "random_state": ["random_state"],
    "solver": [StrOptions(set(LINCLASS_SOLVERS) | set(SKLEARN_SOLVERS))],
    "max_iter": [Interval(Integral, 0, None, closed="left")],
    "verbose": ["verbose"],
    "warm_start": ["boolean"],
    "n_jobs": [None, Integral],
    "batch_size": [Interval(Integral, 1, None, closed="left")],
    "eta0": [Interval(Real, 0, None, closed="neither")],
    "relax": [Interval(Real, 0, 1, closed="both")],
    "penalty_factor": [Real, "array-like", None],
    "lower_bounds": [Real, "array-like", None],
    "upper_bounds": [Real, "array-like", None],
    "multinomial_penalty": [StrOptions({"ungrouped", "grouped"})],
    "weight_type": [StrOptions({"frequency", "variance"})],
}


def logistic_penalty(model):
    """The penalty object of ``penalty`` / ``C`` / ``l1_ratio`` (and, for solver='liblinear',
    liblinear's penalised intercept)."""
    warn_deprecated(model)
    penalty = make_penalty(model.penalty, model.C, model.l1_ratio)
    if not (model.penalty_factor is None and model.lower_bounds is None
            and model.upper_bounds is None):
        if model.solver == "liblinear":
            raise ValueError("solver='liblinear' takes no penalty_factor, lower_bounds or "
                             "upper_bounds; use solver='cd' (or 'auto').")
        penalty = with_columns(penalty, model.penalty_factor, model.lower_bounds,
                               model.upper_bounds)
    if model.multinomial_penalty == "grouped":
        penalty = grouped(penalty)
    check_relax(model.relax, penalty)
    if model.dual and not (model.solver == "liblinear" and penalty.l2 > 0):
        raise ValueError(
            "dual=True is defined only for solver='liblinear' with the L2 penalty (as in "
            "scikit-learn), where its optimum is the primal one; use dual=False."
        )
    if model.solver == "liblinear":
        penalty = with_penalised_intercept(
            penalty, float(model.intercept_scaling) if model.fit_intercept else None)
    return penalty


def warn_deprecated(model) -> None:
    """scikit-learn 1.8's deprecations that linclass follows, with its FutureWarning:
    ``l1_ratio=None`` under the default penalty, and ``n_jobs`` (no effect).  ``penalty``
    itself, deprecated there, stays (for 'firth', and the named penalties with it)."""
    if model.penalty in ("auto", "deprecated") and model.l1_ratio is None:
        warnings.warn("l1_ratio=None is deprecated (as in scikit-learn 1.8, where it is an error "
                      "from 1.10): give l1_ratio, a number in [0, 1]; 0, the L2 penalty, is "
                      "what None meant.", FutureWarning, stacklevel=6)  # the caller of fit
    if model.n_jobs is not None:
        warnings.warn(f"n_jobs has no effect and is deprecated (as in scikit-learn 1.8, which "
                      f"removes it in 1.10); you gave n_jobs={model.n_jobs!r}: leave it "
                      "unspecified.", FutureWarning, stacklevel=6)  # the caller of fit


def fit_options(model, penalty) -> FitOptions:
    warm = None
    if model.warm_start and hasattr(model, "coef_"):
        coef = model.coef_.toarray() if sp.issparse(model.coef_) else model.coef_
        warm = (model.classes_, coef, model.intercept_)
    return FitOptions(penalty=penalty, solver=model.solver, tol=model.tol, max_iter=model.max_iter,
                      random_state=model.random_state, batch_size=model.batch_size,
                      eta0=model.eta0, warm=warm, owner=model)


def set_fitted(model, fit, task, low: bool = False):
    """The fitted attributes, set once from the
    :class:`~linclass.linear.fitting.problem.LogisticFit`
    (``coef_`` and ``intercept_`` float32 after a fit on float32 X, as scikit-learn's)."""
    model.classes_ = fit.classes
    model.coef_, model.intercept_ = fit.coef, fit.intercept
    cast_fitted(model, ("coef_", "intercept_"), np.float32 if low else np.float64)
    model.n_iter_ = np.array([fit.n_iter], dtype=np.int32)
    model.converged_ = fit.converged
    model.violation_ = fit.violation
    model.loss_curve_ = fit.history
    model.solver_ = fit.solver
    model.separation_ = fit.separation
    model.log_likelihood_ = fit.log_likelihood
    model.aliased_ = (np.zeros(model.coef_.shape[1], dtype=bool) if fit.aliased is None
                     else fit.aliased)
    model._inference = fit.inference  # a record of linclass.linear.fitting.records
    if fit.passes is not None:  # a fit on a chunk source
        model.n_passes_ = fit.passes
    elif hasattr(model, "n_passes_"):
        del model.n_passes_
    if task is not None:
        task.end()
    if model.verbose:
        for i, value in enumerate(fit.history):
            print(f"LogisticRegression ({fit.solver}) iteration {i}: objective {value:.10g}")
    return model
