"""``solver='auto'``: the solver with the lower predicted cost, from a count of floating-point work.

Per row of X, with p = d (+1) columns, m = 1 (two classes) or K - 1 blocks, and :math:`K_w` = 1 or
K residual columns:

* one evaluation (value and gradient: two products with X and the loss) costs about
  :math:`4pK_w + 30K` flops;
* one Hessian (:mod:`linclass.linear.logistic.curvature`) :math:`p^2m(m+1)/2` (half in float32, which Newton
  uses on large X), and its factorisation :math:`(pm)^3/3` once per iteration.

From the Gaussian start (:mod:`linclass.linear.logistic.start`), on the benchmarks and the test problems,
Newton needs about 4 iterations and L-BFGS (in the metric of a sampled Hessian) about 8 evaluations;
either ends with the same exact final step.  With those counts Newton wins only when a Hessian costs
about as little as an evaluation: a handful of features (p up to about 10 for two classes, fewer
with more classes).  Measured on n = 100,000-200,000 rows (one BLAS thread, CPU time), L-BFGS was
1.1x (two classes, d = 5-20) to 2.7x (K = 5, d = 10) faster than Newton, and Newton's margin below
p = 10 is within the noise.
"""

from __future__ import annotations

from linclass.linear.logistic.layout import LOW_PRECISION_MIN

__all__ = ["auto_solver"]

_NEWTON_ITERATIONS = 4
_LBFGS_EVALUATIONS = 8
_LBFGS_MEMORY = 10


def auto_solver(objective, n_rows: int) -> str:
    """'newton' or 'lbfgs' for ``objective`` over ``n_rows`` rows, whichever costs fewer flops."""
    p, m = objective.shape
    K = objective.n_classes
    n_params = p * m
    evaluation = 4 * p * (1 if m == 1 else K) + 30 * K
    hessian = p * p * m * (m + 1) / 2 * (0.5 if n_rows * (p - 1) >= LOW_PRECISION_MIN else 1.0)
    factor = n_params**3 / 3
    newton = _NEWTON_ITERATIONS * (n_rows * (evaluation + hessian) + factor)
    sample = min(n_rows, max(2000, 100 * p))  # LinearObjective.curvature_metric's rows
    lbfgs = (_LBFGS_EVALUATIONS * (n_rows * evaluation + 4 * _LBFGS_MEMORY * n_params)
             + sample * p * p * m * (m + 1) / 2 + factor)
    return "newton" if newton <= lbfgs else "lbfgs"
