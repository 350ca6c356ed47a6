"""The rows of the two-class Hessian's product, written in one pass: :math:`s_i(x_i - m)` and, with
an intercept, :math:`s_i` in the last column (:math:`s_i = \\sqrt{w_i\\mu_i(1-\\mu_i)}`,
:mod:`linclass.linear.logistic.curvature`).  NumPy needs three passes over the block for the same
rows (subtract, fill the intercept column, scale), each writing the whole block; this loop reads
the block once and writes each entry once, in the output's dtype (float32 products: the rounding of
one subtraction and one multiplication in float64, then one to float32).
"""

from __future__ import annotations

from numba import njit

from linclass.generative.stats_kernels import scaled_row
from linclass.linear.compiled.columns import JIT as _JIT

__all__ = ["centred_scaled_rows"]


@njit(**_JIT)
def centred_scaled_rows(X, offset, s, out):
    """``out[i, :d] = s[i] * (X[i] - offset)`` and, when ``out`` has d + 1 columns,
    ``out[i, d] = s[i]`` (X of shape (b, d), C order; out of shape (b, d) or (b, d + 1))."""
    for i in range(X.shape[0]):
        scaled_row(X[i], offset, s[i], out[i])
