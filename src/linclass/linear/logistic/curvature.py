"""The data term of the logistic / softmax Hessian, accumulated over blocks of rows.

With :math:`\\tilde x_i = [x_i - m, 1]` (p entries; without the 1 when there is no intercept) and the
per-row curvature :math:`C_i = w_i M_i` of shape (m, m) (:func:`curvature_weights`), the Hessian's data
term is (:mod:`linclass.linear.logistic.objective`)

.. math::  \\sum_i C_i \\otimes \\tilde x_i\\tilde x_i^T, \\qquad
           \\text{block } (a, b) = \\tilde X^T\\mathrm{diag}(C_{\\cdot ab})\\tilde X .

Two classes (m = 1, :math:`C_i = w_i\\mu_i(1-\\mu_i) \\ge 0`): one syrk of
:math:`\\mathrm{diag}(\\sqrt{C})\\tilde X` per block, the fewest flops (:math:`p^2/2` per row).  Its
rows are written by one compiled pass (:func:`linclass.linear.compiled.centred_scaled_rows`) into a
buffer reused by every block, of :data:`_SYRK_ENTRIES` entries: 1.4-1.5x faster than NumPy's three
passes into a fresh block of half the size (200,000 x 100, measured in turn on 2 shared cores).
The buffer is small (1 MB), so the syrk finds most of it still in cache after the loop wrote it:
with 8 MB blocks the Hessian pass of 200,000 x 101 took 1.22 times as long on one thread (medians
of 15 paired rounds: 131 ms against 114 ms) and 1.32 times on two (100 ms against 74 ms, each
thread with its own buffer).

K classes: the m(m+1)/2 distinct blocks share one product.  With :math:`z_i` the p(p+1)/2 products
:math:`\\tilde x_{ij}\\tilde x_{ik}`, :math:`j \\le k` (the row's Khatri-Rao square) and
:math:`c_i` the m(m+1)/2 entries :math:`C_{i,ab}`, :math:`a \\le b`, every block's upper triangle is
a column of :math:`Z^TC`: one matrix product per block of rows instead of :math:`m(m+1)/2`
weighted Gram products, with half their flops (each block's symmetry is used once).  But forming Z
writes :math:`p^2/2` entries per row and the product has only m(m+1)/2 columns, so it runs far
below BLAS speed unless the blocks are many and the rows short: it is used from
:data:`_KR_MIN_M` blocks on (K >= 6 classes) with at most :data:`_KR_MAX_P` entries per row;
otherwise each block is one weighted Gram product :math:`\\tilde X^T(\\tilde X \\odot c_{ab})`.
Measured on 40,000 rows (one BLAS thread): p = 21, K = 3, 8 ms by Gram products against 70 ms by
Z; p = 101, K = 3, 0.18 s against 1.4 s; p = 11 and 16, K = 10, Z 1.4-2.5x faster.

Products are formed in the accumulator's ``dtype``: float32 for the curvature of a Newton step on
large X, or over a large float32 X (the objective decides which, from its data:
``LinearObjective.step_products``); the sums are float64.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from linclass.core.lazy import COMPILED_MIN
from linclass.linear import compiled
from linclass.linear.logistic.losses import Binomial

__all__ = ["CurvatureSum", "curvature_weights"]

_KR_MAX_P = 48  # above this many columns, the K-class blocks are formed one by one
_KR_MIN_M = 5   # and below this many blocks (K - 1)
_KR_ENTRIES = 1 << 20  # rows per block of squares: this many entries (8 MB in float64)
_SYRK_ENTRIES = 1 << 17  # rows per two-class block: this many entries of the scaled rows


def curvature_weights(mu: np.ndarray, basis: np.ndarray | None, w: np.ndarray | None) -> np.ndarray:
    """Per-row curvature :math:`w_iM_i`: shape (n,) for two classes (:math:`w_i\\mu_i(1-\\mu_i)`),
    else (n, m, m) with :math:`M_i = P^T(\\mathrm{diag}\\,\\mu_i - \\mu_i\\mu_i^T)P`.

    Parameters
    ----------
    mu : ndarray of shape (n,) or (n, K)
        Probabilities of class 1 (two classes) or of every class.
    basis : ndarray of shape (K, K-1) or None
        The sum-to-zero basis P (None for two classes).
    w : ndarray of shape (n,) or None
    """
    if basis is None:
        c = Binomial.curvature_at(mu)
        return c if w is None else c * w
    # Multinomial's curvature diag(mu_i) - mu_i mu_i^T projected on the basis, P^T diag(mu_i) P
    # formed as one product with the basis's squares (the K x K curvature is never formed)
    Q = mu @ basis
    m = Q.shape[1]
    outer = (basis[:, :, None] * basis[:, None, :]).reshape(-1, m * m)
    c = (mu @ outer).reshape(-1, m, m) - Q[:, :, None] * Q[:, None, :]
    return c if w is None else c * w[:, None, None]


class CurvatureSum:
    """Running :math:`\\sum_i C_i \\otimes \\tilde x_i\\tilde x_i^T` over blocks of rows.

    Parameters
    ----------
    n_features : int
        d (columns of X).
    m : int
        1 for two classes, K - 1 for K.
    offset : ndarray of shape (d,)
        The centring point m.
    fit_intercept : bool
    dtype : float32 or float64, default=float64
        The dtype of the products (their sums are float64).
    """

    def __init__(self, n_features: int, m: int, offset: np.ndarray, fit_intercept: bool,
                 dtype=np.float64):
        self.d, self.m = int(n_features), int(m)
        self.p = self.d + int(fit_intercept)
        self.offset = np.asarray(offset, dtype=np.float64)
        self.fit_intercept = fit_intercept
        self.dtype = np.float32 if np.dtype(dtype) == np.float32 else np.float64
        self.kr = self.m >= _KR_MIN_M and self.p <= _KR_MAX_P
        self._rows = None  # the two-class blocks' scaled rows (a buffer reused by every block)
        if self.m == 1:
            self._acc = np.zeros((self.p, self.p))
        elif self.kr:
            self._upper = np.triu_indices(self.p)
            # row i of the upper triangle is the slice starts[i]:starts[i + 1] of a row's square
            self._starts = np.concatenate([[0], np.cumsum(np.arange(self.p, 0, -1))])
            self._pairs = np.triu_indices(self.m)
            self._acc = np.zeros((self._upper[0].size, self._pairs[0].size))
        else:
            self._acc = np.zeros((self.p, self.m, self.p, self.m))

    def block_rows(self) -> int:
        """Rows per block that keep this accumulator's work arrays in cache."""
        if self.m == 1:
            return max(256, _SYRK_ENTRIES // self.p)
        width = self._upper[0].size if self.kr else self.p
        return max(64, _KR_ENTRIES // width) if self.kr else max(256, (1 << 19) // max(width, 1))

    def _centred(self, Xb: np.ndarray) -> np.ndarray:
        """:math:`[X_b - m, 1]` (or without the 1) in the product dtype."""
        A = np.empty((Xb.shape[0], self.p), dtype=self.dtype)
        if sp.issparse(Xb):  # one block of sparse rows, densified in cache
            Xb = Xb.toarray()
        np.subtract(Xb, self.offset, out=A[:, : self.d], casting="same_kind")
        if self.fit_intercept:
            A[:, self.d] = 1.0
        return A

    def part(self) -> CurvatureSum:
        """An empty sum of the same shape, offset and product dtype (for one chunk of rows, to
        :meth:`merge` back)."""
        return CurvatureSum(self.d, self.m, self.offset, self.fit_intercept, self.dtype)

    def merge(self, other: CurvatureSum) -> None:
        """Add the sum of other rows (a :meth:`part`)."""
        self._acc += other._acc

    def rows_buffer(self, b: int) -> np.ndarray:
        """A (b, p) array of the product dtype for two-class scaled rows (:meth:`add_rows`), in a
        buffer reused by every block."""
        if self._rows is None or self._rows.shape[0] < b:
            self._rows = np.empty((max(b, self.block_rows()), self.p), dtype=self.dtype)
        return self._rows[:b]

    def add_rows(self, A: np.ndarray) -> None:
        """Add the two-class rows already scaled, :math:`\\sqrt{C_i}[x_i - m, 1]` (one syrk)."""
        self._acc += A.T @ A

    def _scaled(self, Xb, s: np.ndarray) -> np.ndarray:
        """:math:`\\mathrm{diag}(s)[X_b - m, 1]` (or without the 1) in the product dtype, in the
        reused buffer."""
        A = self.rows_buffer(Xb.shape[0])
        if sp.issparse(Xb):  # one block of sparse rows, densified in cache
            Xb = Xb.toarray()
        if Xb.size < COMPILED_MIN:  # the compiled loop's arithmetic, s_i (x_ij - m_j): no load
            d = Xb.shape[1]
            np.multiply(s[:, None], Xb - self.offset, out=A[:, :d])
            if A.shape[1] > d:
                A[:, d] = s
            return A
        compiled.centred_scaled_rows(np.ascontiguousarray(Xb), self.offset, s, A)
        return A

    def add(self, Xb: np.ndarray, C: np.ndarray) -> None:
        """Add the rows ``Xb`` (shape (b, d)) with curvature ``C`` (shape (b,) or (b, m, m))."""
        if Xb.shape[0] == 0:
            return
        if self.m == 1:  # C >= 0: one syrk of sqrt(C) A
            A = self._scaled(Xb, np.sqrt(C))
            self._acc += A.T @ A
            return
        A = self._centred(Xb)
        if self.kr:
            Z = np.empty((A.shape[0], self._acc.shape[0]), dtype=self.dtype)
            for i, (lo, hi) in enumerate(zip(self._starts[:-1], self._starts[1:])):
                np.multiply(A[:, i : i + 1], A[:, i:], out=Z[:, lo:hi])
            self._acc += Z.T @ C[:, self._pairs[0], self._pairs[1]].astype(self.dtype)
        else:
            for a in range(self.m):
                for b in range(a, self.m):
                    block = A.T @ (A * C[:, a, b].astype(self.dtype)[:, None])
                    self._acc[:, a, :, b] += block
                    if b != a:
                        self._acc[:, b, :, a] += block.T

    def total(self) -> np.ndarray:
        """The sum, of shape (p*m, p*m), C order of (p, m)."""
        p, m = self.p, self.m
        if m == 1:
            return (self._acc + self._acc.T) / 2
        if not self.kr:
            H4 = self._acc
        else:
            H4 = np.empty((p, m, p, m))
            i, j = self._upper
            for col, (a, b) in enumerate(zip(*self._pairs)):
                block = np.empty((p, p))
                block[i, j] = self._acc[:, col]
                block[j, i] = self._acc[:, col]
                H4[:, a, :, b] = block
                H4[:, b, :, a] = block
        H = H4.reshape(p * m, p * m)
        return (H + H.T) / 2
