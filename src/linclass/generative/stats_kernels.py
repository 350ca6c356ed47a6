"""Compiled loops of the class statistics' passes (:mod:`linclass.generative.scatter_passes`): the
per-class sums a BLAS product cannot give without a second read of X or a K-times larger product.

Each loop reads every row once, in order, and adds it (times its weight) into its class's row of
the output, vectorised over the features (or, :func:`group_scaled_rows`, writes it into its class's
segment of a block for BLAS); called on a block of X beside a BLAS product of that block, the two
share one read of it from memory (the loop first: it streams the block, and the product reads it
from the cache).  The sums are in float64 and in row order (the order of the sparse indicator
products they replace).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["class_moments", "class_sums_into", "gather_centred", "group_scaled_rows", "head_means",
           "scaled_row", "squared_deviations"]

_JIT = dict(cache=True, nogil=True, error_model="numpy")


@njit(inline="always")
def scaled_row(row, ref, s, dest):
    """``dest[:d] = s (row - ref)`` and, when ``dest`` has d + 1 entries, ``dest[d] = s``: a row of
    a Gram product's scaled, centred factor, whose last column gives the weighted sums (QDA's
    class blocks here, the two-class logistic Hessian in :mod:`linclass.linear.compiled`)."""
    d = row.shape[0]
    for j in range(d):
        dest[j] = s * (row[j] - ref[j])
    if dest.shape[0] > d:
        dest[d] = s


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


# A loop of its own, not class_moments taken about a centre (zero for the raw moments, the means
# here): that one loop made the Gaussian NB fit slower (200,000 x 100, 5 classes: 15-17 ms against
# 12.7 ms, median of 7), for the subtraction of a zero centre in the raw moments' hot loop.
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


@njit(**_JIT)
def group_scaled_rows(X, y, start, stop, refs, w, out, ends):
    """Rows ``start`` to ``stop - 1`` of X grouped by class into ``out``, in one read in row order
    (a counting sort): class k's rows, in row order, fill ``out[ends[k-1] : ends[k]]`` (``ends`` is
    overwritten with the running totals of the classes' row counts), each row
    ``out[t, :d] = sqrt(w_i) (x_i - refs[k])`` beside ``out[t, d] = sqrt(w_i)``
    (:func:`scaled_row`); one syrk of a class's segment then gives its scatter about ``refs[k]``
    and, in the last column, its centred sums :math:`\\sum_i w_i (x_i - r_k)`."""
    n_classes = ends.size
    position = np.zeros(n_classes, dtype=np.int64)
    for i in range(start, stop):
        position[y[i]] += 1
    first = 0
    for k in range(n_classes):
        count = position[k]
        position[k] = first
        first += count
        ends[k] = first
    for i in range(start, stop):
        k = y[i]
        t = position[k]
        position[k] = t + 1
        scaled_row(X[i], refs[k], np.sqrt(w[i]), out[t])


@njit(**_JIT)
def head_means(X, y, w, target, refs):
    """``refs[k]`` = the weighted mean of class k's first ``target[k]`` rows in row order (their plain
    mean when those weights sum to zero; ``refs`` holds zeros on entry); the scan stops once every
    class has its rows."""
    n, d = X.shape
    n_classes = target.size
    seen = np.zeros(n_classes, dtype=np.int64)
    total = np.zeros(n_classes)
    plain = np.zeros((n_classes, d))
    remaining = 0
    for k in range(n_classes):
        if target[k] > 0:
            remaining += 1
    for i in range(n):
        if remaining == 0:
            break
        k = y[i]
        if seen[k] >= target[k]:
            continue
        wi = w[i]
        row = X[i]
        r = refs[k]
        p = plain[k]
        for j in range(d):
            r[j] += wi * row[j]
            p[j] += row[j]
        total[k] += wi
        seen[k] += 1
        if seen[k] == target[k]:
            remaining -= 1
    for k in range(n_classes):
        if seen[k] == 0:
            continue
        r = refs[k]
        for j in range(d):
            r[j] = r[j] / total[k] if total[k] > 0 else plain[k, j] / seen[k]
