"""The proportional odds fit from a chunk source (:mod:`linclass.core.chunks`): one pass for the
labels and the weight of each class, then one pass for each log-likelihood the iteration asks
for, with or without its derivatives.  The log-likelihood, its gradient and its Hessian are sums
over rows (:class:`~linclass.linear.ordinal.likelihood.Derivatives` adds), so a chunk's share is
the in-memory formula on its rows and nothing of size n reaches the driver."""

from __future__ import annotations

import numpy as np

from linclass.core.chunk_validation import validate_chunk, validate_chunk_labels
from linclass.core.chunks import encode_chunk_labels
from linclass.core.validation import check_label_type
from linclass.linear.ordinal.likelihood import derivatives, log_likelihood

__all__ = ["class_weights", "source_derivatives", "source_log_likelihood"]


def _chunk_classes(chunk, n_features):
    X, y, w, scan = validate_chunk(chunk, n_features, scan=True)
    if y is None:
        raise ValueError(f"{chunk.where()}: the chunk has no labels; an ordinal fit needs y.")
    labels, index = np.unique(y, return_inverse=True)
    return labels, np.bincount(index.reshape(-1), w, labels.size), scan


def _merge(a, b):
    check_label_type(b[0], a[0], seen_in="the earlier chunks")
    labels = np.union1d(a[0], b[0])
    totals = np.zeros(labels.size)
    for part in (a, b):
        totals[np.searchsorted(labels, part[0])] += part[1]
    return labels, totals, a[2].merge(b[2])


def class_weights(source, owner) -> tuple[np.ndarray, np.ndarray]:
    """``(classes, weight of each)``: the sorted labels of every chunk and their summed weights
    (each chunk validated where it is read; X's magnitudes checked for the Hessian's squares, as
    :func:`linclass.core.validation.check_magnitude` checks rows in memory, naming ``owner``)."""
    found = source.map_reduce(_chunk_classes, _merge, source.n_features)
    if found is None:
        raise ValueError("The chunk source holds no rows.")
    found[2].check_squares(owner)
    return validate_chunk_labels(found[0]), found[1]


def _rows(chunk, n_features, classes):
    X, y, w = validate_chunk(chunk, n_features, again=True)
    return X, encode_chunk_labels(y, classes, chunk.where()), w


def source_log_likelihood(source, classes, coef, thresholds, link) -> float:
    """The log-likelihood of every row of ``source``."""
    def one(chunk):
        X, y, w = _rows(chunk, source.n_features, classes)
        return log_likelihood(X, y, w, coef, thresholds, link) if X.shape[0] else None

    return float(source.map_reduce(one, lambda a, b: a + b))


def source_derivatives(source, classes, coef, thresholds, link):
    """The log-likelihood of every row of ``source`` with its gradient and Hessian."""
    def one(chunk):
        X, y, w = _rows(chunk, source.n_features, classes)
        return derivatives(X, y, w, coef, thresholds, link) if X.shape[0] else None

    return source.map_reduce(one, lambda a, b: a + b)
