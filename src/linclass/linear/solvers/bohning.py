"""The bounded-Hessian (Böhning-Lindsay) iteration.

Böhning and Lindsay (1988), Böhning (1992); docs/math/logistic.md#the-bounded-hessian-iteration: since
:math:`\\mu(1-\\mu) \\le \\frac14`, :math:`H \\preceq \\frac14 X^TX` and

.. math::  \\theta^{(t+1)} = \\theta^{(t)} + 4(X^TX)^{-1}X^T(y - \\mu)

(with the penalty and the 1/N scaling of :mod:`linclass.linear.logistic.objective` folded into the bound).  For
softmax, Böhning's bound :math:`\\frac12(I - \\frac1K\\mathbf{1}\\mathbf{1}^T)\\otimes X^TX` is, in the
sum-to-zero basis, K - 1 copies of :math:`\\frac12X^TX`, so the same single matrix serves every class.

The bound is factored once (Cholesky); each iteration is then one gradient (two passes over X) and a
triangular solve.  Because the quadratic with the bound majorises the objective, every step decreases
it: no line search is needed (a minorise-maximise algorithm).  Convergence is linear; its rate is set by
how far the data's curvature :math:`\\mu(1-\\mu)` falls below 1/4.
"""

from __future__ import annotations

import numpy as np

from linclass.linear.solvers._common import Iterations, SolverResult, SymmetricSolver, gradient_norm

__all__ = ["bohning"]


def bohning(objective, theta0, *, tol: float = 1e-6, max_iter: int = 100,
            on_iteration=None) -> SolverResult:
    """Minimise ``objective`` with the fixed bound matrix; see the module docstring.
    ``on_iteration``: called with the parameters after each iteration; a true result stops the run."""
    theta = np.array(theta0, dtype=np.float64).reshape(objective.shape)
    system = SymmetricSolver(objective.hessian_bound_block())
    f, g = objective.value_gradient(theta)
    history, run = [f], Iterations(tol, max_iter)
    while run.go_on(g):
        theta = theta - system.solve(g)
        f_new, g = objective.value_gradient(theta)
        history.append(f_new)
        if f_new >= f and gradient_norm(g) <= np.sqrt(tol):  # stalled at rounding level
            run.converged = True
            break
        f = f_new
        if on_iteration is not None and on_iteration(theta):
            break
    return SolverResult(theta, run.n_iter, run.converged, np.asarray(history), gradient_norm(g),
                        system.singular, history[-1])
