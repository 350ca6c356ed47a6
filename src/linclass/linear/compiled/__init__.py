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
``sample_terms``  the compiled form of the binomial and multinomial log-losses: per-sample
                  values, gradients and curvatures, the loss along a line, and the two-class
                  duality gap's terms (best intercept, dual entropy), and the two-class passes
                  that form them in one read of a dense X (the objective's loss and gradient;
                  a proximal Newton step's score change with the next point's products)
``scaled_rows``   the scaled, centred rows of the two-class Hessian's product
``blocks``, ``coupled``  the grouped penalty's block update; the coupled softmax model by feature

The loops are loaded on first use (module ``__getattr__``): ``compiled.cd_naive`` imports
``descent`` then.
"""

from linclass.core.lazy import lazy_getattr

#: each public loop -> the submodule that compiles it; a submodule (and numba) is imported on the
#: first use of one of its loops, so that importing linclass, and every fit without a penalised
#: solver, costs no numba (``import numba`` about 0.4 s of a cold start)
_HOME = {
    "column_terms": "columns", "gradient": "columns", "scaled_columns": "columns",
    "step_scores": "columns",
    "cd_gram": "descent", "cd_naive": "descent",
    "binary_best_intercept": "sample_terms", "binary_dual_entropy": "sample_terms",
    "binary_gap_residuals": "sample_terms", "binary_loss": "sample_terms",
    "binary_loss_change": "sample_terms", "binary_residuals": "sample_terms",
    "binary_terms": "sample_terms", "softmax_loss": "sample_terms",
    "softmax_loss_change": "sample_terms", "softmax_terms": "sample_terms",
    "centred_scaled_rows": "scaled_rows", "binary_pass": "sample_terms",
    "binary_pass_rows": "sample_terms", "step_products": "sample_terms",
}


__getattr__ = lazy_getattr(__name__, _HOME, globals())


__all__ = [
    "binary_best_intercept",
    "binary_dual_entropy",
    "binary_gap_residuals",
    "binary_loss",
    "binary_loss_change",
    "binary_pass",
    "binary_pass_rows",
    "binary_residuals",
    "binary_terms",
    "cd_gram",
    "cd_naive",
    "centred_scaled_rows",
    "column_terms",
    "gradient",
    "scaled_columns",
    "softmax_loss",
    "softmax_loss_change",
    "softmax_terms",
    "step_products",
    "step_scores",
]
