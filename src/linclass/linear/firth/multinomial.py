"""Firth's penalised likelihood for multinomial (softmax) logistic regression, K > 2 classes.

The bias-reduced estimator of Kosmidis & Firth (2011, "Multinomial logit bias reduction via the
Poisson log-linear model", Biometrika 98(3)), R brglm2's ``brmultinom(type = "AS_mean")``: for the
multinomial logit, a canonical exponential family, removing the :math:`O(1/n)` bias of the
maximum-likelihood estimate is maximising (Firth 1993)

.. math::  \\ell^*(\\theta) = \\ell(\\theta) + \\tfrac12\\ln|I(\\theta)|,

whose maximum is finite even when the classes are separated, where the maximum-likelihood
estimate does not exist (Kosmidis & Firth 2011).

The information, in any linear parametrisation
    Row i has K class scores :math:`\\eta_i = Z_i\\theta` (:math:`Z_i` of shape (K, q), q
    parameters), probabilities :math:`\\pi_i = \\mathrm{softmax}(\\eta_i)`, frequency weight
    :math:`w_i`, and the score covariance :math:`V_i = \\mathrm{diag}(\\pi_i) - \\pi_i\\pi_i^T`:

    .. math::  U(\\theta) = \\sum_i Z_i^T w_i(e_{y_i} - \\pi_i), \\qquad
               I(\\theta) = \\sum_i w_i Z_i^TV_iZ_i .

    Here :math:`Z_i = \\tilde x_i^T\\otimes P` with the centred row
    :math:`\\tilde x_i = [x_i - m, 1]` and the sum-to-zero basis P (K x (K-1)) of
    :mod:`linclass.linear.logistic.layout`, so that :math:`\\theta` has the softmax fit's layout
    (p, K-1).  brglm2 reports the baseline-category parameters :math:`\\beta` (each class against
    the first, uncentred):
    :math:`\\beta = J\\theta` with a constant invertible J, hence :math:`I_\\theta = J^TI_\\beta J`,
    the same maximiser, and :math:`\\ln|I_\\beta| = \\ln|I_\\theta| - 2\\ln|\\det J|`,
    :math:`\\ln|\\det J| = p\\ln|\\det(DP)|` (D the (K-1) x K differences against the first class;
    the centring has determinant one).  :math:`\\ell^*` is reported with :math:`I_\\beta`, as
    for two classes, where it is logistf's.

The modified score
    :math:`\\partial_r\\tfrac12\\ln|I| = \\tfrac12\\mathrm{tr}(I^{-1}\\partial_rI)` and
    :math:`\\partial_rI = \\sum_i w_iZ_i^T(\\sum_k\\partial V_i/\\partial\\eta_{ik}\\,Z_{i,kr})Z_i`.
    With the per-row block of the leverage matrix :math:`Q_i = Z_iI^{-1}Z_i^T` (K x K)

    .. math::  U^*(\\theta) = U(\\theta) + A(\\theta)
               = \\sum_i Z_i^T\\big(w_i(e_{y_i} - \\pi_i) + a_i\\big), \\qquad
               a_{ik} = \\tfrac{w_i}2\\,
               \\mathrm{tr}\\big(Q_i\\,\\partial V_i/\\partial\\eta_{ik}\\big).

    From :math:`\\partial\\pi_j/\\partial\\eta_k = \\pi_j(\\delta_{jk} - \\pi_k)`,
    :math:`\\partial V_{jl}/\\partial\\eta_k = \\delta_{jl}\\pi_j(\\delta_{jk}-\\pi_k) -
    \\pi_j\\pi_l(\\delta_{jk} + \\delta_{lk} - 2\\pi_k)`, and Q symmetric:

    .. math::  a_{ik} = \\tfrac{w_i}2\\,\\pi_{ik}\\big(s_{ik} - \\pi_i^Ts_i\\big),
               \\qquad s_i = \\mathrm{diag}(Q_i) - 2Q_i\\pi_i ,

    which sums to zero over k.  :math:`a_i` is the same in every parametrisation of the scores
    (one of them changes :math:`Q_i` by terms :math:`\\mathbf 1u^T + u\\mathbf 1^T`, which
    :math:`\\partial V_i/\\partial\\eta_{ik}` annihilates since :math:`V_i\\mathbf 1 = 0`).  In the
    baseline-category one the first row and column of :math:`Q_i` vanish; with
    :math:`\\bar V_i` the (K-1) x (K-1) covariance of the other classes and the per-row blocks
    :math:`\\bar H_i = w_i\\bar V_i^{1/2}\\bar Q_i\\bar V_i^{1/2}` of the hat matrix (Bull, Mak &
    Greenwood 2002), :math:`a_{ik} = \\tfrac12\\mathrm{tr}(\\bar H_i\\bar V_i^{-1/2}\\,
    \\partial\\bar V_i/\\partial\\eta_{ik}\\,\\bar V_i^{-1/2})` for k >= 1.  For two classes,
    :math:`\\bar Q_i` is :math:`q_i = \\tilde x_i^TI^{-1}\\tilde x_i`, and the formula is the binary
    :math:`h_i(\\tfrac12 - \\mu_i)` of :mod:`linclass.linear.firth.objective` with
    :math:`h_i = w_i\\mu_i(1-\\mu_i)q_i`.

    In the layout, :math:`Q_i = PG_iP^T` with the (K-1) x (K-1) blocks
    :math:`G_i = (\\tilde x_i\\otimes I)^TI^{-1}(\\tilde x_i\\otimes I)`, formed for all rows by one
    matrix product per pair of classes (:func:`leverage_blocks`), and
    :math:`U^* = \\tilde X^T(W(Y - \\Pi) + A)P`: the softmax gradient with the residuals shifted
    by :math:`A`.

The iteration
    :class:`MultinomialFirthObjective` gives :func:`linclass.linear.solvers.newton` the value
    :math:`-\\ell^*/N`, the gradient :math:`-U^*/N` and, as curvature, the Hessian of
    :math:`-\\ell^*/N` (central differences of :math:`U^*`) where it is positive definite, else the
    Fisher information :math:`I/N`: Fisher scoring on the modified score, :math:`\\theta
    \\leftarrow \\theta + I^{-1}U^*` (Kosmidis & Firth 2010's quasi-Newton iteration), halving
    the step until :math:`\\ell^*` rises enough (Armijo), until the largest entry of :math:`U^*/N`
    is at most tol.  Fisher scoring alone converges linearly (on MASS's fgl, 9 features and six
    classes, 1.8e-4 from brmultinom's estimate at a gradient of 1e-6); Newton's steps, and the
    fit's last steps (:mod:`linclass.linear.solvers.final_step`), quadratically.
"""

from __future__ import annotations

import numpy as np

from linclass.linear.logistic import losses
from linclass.linear.logistic.curvature import CurvatureSum, curvature_weights
from linclass.linear.logistic.layout import contrast_basis
from linclass.linear.logistic.objective import LinearObjective
from linclass.linear.firth.objective import EXACT_WORK, check_information

__all__ = ["EXACT_MAX_PARAMS", "MultinomialFirthObjective", "leverage_blocks",
           "score_adjustment"]

#: parameters up to which Newton's steps take the Hessian of l* (central differences of the
#: modified score, 2q scores a step) rather than the Fisher information
EXACT_MAX_PARAMS = 120
_DIFFERENCE = 6e-6  # the central difference's relative step, about the cube root of float64's eps


def leverage_blocks(Xt: np.ndarray, info_inverse: np.ndarray, m: int) -> np.ndarray:
    """:math:`G_i = (\\tilde x_i\\otimes I_m)^TI^{-1}(\\tilde x_i\\otimes I_m)` of every row:
    :math:`G_{i,cd} = \\tilde x_i^T[I^{-1}]_{cd}\\tilde x_i` with :math:`[I^{-1}]_{cd}` the (p, p)
    block of classes c and d, one matrix product over all rows per pair :math:`c \\le d`.

    Parameters
    ----------
    Xt : ndarray of shape (n, p)
        The rows :math:`\\tilde x_i`.
    info_inverse : ndarray of shape (p*m, p*m)
        :math:`I^{-1}` in the C order of (p, m).
    m : int

    Returns
    -------
    ndarray of shape (n, m, m)
    """
    n, p = Xt.shape
    inverse = info_inverse.reshape(p, m, p, m)
    G = np.empty((n, m, m))
    for c in range(m):
        for d in range(c, m):
            G[:, c, d] = np.einsum("ij,ij->i", Xt @ inverse[:, c, :, d], Xt)
            G[:, d, c] = G[:, c, d]
    return G


def score_adjustment(mu: np.ndarray, Q: np.ndarray, w: np.ndarray | None) -> np.ndarray:
    """:math:`a_{ik} = \\tfrac{w_i}2\\pi_{ik}(s_{ik} - \\pi_i^Ts_i)`,
    :math:`s_i = \\mathrm{diag}(Q_i) - 2Q_i\\pi_i` (module docstring).

    Parameters
    ----------
    mu : ndarray of shape (n, K)
        Probabilities.
    Q : ndarray of shape (n, K, K)
        The leverage blocks :math:`Q_i = Z_iI^{-1}Z_i^T`.
    w : ndarray of shape (n,) or None

    Returns
    -------
    ndarray of shape (n, K), rows summing to zero
    """
    s = np.einsum("ikk->ik", Q) - 2.0 * np.einsum("ikl,il->ik", Q, mu)
    a = 0.5 * mu * (s - np.einsum("ik,ik->i", mu, s)[:, None])
    return a if w is None else a * w[:, None]


class MultinomialFirthObjective(LinearObjective):
    """:math:`f(\\theta) = -\\ell^*(\\theta)/N` for K classes in the softmax layout (see the module
    docstring).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), int in ``range(n_classes)``
    n_classes : int
        K >= 2.  Two classes take the K-class formulas too (with the basis
        :math:`P = (1, -1)^T/\\sqrt2`): the same estimate as the binary
        :class:`~linclass.linear.firth.objective.FirthObjective`, which fits use.
    sample_weight : ndarray of shape (n_samples,) or None
        Frequency weights.
    fit_intercept : bool
    offset : ndarray of shape (n_features,) or None
        The centring point (default: the weighted mean with an intercept); zeros make ``theta``
        the parameters of the uncentred rows.
    """

    def __init__(self, X, y, n_classes, sample_weight=None, *, fit_intercept=True, offset=None):
        super().__init__(X, y, n_classes, sample_weight, l2=0.0, fit_intercept=fit_intercept,
                         offset=offset)
        if self.basis is None:  # two classes through the K-class formulas
            self.basis, self._target = contrast_basis(2), None
        differences = self.basis[1:] - self.basis[0]
        # ln|I_beta| = ln|I_theta| - 2 p ln|det(D P)| (module docstring)
        self._log_det_shift = 2.0 * self.shape[0] * float(np.linalg.slogdet(differences)[1])
        self._parts_at = None

    def _design(self) -> np.ndarray:
        """:math:`\\tilde X` of shape (n, p) (centred features, then the intercept column)."""
        Xt = self.X - self.offset
        return np.hstack([Xt, np.ones((Xt.shape[0], 1))]) if self.fit_intercept else Xt

    def _parts(self, theta):
        """``(log-likelihood, probabilities (n, K), ln|I_beta|, adjustment A (n, K), I_theta)``
        at theta; ``ln|I|`` is :math:`-\\infty` (and A NaN) where I is numerically singular."""
        theta = np.asarray(theta, dtype=np.float64).reshape(self.shape)
        if self._parts_at is not None and np.array_equal(self._parts_at[0], theta):
            return self._parts_at[1:]
        loss, mu = losses.Multinomial.value_and_probabilities(self.scores(theta), self.y)
        log_likelihood = -float(loss.sum() if self.w is None else loss @ self.w)
        info = self.information(mu)
        try:
            L = np.linalg.cholesky(info)
        except np.linalg.LinAlgError:  # far out along a line search
            parts = (log_likelihood, mu, -np.inf, np.full(mu.shape, np.nan), info)
        else:
            log_det = 2.0 * float(np.sum(np.log(np.diag(L)))) - self._log_det_shift
            L_inv = np.linalg.solve(L, np.eye(L.shape[0]))
            G = leverage_blocks(self._design(), L_inv.T @ L_inv, self.shape[1])
            Q = self.basis @ G @ self.basis.T  # (n, K, K)
            parts = (log_likelihood, mu, log_det, score_adjustment(mu, Q, self.w), info)
        self._parts_at = (theta.copy(),) + parts
        return parts

    def information(self, mu: np.ndarray) -> np.ndarray:
        """:math:`I_\\theta = \\sum_i w_i(P^TV_iP)\\otimes\\tilde x_i\\tilde x_i^T` of shape
        (p*m, p*m), C order of (p, m), from the probabilities ``mu`` (n, K)."""
        C = curvature_weights(mu, self.basis, self.w)
        m = self.shape[1]
        acc = CurvatureSum(self.n_features, m, self.offset, self.fit_intercept)
        step = acc.block_rows()
        for start in range(0, self.X.shape[0], step):
            block = C[start:start + step]
            acc.add(self.X[start:start + step], block[:, 0, 0] if m == 1 else block)
        return acc.total()

    def curvature_sum(self, theta) -> np.ndarray:
        """The Fisher information :math:`I_\\theta` (p*m, p*m)."""
        return self._parts(theta)[4].copy()

    def check_identifiable(self, theta) -> None:
        """Refuse a design whose information matrix is singular (constant or collinear
        features)."""
        check_information(self.curvature_sum(theta))

    def value(self, theta: np.ndarray) -> float:
        """:math:`-\\ell^*(\\theta)/N`."""
        log_likelihood, _, log_det, _, _ = self._parts(theta)
        return -(log_likelihood + 0.5 * log_det) / self.total

    def value_gradient(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """:math:`-\\ell^*/N` and :math:`-U^*/N` (shape (p, m)), with residuals
        :math:`W(\\Pi - Y) - A`."""
        theta = np.asarray(theta, dtype=np.float64).reshape(self.shape)
        log_likelihood, mu, log_det, adjustment, _ = self._parts(theta)
        R = mu.copy()
        R[np.arange(self.y.size), self.y] -= 1.0
        if self.w is not None:
            R *= self.w[:, None]
        R -= adjustment
        G = self._data_gradient(self.X.T @ R, R.sum(axis=0))
        value = -(log_likelihood + 0.5 * log_det) / self.total
        return value, self._finish_gradient(theta, G, 1.0 / self.total)

    def hessian(self, theta: np.ndarray) -> np.ndarray:
        """The curvature of the Newton step (of the mean objective): the Hessian of
        :math:`-\\ell^*/N`, by central differences of the modified score (2q scores), where it is
        positive definite, q is at most :data:`EXACT_MAX_PARAMS` and the 2q scores cost at most
        :data:`~linclass.linear.firth.objective.EXACT_WORK`; else the Fisher information
        :math:`I(\\theta)/N` (Fisher scoring's step)."""
        theta = np.asarray(theta, dtype=np.float64).reshape(self.shape)
        info = self.curvature_sum(theta) / self.total
        q = info.shape[0]
        work = 2.0 * q * self.X.shape[0] * q * q  # 2q scores, each about n q^2 multiply-adds
        if q > EXACT_MAX_PARAMS or work > EXACT_WORK or not np.isfinite(self._parts(theta)[2]):
            return info
        flat = theta.ravel()
        steps = _DIFFERENCE * (1.0 + np.abs(flat))
        H = np.empty((q, q))
        for j in range(q):
            sides = []
            for sign in (1.0, -1.0):
                point = flat.copy()
                point[j] += sign * steps[j]
                sides.append(self.value_gradient(point.reshape(self.shape))[1].ravel())
            H[:, j] = (sides[0] - sides[1]) / (2.0 * steps[j])
        H = 0.5 * (H + H.T)
        if not np.all(np.isfinite(H)):
            return info
        try:
            np.linalg.cholesky(H)
        except np.linalg.LinAlgError:
            return info
        return H

    step_hessian = hessian  # Firth's steps never use float32 products

    def fisher_information(self, theta) -> np.ndarray:
        """The Fisher information :math:`I(\\theta)/N` (of the mean objective), whose inverse over
        N is the covariance of the fit."""
        return self.curvature_sum(theta) / self.total

    def log_likelihood(self, theta) -> float:
        """:math:`\\ell(\\theta)` without the penalty."""
        return self._parts(theta)[0]

    def penalised_log_likelihood(self, theta) -> float:
        """:math:`\\ell^*(\\theta) = \\ell(\\theta) + \\tfrac12\\ln|I_\\beta(\\theta)|`."""
        return -self.value(theta) * self.total

    def batch_gradient(self, theta, rows):  # pragma: no cover - guarded by the estimator
        raise ValueError("Firth's penalty needs every row at once (the hat matrix): use 'newton'.")
