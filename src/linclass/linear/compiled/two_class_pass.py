"""One read of a dense X for the two-class log-loss, its gradient and the count of rows fitted with
probability one (:meth:`linclass.linear.logistic.objective.LinearObjective._evaluate`).

Row by row the loop forms the score :math:`s_i = x_i^Tw + b` (plus the row's known offset), the
loss and the residual :math:`r_i = w_i(\\mu_i - y_i)`, and adds :math:`r_ix_i` into the gradient
while the row is still in the first-level cache: X is read once, where two BLAS products (the
scores, then :math:`X^TR`) read each block twice.  Measured on 200,000 x 100 (2 shared cores, two
threads each, in turn in one process): 11.9 ms against 17.2 ms for the blocked pair of products,
and 10.8 ms for the score product alone.  Within a row the dot product is vectorised (its terms
are reassociated, which changes the score only at rounding level).

With the Hessian (:func:`binary_pass_rows`, one block of rows at a time) the same loop also writes
each row's :math:`\\sqrt{w_i\\mu_i(1-\\mu_i)}\\,[x_i - m, 1]`, the rows whose Gram product
(:class:`linclass.linear.logistic.curvature.CurvatureSum`) is the Hessian's data term.

The loops run in one thread and release the GIL: the objective shares a large X's row chunks among
worker threads (:func:`linclass.core.threads.map_chunks`), so that these loops and the Gram
products in between run on the same threads.  (numba's own threads, which wait for work by
spinning, and BLAS's threads, which do the same, took turns badly on a machine with other work:
a two-class Hessian took 243 ms that way against 122 ms in one thread.)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from linclass.generative.stats_kernels import scaled_row
from linclass.linear.compiled.sample_terms import score_terms

__all__ = ["binary_pass", "binary_pass_rows"]

_JIT = dict(cache=True, nogil=True, error_model="numpy", fastmath={"contract", "reassoc"})


@njit(inline="always")
def _row_terms(row, coef, intercept, yi, wi, si, sure):
    """(probability, loss, residual, fitted with probability one) of one row."""
    s = 0.0
    for j in range(row.shape[0]):
        s += row[j] * coef[j]
    return score_terms(s + intercept + si, yi, wi, sure)


def binary_pass(X, coef, intercept: float, y, sw, shift, sure: float):
    """``(summed weighted loss, X^T r of shape (d,), sum of r, rows fitted with probability one)``
    at scores ``X @ coef + intercept (+ shift)``.

    X : C-contiguous float64 (n, d); coef : float64 (d,); y : float64 labels in {0, 1}; sw : weights
    (n,) or an empty array for unit weights; shift : per-row score offsets (n,) or an empty array;
    sure : a row's own-class probability above ``1 - sure`` counts as fitted with probability one.
    """
    g, stats = np.zeros(X.shape[1]), np.zeros(3)
    binary_pass_rows(X, coef, float(intercept), y, sw, shift, float(sure), None, None, g, stats)
    return float(stats[0]), g, float(stats[1]), int(stats[2])


@njit(**_JIT)
def binary_pass_rows(X, coef, intercept, y, sw, shift, sure, offset, rows, g, stats):
    """:func:`binary_pass` over one block of rows, adding into ``g`` (d,) and ``stats`` (loss,
    residual sum, count of rows fitted with probability one), and writing into ``rows`` (shape
    (b, d) or (b, d + 1), the product dtype) the scaled rows :math:`s_i(x_i - m)` (and
    :math:`s_i` in the last column), :math:`s_i = \\sqrt{w_i\\mu_i(1 - \\mu_i)}`, ``m`` the
    ``offset``.  ``rows`` None (and ``offset`` None): no scaled rows, the loop of
    :func:`binary_pass` (numba compiles that case apart, the branch removed: a test at run time
    in the loop made the evaluation 15% slower)."""
    d = X.shape[1]
    weighted = sw.shape[0] > 0
    shifted = shift.shape[0] > 0
    loss, rsum, perfect = 0.0, 0.0, 0.0
    for i in range(X.shape[0]):
        row = X[i]
        wi = sw[i] if weighted else 1.0
        m, l, r, p = _row_terms(row, coef, intercept, y[i], wi, shift[i] if shifted else 0.0, sure)
        loss += l
        rsum += r
        perfect += p
        for j in range(d):
            g[j] += r * row[j]
        if rows is not None:
            scaled_row(row, offset, np.sqrt(wi * m * (1.0 - m)), rows[i])
    stats[0] += loss
    stats[1] += rsum
    stats[2] += perfect
