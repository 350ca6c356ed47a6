"""The sandwich's sums (:mod:`linclass.linear.inference.sandwich`) over a chunk source (a Dask
collection, a file read in blocks: :mod:`linclass.core.chunks`), in one pass: each chunk's
:class:`~linclass.linear.inference.sandwich.ScoreSums`, its per-cluster score sums too, merged; the
cluster labels come from an array in row order or from a column of the chunks (:class:`ChunkGroups`).
"""

from __future__ import annotations

import numpy as np

from linclass.core.chunk_validation import validate_chunk
from linclass.core.chunks import Chunk, encode_chunk_labels
from linclass.linear.inference.sandwich import ScoreSums, score_sums, validate_groups

__all__ = ["ChunkGroups", "chunked_class_totals", "chunked_score_sums"]


class ChunkGroups:
    """Where each chunk of a source finds its cluster labels.

    Parameters
    ----------
    values : ndarray of shape (n_samples,) or None
        The labels of every row in the source's order; a chunk takes its rows from its ``start``.
    column : str or None
        The name of a column of the chunks' X (pandas partitions) that holds the labels; it is taken
        out of X before X is read.
    """

    def __init__(self, values=None, column=None):
        self.values, self.column = values, column

    def split(self, chunk: Chunk) -> tuple[Chunk, np.ndarray]:
        """``(chunk without the labels' column, the chunk's labels)``."""
        if self.column is not None:
            try:
                labels = validate_groups(chunk.X[self.column], None)
            except ValueError as exc:
                raise ValueError(f"{chunk.where()}: {exc}") from None
            X = chunk.X.drop(columns=self.column)
            return Chunk(X, chunk.y, chunk.sample_weight, chunk.index, chunk.start), labels
        if chunk.start is None:
            raise ValueError(f"{chunk.where()}: the source does not say where its chunks start, so "
                             "a groups array cannot be matched to them; give groups as a column of "
                             "the same Dask data frame as X.")
        rows = np.shape(chunk.X)[0]
        labels = self.values[chunk.start:chunk.start + rows]
        if labels.shape[0] != rows:
            raise ValueError(f"groups has {self.values.shape[0]} labels, fewer than the rows of the "
                             f"source ({chunk.where()} has {rows} rows).")
        return chunk, labels


def _chunk_sums(chunk: Chunk, n_features, classes, per_class, coef, intercept, fit_intercept,
                groups):
    labels = None
    if groups is not None:
        chunk, labels = groups.split(chunk)
    X, y, w = validate_chunk(chunk, n_features)
    if X.shape[0] == 0:
        return None
    if y is None:
        raise ValueError(f"{chunk.where()}: the source has no labels y; robust covariances need them.")
    yi = encode_chunk_labels(y, classes, chunk.where())
    if per_class is not None:
        w = per_class[yi] if w is None else per_class[yi] * w
    return score_sums(X, yi, w, coef, intercept, fit_intercept, labels)


def _merge(a: ScoreSums, b: ScoreSums) -> ScoreSums:
    return a.merge(b)


def chunked_score_sums(source, n_features: int, classes: np.ndarray, per_class, coef, intercept,
                       fit_intercept, groups: ChunkGroups | None = None) -> ScoreSums:
    """:class:`ScoreSums` of a chunk source (:class:`linclass.core.chunks.ChunkSource`) in one pass:
    each chunk's sums (its per-cluster score sums too), merged.  ``n_features``: the model's (the
    chunks' X less a column of cluster labels); ``per_class``: multipliers of the weights by class
    (the fit's class weights) or None; the rest as :func:`score_sums`."""
    sums = source.map_reduce(_chunk_sums, _merge, n_features, classes, per_class, coef,
                             intercept, fit_intercept, groups)
    if sums is None:
        raise ValueError("The source holds no rows.")
    if groups is not None and groups.values is not None and groups.values.shape[0] != sums.rows:
        raise ValueError(f"groups has {groups.values.shape[0]} labels, but the source has "
                         f"{sums.rows} rows: one cluster label per row.")
    return sums


def _chunk_totals(chunk: Chunk, n_features, classes, groups):
    if groups is not None and groups.column is not None:
        chunk, _ = groups.split(chunk)
    X, y, w = validate_chunk(chunk, n_features, again=True)
    if X.shape[0] == 0 or y is None:
        return None
    yi = encode_chunk_labels(y, classes, chunk.where())
    return np.bincount(yi, weights=w, minlength=classes.size)


def chunked_class_totals(source, n_features: int, classes: np.ndarray,
                         groups: ChunkGroups | None = None) -> np.ndarray:
    """The weighted class totals of a chunk source (one pass; for ``class_weight='balanced'``)."""
    totals = source.map_reduce(_chunk_totals, np.add, n_features, classes, groups)
    return np.zeros(classes.size) if totals is None else totals
