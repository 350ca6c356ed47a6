"""SciPy's L-BFGS-B on the objective, in coordinates whitened by the Hessian bound.

With :math:`B = LL^T` one block of the bound of :mod:`linclass.solvers.bohning`, the solver works on
:math:`z = L^T\\theta` (per class block): the curvature in z is :math:`L^{-1}HL^{-T} \\preceq I`, so the
problem is as well conditioned as the data's :math:`\\mu(1-\\mu)` allows, whatever the scale or
correlation of the features.  The change of variables is exact: the optimum is the same.  With more
than :data:`~linclass.linear.objective_layout.DENSE_BOUND_MAX` rows (sparse text data: p x p would not
fit) only the bound's diagonal whitens, :math:`L = \\mathrm{diag}(B)^{1/2}`.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular
from scipy.optimize import minimize

from linclass.linear.objective_layout import DENSE_BOUND_MAX
from linclass.linear.solvers._common import SolverResult, SymmetricSolver, gradient_norm

__all__ = ["lbfgs"]


def lbfgs(objective, theta0, *, tol: float = 1e-6, max_iter: int = 100) -> SolverResult:
    """Minimise ``objective`` with L-BFGS-B; see the module docstring."""
    shape = objective.shape
    singular = False
    if shape[0] > DENSE_BOUND_MAX:
        scale = np.sqrt(np.abs(objective.hessian_bound_diagonal())) + 1e-300

        def to_theta(z):
            return z.reshape(shape) / scale[:, None]

        def to_z(g):
            return (g / scale[:, None]).ravel()

        def from_theta(theta):
            return (theta * scale[:, None]).ravel()
    else:
        system = SymmetricSolver(objective.hessian_bound_block())
        singular = system.singular
        lower = system.lower
        if lower is None:  # collinear features: a diagonal scaling instead of the full whitening
            lower = np.diag(np.sqrt(np.abs(np.diag(objective.hessian_bound_block()))) + 1e-300)

        def to_theta(z):
            return solve_triangular(lower.T, z.reshape(shape), lower=False)

        def to_z(g):
            return solve_triangular(lower, g, lower=True).ravel()

        def from_theta(theta):
            return (lower.T @ theta).ravel()

    z0 = from_theta(np.reshape(theta0, shape))
    last = {}
    history = []

    def fun(z):
        f, g = objective.value_gradient(to_theta(z))
        last["g"] = g
        return f, to_z(g)

    def callback(intermediate_result):
        history.append(float(intermediate_result.fun))
        if gradient_norm(last["g"]) <= tol:
            raise StopIteration

    f0, _ = fun(z0)
    history.append(f0)
    if gradient_norm(last["g"]) <= tol:
        return SolverResult(np.reshape(theta0, shape).astype(float), 0, True, np.asarray(history),
                            gradient_norm(last["g"]), singular, f0)
    result = minimize(fun, z0, jac=True, method="L-BFGS-B", callback=callback,
                      options={"maxiter": max_iter, "gtol": 0.0, "ftol": 64 * np.finfo(float).eps,
                               "maxcor": 20})
    theta = to_theta(result.x)
    f, g = objective.value_gradient(theta)
    gnorm = gradient_norm(g)
    converged = gnorm <= tol or (result.nit < max_iter and gnorm <= np.sqrt(tol))
    return SolverResult(theta, int(result.nit), bool(converged), np.asarray(history), gnorm,
                        singular, f)
