"""The linear-model layer: coefficient layout, intercept, L2 penalty, and the objective that the solvers
minimise, with its gradient, Hessian and Hessian upper bound.

The objective is the penalised negative log-likelihood per unit of sample weight,

.. math::

    f(\\theta) = \\frac{1}{N}\\Big(\\sum_i w_i\\,\\ell(s_i, y_i) + \\frac{\\lambda}{2}\\lVert W\\rVert_F^2\\Big),
    \\qquad N = \\sum_i w_i, \\quad \\lambda = 1/C,

with the pointwise losses of :mod:`linclass.linear.logistic.losses`; the intercept is never penalised.  Dividing by N
does not move the optimum; it makes ``tol`` independent of the data size.  (The penalty is on the sum
of the losses, as in scikit-learn, so the same C gives the same model.)

The coefficient layout (``theta`` of shape (p, m), softmax in the sum-to-zero basis P), the centring
at the weighted mean m, the penalty and the Hessian bound are :mod:`linclass.linear.logistic.layout`;
the centred Gram matrix comes from :class:`~linclass.generative.class_stats.ClassStats` (one pass, exact
even for large offsets).

Sparse X (scipy.sparse) is never densified or centred as a whole: the blocked pass multiplies the
sparse rows by the coefficients, the centring of the gradient is the rank-one correction every
evaluation makes anyway, and the Gram matrix is
:math:`\\tilde X^TD\\tilde X = X^TDX - m(X^Tc)^T - (X^Tc)m^T + (\\sum_i c_i)mm^T` for
:math:`D = \\mathrm{diag}(c)`, formed by sparse products (a dense p x p result, as Newton's Hessian
is: the estimators refuse the solvers that need it when p is too large to hold); a Hessian's row
blocks are densified one cache-sized block at a time.

Every evaluation is one pass over X in blocks of rows that stay in cache: per block the scores, the
losses, the residuals and their product with the block (the gradient), and, when asked, the block's
share of the Hessian (:mod:`linclass.linear.logistic.curvature`).  No n x d work array is ever formed, and the
last evaluation is kept, so that a Hessian, a value or a separation count asked for at the point just
evaluated costs no second pass over the scores.

A float32 X is read as it is: per block the two products with X are float32 (the coefficients and
the residuals rounded to float32; a block far from the origin centred at a float32 point first),
and their results are float64 from there on (losses, residuals, the sums over blocks), as are the
Hessian's block sums, whose products are float32 on large X.  Each block's gradient is then within
a few float32 roundings of each product's size, and the blocks' float64 sum keeps the summed
gradient's error near :math:`10^{-7}\\sqrt n` times a typical term, far below any ``tol`` on the
mean gradient.  What float32 products leave of the optimum's error on an ill-conditioned problem,
one last Newton step with float64 products removes (:meth:`exact_products`, chosen in
:mod:`linclass.linear.fitting.fit`), and float32 products that overflow turn to float64 ones.

Hessians, with :math:`\\tilde X = [X - \\mathbf{1}m^T, \\mathbf{1}]` and :math:`\\tilde I` the identity
without the intercept entry:

binary   :math:`H = \\frac1N(\\tilde X^T D \\tilde X + \\lambda\\tilde I)`, :math:`D = \\mathrm{diag}(w_i\\mu_i(1-\\mu_i))`
         (Bishop 2006 sec. 4.3.3, :math:`X^TWX`); bound :math:`\\frac1N(\\tfrac14\\tilde X^TW\\tilde X +
         \\lambda\\tilde I)` since :math:`\\mu(1-\\mu)\\le\\frac14`.  (Not
         :math:`H \\preceq X^TX`: the bound the update :math:`\\theta + 4(X^TX)^{-1}X^T(y-\\mu)` uses is
         :math:`H \\preceq \\frac14 X^TX`, Böhning and Lindsay 1988.)
softmax  blocks :math:`H_{ab} = \\frac1N\\tilde X^T\\mathrm{diag}(w_i M_{i,ab})\\tilde X` with
         :math:`M_i = P^T(\\mathrm{diag}\\,\\mu_i - \\mu_i\\mu_i^T)P`; Böhning's bound
         :math:`\\tfrac12(I - \\tfrac1K\\mathbf{1}\\mathbf{1}^T)\\otimes\\tilde X^T\\tilde X` becomes
         :math:`\\tfrac12 I_{K-1}\\otimes\\tilde X^TW\\tilde X` in the basis :math:`P`: K - 1 identical blocks.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from linclass.core.lazy import COMPILED_MIN
from linclass.core.validation import LOW, is_low
from linclass.generative.scatter_float32 import reference_point
from linclass.linear import compiled
from linclass.linear.logistic import losses
from linclass.linear.logistic.curvature import CurvatureSum, curvature_weights
from linclass.linear.logistic.layout import LOW_PRECISION_MIN, ObjectiveLayout
from linclass.linear.logistic.offsets import null_fit
from linclass.linear.logistic.row_passes import two_class_terms
from linclass.linear.logistic.row_statistics import RowStatistics
from linclass.linear.logistic.separation import SURE, suspicious_rows

__all__ = ["LinearObjective"]

_NO_WEIGHTS = np.empty(0)  # unit weights, for the compiled loops
_SCORE_ROWS = 4096  # rows of a float32 X converted at a time for float64 scores (in cache)


class LinearObjective(RowStatistics, ObjectiveLayout):
    """The penalised mean negative log-likelihood of a linear logistic / softmax model.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float64 or float32 (see the module docstring)
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
    column_sums : ndarray of shape (n_features,), default=None
        X's column sums, when a pass over X formed them already: the default offset without
        sample weights is then their mean, without another pass.
    score_offset : ndarray of shape (n_samples, 1) or (n_samples, n_classes), default=None
        Known terms added to the scores (R's ``glm(offset=)``,
        :mod:`linclass.linear.logistic.offsets`); the null model is then the intercept-only fit
        with them.
    """

    def __init__(self, X, y, n_classes, sample_weight=None, *, l2=0.0, fit_intercept=True,
                 offset=None, score_offset=None, column_sums=None):
        self.sparse = sp.issparse(X)
        if self.sparse and X.format != "csr":
            X = X.tocsr()  # rows are what the blocks, the mini-batches and the scores read
        self.X, self.y = X, y
        self.w = sample_weight
        n, d = X.shape
        total = float(n if sample_weight is None else sample_weight.sum())
        if offset is None:
            if fit_intercept:
                if column_sums is not None and sample_weight is None:  # formed by an earlier pass
                    weighted = column_sums
                elif is_low(X) and not self.sparse:  # one float32 product (any nearby point centres)
                    weights = np.ones(n, X.dtype) if sample_weight is None else sample_weight
                    weighted = weights.astype(X.dtype) @ X
                else:
                    weighted = X.sum(axis=0) if sample_weight is None else X.T @ sample_weight
                offset = np.asarray(weighted, dtype=np.float64).reshape(-1) / total
            else:
                offset = np.zeros(d)
        super().__init__(d, n_classes, total=total, offset=offset, l2=l2, fit_intercept=fit_intercept,
                         class_weight=np.bincount(y, weights=sample_weight, minlength=n_classes))
        # a float32 X far from the origin is centred block by block at a float32 point (its float32
        # products would round at the scale of its offset)
        self._centre = reference_point(X) if is_low(X) and not self.sparse else None
        #: the products over X: float32 for a dense float32 X (until :meth:`exact_products`), but
        #: float64 where each row is read by a compiled loop (:meth:`_reads_once`)
        self.products = ("float32" if is_low(X) and not self.sparse and not self._reads_once()
                         else "float64")
        #: the dtype of the products of a Newton step's curvature (:meth:`step_hessian`): float32
        #: on a large dense X (an approximate curvature changes the steps, not the optimum, which
        #: the float64 gradient fixes), else float64
        self.step_products = (LOW if not self.sparse and X.size >= LOW_PRECISION_MIN
                              else np.dtype(np.float64))
        self._target = y.astype(np.float64) if n_classes == 2 else None
        self.score_offset = score_offset
        self._null = None  # the null model with the score offset, (theta, value), when first needed
        self._last = None  # the last evaluation (see _evaluate)
        self._stats = None  # fit_stats, formed when first needed
        self.hessian_dtype = None  # dtype of the products of the last Hessian formed

    def null_start(self) -> np.ndarray:
        """The intercept-only maximum-likelihood point; with a score offset, the intercept-only fit
        with it (:func:`linclass.linear.logistic.offsets.null_fit`)."""
        if self.score_offset is None:
            return super().null_start()
        return self._null_model()[0].copy()

    def null_value(self) -> float:
        """:math:`f` at :meth:`null_start` (the penalty is zero there)."""
        if self.score_offset is None:
            return super().null_value()
        return self._null_model()[1]

    def _null_model(self) -> tuple[np.ndarray, float]:
        if self._null is None:
            b, log_likelihood = null_fit(self.score_offset, self.y, self.w, self.fit_intercept)
            theta = np.zeros(self.shape)
            if self.fit_intercept:
                theta[-1] = b if self.basis is None else b @ self.basis
            self._null = (theta, -log_likelihood / self.total)
        return self._null

    @property
    def rounding(self) -> float:
        """How far an evaluation of :math:`f` may be off, relative to :math:`f`: float64 products
        1e-13; float32 products 1e-6 (each score rounds at about 1e-7 of its terms, and on a few
        hundred rows their mean does not average that out: 4e-8 measured on raw wine).  The line
        searches and the final Newton step accept a step that lowers the gradient within it."""
        return 1e-6 if self.products == "float32" else 1e-13

    # ------------------------------------------------------------------ evaluation
    def scores(self, theta: np.ndarray, X: np.ndarray | None = None) -> np.ndarray:
        """Raw scores: shape (n,) for two classes (log-odds), (n, K) for softmax."""
        coef, intercept = self.coefficients(theta)
        X_ = self.X if X is None else X
        if is_low(X_) and not sp.issparse(X_):  # float64 products, a block of rows at a time:
            # no float64 copy of all of X (X @ coef would make one)
            S = np.empty((X_.shape[0], coef.shape[0]))
            for start in range(0, X_.shape[0], _SCORE_ROWS):
                rows = slice(start, start + _SCORE_ROWS)
                np.matmul(X_[rows].astype(np.float64), coef.T, out=S[rows])
            S += intercept
        else:
            S = X_ @ coef.T + intercept
        if X is None and self.score_offset is not None:
            S = S + self.score_offset
        return S[:, 0] if self.basis is None else S

    def _block_terms(self, coef, intercept, rows):
        """Losses, residuals :math:`R = \\mathrm{diag}(w)(\\mu - Y)` (shape (b, 1) or (b, K)),
        probabilities and the count of rows fitted with probability one, for the rows ``rows``;
        the rows are returned as the products used them (a float32 X far from the origin: less the
        float32 centre, which :meth:`_uncentred` adds back to their products)."""
        X, y = self.X[rows], self.y[rows]
        if is_low(X) and self.products == "float64":
            X = X.astype(np.float64)  # the block in float64 (in cache), exact products
        if is_low(X):  # a float32 product (about the float32 centre), float64 scores
            if self._centre is not None:
                X = X - self._centre
                intercept = intercept + coef @ self._centre.astype(np.float64)
            S = (X @ coef.T.astype(X.dtype)).astype(np.float64) + intercept
        else:
            S = X @ coef.T + intercept
        if self.score_offset is not None:
            S += self.score_offset[rows]
        w = None if self.w is None else self.w[rows]
        if self.basis is None:  # Binomial's value and weighted gradient in one pass
            mu, R = np.empty(y.size), np.empty((y.size, 1))
            terms = losses if self.X.shape[0] * self.X.shape[1] < COMPILED_MIN else compiled
            loss, perfect = terms.binary_residuals(
                np.ascontiguousarray(S[:, 0]), self._target[rows], _NO_WEIGHTS if w is None else w,
                SURE, mu, R[:, 0])
            return X, float(loss), R, mu, w, int(perfect)
        loss, mu = losses.Multinomial.value_and_probabilities(S, y)
        R = losses.Multinomial.gradient_at(mu, y, w)
        own = mu[np.arange(y.size), y]
        if w is not None:
            loss = loss * w
            own = own[w > 0]
        return X, float(loss.sum()), R, mu, w, suspicious_rows(own)

    def _evaluate(self, theta, curvature=None):
        """One pass at theta: ``(loss sum, X^T R, R^T 1, curvature sum or None, perfect)``,
        unscaled and without the penalty, the curvature sum with products of the dtype
        ``curvature`` (None: no curvature); reused when theta is the point last evaluated (its
        curvature when its products were at least as precise)."""
        theta = np.asarray(theta, dtype=np.float64).reshape(self.shape)
        last = self._last
        if last is not None and np.array_equal(last[0], theta) and (
                curvature is None or (last[4] is not None
                                      and last[5].itemsize >= np.dtype(curvature).itemsize)):
            return last[1:5] + (last[6],)
        coef, intercept = self.coefficients(theta)
        n, d = self.X.shape
        width = 1 if self.basis is None else self.n_classes
        centred = self._centre is not None and self.products == "float32"  # (see _block_terms)
        about = self.offset - self._centre if centred else self.offset
        acc = (None if curvature is None
               else CurvatureSum(d, self.shape[1], about, self.fit_intercept, curvature))
        if self._reads_once():  # two classes, dense X: one compiled read of each row
            value, XtR, rsum, perfect = self._read_once(coef[0], float(intercept[0]), acc)
        else:
            step = acc.block_rows() if acc is not None else max(256, (1 << 19) // max(d, width))
            value, XtR, rsum, perfect = 0.0, np.zeros((d, width)), np.zeros(width), 0
            for start in range(0, n, step):
                rows = slice(start, start + step)
                X, loss, R, mu, w, count = self._block_terms(coef, intercept, rows)
                value += loss
                XtR += X.T @ (R.astype(X.dtype) if is_low(X) else R)
                rsum += R.sum(axis=0)
                perfect += count
                if acc is not None:
                    acc.add(X, curvature_weights(mu, self.basis, w))
            XtR = self._uncentred(XtR, rsum)
        H = None if acc is None else acc.total()
        finite = np.isfinite(value) and np.all(np.isfinite(XtR))
        if self.products == "float32" and not (finite and (H is None or np.all(np.isfinite(H)))):
            self.exact_products()  # float32 products overflowed (X is finite): float64 from now on
            return self._evaluate(theta, curvature)
        if acc is not None:
            self.hessian_dtype = acc.dtype
        self._last = (theta.copy(), value, XtR, rsum, H, None if acc is None else np.dtype(acc.dtype),
                      perfect)
        return value, XtR, rsum, H, perfect

    def _read_once(self, coef, intercept: float, acc):
        """:meth:`_evaluate` by the compiled two-class passes (:func:`.row_passes.two_class_terms`)."""
        shift = None if self.score_offset is None else self.score_offset[:, 0]
        return two_class_terms(self.X, self._target, self.w, shift, coef, intercept, acc)

    def _reads_once(self) -> bool:
        """Whether an evaluation is a compiled read of each row (:meth:`_read_once`): two classes,
        dense C-ordered X of float64 or float32.  A float32 row is read as it is (half the bytes)
        and its products are formed in float64 (exact for the row's values, so no float32 centre
        is needed); only the Hessian's rows are stored in float32 when its products are.  A small
        X (fewer than :data:`~linclass.core.lazy.COMPILED_MIN` entries) is evaluated by blocks of
        BLAS products and NumPy forms of the loops instead, so that its first fit loads no
        compiled code (:mod:`linclass.linear.logistic.design`)."""
        X = self.X
        return (self.basis is None and not self.sparse and X.dtype in (np.float64, np.float32)
                and X.flags.c_contiguous and (self.w is None or self.w.dtype == np.float64)
                and X.size >= COMPILED_MIN)

    def _uncentred(self, XtR, rsum) -> np.ndarray:
        """:math:`X^TR` from the products of the centred float32 rows: :math:`(X - c)^TR +
        cR^T\\mathbf 1` (float64; float64 products are of the rows as they are)."""
        if self._centre is None or self.products == "float64":
            return XtR
        return XtR + np.outer(self._centre, rsum)

    def exact_products(self) -> None:
        """Evaluate with float64 products from now on (a float32 X is converted block by block, in
        cache): the last Newton step of a fit on an ill-conditioned float32 X refines the optimum
        of its float32 products to the float64 one (:mod:`linclass.linear.fitting.fit`)."""
        if self.products != "float64":
            self.products = "float64"
            self._last = None

    def _data_gradient(self, XtR, rsum) -> np.ndarray:
        """:math:`(X - \\mathbf 1 m^T)^T R P` and :math:`P^T R^T\\mathbf 1` (no penalty, no scale), from
        :math:`X^TR` and :math:`R^T\\mathbf 1`."""
        d = self.n_features
        G = np.zeros(self.shape)
        if self.basis is None:
            G[:d, 0] = XtR[:, 0] - self.offset * rsum[0]
            rsum = rsum[:1]
        else:
            G[:d] = (XtR - np.outer(self.offset, rsum)) @ self.basis
            rsum = rsum @ self.basis
        if self.fit_intercept:
            G[d] = rsum
        return G

    def _finish_gradient(self, theta, G, scale) -> np.ndarray:
        """``scale`` times the data gradient plus the penalty's gradient :math:`\\lambda W / N`."""
        G = G * scale
        G[: self.n_features] += (self.l2 / self.total) * theta[: self.n_features]
        return G

    def partial_sums(self, theta: np.ndarray, curvature=None):
        """The data terms of :math:`f`, its gradient and Hessian over these rows, unscaled and without
        the penalty: ``(sum_i w_i l_i, gradient sum of shape (p, m), curvature sum of shape
        (n_params, n_params) or None)``.

        Sums over disjoint row sets add up to the sums over their union (with a shared ``offset``),
        which is how :class:`linclass.linear.logistic.chunked.ChunkedObjective` evaluates :math:`f` chunk by chunk.
        ``curvature``: None (no curvature sum), or the dtype of its products, which the whole data
        decides (:attr:`ChunkedObjective.step_products`).
        """
        value, XtR, rsum, H, _ = self._evaluate(theta, curvature)
        return value, self._data_gradient(XtR, rsum), H

    def count_perfect(self, theta: np.ndarray) -> int:
        """Rows with positive weight whose own-class probability is numerically one (a symptom of
        separation; :func:`linclass.linear.logistic.separation.suspicious_rows`)."""
        return self._evaluate(theta)[4]

    def value(self, theta: np.ndarray) -> float:
        """:math:`f(\\theta)`."""
        value = self._evaluate(theta)[0]
        W = theta.reshape(self.shape)[: self.n_features]
        return (value + 0.5 * self.l2 * float(np.sum(W * W))) / self.total

    def value_gradient(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """:math:`f(\\theta)` and its gradient (shape (p, m)).

        :math:`\\nabla_W = \\frac1N((X - \\mathbf 1 m^T)^T R P + \\lambda W)`, :math:`\\nabla_b =
        \\frac1N P^T R^T\\mathbf 1` with residuals :math:`R = \\mathrm{diag}(w)(\\mu -
        Y)` (Bishop 2006 eq. 4.91: :math:`\\nabla l = X^T(\\mu - y)`); P is dropped for two classes.
        """
        theta = theta.reshape(self.shape)
        value, XtR, rsum, _, _ = self._evaluate(theta)
        W = theta[: self.n_features]
        value += 0.5 * self.l2 * float(np.sum(W * W))
        G = self._finish_gradient(theta, self._data_gradient(XtR, rsum), 1.0 / self.total)
        return value / self.total, G

    def batch_gradient(self, theta: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Unbiased estimate of the gradient of :math:`f` from the samples ``rows`` (their weighted
        mean loss gradient plus the penalty's gradient); zero when the rows carry no weight."""
        theta = theta.reshape(self.shape)
        weight = rows.size if self.w is None else float(self.w[rows].sum())
        if weight <= 0:
            return np.zeros(self.shape)
        coef, intercept = self.coefficients(theta)
        X, _, R, _, _, _ = self._block_terms(coef, intercept, rows)
        rsum = R.sum(axis=0)
        G = self._data_gradient(self._uncentred(X.T @ R, rsum), rsum)
        return self._finish_gradient(theta, G, 1.0 / weight)

    # ------------------------------------------------------------------ curvature
    def hessian(self, theta: np.ndarray) -> np.ndarray:
        """The Hessian of :math:`f` at theta, shape (n_params, n_params), C order of (p, m).

        At a point with zero coefficients every row has the same probabilities, so the Hessian is
        :math:`M \\otimes \\tilde X^TW\\tilde X / N` (one Gram matrix).  Its data products are
        float64, except over a large float32 X, the precision the fit chose for its rows: then
        they are float32 (:attr:`step_products`; their block sums are float64).  The pass that
        forms it also evaluates the value and gradient at theta (kept for the next call).
        """
        return self._hessian(theta, self.step_products if is_low(self.X) else np.dtype(np.float64))

    def step_hessian(self, theta: np.ndarray) -> np.ndarray:
        """The curvature of a Newton step at theta: :meth:`hessian` with its data products in
        :attr:`step_products` (float32 on a large X, whatever its dtype: an approximate curvature
        changes the path, not the limit, which the float64 gradient fixes)."""
        return self._hessian(theta, self.step_products)

    def _hessian(self, theta: np.ndarray, products) -> np.ndarray:
        """The Hessian of :math:`f` at theta with data products of the dtype ``products``."""
        theta = theta.reshape(self.shape)
        p, m = self.shape
        d = self.n_features
        if self.score_offset is None and not np.any(theta[:d]) and (self._gram is not None
                                                                    or products != LOW):
            H = np.kron(self.gram, self._curvature_weights_at_constant(theta))
        else:
            H = self._evaluate(theta, products)[3].copy()
        H[np.diag_indices(p * m)] += self._penalty_diagonal()
        return H / self.total

    def curvature_sum(self, theta: np.ndarray) -> np.ndarray:
        """:math:`\\sum_i w_i (M_i \\otimes \\tilde x_i\\tilde x_i^T)` of shape (n_params, n_params), C
        order of (p, m): the Hessian's data term before the penalty and the 1/N
        (:mod:`linclass.linear.logistic.curvature`), with float64 products."""
        return self._evaluate(theta, np.float64)[3].copy()
