"""The last step of every fit: one Newton step with the exact Hessian that inference needs anyway.

A fit that reports standard errors forms the exact float64 Hessian :math:`H(\\hat\\theta)` at the
solver's last iterate (:func:`linclass.linear.inference.inference_hessian`).  With it, one Newton
step :math:`\\hat\\theta - H^{-1}\\nabla f(\\hat\\theta)` (seed 000 sec. 2.3) costs one more pass over
the data, and it squares the distance to the optimum: a solver stopped at gradient ``tol`` ends at a
gradient of order ``tol**2``, whichever solver ran (the fastest, or the most accurate).

The covariance is :math:`H^{-1}` at :math:`\\hat\\theta`, one step before the returned coefficients:
the step is of the order of the gradient (``tol``), so the standard errors are those at the returned
point to that relative precision, as they were before the step.

The step is taken only from a converged fit with a non-singular Hessian, when the decrease it
predicts (:math:`\\tfrac12\\nabla f^TH^{-1}\\nabla f`) is above the rounding of :math:`f`, and it is
kept only if it lowers the gradient and does not raise the objective by more than its rounding (or
the predicted decrease, below which a rise is rounding); otherwise the solver's result stands.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from linclass.linear.solvers._common import SolverResult, SymmetricSolver, gradient_norm

__all__ = ["final_newton_step"]


def final_newton_step(objective, result: SolverResult, hessian: np.ndarray | None) -> SolverResult:
    """One Newton step from ``result.theta`` with ``hessian`` (of the mean objective there).

    Parameters
    ----------
    objective : LinearObjective or ChunkedObjective
    result : SolverResult
        The solver's outcome; returned unchanged when it did not converge, when ``hessian`` is None
        or singular, or when the step does not improve the fit.
    hessian : ndarray of shape (n_params, n_params) or None

    Returns
    -------
    SolverResult
        With the new theta, value and gradient norm (``n_iter`` and ``history`` are the solver's).
    """
    if hessian is None or not result.converged:
        return result
    system = SymmetricSolver(hessian)
    if system.singular:
        return result
    theta = np.asarray(result.theta, dtype=np.float64).reshape(objective.shape)
    f, g = objective.value_gradient(theta)  # the point last evaluated: no pass over the data
    step = -system.solve(g.ravel()).reshape(objective.shape)
    decrement = -float(g.ravel() @ step.ravel())  # twice the decrease the quadratic model predicts
    if not decrement > 4 * np.finfo(float).eps * abs(f):  # nothing to gain at working precision
        return result
    candidate = theta + step
    f_new, g_new = objective.value_gradient(candidate)
    # f may rise by its own rounding (data far from the origin round every score), which near the
    # optimum can exceed the predicted decrease: a rise below the decrement is that noise
    if not (np.isfinite(f_new) and f_new <= f + max(1e-13 * abs(f), decrement)
            and gradient_norm(g_new) < gradient_norm(g)):
        return result
    return replace(result, theta=candidate, gradient_norm=gradient_norm(g_new), value=f_new)
