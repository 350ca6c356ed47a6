"""The inference of a fitted :class:`~linclass.LogisticRegression`: ``summary`` (the Wald, robust
and profile tables), ``marginal_effects`` and ``get_prediction``, each a call into
:mod:`linclass.linear.inference`.

The summary table is the table of the fit's inference record
(:mod:`linclass.linear.fitting.records`: statsmodels' for the smooth fits, logistf's profile
intervals for Firth's, the honest table of a penalised selection), with the header's facts about the
fit (the name of y, the method, solver, iterations, convergence, the time of the fit).  What an
unpenalised fit's table computes from the training rows passed to it (robust and clustered
covariances, :mod:`linclass.linear.inference.sandwich`; profile intervals; diagnostics) reads those
rows through :func:`training_rows`: rows in memory or a Dask source, checked against the fit (the
same labels, weights, offset and rows, by fingerprint), with the class weights the fit applied.
No mathematics here.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from linclass.core.chunks import encode_chunk_labels
from linclass.core.validation import validate_labels, validate_predict, validate_sample_weight
from linclass.linear.fitting.choice import PENALTIES
from linclass.linear.fitting.records import FirthRecord, LogisticInference, inference_record
from linclass.linear.inference.margins import marginal_effects, variable_effects
from linclass.linear.inference.prediction import predict_with_se
from linclass.linear.inference.profile import profile_intervals
from linclass.linear.inference.sandwich import (
    LEVERAGE_POWERS,
    check_cluster_correction,
    check_cov_type,
    describe,
    robust_covariance,
    score_sums,
    validate_groups,
)
from linclass.linear.inference.sandwich_chunks import (
    ChunkGroups,
    chunked_class_totals,
    chunked_score_sums,
)
from linclass.linear.inference.summary import Summary, binary_title, level_name, softmax_names
from linclass.linear.inference.wald import expand_covariance
from linclass.linear.logistic.class_weights import class_weights, weight_by_class
from linclass.linear.logistic.grouped import check_counts, expand
from linclass.linear.logistic.offsets import check_offset, fingerprint, reported_offset
from linclass.sources.dask import is_dask_collection

__all__ = ["METHODS", "LogisticInferenceMethods", "TrainingRows", "estimable", "fit_offset",
           "grouped_record", "margins_table", "penalty_kind", "prediction_table",
           "reported_parameters", "summary_table", "training_rows"]


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
        self.n_clusters, self.cluster_counts = 0, ()

    def score_sums(self, coef, intercept, keep=None, cov_type=None):
        """:class:`~linclass.linear.inference.sandwich.ScoreSums` at the reported parameters (of the
        features ``keep`` only, when given: the estimable ones of a fit with aliased columns), with
        the leverage-adjusted meat of ``cov_type`` 'HC2' / 'HC3' (rows in memory only)."""
        power = LEVERAGE_POWERS.get(cov_type, 0)
        if power and self.source is not None:
            raise ValueError(f"cov_type={cov_type!r} needs every row's leverage, so the rows in "
                             "memory (X, y); a Dask collection or a chunk source offers "
                             "'HC0', 'HC1' and 'cluster'.")
        if power and grouped_record(self.model) is not None:
            raise ValueError(f"cov_type={cov_type!r} is not offered for a grouped binomial "
                             "response: its leverages are those of the groups (R's hatvalues of "
                             "a cbind glm), not of the rows the fit reads.")
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
                                                       "frequency") == "variance",
                              leverage_power=power)
        else:
            if getattr(self.model, "weight_type", "frequency") == "variance":
                raise ValueError("A robust covariance with weight_type='variance' is computed "
                                 "from rows in memory (X, y, sample_weight), not from a chunk "
                                 "source.")
            sums = chunked_score_sums(self.source, self.model.n_features_in_, self.model.classes_,
                                      self.per_class, coef, intercept, self.model.fit_intercept,
                                      self.chunk_groups)
        if sums.clusters is not None:  # multi-way: the fewest clusters of a dimension
            self.cluster_counts = sums.cluster_counts
            self.n_clusters = min(self.cluster_counts)
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
    if grouped_record(model) is not None and X is not None and y is not None:
        # the grouped counts as the fit read them: their Bernoulli rows (linear.logistic.grouped)
        successes, failures = check_counts(y, X.shape[0] if hasattr(X, "shape") else len(X))
        X, y, sample_weight, offset = expand(X, successes, failures, sample_weight, offset)
        groups = None if groups is None else np.concatenate([np.asarray(groups)] * 2)
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


def grouped_record(model) -> dict | None:
    """What the fit recorded of a grouped binomial response (successes, failures;
    :func:`linclass.linear.logistic.grouped.constants`), or None for class labels."""
    record = getattr(model, "_fit_record", None)
    grouped = record.get("grouped") if isinstance(record, dict) else None
    return grouped if isinstance(grouped, dict) else None


def _grouped_table(model, table):
    """The table of a fit of grouped counts as R's glm reports the grouped model: the groups are
    the observations (their number, or the sum of their frequency weights), the log-likelihoods
    hold the log binomial coefficients, the deviances are measured from the saturated model of
    the groups (:mod:`linclass.linear.logistic.grouped`)."""
    grouped = grouped_record(model)
    if grouped is None or not isinstance(table, Summary):
        return table
    constant = float(grouped["log_binomial"])
    llf = table.log_likelihood + constant
    llnull = table.null_log_likelihood + constant
    k = float(np.sum(np.isfinite(table.coef)))
    n_obs = float(grouped["weight_sum"])
    note = (f"grouped binomial response: {grouped['n_groups']} rows of (successes, failures) "
            f"counts, {grouped['trials']:g} trials; the rows are the observations, the deviance "
            "is measured from their saturated model, the log-likelihood and AIC hold the "
            "binomial coefficients (as R's glm with cbind).")
    success, failure = grouped.get("columns", ("successes", "failures"))
    title = table.title.replace(binary_title([0, 1]), f"log-odds of {success} against {failure}")
    return replace(table, n_obs=n_obs, log_likelihood=llf, null_log_likelihood=llnull, title=title,
                   saturated_log_likelihood=float(grouped["saturated"]),
                   aic=float(-2.0 * llf + 2.0 * k), bic=float(-2.0 * llf + k * np.log(n_obs)),
                   pseudo_r2=float(1.0 - llf / llnull) if llnull else 0.0,
                   notes=[*table.notes, note])


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


#: the estimation method a summary's header names, by the kind of the fit's penalty (its name in
#: the table, :data:`linclass.linear.fitting.choice.PENALTIES`)
METHODS = {**{kind: f"{kind}-penalised ML" for kind in PENALTIES},
           None: "MLE", "l2": "L2-penalised ML", "l1": "L1-penalised ML",
           "elasticnet": "Elastic-net-penalised ML", "firth": "Firth-penalised ML"}


def penalty_kind(model) -> str | None:
    """The kind of the penalty ``model``'s parameters make (None for parameters that the fit
    refuses, with its own message, and for no penalty)."""
    try:
        with warnings.catch_warnings():  # the fit itself warns about the parameters
            warnings.simplefilter("ignore")
            return model._penalty().kind
    except ValueError:
        return None


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
    _robust_grouped(model, cov_type, sample_weight, source)
    grouped = grouped_record(model) if cov_type != "nonrobust" else None
    if grouped is not None and cov_type in ("HC0", "HC1") and X is not None:
        groups = np.arange(X.shape[0] if hasattr(X, "shape") else len(X))  # a row: one cluster
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
        sums = rows.score_sums(coef_r[:, keep], intercept_r, keep, cov_type)
        covariance = (robust_covariance(sums, cov_type, correction) if grouped is None else
                      _grouped_covariance(grouped, sums, cov_type, correction))
        covariance = expand_covariance(covariance, keep, coef_r.shape[0], model.fit_intercept)
        notes.append(describe(cov_type, correction, rows.cluster_counts or rows.n_clusters))
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
        table = _weight_notes(model, _grouped_table(model, table))
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
    _robust_grouped(model, cov_type, offered=())
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
        covariance = robust_covariance(rows.score_sums(coef, intercept, cov_type=cov_type), cov_type)
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


def _robust_grouped(model, cov_type: str, sample_weight=None, source=None,
                    offered=("HC0", "HC1", "cluster")) -> None:
    """Refuse a robust covariance of a fit of grouped counts that is not computed here: HC2 and
    HC3 (their leverages are the groups', not the trials'), rows from a chunk source, frequency
    weights (R's prior weights are ``weight_type='variance'``), and any cov_type outside
    ``offered``."""
    if cov_type == "nonrobust" or grouped_record(model) is None:
        return
    why = None
    if cov_type not in offered:
        why = f"is computed for {', '.join(map(repr, offered))}" if offered else "is not computed"
    elif source is not None:
        why = "is computed from the rows (X, y: the counts) in memory, not from a chunk source"
    elif sample_weight is not None and getattr(model, "weight_type", "frequency") == "frequency":
        why = ("takes the sample weights as R's prior weights: fit with weight_type='variance' "
               "(frequency weights would make each row several groups)")
    if why is not None:
        raise ValueError(f"cov_type={cov_type!r} of a grouped binomial response (successes, "
                         f"failures) {why}.")


def _grouped_covariance(grouped: dict, sums, cov_type: str, correction) -> np.ndarray:
    """The sandwich of a fit of grouped counts, as R's ``vcovHC`` / ``vcovCL`` of a glm with
    ``cbind``: each row's score is the sum of its trials' (the Bernoulli rows of one group, one
    cluster), the rows are the N observations of HC1's :math:`N/(N-k)` and of the clusters'
    :math:`(N-1)/(N-k)`."""
    sums = replace(sums, total=float(grouped["n_groups"]))
    if cov_type == "cluster":
        return robust_covariance(sums, "cluster", correction)
    N, k = sums.total, sums.hessian.shape[0]
    if cov_type == "HC1" and N <= k:
        raise ValueError(f"cov_type='HC1' needs more rows than parameters: N={N:g}, k={k}.")
    covariance = robust_covariance(sums, "cluster", "none")  # each row its own cluster: HC0
    return covariance * (N / (N - k)) if cov_type == "HC1" else covariance


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
        record = {"target": "y", "method": METHODS[penalty_kind(model)]}
    facts.update(dep_variable=str(record["target"]), method=str(record["method"]))
    if "time" in record:
        facts["fitted_at"] = float(record["time"])
    return facts


class LogisticInferenceMethods:
    """``summary``, ``marginal_effects`` and ``get_prediction`` of a fitted logistic regression."""

    def summary(self, alpha: float = 0.05, ci: str = "wald", *, cov_type: str = "nonrobust",
                groups=None, X=None, y=None, sample_weight=None, source=None, reference=None,
                offset=None, cluster_correction=None):
        """Coefficients with standard errors, z statistics, p-values and confidence intervals, and the
        model's log-likelihood, LR test against the intercept-only model, pseudo R², AIC and BIC.

        A fit by solver 'cd' (every fit with an L1 part) reports what it honestly can instead: the
        selected (non-zero) coefficients, the penalty, the log-likelihood and the optimality
        violation, without standard errors (inference after selection is not valid).

        Parameters
        ----------
        alpha : float, default=0.05
            The intervals are :math:`1-\\alpha` confidence intervals.
        ci : {'wald', 'profile'}, default='wald'
            'profile': profile-likelihood intervals and likelihood-ratio p-values in place of
            Wald's: for ``penalty='firth'`` fits the penalised ones, as R's logistf reports them
            (computed when first asked, any ``alpha``); for unpenalised fits (two or more classes)
            those of R's ``confint`` of a glm, for any ``alpha``, computed from the training rows
            ``X``, ``y``, ``sample_weight`` (:mod:`linclass.linear.inference.profile`).  Standard
            errors and z are Wald's either way.
        cov_type : {'nonrobust', 'HC0', 'HC1', 'HC2', 'HC3', 'cluster'}, default='nonrobust'
            The covariance of the standard errors, z, p-values and Wald intervals, as statsmodels'
            ``fit(cov_type=...)``: the inverse information, or the sandwich (heteroscedasticity
            robust HC0 and HC1 = HC0 times N/(N-k), R's ``vcovHC``; HC2 and HC3, the squared
            scores over 1 - leverage and its square, R's ``vcovHC(type = "HC2" / "HC3")``, two
            classes, rows in memory; cluster robust with ``groups``, with the factor of
            ``cluster_correction``),
            :mod:`linclass.linear.inference.sandwich`.  Unpenalised fits only; the robust ones are
            computed from the training rows ``X``, ``y``, ``sample_weight`` (or ``source``), which
            the model does not keep.  Stata's ``vce(robust)`` of a logit, HC0 times N/(N-1), is
            ``cov_type='cluster'`` with ``groups=np.arange(n)`` (each row its own cluster).
        groups : array-like of shape (n_samples,) or (n_samples, p), default=None
            The cluster of each row (cov_type='cluster'); with Dask X, a Dask series of X's data
            frame or the labels in row order.  p columns: multi-way clusters (Cameron, Gelbach
            and Miller 2011; ``np.c_[g1, g2]`` is R's ``vcovCL(m, cluster = ~ g1 + g2)``).
        cluster_correction : {'stata', 'statsmodels', 'none'} or None, default=None
            The small-sample factor of cov_type='cluster' (None: 'stata'): 'stata' G/(G-1), as
            Stata's ``logit, vce(cluster g)`` and R's ``sandwich::vcovCL(m, cluster = g)`` on a glm;
            'statsmodels' G/(G-1) (N-1)/(N-k), statsmodels' default and R's ``vcovCL(m, cluster =
            g, type = "HC1")``; 'none' no factor.  The header prints the number of clusters and the
            factor.
        X, y, sample_weight : the training rows, default=None
            In memory or Dask collections (in memory for ``ci='profile'``), as given to ``fit``
            (weights are frequency weights; the fit's ``class_weight`` is applied to them as the
            fit did).
        offset : array-like, default=None
            The training rows' offset, for a model fitted with one (``fit(..., offset=)``): the
            robust covariance and the profile need it with the rows.
        source : chunk source, default=None
            The training rows as a :class:`linclass.core.chunks.ChunkSource` (as ``fit_source``),
            instead of ``X`` / ``y``: read once.
        reference : a class label or None, default=None
            Softmax fits: the class the others are contrasted with (None: ``classes_[0]``, as
            statsmodels' MNLogit); the covariance is mapped to the new contrasts.

        Returns
        -------
        Summary or PenalisedSummary
            :class:`linclass.linear.inference.summary.Summary` or
            :class:`linclass.linear.inference.penalised_summary.PenalisedSummary`; print them as
            tables, ``.to_frame()`` for pandas.
        """
        check_is_fitted(self)
        return summary_table(self, alpha, ci, cov_type=cov_type, groups=groups, X=X, y=y,
                             sample_weight=sample_weight, source=source, reference=reference,
                             offset=offset, cluster_correction=cluster_correction)

    def marginal_effects(self, X, at: str = "overall", method: str = "dydx", *, atexog=None,
                         dummy=False, count=False, sample_weight=None, y=None,
                         cov_type: str = "nonrobust", groups=None):
        """Marginal effects of the features on the class probabilities, with delta-method standard
        errors, as statsmodels' ``get_margeff`` of ``Logit`` / ``MNLogit``
        (:mod:`linclass.linear.inference.margins`).  Unpenalised fits only.

        One effect per column of X (a column is a variable here).  A model fitted by a formula
        (:func:`linclass.from_formula`) gives one effect per variable of the data instead, through
        every column built from it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows over which the effects are averaged ('overall') or whose mean / median is
            taken (statsmodels uses the training rows).
        at : {'overall', 'mean', 'median', 'zero'}, default='overall'
            The average of the rows' effects, or the effect at the features' (weighted) mean,
            median or zero (the intercept stays).
        method : {'dydx', 'eyex', 'dyex', 'eydx'}, default='dydx'
            :math:`\\partial P/\\partial x`, or the elasticities :math:`\\partial\\ln P/\\partial\\ln x`,
            :math:`\\partial P/\\partial\\ln x`, :math:`\\partial\\ln P/\\partial x`.
        atexog : dict or None, default=None
            Values at which the effects are taken, as statsmodels' ``atexog`` and Stata's
            ``margins, at()``: ``{column: value}``, a column by its name (``feature_names_in_``) or
            its index in X (0-based; statsmodels' keys count the constant column), a value a
            number or one number per row.  The columns are set in every row of X (after the
            dummies and counts are found, before ``at``).
        dummy, count : bool or list of columns, default=False
            The discrete change from 0 to 1 of each dummy column, and the centred change
            :math:`(P(x+1) - P(x-1))/2` of each count column, for 'dydx' / 'eydx' at 'overall' /
            'mean'.  True: the columns whose values in X are all 0 or 1 are dummies (rows that
            fix a dummy at 0 or 1 keep it one; its effect does not depend on the rows' values of
            it), the columns of non-negative integers that vary are counts (as statsmodels); a
            list names the columns.
        sample_weight : array-like of shape (n_samples,), default=None
            Frequency weights of the rows of X (also those of the fit for a robust ``cov_type``).
        y, cov_type, groups : as in :meth:`summary`
            The parameters' covariance: the fit's ('nonrobust'), or a robust one computed from the
            training rows ``X``, ``y``, ``sample_weight`` (and ``groups``).

        Returns
        -------
        :class:`linclass.linear.inference.margins.MarginalEffects`
            ``margeff``, ``margeff_se`` (shape (n_features,) for two classes: the effects on the
            probability of ``classes_[1]``; (n_features, n_classes) for softmax), ``margeff_cov``,
            ``tvalues``, ``pvalues``, ``conf_int(alpha)``, ``summary_frame(alpha)``; prints as a
            table.
        """
        check_is_fitted(self)
        return margins_table(self, X, at=at, method=method, dummy=dummy, count=count,
                             sample_weight=sample_weight, y=y, cov_type=cov_type, groups=groups,
                             atexog=atexog)

    def get_prediction(self, X, *, offset=None, cov_type: str = "nonrobust", groups=None,
                       X_train=None, y_train=None, sample_weight=None, offset_train=None):
        """Predicted probabilities of ``classes_[1]`` and log-odds with standard errors and
        confidence intervals, as statsmodels' ``GLMResults.get_prediction(exog)`` and R's
        ``predict(glm, newdata, se.fit = TRUE)`` (:mod:`linclass.linear.inference.prediction`).

        Two classes; fits whose :meth:`summary` has a covariance matrix (maximum likelihood, L2,
        Firth: the summary's ``cov_params()``).  A fit with an L1 part or bounds has none and is
        refused.

        Parameters
        ----------
        X : {array-like, scipy.sparse matrix} of shape (n_samples, n_features)
            The rows to predict.
        offset : array-like of shape (n_samples,), default=None
            The rows' offsets (added to the log-odds, with no variance; None: zero), for a model
            fitted with ``offset=``.
        cov_type, groups : as in :meth:`summary`
            The parameters' covariance: the fit's ('nonrobust'), or a robust one (unpenalised fits)
            computed from the training rows ``X_train``, ``y_train``, ``sample_weight``.
        X_train, y_train, sample_weight, offset_train : the training rows, default=None
            Needed only for a robust ``cov_type`` (the model does not keep its training data).

        Returns
        -------
        :class:`linclass.linear.inference.prediction.PredictionResults`
            ``predicted``, ``se_mean``, ``linpred``, ``se_linpred``, ``conf_int(alpha)`` and
            ``summary_frame(alpha)`` (columns ``mean``, ``mean_se``, ``mean_ci_lower``,
            ``mean_ci_upper``, then ``linpred``, ``linpred_se``, ``linpred_ci_lower``,
            ``linpred_ci_upper``).
        """
        check_is_fitted(self)
        return prediction_table(self, X, cov_type=cov_type, groups=groups, X_train=X_train,
                                y_train=y_train, sample_weight=sample_weight, offset=offset,
                                offset_train=offset_train)


def prediction_table(model, X, *, cov_type, groups, X_train, y_train, sample_weight, offset=None,
                     offset_train=None):
    """:meth:`LogisticInferenceMethods.get_prediction` of the fitted ``model``: the summary's
    covariance and the rows' predictions with their standard errors."""
    check_is_fitted(model)
    if len(model.classes_) != 2:
        raise ValueError(f"get_prediction is offered for two classes; this model has "
                         f"{len(model.classes_)} (softmax standard errors of the probabilities "
                         "are not implemented).")
    table = summary_table(model, 0.05, "wald", cov_type=cov_type, groups=groups, X=X_train,
                          y=y_train, sample_weight=sample_weight, offset=offset_train)
    if not isinstance(table, Summary) or table.covariance is None:
        raise ValueError("get_prediction needs the covariance matrix of the estimates; this fit "
                         "(a penalty with an L1 part, or bounds) has none. Refit with "
                         "penalty=None (or 'l2').")
    if is_dask_collection(X):
        raise ValueError("get_prediction needs the rows X in memory; call .compute() first.")
    rows = validate_predict(model, X, accept_sparse=True)
    coef, intercept = reported_parameters(model)
    covariance = np.nan_to_num(table.covariance, nan=0.0)  # aliased columns: coefficient 0, fixed
    return predict_with_se(rows, coef[0], intercept[0], covariance,
                           fit_intercept=model.fit_intercept,
                           row_labels=getattr(X, "index", None),
                           offset=check_offset(offset, rows.shape[0], 2))
