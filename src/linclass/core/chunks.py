"""The chunk protocol every chunked fit reads through: a :class:`ChunkSource` hands out
:class:`Chunk` pieces of (X, y, w) and folds ``fn(chunk)`` over them
(:meth:`~linclass.generative.class_stats.ClassStats.from_source` is the one pass that the models of
class statistics need, and logistic regression's first pass).

The spine is the in-memory one with its data pass split in two: a function of one chunk that returns a
small summary, and a reduction that adds the summaries.  Nothing of size n ever reaches the driver.

    source (chunks of X, y, w) --map--> chunk summary --reduce--> the in-memory spine's next step

=====================  ===============================================  =============================
model                  chunk summary                                    reduced by
=====================  ===============================================  =============================
labels                 the distinct labels of the chunk                 sorted union
Gaussian, NB, Fisher   :class:`~linclass.generative.class_stats.ClassStats`   ``ClassStats.merge`` (exact)
logistic / softmax     loss, gradient (p x m) and, for Newton, the      sums (``LinearObjective.
                       curvature (pm x pm) at the current theta         partial_sums``,
                                                                        :mod:`linclass.linear.logistic.chunked`)
=====================  ===============================================  =============================

Each chunk is validated where it is read (:func:`linclass.core.chunk_validation.validate_chunk`:
shape, numeric dtype, NaN / infinity, label types, weights), with the error naming the chunk and its
row.  The sources themselves (Dask collections, CSV / Parquet files) are in :mod:`linclass.sources`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from typing import Any, Protocol

import numpy as np

__all__ = ["Chunk", "ChunkSource", "combine_all", "combine_with_scan",
           "encode_chunk_labels", "refuse_non_finite", "require_two_classes"]


class ChunkSource(Protocol):
    """Where the rows of a chunked fit come from (a Dask collection, a file read in blocks, ...).

    Attributes
    ----------
    n_features : int
    feature_names : ndarray of str or None
        The column names (``feature_names_in_`` of the fitted estimator), when the source has them.
    """

    n_features: int
    feature_names: Any

    def map_reduce(self, fn, combine, *args):
        """``combine`` (a function of two results) over ``fn(chunk, *args)`` for every
        :class:`Chunk`, skipping ``None``; None when no chunk gave a result."""


@dataclass(frozen=True)
class Chunk:
    """One piece of the data as read from its source (not yet validated).

    Attributes
    ----------
    X : array-like of shape (rows, n_features) (ndarray or pandas DataFrame)
    y : array-like of shape (rows,) or None
    sample_weight : array-like of shape (rows,), scalar or None
    index : int
        Position of the chunk in the source.
    start : int or None
        Row number (in the whole data, from 0) of the chunk's first row, when known.
    origin : str or None
        The file the chunk was read from, when it was.
    origin_start : int or None
        Row number in ``origin`` of the chunk's first row (from 0: the first row after the header).
    columns : sequence of str or None
        The column names, when the source has them (for messages).
    """

    X: object
    y: object = None
    sample_weight: object = None
    index: int = 0
    start: int | None = None
    origin: str | None = None
    origin_start: int | None = None
    columns: object = None

    def where(self) -> str:
        if self.origin is not None and self.origin_start is not None:
            return f"{self.origin!r} (rows from {self.origin_start + 1})"
        return f"chunk {self.index}" + (f" (rows from {self.start})" if self.start is not None else "")

    def locate(self, row: int) -> str:
        """Where row ``row`` of the chunk is in its source: ``"'big.csv' row 51"`` (a file's rows
        count from 1 after the header, as :mod:`linclass.sources.tables` counts them), ``"row 50"``
        (of the whole array, from 0), or ``"row 3 of chunk 2"``."""
        if self.origin is not None and self.origin_start is not None:
            return f"{self.origin!r} row {self.origin_start + row + 1}"
        if self.start is not None:
            return f"row {self.start + row}"
        return f"row {row} of chunk {self.index}"


def combine_all(combine, parts):
    """Fold ``parts`` with ``combine``, skipping ``None``; None when nothing is left."""
    parts = [p for p in parts if p is not None]
    return reduce(combine, parts) if parts else None


# ---------------------------------------------------------------------------------- labels
def encode_chunk_labels(y: np.ndarray, classes: np.ndarray, where: str) -> np.ndarray:
    if (y.dtype.kind in "iu" and classes.dtype.kind in "iu" and classes.size and y.size
            and int(classes[-1]) - int(classes[0]) == classes.size - 1):  # consecutive integers
        idx = y.astype(np.intp) - int(classes[0])
        if idx.min() >= 0 and idx.max() < classes.size:
            return idx
    idx = np.searchsorted(classes, y)
    inside = (idx < classes.size) & (classes[np.minimum(idx, classes.size - 1)] == y)
    if not np.all(inside):
        unknown = np.unique(y[~inside])
        raise ValueError(f"{where}: y contains label(s) {unknown[:5].tolist()} that are not in "
                         f"classes={classes.tolist()}.")
    return idx.astype(np.intp, copy=False)


def refuse_non_finite(owner, stats, scan) -> None:
    """The in-memory rule of :func:`linclass.core.validation.explain_non_finite` on statistics
    reduced from chunks whose NaN and infinity were refused already: statistics that are not
    finite mean values too large for ``owner``'s arithmetic (``scan``, the chunks'
    :class:`~linclass.core.chunk_validation.ChunkScan`, says where the largest is)."""
    if not all(np.all(np.isfinite(a)) for a in stats.arrays()):
        raise scan.too_large(owner, "their squares overflow float64")


def combine_with_scan(combine, a: tuple, b: tuple) -> tuple:
    """Results ``(value, ChunkScan)`` of a pass that validates each chunk with ``scan=True``
    (:func:`linclass.selection.fold_rules.scanned_label_counts`) combined: ``combine`` on the values, the
    scans merged."""
    return combine_all(combine, [a[0], b[0]]), a[1].merge(b[1])


def require_two_classes(owner, stats) -> None:
    """The in-memory fit's "at least two classes" rule, on the reduced statistics (``owner``: the
    estimator, or its name, that the message names)."""
    active = stats.classes[stats.counts > 0]
    if active.size < 2:
        which = f" ({active[0]!r})" if active.size else ""
        name = owner if isinstance(owner, str) else type(owner).__name__
        raise ValueError(
            f"{name} needs samples of at least two classes, but y holds only one "
            f"class{which} with positive weight. A classifier cannot be trained on a single class."
        )
