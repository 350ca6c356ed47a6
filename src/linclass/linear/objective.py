"""The linear-model layer: coefficient layout, intercept, L2 penalty, and the objective that the solvers
minimise, with its gradient, Hessian and Hessian upper bound.

The objective is the penalised negative log-likelihood per unit of sample weight,

.. math::

    f(\\theta) = \\frac{1}{N}\\Big(\\sum_i w_i\\,\\ell(s_i, y_i) + \\frac{\\lambda}{2}\\lVert W\\rVert_F^2\\Big),
    \\qquad N = \\sum_i w_i, \\quad \\lambda = 1/C,

with the pointwise losses of :mod:`linclass.linear.losses`; the intercept is never penalised.  Dividing by N
does not move the optimum; it makes ``tol`` independent of the data size.  (The penalty is on the sum
of the losses, as in scikit-learn, so the same C gives the same model.)

The coefficient layout (``theta`` of shape (p, m), softmax in the sum-to-zero basis P), the centring
at the weighted mean m, the penalty and the Hessian bound are :mod:`linclass.linear.objective_layout`;
the centred Gram matrix comes from :class:`~linclass.core.class_stats.ClassStats` (one pass, exact
even for large offsets).

Sparse X (scipy.sparse) is never densified or centred: the centring enters every product as a
rank-one correction, :math:`\\tilde X^TD\\tilde X = X^TDX - m(X^Tc)^T - (X^Tc)m^T + (\\sum_i c_i)mm^T`
for :math:`D = \\mathrm{diag}(c)`, formed by sparse products (a dense p x p result, as Newton's Hessian
is; the estimators refuse the solvers that need it when p is too large to hold).

Hessians, with :math:`\\tilde X = [X - \\mathbf{1}m^T, \\mathbf{1}]` and :math:`\\tilde I` the identity
without the intercept entry:

binary   :math:`H = \\frac1N(\\tilde X^T D \\tilde X + \\lambda\\tilde I)`, :math:`D = \\mathrm{diag}(w_i\\mu_i(1-\\mu_i))`
         (seed 000 eq. of sec. 2.3, :math:`X^TWX`); bound :math:`\\frac1N(\\tfrac14\\tilde X^TW\\tilde X +
         \\lambda\\tilde I)` since :math:`\\mu(1-\\mu)\\le\\frac14`.  (The seed writes
         :math:`H \\preceq X^TX`; the bound its update :math:`\\theta + 4(X^TX)^{-1}X^T(y-\\mu)` uses is
         :math:`H \\preceq \\frac14 X^TX`.)
softmax  blocks :math:`H_{ab} = \\frac1N\\tilde X^T\\mathrm{diag}(w_i M_{i,ab})\\tilde X` with
         :math:`M_i = P^T(\\mathrm{diag}\\,\\mu_i - \\mu_i\\mu_i^T)P`; Böhning's bound
         :math:`\\tfrac12(I - \\tfrac1K\\mathbf{1}\\mathbf{1}^T)\\otimes\\tilde X^T\\tilde X` becomes
         :math:`\\tfrac12 I_{K-1}\\otimes\\tilde X^TW\\tilde X` in the basis :math:`P`: K - 1 identical blocks.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from linclass.core.class_stats import ClassStats
from linclass.linear import losses
from linclass.linear.objective_layout import LOW_PRECISION_MIN, ObjectiveLayout
from linclass.linear.separation import suspicious_rows

__all__ = ["LinearObjective"]


class LinearObjective(ObjectiveLayout):
    """The penalised mean negative log-likelihood of a linear logistic / softmax model.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,), int
        Class index of each row, in ``range(n_classes)``.
    n_classes : int
        2 for logistic regression (sigmoid), K > 2 for softmax regression.
    sample_weight : ndarray of shape (n_samples,) or None
    l2 : float
        :math:`\\lambda = 1/C` (0 for the unpenalised maximum-likelihood fit).
    fit_intercept : bool
    offset : ndarray of shape (n_features,), default=None
        The centring point; default the weighted mean of X (with an intercept).  Objectives over the
        chunks of one data set share the whole set's offset, so that their sums add up.
    work : dict, default=None
        Where work arrays are kept (shared across objectives over chunks, see
        :mod:`linclass.chunks`).
    """

    def __init__(self, X, y, n_classes, sample_weight=None, *, l2=0.0, fit_intercept=True,
                 offset=None, work=None):
        self.sparse = sp.issparse(X)
        if self.sparse and X.format != "csr":
            X = X.tocsr()  # rows are what the mini-batches and the scores read
        self.X, self.y = X, y
        self.w = sample_weight
        n, d = X.shape
        total = float(n if sample_weight is None else sample_weight.sum())
        if offset is None:
            if fit_intercept:
                weighted = X.sum(axis=0) if sample_weight is None else X.T @ sample_weight
                offset = np.asarray(weighted, dtype=np.float64).reshape(-1) / total
            else:
                offset = np.zeros(d)
        super().__init__(d, n_classes, total=total, offset=offset, l2=l2, fit_intercept=fit_intercept,
                         class_weight=np.bincount(y, weights=sample_weight, minlength=n_classes))
        self._target = y.astype(np.float64) if n_classes == 2 else None
        self._low = None  # float32 copy of the centred X, made on the first low-precision Hessian
        self._work = {} if work is None else work
        self._last = None  # (theta, probabilities) of the last full evaluation

    def _compute_gram(self) -> np.ndarray:
        """From :class:`~linclass.stats.ClassStats` (one pass, exact for large offsets); sparse X by
        sparse products."""
        n = self.X.shape[0]
        if self.sparse:
            return self._sparse_weighted_gram(np.ones(n) if self.w is None else self.w)
        if self.fit_intercept:
            stats = ClassStats.from_batch(self.X, np.zeros(n, np.intp), np.zeros(1), self.w,
                                          kind="tied")
            scatter = stats.scatter
        else:
            Xs = self.X if self.w is None else self.X * np.sqrt(self.w)[:, None]
            scatter = Xs.T @ Xs
        return self._embed_gram(scatter)

    # ------------------------------------------------------------------ evaluation
    def scores(self, theta: np.ndarray, X: np.ndarray | None = None) -> np.ndarray:
        """Raw scores: shape (n,) for two classes (log-odds), (n, K) for softmax."""
        coef, intercept = self.coefficients(theta)
        S = (self.X if X is None else X) @ coef.T + intercept
        return S[:, 0] if self.basis is None else S

    def _loss_residual(self, theta, rows=None):
        """Weighted per-sample losses' sum and residuals :math:`R = \\mathrm{diag}(w)(\\mu - Y)`
        (on ``rows`` only when given)."""
        X = self.X if rows is None else self.X[rows]
        y = self.y if rows is None else self.y[rows]
        S = self.scores(theta, X)
        if self.basis is None:
            target = self._target if rows is None else self._target[rows]
            loss, mu = losses.binary(S, target)
            R = mu - target
        else:
            loss, mu = losses.softmax(S, y)
            R = mu.copy()
            R[np.arange(y.size), y] -= 1.0
        if rows is None:
            self._last = (np.array(theta, copy=True), mu)
        if self.w is not None:
            w = self.w if rows is None else self.w[rows]
            loss = loss * w
            R *= w[:, None] if R.ndim == 2 else w
        return float(loss.sum()), R, X

    def _gradient(self, theta, R, X, scale) -> np.ndarray:
        """:math:`\\nabla_W = (X - \\mathbf 1 m^T)^T R P \\cdot scale + \\lambda W / N`,
        :math:`\\nabla_b = P^T R^T\\mathbf 1 \\cdot scale`."""
        G = self._data_gradient(R, X)
        G *= scale
        G[: self.n_features] += (self.l2 / self.total) * theta[: self.n_features]
        return G

    def _data_gradient(self, R, X) -> np.ndarray:
        """:math:`(X - \\mathbf 1 m^T)^T R P` and :math:`P^T R^T\\mathbf 1` (no penalty, no scale)."""
        d = self.n_features
        G = np.zeros(self.shape)
        if self.basis is None:
            rsum = R.sum()
            G[:d, 0] = X.T @ R - self.offset * rsum
        else:
            rsum = R.sum(axis=0)
            G[:d] = (X.T @ R - np.outer(self.offset, rsum)) @ self.basis
            rsum = rsum @ self.basis
        if self.fit_intercept:
            G[d] = rsum
        return G

    def partial_sums(self, theta: np.ndarray, with_hessian: bool = False, *, low: bool = False):
        """The data terms of :math:`f`, its gradient and Hessian over these rows, unscaled and without
        the penalty: ``(sum_i w_i l_i, gradient sum of shape (p, m), curvature sum of shape
        (n_params, n_params) or None)``.

        Sums over disjoint row sets add up to the sums over their union (with a shared ``offset``),
        which is how :class:`linclass.chunks.ChunkedObjective` evaluates :math:`f` chunk by chunk.
        ``low`` forms the curvature's products in float32 (see :meth:`hessian`).
        """
        theta = theta.reshape(self.shape)
        value, R, X = self._loss_residual(theta)
        H = self.curvature_sum(theta, low=low) if with_hessian else None
        return value, self._data_gradient(R, X), H

    def count_perfect(self, theta: np.ndarray) -> int:
        """Rows with positive weight whose own-class probability is numerically one (a symptom of
        separation; :func:`linclass.separation.suspicious_rows`)."""
        mu = self.probabilities(theta.reshape(self.shape))
        own = (np.where(self.y == 1, mu, 1.0 - mu) if mu.ndim == 1
               else mu[np.arange(mu.shape[0]), self.y])
        if self.w is not None:
            own = own[self.w > 0]
        return suspicious_rows(own)

    def value(self, theta: np.ndarray) -> float:
        """:math:`f(\\theta)`."""
        value, _, _ = self._loss_residual(theta)
        W = theta.reshape(self.shape)[: self.n_features]
        return (value + 0.5 * self.l2 * float(np.sum(W * W))) / self.total

    def value_gradient(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """:math:`f(\\theta)` and its gradient (shape (p, m)).

        :math:`\\nabla_W = \\frac1N((X - \\mathbf 1 m^T)^T R P + \\lambda W)`, :math:`\\nabla_b =
        \\frac1N P^T R^T\\mathbf 1` with residuals :math:`R = \\mathrm{diag}(w)(\\mu - Y)` (seed 000:
        :math:`\\nabla l = X^T(\\mu - y)`); P is dropped for two classes.
        """
        theta = theta.reshape(self.shape)
        value, R, X = self._loss_residual(theta)
        W = theta[: self.n_features]
        value += 0.5 * self.l2 * float(np.sum(W * W))
        return value / self.total, self._gradient(theta, R, X, 1.0 / self.total)

    def batch_gradient(self, theta: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Unbiased estimate of the gradient of :math:`f` from the samples ``rows`` (their weighted
        mean loss gradient plus the penalty's gradient); zero when the rows carry no weight."""
        theta = theta.reshape(self.shape)
        _, R, X = self._loss_residual(theta, rows)
        weight = rows.size if self.w is None else float(self.w[rows].sum())
        if weight <= 0:
            return np.zeros(self.shape)
        return self._gradient(theta, R, X, 1.0 / weight)

    # ------------------------------------------------------------------ curvature
    def probabilities(self, theta) -> np.ndarray:
        """:math:`\\mu` at theta (reused from the last evaluation when theta is the same point)."""
        if self._last is not None and np.array_equal(self._last[0], theta):
            return self._last[1]
        S = self.scores(theta)
        return losses.binary(S, self._target)[1] if self.basis is None else (
            losses.softmax_probabilities(S)[1])

    def _curvature_weights(self, theta) -> np.ndarray:
        """Per-sample curvature :math:`w_i M_i` of shape (n, m, m) (binary: (n, 1, 1))."""
        mu = self.probabilities(theta)
        if self.basis is None:
            c = (mu * (1.0 - mu))[:, None, None]
        else:
            Q = mu @ self.basis
            m = Q.shape[1]
            outer = (self.basis[:, :, None] * self.basis[:, None, :]).reshape(-1, m * m)
            c = (mu @ outer).reshape(-1, m, m) - Q[:, :, None] * Q[:, None, :]
        return c if self.w is None else c * self.w[:, None, None]

    def _centred32(self) -> np.ndarray:
        """:math:`X - \\mathbf 1 m^T` as a float32 copy, made once, for low-precision Hessians."""
        if self._low is None:
            self._low = np.subtract(self.X, self.offset, out=self._buffer(True, "centred"),
                                    casting="same_kind")
        return self._low

    def _buffer(self, low: bool, slot=0) -> np.ndarray:
        """A reusable n x d work array (float32 or float64): a fresh 100 MB array per Hessian block
        would cost more in page faults than the product itself.  ``work`` (see the constructor) may
        be shared by objectives over row sets of any size up to the largest seen (chunks)."""
        key = (np.float32 if low else np.float64, slot)
        n, d = self.X.shape
        buf = self._work.get(key)
        if buf is None or buf.shape[1] != d or buf.shape[0] < n:
            buf = self._work[key] = np.empty((n, d), dtype=key[0])
        return buf[:n]

    def _sparse_weighted_gram(self, c: np.ndarray) -> np.ndarray:
        """:math:`\\tilde X^T\\mathrm{diag}(c)\\tilde X` of shape (p, p) for sparse X: sparse products
        and the rank-one corrections of the centring (module docstring)."""
        d, X = self.n_features, self.X
        out = np.zeros((self.shape[0],) * 2)
        block = (X.T @ sp.csr_matrix(X.multiply(c[:, None]))).toarray()
        if self.fit_intercept:
            m, hx, total = self.offset, np.asarray(X.T @ c).reshape(-1), float(c.sum())
            block -= np.outer(m, hx) + np.outer(hx, m) - total * np.outer(m, m)
            out[:d, d] = out[d, :d] = hx - m * total
            out[d, d] = total
        out[:d, :d] = (block + block.T) / 2
        return out

    def gram_diagonal(self) -> np.ndarray:
        """The diagonal of :math:`\\tilde X^TW\\tilde X` (p,), without forming the matrix (what
        diagonal preconditioning needs when p x p is too large)."""
        if self._gram is not None:
            return np.diag(self._gram).copy()
        w = np.ones(self.X.shape[0]) if self.w is None else self.w
        if self.sparse:
            squares = np.asarray(self.X.multiply(self.X).T @ w).reshape(-1)
        else:
            squares = np.einsum("ij,ij,i->j", self.X, self.X, w)
        total = float(w.sum())
        diag = squares - total * self.offset**2 if self.fit_intercept else squares
        diag = np.maximum(diag, 0.0)
        return np.append(diag, total) if self.fit_intercept else diag

    def _weighted_gram(self, c: np.ndarray, low: bool) -> np.ndarray:
        """:math:`\\tilde X^T\\mathrm{diag}(c)\\tilde X` of shape (p, p), float64 result."""
        if self.sparse:
            return self._sparse_weighted_gram(c)
        d = self.n_features
        out = np.empty((self.shape[0],) * 2)
        A = self._buffer(low)
        if low:
            np.multiply(self._centred32(), np.sqrt(np.abs(c)).astype(np.float32)[:, None], out=A)
        else:
            np.subtract(self.X, self.offset, out=A)
            A *= np.sqrt(np.abs(c))[:, None]
        if np.all(c >= 0):
            out[:d, :d] = A.T @ A
        else:  # sqrt|c| X^T diag(sign c) sqrt|c| X
            B = np.multiply(A, np.sign(c).astype(A.dtype)[:, None], out=self._buffer(low, 1))
            out[:d, :d] = A.T @ B
            out[:d, :d] = (out[:d, :d] + out[:d, :d].T) / 2
        if self.fit_intercept:
            if low:
                out[:d, d] = out[d, :d] = self._centred32().T @ c.astype(np.float32)
            else:
                out[:d, d] = out[d, :d] = self.X.T @ c - self.offset * c.sum()
            out[d, d] = c.sum()
        return out

    def hessian(self, theta: np.ndarray, *, low_precision: bool = False) -> np.ndarray:
        """The Hessian of :math:`f` at theta, shape (n_params, n_params), C order of (p, m).

        At a point with zero coefficients every row has the same probabilities, so the Hessian is
        :math:`M \\otimes \\tilde X^TW\\tilde X / N` (one Gram matrix).  ``low_precision`` forms
        the data products in float32 when X is large (for Newton steps; the gradient, and therefore
        the optimum, stay float64).
        """
        theta = theta.reshape(self.shape)
        p, m = self.shape
        d = self.n_features
        low = low_precision and not self.sparse and self.X.size >= LOW_PRECISION_MIN
        if not np.any(theta[:d]):
            gram = self.gram if (self._gram is not None or not low) else self._weighted_gram(
                np.ones(self.X.shape[0]) if self.w is None else self.w, True)
            H = np.kron(gram, self._curvature_weights_at_constant(theta))
        else:
            H = self.curvature_sum(theta, low=low)
        H[np.diag_indices(p * m)] += self._penalty_diagonal()
        return H / self.total

    def curvature_sum(self, theta: np.ndarray, *, low: bool = False) -> np.ndarray:
        """:math:`\\sum_i w_i (M_i \\otimes \\tilde x_i\\tilde x_i^T)` of shape (n_params, n_params), C
        order of (p, m): the Hessian's data term before the penalty and the 1/N (one weighted Gram
        product per pair of class blocks)."""
        theta = theta.reshape(self.shape)
        p, m = self.shape
        C = self._curvature_weights(theta)
        H4 = np.empty((p, m, p, m))
        for a in range(m):
            for b in range(a, m):
                block = self._weighted_gram(C[:, a, b], low)
                H4[:, a, :, b] = block
                H4[:, b, :, a] = block.T
        return H4.reshape(p * m, p * m)
