"""The class-statistics passes of :mod:`linclass.generative.scatter_passes` over a large float32 X: the
products in float32 (BLAS ``ssyrk``, products with the class indicators), their sums over row
blocks in float64.

Why this is accurate.  The products of two float32 numbers are summed in float32 only within a block
of ``_BLOCK`` rows (inside BLAS, in panels of a few hundred); the blocks' results are added in
float64.  Each entry of a block's Gram matrix is then within a few float32 roundings (about 1e-7)
of its exact value, relative to the entries it is a sum of, and the float64 sum over the blocks adds
nothing.  What would lose digits is cancellation: raw second moments minus :math:`n\\mu\\mu^T`.
Two rules keep it away:

* X is shifted by a reference point, the mean of its first rows rounded to float32, when some
  column there has a mean larger than its standard deviation (data far from the origin); the
  subtraction of two nearby float32 numbers is exact;
* when the centred scatter is still much smaller than the raw moment it came from
  (:func:`~linclass.generative.scatter_passes.cancels` for float32 products: classes far apart
  relative to their spread), a second pass centres each
  class at its own mean (rounded to float32) and corrects for the rounding exactly.

The caller (:class:`~linclass.generative.class_stats.ClassStats`) recomputes in float64 the statistics
that float32 products do not give accurately enough (:func:`needs_float64`): values beyond about
1e19 or below about 1e-19, whose squares leave float32's range, and scatter matrices whose
standardized condition number exceeds :data:`CONDITION_LIMIT`, whose inverse would turn the
products' rounding into visible changes of the model.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.linalg import LinAlgError, cholesky
from scipy.linalg.lapack import dpocon

from linclass.core.validation import LOW
from linclass.generative.scatter_passes import cancels, safe_means

__all__ = ["CONDITION_LIMIT", "diag_scatter", "needs_float64", "reference_point",
           "standardized_condition", "tied_scatter"]

_BLOCK = 4096  # rows per float32 product: its own rounding stays near 3e-8, the block in cache
_GEMV_CLASSES = 4  # up to this many classes, class sums are one matrix-vector product each
_DENSE_CLASSES = 64  # up to this many, one product with the dense indicator; above, the sparse one
_HEAD = 1024  # rows that decide whether X is shifted
#: condition number of a standardized scatter above which float32 sums are not accurate enough
#: (their relative rounding, ~1e-7, times this stays near 1e-5 in the coefficients)
CONDITION_LIMIT = 100.0
_TINY = float(np.sqrt(np.finfo(np.float32).tiny))  # ~1e-19: smaller values square to subnormals


def _class_sums(y: np.ndarray, n_classes: int, w: np.ndarray | None, R: np.ndarray) -> np.ndarray:
    """:math:`\\sum_{i \\in k} w_i r_i` for the float32 rows R, shape (n_classes, R.shape[1]): a
    float32 product with the dense class indicator for a few classes (BLAS sums in panels), with
    the sparse one for many."""
    if n_classes <= _GEMV_CLASSES:  # one matrix-vector product per class (no packing of R)
        weight = None if w is None else w.astype(LOW)
        out = np.empty((n_classes, R.shape[1]), dtype=LOW)
        for k in range(n_classes):
            mask = (y == k).astype(LOW)
            out[k] = (mask if weight is None else mask * weight) @ R
        return out
    if n_classes <= _DENSE_CLASSES:
        onehot = np.zeros((y.size, n_classes), dtype=LOW)
        onehot[np.arange(y.size), y] = 1.0 if w is None else w
        return onehot.T @ R
    data = np.ones(y.size, dtype=LOW) if w is None else w.astype(LOW)
    return sp.csc_matrix((data, y, np.arange(y.size + 1)), shape=(n_classes, y.size)) @ R


def _blocks(n: int):
    for start in range(0, n, _BLOCK):
        yield slice(start, min(start + _BLOCK, n))


def reference_point(X: np.ndarray) -> np.ndarray | None:
    """The mean of X's first rows rounded to float32 when some column there has a mean larger than
    its standard deviation; None when X is near enough to the origin as it is."""
    head = X[:_HEAD]
    if head.shape[0] == 0:
        return None
    mean = head.mean(axis=0, dtype=np.float64)
    spread = head.std(axis=0, dtype=np.float64)
    return mean.astype(LOW) if np.any(np.abs(mean) > spread) else None


def _moment_pass(X, y, w, n_classes, centre):
    """One pass of :math:`\\sum_i w_i r_ir_i^T` and the class sums :math:`\\sum_{i\\in k} w_ir_i`
    of :math:`r_i = x_i - c` (``centre`` None: :math:`c = 0`; shape (d,): one point; shape (K, d):
    the point of each row's class), float64 sums of float32 block products: per block one syrk and
    one product with the class indicator, while the block is in cache.  Blocks of X are read in
    place when neither a centre nor weights change them, else through one work array."""
    n, d = X.shape
    work = None if centre is None and w is None else np.empty((min(n, _BLOCK), d), dtype=LOW)
    gram = np.zeros((d, d))
    sums = np.zeros((n_classes, d))
    for block in _blocks(n):
        m, yb = block.stop - block.start, y[block]
        wb = None if w is None else w[block]
        R = X[block]
        if centre is not None:
            R = np.subtract(R, centre if centre.ndim == 1 else centre[yb], out=work[:m])
        sums += _class_sums(yb, n_classes, wb, R)
        if wb is not None:
            R = np.multiply(R, np.sqrt(wb).astype(LOW)[:, None], out=work[:m])
        gram += R.T @ R
    return gram, sums


def tied_scatter(X, y, w, counts, n_classes):
    """Means and pooled within-class scatter of float32 X, both float64 (see the module docstring).

    One pass (:func:`_moment_pass`) about the reference point:
    :math:`S_W = \\sum_i w_i r_ir_i^T - \\sum_k n_k\\delta_k\\delta_k^T` with :math:`\\delta_k` the
    class means about it.  When that cancels, a second pass about each class's mean rounded to
    float32, corrected for the rounding the same way.
    """
    ref = reference_point(X)
    gram, sums = _moment_pass(X, y, w, n_classes, ref)
    delta = safe_means(sums, counts)
    scatter = gram - (delta.T * counts) @ delta
    means = delta if ref is None else delta + ref
    if cancels(np.diag(gram), np.diag(scatter), LOW):
        centre = means.astype(LOW)
        gram, sums = _moment_pass(X, y, w, n_classes, centre)
        delta = safe_means(sums, counts)
        scatter = gram - (delta.T * counts) @ delta
        means = centre + delta
    means[counts <= 0] = 0.0
    return means, (scatter + scatter.T) / 2


def diag_scatter(X, y, w, counts, n_classes):
    """Means and per-class diagonal scatter of float32 X, both float64: per block the class sums of
    the (shifted) rows and of their squares (float32 products with the class indicator), added in
    float64; a second pass about the class means when the subtraction cancels."""
    n, d = X.shape
    ref = reference_point(X)
    work = np.empty((min(n, _BLOCK), 2 * d), dtype=LOW)

    def moments(centre):
        sums = np.zeros((n_classes, 2 * d))
        for block in _blocks(n):
            m = block.stop - block.start
            R, yb = work[:m], y[block]
            if centre is None:
                np.copyto(R[:, :d], X[block])
            else:
                np.subtract(X[block], centre if centre.ndim == 1 else centre[yb], out=R[:, :d])
            np.multiply(R[:, :d], R[:, :d], out=R[:, d:])
            sums += _class_sums(yb, n_classes, None if w is None else w[block], R)
        return sums[:, :d], sums[:, d:]

    sums, squares = moments(ref)
    delta = safe_means(sums, counts)
    scatter = squares - counts[:, None] * delta**2
    means = delta if ref is None else delta + ref
    if cancels(squares, scatter, LOW):
        centre = means.astype(LOW)
        sums, squares = moments(centre)
        delta = safe_means(sums, counts)
        scatter = squares - counts[:, None] * delta**2
        means = centre + delta
    means[counts <= 0] = 0.0
    return means, np.maximum(scatter, 0.0)


def standardized_condition(scatter: np.ndarray) -> float:
    """An estimate of the condition number of a symmetric positive semi-definite matrix (a scatter,
    a Hessian) standardized to unit diagonal (rows with a zero diagonal left out): LAPACK's 1-norm
    estimate from the Cholesky factor (a third of an eigendecomposition's work); infinite when
    the factorisation fails (singular)."""
    sd = np.sqrt(np.maximum(np.diag(scatter), 0.0))
    keep = sd > 0
    if not np.any(keep):
        return 1.0
    R = scatter[np.ix_(keep, keep)] / np.outer(sd[keep], sd[keep])
    R = (R + R.T) / 2
    try:
        factor = cholesky(R, lower=False, check_finite=False)
    except LinAlgError:
        return np.inf
    rcond, info = dpocon(factor, float(np.max(np.sum(np.abs(R), axis=0))))
    return 1.0 / rcond if info == 0 and rcond > 0 else np.inf


def needs_float64(kind: str, means: np.ndarray, *arrays: np.ndarray) -> bool:
    """Whether statistics of ``kind`` computed in float32 must be recomputed in float64: some are not
    finite (squares beyond float32's range, or NaN / infinity in X, which the float64 pass reports),
    a feature's values are so small that their squares underflow float32, or a scatter matrix
    ('tied', 'full': the first array) is too ill-conditioned (:data:`CONDITION_LIMIT`)."""
    if not all(np.all(np.isfinite(a)) for a in (means,) + arrays):
        return True
    magnitude = np.max(np.abs(means), axis=0) if means.size else np.zeros(0)
    if np.any((magnitude > 0) & (magnitude < _TINY * 1e3)):
        return True
    if kind == "tied":
        return standardized_condition(arrays[0]) > CONDITION_LIMIT
    if kind == "full":
        return any(standardized_condition(S) > CONDITION_LIMIT for S in arrays[0])
    return False
