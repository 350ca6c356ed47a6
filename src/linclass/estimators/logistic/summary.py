"""The summary table of a fitted :class:`~linclass.LogisticRegression`: the table of its inference
record (:mod:`linclass.linear.fitting.records`: statsmodels' for the smooth fits, logistf's profile
intervals for Firth's, the honest table of a penalised selection), with the header's facts about the
fit (the name of y, the method, solver, iterations, convergence, the time of the fit), and what an
unpenalised fit's table computes from the training rows passed to it: robust covariances
(:mod:`linclass.linear.inference.sandwich`).  No mathematics here."""

from __future__ import annotations

import time
import warnings
from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from linclass.core.validation import validate_predict, validate_sample_weight
from linclass.linear.fitting.records import FirthRecord, LogisticInference, inference_record
from linclass.linear.inference.margins import marginal_effects, variable_effects
from linclass.linear.inference.profile import profile_intervals
from linclass.linear.inference.summary import Summary, level_name, softmax_names
from linclass.linear.inference.wald import expand_covariance
from linclass.linear.inference.sandwich import (check_cluster_correction, check_cov_type, describe,
                                                robust_covariance)
from linclass.linear.logistic.offsets import reported_offset
from linclass.sources.dask import is_dask_collection
from linclass.estimators.logistic_training_rows import fit_offset, training_rows

__all__ = ["estimable", "fit_record", "margins_table", "reported_parameters", "summary_table",
           "weights_record"]

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


def weights_record(sample_weight, weight) -> dict:
    """What the summary says about a fit's weights, recorded by ``fit`` (in memory): the rows of
    positive weight ``n_rows`` (the observations of variance weights) and whether the sample
    weights were given, whole numbers or not (``weights``: 'none', 'integer', 'non-integer')."""
    n_rows = None if weight is None else int(np.sum(np.asarray(weight) > 0))
    if sample_weight is None:
        kind = "none"
    else:
        sw = np.asarray(sample_weight, dtype=np.float64)
        kind = "integer" if np.all(sw == np.round(sw)) else "non-integer"
    return {"n_rows": n_rows, "weights": kind}


def _weight_notes(model, table):
    """The table as ``weight_type`` reads the weights (variance weights: one observation per row of
    positive weight), and the table's notes that say which weights the fit used and how."""
    record = getattr(model, "_fit_record", None)
    record = record if isinstance(record, dict) else {}
    kind, n_rows = record.get("weights", "none"), record.get("n_rows")
    notes = []
    variance = getattr(model, "weight_type", "frequency") == "variance"
    if variance and n_rows is not None:
        k = float(np.sum(np.isfinite(table.coef)))
        table = replace(table, n_obs=float(n_rows),
                        bic=float(-2.0 * table.log_likelihood + k * np.log(n_rows)))
        notes.append(f"weights: variance (analytic) weights, as R's glm prior weights and "
                     f"statsmodels' var_weights: {n_rows} observations, the rows of positive "
                     "weight (weight_type='variance').")
    elif variance:
        notes.append("weight_type='variance' needs the count of rows the fit recorded (a fit of "
                     "rows in memory); the observations here are the weights' sum.")
    elif kind != "none":
        notes.append(f"weights: frequency weights (statsmodels' freq_weights: each row counts as "
                     f"its weight in observations): {table.n_obs:g} observations"
                     f"{'' if n_rows is None else f' in {n_rows} rows'}.")
        if kind == "non-integer":
            notes.append("some weights are not whole numbers: for analytic (variance) weights, "
                         "such as R's glm prior weights, use weight_type='variance'.")
    class_weight = getattr(model, "class_weight", None)
    if class_weight is not None:
        described = ("'balanced'" if isinstance(class_weight, str) else
                     "{" + ", ".join(f"{k!r}: {v:g}" for k, v in class_weight.items()) + "}")
        notes.append(f"class_weight={described} multiplied each row's weight by its class's "
                     "weight: the likelihood, standard errors and tests are those of the "
                     "reweighted sample, not of the data as drawn.")
    return replace(table, notes=[*table.notes, *notes]) if notes else table


def summary_table(model, alpha: float, ci: str, *, cov_type: str = "nonrobust", groups=None,
                  X=None, y=None, sample_weight=None, source=None, reference=None, offset=None,
                  cluster_correction=None):
    """:meth:`linclass.LogisticRegression.summary` of the fitted model ``model``: the table its
    inference record makes (:mod:`linclass.linear.fitting.records`), with the header's facts; with
    a robust ``cov_type``, its covariance computed from the training rows (``X``, ``y``,
    ``sample_weight``, ``offset``, or a chunk ``source``) and ``groups`` (with the small-sample
    factor ``cluster_correction``)."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1); got {alpha!r}.")
    cov_type = check_cov_type(cov_type, groups)
    correction = check_cluster_correction(cluster_correction, cov_type)
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        names = [f"x{j}" for j in range(model.n_features_in_)]
    coef = model.coef_.toarray() if sp.issparse(model.coef_) else model.coef_
    record = inference_record(model._inference, model.log_likelihood_)
    notes, profile = [], None
    if cov_type != "nonrobust":
        unpenalised(model, record, f"cov_type={cov_type!r}")
        rows = training_rows(model, X, y, sample_weight, groups=groups, source=source,
                             purpose=f"cov_type={cov_type!r}", offset=offset)
        keep = estimable(model)
        coef_r, intercept_r = reported_parameters(model)
        covariance = robust_covariance(rows.score_sums(coef_r[:, keep], intercept_r, keep),
                                       cov_type, correction)
        covariance = expand_covariance(covariance, keep, coef_r.shape[0], model.fit_intercept)
        notes.append(describe(cov_type, correction, rows.n_clusters))
    if ci == "profile" and isinstance(record, LogisticInference):
        unpenalised(model, record, "ci='profile'", hint=" A Firth fit (penalty='firth') has its "
                    "profile penalised-likelihood intervals from the fit.")
        rows = training_rows(model, X, y, sample_weight, source=source, purpose="ci='profile'",
                             in_memory=True, offset=offset)
        keep = estimable(model)
        variance = np.diag(record.covariance)
        found = ~np.isnan(variance)  # the estimable parameters (aliased ones: NaN)
        coef_r, intercept_r = reported_parameters(model)
        X_kept = rows.X[:, keep] if not keep.all() else rows.X
        kept = profile_intervals(X_kept, rows.y, rows.weight, coef_r[:, keep], intercept_r,
                                 model.fit_intercept, np.sqrt(np.clip(variance[found], 0.0, None)),
                                 alpha, offset=reported_offset(rows.offset))
        profile = replace(kept, **{name: _spread(getattr(kept, name), found) for name in
                                   ("lower", "upper", "lr_statistic", "p_value", "estimate")})
        ci = "wald"  # the record's table; the profile columns replace Wald's below
    if (ci == "profile" and isinstance(record, FirthRecord) and record.rows is None
            and (X is not None or source is not None)):  # a model file without its profile
        rows = training_rows(model, X, y, sample_weight, source=source, purpose="ci='profile'",
                             in_memory=True, offset=offset)
        record = record.with_rows(rows.X, rows.y, rows.weight, model.fit_intercept, model.coef_,
                                  model.intercept_)
    if cov_type != "nonrobust":
        record = replace(record, covariance=covariance)
    extra = {}
    r = _reference_index(model, reference)
    if r:
        if not isinstance(record, LogisticInference) or profile is not None:
            raise ValueError("summary(reference=...) is offered for maximum-likelihood and L2 fits "
                             "with Wald intervals; this table reports contrasts against "
                             f"{model.classes_[0]!r}.")
        extra["reference"] = r
    table = record.table(coef=coef, intercept=model.intercept_, classes=model.classes_,
                         feature_names=names, fit_intercept=model.fit_intercept, alpha=alpha, ci=ci,
                         **extra)
    if profile is not None:
        shape = table.coef.shape
        notes.append("intervals: profile likelihood (as R's confint of a glm); p-values: "
                     "likelihood-ratio tests (chi2 with 1 df).")
        table = replace(table, ci="profile", chi2=profile.lr_statistic.reshape(shape),
                        p_value=profile.p_value.reshape(shape),
                        ci_lower=profile.lower.reshape(shape), ci_upper=profile.upper.reshape(shape))
    if notes:
        table = replace(table, covariance_type=cov_type, notes=[*table.notes, *notes])
    if correction is not None:
        table = replace(table, n_clusters=rows.n_clusters, cluster_correction=correction)
    if isinstance(table, Summary):
        table = _weight_notes(model, table)
    facts = _facts(model)
    table = _named_equations(table, model.classes_, r, facts["dep_variable"])
    return replace(table, title=_titled(model, table.title), **facts)


def _named_equations(table, classes, reference: int, dep_variable: str):
    """The table's equations named by the response and the level (``PID=1``), as the marginal
    effects' table names the classes: a softmax table's contrasts against ``classes[reference]``
    (which its title names), a penalised softmax table's rows per class."""
    if len(table.equations) < 2:
        return table
    classes = list(np.asarray(classes).tolist())
    if isinstance(table, Summary):
        order = [classes[reference]] + [c for k, c in enumerate(classes) if k != reference]
        title, equations = softmax_names(order, dep_variable)
        return replace(table, title=title, equations=equations)
    return replace(table, equations=[level_name(dep_variable, c) for c in classes])


def _titled(model, title: str) -> str:
    """The table's title, naming the penalty of a smooth penalised fit first (its estimates are
    shrunk and its tests are not frequentist inference; the table's notes say so): "L2-penalised logistic
    regression (C=1): ..." rather than a title that reads as the maximum-likelihood fit's."""
    try:
        penalty = model._penalty()
    except (ValueError, AttributeError):
        return title
    if getattr(penalty, "kind", None) != "l2" or not title[:1].isupper():
        return title  # (an L1 part gives the penalised selection's own table)
    model_name, _, rest = title.partition(":")
    return f"L2-penalised {model_name[0].lower()}{model_name[1:]} (C={penalty.C:g}):{rest}"


def margins_table(model, X, *, at: str, method: str, dummy, count, sample_weight,
                  y, cov_type: str, groups, atexog=None, designs=None):
    """:meth:`linclass.LogisticRegression.marginal_effects`: the effects over the rows ``X``
    (:mod:`linclass.linear.inference.margins`) with the fit's covariance, or with ``cov_type``'s
    from the training rows ``X``, ``y``, ``sample_weight`` and ``groups``.  ``designs``: a
    callable that gives ``(points, weights, designs, notes)`` of
    :func:`~linclass.linear.inference.margins.variable_effects` (a formula model's effects per
    variable) from the rows' validated weights, called once the model is known to have them."""
    cov_type = check_cov_type(cov_type, groups)
    record = inference_record(model._inference, model.log_likelihood_)
    unpenalised(model, record, "marginal_effects")
    if fit_offset(model) is not None:
        raise ValueError("marginal_effects of a model fitted with an offset are not computed: the "
                         "effects depend on each row's offset, which statsmodels' get_margeff "
                         "leaves out; compute them from predict_proba(X, offset=) by finite "
                         "differences.")
    aliased = not estimable(model).all()
    if aliased and (designs is None or cov_type != "nonrobust"):
        raise ValueError(f"marginal_effects: the model has aliased columns "
                         f"({np.flatnonzero(~estimable(model)).tolist()}, aliased_), whose effects "
                         "are not defined; refit without them.")
    coef, intercept = reported_parameters(model)
    covariance = record.covariance
    if aliased:  # per variable: an aliased column's coefficient is 0, fixed (no variance)
        covariance = np.nan_to_num(covariance, nan=0.0)
    if cov_type != "nonrobust":
        rows = training_rows(model, X, y, sample_weight, groups=groups,
                             purpose=f"cov_type={cov_type!r}", in_memory=True)
        covariance = robust_covariance(rows.score_sums(coef, intercept), cov_type)
    if is_dask_collection(X, sample_weight):
        raise ValueError("marginal_effects needs the rows X in memory; call .compute() on the Dask "
                         "collections first.")
    X = validate_predict(model, X)
    weight = validate_sample_weight(sample_weight, X.shape[0])
    weight = np.ones(X.shape[0]) if weight is None else weight
    facts = {"classes": model.classes_, "dep_variable": _facts(model)["dep_variable"],
             "covariance_type": cov_type}
    if designs is not None:
        points, point_weight, effects, notes = designs(weight)
        return variable_effects(points, point_weight, effects, coef, intercept, covariance,
                                fit_intercept=model.fit_intercept, at=at, method=method,
                                notes=notes, **facts)
    names = getattr(model, "feature_names_in_", None)
    return marginal_effects(X, weight, coef, intercept, covariance,
                            fit_intercept=model.fit_intercept, at=at, method=method, dummy=dummy,
                            count=count, atexog=atexog, names=names, **facts)


def unpenalised(model, record, purpose: str, hint: str = "") -> None:
    """Refuse ``purpose`` (a robust covariance, profile intervals, marginal effects) for a fit that
    is not the plain maximum-likelihood one, saying what to do (and ``hint``)."""
    method = getattr(model, "_fit_record", {}).get("method") if isinstance(
        getattr(model, "_fit_record", None), dict) else None
    if method is None:
        method = "MLE" if model._penalty().kind is None else "penalised ML"
    if isinstance(record, LogisticInference) and method == "MLE":
        if record.covariance is None:
            raise ValueError(f"{purpose}: no standard errors for this fit: {record.reason}.")
        return
    raise ValueError(f"{purpose} is computed for unpenalised fits (penalty=None or C=np.inf); this "
                     f"model was fitted by {method}, whose estimate is shrunk (the sandwich, the "
                     "delta method and the likelihood profile around a penalised estimate are not "
                     f"valid frequentist inference). Refit with penalty=None.{hint}")


def reported_parameters(model) -> tuple[np.ndarray, np.ndarray]:
    """``(coef, intercept)`` of shapes (m, d) and (m,) as the summary reports them: the log-odds
    (m = 1) or each class's contrast against the first (m = K - 1)."""
    coef = model.coef_.toarray() if sp.issparse(model.coef_) else np.asarray(model.coef_)
    intercept = np.asarray(model.intercept_, dtype=np.float64).reshape(-1)
    if coef.shape[0] > 1:
        coef, intercept = coef[1:] - coef[0], intercept[1:] - intercept[0]
    return np.asarray(coef, dtype=np.float64), intercept


def estimable(model) -> np.ndarray:
    """The features whose coefficients a fit estimated: all but the aliased ones
    (``aliased_``, :mod:`linclass.linear.logistic.aliasing`), shape (n_features,), bool."""
    aliased = getattr(model, "aliased_", None)
    if aliased is None:
        return np.ones(model.n_features_in_, dtype=bool)
    return ~np.asarray(aliased, dtype=bool)


def _spread(values: np.ndarray, found: np.ndarray) -> np.ndarray:
    """``values`` of the estimable parameters laid out over all of them (NaN for the others)."""
    out = np.full(found.size, np.nan)
    out[found] = values
    return out


def _reference_index(model, reference) -> int:
    """The index in ``classes_`` of the reference class of a softmax summary (0: the first)."""
    if reference is None:
        return 0
    classes = list(np.asarray(model.classes_).tolist())
    if len(classes) < 3:
        raise ValueError("reference= chooses the base class of a softmax summary (three or more "
                         "classes); with two classes the table is the log-odds of classes_[1].")
    if reference not in classes:
        raise ValueError(f"reference={reference!r} is not a class; classes_: {classes}.")
    return classes.index(reference)


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
