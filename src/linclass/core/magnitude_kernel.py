"""One compiled pass over a dense X for :func:`linclass.core.finiteness.check_magnitude`: every
column's largest absolute value, and whether X is finite.

NumPy needs two reductions for the same answer (the column maxima and the column minima, each a
pass over X); this loop reads X once, in its own memory order, and on large X splits the rows (C
order) or the columns (Fortran order) over threads.  NaN does not order, so the maxima skip it:
finiteness comes from the column sums, which NaN and infinity make non-finite (a finite X whose
sum overflows is reported as not finite, and the caller's exact scan then finds nothing to refuse).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = ["PARALLEL_MIN", "column_magnitude"]

PARALLEL_MIN = 1_000_000  # entries below which the pass runs in one thread
_ROWS = 4096  # rows per task of the threaded C-order pass
_JIT = dict(cache=True, nogil=True, error_model="numpy")


@njit(inline="always")
def _rows_into(X, lo, hi, mag, total):
    d = X.shape[1]
    for i in range(lo, hi):
        row = X[i]
        for j in range(d):
            v = row[j]
            a = abs(v)
            mag[j] = a if a > mag[j] else mag[j]
            total[j] += v


@njit(**_JIT)
def _rows_serial(X, mag, total):
    _rows_into(X, 0, X.shape[0], mag, total)


@njit(parallel=True, **_JIT)
def _rows_parallel(X, mags, totals):
    n = X.shape[0]
    for t in prange(mags.shape[0]):
        _rows_into(X, t * _ROWS, min(n, (t + 1) * _ROWS), mags[t], totals[t])


@njit(inline="always")
def _column_into(X, j, mag, total):
    m, s = 0.0, 0.0
    for i in range(X.shape[0]):
        v = X[i, j]
        a = abs(v)
        m = a if a > m else m
        s += v
    mag[j] = m
    total[j] = s


@njit(**_JIT)
def _columns_serial(X, mag, total):
    for j in range(X.shape[1]):
        _column_into(X, j, mag, total)


@njit(parallel=True, **_JIT)
def _columns_parallel(X, mag, total):
    for j in prange(X.shape[1]):
        _column_into(X, j, mag, total)


def column_magnitude(X: np.ndarray) -> tuple[np.ndarray, bool]:
    """``(max_i |x_ij| for every column j, whether every entry is finite)`` of a dense 2-D float X
    (float64 results); NaN entries are left out of the maxima."""
    n, d = X.shape
    threads = X.size >= PARALLEL_MIN
    if not (X.flags.c_contiguous or X.flags.f_contiguous):
        X = np.ascontiguousarray(X)
    if X.flags.c_contiguous:
        if threads:
            tasks = -(-n // _ROWS)
            mags, totals = np.zeros((tasks, d)), np.zeros((tasks, d))
            _rows_parallel(X, mags, totals)
            mag, total = mags.max(axis=0), totals.sum(axis=0)
        else:
            mag, total = np.zeros(d), np.zeros(d)
            _rows_serial(X, mag, total)
    else:
        mag, total = np.zeros(d), np.zeros(d)
        (_columns_parallel if threads else _columns_serial)(X, mag, total)
    return mag, bool(np.all(np.isfinite(total)))
