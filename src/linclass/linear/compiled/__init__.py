"""Compiled loops of the penalised solvers (numba, compiled once per machine with ``cache=True``).

Everything here is a sequential loop over samples or columns, which NumPy cannot express without a
Python loop per coordinate.  numba was measured against the same loop in C (gcc -O3
-march=native, called through ctypes) on a text-like CSC matrix: equal speed once the row indices
are unsigned (numba then drops its negative-index test from the innermost loop), with no build step
and wheels for every platform.

``columns``       X's columns in two storages (sparse CSC, dense Fortran order) and the products
                  the solvers need: gradients, curvatures, score steps
``descent``       coordinate descent on a quadratic model (naive updates with Anderson
                  extrapolation, or on an explicit small Hessian)
``sample_terms``  per-sample log-losses, gradients and curvatures (binary and softmax)
"""

from linclass.linear.compiled.columns import (
    column_terms,
    gradient,
    scaled_columns,
    step_scores,
)
from linclass.linear.compiled.descent import cd_gram, cd_naive
from linclass.linear.compiled.sample_terms import (
    binary_loss,
    binary_loss_change,
    binary_residuals,
    binary_terms,
    softmax_loss,
    softmax_loss_change,
    softmax_terms,
)

__all__ = [
    "binary_loss",
    "binary_loss_change",
    "binary_residuals",
    "binary_terms",
    "cd_gram",
    "cd_naive",
    "column_terms",
    "gradient",
    "scaled_columns",
    "softmax_loss",
    "softmax_loss_change",
    "softmax_terms",
    "step_scores",
]
