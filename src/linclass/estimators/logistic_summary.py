"""The summary table of a fitted :class:`~linclass.LogisticRegression`: statsmodels' table for the
smooth fits (:mod:`linclass.linear.inference.summary`), logistf's profile intervals for Firth's
(:mod:`linclass.linear.inference.firth`), the honest table of a penalised selection
(:mod:`linclass.linear.inference.penalised_summary`), each with the header's facts about the fit (the name
of y, the method, solver, iterations, convergence, the time of the fit).  No mathematics here."""

from __future__ import annotations

import time
import warnings
from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from linclass.linear.inference.firth import firth_summary
from linclass.linear.inference.wald import LogisticInference
from linclass.linear.inference.penalised_summary import is_penalised_state, penalised_summary

__all__ = ["fit_record", "summary_table"]

_METHODS = {None: "MLE", "l2": "L2-penalised ML", "l1": "L1-penalised ML",
            "elasticnet": "Elastic-net-penalised ML", "firth": "Firth-penalised ML"}


def fit_record(model, target) -> dict:
    """What the summary's header says about a fit, recorded when it starts: the name of y
    (``target``: y itself, a pandas Series' name, or a source's target column; 'y' without one),
    the estimation method and the time.  Stored as the estimator's ``_fit_record``."""
    name = target if isinstance(target, str) else getattr(target, "name", None)
    if model.penalty == "firth":
        kind = "firth"
    else:
        try:
            with warnings.catch_warnings():  # the fit itself warns about the parameters
                warnings.simplefilter("ignore")
                kind = model._penalty().kind
        except ValueError:  # the fit refuses these parameters with its own message
            kind = None
    return {"target": "y" if name is None else str(name), "method": _METHODS[kind],
            "time": time.time()}


def summary_table(model, alpha: float, ci: str):
    """:meth:`linclass.LogisticRegression.summary` of the fitted model ``model``."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1); got {alpha!r}.")
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        names = [f"x{j}" for j in range(model.n_features_in_)]
    coef = model.coef_.toarray() if sp.issparse(model.coef_) else model.coef_
    if is_penalised_state(model._inference):
        table = penalised_summary(model._inference, coef=coef, intercept=model.intercept_,
                                  classes=model.classes_, feature_names=names,
                                  fit_intercept=model.fit_intercept)
        return replace(table, **_facts(model))
    if ci not in ("wald", "profile"):
        raise ValueError(f"ci must be 'wald' or 'profile'; got {ci!r}.")
    firth = model._inference.get("firth") if isinstance(model._inference, dict) else None
    if ci == "profile" and firth is None:
        raise ValueError("Profile intervals are computed for Firth fits (penalty='firth'); "
                         "this model was fitted with penalty='l2'.")
    inference = LogisticInference.from_state(model._inference, model.log_likelihood_)
    if firth is not None:
        inference = replace(inference, log_likelihood=firth["penalised"],
                            null_log_likelihood=firth["null_penalised"])
    table = inference.summary(
        coef=coef, intercept=model.intercept_, classes=model.classes_, feature_names=names,
        fit_intercept=model.fit_intercept, alpha=alpha,
    )
    table = replace(table, **_facts(model))
    return table if firth is None else firth_summary(table, firth, ci)


def _facts(model) -> dict:
    """The header's facts of a fitted model (a model file written before they were recorded
    shows 'y' and the time of the summary)."""
    record = getattr(model, "_fit_record", None)
    facts = {"solver": getattr(model, "solver_", None),
             "converged": getattr(model, "converged_", None)}
    n_iter = getattr(model, "n_iter_", None)
    facts["n_iter"] = None if n_iter is None else int(np.max(n_iter))
    if not isinstance(record, dict):
        record = {k: v for k, v in fit_record(model, None).items() if k != "time"}
    facts.update(dep_variable=str(record["target"]), method=str(record["method"]))
    if "time" in record:
        facts["fitted_at"] = float(record["time"])
    return facts
