"""Firth's fit of :class:`~linclass.LogisticRegression` (``penalty='firth'``): which settings it
takes, and its finish (the separation check without a warning, since the estimate exists, and the
inference state with logistf's profile quantities, :mod:`linclass.linear.inference.firth`).  No
mathematics here.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from linclass.estimators.logistic_options import SKLEARN_SOLVERS
from linclass.linear.inference.firth import firth_notes, firth_state
from linclass.linear.inference.wald import logistic_inference
from linclass.linear.logistic.separation import separation

__all__ = ["check_firth", "finish_firth"]


def check_firth(model, n_classes: int) -> None:
    """Refuse what Firth's fit does not cover: more than two classes, a solver other than Newton."""
    if n_classes != 2:
        raise ValueError(f"penalty='firth' is implemented for two classes; y has {n_classes}. "
                         "Use one-vs-rest (OneVsRestClassifier) for a Firth fit per class.")
    if SKLEARN_SOLVERS.get(model.solver, model.solver) not in ("auto", "newton"):
        raise ValueError(f"penalty='firth' is fitted by Newton's method (IRLS with the "
                         f"hat-matrix adjustment); use solver='newton' or 'auto', not "
                         f"{model.solver!r}.")


def finish_firth(model, objective, result, data, weight) -> None:
    """Set the separation, the log-likelihood and the inference state of Firth's fit."""
    try:
        model.separation_ = separation(data.X, data.y, 2, weight, model.fit_intercept)
    except ValueError:  # too large a linear programme to attempt
        model.separation_ = None
    if not result.converged:
        warnings.warn(
            f"LogisticRegression (penalty='firth') did not converge in max_iter={model.max_iter} "
            f"iterations: the largest entry of the modified score is {result.gradient_norm:.3g} "
            f"> tol={model.tol:g}. Increase max_iter.", ConvergenceWarning, stacklevel=4,
        )
    inference = logistic_inference(objective, result)
    model.log_likelihood_ = objective.log_likelihood(result.theta)
    state = inference.as_state()
    se = np.sqrt(np.clip(np.diag(inference.covariance), 0.0, None)) if (
        inference.covariance is not None) else np.full(objective.n_params, np.nan)
    state["firth"] = firth_state(data.X, data.y, weight, model.fit_intercept, model.coef_,
                                 model.intercept_, se, model.separation_)
    state["notes"] = firth_notes(state["firth"], result.converged, result.n_iter)
    model._inference = state
