"""The inference record a logistic fit keeps: one typed record per kind of fit, each of which makes
its own summary table.

===================  ===================================================  ==============================
record               fit                                                  table
===================  ===================================================  ==============================
LogisticInference    maximum likelihood, L2-penalised, liblinear's         statsmodels' (Wald)
                     (:mod:`linclass.linear.inference.wald`)
FirthRecord          Firth's penalised likelihood                         Wald's or logistf's profile
                     (:mod:`linclass.linear.firth.inference`)
PenalisedRecord      a penalty with an L1 part (a selection)              the selected coefficients,
                     (:mod:`linclass.linear.inference.penalised_summary`)  no standard errors
===================  ===================================================  ==============================

Every record has ``log_likelihood``, ``null_log_likelihood`` and ``n_obs``, a method
``table(coef=, intercept=, classes=, feature_names=, fit_intercept=, alpha=, ci=)`` and ``as_state()``,
the plain dict model files of format version 1 hold (files are written in that form, so that every
linclass of format version 1 reads them); :func:`inference_record` reads both.
"""

from __future__ import annotations

from linclass.linear.inference.penalised_summary import PenalisedRecord
from linclass.linear.inference.wald import LogisticInference
from linclass.linear.firth.inference import FirthRecord

__all__ = ["FirthRecord", "InferenceRecord", "LogisticInference", "PenalisedRecord",
           "inference_record"]


InferenceRecord = LogisticInference | FirthRecord | PenalisedRecord


def inference_record(state, log_likelihood: float) -> InferenceRecord:
    """The record of a fitted model's ``_inference``: itself, or, for a model file of format version
    1 written before the records existed, the record its dict describes (``log_likelihood``: the
    model's ``log_likelihood_``, which those files keep outside the dict).

    Raises
    ------
    TypeError, KeyError
        When ``state`` is neither (a damaged or hand-edited model file).
    """
    if isinstance(state, (LogisticInference, FirthRecord, PenalisedRecord)):
        return state
    if isinstance(state, dict) and "selection" in state:
        return PenalisedRecord(
            selection=str(state["selection"]), objective=float(state["objective"]),
            log_likelihood=float(state["log_likelihood"]), null_log_likelihood=float(state["null"]),
            n_obs=float(state["n_obs"]), violation=float(state["violation"]),
            converged=bool(state["converged"]))
    wald = LogisticInference.from_state(state, log_likelihood)
    firth = state.get("firth")
    if firth is None:
        return wald
    return FirthRecord(wald=wald, firth=firth)
