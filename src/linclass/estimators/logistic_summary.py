"""The summary table of a fitted :class:`~linclass.LogisticRegression`: the table of its inference
record (:mod:`linclass.linear.fitting.records`: statsmodels' for the smooth fits, logistf's profile
intervals for Firth's, the honest table of a penalised selection), with the header's facts about the
fit (the name of y, the method, solver, iterations, convergence, the time of the fit).  No
mathematics here."""

from __future__ import annotations

import time
import warnings
from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from linclass.linear.fitting.records import inference_record

__all__ = ["fit_record", "summary_table"]

_METHODS = {None: "MLE", "l2": "L2-penalised ML", "l1": "L1-penalised ML",
            "elasticnet": "Elastic-net-penalised ML", "firth": "Firth-penalised ML"}


def fit_record(model, target) -> dict:
    """What the summary's header says about a fit, recorded when it starts: the name of y
    (``target``: y itself, a pandas Series' name, or a source's target column; 'y' without one),
    the estimation method and the time.  Stored as the estimator's ``_fit_record``."""
    name = target if isinstance(target, str) else getattr(target, "name", None)
    try:
        with warnings.catch_warnings():  # the fit itself warns about the parameters
            warnings.simplefilter("ignore")
            kind = model._penalty().kind
    except ValueError:  # the fit refuses these parameters with its own message
        kind = None
    return {"target": "y" if name is None else str(name), "method": _METHODS.get(kind, f"{kind}-penalised ML"),
            "time": time.time()}


def summary_table(model, alpha: float, ci: str):
    """:meth:`linclass.LogisticRegression.summary` of the fitted model ``model``: the table its
    inference record makes (:mod:`linclass.linear.fitting.records`), with the header's facts."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1); got {alpha!r}.")
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        names = [f"x{j}" for j in range(model.n_features_in_)]
    coef = model.coef_.toarray() if sp.issparse(model.coef_) else model.coef_
    record = inference_record(model._inference, model.log_likelihood_)
    table = record.table(coef=coef, intercept=model.intercept_, classes=model.classes_,
                         feature_names=names, fit_intercept=model.fit_intercept, alpha=alpha, ci=ci)
    return replace(table, **_facts(model))


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
