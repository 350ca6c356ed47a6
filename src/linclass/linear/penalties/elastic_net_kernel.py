"""The elastic net's compiled coordinate update: the one copy every compiled loop calls, and the
penalty's kernel functions (:mod:`linclass.linear.penalties.kernel`).

Kept apart from :mod:`linclass.linear.penalties.elastic_net` so that smooth fits, which never reach
a compiled loop, import no numba (about 0.4 s of a cold start)."""

from __future__ import annotations

import numpy as np
from numba import cfunc, njit

from linclass.linear.penalties.kernel import PROX, VALUE, typed

__all__ = ["coordinate_update", "flat_update", "prox", "value"]


@njit(inline="always")
def coordinate_update(a, u, l1, l2, lo, hi):
    """The minimiser over v in [lo, hi] of ``a/2 v^2 - u v + l1 |v| + l2/2 v^2`` (the formula of
    :meth:`linclass.linear.penalties.elastic_net.ElasticNet.coordinate`): the unconstrained one
    clipped (the model is convex in v)."""
    if u > l1:
        v = (u - l1) / (a + l2)
    elif u < -l1:
        v = (u + l1) / (a + l2)
    else:
        v = 0.0
    return min(max(v, lo), hi)


@njit(inline="always")
def flat_update(grad, l1, old, lo, hi):
    """The update of a coordinate whose model has no curvature (every row it touches is fitted
    exactly, to rounding) and no L2 part: the model :math:`g\\,(v - v_0) + \\lambda_1|v|` on
    [lo, hi] is minimised at 0 (or the bound nearest it) when :math:`|g| \\le \\lambda_1` (a
    coefficient the penalty must take back), else at the bound it falls towards; without that bound
    it has no minimiser and the coordinate stays (the damping of the outer step bounds it)."""
    if abs(grad) <= l1:
        return min(max(0.0, lo), hi)
    if grad > l1:
        return lo if lo > -np.inf else old
    return hi if hi < np.inf else old


@cfunc(PROX, cache=True)
def prox(a, u, old, j, pp):
    """The coordinate update of column j (``pp``: the rows l1, l2, lower, upper of
    :meth:`~linclass.linear.penalties.elastic_net.ElasticNet.columns`)."""
    l1, l2, lo, hi = pp[0, j], pp[1, j], pp[2, j], pp[3, j]
    if a > 0.0 or l2 > 0.0:
        return coordinate_update(a, u, l1, l2, lo, hi)
    return flat_update(-u, l1, old, lo, hi)


prox = typed(prox, PROX)


@cfunc(VALUE, cache=True)
def value(v, j, pp):
    """:math:`\\lambda_1f_j|v| + \\frac{\\lambda_2f_j}2v^2`."""
    return pp[0, j] * abs(v) + 0.5 * pp[1, j] * v * v


value = typed(value, VALUE)
