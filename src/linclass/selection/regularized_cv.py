"""Choosing regularised discriminant analysis's :math:`(\\lambda, \\gamma)` on a grid by
cross-validation, from class statistics.

Two schemes, both exact (equal to refitting the model for every left-out part):

* closed-form leave-one-out (:func:`linclass.selection.regularized_loo.loo_scores`): per pooling,
  one product of the rows with the classes' eigenbases; every shrinkage then costs a few narrow
  products;
* K-fold: every fold's training statistics are the full statistics minus the fold's
  (:func:`linclass.selection.downdate.without`), all from one pass over X; per fold and pooling, the
  held-out rows are scored in the eigenbases of :math:`A_j(\\lambda)`, where every shrinkage is a
  diagonal: :math:`\\Sigma_j^{-1} = U_j\\,\\mathrm{diag}(D_j/((1-\\gamma)\\nu_j +
  \\gamma\\,\\mathrm{tr}A_j/d))\\,U_j^T`.

The criterion is one of :mod:`linclass.selection.scoring`, a weighted mean over rows.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import StratifiedKFold

from linclass.generative.class_stats import ClassStats
from linclass.generative.priors import class_log_priors
from linclass.core.threads import blas_threads_for, worker_threads
from linclass.selection import scoring as scoring_
from linclass.selection.downdate import row_downdates, without
from linclass.selection.leave_one_out import loo_log_priors
from linclass.selection.regularized_loo import LooGrid

__all__ = ["FoldModel", "check_folds", "fold_log_likelihood", "fold_model", "fold_row_sums", "grid",
           "grid_scores", "loo_grid_mean", "loo_grid_sums"]

_LOG_2PI = np.log(2 * np.pi)
_SINGULAR = 1e-10


def grid(values, name: str) -> np.ndarray:
    """A grid on [0, 1]: an int n gives ``n`` equally spaced points from 0 to 1; a sequence is
    checked, sorted and de-duplicated."""
    if isinstance(values, (int, np.integer)) and not isinstance(values, bool):
        if values < 1:
            raise ValueError(f"{name} must be a grid size >= 1 or a sequence of values; got {values}.")
        return np.linspace(0.0, 1.0, int(values)) if values > 1 else np.array([0.0])
    arr = np.unique(np.asarray(values, dtype=np.float64).reshape(-1))
    if arr.size == 0 or not np.all(np.isfinite(arr)) or arr[0] < 0 or arr[-1] > 1:
        raise ValueError(f"{name} must hold values in [0, 1]; got {np.asarray(values).tolist()}.")
    return arr


def grid_scores(stats: ClassStats, X: np.ndarray, y: np.ndarray, sample_weight, poolings,
                shrinkages, *, cv=None, scoring: str = "neg_log_loss", priors=None) -> np.ndarray:
    """The cross-validated criterion at every grid point, shape (n_poolings, n_shrinkages);
    ``-inf`` where a left-out fit is singular.

    Parameters
    ----------
    stats : ClassStats of kind 'full' of (X, y, sample_weight)
    X, y, sample_weight : the rows (y as class indices)
    poolings, shrinkages : ndarray
    cv : None, int, a splitter or an iterable of (train, test) index arrays
        None: closed-form leave-one-out; an int: that many stratified folds (in row order, as
        scikit-learn's ``StratifiedKFold`` without shuffling); a scikit-learn splitter (its
        ``split(X, y)``) or the splits themselves.
    scoring : one of :data:`linclass.selection.scoring.SCORINGS`
    priors : ndarray or None (None: learned on each training part)
    """
    if cv is None:
        return loo_grid_mean(*loo_grid_sums(stats, X, y, sample_weight, poolings, shrinkages,
                                            scoring=scoring, priors=priors))
    return _kfold(stats, X, y, sample_weight, poolings, shrinkages, _splits(cv, X, y), scoring,
                  priors)


def loo_grid_sums(stats: ClassStats, X: np.ndarray, y: np.ndarray, sample_weight, poolings,
                  shrinkages, *, scoring: str = "neg_log_loss", priors=None) -> tuple:
    """The leave-one-out criterion's weighted sums over rows ``X`` (all rows of ``stats``, or a
    block of them: each row's score needs only the row and the statistics of all rows).

    Returns
    -------
    sums : ndarray of shape (n_poolings, n_shrinkages)
        :math:`\\sum_i w_i v_i` at every grid point (:func:`linclass.selection.scoring.row_values`).
    weight : float
        :math:`\\sum_i w_i`.
    singular : ndarray of shape (n_poolings, n_shrinkages), bool
        Where some row's left-out fit is singular.

    Added over row blocks, :func:`loo_grid_mean` of the totals is :func:`grid_scores` with
    ``cv=None``.
    """
    sums = np.zeros((poolings.size, shrinkages.size))
    singular = np.zeros(sums.shape, dtype=bool)
    code = scoring_.SCORINGS.index(scoring_.check_scoring(scoring))
    w = (np.ones(y.size) if sample_weight is None
         else np.asarray(sample_weight, dtype=np.float64))
    rows = row_downdates(stats, X, y, sample_weight)
    log_priors = loo_log_priors(stats, rows, priors)
    n, d, K = X.shape[0], stats.n_features, stats.n_classes
    # the poolings are independent: in threads on large data; BLAS in one thread throughout (its
    # products here are small: a block of rows with the bases, the eigendecompositions)
    workers = worker_threads(poolings.size * n * K * d * (2 * d + shrinkages.size), poolings.size)
    with blas_threads_for(0):
        grid = LooGrid(stats, X, rows, log_priors)
        setups = grid.setups(poolings, shrinkages)

        def pooling_sums(a: int) -> None:
            part, valid, bad = grid.sums(setups[a], code, w)
            if bad >= 0:  # the row whose scores overflowed: the scoring's own error
                one = LooGrid(stats, X[bad:bad + 1], rows.subset([bad]), log_priors[bad:bad + 1])
                for s in one.scores(setups[a])[0]:
                    scoring_.row_values(s, np.asarray(y[bad:bad + 1], dtype=np.int64), scoring)
            sums[a] = part
            singular[a] = ~valid

        if workers == 1:
            for a in range(poolings.size):
                pooling_sums(a)
        else:
            with ThreadPoolExecutor(workers) as pool:
                list(pool.map(pooling_sums, range(poolings.size)))
    return sums, scoring_.weighted_sum(np.zeros(y.size), sample_weight)[1], singular


def loo_grid_mean(sums: np.ndarray, weight: float, singular: np.ndarray) -> np.ndarray:
    """The criterion at every grid point, from the totals over all rows of what
    :func:`loo_grid_sums` returns; ``-inf`` where singular."""
    return np.where(singular, -np.inf, sums / weight if weight > 0 else np.nan)


def _splits(cv, X, y):
    if isinstance(cv, (int, np.integer)):
        check_folds(cv, np.bincount(y))
        return StratifiedKFold(n_splits=int(cv)).split(np.zeros((y.size, 1)), y)
    if hasattr(cv, "split"):
        return cv.split(X, y)
    return cv


def check_folds(cv: int, counts: np.ndarray) -> None:
    """``cv`` stratified folds need ``cv`` rows of every class (``counts``: rows per class)."""
    if cv < 2 or cv > counts.min():
        raise ValueError(
            f"cv={cv} folds need at least {cv} rows of every class (the smallest class has "
            f"{counts.min()}) and cv >= 2; use fewer folds, or cv=None for leave-one-out."
        )


def _kfold(stats, X, y, w, poolings, shrinkages, splits, scoring, priors):
    total = np.zeros((poolings.size, shrinkages.size))
    held_out = 0.0
    for train_rows, test in splits:
        test = np.asarray(test)
        wt = None if w is None else w[test]
        part = ClassStats.from_batch(X[test], y[test], stats.classes, wt, kind="full")
        if len(train_rows) + test.size == y.size:  # the complement: statistics minus the fold's
            train = without(stats, part)
        else:
            train_rows = np.asarray(train_rows)
            train = ClassStats.from_batch(X[train_rows], y[train_rows], stats.classes,
                                          None if w is None else w[train_rows], kind="full")
        held_out += test.size if wt is None else wt.sum()
        fold = fold_model(train, poolings, shrinkages, priors)
        if scoring == "log_likelihood":
            total += fold_log_likelihood(fold, part)
        else:
            total += fold_row_sums(fold, X[test], y[test], wt, scoring)
        total[fold.singular] = -np.inf
    return total / held_out


@dataclass(frozen=True, eq=False)
class FoldModel:
    """The grid's models fitted on one training part, in the eigenbases that score every
    shrinkage at once: :math:`\\Sigma_j = U_j\\,\\mathrm{diag}(h)\\,U_j^T`.

    Attributes
    ----------
    train : ClassStats of the training part
    U : ndarray of shape (n_poolings, n_classes, d, d)
    h : ndarray of shape (n_shrinkages, n_poolings, n_classes, d)
    log_det : ndarray of shape (n_shrinkages, n_poolings, n_classes)
    log_priors : ndarray of shape (n_classes,)
    singular : ndarray of shape (n_poolings, n_shrinkages), bool
    """

    train: ClassStats
    U: np.ndarray
    h: np.ndarray
    log_det: np.ndarray
    log_priors: np.ndarray
    singular: np.ndarray


def fold_model(train: ClassStats, poolings, shrinkages, priors) -> FoldModel:
    """Every grid point's model on a training part's statistics (one eigendecomposition per
    pooling and class)."""
    d = train.n_features
    if np.any(train.counts <= 0):
        raise ValueError("A training fold has a class without weight; use fewer folds.")
    log_priors = class_log_priors(train, priors)
    # every pooling at once: A_j(lambda) and its eigenbasis, shapes (L, K, d, d) and (L, K, d)
    lam = poolings[:, None, None, None]
    A = (1.0 - lam) * train.scatter[None] + lam * train.pooled_scatter()[None, None]
    D = (1.0 - poolings[:, None]) * train.counts[None] + poolings[:, None] * train.total
    nu, U = np.linalg.eigh((A + np.swapaxes(A, -1, -2)) / 2)
    traces = np.trace(A, axis1=2, axis2=3)
    # every shrinkage: Sigma_j = U_j diag(h) U_j^T, h of shape (G, L, K, d)
    gam = shrinkages[:, None, None, None]
    h = ((1.0 - gam) * np.maximum(nu, 0.0)[None] + gam * (traces / d)[None, :, :, None])
    h /= D[None, :, :, None]
    singular = np.any(h[..., 0] <= _SINGULAR * h[..., -1], axis=2)  # (G, L)
    h[singular] = 1.0
    log_det = np.log(h).sum(axis=3)  # (G, L, K)
    return FoldModel(train, U, h, log_det, log_priors, singular.T)


def fold_row_sums(fold: FoldModel, X: np.ndarray, y: np.ndarray, w, scoring: str) -> np.ndarray:
    """:math:`\\sum_i w_i v_i` of held-out rows X (all of a fold's, or a block of them) under
    every grid point's model, shape (n_poolings, n_shrinkages)."""
    train = fold.train
    d, K = train.n_features, train.n_classes
    L = fold.U.shape[0]
    out = np.zeros((L, fold.h.shape[0]))
    c = train.grand_mean()
    Xt = X - c
    for a in range(L):
        Z = Xt @ np.concatenate(list(fold.U[a]), axis=1)
        Z -= np.einsum("kd,kde->ke", train.means - c, fold.U[a]).reshape(-1)
        Z2 = (Z * Z).reshape(-1, K, d).transpose(1, 0, 2)  # (K, m, d)
        maha = np.matmul(Z2, (1.0 / fold.h[:, a]).transpose(1, 2, 0))  # (K, m, G)
        scores = -0.5 * (maha.transpose(2, 1, 0) + (fold.log_det[:, a] + d * _LOG_2PI)[:, None, :])
        scores += fold.log_priors
        values = np.stack([scoring_.row_values(S, y, scoring) for S in scores])
        out[a] = values.sum(axis=1) if w is None else values @ w
    return out


def fold_log_likelihood(fold: FoldModel, part: ClassStats) -> np.ndarray:
    """:math:`\\sum_{i \\in F} w_i \\ln p(x_i, y_i)` of a fold's held-out rows from their
    statistics ``part`` alone, shape (n_poolings, n_shrinkages)."""
    return _heldout_log_likelihood(part, fold.train, fold.U, fold.h, fold.log_det,
                                   fold.log_priors).T


def _heldout_log_likelihood(part, train, U, h, log_det, log_priors) -> np.ndarray:
    """:math:`\\sum_{i \\in F} w_i \\ln p(x_i, y_i)` of a fold from its statistics alone, for
    every shrinkage and pooling, shape (G, L): per class,
    :math:`-\\tfrac12[n_{Fj}(d\\ln2\\pi + \\ln|\\Sigma_j|) + \\mathrm{tr}\\,\\Sigma_j^{-1}(S_{Fj} +
    n_{Fj}\\delta\\delta^T)] + n_{Fj}\\ln\\pi_j` with :math:`\\delta = \\bar x_{Fj} - \\mu_j`, the trace
    being :math:`\\sum_l (U_j^TMU_j)_{ll}/h_l` in the eigenbasis (U of shape (L, K, d, d), h of
    shape (G, L, K, d))."""
    d = part.n_features
    delta = part.means - train.means
    M = part.scatter + part.counts[:, None, None] * (delta[:, :, None] * delta[:, None, :])
    diag = np.sum(U * (M[None] @ U), axis=2)  # (L, K, d): diagonal of U^T M U
    trace = np.sum(diag[None] / h, axis=3)  # (G, L, K)
    n_F = part.counts
    terms = -0.5 * (n_F * (d * _LOG_2PI + log_det) + trace)
    present = n_F > 0
    terms[..., present] += n_F[present] * log_priors[present]
    return terms[..., present].sum(axis=2)
