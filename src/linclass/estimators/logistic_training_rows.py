"""The training rows that a fitted logistic model's inference recomputes from (robust and
clustered covariances, profile intervals, diagnostics): rows in memory or a Dask source, checked
against the fit (the same labels, weights, offset and rows, by fingerprint), with the class weights
the fit applied.  Glue between the estimator and :mod:`linclass.linear.inference`.
"""

from __future__ import annotations


import numpy as np

from linclass.core.chunks import encode_chunk_labels
from linclass.core.validation import validate_labels, validate_predict, validate_sample_weight
from linclass.linear.inference.sandwich import score_sums, validate_groups
from linclass.linear.inference.sandwich_chunks import (ChunkGroups, chunked_class_totals,
                                                       chunked_score_sums)
from linclass.linear.logistic.class_weights import class_weights, weight_by_class
from linclass.linear.logistic.offsets import check_offset, fingerprint, reported_offset
from linclass.sources.dask import is_dask_collection

__all__ = ["TrainingRows", "fit_offset", "training_rows"]


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
