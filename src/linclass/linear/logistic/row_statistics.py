"""What the logistic objective over rows in memory knows of its rows besides evaluating them: the
class statistics under its weights (one pass), the Gram matrix of the Hessian bound (dense from
those statistics, sparse by products with the centring's rank-one corrections) and its diagonal,
and the samples of rows that the Gaussian start and L-BFGS's curvature metric use.  A mixin of
:class:`linclass.linear.logistic.objective.LinearObjective`.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from linclass.generative.class_stats import ClassStats

__all__ = ["RowStatistics"]

_START_ROWS, _START_ROWS_PER_COLUMN = 20_000, 200  # rows of the Gaussian start's sample
_METRIC_ROWS, _METRIC_ROWS_PER_COLUMN = 2_000, 100  # rows of curvature_metric's sample


class RowStatistics:
    """Class statistics, Gram matrix and row samples of a :class:`LinearObjective` (which sets
    ``X``, ``y``, ``w``, ``offset``, ``_stats``, ``_gram`` and the layout's attributes)."""

    @property
    def fit_stats(self) -> ClassStats:
        """Class statistics of the rows under the objective's weights (kind 'tied'; one pass, exact
        for large offsets): the Gram matrix of the Hessian bound and the Gaussian start
        (:mod:`linclass.linear.logistic.start`) both come from them.  Dense X only."""
        if self._stats is None:
            self._stats = ClassStats.from_batch(self.X, self.y, np.arange(self.n_classes), self.w,
                                                kind="tied")
        return self._stats

    def _sample_rows(self, m: int) -> np.ndarray | None:
        """``m`` rows spread evenly over X (a strided sample: no randomness, every part of the data
        represented), or None when X has no more than ``m`` rows."""
        n = self.X.shape[0]
        if m >= n:
            return None
        return np.unique(np.linspace(0, n - 1, m).round().astype(np.intp))

    def start_stats(self) -> ClassStats:
        """Class statistics for the Gaussian start (:mod:`linclass.linear.logistic.start`): :attr:`fit_stats`
        when formed already, else those of a strided sample of ``max(20000, 200 p)`` rows (the
        start's error is then of the order of the model's own distance to the logistic optimum, at
        a fraction of the cost of X's Gram matrix)."""
        rows = None if self._stats is not None else self._sample_rows(
            max(_START_ROWS, _START_ROWS_PER_COLUMN * self.shape[0]))
        if rows is None:
            return self.fit_stats
        return ClassStats.from_batch(self.X[rows], self.y[rows], np.arange(self.n_classes),
                                     None if self.w is None else self.w[rows], kind="tied")

    def curvature_metric(self, theta: np.ndarray) -> np.ndarray:
        """An estimate of the Hessian of :math:`f` at theta, to precondition with (L-BFGS's initial
        metric): its exact form on a strided sample of ``max(2000, 100 p)`` rows scaled to the whole
        data (all rows, one pass, when X has no more), plus the penalty; shape (n_params, n_params).

        With ``100 p`` rows the sampled Gram matrices are within about 10% of the full ones, which
        keeps L-BFGS's steps Newton-like, for about 1/20 of a Hessian on large data."""
        rows = self._sample_rows(max(_METRIC_ROWS, _METRIC_ROWS_PER_COLUMN * self.shape[0]))
        if rows is None:
            return self.hessian(theta)
        sample = type(self)(self.X[rows], self.y[rows], self.n_classes,
                            None if self.w is None else self.w[rows],
                            fit_intercept=self.fit_intercept, offset=self.offset,
                            score_offset=None if self.score_offset is None
                            else self.score_offset[rows])
        if sample.total <= 0:
            return self.hessian(theta)
        H = sample.curvature_sum(theta) * (self.total / sample.total)
        H[np.diag_indices(self.n_params)] += self._penalty_diagonal()
        return H / self.total

    def _compute_gram(self) -> np.ndarray:
        """:math:`S_W + S_B` about the offset (the total scatter; uncentred without an intercept)."""
        if self.sparse:
            return self._sparse_weighted_gram(np.ones(self.X.shape[0]) if self.w is None else self.w)
        stats = self.fit_stats
        centred = stats.means - self.offset
        return self._embed_gram(stats.pooled_scatter() + (centred.T * stats.counts) @ centred)

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
