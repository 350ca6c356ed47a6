"""The passes over X behind :class:`linclass.generative.class_stats.ClassStats`: class sums, pooled and
diagonal scatter, the per-class full scatter (a centred or a scaled pass), and the fourth-moment
statistics moved to another centre (:func:`shift_moments`, which the merge uses too).

Each is one pass over X in row blocks of ``_BLOCK`` rows (temporaries stay in cache); the class sums
are one sparse product with the (weighted) class indicators, and no pass forms a d x d product that
its kind does not keep (the diagonal kinds square elementwise).  Raw second moments are centred
afterwards unless they cancel digits (``cancels``), in which case a second pass centres exactly.

A float64 X of :data:`COMPILED_MIN` entries or more with contiguous rows is read by the compiled
loops of :mod:`linclass.generative.stats_kernels` (imported, with numba, on the first such pass); a
smaller one by NumPy and SciPy products alone, whose few extra reads of X cost less there than
loading the compiled loops.

A float32 X is read in float32: the pooled and diagonal kinds by
:mod:`linclass.generative.scatter_float32` (which :class:`~linclass.generative.class_stats.ClassStats`
picks by X's dtype), and :func:`centred_pass` keeps its blocks in X's dtype and its sums in float64.
"""

from __future__ import annotations

import threading

import numpy as np
import scipy.sparse as sp

from linclass.core.threads import map_chunks
from linclass.core.validation import LOW, is_low

__all__ = ["COMPILED_MIN", "cancels", "centred_pass", "class_order", "class_sums", "compiled",
           "diag_scatter", "full_scatter", "indicator", "safe_means", "scaled_pass", "shift_moments",
           "symmetric", "tied_scatter"]

_BLOCK = 4096  # rows per block in blocked passes: keeps temporaries in cache
_WIDTH = 64  # features below which the diagonal pass's blocks grow, to _BLOCK x _WIDTH entries
#: entries of X (2 MiB of float64) from which the compiled loops read it; a smaller X is read by
#: NumPy and SciPy alone, so that a small fit neither imports numba nor loads its compiled loops
#: (about 0.3 s in a fresh process, against well under a millisecond that the loops save there)
COMPILED_MIN = 2**18
_HEAD = 128  # rows of each class whose mean centres the scaled pass
#: rows of each class in a block of the scaled pass (at least): fewer make each class's syrk call
#: cost more in its call and its d x d output than in its products
_CLASS_ROWS = 256
#: raw second moment / centred scatter above which the subtraction lost too many digits and the
#: scatter is recomputed about the means, by the dtype of the products summed (X's): float64 sums
#: keep ~16 digits; sums of float32 products ~7, so they are centred exactly sooner
_CANCELLATION = {np.dtype(np.float64): 1e3, LOW: 2.0}


def indicator(y: np.ndarray, n_classes: int, w: np.ndarray | None) -> sp.csc_matrix:
    """Sparse class indicator of shape (n_classes, len(y)) with w_i (or 1) at (y_i, i).

    ``indicator(y, K, w) @ X`` gives the weighted class sums in one streaming pass over X's rows
    (n d additions), where the dense product with a one-hot matrix costs 2 n d K flops.
    """
    data = np.ones(y.size) if w is None else np.asarray(w, dtype=np.float64)
    return sp.csc_matrix((data, y, np.arange(y.size + 1)), shape=(n_classes, y.size))


def compiled(X) -> bool:
    """Whether the compiled loops read X: a dense float64 array with contiguous rows and at least
    :data:`COMPILED_MIN` entries (numba is imported on their first use,
    :mod:`linclass.generative.stats_kernels`)."""
    return (isinstance(X, np.ndarray) and X.dtype == np.float64 and X.flags.c_contiguous
            and X.size >= COMPILED_MIN)


def _kernels():
    """The compiled loops' module, imported (with numba) on the first large pass."""
    from linclass.generative import stats_kernels

    return stats_kernels


def _weights(w, n: int) -> np.ndarray:
    return np.ones(n) if w is None else np.asarray(w, dtype=np.float64)


def class_sums(X, y, w, n_classes) -> np.ndarray:
    """Weighted class sums :math:`\\sum_{i \\in k} w_i x_i`, shape (n_classes, d)."""
    if compiled(X):
        sums = np.zeros((n_classes, X.shape[1]))
        _kernels().class_sums_into(X, np.asarray(y, dtype=np.intp), _weights(w, X.shape[0]), sums)
        return sums
    return np.asarray(indicator(y, n_classes, w) @ X)


def cancels(raw: np.ndarray, centred: np.ndarray,
            products: np.dtype = np.dtype(np.float64)) -> bool:
    """True when centred = raw - correction lost more digits somewhere than sums of products of
    dtype ``products`` (X's) can spare (:data:`_CANCELLATION`)."""
    return bool(np.any(centred * _CANCELLATION[np.dtype(products)] < raw))


def _syrk():
    """BLAS dsyrk (scipy's), imported on the first large pass.  The passes call it as
    ``syrk(1.0, A.T, 1.0, gram, 0, 0, 1)`` for a float64 A with contiguous rows and a
    Fortran-ordered float64 ``gram`` (or the transpose of a C-ordered one): ``gram += A^T A`` in
    place, in gram's upper triangle only (beta = 1, overwrite_c), so a block's product needs no
    d x d temporary, no copy of its triangle and no addition of one.  At 200,000 x 100, one BLAS
    thread, 2,048-row blocks accumulated so took 0.92-0.94 of NumPy's ``X.T @ X`` on all rows,
    the same blocks' ``gram += Xb.T @ Xb`` 1.02-1.09.

    SciPy's BLAS wrappers hold the GIL while they run, so row chunks read on worker threads
    (:func:`linclass.core.threads.map_chunks`) would take turns: off the main thread the same
    update is NumPy's product, which releases it (:func:`_syrk_released`; 200,000 x 100, two
    threads: LDA's fit 0.047 s with NumPy's products, 0.074 s with dsyrk on both threads)."""
    if threading.current_thread() is not threading.main_thread():
        return _syrk_released
    from scipy.linalg.blas import dsyrk

    return dsyrk


def _syrk_released(alpha, a, beta, c, trans, lower, overwrite_c):
    """``c += triu(a a^T)`` in place: :func:`_syrk`'s update as the passes call it (alpha = beta = 1,
    trans = lower = 0), by NumPy's product, which releases the GIL."""
    c += np.triu(a @ a.T)
    return c


def symmetric(triangle: np.ndarray) -> np.ndarray:
    """The symmetric matrix (or stack of them) of which ``triangle`` holds one triangle and zeros
    strictly on the other side (a syrk accumulator started from zeros): its sum with its
    transpose, the diagonal put back (half the cost of ``np.triu``'s masks)."""
    full = triangle + triangle.swapaxes(-1, -2)
    diagonal = np.arange(triangle.shape[-1])
    full[..., diagonal, diagonal] = triangle[..., diagonal, diagonal]
    return full


def safe_means(sums: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """sums / counts per class (rows), with 0 for classes without weight."""
    out = np.zeros_like(sums)
    np.divide(sums, counts[:, None], out=out, where=counts[:, None] > 0)
    return out


def tied_scatter(X, y, w, counts, n_classes, chunks=None):
    """Means and pooled within-class scatter.

    Fast path: one syrk ``X^T X`` (weighted: of ``sqrt(w) X``) and one sparse pass for the class
    sums, then :math:`S_W = X^T X - \\sum_k n_k \\mu_k \\mu_k^T`.  When that subtraction cancels
    (large offsets relative to the within-class spread) the scatter is recomputed exactly from
    centred blocks (two-pass algorithm).

    A float64 X with contiguous rows (:func:`compiled`) is read in blocks of ``_BLOCK // 4`` rows
    (:func:`_tied_sums`), each summed per class by a compiled loop and then accumulated into the
    Gram matrix by BLAS syrk (:func:`_syrk`) while it is still in the cache; ``chunks`` (row ranges,
    :func:`linclass.core.threads.row_chunks`) are read on threads and their raw sums added in
    chunk order, so the numbers do not depend on the thread count.
    """
    if compiled(X):
        yi, wv = np.asarray(y, dtype=np.intp), _weights(w, X.shape[0])
        parts = map_chunks(lambda rows: _tied_sums(X, yi, wv, w is not None, n_classes, rows),
                           chunks or [slice(0, X.shape[0])])
        gram, sums = parts[0]
        for more_gram, more_sums in parts[1:]:
            gram += more_gram
            sums += more_sums
        gram = symmetric(gram)
        means = safe_means(sums, counts)
    else:
        Xs = X if w is None else X * np.sqrt(w)[:, None]
        gram = Xs.T @ Xs
        means = safe_means(class_sums(X, y, w, n_classes), counts)
    scatter = gram - (means.T * counts) @ means
    if cancels(np.diag(gram), np.diag(scatter)):
        scatter = np.zeros_like(gram)
        for start in range(0, X.shape[0], _BLOCK):
            block = slice(start, start + _BLOCK)
            R = X[block] - means[y[block]]
            if w is not None:
                R *= np.sqrt(w[block])[:, None]
            scatter += R.T @ R
    return means, (scatter + scatter.T) / 2


def _tied_sums(X, y, w, weighted, n_classes, rows):
    """:func:`tied_scatter`'s raw sums over ``X[rows]``: the upper triangle of
    :math:`\\sum_i w_i x_i x_i^T` (Fortran-ordered, zeros below) and the class sums.

    The class sums read each block first: their loop streams it from memory, and the syrk then
    reads it from the cache (at 200,000 x 100 with 10 classes, one BLAS thread: the pass 0.85-0.89
    of ``X.T @ X`` in 1,024-row blocks, the syrk alone 0.95, the sums after the syrk 1.02-1.04)."""
    d = X.shape[1]
    gram, sums = np.zeros((d, d), order="F"), np.zeros((n_classes, d))
    class_sums_into, syrk = _kernels().class_sums_into, _syrk()
    step = max(_BLOCK // 4, 1)
    for start in range(rows.start, rows.stop, step):
        block = slice(start, min(start + step, rows.stop))
        Xb = X[block]
        class_sums_into(Xb, y[block], w[block], sums)
        syrk(1.0, (Xb * np.sqrt(w[block])[:, None] if weighted else Xb).T, 1.0, gram, 0, 0, 1)
    return gram, sums


def diag_scatter(X, y, w, counts, n_classes):
    """Means and per-class diagonal scatter from one blocked pass of raw first and second moments
    (no d x d product: the squares of a block, in cache, summed per class by the sparse indicator),
    recomputed from centred blocks when the subtraction cancels."""
    if compiled(X):  # one compiled read of X: sums and squares per class
        yi, wv = np.asarray(y, dtype=np.intp), _weights(w, X.shape[0])
        sums, squares = np.zeros((n_classes, X.shape[1])), np.zeros((n_classes, X.shape[1]))
        _kernels().class_moments(X, yi, wv, sums, squares)
        means = safe_means(sums, counts)
        scatter = squares - counts[:, None] * means**2
        if cancels(squares, scatter):
            scatter = np.zeros_like(squares)
            _kernels().squared_deviations(X, yi, wv, means, scatter)
        return means, np.maximum(scatter, 0.0)
    n, d = X.shape
    # blocks of about _BLOCK x _WIDTH entries: a narrow X's blocks of _BLOCK rows would each cost
    # more in the indicator's construction than in its products
    rows = max(_BLOCK, _BLOCK * _WIDTH // max(d, 1))
    sums = np.zeros((n_classes, d))
    squares = np.zeros((n_classes, d))
    work = np.empty((min(n, rows), d))
    for start in range(0, n, rows):
        block = slice(start, start + rows)
        Xb = X[block]
        Ib = indicator(y[block], n_classes, None if w is None else w[block])
        sums += Ib @ Xb
        squares += Ib @ np.multiply(Xb, Xb, out=work[: Xb.shape[0]])
    means = safe_means(sums, counts)
    scatter = squares - counts[:, None] * means**2
    if cancels(squares, scatter):
        scatter = np.zeros_like(squares)
        for start in range(0, n, rows):
            block = slice(start, start + rows)
            R = np.subtract(X[block], means[y[block]], out=work[: X[block].shape[0]])
            R *= R
            scatter += indicator(y[block], n_classes, None if w is None else w[block]) @ R
    return means, np.maximum(scatter, 0.0)


def full_scatter(X, y, w, counts, n_rows, n_classes, moments, chunks=None):
    """Means, per-class scatter and (optionally) fourth-moment statistics, in one pass over X.

    Rows are grouped by class once (a stable argsort of the labels); each class is then gathered in
    blocks, centred and summed in the same read (float64: a compiled loop) and accumulated with
    syrk.  (A float64 X with contiguous rows and no fourth moments is read in row order instead,
    each block's rows grouped by class in the cache: :func:`scaled_pass`, whose syrk also gives
    the sums.)  The centre is the mean :math:`r_k` of the class's first block (for a class of at
    most one block, its exact mean; in :func:`scaled_pass`, of the class's first rows in row order),
    so the means come from the same pass (``chunks``: :func:`scaled_pass`'s row ranges): with
    :math:`\\delta_k = \\mu_k - r_k`,

    .. math::  \\mu_k = r_k + \\delta_k, \\qquad
               S_k = \\sum_i w_i (x_i - r_k)(x_i - r_k)^T - n_k\\delta_k\\delta_k^T

    and the fourth moments move from :math:`r_k` to :math:`\\mu_k` exactly (:func:`shift_moments`).
    The correction is small when the order of the rows is unrelated to their values
    (:math:`n_k\\delta_k^2` is then about :math:`1/m` of the scatter for a centre from m rows);
    should it cancel digits all the same (rows sorted by a feature), a second pass centres at the
    means.
    """
    if compiled(X) and not moments:
        def one_pass(refs):
            return scaled_pass(X, y, w, n_rows, refs, chunks)
    else:
        order = class_order(y, n_classes)

        def one_pass(refs):
            return centred_pass(X, w, order, n_rows, refs, moments)
    refs, sums, scatter, fourth, third = one_pass(None)
    delta = safe_means(sums, counts)
    corrected = scatter - counts[:, None, None] * (delta[:, :, None] * delta[:, None, :])
    if cancels(np.diagonal(scatter, axis1=1, axis2=2), np.diagonal(corrected, axis1=1, axis2=2),
               X.dtype):
        refs = safe_means(sums, counts) + refs
        refs, sums, scatter, fourth, third = one_pass(refs)
        delta = safe_means(sums, counts)
        corrected = scatter - counts[:, None, None] * (delta[:, :, None] * delta[:, None, :])
    if moments:
        fourth, third = shift_moments(scatter, counts, fourth, third, delta, sums)
    means = refs + delta
    means[counts <= 0] = 0.0
    return means, corrected, fourth, third


def class_order(y: np.ndarray, n_classes: int) -> np.ndarray:
    """Row indices grouped by class (stable): a radix sort on the narrowest integer type."""
    small = np.int16 if n_classes <= np.iinfo(np.int16).max else np.int64
    return np.argsort(y.astype(small, copy=False), kind="stable")


def centred_pass(X, w, order, n_rows, refs, moments):
    """One pass of the full scatter (:mod:`linclass.generative.class_stats`) about ``refs`` (None: each
    class's first block mean).

    Returns ``(refs, sums, scatter, fourth, third)``, all about ``refs``; ``sums`` is
    :math:`\\sum_i w_i (x_i - r_k)`.  A float32 X is centred and multiplied in float32 about refs
    rounded to float32 (their subtraction from nearby values is exact); the sums are float64.  A
    float64 X with contiguous rows is gathered, centred and summed in one compiled read per block
    (:func:`linclass.generative.stats_kernels.gather_centred`), but for each class's first block, whose
    mean is the centre."""
    n_classes, d = n_rows.size, X.shape[1]
    dtype = X.dtype if is_low(X) else np.dtype(np.float64)
    given = refs is not None
    refs = np.array(refs).astype(dtype).astype(np.float64) if given else np.zeros((n_classes, d))
    sums = np.zeros((n_classes, d))
    scatter = np.zeros((n_classes, d, d))
    fourth = np.zeros(n_classes) if moments else None
    third = np.zeros((n_classes, d)) if moments else None
    stops = np.cumsum(n_rows)
    work = np.empty((min(X.shape[0], _BLOCK), d), dtype=dtype)
    ones = np.ones(min(X.shape[0], _BLOCK), dtype=dtype)
    fast = compiled(X)
    wv = _weights(w, X.shape[0]) if fast else None
    gather_centred = _kernels().gather_centred if fast else None
    for k in range(n_classes):
        begin = stops[k] - n_rows[k]
        for start in range(begin, stops[k], _BLOCK):
            idx = order[start : min(start + _BLOCK, stops[k])]
            first = start == begin and not given
            if fast and not first:  # gather, centre and sum in one read
                R = work[: idx.size]
                gather_centred(X, idx, refs[k], wv, R, sums[k])
                wk = ones[: idx.size] if w is None else wv[idx]
            else:
                # mode='clip' skips the bounds check (the indices are a permutation of the rows)
                R = np.take(X, idx, axis=0, out=work[: idx.size], mode="clip")
                wk = ones[: idx.size] if w is None else w[idx].astype(dtype, copy=False)
                if first:
                    total = float(wk.sum(dtype=np.float64))
                    ref = (wk @ R) / total if total > 0 else R.mean(axis=0)
                    refs[k] = ref.astype(dtype)
                R -= refs[k].astype(dtype)
                sums[k] += wk @ R
            if moments:
                r2 = np.einsum("ij,ij->i", R, R)
                wr2 = wk * r2
                fourth[k] += wr2 @ r2
                third[k] += R.T @ wr2
            if w is not None:
                R *= np.sqrt(wk)[:, None]
            scatter[k] += R.T @ R
    return refs, sums, (scatter + scatter.transpose(0, 2, 1)) / 2, fourth, third


def scaled_pass(X, y, w, n_rows, refs, chunks=None):
    """:func:`centred_pass` without fourth moments for a float64 X with contiguous rows (None
    ``refs``: each class's mean of its first ``_HEAD`` rows in row order,
    :func:`linclass.generative.stats_kernels.head_means`).

    X is read once, in row order, in blocks of at least ``_BLOCK // 2`` rows (and
    ``_CLASS_ROWS`` per class); each block's rows are grouped by class, centred and scaled by
    :math:`\\sqrt{w_i}` into a buffer that stays in the cache, beside a last column of
    :math:`\\sqrt{w_i}` (:func:`linclass.generative.stats_kernels.group_scaled_rows`), and each
    class's segment is accumulated into its Gram matrix by BLAS syrk (:func:`_syrk`): the scatter
    and, in its last column, the centred sums :math:`\\sum_i w_i (x_i - r_k)`, so no loop adds them
    row by row.  Gathering each class's rows by index from all of X (a stable argsort) cost 0.32 of
    ``X.T @ X`` at 200,000 x 100 with 10 classes, one BLAS thread; reading in row order into
    cached blocks 0.12-0.14.

    ``chunks`` (row ranges, :func:`linclass.core.threads.row_chunks`) are read on threads about the
    same centres, and their Gram matrices added in chunk order: no chunk's statistics are centred,
    corrected or merged on their own (at 200,000 x 100 with 10 classes, eight chunks' merged
    statistics cost 0.15 of ``X.T @ X`` more than one pass), and the numbers do not depend on the
    thread count."""
    n_classes, d = n_rows.size, X.shape[1]
    wv = _weights(w, X.shape[0])
    yi = np.asarray(y, dtype=np.intp)
    if refs is None:
        refs = np.zeros((n_classes, d))
        _kernels().head_means(X, yi, wv, np.minimum(n_rows, _HEAD), refs)
    else:
        refs = np.array(refs, dtype=np.float64)
    parts = map_chunks(lambda rows: _class_grams(X, yi, wv, refs, rows),
                       chunks or [slice(0, X.shape[0])])
    grams = parts[0]
    for more in parts[1:]:
        grams += more
    G = symmetric(grams)
    return refs, G[:, :d, d], G[:, :d, :d], None, None


def _class_grams(X, y, w, refs, rows):
    """:func:`scaled_pass`'s sums over ``X[rows]``: for each class k, the Gram matrix of the rows
    :math:`[\\sqrt{w_i}(x_i - r_k), \\sqrt{w_i}]`, in the lower triangle of a C-ordered
    (n_classes, d + 1, d + 1) stack (zeros above)."""
    n_classes, d = refs.shape
    step = max(_BLOCK // 2, _CLASS_ROWS * n_classes, 1)
    work = np.empty((min(rows.stop - rows.start, step), d + 1))
    ends = np.zeros(n_classes, dtype=np.int64)
    grams = np.zeros((n_classes, d + 1, d + 1))
    views = [gram.T for gram in grams]  # Fortran-ordered: syrk fills their upper triangles in place
    group_scaled_rows, syrk = _kernels().group_scaled_rows, _syrk()
    for start in range(rows.start, rows.stop, step):
        group_scaled_rows(X, y, start, min(start + step, rows.stop), refs, w, work, ends)
        first = 0
        for view, end in zip(views, ends.tolist()):
            if end > first:
                syrk(1.0, work[first:end].T, 1.0, view, 0, 0, 1)
            first = end
    return grams


def shift_moments(S: np.ndarray, n: np.ndarray, F: np.ndarray, T: np.ndarray, delta: np.ndarray,
                  sums: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Fourth-moment statistics about ``c + delta`` instead of their own centre c, per class.

    The scatter S (of shape (n_classes, d, d)), counts n, fourth F and third T are about c; ``sums`` is
    :math:`s = \\sum w r` about that centre (zero, the default, when the centre is the mean).  With
    :math:`r = x - c` and :math:`u = r - \\delta`:

    .. math::

        \\sum w \\lVert u \\rVert^4 = F - 4 T\\cdot\\delta + 4 \\delta^T S \\delta
            + 2\\,\\mathrm{tr}(S) \\lVert\\delta\\rVert^2 + n \\lVert\\delta\\rVert^4
            - 4 \\lVert\\delta\\rVert^2 s\\cdot\\delta, \\qquad
        \\sum w \\lVert u \\rVert^2 u = T - \\mathrm{tr}(S)\\,\\delta - 2 S \\delta
            - n \\lVert\\delta\\rVert^2 \\delta + 2 (s\\cdot\\delta)\\delta + \\lVert\\delta\\rVert^2 s
    """
    Sd = np.einsum("kij,kj->ki", S, delta)
    trace = np.trace(S, axis1=1, axis2=2)
    dd = np.einsum("ki,ki->k", delta, delta)
    fourth = (
        F
        - 4 * np.einsum("ki,ki->k", T, delta)
        + 4 * np.einsum("ki,ki->k", delta, Sd)
        + 2 * trace * dd
        + n * dd**2
    )
    third = T - trace[:, None] * delta - 2 * Sd - (n * dd)[:, None] * delta
    if sums is not None:
        sd = np.einsum("ki,ki->k", sums, delta)
        fourth = fourth - 4 * dd * sd
        third = third + 2 * sd[:, None] * delta + dd[:, None] * sums
    return fourth, third
