"""The highest of several local maxima of Firth's penalised likelihood.

Without separation :math:`\\ell^*(\\theta) = \\ell(\\theta) + \\tfrac12\\ln|I(\\theta)|` has been seen
to have one maximum.  Where the classes are separated the log-likelihood is flat towards infinity
in some directions and the penalty decides the maximum, and :math:`\\ell^*` can have several: on
MASS's fgl (nine features, six classes) Newton's method from the intercept-only fit and from ridge
fits reaches local maxima at :math:`\\ell^*` = -131.739, -132.792, -133.545, -134.068 and
-134.147, the highest being brglm2's ``brmultinom`` estimate; Fisher scoring from the intercept-only
fit used to stop at -133.545, with fitted probabilities up to 0.32 from brmultinom's.  (Firth's
binary profile has the same trouble: :mod:`linclass.linear.firth.profile`.)

:func:`explore` therefore, on separated data only, maximises :math:`\\ell^*` again from the
ridge-penalised fits with :data:`RIDGE_C` (each a point that stays finite under separation,
shrunk by a different amount), keeps the highest maximum, and warns naming the maxima found and
the one returned when they differ.  The search is not a proof that no higher maximum exists.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np

from linclass.linear.logistic.objective import LinearObjective
from linclass.linear.solvers import newton

__all__ = ["RIDGE_C", "explore"]

#: the inverse ridge penalties of the fits whose estimates start the other searches
RIDGE_C = (0.1, 1.0, 10.0, 100.0)
_SAME = 1e-9  # maxima whose l* differ by less (relative) are one


def explore(problem, objective, result, options, separation_at):
    """The solver's ``result`` or, on separated data, the highest maximum of :math:`\\ell^*` that
    Newton's method reaches from it and from the ridge fits with :data:`RIDGE_C`, warning when
    they reached different maxima (module docstring).  The separation found is kept on the
    objective (``firth_separation``) for the fit's inference.  Iterations of the search that wins
    count in ``n_iter``.  ``separation_at(problem, objective, theta)``: the separation check."""
    separation = separation_at(problem, objective, result.theta)
    objective.firth_separation = separation
    if separation is None:
        return result
    found = [(float(result.value), result)]
    for C in RIDGE_C:
        ridge = LinearObjective(problem.X, problem.y, problem.n_classes, problem.weight,
                                l2=1.0 / C, fit_intercept=problem.fit_intercept,
                                offset=objective.offset)
        ridge.step_products = np.dtype(np.float64)  # exact steps, as Firth's own
        start = newton(ridge, objective.null_start(), tol=1e-8, max_iter=100).theta
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            other = newton(objective, start, tol=options.tol, max_iter=options.max_iter)
        if other.converged and np.isfinite(other.value):
            found.append((float(other.value), other))
    best_value, best = min(found, key=lambda pair: pair[0])
    total = objective.total
    maxima = []
    for value, _ in sorted(found, key=lambda pair: pair[0]):
        if not maxima or abs(value - maxima[-1]) > _SAME * (1.0 + abs(value)):
            maxima.append(value)
    if len(maxima) > 1:
        shown = ", ".join(f"{-v * total:.6f}" for v in maxima)
        warnings.warn(
            f"Firth's penalised likelihood l + 1/2 log|I| has several local maxima on these data "
            f"({separation} separation): Newton's method from the intercept-only fit and from "
            f"ridge fits (C = {', '.join(f'{c:g}' for c in RIDGE_C)}) reached {shown}; the fit "
            f"returns the highest, {-best_value * total:.6f}"
            f"{' (the one from the intercept-only fit)' if best is result else ''}.",
            UserWarning, stacklevel=6)
    if best is result or best_value >= float(result.value) - _SAME * (1.0 + abs(best_value)):
        return result
    return replace(best, n_iter=result.n_iter + best.n_iter,
                   history=np.concatenate([result.history, best.history[1:]]))
