"""Leave-one-out and K-fold scores of the Gaussian models on chunks (Dask collections, files read in
blocks): the per-row computations of :mod:`linclass.selection.leave_one_out`,
:mod:`linclass.selection.regularized_loo` and :mod:`linclass.selection.regularized_cv` applied to one
block of rows at a time, with the global class statistics shipped to every block.

Every leave-one-out quantity of a row is a function of the row and of the statistics of all rows
(its rank-one downdate, :mod:`linclass.selection.downdate`), never of the other rows themselves.
So the chunked computation is two passes over the data, and its result equals the in-memory one
up to rounding:

    pass 1: chunk -> ClassStats --merge--> global statistics -> the model fitted on all rows
    pass 2: chunk + global statistics -> the chunk's rows' leave-one-out scores
            (posteriors row by row, or weighted sums of a criterion, added over chunks)

Regularised discriminant analysis's K-fold criterion (``cv`` an int: stratified folds in row
order, as scikit-learn's ``StratifiedKFold`` without shuffling) needs each row's fold, which depends
on the rows before it only through how many of each class there are: a first pass counts the
labels of every block (:func:`linclass.selection.fold_rules.label_counts`),
:func:`~linclass.selection.fold_rules.stratified_folds` turns the counts into each block's fold
rule, a second pass gives every fold's statistics (:func:`fold_stats`; their merge is the
statistics of all rows) and a third the held-out rows' sums (:func:`fold_sums`; not needed for
``'log_likelihood'``, a function of the statistics).
"""

from __future__ import annotations

import numpy as np

from linclass.core.chunk_validation import validate_chunk
from linclass.core.chunks import Chunk, encode_chunk_labels
from linclass.core.posterior import log_posterior
from linclass.core.validation import FitData
from linclass.selection import regularized_cv
from linclass.selection import scoring as scoring_
from linclass.selection.fold_rules import FoldRule

__all__ = ["add_sums", "chunk_rows", "fold_stats", "fold_sums", "loo_criterion_sums", "loo_grid_sums",
           "loo_proba", "merge_folds"]


def chunk_rows(chunk: Chunk, n_features: int, classes: np.ndarray, prepare=None) -> FitData:
    """One chunk validated as the in-memory fit validates its rows, y encoded as indices into the
    global ``classes`` (``prepare``: the model's per-row input step)."""
    X, y, w = validate_chunk(chunk, n_features)
    if y is None:
        raise ValueError(f"{chunk.where()}: y is required for leave-one-out.")
    y = encode_chunk_labels(y, classes, chunk.where()) if X.shape[0] else np.zeros(0, np.intp)
    return FitData(prepare(X) if prepare is not None else X, y, classes, w)


def _scores(chunk: Chunk, model) -> tuple[np.ndarray, FitData]:
    """The chunk's leave-one-out class scores under ``model`` (fitted on all rows: its
    ``stats_`` are the global statistics), shape (rows, n_classes)."""
    data = chunk_rows(chunk, model.n_features_in_, model.classes_)  # (as in memory: X as given)
    if data.X.shape[0] == 0:
        return np.empty((0, model.classes_.size)), data
    return model._loo_scores(data), data


def loo_proba(chunk: Chunk, model) -> np.ndarray:
    """Leave-one-out posteriors of the chunk's rows, shape (rows, n_classes)."""
    return np.exp(log_posterior(_scores(chunk, model)[0]))


def loo_criterion_sums(chunk: Chunk, model, scoring: str):
    """``(sum of w_i v_i, sum of w_i)`` of the criterion's per-row values
    (:func:`linclass.selection.scoring.row_values`) over the chunk's rows; None for no rows."""
    scores, data = _scores(chunk, model)
    if data.X.shape[0] == 0:
        return None
    values = scoring_.row_values(scores, data.y, scoring)
    return scoring_.weighted_sum(values, data.sample_weight)


def loo_grid_sums(chunk: Chunk, stats, poolings, shrinkages, scoring: str, priors):
    """Regularised discriminant analysis's leave-one-out grid on the chunk's rows
    (:func:`linclass.selection.regularized_cv.loo_grid_sums`); None for no rows."""
    data = chunk_rows(chunk, stats.n_features, stats.classes)
    if data.X.shape[0] == 0:
        return None
    return regularized_cv.loo_grid_sums(stats, data.X, data.y, data.sample_weight, poolings,
                                        shrinkages, scoring=scoring, priors=priors)


def add_sums(a: tuple, b: tuple) -> tuple:
    """Add two chunks' sums term by term (a boolean term: either)."""
    return tuple(x | y if np.asarray(x).dtype == bool else x + y for x, y in zip(a, b))


# ------------------------------------------------------------------------------- K-fold
def fold_stats(chunk: Chunk, n_features: int, classes: np.ndarray, rule: FoldRule) -> list:
    """The statistics (kind 'full') of the chunk's rows of every fold, a list of length
    ``n_splits``; combined by merging fold by fold."""
    from linclass.generative.class_stats import ClassStats

    data = chunk_rows(chunk, n_features, classes)
    fold = rule.of(chunk.index, data.y)
    out = []
    for f in range(rule.n_splits):
        rows = fold == f
        w = None if data.sample_weight is None else data.sample_weight[rows]
        out.append(ClassStats.from_batch(data.X[rows], data.y[rows], classes, w, kind="full"))
    return out


def merge_folds(a: list, b: list) -> list:
    return [x.merge(y) for x, y in zip(a, b)]


def fold_sums(chunk: Chunk, n_features: int, classes: np.ndarray, rule: FoldRule, models: list,
              scoring: str):
    """The chunk's held-out sums of the criterion, each row under its fold's models
    (:func:`linclass.selection.regularized_cv.fold_row_sums`), shape (n_poolings, n_shrinkages);
    None for no rows."""
    data = chunk_rows(chunk, n_features, classes)
    if data.X.shape[0] == 0:
        return None
    fold = rule.of(chunk.index, data.y)
    total = 0.0
    for f in np.unique(fold):
        rows = fold == f
        w = None if data.sample_weight is None else data.sample_weight[rows]
        total = total + regularized_cv.fold_row_sums(models[f], data.X[rows], data.y[rows], w,
                                                     scoring)
    return total
