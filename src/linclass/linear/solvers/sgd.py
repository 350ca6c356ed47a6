"""Stochastic gradient descent: the logistic rule on shuffled mini-batches.

The gradient of Bishop 2006 eq. 4.91 one row at a time (Murphy 2012 sec. 8.5):
:math:`\\theta \\leftarrow \\theta - \\rho(\\mu_i - y_i)x_i`.  Here the rule is applied to mini-batches (the
mean of the rule over ``batch_size`` rows, a fresh shuffle each epoch) and in the metric of the Hessian bound
:math:`B` of :mod:`linclass.linear.solvers.bohning`:

.. math::  \\theta \\leftarrow \\theta - \\rho\\, B^{-1} \\hat g_{\\text{batch}}

which is that rule on features whitened by the Cholesky factor of :math:`X^TX` (so the step size
does not depend on the features' scale), and with :math:`\\rho = 1` and a full batch it is exactly the
bounded-Hessian step.  Each epoch ends at the average of its iterates (Polyak-Ruppert averaging),
which cancels most of the noise of single steps.  Schedule ('adaptive'): :math:`\\rho` starts at
``eta0``; whenever an epoch fails to lower the objective by ``tol`` the batch size doubles (which
lowers the gradient noise, as a smaller step would, without slowing the progress; Smith et al. 2018),
up to the full data, where the step is a damped bounded-Hessian step and the iteration converges to
the exact optimum.  The run stops (converged) after ``n_iter_no_change`` full-batch epochs in a row
without such progress, or after ``max_iter`` epochs.
"""

from __future__ import annotations

import numpy as np

from linclass.linear.solvers._common import SolverResult, SymmetricSolver, gradient_norm

__all__ = ["sgd"]


def sgd(objective, theta0, *, tol: float = 1e-6, max_iter: int = 100, random_state=None,
        batch_size: int = 256, eta0: float = 0.5, n_iter_no_change: int = 5,
        on_iteration=None) -> SolverResult:
    """Minimise ``objective`` by preconditioned mini-batch SGD; see the module docstring.
    ``on_iteration``: called with the parameters after each epoch; a true result stops the run."""
    rng = np.random.default_rng(random_state)
    theta = np.array(theta0, dtype=np.float64).reshape(objective.shape)
    system = SymmetricSolver(objective.hessian_bound_block())
    n = objective.X.shape[0]
    batch = max(1, min(int(batch_size), n))
    f = best = objective.value(theta)
    history, stalls, rho, epoch = [f], 0, float(eta0), 0
    stalled = False
    while epoch < max_iter:
        epoch += 1
        order = rng.permutation(n)
        average = np.zeros_like(theta)
        for start in range(0, n, batch):
            rows = order[start : start + batch]
            step = rho * rows.size / batch  # a short last batch takes a proportionally short step
            theta -= step * system.solve(objective.batch_gradient(theta, rows))
            average += theta * (rows.size / n)
        theta = average  # epoch (Polyak-Ruppert) averaging: the noise of single steps cancels
        f = objective.value(theta)
        history.append(f)
        if on_iteration is not None and on_iteration(theta):
            break
        if f < best - tol:
            best, stalls = f, 0
        elif batch < n:  # progress stalled at this noise level: a larger batch lowers the noise
            batch = min(2 * batch, n)
        else:
            stalls += 1
            if stalls >= n_iter_no_change:
                stalled = True
                break
    f, g = objective.value_gradient(theta)
    converged = stalled
    return SolverResult(theta, epoch, converged, np.asarray(history), gradient_norm(g),
                        system.singular, f)
