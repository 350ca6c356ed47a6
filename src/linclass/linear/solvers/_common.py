"""What the smooth solvers (newton, bohning, lbfgs, sgd) share: the result record, the stopping
rule, the Armijo backtracking and a safe symmetric solve (which the inference tables use too).  The
penalised fits have their own record and stopping rule (:mod:`.prox_newton`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

__all__ = ["SolverResult", "SymmetricSolver", "backtrack", "gradient_norm"]

_ARMIJO = 1e-4
_MAX_HALVINGS = 40


@dataclass(frozen=True)
class SolverResult:
    """The outcome of a solver.

    Attributes
    ----------
    theta : ndarray of shape objective.shape
    n_iter : int
        Iterations (epochs for SGD) performed.
    converged : bool
        Whether the stopping rule was met before ``max_iter``.
    history : ndarray of shape (n_iter + 1,)
        Objective value at the start and after each iteration (the training curve).
    gradient_norm : float
        Largest absolute entry of the gradient at ``theta``.
    singular : bool
        Whether a (near-)singular curvature matrix had to be solved by pseudo-inverse.
    value : float
        The objective at ``theta``.
    """

    theta: np.ndarray
    n_iter: int
    converged: bool
    history: np.ndarray
    gradient_norm: float
    singular: bool = False
    value: float = float("nan")


def gradient_norm(g: np.ndarray) -> float:
    return float(np.max(np.abs(g))) if g.size else 0.0


class SymmetricSolver:
    """Solve :math:`A x = b` for symmetric positive semi-definite A: Cholesky, or, when A is singular
    to working precision, the pseudo-inverse on A's numerical range (minimum-norm step).

    Works with numpy.linalg.eigh for the fallback (small matrices; no thread contention with BLAS).
    """

    def __init__(self, A: np.ndarray):
        self.singular = False
        scale = max(float(np.max(np.abs(np.diag(A)))), np.finfo(float).tiny)
        try:
            self._factor = cho_factor(A, lower=True, check_finite=False)
            # Cholesky of a numerically singular matrix can "succeed" with a tiny pivot
            pivots = np.abs(np.diag(self._factor[0])) ** 2
            if np.min(pivots) <= scale * 1e-13:
                raise LinAlgError("near-singular")
            self.lower = np.tril(self._factor[0])
        except LinAlgError:
            self.singular = True
            self.lower = None  # no Cholesky factor: solves go through the pseudo-inverse
            vals, vecs = np.linalg.eigh((A + A.T) / 2)
            keep = vals > max(vals[-1], 0.0) * 1e-12
            self._factor = None
            self._range = vecs[:, keep]
            self._inv_vals = 1.0 / vals[keep]

    def solve(self, b: np.ndarray) -> np.ndarray:
        if self._factor is not None:
            return cho_solve(self._factor, b, check_finite=False)
        coords = self._range.T @ b
        coords = coords * (self._inv_vals if coords.ndim == 1 else self._inv_vals[:, None])
        return self._range @ coords


class Iterations:
    """The stopping rule every smooth solver shares: ``while run.go_on(g):`` iterates while the
    largest gradient entry is above ``tol`` (then ``converged`` is set) and fewer than ``max_iter``
    iterations ran (``n_iter`` counts them); a solver that stops for its own reason breaks out and
    may set ``converged`` itself."""

    def __init__(self, tol: float, max_iter: int):
        self.tol, self.max_iter, self.n_iter, self.converged = tol, max_iter, 0, False

    def go_on(self, g: np.ndarray) -> bool:
        if gradient_norm(g) <= self.tol:
            self.converged = True
            return False
        if self.n_iter >= self.max_iter:
            return False
        self.n_iter += 1
        return True


def backtrack(objective, theta: np.ndarray, step: np.ndarray, f: float, g: np.ndarray, slope: float):
    """Armijo backtracking along ``step`` (the shape of theta) from the full step, halving:
    ``(t, f_new, g_new)`` of the first point with :math:`f_{new} \\le f + 10^{-4}\\,t\\,g^Ts`, or, at
    the optimum where the decrease is below rounding, with no rise beyond rounding (the objective's
    ``rounding``, relative: 1e-13 unless it says otherwise) and a smaller gradient; None when 40
    halvings find none (no progress possible at this precision)."""
    gnorm = gradient_norm(g)
    rounding = max(getattr(objective, "rounding", 1e-13), 1e-13) * abs(f)  # f's own rounding
    t = 1.0
    for _ in range(_MAX_HALVINGS):
        f_new, g_new = objective.value_gradient(theta + t * step)
        if np.isfinite(f_new) and (
            f_new <= f + _ARMIJO * t * slope
            or (f_new <= f + rounding and gradient_norm(g_new) < gnorm)
        ):
            return t, f_new, g_new
        t *= 0.5
    return None
