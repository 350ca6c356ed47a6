"""Stochastic gradient descent: the seed's rule on shuffled mini-batches.

Seed 000, sec. 2.2: :math:`\\theta \\leftarrow \\theta - \\rho(\\mu_i - y_i)x_i`.  Here the rule is applied
to mini-batches (the mean of the rule over ``batch_size`` rows, a fresh shuffle each epoch) and in the
metric of the Hessian bound :math:`B` of :mod:`linclass.solvers.bohning`:

.. math::  \\theta \\leftarrow \\theta - \\rho\\, B^{-1} \\hat g_{\\text{batch}}

which is the seed's rule on features whitened by the Cholesky factor of :math:`X^TX` (so the step size
does not depend on the features' scale), and with :math:`\\rho = 1` and a full batch it is exactly the
bounded-Hessian step.  Schedule ('adaptive'): :math:`\\rho` starts at ``eta0`` and is divided by 5
whenever an epoch fails to lower the objective by ``tol``; the run stops (converged) after
``n_iter_no_change`` such epochs in a row, or after ``max_iter`` epochs.
"""

from __future__ import annotations

import numpy as np

from ._common import SolverResult, SymmetricSolver, gradient_norm

__all__ = ["sgd"]


def sgd(objective, theta0, *, tol: float = 1e-6, max_iter: int = 100, random_state=None,
        batch_size: int = 256, eta0: float = 0.5, n_iter_no_change: int = 5, **_) -> SolverResult:
    """Minimise ``objective`` by preconditioned mini-batch SGD; see the module docstring."""
    rng = np.random.default_rng(random_state)
    theta = np.array(theta0, dtype=np.float64).reshape(objective.shape)
    system = SymmetricSolver(objective.hessian_bound_block())
    n = objective.X.shape[0]
    batch = max(1, min(int(batch_size), n))
    f = best = objective.value(theta)
    history, stalls, rho, epoch = [f], 0, float(eta0), 0
    converged = False
    while epoch < max_iter:
        epoch += 1
        order = rng.permutation(n)
        for start in range(0, n, batch):
            theta -= rho * system.solve(objective.batch_gradient(theta, order[start : start + batch]))
        f = objective.value(theta)
        history.append(f)
        if f < best - tol:
            best, stalls = f, 0
        else:
            stalls += 1
            rho /= 5.0
            if stalls >= n_iter_no_change:
                converged = True
                break
    _, g = objective.value_gradient(theta)
    return SolverResult(theta, epoch, converged, np.asarray(history), gradient_norm(g),
                        system.singular)
