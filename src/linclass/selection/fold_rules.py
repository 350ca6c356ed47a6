"""Each row's cross-validation fold on chunked data (Dask collections, files read in blocks), from
where the row lies in the whole data: the same row falls in the same fold however the data are cut
into blocks, and the folds are those the in-memory splitter gives on all rows at once.

A first pass over the data (:func:`label_counts`) brings, for every
block, its distinct labels, their row counts and where each first occurs; :func:`block_layout`
turns them into the row where each block starts and the classes, and :func:`fold_rule` into a
rule that gives the folds of a block's rows (``rule.of(block index, class indices)``):

=============================================  ==============================================
cv                                             the fold of the r-th row (of n, in order)
=============================================  ==============================================
None, an int k, ``StratifiedKFold(k)``         scikit-learn's ``StratifiedKFold(k)`` without
                                               shuffling (:class:`FoldRule`): the
                                               in-memory default of a classifier's int cv
``KFold(k)``                                   ``KFold(k)`` without shuffling: k runs of
                                               consecutive rows, the first ``n % k`` one row
                                               longer
``PredefinedSplit(test_fold)``                 ``test_fold[r]`` (an array of n entries in
                                               memory); -1: in no held-out set (every fold
                                               trains on it)
=============================================  ==============================================

Shuffled splitters and the others need every row's label (or group) at once and are refused: the
rows can be shuffled before they are written, or the folds given as a ``PredefinedSplit``.  A fold
index of -1 marks a row no fold holds out.
"""

from __future__ import annotations

import warnings
from numbers import Integral

import numpy as np

from linclass.core.chunk_validation import validate_chunk, validate_chunk_labels
from linclass.core.chunks import Chunk

__all__ = ["BlockLayout", "ContiguousFolds", "FoldRule", "PredefinedFolds", "block_layout",
           "fold_rule", "label_counts", "merge_lists", "scanned_label_counts", "stratified_folds"]


# ------------------------------------------------------------------------------- labels per block


def _counts(chunk: Chunk, y) -> list:
    if y is None:
        raise ValueError(f"{chunk.where()}: y is required for cross-validation.")
    labels, first, counts = np.unique(y, return_index=True, return_counts=True)
    return [(chunk.index, labels, counts, first)]


def label_counts(chunk: Chunk, n_features: int) -> list:
    """``[(block index, distinct labels, their row counts, their first row in the block)]``."""
    return _counts(chunk, validate_chunk(chunk, n_features)[1])


def scanned_label_counts(chunk: Chunk, n_features: int) -> tuple:
    """``(label_counts(chunk), the chunk's ChunkScan)`` from one validation of the chunk (the
    first pass of a chunked cross-validation, which also checks X's magnitude); reduce with
    ``functools.partial(combine_with_scan, merge_lists)`` (:mod:`linclass.core.chunks`)."""
    _, y, _, scan = validate_chunk(chunk, n_features, scan=True)
    return _counts(chunk, y), scan


def merge_lists(a: list, b: list) -> list:
    return a + b


class FoldRule:
    """Each row's fold from the per-block label counts, as ``StratifiedKFold(n_splits)`` (without
    shuffling) assigns it on all rows: classes numbered in order of first appearance, the sorted
    labels dealt to the folds in turn (``allocation``), and each class's rows, in order, given
    to the folds in blocks of its allocation.

    Attributes
    ----------
    folds : list of ndarray, one per class (in ``classes`` order)
        The fold of the class's r-th row.
    offsets : dict of block index -> ndarray of shape (n_classes,)
        Rows of each class in the blocks before it.
    """

    def __init__(self, layout: list, classes: np.ndarray, n_splits: int):
        layout = sorted(layout, key=lambda entry: entry[0])
        K = classes.size
        per_block = np.zeros((len(layout), K), dtype=np.int64)
        first = np.full(K, np.iinfo(np.int64).max)
        start = 0
        for b, (_, labels, counts, where) in enumerate(layout):
            idx = np.searchsorted(classes, labels)
            per_block[b, idx] = counts
            first[idx] = np.minimum(first[idx], start + where)
            start += int(counts.sum())
        totals = per_block.sum(axis=0)
        self.totals = totals
        order = np.argsort(first, kind="stable")  # encoded class e is classes[order[e]]
        y_order = np.repeat(np.arange(K), totals[order])
        allocation = np.asarray([np.bincount(y_order[i::n_splits], minlength=K)
                                 for i in range(n_splits)])
        self.n_splits = n_splits
        self.folds = [None] * K
        for e, j in enumerate(order):
            self.folds[j] = np.arange(n_splits).repeat(allocation[:, e])
        before = np.cumsum(per_block, axis=0) - per_block
        self.offsets = {entry[0]: before[b] for b, entry in enumerate(layout)}

    def of(self, index: int, y: np.ndarray) -> np.ndarray:
        """The folds of block ``index``'s rows (class indices y)."""
        out = np.empty(y.size, dtype=np.intp)
        offsets = self.offsets[index]
        for j in np.unique(y):
            rows = np.flatnonzero(y == j)
            out[rows] = self.folds[j][offsets[j] + np.arange(rows.size)]
        return out


def stratified_folds(layout: list, classes: np.ndarray, n_splits: int) -> FoldRule:
    """The :class:`FoldRule` of the per-block label counts (:func:`label_counts`)."""
    return FoldRule(layout, classes, n_splits)


class BlockLayout:
    """Where each block of a chunked source starts, and the labels found, from the first pass's
    per-block label counts (:func:`label_counts`).

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
        The sorted labels of every block.
    starts : dict of block index -> int
        The row (in the whole data, blocks in order) where each block starts.
    n_rows : int
    entries : list
        The pass's entries, blocks in order.
    """

    def __init__(self, entries: list):
        self.entries = sorted(entries, key=lambda entry: entry[0])
        if not self.entries or not sum(int(e[2].sum()) for e in self.entries):
            raise ValueError("Found array with 0 sample(s) while a minimum of 1 is required.")
        labels = np.concatenate([e[1] for e in self.entries if e[1].size])  # (an empty
        # block's labels have no type of their own)
        self.classes = validate_chunk_labels(np.unique(labels))
        rows = [int(e[2].sum()) for e in self.entries]
        starts = np.concatenate([[0], np.cumsum(rows)[:-1]]).astype(int)
        self.starts = {e[0]: int(s) for e, s in zip(self.entries, starts)}
        self.n_rows = int(sum(rows))
        self.class_counts = np.zeros(self.classes.size, dtype=np.int64)
        for e in self.entries:
            np.add.at(self.class_counts, np.searchsorted(self.classes, e[1]), e[2])


def block_layout(entries: list) -> BlockLayout:
    """The :class:`BlockLayout` of the first pass's entries."""
    return BlockLayout(entries)


class ContiguousFolds:
    """``KFold(n_splits)`` without shuffling on the rows in order: fold f holds the rows from
    ``bounds[f]`` to ``bounds[f + 1]``."""

    def __init__(self, layout: BlockLayout, n_splits: int):
        n = layout.n_rows
        sizes = np.full(n_splits, n // n_splits, dtype=np.int64)
        sizes[: n % n_splits] += 1
        self.bounds = np.concatenate([[0], np.cumsum(sizes)])
        self.starts, self.n_splits = layout.starts, n_splits

    def of(self, index: int, y: np.ndarray) -> np.ndarray:
        rows = self.starts[index] + np.arange(y.size)
        return np.searchsorted(self.bounds, rows, side="right") - 1


class PredefinedFolds:
    """``PredefinedSplit(test_fold)``: the row's entry of ``test_fold``, numbered in the order of
    the distinct values (-1: held out by no fold)."""

    def __init__(self, layout: BlockLayout, test_fold):
        test_fold = np.asarray(test_fold).reshape(-1)
        if test_fold.size != layout.n_rows:
            raise ValueError(f"PredefinedSplit's test_fold has {test_fold.size} entries, but the "
                             f"data have {layout.n_rows} rows: give one entry per row.")
        values = np.unique(test_fold[test_fold != -1])
        code = np.searchsorted(values, test_fold)
        self.codes = np.where(test_fold == -1, -1, code)
        self.starts, self.n_splits = layout.starts, int(values.size)

    def of(self, index: int, y: np.ndarray) -> np.ndarray:
        start = self.starts[index]
        return self.codes[start:start + y.size]


def _stratified(layout: BlockLayout, n_splits: int) -> FoldRule:
    counts = layout.class_counts
    if np.all(n_splits > counts):  # scikit-learn's refusal and warning
        raise ValueError(f"n_splits={n_splits} cannot be greater than the number of members in "
                         "each class.")
    if n_splits > counts.min():
        warnings.warn(f"The least populated class in y has only {counts.min()} members, which is "
                      f"less than n_splits={n_splits}.", UserWarning, stacklevel=4)
    return FoldRule(layout.entries, layout.classes, n_splits)


def fold_rule(cv, layout: BlockLayout, owner: str):
    """The rule of each row's fold for ``cv`` (module docstring); ``owner`` names the estimator
    in the refusal of other splitters."""
    from sklearn.model_selection import KFold, PredefinedSplit, StratifiedKFold

    if cv is None or isinstance(cv, Integral) and not isinstance(cv, bool):
        n_splits = 5 if cv is None else int(cv)
        if n_splits < 2:
            raise ValueError(f"cv={cv!r}: k-fold cross-validation needs at least 2 folds.")
        rule = _stratified(layout, n_splits)
    elif type(cv) in (StratifiedKFold, KFold) and not cv.shuffle:
        if cv.n_splits > layout.n_rows:
            raise ValueError(f"Cannot have number of splits n_splits={cv.n_splits} greater than "
                             f"the number of samples: n_samples={layout.n_rows}.")
        rule = (_stratified(layout, cv.n_splits) if type(cv) is StratifiedKFold
                else ContiguousFolds(layout, cv.n_splits))
    elif type(cv) is PredefinedSplit:
        rule = PredefinedFolds(layout, cv.test_fold)
    else:
        raise ValueError(
            f"{owner} on Dask or file input takes cv=None, an int, KFold or StratifiedKFold "
            f"without shuffling, or a PredefinedSplit (each row's fold follows from its place in "
            f"the data); got {cv!r}. Shuffle the rows before writing them, give the folds as "
            "PredefinedSplit(test_fold), or fit on arrays in memory.")
    if rule.n_splits < 2:
        raise ValueError(f"{owner}: the cross-validation needs at least 2 folds; cv={cv!r} "
                         f"gives {rule.n_splits}.")
    return rule
