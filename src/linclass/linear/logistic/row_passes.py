"""The two-class objective's pass over a dense X by the compiled loops
(:mod:`linclass.linear.compiled.sample_terms`): without the Hessian one read of each row; with it,
block by block, each block read once to write its scaled rows, then their Gram product.

A large X's row chunks are shared among worker threads (:func:`linclass.core.threads.map_chunks`,
one BLAS thread each): the chunks depend on X's shape only and their sums are added in order, so
any number of threads gives the same bits.
"""

from __future__ import annotations

import numpy as np

from linclass.core.threads import map_chunks, row_chunks
from linclass.linear import compiled
from linclass.linear.logistic.separation import SURE

__all__ = ["two_class_terms"]

_NONE = np.empty(0)  # unit weights, no score offsets: the compiled loops' empty arrays


def two_class_terms(X, y, w, shift, coef, intercept: float, acc):
    """``(loss sum, X^T R of shape (d, 1), R^T 1 of shape (1,), rows fitted with probability one)``
    at scores ``X @ coef + intercept (+ shift)``, and the Hessian's data term added into ``acc``
    (a :class:`~linclass.linear.logistic.curvature.CurvatureSum` of two classes) unless it is
    None.

    X : dense C-ordered float64 or float32 (n, d); y : float64 labels in {0, 1}; w : sample weights
    or None; shift : per-row score offsets (n,) or None; coef : (d,).
    """
    coef = np.ascontiguousarray(coef)
    w = _NONE if w is None else w
    shift = _NONE if shift is None else np.ascontiguousarray(shift)
    n, d = X.shape

    def part(rows):
        sw, sh = (w[rows] if w.size else w), (shift[rows] if shift.size else shift)
        if acc is None:
            return compiled.binary_pass(X[rows], coef, intercept, y[rows], sw, sh, SURE) + (None,)
        own, xtr, stats = acc.part(), np.zeros(d), np.zeros(3)
        step, start, stop = own.block_rows(), rows.start, rows.stop
        for lo in range(start, stop, step):
            hi = min(lo + step, stop)
            A = own.rows_buffer(hi - lo)
            block = slice(lo - start, hi - start)
            compiled.binary_pass_rows(X[lo:hi], coef, intercept, y[lo:hi],
                                      sw[block] if sw.size else sw, sh[block] if sh.size else sh,
                                      SURE, own.offset, A, xtr, stats)
            own.add_rows(A)
        return float(stats[0]), xtr, float(stats[1]), int(stats[2]), own

    stat_bytes = 8 * (d + (0 if acc is None else acc.p * acc.p))
    value, xtr, total, perfect = 0.0, np.zeros(d), 0.0, 0
    chunks = row_chunks(n, d, stat_bytes)
    parts = map_chunks(part, chunks) if len(chunks) > 1 else [part(chunks[0])]
    for loss, g, rsum, count, own in parts:
        value, total, perfect = value + loss, total + rsum, perfect + count
        xtr += g
        if acc is not None:
            acc.merge(own)
    return value, xtr[:, None], np.array([total]), perfect
