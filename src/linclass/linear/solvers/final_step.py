"""The last steps of every fit: Newton steps with the exact Hessian that inference needs anyway.

A fit that reports standard errors forms the exact float64 Hessian :math:`H(\\hat\\theta)` at the
solver's last iterate (:func:`linclass.linear.inference.wald.inference_hessian`).  With it, a Newton
step :math:`\\hat\\theta - H^{-1}\\nabla f(\\hat\\theta)` (Bishop 2006 sec. 4.3.3) costs one more pass over
the data, and it squares the distance to the optimum: a solver stopped at gradient ``tol`` ends at a
gradient of order ``tol**2``, whichever solver ran (the fastest, or the most accurate).  A second
step with the same Hessian, taken when it still changes the coefficients, ends at rounding; then
the fit forms the Hessian once more, at the returned estimate, for the covariance (the standard
errors at the estimate, not one step before it, as R's glm and Stata report them;
``linclass.linear.fitting.fit``).

A step is skipped when its Newton decrement :math:`\\nabla f^TH^{-1}\\nabla f` is below
:data:`DECREMENT_FLOOR`: the decrement bounds every coordinate of the step in units of its own
standard error (Cauchy-Schwarz:
:math:`|s_j| \\le \\sqrt{(H^{-1})_{jj}\\,\\nabla f^TH^{-1}\\nabla f}`), so below the floor the
step moves no coefficient by more than 1e-13 of its standard error.  (A
test against the objective's rounding instead skipped steps that moved coefficients by 5e-7 of
their value: on MASS's Pima.tr the objective changes by the square of the step, below its rounding
long before the coefficients stop changing.)

The step is taken only from a converged fit with a non-singular Hessian (and, without a penalty,
no row fitted with probability one unless the fit proves that the classes overlap: otherwise the
symptom of separation, where no optimum exists), and it is kept only if it at least halves the
gradient and does not raise the objective by more than its rounding; otherwise the solver's
result stands.  A kept step counts as one more iteration (``n_iter`` and the training curve
include it).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from linclass.linear.solvers._common import SolverResult, SymmetricSolver, gradient_norm

__all__ = ["DECREMENT_FLOOR", "final_newton_step", "until_certified"]

#: the smallest Newton decrement worth a step: the step is then within 1e-13 standard errors (of
#: the mean objective's Hessian) in every coordinate, below what double precision resolves
DECREMENT_FLOOR = 1e-26

_ROUNDS = 6  # continuations, each asking a hundredfold smaller gradient


def final_newton_step(objective, result: SolverResult, hessian: np.ndarray | None, *,
                      overlap=None, decrements: list | None = None) -> SolverResult:
    """One Newton step from ``result.theta`` with ``hessian`` (of the mean objective there).

    Parameters
    ----------
    objective : LinearObjective or ChunkedObjective
    result : SolverResult
        The solver's outcome; returned unchanged when it did not converge, when ``hessian`` is None
        or singular, or when the step does not improve the fit.
    hessian : ndarray of shape (n_params, n_params) or None
    overlap : callable or None
        ``overlap(theta) -> bool``: whether the classes are proved not separated at theta
        (:func:`linclass.linear.logistic.separation.overlap_proved`), asked only when an
        unpenalised fit has rows fitted with probability one; None: not proved.
    decrements : list or None
        Receives the step's Newton decrement :math:`\\nabla f^TH^{-1}\\nabla f` when the step is
        kept.

    Returns
    -------
    SolverResult
        With the new theta, value and gradient norm, one more iteration and its value in the history.
    """
    if hessian is None or not result.converged:
        return result
    if objective.l2 == 0.0 and objective.count_perfect(result.theta) and not (
            overlap is not None and overlap(result.theta)):  # maybe separated: no optimum
        return result
    system = SymmetricSolver(hessian)
    if system.singular:
        return result
    theta = np.asarray(result.theta, dtype=np.float64).reshape(objective.shape)
    f, g = objective.value_gradient(theta)  # the point last evaluated: no pass over the data
    step = -system.solve(g.ravel()).reshape(objective.shape)
    decrement = -float(g.ravel() @ step.ravel())  # twice the decrease the quadratic model predicts
    if not decrement > DECREMENT_FLOOR:  # no coefficient moves by what double precision resolves
        return result
    candidate = theta + step
    f_new, g_new = objective.value_gradient(candidate)
    # at a converged point the gradient measures progress: f itself rounds by more than the predicted
    # decrease on data far from the origin (every score rounds at the offset's scale), so a rise
    # below the decrement or 1e-10 of f is that rounding, not a worse fit
    rounding = max(1e-10, getattr(objective, "rounding", 0.0))  # float32 products round more
    if not (np.isfinite(f_new) and f_new <= f + max(decrement, rounding * abs(f))
            and gradient_norm(g_new) <= 0.5 * gradient_norm(g)):
        return result
    if decrements is not None:
        decrements.append(decrement)
    return replace(result, theta=candidate, gradient_norm=gradient_norm(g_new), value=f_new,
                   n_iter=result.n_iter + 1, history=np.append(result.history, f_new))


def until_certified(objective, result: SolverResult, gap_at, tol: float, solver,
                    max_iter: int, on_iteration=None) -> tuple[SolverResult, float]:
    """Continue a converged smooth fit until its duality gap is at most ``tol`` times the objective.

    A small gradient does not bound the objective: on nearly separable data with a weak penalty the
    objective is so flat that L-BFGS stopped at gradient :math:`10^{-6}` 1.5 times above the optimum
    (raw digits, C = 1e4).  ``gap_at(theta) -> (gap, F)`` gives the duality gap of the same objective
    (:meth:`linclass.linear.logistic.penalised.PenalisedObjective.duality_gap`, summed scale) and the
    objective; while the gap is too large, ``solver`` goes on from the current point asking a
    hundredfold smaller gradient, at most :data:`_ROUNDS` times or until it no longer lowers the
    objective.  The rounds run at most ``max_iter`` iterations together, each passed to
    ``on_iteration`` (the solver's hook).  When the gap is still too large and no iteration is
    left (a run that met the gradient test on its last allowed iteration: standardised digits, C =
    63, max_iter=100, 1.7e-4 above the optimum), the result is marked not converged, so that the fit
    warns instead of returning it silently.  Returns ``(result, gap)``.
    """
    gap, F = gap_at(result.theta)
    left, halted = max_iter, []

    def hook(theta) -> bool:  # the caller's hook; a true answer ends the rounds too
        if on_iteration is not None and on_iteration(theta):
            halted.append(True)
        return bool(halted)

    for _ in range(_ROUNDS):
        if not result.converged or gap <= tol * max(F, np.finfo(float).tiny) or halted:
            break
        if left <= 0:  # the gap is too large and no iteration is left: not converged, say so
            result = replace(result, converged=False)
            break
        tighter = max(0.01 * result.gradient_norm, 1e-15)
        more = solver(objective, result.theta, tol=tighter, max_iter=left, on_iteration=hook)
        left -= more.n_iter
        gap_more, F_more = gap_at(more.theta)
        if not F_more < F:  # no progress at working precision
            break
        result = replace(more, n_iter=result.n_iter + more.n_iter, converged=True,
                         history=np.concatenate([result.history, more.history[1:]]))
        gap, F = gap_more, F_more
    return result, gap
