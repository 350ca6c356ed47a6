"""Scores of a fitted :class:`~linclass.generative.gaussian.GaussianModel` on new points: the class
log-densities :math:`\\ln p(x, C_k)` of every covariance structure, and the quadratic form of the
per-class models.

Linear types (``'tied'``, ``'tied_diag'``): :math:`a_k(x) = w_k^Tx + w_{k0}` (Bishop 2006 eqs.
4.68-4.70), one product (float32 scores for a float32 X, computed in float64 by blocks).
``'full'``: the per-class Mahalanobis distances by triangular whitening, a few products per row
block.  ``'diag'`` and ``'spherical'``: the quadratic form expanded into two
products per row block, on centred data.
"""

from __future__ import annotations

import numpy as np

from linclass.core.threads import blas_threads_for, map_chunks, row_chunks
from linclass.generative.gaussian import GaussianModel

__all__ = ["joint_log_likelihood", "mahalanobis", "quadratic_form"]

_ROWS = 1024  # row block for scores: temporaries stay in cache


def joint_log_likelihood(model: GaussianModel, X: np.ndarray) -> np.ndarray:
    """Class scores of shape (n_samples, n_classes).

    Quadratic types: :math:`\\ln p(x, C_k)` exactly.  Linear types: :math:`a_k(x) = w_k^Tx + w_{k0}` up to a
    constant shared by all classes, i.e. :math:`\\ln p(x, C_k)` minus a term common to all classes (so
    posteriors are exact).
    """
    if model.coef is not None:
        return _linear_scores(model, X)
    if model.whiten is not None:
        return _whitened_scores(model, X)
    return _diagonal_scores(model, X)


def _blocks(n: int):
    for start in range(0, n, _ROWS):
        yield slice(start, min(start + _ROWS, n))


def _linear_scores(model: GaussianModel, X: np.ndarray) -> np.ndarray:
    """:math:`(x - c)^T w_k` + centred intercept.  When the training data sit near the origin (relative
    to their spread) the centring is folded into the intercept and X is used as it is: one product.
    A float32 X is scored by blocks, each centred and multiplied in float64 (float32 products would
    round at the scale of :math:`|x||w|`, far above the scores' own rounding), into float32 scores.
    A large float64 X's one product is formed by row chunks on worker threads
    (:func:`_by_row_chunks`)."""
    low = X.dtype == np.float32
    K = model.coef.shape[0]
    if not model.centre_first and not low:
        intercept = model.centred_intercept - model.coef @ model.center

        def score_rows(X, out):
            np.matmul(X, model.coef.T, out=out)
            out += intercept

        return _by_row_chunks(score_rows, X, K, X.size * K)
    out = np.empty((X.shape[0], K), dtype=X.dtype if low else np.float64)
    for block in _blocks(X.shape[0]):
        out[block] = (X[block] - model.center) @ model.coef.T + model.centred_intercept
    return out


def _whitened_scores(model: GaussianModel, X: np.ndarray) -> np.ndarray:
    """:math:`\\ln p(x, C_k) = c_k - \\tfrac12 (x-\\mu_k)^T\\Sigma_k^{-1}(x-\\mu_k)` from :func:`mahalanobis`."""
    out = mahalanobis(model, X)
    out *= -0.5
    out += model.const
    return out


def mahalanobis(model: GaussianModel, X: np.ndarray) -> np.ndarray:
    """Squared Mahalanobis distances :math:`(x-\\mu_k)^T\\Sigma_k^{-1}(x-\\mu_k)` of a 'full' model,
    shape (n_samples, n_classes).

    All classes with a few products per row block: with :math:`a = [1, x - c]`, panel j gives
    columns :math:`[c_j, c_{j+1})` of every :math:`(x-\\mu_k)^TH_k` from the first :math:`1 + c_{j+1}`
    entries of :math:`a` (:math:`H_k` is upper triangular), and their squares are summed per class
    without temporaries.

    Row chunks on worker threads: :func:`_by_row_chunks`."""
    if model.whiten is None:
        raise ValueError("mahalanobis applies to the 'full' model.")
    widest = max(panel.size for panel in model.whiten_panels)  # multiply-adds of a block's product
    return _by_row_chunks(lambda rows, out: _mahalanobis_rows(model, rows, out), X,
                          model.means.shape[0], min(_ROWS, X.shape[0]) * widest)


def _by_row_chunks(score_rows, X: np.ndarray, n_classes: int, work: float) -> np.ndarray:
    """``score_rows(rows, out)`` (scores of the rows of X into ``out``, block by block) over all of
    X, into an array of shape (n_samples, n_classes).

    A large X's row chunks are shared among worker threads, each running BLAS in one thread
    (:func:`linclass.core.threads.map_chunks`): a block's products are too small (under 30 million
    multiply-adds at d = 100, K = 10) for BLAS's own threads to pay (on a loaded 2-core machine they
    made QDA's predict_proba 5x slower), and the steps between products run on one core in a
    threaded product.  The chunks' bounds are multiples of the block, so every row is computed as
    in one pass over all rows, bit for bit, for any thread count.  A small X is scored in the
    calling thread, with BLAS in one thread unless one block's product (``work`` multiply-adds) is
    large (:func:`linclass.core.threads.blas_threads_for`)."""
    n, d = X.shape
    out = np.empty((n, n_classes))
    chunks = row_chunks(n, d, 8 * n_classes, align=_ROWS)
    if len(chunks) > 1:
        map_chunks(lambda rows: score_rows(X[rows], out[rows]), chunks)
        return out
    with blas_threads_for(work):
        score_rows(X, out)
    return out


def _mahalanobis_rows(model: GaussianModel, X: np.ndarray, out: np.ndarray) -> None:
    """:func:`mahalanobis` of the rows X into ``out``, block by block, in the calling thread."""
    K, d = model.means.shape[0], X.shape[1]
    Xa = np.empty((min(_ROWS, X.shape[0]), d + 1))
    Xa[:, 0] = 1.0
    for block in _blocks(X.shape[0]):
        m = block.stop - block.start
        np.subtract(X[block], model.center, out=Xa[:m, 1:])
        sq = out[block]
        sq[...] = 0.0
        for panel in model.whiten_panels:
            Z = (Xa[:m, : panel.shape[0]] @ panel).reshape(m, K, -1)
            sq += np.einsum("ikj,ikj->ik", Z, Z)


_CANCELLATION = 1e6  # expansion's size / result above which a row's form is summed directly


def _diagonal_scores(model: GaussianModel, X: np.ndarray) -> np.ndarray:
    """:math:`-\\tfrac12\\sum_j (x_j-\\mu_{kj})^2/\\sigma_{kj}^2` expanded into two products per row block
    (on centred data, so the expansion does not cancel for data far from the origin).

    The expansion rounds to about machine epsilon times its positive part
    :math:`\\sum_j (x_j^2 + \\mu_{kj}^2)/\\sigma_{kj}^2`, which can exceed the form itself by many
    orders of magnitude for a row near its class mean with tiny variances (a feature nearly constant
    within the class): where the positive part is over :data:`_CANCELLATION` times the result, the
    form of that row is summed directly, as the squares of the differences.  Row chunks on worker
    threads: :func:`_by_row_chunks`."""
    M, P = model.offsets, model.inv_var
    MP = (M * P).T
    tail = np.einsum("kj,kj->k", M * M, P)

    def score_rows(X, out):
        for block in _blocks(X.shape[0]):
            Xc = X[block] - model.center
            positive = (Xc * Xc) @ P.T + tail
            quad = positive - 2.0 * (Xc @ MP)
            rows = np.flatnonzero(np.any(positive > _CANCELLATION * np.abs(quad), axis=1))
            if rows.size:
                D = Xc[rows, None, :] - M[None, :, :]
                quad[rows] = np.einsum("rkj,rkj,kj->rk", D, D, P)
            out[block] = model.const - 0.5 * quad

    return _by_row_chunks(score_rows, X, P.shape[0], min(_ROWS, X.shape[0]) * P.size)


def quadratic_form(model: GaussianModel) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The generalized quadratic discriminant (Bishop 2006 sec. 4.2.1) for each class:
    :math:`\\ln p(x, C_k) = x^T Q_k x + l_k^T x + c_k` with :math:`Q_k = -\\tfrac12\\Sigma_k^{-1}`,
    :math:`l_k = \\Sigma_k^{-1}\\mu_k`, :math:`c_k = -\\tfrac12\\mu_k^T\\Sigma_k^{-1}\\mu_k - \\tfrac12\\ln|\\Sigma_k|
    - \\tfrac d2\\ln2\\pi + \\ln p(C_k)`.  Returns ``(Q, l, c)`` of shapes (K, d, d), (K, d), (K,)."""
    K, d = model.means.shape
    if model.whiten is not None:
        W = model.whiten.reshape(d, K, d).transpose(1, 0, 2)  # H_k
        precision = W @ W.transpose(0, 2, 1)
    elif model.inv_var is not None:
        precision = model.inv_var[:, :, None] * np.eye(d)
    else:
        raise ValueError("quadratic_form applies to the 'full', 'diag' and 'spherical' models.")
    lin = np.einsum("kij,kj->ki", precision, model.means)
    with np.errstate(invalid="ignore"):
        const = model.const - 0.5 * np.einsum("ki,ki->k", model.means, lin)
    return -0.5 * precision, lin, const
