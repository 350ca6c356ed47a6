"""Inference for Firth's penalised logistic regression, as R's logistf reports it (two classes) and
as brglm2's ``brmultinom`` does (K > 2: Wald only).

* Standard errors: from the Fisher information :math:`I(\\hat\\theta) = \\tilde X^TW\\tilde X` at the
  penalised estimate, :math:`\\widehat{\\mathrm{Cov}} = J I^{-1} J^T` (what brglm2's ``vcov`` and
  logistf's ``var`` give; the Hessian of :math:`\\ell^*` itself differs from it by several percent
  on small data).  Wald :math:`z = \\hat\\beta/\\mathrm{se}`.
* Profile penalised-likelihood intervals (Heinze & Schemper 2002): the values :math:`b` of each
  parameter with :math:`2[\\ell^*(\\hat\\theta) - \\max_{\\theta: \\beta_j = b}\\ell^*(\\theta)] \\le
  \\chi^2_{1, 1-\\alpha}`, the other parameters refitted at each :math:`b` (the penalty keeps the
  full information matrix, as logistf's profile does).  The refit is a global maximisation: under
  separation it has several local maxima, and :mod:`linclass.linear.firth.profile` searches from
  many starts (a single warm-started fit gave intervals too narrow).
* Penalised likelihood-ratio tests: :math:`2[\\ell^*(\\hat\\theta) - \\max_{\\beta_j = 0}\\ell^*]
  \\sim \\chi^2_1` for each parameter, and against the intercept-only model (its slopes held at 0,
  the penalty again on the full model) for the model as a whole.

The profile quantities need the rows and many constrained fits, so they are computed when a
summary first asks for them (``summary(ci='profile')``, any :math:`\\alpha`), from a copy of the
rows the fit keeps, and kept with the model; a model file holds them for the conventional
:math:`\\alpha = 0.05` when a summary computed them before saving (saving computes nothing).
For K > 2 classes (:mod:`linclass.linear.firth.multinomial`) the record holds the Wald quantities (the
standard errors of brglm2's ``summary.brmultinom``: the inverse Fisher information at the estimate,
for each class's contrast against the first) and the penalised log-likelihoods of the model and of
its intercept-only version; no profile intervals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy.stats import chi2

from linclass.exceptions import TrainingRowsNeeded
from linclass.linear.firth.objective import FirthObjective, constrained_fit
from linclass.linear.firth.chunked import ChunkedFirthObjective
from linclass.linear.firth.likelihood import EXACT_MAX, PenalisedLikelihood
from linclass.linear.firth.multinomial import MultinomialFirthObjective
from linclass.linear.firth.profile import Profile
from linclass.linear.inference.summary import Summary
from linclass.linear.inference.wald import LogisticInference, logistic_inference
from linclass.linear.firth.starts import explore
from linclass.linear.logistic.separation import overlap_proved
from linclass.linear.logistic.separation import separation as find_separation

__all__ = ["PROFILE_ALPHA", "Firth", "FirthRecord", "ProfileRows", "firth_notes", "firth_state",
           "firth_summary", "multinomial_firth_state", "profile_state"]

PROFILE_ALPHA = 0.05
MAX_PROFILE_PARAMS = 200  # larger models get Wald intervals only
_NO_PROFILE = f"profile intervals are computed for at most {MAX_PROFILE_PARAMS} parameters"
_NOT_SAVED = ("the model was saved before summary(ci='profile') computed its profile intervals, "
              "and a model file does not keep the training rows they need: pass them as "
              "summary(ci='profile', X=X, y=y), or call summary(ci='profile') before saving")


def firth_state(X, y, sample_weight, fit_intercept: bool, coef, intercept,
                separation: str | None) -> dict:
    """The Firth part of a fit's inference state (stored in the model file), without the profile
    quantities (:func:`profile_state`, computed when first asked for).

    Parameters
    ----------
    X, y, sample_weight : the training rows (y in {0, 1}; the weights the fit used)
    fit_intercept : bool
    coef, intercept : the fitted log-odds coefficients, shapes (1, d) and (1,)
    separation : 'complete', 'quasi' or None
        What the separation check found (the maximum-likelihood estimate would not exist).

    Returns
    -------
    dict with 'penalised' (:math:`\\ell^*(\\hat\\theta)`), 'null_penalised', 'separation',
    'profile' (None until computed) and, for a model with more than :data:`MAX_PROFILE_PARAMS`
    parameters, 'no_profile' (why there are none).
    """
    d = X.shape[1]
    objective = FirthObjective(X, y, sample_weight, fit_intercept=fit_intercept,
                               offset=np.zeros(d))
    theta = _uncentred(coef, intercept, fit_intercept)
    slopes = np.zeros(theta.size, dtype=bool)
    slopes[:d] = True
    _, null_value, _ = constrained_fit(objective, slopes, np.where(slopes, 0.0, theta))
    state = {"penalised": float(objective.penalised_log_likelihood(theta)),
             "null_penalised": float(-null_value * objective.total),
             "separation": separation, "profile": None}
    if theta.size > MAX_PROFILE_PARAMS:
        state["no_profile"] = _NO_PROFILE
    return state


def _uncentred(coef, intercept, fit_intercept: bool) -> np.ndarray:
    """The uncentred parameters ``[coef..., intercept]`` of a two-class fit."""
    return np.r_[np.asarray(coef, dtype=np.float64).reshape(-1),
                 np.asarray(intercept, dtype=np.float64).reshape(-1)[:int(fit_intercept)]]


def profile_state(X, y, sample_weight, fit_intercept: bool, coef, intercept, std_err,
                  separation: str | None, alpha: float = PROFILE_ALPHA) -> dict:
    """The profile penalised-likelihood intervals at level :math:`1-\\alpha`, the penalised
    likelihood-ratio statistics and their p-values of every parameter (the module docstring):
    'lower', 'upper', 'lr_statistic', 'p_value' of shape (p,) in reported order (intercept
    first), and 'alpha'.  Each parameter's profile costs several constrained fits, so a fit leaves
    them to the first summary that asks (:class:`FirthRecord`).

    Parameters
    ----------
    X, y, sample_weight, fit_intercept, coef, intercept, separation : as :func:`firth_state`
    std_err : ndarray of shape (p,)
        Standard errors of the reported parameters (intercept first), for the bracketing steps.
    alpha : float
    """
    theta = _uncentred(coef, intercept, fit_intercept)
    p = theta.size
    order = np.r_[p - 1, np.arange(p - 1)] if fit_intercept else np.arange(p)
    q = chi2.ppf(1.0 - alpha, 1)
    problem = PenalisedLikelihood(X, y, sample_weight, fit_intercept)
    scale = np.asarray(std_err, dtype=np.float64)[np.argsort(order)]
    scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0 + np.abs(theta))
    lower, upper, lr = np.empty(p), np.empty(p), np.empty(p)
    starts = n_starts(p, separation)
    for j in range(p):
        profile = Profile(problem, theta, j, scale, starts)
        lr[j] = max(profile.deviance(0.0, explore=True), 0.0)
        lower[j] = profile.bound(-1.0, q)
        upper[j] = profile.bound(1.0, q)
    return {"lower": lower[order], "upper": upper[order], "lr_statistic": lr[order],
            "p_value": chi2.sf(lr[order], 1), "alpha": float(alpha)}


@dataclass(eq=False)
class ProfileRows:
    """What a two-class Firth fit keeps to compute its profile quantities when first asked for:
    a copy of the training rows (``X``, ``y`` in {0, 1}, the fit's ``weight``), the estimate, its
    standard errors (reported order) and the separation found; ``computed``: the profiles already
    computed, by alpha.  Not written to model files (:meth:`FirthRecord.as_state` writes the
    profile at :data:`PROFILE_ALPHA` instead)."""

    X: np.ndarray
    y: np.ndarray
    weight: np.ndarray | None
    fit_intercept: bool
    coef: np.ndarray
    intercept: np.ndarray
    std_err: np.ndarray
    separation: str | None
    computed: dict

    def profile(self, alpha: float) -> dict:
        key = float(alpha)
        if key not in self.computed:
            self.computed[key] = profile_state(self.X, self.y, self.weight, self.fit_intercept,
                                               self.coef, self.intercept, self.std_err,
                                               self.separation, alpha)
        return self.computed[key]


def profile_rows(X, y, weight, fit_intercept: bool, coef, intercept, covariance,
                 separation: str | None) -> ProfileRows:
    """A :class:`ProfileRows` of copies of the training rows and the estimate, with the standard
    errors of ``covariance`` (the Wald record's, reported order; NaN where it is None)."""
    se = (np.sqrt(np.clip(np.diag(covariance), 0.0, None)) if covariance is not None
          else np.full(_uncentred(coef, intercept, fit_intercept).size, np.nan))
    return ProfileRows(np.array(X, dtype=np.float64), np.array(y),
                       None if weight is None else np.array(weight, dtype=np.float64),
                       fit_intercept, np.array(coef), np.array(intercept), se, separation, {})


def multinomial_firth_state(X, y, n_classes: int, sample_weight, fit_intercept: bool, coef,
                            intercept, separation: str | None) -> dict:
    """The Firth part of a K-class fit's inference state: 'penalised'
    (:math:`\\ell^*(\\hat\\theta)`, the information in the baseline-category parametrisation),
    'null_penalised' (:math:`\\ell^*` maximised with every slope held at 0, the penalty on the
    full model), 'separation', and 'profile' None with 'no_profile' saying why.

    Parameters
    ----------
    X, y, sample_weight : the training rows (y class indices; the weights the fit used)
    n_classes : int
    fit_intercept : bool
    coef, intercept : the fitted coefficients, shapes (K, d) and (K,)
    separation : 'complete', 'quasi' or None
    """
    d = X.shape[1]
    objective = MultinomialFirthObjective(X, y, n_classes, sample_weight,
                                          fit_intercept=fit_intercept, offset=np.zeros(d))
    theta = objective.from_coefficients(coef, intercept)
    slopes = np.zeros(objective.shape, dtype=bool)
    slopes[:d] = True
    slopes = slopes.ravel()
    _, null_value, _ = constrained_fit(objective, slopes, np.where(slopes, 0.0, theta.ravel()))
    return {"penalised": float(objective.penalised_log_likelihood(theta)),
            "null_penalised": float(-null_value * objective.total), "separation": separation,
            "profile": None,
            "no_profile": "profile intervals are computed for two-class Firth fits only"}


def separation_at(problem, objective, theta) -> str | None:
    """'complete', 'quasi' or None for the rows of ``problem``: proved absent by Stiemke's weights
    at ``theta``, else decided by the linear programme (None when it is too large to attempt)."""
    K = problem.n_classes
    if overlap_proved(problem.X, problem.y, objective.scores(theta), K, problem.weight,
                      problem.fit_intercept):
        return None
    try:
        return find_separation(problem.X, problem.y, K, problem.weight, problem.fit_intercept)
    except ValueError:  # too large a linear programme to attempt
        return None


def n_starts(n_params: int, separation: str | None) -> int:
    """Quasi-random starts of the profile search at each checked point.

    Only under separation has the profile been seen to have several local maxima (on data without
    it, these starts never found a higher one); none above
    :data:`~linclass.linear.firth.likelihood.EXACT_MAX` parameters, where Fisher scoring alone is
    slow.  Otherwise 32, fewer from 9 parameters on (each start costs :math:`O(np^3)` an
    iteration).
    """
    if separation is None or n_params > EXACT_MAX:
        return 0
    return max(8, min(32, 256 // n_params))


def firth_notes(state: dict, converged: bool, n_iter: int) -> list:
    """The caveats a Firth summary prints."""
    notes = ["Firth's penalised likelihood (penalty='firth'): log-likelihoods and the LR test are "
             "penalised (l + 1/2 log|I|, the null model's slopes held at 0), as logistf reports "
             "them; standard errors from the Fisher information X^T W X at the penalised estimate "
             "(as brglm2 and logistf; not the penalised log-likelihood's Hessian)."]
    if state["separation"] is not None:
        offered = state["profile"] is not None or state.get("profile_pending", False)
        advice = ("Prefer the profile intervals and likelihood-ratio p-values "
                  "(summary(ci='profile')) to the Wald ones." if offered else
                  "The Wald intervals and p-values can be poor approximations here.")
        notes.append(f"{state['separation']} separation is present: the maximum-likelihood estimate "
                     f"does not exist, Firth's estimate does. {advice}")
    if state.get("separation_checked", True) is False:
        notes.append("separation was not checked (a linear programme over the rows in memory); "
                     "Firth's estimate exists either way.")
    if state["profile"] is None and not state.get("profile_pending", False):
        notes.append(state.get("no_profile", _NO_PROFILE) + ".")
    if not converged:
        notes.append(f"the solver did not converge in {n_iter} iterations.")
    return notes


def firth_summary(table, state: dict, ci: str, profile: dict | None = None):
    """The summary table of a Firth fit: Wald's (``ci='wald'``), or with the profile penalised-
    likelihood intervals, the penalised likelihood-ratio statistics and their p-values in place of
    Wald's (``ci='profile'``: columns chi2 and P>chi2; ``conf_int()`` gives these intervals):
    ``profile`` (:func:`profile_state`), or the one ``state`` holds."""
    if ci == "wald":
        return table
    profile = state["profile"] if profile is None else profile
    if profile is None:
        error = TrainingRowsNeeded if state.get("no_profile") == _NOT_SAVED else ValueError
        raise error(f"No profile intervals for this fit: {state.get('no_profile', _NO_PROFILE)}"
                    "; use ci='wald'.")
    if abs(table.alpha - profile["alpha"]) > 1e-12:
        raise ValueError(f"The model file holds the profile intervals for alpha="
                         f"{profile['alpha']:g} (other levels are computed from the fit's rows, "
                         f"which a model file does not keep); use summary(alpha="
                         f"{profile['alpha']:g}, ci='profile') or ci='wald'.")
    shape = table.coef.shape
    notes = list(table.notes) + ["intervals: profile penalised likelihood; p-values: penalised "
                                 "likelihood-ratio tests (chi2 with 1 df)."]
    return replace(table, ci="profile", chi2=np.reshape(profile["lr_statistic"], shape),
                   ci_lower=np.reshape(profile["lower"], shape),
                   ci_upper=np.reshape(profile["upper"], shape),
                   p_value=np.reshape(profile["p_value"], shape), notes=notes)


@dataclass(frozen=True, eq=False)
class FirthRecord:
    """The inference record of Firth's fit: the Wald quantities at the penalised estimate (``wald``,
    with Firth's notes) and the Firth quantities (``firth``: the dict of :func:`firth_state`).  Its
    log-likelihoods are the penalised ones, as logistf reports them.

    The profile quantities cost many constrained fits (31 s of a 31.1 s fit on mlbench's Sonar, 208
    rows and 61 parameters), so a fit of rows in memory keeps what they need (``rows``,
    :class:`ProfileRows`) and computes them at the first ``table(ci='profile')`` for each alpha,
    keeping them for the next.  A model file holds the profile at :data:`PROFILE_ALPHA` if a
    summary computed it before saving (:meth:`as_state` computes nothing), never the rows."""

    wald: LogisticInference
    firth: dict
    rows: ProfileRows | None = None

    def profile(self, alpha: float) -> dict | None:
        """The profile quantities at level ``1 - alpha`` (:func:`profile_state`): those kept, else
        computed from the fit's rows and kept; None where there are none (more than
        :data:`MAX_PROFILE_PARAMS` parameters, K > 2 classes, a chunked fit)."""
        stored = self.firth.get("profile")
        if stored is not None and abs(stored["alpha"] - alpha) <= 1e-12:
            return stored
        if self.rows is None or "no_profile" in self.firth:
            return stored
        profile = self.rows.profile(alpha)
        if abs(alpha - PROFILE_ALPHA) <= 1e-12:
            self.firth["profile"] = profile
            self.firth.pop("profile_pending", None)
        return profile

    def with_rows(self, X, y, weight, fit_intercept: bool, coef, intercept) -> "FirthRecord":
        """This record with the training rows a model file does not keep (``y`` in {0, 1}), so
        that a loaded two-class fit saved before its profile was computed can compute it.  The
        rows must give the fit's penalised log-likelihood at the estimate (to 1e-8, relative).

        Raises
        ------
        ValueError
            For rows on which the model was not fitted, or a record that has no profile to compute
            (K > 2 classes, more than :data:`MAX_PROFILE_PARAMS` parameters, a chunked fit).
        """
        if self.firth.get("no_profile") != _NOT_SAVED:
            return self
        X = np.asarray(X, dtype=np.float64)
        d = X.shape[1]
        objective = FirthObjective(X, np.asarray(y), weight, fit_intercept=fit_intercept,
                                   offset=np.zeros(d))
        value = float(objective.penalised_log_likelihood(_uncentred(coef, intercept,
                                                                    fit_intercept)))
        stored = float(self.firth["penalised"])
        if not abs(value - stored) <= 1e-8 * max(1.0, abs(stored)):
            raise ValueError(f"ci='profile': the rows passed give the penalised log-likelihood "
                             f"{value:.10g} at the estimate, where the fit had {stored:.10g}; pass "
                             "the rows (and sample_weight) the model was fitted on.")
        rows = profile_rows(X, y, weight, fit_intercept, coef, intercept, self.wald.covariance,
                            self.firth["separation"])
        firth = {key: value for key, value in self.firth.items() if key != "no_profile"}
        firth["profile_pending"] = True
        return replace(self, firth=firth, rows=rows)

    @property
    def log_likelihood(self) -> float:
        return float(self.firth["penalised"])

    @property
    def null_log_likelihood(self) -> float:
        return float(self.firth["null_penalised"])

    @property
    def n_obs(self) -> float:
        return self.wald.n_obs

    def as_state(self) -> dict:
        """The dict model files of format version 1 hold: the Wald record's, with ``firth`` (the
        profile at :data:`PROFILE_ALPHA` if a summary computed it; saving computes nothing, since
        the profile can cost far more than the fit, so a profile still pending is written as
        'no_profile' with :data:`_NOT_SAVED`)."""
        firth = dict(self.firth)
        if firth.pop("profile_pending", False):
            firth["no_profile"] = _NOT_SAVED
        return {**self.wald.as_state(), "firth": firth}

    def table(self, *, coef, intercept, classes, feature_names, fit_intercept, alpha=0.05,
              ci="wald") -> Summary:
        if ci not in ("wald", "profile"):
            raise ValueError(f"ci must be 'wald' or 'profile'; got {ci!r}.")
        wald = replace(self.wald, log_likelihood=self.log_likelihood,
                       null_log_likelihood=self.null_log_likelihood)
        table = wald.table(coef=coef, intercept=intercept, classes=classes,
                           feature_names=feature_names, fit_intercept=fit_intercept, alpha=alpha)
        return firth_summary(table, self.firth, ci,
                             self.profile(table.alpha) if ci == "profile" else None)


class Firth:
    """Firth's penalty :math:`-\\tfrac12\\ln|I(\\theta)|` (Firth 1993), the penalty protocol's
    entry ``'firth'`` (:mod:`linclass.linear.fitting.choice`): smooth, fitted by Newton's method
    (IRLS with the hat-matrix adjustment), on rows in memory or on a chunk source
    (:class:`~linclass.linear.firth.chunked.ChunkedFirthObjective`, one pass per
    iteration; Wald inference only).  Two classes:
    :class:`~linclass.linear.firth.objective.FirthObjective` and logistf's profile inference; K > 2:
    :class:`~linclass.linear.firth.multinomial.MultinomialFirthObjective` (brglm2's
    ``brmultinom``) and Wald's."""

    name = kind = "firth"
    smooth = True
    sparse = False
    solvers = ("newton",)
    in_memory = False  # chunked designs too (linclass.linear.firth.chunked)
    l2 = 0.0
    C, l1_ratio = math.inf, 0.0

    def __repr__(self) -> str:
        return "Firth()"

    def check(self, problem) -> None:
        if problem.offset is not None:
            raise ValueError("penalty='firth' takes no offset (its penalty, profile intervals and "
                             "null model are computed without one); fit with penalty=None or "
                             "'l2' to use offset=.")
        if problem.sparse:
            raise ValueError("penalty='firth' needs a dense X (it forms the hat matrix of every "
                             "row); convert it with X.toarray().")

    # Newton steps with the exact Hessian of l* after the solver's (linclass.linear.solvers.
    # final_step): from a gradient of tol, where l* is flat in some direction (separation), the
    # estimate can still be percents off (mlbench's Sonar: 8% at 1e-6); each step squares that
    final_step = True
    certifiable = False  # no duality gap: a smooth fit stops on the modified score
    score = "modified score"

    def objective(self, problem, *, proximal: bool = False):
        # a chunk source's curvature is the Fisher information (one pass an iteration): no last
        # Newton steps of l*'s Hessian there
        self.final_step = problem.source is None
        if problem.source is not None:
            return ChunkedFirthObjective(problem.source, class_weight=problem.class_weight,
                                         fit_intercept=problem.fit_intercept)
        if problem.n_classes == 2:
            return FirthObjective(problem.X, problem.y, problem.weight,
                                  fit_intercept=problem.fit_intercept)
        return MultinomialFirthObjective(problem.X, problem.y, problem.n_classes, problem.weight,
                                         fit_intercept=problem.fit_intercept)

    def coefficients(self, objective, theta):
        return objective.coefficients(theta)

    def explore(self, problem, objective, result, options):
        """The highest of the local maxima that Newton's method reaches from several starts, on
        separated data (:func:`linclass.linear.firth.starts.explore`)."""
        return explore(problem, objective, result, options, separation_at)

    def start(self, objective, warm, max_iter: int):
        """Newton / IRLS from the intercept-only fit (or a warm start), once the information matrix
        is known to be non-singular there."""
        objective.check_identifiable(objective.null_start())
        return objective.null_start() if warm is None else objective.from_coefficients(*warm)

    def value(self, W) -> float:
        raise TypeError("Firth's penalty depends on the design (the information matrix), not on the "
                        "coefficients alone: FirthObjective.penalty_parts gives it.")

    def finish(self, objective, result, problem, hessian=None):
        """``(separation, record, log_likelihood)``: the separation found without a warning (the
        estimate exists all the same), Wald's quantities and (two classes) logistf's profile
        ones.  On a chunk source: Wald's quantities and the penalised log-likelihoods, no
        separation check and no profile intervals (they need the rows in memory)."""
        K = problem.n_classes
        if problem.source is not None:
            wald = logistic_inference(objective, result)
            firth = objective.firth_state(result.theta)
            wald = replace(wald, notes=tuple(firth_notes(firth, result.converged, result.n_iter)))
            return None, FirthRecord(wald=wald, firth=firth), objective.log_likelihood(result.theta)
        separation = getattr(objective, "firth_separation", False)
        if separation is False:  # not checked by explore (a fit stopped early)
            separation = separation_at(problem, objective, result.theta)
        # the covariance of the Fisher information (the Newton steps' curvature may be the exact
        # Hessian of l*, which the fit passes as ``hessian``)
        wald = logistic_inference(objective, result,
                                  hessian=objective.fisher_information(result.theta))
        coef, intercept = objective.coefficients(result.theta)
        rows = None
        if K > 2:
            firth = multinomial_firth_state(problem.X, problem.y, K, problem.weight,
                                            problem.fit_intercept, coef, intercept, separation)
        else:
            firth = firth_state(problem.X, problem.y, problem.weight, problem.fit_intercept, coef,
                                intercept, separation)
            if "no_profile" not in firth:  # the profile when a summary asks for it
                rows = profile_rows(problem.X, problem.y, problem.weight, problem.fit_intercept,
                                    coef, intercept, wald.covariance, separation)
                firth["profile_pending"] = True
        wald = replace(wald, notes=tuple(firth_notes(firth, result.converged, result.n_iter)))
        return (separation, FirthRecord(wald=wald, firth=firth, rows=rows),
                objective.log_likelihood(result.theta))
