"""The design matrix as the penalised solvers read it: dense or sparse, centred implicitly, never
densified.

:class:`Design` wraps X once per fit and answers the three questions the solvers ask of it, each in
the way that is fastest for its storage:

``gradient(V)``   :math:`\\tilde X^T V^T` for a few right-hand sides (the classes): BLAS for dense X,
                  a compiled column loop for sparse X (one read of each column for all classes)
``scores(W)``     :math:`\\tilde X W^T`
``kernel_X``      the storage the compiled kernels of :mod:`linclass.linear.compiled` loop over

A dense X of fewer than :data:`~linclass.core.lazy.COMPILED_MIN` entries is ``small``: its products
are BLAS calls and NumPy operations only, and the fits over it call no compiled loop (their
datafit terms are :mod:`linclass.linear.logistic.losses`'s NumPy forms), so that a process's first
fit of a small problem does not wait for numba to load its compiled code.

Centring.  With an intercept, dense columns are shifted by their (unweighted) mean :math:`c`:
:math:`\\tilde X = X - \\mathbf 1c^T`, which moves only the intercept (:math:`b = \\tilde b -
W c`) and keeps sums of products accurate for data far from the origin.  The shift is applied on the
fly (a rank-one correction in products, a subtraction inside the compiled loops), never by forming
:math:`X - \\mathbf 1c^T`.  Sparse columns are not shifted (``shift`` is zero): the solvers centre
them implicitly by profiling the intercept out of each quadratic model instead, which needs only the
weighted column sums (:mod:`linclass.linear.compiled`).

Precision.  The Design carries the dtype of its products over X, :attr:`Design.precision`: float32
for a dense float32 X (the precision decided at the door: a fit handed float32 rows keeps them,
e.g. the duality gap that certifies a smooth fit on float32 X, :mod:`linclass.linear.fitting.fit`),
else float64.  With
float32, ``gradient`` and ``scores`` are float32 products with float64 results, and the compiled
loops read a float64 copy.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.linalg.blas import dsyrk, ssyrk

# entries of a Hessian's data product from which it is formed in float32
from linclass.core.lazy import COMPILED_MIN
from linclass.core.validation import LOW, LOW_PRECISION_MIN, is_low
from linclass.linear import compiled

__all__ = ["Design", "LOW_PRECISION_MIN"]



def _csc(X) -> sp.csc_matrix:
    """X as CSC float64 with sorted, duplicate-free indices (a copy only when needed)."""
    C = X.tocsc() if X.format != "csc" else X
    if C.dtype != np.float64:
        C = C.astype(np.float64)
    if not C.has_canonical_format:
        C = C.copy() if C is X else C
        C.sum_duplicates()
    return C


class Design:
    """X for the penalised solvers.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or scipy.sparse matrix
        Dense X is used as given (C or Fortran order); sparse X is converted to CSC (its columns are
        what coordinate descent reads) without densifying.
    center : bool
        Shift dense columns by their mean (the model has an intercept).
    """

    def __init__(self, X, *, center: bool):
        self.sparse = sp.issparse(X)
        self.n, self.d = X.shape
        if self.sparse:
            self.X = _csc(X)
            self.shift = np.zeros(self.d)
            # row indices as unsigned integers: numba then drops its negative-index wraparound test
            # from the innermost loops (measured: 1.7x faster coordinate descent on text data)
            rows = self.X.indices.view(np.uint32 if self.X.indices.itemsize == 4 else np.uint64)
            self._storage = (self.X.indptr.astype(np.int64), rows, self.X.data)
        else:
            self.X = X if is_low(X) else np.asarray(X, dtype=np.float64)
            if not (center and self.n):
                self.shift = np.zeros(self.d)
            elif is_low(self.X):  # any nearby point centres: one float32 product, no copy
                self.shift = (np.ones(self.n, dtype=LOW) @ self.X).astype(np.float64) / self.n
            else:
                self.shift = self.X.mean(axis=0)
            self._storage = None  # Fortran-order copy, made when a compiled loop needs columns
        self.all_columns = np.arange(self.d, dtype=np.int64)
        #: a dense X of fewer than COMPILED_MIN entries: NumPy and BLAS only (module docstring)
        self.small = not self.sparse and self.n * self.d < COMPILED_MIN
        #: the dtype of the products over X (``gradient``, ``scores``): X's own when X is a dense
        #: float32 array kept as it is, else float64
        self.precision = LOW if not self.sparse and is_low(self.X) else np.dtype(np.float64)

    # ------------------------------------------------------------------ storages
    @property
    def kernel_X(self):
        """X in the storage of :mod:`linclass.linear.compiled`: CSC arrays, or dense Fortran order."""
        if self._storage is None:
            self._storage = np.asfortranarray(self.X, dtype=np.float64)
        return self._storage

    @property
    def nnz(self) -> int:
        return int(self.X.nnz) if self.sparse else self.n * self.d

    def column_nnz(self) -> np.ndarray:
        """Stored entries per column (n for dense columns)."""
        if self.sparse:
            return np.diff(self.X.indptr)
        return np.full(self.d, self.n)

    def absolute_sums(self, weights: np.ndarray) -> np.ndarray:
        """:math:`\\sum_i w_i|\\tilde x_{ij}|` per column (d,) for non-negative ``weights`` (n,):
        :math:`\\lVert\\tilde X^Te\\rVert` column by column is at most this times
        :math:`\\max_i|e_i|/w_i`.  One read of X, kept for the same weights array (a path's fits
        share the design and the weights)."""
        kept = getattr(self, "_absolute_sums", None)
        if kept is not None and kept[0] is weights:
            return kept[1]
        if self.sparse:
            sums = np.asarray(abs(self.X).T @ weights, dtype=np.float64).reshape(-1)
        else:
            sums = np.zeros(self.d)
            for start in range(0, self.n, 8192):  # by blocks of rows: no n x d temporary
                rows = slice(start, start + 8192)
                sums += weights[rows] @ np.abs(self.X[rows] - self.shift)
        self._absolute_sums = (weights, sums)
        return sums

    # ------------------------------------------------------------------ products
    def gradient(self, V: np.ndarray, cols: np.ndarray | None = None) -> np.ndarray:
        """:math:`\\tilde X_{:,cols}^T V^T` of shape (len(cols), m) for V of shape (m, n)."""
        V = np.ascontiguousarray(V, dtype=np.float64)
        if self.sparse:
            cols = self.all_columns if cols is None else cols
            out = np.empty((cols.size, V.shape[0]))
            compiled.gradient(self._storage, self.shift, V, cols, out)
            return out
        G = (V.astype(self.precision, copy=False) @ self.X).T  # BLAS over the whole of X: one read
        G = G.astype(np.float64, copy=False)
        G -= np.outer(self.shift, V.sum(axis=1))
        return G if cols is None else G[cols]

    def scores(self, W: np.ndarray, cols: np.ndarray | None = None) -> np.ndarray:
        """:math:`\\tilde X W^T` of shape (m, n) for W of shape (m, d) (only the columns ``cols``
        when given, e.g. the non-zero ones)."""
        W = np.atleast_2d(W)
        if self.sparse:
            if cols is None:
                return np.ascontiguousarray((self.X @ W.T).T)
            out = np.empty((W.shape[0], self.n))
            for k in range(W.shape[0]):
                compiled.step_scores(self._storage, self.shift, cols, W[k], out[k])
            return out
        Wx = W.astype(self.precision, copy=False)
        if cols is not None and cols.size < self.d // 4:
            S = Wx[:, cols] @ self.X[:, cols].T
        else:
            S = Wx @ self.X.T
        return S.astype(np.float64, copy=False) - (W @ self.shift)[:, None]

    def step(self, delta: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """:math:`z = \\tilde X\\delta` of shape (n,) for a step non-zero on ``cols`` at most."""
        if self.sparse:
            z = np.empty(self.n)
            compiled.step_scores(self._storage, self.shift, cols, delta, z)
            return z
        return self.scores(delta[None, :], cols)[0]

    def weighted_gram(self, cols: np.ndarray, h: np.ndarray, H: float,
                      hx: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """For the columns ``cols`` (q of them), the profiled Hessian
        :math:`Q = \\tilde X_c^T\\mathrm{diag}(h)\\tilde X_c - \\tilde X_c^Th\\,h^T\\tilde X_c / H`
        (q x q; no correction for ``H = 0``) and :math:`\\tilde X_c^Th`, with one BLAS product on a
        scaled copy of the columns (sparse X: one sparse product, never densifying X).  On large
        dense X the copy and the product are float32 (a model's
        curvature need not be exact: the gradient, which fixes the optimum, stays float64).
        ``hx``: :math:`\\tilde X_c^Th` when the caller holds it (dense X)."""
        if self.sparse:
            A = self.X[:, cols].multiply(np.sqrt(h)[:, None]).tocsc()
            Q = (A.T @ A).toarray()
            hx = np.asarray(self.X[:, cols].T @ h).reshape(-1)
            if H > 0:
                Q -= np.outer(hx, hx) / H
            return Q, hx
        large = self.n * cols.size >= LOW_PRECISION_MIN
        X = np.ascontiguousarray(self.X, dtype=np.float64)
        if self.small:  # the compiled loop's arithmetic, (x_ij - c_j) s_i, in two array passes
            A = X - self.shift if cols.size == self.d else X[:, cols] - self.shift[cols]
            A *= np.sqrt(h)[:, None]
        else:
            A = np.empty((self.n, cols.size), dtype=LOW if large else np.float64)
            compiled.scaled_columns(X, self.shift, cols, np.sqrt(h), A)
        # A^T A by syrk on A^T (Fortran order, no copy): one triangle, half a general product's work
        upper = (ssyrk if large else dsyrk)(1.0, A.T, trans=0, lower=0)
        Q = np.triu(upper).astype(np.float64)
        Q += np.triu(Q, 1).T
        if hx is None:
            hx = self.gradient(h[None, :], cols)[:, 0]
        if H > 0:
            Q -= np.outer(hx, hx) / H
        return Q, hx
