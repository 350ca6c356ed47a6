"""The layout of the linear models' objective: everything about it that does not touch X row by row
(coefficient layout, centring offset, weight totals, L2 penalty, Hessian bound, null start).

Coefficient layout
    ``theta`` has shape (p, m): p = d (+1 for the intercept, last row), m = 1 for two classes and
    m = K - 1 for K > 2.  Softmax coefficients live in an orthonormal basis :math:`P` (K x (K-1)) of
    the sum-to-zero subspace, :math:`\\Theta = \\theta P^T`, which is the constraint
    :math:`\\sum_j\\theta_j = 0` built in: the constraint does not change the
    likelihood's optimum (docs/math/logistic.md#the-sum-to-zero-constraint-of-softmax-regression),
    and it removes the one direction in which the softmax Hessian is singular.
    Because :math:`P^TP = I`, :math:`\\lVert\\Theta\\rVert_F = \\lVert\\theta\\rVert_F` and the penalty is the
    symmetric one of the K-vector model.

Centring
    With an intercept the data are centred at their weighted mean :math:`m` (implicitly:
    :math:`s = X w + (b - m^T w)`), which leaves the model unchanged and keeps the Hessian well
    conditioned however far the data sit from the origin.

Hessian bound, with :math:`\\tilde X = [X - \\mathbf{1}m^T, \\mathbf{1}]` and :math:`\\tilde I` the identity
without the intercept entry: :math:`\\frac1N(\\tfrac14\\tilde X^TW\\tilde X + \\lambda\\tilde I)` for two classes
(Böhning and Lindsay 1988, since :math:`\\mu(1-\\mu)\\le\\frac14`), and Böhning's
:math:`\\tfrac12(I - \\tfrac1K\\mathbf{1}\\mathbf{1}^T)\\otimes\\tilde X^T\\tilde X`, which becomes
:math:`\\tfrac12 I_{K-1}\\otimes\\tilde X^TW\\tilde X` in the basis :math:`P`, for softmax.

:class:`linclass.linear.logistic.objective.LinearObjective` (X in memory) and
:class:`linclass.linear.logistic.chunked.ChunkedObjective` (X in chunks: Dask, files) add the data passes.
"""

from __future__ import annotations

import numpy as np

# entries of X from which Newton's Hessian (and every product over a float32 X) may be float32
from linclass.core.validation import LOW_PRECISION_MIN
from linclass.linear.logistic import losses

__all__ = ["DENSE_BOUND_MAX", "LOW_PRECISION_MIN", "ObjectiveLayout", "contrast_basis"]

DENSE_BOUND_MAX = 4000  # rows of theta above which L-BFGS whitens with the bound's diagonal only


def contrast_basis(n_classes: int) -> np.ndarray:
    """Orthonormal basis of :math:`\\{v \\in R^K: \\sum_k v_k = 0\\}` (normalised Helmert contrasts).

    Returns an array of shape (K, K-1) with :math:`P^TP = I` and :math:`\\mathbf{1}^TP = 0`.
    """
    K = n_classes
    P = np.zeros((K, K - 1))
    for j in range(1, K):
        P[:j, j - 1] = 1.0
        P[j, j - 1] = -float(j)
        P[:, j - 1] /= np.sqrt(j * (j + 1.0))
    return P


class ObjectiveLayout:
    """Everything about the objective that does not touch X row by row: the coefficient layout, the
    centring offset, the weight totals, the penalty, the Hessian bound and the null start.

    :class:`~linclass.linear.logistic.objective.LinearObjective` (X in memory) and
    :class:`~linclass.linear.logistic.chunked.ChunkedObjective` (X in chunks: Dask, files) add the data passes.

    Parameters
    ----------
    n_features, n_classes : int
    total : float
        :math:`N = \\sum_i w_i`.
    offset : ndarray of shape (n_features,)
        The centring point :math:`m` (the weighted mean with an intercept, else zeros).
    class_weight : ndarray of shape (n_classes,)
        Weighted class totals.
    l2 : float
    fit_intercept : bool
    gram : ndarray of shape (p, p) or None
        :math:`\\tilde X^TW\\tilde X` when already known (else :meth:`_compute_gram` forms it).
    """

    def __init__(self, n_features, n_classes, *, total, offset, class_weight, l2=0.0,
                 fit_intercept=True, gram=None):
        self.n_features, self.n_classes = int(n_features), int(n_classes)
        self.total = float(total)
        self.offset = np.asarray(offset, dtype=np.float64)
        self.class_weight = np.asarray(class_weight, dtype=np.float64)
        self.l2 = float(l2)
        self.fit_intercept = fit_intercept
        self.basis = None if n_classes == 2 else contrast_basis(n_classes)
        self.shape = (self.n_features + int(fit_intercept), 1 if n_classes == 2 else n_classes - 1)
        self._gram = gram

    @property
    def gram(self) -> np.ndarray:
        """Centred weighted Gram matrix :math:`\\tilde X^TW\\tilde X` of shape (p, p): the Hessian
        bound's only data term."""
        if self._gram is None:
            self._gram = self._compute_gram()
        return self._gram

    def _compute_gram(self) -> np.ndarray:  # pragma: no cover - every subclass knows its data
        raise NotImplementedError

    def _embed_gram(self, scatter: np.ndarray) -> np.ndarray:
        """The (p, p) matrix :math:`\\tilde X^TW\\tilde X` from the (d, d) centred scatter."""
        d, p = self.n_features, self.shape[0]
        gram = np.zeros((p, p))
        gram[:d, :d] = (scatter + scatter.T) / 2
        if self.fit_intercept:
            gram[d, d] = self.total
        return gram

    # ------------------------------------------------------------------ layout
    @property
    def n_params(self) -> int:
        return self.shape[0] * self.shape[1]

    def _penalty_diagonal(self) -> np.ndarray:
        """:math:`\\lambda\\tilde I` as the diagonal of an (n_params,) vector in C order."""
        diag = np.full(self.shape, self.l2)
        if self.fit_intercept:
            diag[-1] = 0.0
        return diag.ravel()

    def coefficients(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(coef, intercept)`` on the original (uncentred) features.

        Two classes: shapes (1, d) and (1,) (the log-odds of class 1).  K classes: (K, d) and (K,),
        summing to zero over the classes (the sum-to-zero constraint).
        """
        theta = theta.reshape(self.shape)
        d = self.n_features
        W = theta[:d]
        b = theta[d] - self.offset @ W if self.fit_intercept else np.zeros(self.shape[1])
        if self.basis is not None:
            W, b = W @ self.basis.T, b @ self.basis.T
        return W.T.copy(), np.asarray(b, dtype=np.float64).reshape(-1)

    def from_coefficients(self, coef: np.ndarray, intercept: np.ndarray) -> np.ndarray:
        """Inverse of :meth:`coefficients` (used for warm starts); returns theta of shape (p, m)."""
        W, b = np.asarray(coef, float).T, np.asarray(intercept, float).reshape(-1)
        if self.basis is not None:
            W, b = W @ self.basis, b @ self.basis
        theta = np.zeros(self.shape)
        theta[: self.n_features] = W
        if self.fit_intercept:
            theta[-1] = b + self.offset @ W
        return theta

    def null_start(self) -> np.ndarray:
        """The intercept-only maximum-likelihood point (zero coefficients): log-odds / log-priors of
        the weighted class frequencies."""
        theta = np.zeros(self.shape)
        if self.fit_intercept:
            freq = np.clip(self.class_weight / self.total, 1e-12, None)
            log_freq = np.log(freq)
            theta[-1] = log_freq[1] - log_freq[0] if self.basis is None else log_freq @ self.basis
        return theta

    def null_value(self) -> float:
        """:math:`f` at :meth:`null_start`, from the class totals alone: every row has the same
        probabilities there, the weighted class frequencies with an intercept (the value is their
        entropy), uniform ones without."""
        if not self.fit_intercept:
            return float(np.log(self.n_classes))
        freq = self.class_weight[self.class_weight > 0] / self.total
        return float(-(freq @ np.log(freq)))

    def hessian_bound_block(self) -> np.ndarray:
        """One diagonal block B of the Hessian bound :math:`I_m \\otimes B` (shape (p, p)):
        :math:`\\frac1N(\\frac14\\tilde X^TW\\tilde X + \\lambda\\tilde I)` for two classes
        (Böhning-Lindsay), :math:`\\frac1N(\\frac12\\tilde X^TW\\tilde X + \\lambda\\tilde I)` for softmax
        (Böhning)."""
        B = self.gram * (0.25 if self.basis is None else 0.5)
        B[np.diag_indices(self.shape[0])] += self._penalty_diagonal()[:: self.shape[1]]
        return B / self.total

    def gram_diagonal(self) -> np.ndarray:
        """The diagonal of :math:`\\tilde X^TW\\tilde X`, shape (p,)."""
        return np.diag(self.gram).copy()

    def hessian_bound_diagonal(self) -> np.ndarray:
        """The diagonal of :meth:`hessian_bound_block`, shape (p,), without forming the block when
        the data can give the diagonal alone (diagonal preconditioning of many features)."""
        diag = self.gram_diagonal() * (0.25 if self.basis is None else 0.5)
        return (diag + self._penalty_diagonal()[:: self.shape[1]]) / self.total

    def hessian_bound(self) -> np.ndarray:
        """The full bound matrix of shape (n_params, n_params), C order of (p, m)."""
        return np.kron(self.hessian_bound_block(), np.eye(self.shape[1]))

    def _curvature_weights_at_constant(self, theta) -> np.ndarray:
        """The m x m curvature shared by every row when the coefficients are zero (only the
        intercept moves the probabilities): then the Hessian is this Kronecker the Gram matrix."""
        b = theta[-1] if self.fit_intercept else np.zeros(self.shape[1])
        if self.basis is None:
            mu = 1.0 / (1.0 + np.exp(-b[0]))
            return np.array([[mu * (1.0 - mu)]])
        mu = losses.Multinomial.probabilities((self.basis @ b)[None, :])[0]
        return self.basis.T @ (np.diag(mu) - np.outer(mu, mu)) @ self.basis
