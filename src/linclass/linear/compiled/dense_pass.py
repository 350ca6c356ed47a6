"""A two-class proximal Newton step's score change and the next point's products, in one read of a
dense X (:class:`linclass.linear.solvers.prox_newton.TwoClass`).

Each outer iteration of the two-class fit reads X for the step's score change
:math:`z = \\tilde X\\delta` (the line search needs all of it), then, at the new point, for the
products :math:`\\tilde X^Tg` and :math:`\\tilde X^Th` of its score gradients and curvatures (the
next model's gradient and the intercept's column of its Hessian, and the look at every column).
The line search nearly always accepts the full step, whose point is known as soon as a row's
:math:`z_i` is: :math:`s_i + z_i + \\delta_b`.  So row by row the loop forms :math:`z_i`, the row's
gradient and curvature at the full step, and adds both times the row into the products while the
row is still in the first-level cache: one read of X where the two BLAS products read it twice.
The loss, gradients and curvatures at the full step are kept too (the move to it then needs no
pass over the scores of its own).  When the line search takes a shorter step none of it is used
and the products are formed again at the point it reached.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from linclass.linear.compiled.columns import JIT
from linclass.linear.compiled.sample_terms import score_terms

__all__ = ["step_products"]


@njit(cache=True, nogil=True, error_model="numpy", fastmath={"reassoc", "contract"})
def _dot(row, delta):
    """:math:`x_i^T\\delta` (its terms reassociated: vectorised; rounding-level changes only)."""
    total = 0.0
    for j in range(row.shape[0]):
        total += row[j] * delta[j]
    return total


@njit(**JIT)
def step_products(X, shift, delta, s, db, y, sw, z, g, h, Xg, Xh):
    """Into ``z`` (n,) the score change :math:`\\tilde X\\delta`; into ``g`` and ``h`` (n,) the
    score gradients :math:`g_i = w_i(\\mu_i - y_i)` and curvatures :math:`h_i = w_i\\mu_i(1 - \\mu_i)`
    at the scores :math:`s + (z + \\delta_b)` (the full step), and into ``Xg``, ``Xh`` (d,), zeroed
    here, :math:`\\tilde X^Tg` and :math:`\\tilde X^Th`; returns the summed weighted loss there
    (the loss, g and h exactly as :func:`~linclass.linear.compiled.sample_terms.binary_terms`
    forms them at those scores).

    X : C-contiguous float64 (n, d); shift : the design's column shift (d,); delta : the step
    (d,), zero off the working set; s : the scores at the point (n,); db : the intercept's step;
    y : labels in {0, 1} (float64); sw : sample weights (n,)."""
    n, d = X.shape
    c = 0.0
    for j in range(d):
        c += shift[j] * delta[j]
    for j in range(d):
        Xg[j] = 0.0
        Xh[j] = 0.0
    total, g_sum, h_sum = 0.0, 0.0, 0.0
    for i in range(n):
        row = X[i]
        zi = _dot(row, delta) - c
        z[i] = zi
        wi = sw[i]
        mu, loss, gi, _ = score_terms(s[i] + (zi + db), y[i], wi, 0.0)
        hi = wi * mu * (1.0 - mu)
        total += loss
        g[i] = gi
        h[i] = hi
        g_sum += gi
        h_sum += hi
        for j in range(d):
            Xg[j] += gi * row[j]
            Xh[j] += hi * row[j]
    for j in range(d):  # the centred columns: X~^T v = X^T v - shift sum(v)
        Xg[j] -= shift[j] * g_sum
        Xh[j] -= shift[j] * h_sum
    return total
