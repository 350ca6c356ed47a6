"""Solvers over a :class:`~linclass.linear.logistic.objective.LinearObjective`, one small module each.

Every solver is a function ``solve(objective, theta0, *, tol, max_iter, ...) -> SolverResult``: it
starts from ``theta0`` (shape ``objective.shape``), stops when the largest entry of the gradient of the
mean objective is at most ``tol`` (SGD: when an epoch no longer improves the objective by ``tol``) or
after ``max_iter`` iterations, and is deterministic (SGD given its ``random_state``).  Each takes
exactly its own keyword options (sgd: ``random_state``, ``batch_size``, ``eta0``,
``n_iter_no_change``), so a misspelled option is a ``TypeError``.

=========  ==================================================================================
newton     Newton-Raphson / IRLS, :math:`H = X^TWX` (Bishop 2006 sec. 4.3.3), with a backtracking line search
bohning    the bounded-Hessian iteration :math:`\\theta + 4(X^TX)^{-1}X^T(y-\\mu)` (Böhning-Lindsay),
           Böhning's bound for softmax; the bound is factored once
lbfgs      limited-memory BFGS whose initial metric is the Hessian at the start (on a sample of rows)
sgd        the stochastic gradient rule on shuffled mini-batches, with an adaptive step
=========  ==================================================================================

Beside them: ``final_step`` (the exact Newton steps that end every converged fit, with the Hessian
that inference needs anyway); which solver runs is chosen in :mod:`linclass.linear.fitting.choice`
(``solver='auto'``: the solver with the lower predicted work).  The penalised fits (L1, elastic
net) have their own solver, 'cd' (:func:`linclass.linear.fitting.choice.coordinate_descent` picks
the fit by the number of classes): ``prox_newton`` holds its one skeleton (working set, quadratic
model and its exact small solve, damped step, certificate) and the two-class fit;
``prox_newton_softmax`` (the coupled K x d model by feature blocks; through it,
``prox_newton_coupled``, the same model formed explicitly for small dense working sets, solved
exactly by the skeleton's small solve or, for the grouped penalty, ``small_grouped``; both hold
the K-class point of ``softmax_point``) and ``prox_newton_chunked`` are its variants, on a
:class:`~linclass.linear.logistic.penalised.PenalisedObjective`; each damps its model where it
cannot be trusted and stops when the largest optimality (KKT) violation is within ``tol`` and a
duality gap or two agreeing KKT points bound the objective's distance to the optimum.
A smooth fit with an L2 penalty is certified by the same gap (``final_step.until_certified``).
"""

from linclass.linear.solvers._common import SolverResult, SymmetricSolver
from linclass.linear.solvers.bohning import bohning
from linclass.linear.solvers.lbfgs import lbfgs
from linclass.linear.solvers.newton import newton
from linclass.linear.solvers.sgd import sgd

SOLVERS = {"newton": newton, "bohning": bohning, "lbfgs": lbfgs, "sgd": sgd}

__all__ = ["SOLVERS", "SolverResult", "SymmetricSolver", "bohning", "lbfgs", "newton", "sgd"]
