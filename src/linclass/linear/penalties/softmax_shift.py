"""The common shift a softmax fit's coefficients take (the loss's flat direction): for each feature,
the :math:`c_j` minimising :math:`\\sum_k r_j(W_{kj} - c_j)` under the elastic net
:math:`r_j(w) = \\lambda_{1j}|w| + \\frac{\\lambda_{2j}}2w^2`.

A softmax model's loss does not change when the same number is subtracted from every class's
coefficient of a feature, so the optimum takes the shift the penalty prefers: the mean for L2, a
median for L1, between for the elastic net (glmnet's centring of multinomial coefficients; Friedman,
Hastie and Tibshirani 2010, sec. 4).  The objective is convex and piecewise quadratic in :math:`c`;
its derivative :math:`\\lambda_1(\\#\\{W_{kj} < c\\} - \\#\\{W_{kj} > c\\}) + \\lambda_2(Kc -
\\sum_kW_{kj})` increases, and its root is found among the K + 1 intervals the sorted column
defines.  Where the minimisers form an interval (L1, even K) its midpoint is returned, so that the
shifted column has its own interval centred on 0: every optimal column of the same fit then reports
the same coefficients, whatever point of the interval the solver reached.  A column without penalty
takes the mean (its coefficients then sum to zero); with bounds, the shift is the best one that keeps
the column within them.  (The compiled copy for one column is
:func:`linclass.linear.compiled.blocks.best_shift`.)
"""

from __future__ import annotations

import numpy as np

__all__ = ["best_shift"]


def best_shift(W: np.ndarray, l1, l2, lower=None, upper=None) -> np.ndarray:
    """The shift of each column of W (K x d) (module docstring); ``l1``, ``l2``: numbers or one per
    column; ``lower`` / ``upper``: the columns' bounds or None."""
    A = np.sort(np.asarray(W, dtype=np.float64), axis=0)
    K, d = A.shape
    if K == 0 or d == 0:
        return np.zeros(d)
    if np.ndim(l1) == 0 and np.ndim(l2) == 0 and lower is None and upper is None:
        return _shift(A, l1, l2)
    l1, l2 = np.broadcast_to(l1, (d,)), np.broadcast_to(l2, (d,))
    free = (l1 == 0) & (l2 == 0)
    shift = np.where(free, A.mean(axis=0), _shift(A, l1, np.where(free, 1.0, l2)))
    if lower is not None or upper is not None:
        lo = -np.inf if lower is None else lower
        hi = np.inf if upper is None else upper
        shift = np.clip(shift, A[-1] - hi, A[0] - lo)
    return shift


def _shift(A, l1, l2):
    """The shift of the sorted columns A with penalties l1, l2 (numbers or one per column)."""
    K, d = A.shape
    total = A.sum(axis=0)
    ranks = np.arange(K)[:, None]
    # derivative at each sorted value (m smaller, K - 1 - m larger): increasing in m
    phi = l1 * (2 * ranks - (K - 1)) + l2 * (K * A - total)
    m = np.sum(phi < 0, axis=0)  # the root lies in [A[m-1], A[m]]
    lo = np.where(m > 0, A[np.maximum(m - 1, 0), np.arange(d)], -np.inf)
    hi = np.where(m < K, A[np.minimum(m, K - 1), np.arange(d)], np.inf)
    # L1 alone: between lo and hi the derivative is l1 (2m - K); zero (a flat minimum) only for
    # 2m = K, else the root is the jump at hi (the median of an odd K)
    lasso = np.where(2 * m == K, (lo + hi) / 2, hi)
    if np.ndim(l2) == 0 and l2 == 0:
        return lasso
    with np.errstate(divide="ignore", invalid="ignore"):
        ridge = np.clip((total - l1 * (2 * m - K) / l2) / K, lo, hi)
    return np.where(l2 > 0, ridge, lasso)
