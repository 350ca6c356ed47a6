"""The form in which a separable penalty reaches the compiled coordinate-descent loops.

A separable penalty :math:`r(w) = \\sum_j r_j(w_j)` enters coordinate descent only through one
coefficient at a time.  It hands the loops of :mod:`linclass.linear.compiled.descent` two compiled
functions of one column and a table of its own numbers, one column per feature (``params``, of
shape (k, d); the loops never read it, they pass it back):

``prox(a, u, old, j, params)``
    the minimiser over :math:`v` of :math:`\\frac a2 v^2 - uv + r_j(v)` (within the penalty's
    domain), the coordinate update of a quadratic model with curvature :math:`a \\ge 0` whose
    linear term is :math:`u = a\\,\\text{old} - g`; for a non-convex :math:`r_j` the global
    minimiser of the one-dimensional problem.  With :math:`a = 0` (no curvature) the model is
    linear, and the update returns the minimiser when there is one, else ``old``.
``value(v, j, params)``
    :math:`r_j(v)`.

and two arrays of one number per column: ``curvature``, the curvature of the penalty's convex
quadratic part (:math:`\\lambda_2 f_j` for the elastic net, 0 for the folded concave penalties),
which the loops add to a coordinate's curvature when they measure its move in gradient units, and
``lower`` / ``upper``, the box the coefficients live in (``-inf`` / ``inf`` without one).

They are numba *first-class functions* (``numba.cfunc`` of the signatures below, :func:`typed`): a
loop compiled
once takes any penalty's functions as arguments and is cached on disk, where a loop specialised
per penalty would be compiled again in every process.  An indirect call costs about 8 ns, against
a column's product of :math:`O(n)` in the same step, but 4-18% of the loops' time where that work
is small (sparse columns of ~75 entries, a 100-column model): the elastic net, the common case,
hands None instead and the loops inline its update (:mod:`linclass.linear.compiled.descent`).  A
new penalty is a module that compiles its two functions with :data:`PROX` and :data:`VALUE` and
returns them from ``kernel(d)``: no loop is edited.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import types

__all__ = ["PROX", "VALUE", "PenaltyKernel", "typed"]

#: ``prox(a, u, old, j, params) -> v``
PROX = types.float64(types.float64, types.float64, types.float64, types.int64,
                     types.float64[:, ::1])
#: ``value(v, j, params) -> r_j(v)``
VALUE = types.float64(types.float64, types.int64, types.float64[:, ::1])


def typed(function, signature):
    """``function`` (a numba cfunc of ``signature``) with its numba type attached: a compiled loop
    called from Python then reads the argument's type instead of building it each call (measured:
    12.7 against 5.5 microseconds to enter the small model's loop, which a regularisation path
    enters hundreds of times)."""
    function._numba_type_ = types.FunctionType(signature)
    return function


@dataclass(frozen=True)
class PenaltyKernel:
    """A separable penalty as the compiled loops take it (module docstring): a plain record of
    the penalty's numbers per column.  The solvers lay it onto a working set
    (:func:`linclass.linear.solvers.small_model.kernel_on`); what the penalty's value does along a
    step is the penalty's own (its ``change``).

    Attributes
    ----------
    prox, value : numba cfuncs of signatures :data:`PROX` and :data:`VALUE`, or None for the
        elastic net (``params`` its rows l1, l2, lower, upper), whose update the loops inline
    params : ndarray of shape (k, d), C-contiguous
        The penalty's numbers per column, read only by ``prox`` and ``value``.
    curvature, lower, upper : ndarrays of shape (d,)
    elastic : tuple of two ndarrays or None
        ``(l1, l2)`` per column when the penalty is an elastic net without bounds: the exact
        feature-sign solve of a small model applies
        (:func:`linclass.linear.solvers.small_model.solve_small_model`).
    """

    prox: object
    value: object
    params: np.ndarray
    curvature: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    elastic: tuple | None = None
