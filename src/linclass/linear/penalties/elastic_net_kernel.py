"""The elastic net's compiled coordinate update: the one copy every compiled loop calls (inlined;
:mod:`linclass.linear.penalties.kernel`).

Kept apart from :mod:`linclass.linear.penalties.elastic_net`: the compiled loops import this update
alone, as a numba function they inline, not the penalty object of the Python side."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["coordinate_update", "flat_update"]


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
