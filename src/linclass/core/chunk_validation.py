"""Validation of the chunks of a chunked source (:mod:`linclass.core.chunks`: Dask collections,
files read in blocks), where each chunk is read: shape, numeric dtype, NaN / infinity, label types and
weights, with errors that name the chunk and its first row.

A chunk gets the checks an array in memory gets (:mod:`linclass.core.validation`), in one place,
:func:`validate_chunk`, with the source's file and row in the message where the source knows them
(:meth:`linclass.core.chunks.Chunk.locate`).  Checks
that need the whole data (whether the squares of X overflow: for the statistics models, whether their
class statistics stay finite; for the models that square X, :func:`check_column_magnitude`'s limit,
which depends on the number of entries) read a :class:`ChunkScan` of each chunk (each column's largest
magnitude and where the largest value is), reduced with the chunks' other summaries.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from linclass.core.validation import (
    _who, check_column_magnitude, check_finite, column_name, validate_labels,
    validate_sample_weight,
)

__all__ = ["ChunkScan", "validate_chunk", "validate_chunk_labels"]

_RESCALE = "Rescale the features (for example with sklearn.preprocessing.StandardScaler)."


@dataclass(frozen=True)
class ChunkScan:
    """What one read of the chunks learns of X's magnitude, merged over chunks by :meth:`merge`.

    Attributes
    ----------
    magnitude : ndarray of shape (n_features,)
        The largest absolute value of each column.
    entries : int
        Rows times features read.
    largest : str or None
        Where the largest absolute value of all is (``"'big.csv' row 51, column 'x'"``).
    names : sequence of str or None
        The column names, when the source has them.
    """

    magnitude: np.ndarray
    entries: int
    largest: str | None = None
    names: object = None

    def merge(self, other: ChunkScan) -> ChunkScan:
        keep = self if float(self.magnitude.max(initial=0.0)) >= float(other.magnitude.max(initial=0.0)) \
            else other
        return ChunkScan(np.maximum(self.magnitude, other.magnitude), self.entries + other.entries,
                         keep.largest, self.names if self.names is not None else other.names)

    def too_large(self, owner, why: str) -> ValueError:
        """The error of :func:`linclass.core.validation.explain_non_finite` (values too large for
        ``owner``'s arithmetic), naming where the largest value is."""
        at = f", at {self.largest}" if self.largest else ""
        return ValueError(
            f"Input X holds values too large for {_who(owner)}'s arithmetic (largest magnitude "
            f"{float(self.magnitude.max(initial=0.0)):.3g}{at}: {why}). {_RESCALE}")

    def check_squares(self, owner) -> None:
        """:func:`linclass.core.validation.check_magnitude`'s rule on the whole source (for the
        models that square X: sums of squares must not overflow, squares must not underflow)."""
        check_column_magnitude(owner, self.magnitude, max(self.entries, 1), feature_names=self.names,
                               where=self.largest)


def _scan(X: np.ndarray, chunk, names) -> ChunkScan:
    """NaN and infinity refused, naming the chunk's row; the chunk's :class:`ChunkScan`."""
    n, d = X.shape
    if X.size == 0:
        return ChunkScan(np.zeros(d), 0)
    from linclass.core.magnitude_kernel import column_magnitude

    magnitude, sums = column_magnitude(X)
    if not np.all(np.isfinite(sums)):  # NaN, infinity, or finite values whose sum overflows
        check_finite(X, feature_names=names, locate=chunk.locate)
    j = int(np.argmax(magnitude))
    i = int(np.argmax(np.abs(X[:, j])))
    return ChunkScan(magnitude, n * d, f"{chunk.locate(i)}, column {column_name(names, j)}", names)


def _sparse_scan(X, chunk, names) -> ChunkScan:
    """:func:`_scan` of a CSR chunk: one read of its stored entries."""
    from linclass.core.magnitude_kernel import sparse_column_magnitude

    magnitude, sums = sparse_column_magnitude(X)
    if not np.all(np.isfinite(sums)):
        check_finite(X, feature_names=names, locate=chunk.locate)
    where = f"{chunk.where()}, column {column_name(names, int(np.argmax(magnitude)))}" if X.nnz \
        else None
    return ChunkScan(magnitude, X.shape[0] * X.shape[1], where, names)


def _sparse_chunk(X, n_features: int, accept: bool):
    """A scipy.sparse chunk: CSR float64 where the fit reads sparse rows (the models of class
    counts and means), else refused with what works."""
    if not accept:
        raise ValueError(
            "the block is a scipy.sparse matrix, and this fit reads dense blocks only (the "
            "discrete naive Bayes models read sparse blocks). Densify each block "
            "(X.map_blocks(lambda b: b.toarray())) or fit the sparse matrix in memory.")
    if X.ndim != 2 or X.shape[1] != n_features:
        raise ValueError(f"X has {X.shape[1]} features, but {n_features} were expected.")
    return sp.csr_matrix(X, dtype=np.float64)


def _chunk_matrix(X, n_features: int, sparse: bool = False):
    """The chunk's X as C-contiguous float64 (CSR when ``sparse``), and its column names when it
    is a data frame."""
    if sp.issparse(X):
        return _sparse_chunk(X, n_features, sparse), None
    names = None
    if hasattr(X, "dtypes") and hasattr(X, "columns"):  # a pandas DataFrame (a Dask partition)
        bad = [str(c) for c, t in zip(X.columns, X.dtypes) if getattr(t, "kind", "O") not in "biuf"]
        if bad:
            raise ValueError(f"X must be numeric, but column {bad[0]!r} has dtype "
                             f"{X.dtypes.iloc[list(map(str, X.columns)).index(bad[0])]}.")
        names = [str(c) for c in X.columns]
        X = X.to_numpy(dtype=np.float64)
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"Expected a 2D array X of shape (n_samples, n_features), got {X.ndim}D "
                         f"(shape {X.shape}).")
    if X.dtype.kind == "c":  # (a cast to float64 would drop the imaginary parts with a warning)
        raise ValueError(f"Complex data not supported: X has dtype {X.dtype}.")
    if X.dtype.kind not in "biuf":
        try:
            X = X.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"X must be numeric; got dtype {X.dtype} that does not convert to "
                             "float64.") from None
    if X.shape[1] != n_features:
        raise ValueError(f"X has {X.shape[1]} features, but {n_features} were expected.")
    return np.ascontiguousarray(X, dtype=np.float64), names


def validate_chunk(chunk, n_features: int, *, again: bool = False, sparse: bool = False,
                   scan: bool = False):
    """Check and convert one chunk of a chunked source (:mod:`linclass.core.chunks`).

    Returns ``(X, y, w)``: X float64 C-contiguous of shape (rows, n_features) and finite, y labels
    (or None), w float64 non-negative weights or None.  Unlike :func:`validate_sample_weight`, a chunk
    whose weights are all zero is accepted (the whole source is checked after the reduction).
    Errors name the chunk (and its first row when known).  ``again=True`` (a later pass over data
    that a first pass validated: the iterations of logistic regression) skips the scans for NaN /
    infinity and of the labels' type.  A scipy.sparse chunk (a Dask array of sparse blocks) comes
    back as CSR when ``sparse`` (the fit reads sparse rows), and is refused otherwise.

    NaN and infinity are refused with the row in the source (:meth:`Chunk.locate`: the file and its
    row, or the row of the whole array) and the column.  ``scan=True`` (not with ``again``) returns
    ``(X, y, w, ChunkScan)``: the chunk's column magnitudes, from the same compiled pass, for the
    checks that need every chunk (:class:`ChunkScan`).
    """
    try:
        X, names = _chunk_matrix(chunk.X, n_features, sparse=sparse)
        if names is None:
            names = getattr(chunk, "columns", None)
        if again:
            found = None
        elif sp.issparse(X) and not scan:
            check_finite(X, feature_names=names, locate=chunk.locate)
            found = None
        elif sp.issparse(X):
            found = _sparse_scan(X, chunk, names)
        else:
            found = _scan(X, chunk, names)
        n = X.shape[0]
        y = None
        if chunk.y is not None:
            y = chunk.y.to_numpy() if hasattr(chunk.y, "to_numpy") else chunk.y
            y = np.asarray(y).reshape(-1) if again or not n else validate_labels(np.asarray(y), n, None)
        w = chunk.sample_weight
        if w is not None:
            w = w.to_numpy() if hasattr(w, "to_numpy") else w
            arr = np.asarray(w)
            if arr.shape == (n,) and arr.dtype.kind in "iufb" and n and not np.any(arr):
                w = np.zeros(n)
            else:
                w = validate_sample_weight(w, n)
    except ValueError as exc:
        message = str(exc)
        if chunk.where() in message:  # (the message names the chunk already)
            raise
        raise ValueError(f"{chunk.where()}: {message}") from None
    return (X, y, w, found) if scan else (X, y, w)


def validate_chunk_labels(labels: np.ndarray) -> np.ndarray:
    """Check the distinct labels gathered from every chunk (sorted), as :func:`validate_fit` checks
    y: discrete, finite, of one type."""
    return validate_labels(labels, labels.shape[0], None)
