"""Firth's penalised likelihood for logistic regression: the objective piece, and fits with some
parameters held fixed (for profile intervals and likelihood-ratio tests).

Firth (1993) removes the :math:`O(1/n)` bias of the maximum-likelihood estimate by maximising

.. math::  \\ell^*(\\theta) = \\ell(\\theta) + \\tfrac12\\ln|I(\\theta)|, \\qquad
           I(\\theta) = \\tilde X^T\\mathrm{diag}(w_i\\mu_i(1-\\mu_i))\\tilde X

(Jeffreys' prior as a penalty), whose maximum is finite even under complete or quasi-complete
separation (Heinze & Schemper 2002).  Its gradient is the modified score

.. math::  U^*(\\theta) = \\tilde X^T\\big(w \\odot (y - \\mu) + h \\odot (\\tfrac12 - \\mu)\\big),
           \\qquad h_i = w_i\\mu_i(1-\\mu_i)\\,\\tilde x_i^TI(\\theta)^{-1}\\tilde x_i

(the diagonal of the hat matrix :math:`W^{1/2}\\tilde X I^{-1}\\tilde X^TW^{1/2}`).  The Newton solver
of :mod:`linclass.linear.solvers` runs on it unchanged: :class:`FirthObjective` gives the value
:math:`-\\ell^*/N`, its gradient :math:`-U^*/N` and, as curvature, the exact Hessian
:math:`-\\nabla^2\\ell^*/N` (:mod:`linclass.linear.firth.likelihood`) wherever it is
positive definite and costs at most :data:`EXACT_WORK`, else the Fisher information :math:`I/N`
(the IRLS step with the hat-matrix adjustment, as logistf and brglm2 take it), with the line search
on :math:`\\ell^*`.  Fisher scoring alone converges only linearly, slowly where :math:`\\ell^*` is
flat in some direction (under separation: on mlbench's Sonar, 100 iterations to a gradient of
1e-10, and at a gradient of 1e-6 a coefficient 8% from its value); Newton's steps converge
quadratically, and the fit's last step (:mod:`linclass.linear.solvers.final_step`) takes the
estimate to what float64 resolves.  The standard errors stay those of the Fisher information
(:meth:`FirthObjective.fisher_information`), as brglm2 and logistf report them.  :math:`\\ell^*` does not depend on the centring of X (the change of
coordinates has determinant one).  K > 2 classes:
:mod:`linclass.linear.firth.multinomial`.
"""

from __future__ import annotations

import numpy as np

from linclass.linear.logistic import losses
from linclass.linear.logistic.objective import LinearObjective
from linclass.linear.firth.likelihood import PenalisedLikelihood
from linclass.linear.solvers import newton

__all__ = ["EXACT_WORK", "FirthObjective", "Fixed", "check_information", "constrained_fit",
           "exact_curvature"]

#: the most multiply-adds (about :math:`np^3/2`) a Newton step spends on the exact Hessian of
#: :math:`\\ell^*`; above it the fit takes Fisher scoring's steps
EXACT_WORK = 2e9


def exact_curvature(hessian: np.ndarray | None, information: np.ndarray) -> np.ndarray:
    """The curvature of a Newton step on :math:`-\\ell^*`: ``-hessian`` (the exact Hessian of
    :math:`\\ell^*`) where it is given and negative definite, else the Fisher ``information``
    (whose step always ascends)."""
    if hessian is None or not np.all(np.isfinite(hessian)):
        return information
    curvature = -0.5 * (hessian + hessian.T)
    try:
        np.linalg.cholesky(curvature)
    except np.linalg.LinAlgError:
        return information
    return curvature


def check_information(info: np.ndarray) -> None:
    """Refuse a singular information matrix (shape (q, q)), with which :math:`\\ln|I|` is
    :math:`-\\infty` everywhere: some features are constant or collinear."""
    scale = np.sqrt(np.where(np.diag(info) > 0, np.diag(info), 1.0))
    evals = np.linalg.eigvalsh(info / scale[:, None] / scale[None, :])
    if evals[0] <= 1e-12 * max(evals[-1], np.finfo(float).tiny):
        raise ValueError(
            "Firth's penalty needs a non-singular information matrix X^T W X: some features "
            "are constant or collinear. Drop the redundant features."
        )


class FirthObjective(LinearObjective):
    """:math:`f(\\theta) = -\\ell^*(\\theta)/N` for two classes (see the module docstring).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), int in {0, 1}
    sample_weight : ndarray of shape (n_samples,) or None
        Frequency weights.
    fit_intercept : bool
    offset : ndarray of shape (n_features,) or None
        The centring point (default: the weighted mean with an intercept); zeros make ``theta``
        the reported parameters themselves.
    """

    def __init__(self, X, y, sample_weight=None, *, fit_intercept=True, offset=None):
        super().__init__(X, y, 2, sample_weight, l2=0.0, fit_intercept=fit_intercept,
                         offset=offset)
        self._penalty_at = None  # (theta, log|I|, h, I)
        self._exact = None  # the PenalisedLikelihood of the design, formed at the first Hessian

    def _design(self) -> np.ndarray:
        """:math:`\\tilde X` in the layout's order (centred features, then the intercept column)."""
        Xt = self.X - self.offset
        return np.hstack([Xt, np.ones((Xt.shape[0], 1))]) if self.fit_intercept else Xt

    def penalty_parts(self, theta) -> tuple[float, np.ndarray, np.ndarray]:
        """:math:`\\ln|I(\\theta)|`, the hat diagonal :math:`h` (shape (n,)) and :math:`I` (p, p)."""
        theta = np.asarray(theta, dtype=np.float64).reshape(self.shape)
        if self._penalty_at is not None and np.array_equal(self._penalty_at[0], theta):
            return self._penalty_at[1:]
        info = self.curvature_sum(theta)
        try:
            L = np.linalg.cholesky(info)
        except np.linalg.LinAlgError:  # numerically singular (far out along a line search)
            self._penalty_at = (theta.copy(), -np.inf, np.full(self.X.shape[0], np.nan), info)
            return self._penalty_at[1:]
        log_det = 2.0 * float(np.sum(np.log(np.diag(L))))
        A = np.linalg.solve(L, self._design().T)
        mu = self._mean(theta)
        c = losses.Binomial.curvature_at(mu, self.w)
        h = c * np.einsum("ji,ji->i", A, A)
        self._penalty_at = (theta.copy(), log_det, h, info)
        return log_det, h, info

    def check_identifiable(self, theta) -> None:
        """Refuse a design whose information matrix is singular (constant or collinear features):
        the penalty :math:`\\ln|I|` is then :math:`-\\infty` everywhere."""
        theta = np.asarray(theta, dtype=np.float64).reshape(self.shape)
        check_information(self.curvature_sum(theta))

    def value(self, theta: np.ndarray) -> float:
        """:math:`-\\ell^*(\\theta)/N`."""
        log_det, _, _ = self.penalty_parts(theta)
        return super().value(theta) - 0.5 * log_det / self.total

    def value_gradient(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """:math:`-\\ell^*/N` and :math:`-U^*/N`, with residuals
        :math:`w(\\mu - y) - h(\\tfrac12 - \\mu)`."""
        theta = theta.reshape(self.shape)
        coef, intercept = self.coefficients(theta)
        X, value, R, mu, _, _ = self._block_terms(coef, intercept, slice(None))
        log_det, h, _ = self.penalty_parts(theta)
        R = R[:, 0] - h * (0.5 - mu)
        G = self._data_gradient((X.T @ R)[:, None], np.array([R.sum()]))
        return (value - 0.5 * log_det) / self.total, self._finish_gradient(theta, G, 1.0 / self.total)

    def _mean(self, theta) -> np.ndarray:
        """:math:`\\mu = \\sigma(\\theta^T\\tilde x)` of every row, shape (n,)."""
        return losses.Binomial.probabilities(self.scores(theta))

    def hessian(self, theta: np.ndarray) -> np.ndarray:
        """The curvature of the Newton step (of the mean objective): the exact Hessian
        :math:`-\\nabla^2\\ell^*(\\theta)/N` where it is positive definite and costs at most
        :data:`EXACT_WORK`, else the Fisher information :math:`I(\\theta)/N` (Firth's IRLS step)."""
        info = self.penalty_parts(theta)[2]
        n, p = self.X.shape[0], self.n_params
        if n * p * p * (p + 1) / 2 > EXACT_WORK:
            return info / self.total
        if self._exact is None:
            self._exact = PenalisedLikelihood(self.X - self.offset, self._labels(), self.w,
                                              self.fit_intercept)
            self._exact.exact_max = p
        hessian = None
        if np.isfinite(self.penalty_parts(theta)[0]):
            parts = self._exact.evaluate(np.asarray(theta, dtype=np.float64).reshape(1, -1))
            hessian = None if parts.hessian is None else parts.hessian[0]
        return exact_curvature(hessian, info) / self.total

    step_hessian = hessian  # Firth's steps never use float32 products

    def fisher_information(self, theta) -> np.ndarray:
        """The Fisher information :math:`I(\\theta)/N` (of the mean objective), whose inverse over
        N is the covariance Firth's fits report."""
        return self.penalty_parts(theta)[2] / self.total

    def _labels(self) -> np.ndarray:
        """y in {0, 1}, shape (n,)."""
        return np.asarray(self.y, dtype=np.float64).reshape(-1)

    def log_likelihood(self, theta) -> float:
        """:math:`\\ell(\\theta)` without the penalty."""
        return -super().value(theta) * self.total

    def penalised_log_likelihood(self, theta) -> float:
        """:math:`\\ell^*(\\theta) = \\ell(\\theta) + \\tfrac12\\ln|I(\\theta)|`."""
        return -self.value(theta) * self.total

    def batch_gradient(self, theta, rows):  # pragma: no cover - guarded by the estimator
        raise ValueError("Firth's penalty needs every row at once (the hat matrix): use 'newton'.")


class Fixed:
    """An objective over the free parameters of another, the others held at given values.

    Parameters
    ----------
    objective : the full objective (``shape`` (p, 1))
    fixed : ndarray of bool of shape (p,)
    values : ndarray of shape (p,)
        The full parameter vector whose fixed entries are kept.
    """

    def __init__(self, objective, fixed: np.ndarray, values: np.ndarray):
        self.objective = objective
        self.free = ~np.asarray(fixed, dtype=bool)
        self.template = np.array(values, dtype=np.float64).reshape(-1)
        self.shape = (int(self.free.sum()), 1)

    def full(self, t) -> np.ndarray:
        theta = self.template.copy()
        theta[self.free] = np.asarray(t).reshape(-1)
        return theta.reshape(self.objective.shape)

    def value(self, t) -> float:
        return self.objective.value(self.full(t))

    def value_gradient(self, t):
        f, g = self.objective.value_gradient(self.full(t))
        return f, g.reshape(-1)[self.free].reshape(self.shape)

    def hessian(self, t) -> np.ndarray:
        H = self.objective.hessian(self.full(t))
        return H[np.ix_(self.free, self.free)]


def constrained_fit(objective, fixed: np.ndarray, values: np.ndarray, *, tol: float = 1e-10,
                    max_iter: int = 5000):
    """Maximise the penalised likelihood over the parameters not ``fixed`` (Newton from ``values``).

    Far along a profile, under separation, Fisher scoring converges only linearly: hence the
    generous ``max_iter``.

    Returns
    -------
    theta : ndarray of shape objective.shape
    value : float
        The objective (:math:`-\\ell^*/N`) there.
    converged : bool
    """
    problem = Fixed(objective, fixed, values)
    if problem.shape[0] == 0:
        theta = problem.full(np.zeros(0))
        return theta, objective.value(theta), True
    result = newton(problem, problem.template[problem.free].reshape(problem.shape), tol=tol,
                    max_iter=max_iter)
    return problem.full(result.theta), result.value, result.converged
