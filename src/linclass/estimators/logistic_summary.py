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

from linclass.core.validation import validate_labels, validate_predict, validate_sample_weight
from linclass.core.chunks import encode_chunk_labels
from linclass.linear.fitting.records import LogisticInference, inference_record
from linclass.linear.inference.margins import marginal_effects
from linclass.linear.inference.profile import profile_intervals
from linclass.linear.inference.summary import Summary
from linclass.linear.inference.wald import expand_covariance
from linclass.linear.inference.sandwich import (DESCRIPTIONS, check_cov_type, robust_covariance,
                                                score_sums, validate_groups)
from linclass.linear.inference.sandwich_chunks import (ChunkGroups, chunked_class_totals,
                                                       chunked_score_sums)
from linclass.linear.logistic.class_weights import class_weights, weight_by_class
from linclass.linear.logistic.offsets import check_offset, fingerprint, reported_offset
from linclass.sources.dask import is_dask_collection

__all__ = ["TrainingRows", "fit_record", "margins_table", "reported_parameters", "summary_table",
           "training_rows"]

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
                  X=None, y=None, sample_weight=None, source=None, reference=None, offset=None):
    """:meth:`linclass.LogisticRegression.summary` of the fitted model ``model``: the table its
    inference record makes (:mod:`linclass.linear.fitting.records`), with the header's facts; with
    a robust ``cov_type``, its covariance computed from the training rows (``X``, ``y``,
    ``sample_weight``, ``offset``, or a chunk ``source``) and ``groups``."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1); got {alpha!r}.")
    cov_type = check_cov_type(cov_type, groups)
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
                                       cov_type)
        covariance = expand_covariance(covariance, keep, coef_r.shape[0], model.fit_intercept)
        notes.append(DESCRIPTIONS[cov_type] + (f", {rows.n_clusters} clusters" if rows.n_clusters
                                              else "") + ".")
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
    if isinstance(table, Summary):
        table = _weight_notes(model, table)
    return replace(table, title=_titled(model, table.title), **_facts(model))


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


def margins_table(model, X, *, at: str, method: str, dummy: bool, count: bool, sample_weight,
                  y, cov_type: str, groups):
    """:meth:`linclass.LogisticRegression.marginal_effects`: the effects over the rows ``X``
    (:mod:`linclass.linear.inference.margins`) with the fit's covariance, or with ``cov_type``'s
    from the training rows ``X``, ``y``, ``sample_weight`` and ``groups``."""
    cov_type = check_cov_type(cov_type, groups)
    record = inference_record(model._inference, model.log_likelihood_)
    unpenalised(model, record, "marginal_effects")
    if fit_offset(model) is not None:
        raise ValueError("marginal_effects of a model fitted with an offset are not computed: the "
                         "effects depend on each row's offset, which statsmodels' get_margeff "
                         "leaves out; compute them from predict_proba(X, offset=) by finite "
                         "differences.")
    if not estimable(model).all():
        raise ValueError(f"marginal_effects: the model has aliased columns "
                         f"({np.flatnonzero(~estimable(model)).tolist()}, aliased_), whose effects "
                         "are not defined; refit without them.")
    coef, intercept = reported_parameters(model)
    covariance = record.covariance
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
    names = getattr(model, "feature_names_in_", None)
    return marginal_effects(X, weight, coef, intercept, covariance,
                            fit_intercept=model.fit_intercept, at=at, method=method, dummy=dummy,
                            count=count, names=names, classes=model.classes_,
                            dep_variable=_facts(model)["dep_variable"], covariance_type=cov_type)


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


class TrainingRows:
    """The rows a summary recomputes from: in memory (``X``, class index ``y``, the fit's weights
    ``weight``: sample weights times class weights, cluster labels ``groups``, the fit's
    ``offset`` as :func:`~linclass.linear.logistic.offsets.check_offset` gives it) or a chunk
    source (``source``, the class multipliers ``per_class``, :class:`ChunkGroups`
    ``chunk_groups``)."""

    def __init__(self, model, *, X=None, y=None, weight=None, groups=None, source=None,
                 per_class=None, chunk_groups=None, offset=None):
        self.model, self.X, self.y, self.weight, self.groups = model, X, y, weight, groups
        self.offset = offset
        self.source, self.per_class, self.chunk_groups = source, per_class, chunk_groups
        self.n_clusters = 0

    def score_sums(self, coef, intercept, keep=None):
        """:class:`~linclass.linear.inference.sandwich.ScoreSums` at the reported parameters (of the
        features ``keep`` only, when given: the estimable ones of a fit with aliased columns)."""
        if keep is not None and not keep.all():
            if self.source is not None:
                raise ValueError("The model has aliased columns (aliased_): its robust covariance "
                                 "is computed from rows in memory, not from a chunk source.")
            X = self.X[:, keep]
        else:
            X = self.X
        if self.source is None:
            sums = score_sums(X, self.y, self.weight, coef, intercept,
                              self.model.fit_intercept, self.groups,
                              reported_offset(self.offset),
                              variance_weights=getattr(self.model, "weight_type",
                                                       "frequency") == "variance")
        else:
            if getattr(self.model, "weight_type", "frequency") == "variance":
                raise ValueError("A robust covariance with weight_type='variance' is computed "
                                 "from rows in memory (X, y, sample_weight), not from a chunk "
                                 "source.")
            sums = chunked_score_sums(self.source, self.model.n_features_in_, self.model.classes_,
                                      self.per_class, coef, intercept, self.model.fit_intercept,
                                      self.chunk_groups)
        if sums.clusters is not None:
            self.n_clusters = int(np.sum(sums.cluster_weight > 0))
        return sums


def training_rows(model, X, y, sample_weight, *, groups=None, source=None, purpose: str,
                  in_memory: bool = False, offset=None) -> TrainingRows:
    """Check the training rows passed to a summary (in memory, a Dask collection or a chunk
    source; ``in_memory``: a purpose that needs every row at once) and weight them as the fit did;
    ``offset``: the rows' offset, which must be the fit's.

    Raises
    ------
    ValueError
        When no rows are given, when both X and a source are, and for rows that the fitted model
        cannot have been fitted on (features, labels, weights, groups of the wrong length, an
        offset other than the fit's).
    """
    fitted_offset = fit_offset(model)
    if offset is not None and (source is not None or is_dask_collection(X, offset)):
        raise ValueError(f"{purpose}: offset= is taken with rows in memory (X, y), not with a "
                         "Dask collection or a chunk source.")
    if fitted_offset is not None and (source is not None or is_dask_collection(X, y)):
        raise ValueError(f"{purpose}: the model was fitted with an offset, on rows in memory; "
                         "pass those rows as X, y with offset=.")
    if source is not None and X is not None:
        raise ValueError(f"{purpose}: give the training rows as X, y (and sample_weight) or as "
                         "source=, not both.")
    if source is None and X is None:
        raise ValueError(f"{purpose} is computed from the rows the model was fitted on: pass them as "
                         f"summary(..., X=X, y=y) (and sample_weight=, groups= as in the fit); the "
                         "model does not keep its training data.")
    if source is None and is_dask_collection(X, y, sample_weight):

        source, groups = _dask_source(X, y, sample_weight, groups)
    if source is not None:
        if in_memory:
            raise ValueError(f"{purpose} needs every row in memory; call .compute() on the Dask "
                             "collections (or read the source) and pass X, y.")
        if groups is not None and not isinstance(groups, ChunkGroups):
            groups = ChunkGroups(values=validate_groups(groups, None))
        width = source.n_features - int(groups is not None and groups.column is not None)
        if width != model.n_features_in_:
            raise ValueError(f"The source has {width} features, but the model was fitted on "
                             f"{model.n_features_in_}.")
        per_class = None
        if model.class_weight is not None:
            totals = (chunked_class_totals(source, model.n_features_in_, model.classes_, groups)
                      if isinstance(model.class_weight, str) else np.zeros(model.classes_.size))
            per_class = class_weights(model.classes_, totals, model.class_weight)
        return TrainingRows(model, source=source, per_class=per_class, chunk_groups=groups)
    X = validate_predict(model, X, accept_sparse=True)
    n = X.shape[0]
    if y is None:
        raise ValueError(f"{purpose} needs y (the class labels of the rows X) as well as X.")
    labels = validate_labels(y, n, model)
    yi = encode_chunk_labels(np.asarray(labels), model.classes_, "the rows passed")
    weight = weight_by_class(yi, model.classes_, validate_sample_weight(sample_weight, n),
                             model.class_weight)
    groups = None if groups is None else validate_groups(groups, n)
    checked = check_offset(offset, n, model.classes_.size, model.classes_)
    if fingerprint(checked) != fitted_offset:
        raise ValueError(
            f"{purpose}: the model was fitted with an offset; pass the training rows' offset= "
            "as well." if checked is None else
            f"{purpose}: the model was fitted without an offset; drop offset=." if fitted_offset
            is None else f"{purpose}: offset= is not the offset the model was fitted with (the "
            "training rows' own offset is needed).")
    return TrainingRows(model, X=X, y=yi, weight=weight, groups=groups, offset=checked)


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


def fit_offset(model) -> str | None:
    """The fingerprint of the offset a model was fitted with
    (:func:`linclass.linear.logistic.offsets.fingerprint`), or None."""
    record = getattr(model, "_fit_record", None)
    return record.get("offset") if isinstance(record, dict) else None


def _dask_source(X, y, sample_weight, groups):
    """A :class:`~linclass.sources.dask.DaskSource` of Dask X, y and weights; ``groups`` as a
    :class:`ChunkGroups`: a column of X's data frame when it is a series of that frame (the
    partitions then carry it), else its values in row order."""
    from linclass.sources.dask import DaskSource

    if groups is None:
        return DaskSource(X, y, sample_weight), None
    if hasattr(X, "columns") and is_dask_collection(groups) and getattr(groups, "ndim", 0) == 1 \
            and hasattr(groups, "to_dask_array"):
        name = "__linclass_groups__"
        while name in set(map(str, X.columns)):
            name += "_"
        return DaskSource(X.assign(**{name: groups}), y, sample_weight), ChunkGroups(column=name)
    if is_dask_collection(groups):
        groups = groups.compute()
    return DaskSource(X, y, sample_weight), ChunkGroups(values=validate_groups(groups, None))


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
