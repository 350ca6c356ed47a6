"""Newton-Raphson (iteratively reweighted least squares) with a backtracking line search.

Newton-Raphson / IRLS (Bishop 2006 sec. 4.3.3): :math:`\\theta^{(t+1)} = \\theta^{(t)} - H^{-1}\\nabla f`,
with the Hessian :math:`X^TWX` (:meth:`~linclass.linear.logistic.objective.LinearObjective.hessian`).  The steps, in order:
gradient, convergence test, Hessian, inner solve (Cholesky; pseudo-inverse if singular), Armijo backtracking
(halving) along the Newton direction, update.  The line search makes the iteration safe far from the
optimum and on separable data, where the undamped step can overshoot.

The steps' curvature is the objective's ``step_hessian`` where it has one (on large X its products
are float32, as the objective decides from its data; the gradient, which fixes the optimum, stays
float64): an approximate Hessian changes the path, not the limit.  The first step that needs
damping switches to the exact ``hessian`` for the rest of the run.
"""

from __future__ import annotations

import numpy as np

from linclass.linear.solvers._common import (
    Iterations,
    SolverResult,
    SymmetricSolver,
    backtrack,
    gradient_norm,
)

__all__ = ["newton"]



def newton(objective, theta0, *, tol: float = 1e-6, max_iter: int = 100,
           on_iteration=None) -> SolverResult:
    """Minimise ``objective`` by damped Newton steps; see the module docstring.  ``on_iteration``:
    called with the parameters after each iteration; a true result stops the run."""
    theta = np.array(theta0, dtype=np.float64).reshape(objective.shape)
    f, g = objective.value_gradient(theta)
    history, singular, run = [f], False, Iterations(tol, max_iter)
    curvature = getattr(objective, "step_hessian", objective.hessian)
    while run.go_on(g):
        system = SymmetricSolver(curvature(theta))
        singular |= system.singular
        step = -system.solve(g.ravel()).reshape(objective.shape)
        slope = float(g.ravel() @ step.ravel())
        if not slope < 0:  # not a descent direction (rounding on a singular Hessian): steepest descent
            step, slope = -g, -float(g.ravel() @ g.ravel())
        found = backtrack(objective, theta, step, f, g, slope)
        if found is None or found[0] < 1.0:  # a damped step: the exact Hessian from now on
            curvature = objective.hessian
        if found is None:  # no progress possible at this precision
            run.converged = gradient_norm(g) <= np.sqrt(tol)
            break
        t, f, g = found
        theta = theta + t * step
        history.append(f)
        if on_iteration is not None and on_iteration(theta):
            break
    return SolverResult(theta, run.n_iter, run.converged, np.asarray(history), gradient_norm(g), singular,
                        f)
