"""Limited-memory BFGS in the metric of the Hessian at the start.

Each iteration is one evaluation of the objective and its gradient (one pass over the data).  The
direction is the L-BFGS two-loop recursion (Nocedal & Wright, alg. 7.4) over the last ``memory``
steps, whose initial inverse Hessian is :math:`\\gamma_k H_0^{-1}` with

* :math:`H_0` the objective's ``curvature_metric(theta0)``: the Hessian at the start formed on a
  sample of rows (:meth:`~linclass.linear.logistic.objective.LinearObjective.curvature_metric`; for chunked
  data the exact Hessian there), so the first step is a Newton step and the secant pairs only correct
  how the curvature changes along the path;
* :math:`\\gamma_k = s^Ty / y^TH_0^{-1}y` of the last pair (about 1 when :math:`H_0` is right; it
  adapts the scale when it is not).

The step length starts at 1 and is halved until the Armijo condition holds (from a start in the
quadratic region it is accepted at once).  A singular :math:`H_0` (collinear features) is inverted on
its range (:class:`~linclass.linear.solvers._common.SymmetricSolver`), so the iterates keep the
start's component along the unidentified directions.  The optimum is the objective's: the metric
changes the path, not the limit.

With more than :data:`~linclass.linear.logistic.layout.DENSE_BOUND_MAX` rows of theta (sparse text
data, where a p x p matrix would not fit) :math:`H_0` is the diagonal of the Hessian bound.
"""

from __future__ import annotations

import numpy as np

from linclass.linear.logistic.layout import DENSE_BOUND_MAX
from linclass.linear.solvers._common import (
    Iterations,
    SolverResult,
    SymmetricSolver,
    backtrack,
    gradient_norm,
)

__all__ = ["lbfgs"]



class _Diagonal:
    """A diagonal :math:`H_0` (positive entries), solved entry by entry."""

    singular = False

    def __init__(self, diagonal: np.ndarray):
        self.diagonal = np.maximum(diagonal, np.finfo(float).tiny)

    def solve(self, b: np.ndarray) -> np.ndarray:
        return b / self.diagonal


def _direction(g, pairs, system, gamma: float) -> np.ndarray:
    """:math:`-H_k^{-1}g` by the two-loop recursion over ``pairs`` of (s, y, 1 / y^Ts), with the
    initial inverse Hessian ``gamma`` :math:`H_0^{-1}`."""
    q = g.copy()
    alphas = []
    for s, y, rho in reversed(pairs):
        a = rho * float(s @ q)
        q -= a * y
        alphas.append(a)
    r = system.solve(q)
    if pairs:
        r *= gamma
    for (s, y, rho), a in zip(pairs, reversed(alphas)):
        r += (a - rho * float(y @ r)) * s
    return -r


def lbfgs(objective, theta0, *, tol: float = 1e-6, max_iter: int = 100, memory: int = 10,
          on_iteration=None, hand_over=None) -> SolverResult:
    """Minimise ``objective`` by L-BFGS in the start's curvature metric; see the module docstring.
    ``on_iteration``: called with the parameters after each iteration; a true result stops the run.
    ``hand_over``: called with the largest gradient entry after each iteration; a true result stops
    the run unconverged, for another solver to go on from there
    (:class:`linclass.linear.fitting.choice.HandOver`)."""
    shape = objective.shape
    theta = np.array(theta0, dtype=np.float64).reshape(shape)
    if shape[0] > DENSE_BOUND_MAX:
        system = _Diagonal(np.repeat(objective.hessian_bound_diagonal(), shape[1]))
    else:
        system = SymmetricSolver(objective.curvature_metric(theta))
    f, g = objective.value_gradient(theta)
    g = g.ravel()
    history, pairs, run, gamma = [f], [], Iterations(tol, max_iter), 1.0
    while run.go_on(g):
        step = _direction(g, pairs, system, gamma)
        slope = float(g @ step)
        if not slope < 0:  # the pairs lost positive definiteness to rounding: restart from H_0
            pairs = []
            step = -system.solve(g)
            slope = float(g @ step)
            if not slope < 0:
                step, slope = -g, -float(g @ g)
        found = backtrack(objective, theta, step.reshape(shape), f, g, slope)
        if found is None:  # no progress possible at this precision
            objective.value_gradient(theta)  # the returned point is the last one evaluated
            run.converged = gradient_norm(g) <= np.sqrt(tol)
            break
        t, f_new, g_new = found
        g_new = g_new.ravel()
        s, y = t * step, g_new - g
        theta = theta + s.reshape(shape)
        f, g = f_new, g_new
        history.append(f)
        sy = float(s @ y)
        if sy > np.finfo(float).eps * float(np.sqrt((s @ s) * (y @ y))):
            pairs = (pairs + [(s, y, 1.0 / sy)])[-memory:]
            # the scale of H_0^{-1}, s^Ty / y^T H_0^{-1} y of the newest pair: one solve per pair
            gamma = sy / max(float(y @ system.solve(y)), np.finfo(float).tiny)
        if on_iteration is not None and on_iteration(theta):
            break
        if hand_over is not None and hand_over(gradient_norm(g)):
            break
    return SolverResult(theta, run.n_iter, run.converged, np.asarray(history), gradient_norm(g),
                        system.singular, f)
