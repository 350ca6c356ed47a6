"""The inference record a logistic fit keeps: one typed record per kind of fit, each of which makes
its own summary table.

===================  ===================================================  ==============================
record               fit                                                  table
===================  ===================================================  ==============================
LogisticInference    maximum likelihood, L2-penalised, liblinear's         statsmodels' (Wald)
                     (:mod:`linclass.linear.inference.wald`)
FirthRecord          Firth's penalised likelihood                         Wald's or logistf's profile
                     (:mod:`linclass.linear.firth.inference`)
PenalisedFacts       a penalty with an L1 part (a selection)              the selected coefficients,
                     (built into a PenalisedRecord when a summary asks,   no standard errors
                     :mod:`linclass.linear.inference.penalised_summary`)
===================  ===================================================  ==============================

Every record has ``log_likelihood`` and ``n_obs``, and ``as_state()``, the plain dict model files of
format version 1 hold (files are written in that form, so that every linclass of format version 1
reads them); :func:`inference_record` gives the record a summary reads, from a fit's record or from
that dict: it has ``null_log_likelihood`` and a method ``table(coef=, intercept=, classes=,
feature_names=, fit_intercept=, alpha=, ci=)``.

A selection's fit keeps plain numbers (:class:`PenalisedFacts`): the penalty's name and parameters,
the class totals, and the values the solver ended with; the penalty in words and the null model's
log-likelihood are the report's, made when a summary asks for them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from linclass.linear.fitting.choice import PENALTIES
from linclass.linear.firth.inference import FirthRecord
from linclass.linear.inference.penalised_summary import PenalisedRecord, describe_penalty
from linclass.linear.inference.wald import LogisticInference
from linclass.linear.logistic.losses import null_log_likelihood

__all__ = ["FirthRecord", "InferenceRecord", "LogisticInference", "PenalisedFacts",
           "PenalisedRecord", "inference_record"]


@dataclass(frozen=True, eq=False)
class PenalisedFacts:
    """What a fit with an L1 part (a selection) keeps for its report, as plain numbers; its
    :class:`~linclass.linear.inference.penalised_summary.PenalisedRecord` is built from them when a
    summary asks (:meth:`record`).

    Attributes
    ----------
    penalty : str or None
        The penalty's name in the table (:data:`~linclass.linear.fitting.choice.PENALTIES`).
    C, l1_ratio : float
    gamma : float or None
        The concavity of a folded concave penalty; None for the others.
    factors, bounded : bool
        Whether the penalty has per-feature factors, and bounds on the coefficients.
    objective : float
        The penalised objective at the fit (summed log-loss plus penalty).
    log_likelihood : float
    class_totals : ndarray of shape (n_classes,)
        The weight of each class.
    n_obs : float
        The total weight.
    intercept : bool
        Whether the null model has an intercept (the model's own).
    null : float or None
        The null model's log-likelihood where the class totals do not give it (a fit with an
        offset: the intercept-only fit with the offset, which needs the rows); None otherwise.
    violation : float
    converged : bool
    relax : float or None
        The blend of a relaxed fit (:mod:`linclass.linear.fitting.relax`); None for the penalised
        fit itself.
    """

    penalty: str | None
    C: float
    l1_ratio: float
    gamma: float | None
    factors: bool
    bounded: bool
    objective: float
    log_likelihood: float
    class_totals: np.ndarray
    n_obs: float
    intercept: bool
    null: float | None
    violation: float
    converged: bool
    relax: float | None = None

    def selection(self) -> str:
        """The penalty in words: the penalty's own words where it has them (``describe()``), else
        :func:`~linclass.linear.inference.penalised_summary.describe_penalty`'s, and what the
        fit added to it."""
        penalty = PENALTIES[self.penalty](self.C, self.l1_ratio, self.gamma)
        words = (penalty.describe() if hasattr(penalty, "describe")
                 else describe_penalty(self.penalty, self.C, self.l1_ratio))
        if self.factors:
            words += ", per-feature penalty factors"
        if self.bounded:
            words += ", coefficients bounded (lower_bounds / upper_bounds)"
        return words if self.relax is None else f"{words}, relax={self.relax:g}"

    def record(self) -> PenalisedRecord:
        """The report's record of this fit: the penalty in words (:meth:`selection`) and the null
        model's log-likelihood (:func:`~linclass.linear.logistic.losses.null_log_likelihood` of
        the class totals, or ``null``)."""
        null = (null_log_likelihood(self.class_totals, self.n_obs, self.intercept)
                if self.null is None else self.null)
        return PenalisedRecord(
            selection=self.selection(), objective=float(self.objective),
            log_likelihood=float(self.log_likelihood), null_log_likelihood=float(null),
            n_obs=float(self.n_obs), violation=float(self.violation),
            converged=bool(self.converged))

    def as_state(self) -> dict:
        """The dict model files of format version 1 hold: the report's record's."""
        return self.record().as_state()


InferenceRecord = LogisticInference | FirthRecord | PenalisedRecord


def inference_record(state, log_likelihood: float) -> InferenceRecord:
    """The record a summary reads of a fitted model's ``_inference``: itself; the report's record
    of a selection's facts (:meth:`PenalisedFacts.record`); or, for a model file of format version
    1, the record its dict describes (``log_likelihood``: the model's ``log_likelihood_``, which
    those files keep outside the dict).

    Raises
    ------
    TypeError, KeyError
        When ``state`` is neither (a damaged or hand-edited model file).
    """
    if isinstance(state, (LogisticInference, FirthRecord, PenalisedRecord)):
        return state
    if isinstance(state, PenalisedFacts):
        return state.record()
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
