"""The summary table of a fitted :class:`~linclass.LogisticRegression`: statsmodels' table for the
smooth fits (:mod:`linclass.linear.summary`), logistf's profile intervals for Firth's
(:mod:`linclass.linear.firth_inference`), the honest table of a penalised selection
(:mod:`linclass.linear.penalised_summary`).  No mathematics here."""

from __future__ import annotations

from dataclasses import replace

import scipy.sparse as sp

from linclass.linear.firth_inference import firth_summary
from linclass.linear.inference import LogisticInference
from linclass.linear.penalised_summary import is_penalised_state, penalised_summary

__all__ = ["summary_table"]


def summary_table(model, alpha: float, ci: str):
    """:meth:`linclass.LogisticRegression.summary` of the fitted model ``model``."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1); got {alpha!r}.")
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        names = [f"x{j}" for j in range(model.n_features_in_)]
    coef = model.coef_.toarray() if sp.issparse(model.coef_) else model.coef_
    if is_penalised_state(model._inference):
        return penalised_summary(model._inference, coef=coef, intercept=model.intercept_,
                                 classes=model.classes_, feature_names=names,
                                 fit_intercept=model.fit_intercept)
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
    return table if firth is None else firth_summary(table, firth, ci)
