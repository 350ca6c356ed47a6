"""The perceptron rule's epoch over sparse rows (:mod:`linclass.linear.perceptron_rule`).

Dense patterns are scanned block-wise with matrix products; a sparse row's activation touches only
its stored entries, and the rule is sequential, so one compiled loop over the rows in visiting order
does exactly the per-sample rule: activation :math:`a = w_0 + w^Tx` (per class), and on a mistake
:math:`w \\mathrel{+}= t\\,s\\,(1, x)` (two classes, :math:`t = \\pm1`, weight s) or
:math:`w_{y} \\mathrel{+}= s(1, x)`, :math:`w_{p} \\mathrel{-}= s(1, x)` (K classes, predicted p: the
first largest activation).  Two classes: class 1 is misclassified when :math:`a < 0`, class 0 when
:math:`a \\ge 0`.  Rows of zero weight are skipped (they never update and are not counted).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from linclass.linear.compiled.columns import JIT as _JIT

__all__ = ["sparse_epoch", "sparse_errors"]


@njit(inline="always")
def _activation(indptr, indices, data, W, k, i):
    a = W[k, 0]
    for p in range(indptr[i], indptr[i + 1]):
        a += W[k, 1 + indices[p]] * data[p]
    return a


@njit(**_JIT)
def sparse_epoch(indptr, indices, data, y, weight, order, W):
    """One pass of the rule over CSR rows in ``order``, updating the augmented weights W (m, 1 + d)
    in place (m = 1: two classes, y in {0, 1}); returns the number of updates."""
    m = W.shape[0]
    scores = np.empty(m)
    mistakes = 0
    for pos in range(order.shape[0]):
        i = order[pos]
        s = weight[i]
        if s <= 0.0:
            continue
        if m == 1:
            a = _activation(indptr, indices, data, W, 0, i)
            positive = y[i] == 1
            if (a < 0.0) if positive else (a >= 0.0):
                step = s if positive else -s
                W[0, 0] += step
                for p in range(indptr[i], indptr[i + 1]):
                    W[0, 1 + indices[p]] += step * data[p]
                mistakes += 1
            continue
        best = 0
        for k in range(m):
            scores[k] = _activation(indptr, indices, data, W, k, i)
            if scores[k] > scores[best]:
                best = k
        t = y[i]
        if best != t:
            W[t, 0] += s
            W[best, 0] -= s
            for p in range(indptr[i], indptr[i + 1]):
                W[t, 1 + indices[p]] += s * data[p]
                W[best, 1 + indices[p]] -= s * data[p]
            mistakes += 1
    return mistakes


@njit(**_JIT)
def sparse_errors(indptr, indices, data, y, weight, W):
    """Total weight of the rows the augmented weights W misclassify (the pocket's count)."""
    m = W.shape[0]
    total = 0.0
    for i in range(indptr.shape[0] - 1):
        if weight[i] <= 0.0:
            continue
        if m == 1:
            a = _activation(indptr, indices, data, W, 0, i)
            wrong = (a < 0.0) if y[i] == 1 else (a >= 0.0)
        else:
            best, top = 0, _activation(indptr, indices, data, W, 0, i)
            for k in range(1, m):
                a = _activation(indptr, indices, data, W, k, i)
                if a > top:
                    best, top = k, a
            wrong = best != y[i]
        if wrong:
            total += weight[i]
    return total
