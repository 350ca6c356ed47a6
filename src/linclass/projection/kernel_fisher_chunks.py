"""Nystroem kernel Fisher discriminant analysis from a chunk source (Dask collections, files read in
blocks): the in-memory fit (:func:`linclass.projection.kernel_fisher.fit_nystroem`) with its data
passes split into maps over chunks and reductions (:mod:`linclass.core.chunks`).

=====  ==============================================  ============================================
pass   chunk summary                                   what the client does with it
=====  ==============================================  ============================================
1      :class:`RowSummary`: rows per chunk, the         n, ``gamma=None``'s variance of X, the
       variance moments of every entry, the largest     magnitude check of the in-memory fit
       magnitude of each column
2      the chunk's rows at the landmark indices that    the landmark rows, in row order
       fall inside it
3      ``landmark_stats`` of the chunk (class           ``ClassStats.merge``, then
       statistics of :math:`k(x, L)`)                   :func:`~linclass.projection.kernel_fisher.solve_nystroem`
=====  ==============================================  ============================================

The landmarks are the in-memory fit's for the same ``random_state``: the landmark rule
(:func:`linclass.projection.kernels.choose_landmarks`) draws row indices from n and the random state
alone, and pass 2 gathers the rows at those global indices (the chunks' positions come from the row
counts of pass 1, so a source need not know where its chunks start).  With ``landmarks='random'``
pass 2 gathers ``n_landmarks`` rows; with ``'kmeans++'`` it gathers the seeding's pool, every row up
to 200,000 rows and a uniform subsample of 200,000 rows above (the in-memory rule's own bound), so
the client then holds up to 200,000 rows of X.  Only the exact fit (an n x n problem) needs every
row in memory at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from linclass.core.chunk_validation import ChunkScan, validate_chunk, validate_chunk_labels
from linclass.core.chunks import require_two_classes
from linclass.generative.class_stats import ClassStats
from linclass.core.validation import check_label_type, encode_labels
from linclass.projection.kernel_fisher import landmark_stats

__all__ = ["RowSummary", "gather_rows", "source_landmark_stats", "summarise_rows"]


@dataclass(frozen=True)
class RowSummary:
    """What pass 1 learns of the rows of a source.

    Attributes
    ----------
    rows : dict of int to int
        Rows in each chunk, by the chunk's position in the source.
    entries : int
        Number of entries of X (rows times features).
    mean, m2 : float
        Mean and sum of squared deviations of every entry of X (merged as Chan, Golub and LeVeque).
    scan : ChunkScan
        The largest absolute value in each column, with where the largest of all is
        (:mod:`linclass.core.chunk_validation`), for the error that names the file and row.
    """

    rows: dict
    entries: int
    mean: float
    m2: float
    scan: ChunkScan

    @property
    def n_samples(self) -> int:
        return int(sum(self.rows.values()))

    @property
    def variance(self) -> float:
        """The variance of every entry of X, as ``X.var()`` (divided by the number of entries)."""
        return self.m2 / self.entries if self.entries else 0.0

    def starts(self) -> dict:
        """The global row number of each chunk's first row, by position."""
        out, start = {}, 0
        for index in sorted(self.rows):
            out[index] = start
            start += self.rows[index]
        return out

    def merge(self, other: RowSummary) -> RowSummary:
        n = self.entries + other.entries
        delta = other.mean - self.mean
        frac = other.entries / n if n else 0.0
        return RowSummary(
            rows={**self.rows, **other.rows}, entries=n, mean=self.mean + frac * delta,
            m2=self.m2 + other.m2 + delta * delta * self.entries * frac,
            scan=self.scan.merge(other.scan),
        )


def _summary(chunk, n_features):
    X, _, _, scan = validate_chunk(chunk, n_features, scan=True)
    if X.size == 0:
        return RowSummary({chunk.index: X.shape[0]}, 0, 0.0, 0.0, scan)
    mean = float(X.mean())
    with np.errstate(over="ignore"):  # values too large are refused after the reduction
        m2 = float(np.sum((X - mean) ** 2))
    return RowSummary({chunk.index: X.shape[0]}, X.size, mean, m2, scan)


def summarise_rows(source) -> RowSummary:
    """Pass 1: :class:`RowSummary` of the whole source (every chunk validated)."""
    summary = source.map_reduce(_summary, RowSummary.merge, source.n_features)
    if summary is None or summary.n_samples == 0:
        raise ValueError(f"Found array with 0 sample(s) (shape=(0, {source.n_features})) while a "
                         "minimum of 1 is required.")
    return summary


def _rows_at(chunk, n_features, starts, idx):
    X, _, _ = validate_chunk(chunk, n_features, again=True)
    start = starts[chunk.index]
    lo, hi = np.searchsorted(idx, [start, start + X.shape[0]])
    if lo == hi:
        return None
    return idx[lo:hi], X[idx[lo:hi] - start]


def _concat(a, b):
    return np.concatenate([a[0], b[0]]), np.concatenate([a[1], b[1]])


def gather_rows(source, summary: RowSummary, idx: np.ndarray) -> np.ndarray:
    """Pass 2: the rows at the sorted global row indices ``idx``, in that order, shape (len(idx), d)."""
    idx = np.asarray(idx, dtype=np.intp)
    found = source.map_reduce(_rows_at, _concat, source.n_features, summary.starts(), idx)
    at, rows = found if found is not None else (np.empty(0, np.intp), np.empty((0, source.n_features)))
    order = np.argsort(at, kind="stable")
    if not np.array_equal(at[order], idx):
        raise ValueError("The source gave other rows on a second pass than on the first (its chunks "
                         "changed between passes); fit on data that stays the same.")
    return rows[order]


def _chunk_landmark_stats(chunk, n_features, kernel, landmarks):
    X, y, _ = validate_chunk(chunk, n_features, again=True)
    if X.shape[0] == 0:
        return None
    if y is None:
        raise ValueError(f"{chunk.where()}: the source has no labels (y).")
    y = np.asarray(y).reshape(-1)
    own, yi = encode_labels(y)
    return landmark_stats(X, yi, own, kernel, landmarks)


def _merge(a: ClassStats, b: ClassStats) -> ClassStats:
    check_label_type(b.classes, a.classes, seen_in="other chunks")
    return a.merge(b)


def source_landmark_stats(owner, source, kernel, landmarks: np.ndarray) -> ClassStats:
    """Pass 3: the merged class statistics of :math:`k(x, L)` over every chunk, the classes being
    the labels found (checked as the in-memory fit checks y: one type, at least two classes)."""
    stats = source.map_reduce(_chunk_landmark_stats, _merge, source.n_features, kernel, landmarks)
    validate_chunk_labels(stats.classes)
    require_two_classes(owner, stats)
    return stats
