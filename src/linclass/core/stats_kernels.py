"""Compiled loops of the class statistics' passes (:mod:`linclass.core.scatter_passes`): the
per-class sums a BLAS product cannot give without a second read of X or a K-times larger product.

Each loop reads every row once, in order, and adds it (times its weight) into its class's row of
the output, vectorised over the features; called on a block of X that a BLAS product has just
read, it works from the cache.  The sums are in float64 and in row order (the order of the sparse
indicator products they replace).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["class_moments", "class_sums_into", "gather_centred", "squared_deviations"]

_JIT = dict(cache=True, nogil=True, error_model="numpy")


@njit(**_JIT)
def class_sums_into(X, y, w, sums):
    """``sums[y_i] += w_i x_i`` for every row (``w``: shape (n,), ones without weights)."""
    n, d = X.shape
    for i in range(n):
        k = y[i]
        wi = w[i]
        row = X[i]
        out = sums[k]
        for j in range(d):
            out[j] += wi * row[j]


@njit(**_JIT)
def class_moments(X, y, w, sums, squares):
    """``sums[y_i] += w_i x_i`` and ``squares[y_i] += w_i x_i^2`` (elementwise) for every row."""
    n, d = X.shape
    for i in range(n):
        k = y[i]
        wi = w[i]
        row = X[i]
        s = sums[k]
        q = squares[k]
        for j in range(d):
            v = row[j]
            s[j] += wi * v
            q[j] += wi * (v * v)


@njit(**_JIT)
def squared_deviations(X, y, w, means, out):
    """``out[y_i] += w_i (x_i - mu_{y_i})^2`` (elementwise) for every row."""
    n, d = X.shape
    for i in range(n):
        k = y[i]
        wi = w[i]
        row = X[i]
        mu = means[k]
        o = out[k]
        for j in range(d):
            r = row[j] - mu[j]
            o[j] += wi * (r * r)


@njit(**_JIT)
def gather_centred(X, idx, ref, w, out, sums):
    """``out[t] = x_{idx_t} - ref`` and ``sums += w_{idx_t} out[t]``: one class's rows gathered
    into a block, centred, and summed in the same read (``w`` indexed like X's rows)."""
    d = X.shape[1]
    for t in range(idx.size):
        i = idx[t]
        row = X[i]
        o = out[t]
        wi = w[i]
        for j in range(d):
            r = row[j] - ref[j]
            o[j] = r
            sums[j] += wi * r
