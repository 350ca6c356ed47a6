"""Validation of the chunks of a chunked source (:mod:`linclass.core.chunks`: Dask collections,
files read in blocks), where each chunk is read: shape, numeric dtype, NaN / infinity, label types and
weights, with errors that name the chunk and its first row.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from linclass.core.finiteness import check_finite
from linclass.core.validation import validate_labels, validate_sample_weight

__all__ = ["validate_chunk", "validate_chunk_labels"]


def _sparse_chunk(X, n_features: int, check: bool, accept: bool):
    """A scipy.sparse chunk: CSR float64 where the fit reads sparse rows (the models of class
    counts and means), else refused with what works."""
    if not accept:
        raise ValueError(
            "the block is a scipy.sparse matrix, and this fit reads dense blocks only (the "
            "discrete naive Bayes models read sparse blocks). Densify each block "
            "(X.map_blocks(lambda b: b.toarray())) or fit the sparse matrix in memory.")
    if X.ndim != 2 or X.shape[1] != n_features:
        raise ValueError(f"X has {X.shape[1]} features, but {n_features} were expected.")
    X = sp.csr_matrix(X, dtype=np.float64)
    if check:
        check_finite(X)
    return X


def _chunk_matrix(X, n_features: int, check: bool = True, sparse: bool = False):
    if sp.issparse(X):
        return _sparse_chunk(X, n_features, check, sparse)
    if hasattr(X, "dtypes") and hasattr(X, "columns"):  # a pandas DataFrame (a Dask partition)
        bad = [str(c) for c, t in zip(X.columns, X.dtypes) if getattr(t, "kind", "O") not in "biuf"]
        if bad:
            raise ValueError(f"X must be numeric, but column {bad[0]!r} has dtype "
                             f"{X.dtypes.iloc[list(map(str, X.columns)).index(bad[0])]}.")
        X = X.to_numpy(dtype=np.float64)
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"Expected a 2D array X of shape (n_samples, n_features), got {X.ndim}D "
                         f"(shape {X.shape}).")
    if X.dtype.kind not in "biuf":
        try:
            X = X.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"X must be numeric; got dtype {X.dtype} that does not convert to "
                             "float64.") from None
    if X.shape[1] != n_features:
        raise ValueError(f"X has {X.shape[1]} features, but {n_features} were expected.")
    X = np.ascontiguousarray(X, dtype=np.float64)
    if check:
        check_finite(X)
    return X


def validate_chunk(chunk, n_features: int, *, again: bool = False, sparse: bool = False):
    """Check and convert one chunk of a chunked source (:mod:`linclass.core.chunks`).

    Returns ``(X, y, w)``: X float64 C-contiguous of shape (rows, n_features) and finite, y labels
    (or None), w float64 non-negative weights or None.  Unlike :func:`validate_sample_weight`, a chunk
    whose weights are all zero is accepted (the whole source is checked after the reduction).
    Errors name the chunk (and its first row when known).  ``again=True`` (a later pass over data
    that a first pass validated: the iterations of logistic regression) skips the scans for NaN /
    infinity and of the labels' type.  A scipy.sparse chunk (a Dask array of sparse blocks) comes
    back as CSR when ``sparse`` (the fit reads sparse rows), and is refused otherwise.
    """
    try:
        X = _chunk_matrix(chunk.X, n_features, check=not again, sparse=sparse)
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
        raise ValueError(f"{chunk.where()}: {exc}") from None
    return X, y, w


def validate_chunk_labels(labels: np.ndarray) -> np.ndarray:
    """Check the distinct labels gathered from every chunk (sorted), as :func:`validate_fit` checks
    y: discrete, finite, of one type."""
    return validate_labels(labels, labels.shape[0], None)
