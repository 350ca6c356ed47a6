"""Fits from data that arrive in chunks: Dask collections and files read piece by piece.

The spine is the in-memory one with its data pass split in two: a function of one chunk that returns a
small summary, and a reduction that adds the summaries.  Nothing of size n ever reaches the driver.

    source (chunks of X, y, w) --map--> chunk summary --reduce--> the in-memory spine's next step

=====================  ===============================================  =============================
model                  chunk summary                                    reduced by
=====================  ===============================================  =============================
labels                 the distinct labels of the chunk                 sorted union
Gaussian, NB, Fisher   :class:`~linclass.stats.ClassStats`              ``ClassStats.merge`` (exact)
logistic / softmax     loss, gradient (p x m) and, for Newton, the      sums (``LinearObjective.
                       curvature (pm x pm) at the current theta         partial_sums``)
=====================  ===============================================  =============================

A *source* (:class:`ChunkSource`) is any object with ``n_features``, ``feature_names`` and
``map_reduce(fn, combine, *args)``, which calls ``fn(chunk, *args)`` on every :class:`Chunk` (where
the chunk lives: a Dask worker, or the reading process) and combines the results (``None``, from a
chunk that carries no weight, is skipped).  :mod:`linclass.sources.dask` provides one for Dask
collections, :class:`linclass.sources.files.FileSource` one for CSV / Parquet files read a block at a
time.  An estimator fits from a source when it implements :class:`ChunkFittable` (a public
``fit_source(source)``); :func:`fit_chunked` calls it.

Each chunk is validated where it is read (:func:`linclass.core.chunk_validation.validate_chunk`:
shape, numeric dtype, NaN / infinity, label types, weights), with the error naming the chunk and its
row.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from typing import Any, Protocol, runtime_checkable

import numpy as np

from linclass.core.chunk_validation import validate_chunk, validate_chunk_labels
from linclass.core.validation import check_label_type, encode_labels
from linclass.linear.class_weights import class_weights
from linclass.linear.objective_layout import LOW_PRECISION_MIN, ObjectiveLayout
from linclass.core.class_stats import ClassStats

__all__ = [
    "Chunk",
    "ChunkFittable",
    "ChunkSource",
    "ChunkedObjective",
    "class_stats",
    "combine_all",
    "fit_chunked",
    "supports_chunks",
]


class ChunkSource(Protocol):
    """Where the rows of a chunked fit come from (a Dask collection, a file read in blocks, ...).

    Attributes
    ----------
    n_features : int
    feature_names : ndarray of str or None
        The column names (``feature_names_in_`` of the fitted estimator), when the source has them.
    """

    n_features: int
    feature_names: Any

    def map_reduce(self, fn, combine, *args):
        """``combine`` (a function of two results) over ``fn(chunk, *args)`` for every
        :class:`Chunk`, skipping ``None``; None when no chunk gave a result."""


@runtime_checkable
class ChunkFittable(Protocol):
    """An estimator that fits from a chunk source: the protocol behind the registry's "chunks"
    capability, :func:`supports_chunks` and :func:`fit_chunked`.

    ``fit_source(source)`` is ``fit`` on every row of ``source`` at once, read chunk by chunk: it
    checks the estimator's parameters, forgets any earlier fit (fitted attributes and
    ``partial_fit`` state), validates each chunk where it is read and returns the fitted estimator,
    whose attributes equal those of ``fit(X, y, sample_weight)`` on the concatenated chunks (exactly
    for the models of class statistics; to the solver's tolerance for logistic regression).
    """

    def fit_source(self, source: ChunkSource) -> Any:
        """Fit on the rows of ``source``; returns the estimator."""


def supports_chunks(estimator) -> bool:
    """Whether ``estimator`` fits from a chunk source (implements :class:`ChunkFittable`: the
    statistics models and LogisticRegression)."""
    return isinstance(estimator, ChunkFittable)


def fit_chunked(estimator, source):
    """Fit ``estimator`` on a chunk source (a :class:`linclass.sources.files.FileSource`, a
    :class:`linclass.sources.dask.DaskSource`, or any :class:`ChunkSource`) by its
    :meth:`ChunkFittable.fit_source`; the result equals ``estimator.fit`` on all rows at once.
    Returns the estimator.

    Raises
    ------
    TypeError
        When the estimator does not implement :class:`ChunkFittable`.
    """
    if not supports_chunks(estimator):
        raise TypeError(f"{type(estimator).__name__} needs all rows in memory; chunked fits work for "
                        "the Gaussian models, naive Bayes, FisherDiscriminantAnalysis and "
                        "LogisticRegression.")
    return estimator.fit_source(source)


@dataclass(frozen=True)
class Chunk:
    """One piece of the data as read from its source (not yet validated).

    Attributes
    ----------
    X : array-like of shape (rows, n_features) (ndarray or pandas DataFrame)
    y : array-like of shape (rows,) or None
    sample_weight : array-like of shape (rows,), scalar or None
    index : int
        Position of the chunk in the source.
    start : int or None
        Row number (in the whole data) of the chunk's first row, when known.
    """

    X: object
    y: object = None
    sample_weight: object = None
    index: int = 0
    start: int | None = None

    def where(self) -> str:
        return f"chunk {self.index}" + (f" (rows from {self.start})" if self.start is not None else "")


def combine_all(combine, parts):
    """Fold ``parts`` with ``combine``, skipping ``None``; None when nothing is left."""
    parts = [p for p in parts if p is not None]
    return reduce(combine, parts) if parts else None


# ---------------------------------------------------------------------------------- labels
def _encode(y: np.ndarray, classes: np.ndarray, where: str) -> np.ndarray:
    if (y.dtype.kind in "iu" and classes.dtype.kind in "iu" and classes.size and y.size
            and int(classes[-1]) - int(classes[0]) == classes.size - 1):  # consecutive integers
        idx = y.astype(np.intp) - int(classes[0])
        if idx.min() >= 0 and idx.max() < classes.size:
            return idx
    idx = np.searchsorted(classes, y)
    inside = (idx < classes.size) & (classes[np.minimum(idx, classes.size - 1)] == y)
    if not np.all(inside):
        unknown = np.unique(y[~inside])
        raise ValueError(f"{where}: y contains label(s) {unknown[:5].tolist()} that are not in "
                         f"classes={classes.tolist()}.")
    return idx.astype(np.intp, copy=False)


# ---------------------------------------------------------------------------------- statistics
def _chunk_stats(chunk: Chunk, n_features, classes, kind, moments, prepare):
    X, y, w = validate_chunk(chunk, n_features)
    if X.shape[0] == 0:
        return None
    if classes is None:  # the chunk's own labels; the merge takes the union
        own, yi = encode_labels(y)
    else:
        own, yi = classes, _encode(y, classes, chunk.where())
    return ClassStats.from_batch(prepare(X), yi, own, w, kind=kind, moments=moments)


def _merge(a: ClassStats, b: ClassStats) -> ClassStats:
    check_label_type(b.classes, a.classes, seen_in="other chunks")
    return a.merge(b)


def class_stats(source, classes: np.ndarray | None = None, *, kind: str, moments: bool = False,
                prepare=None) -> ClassStats:
    """Merged :class:`~linclass.stats.ClassStats` of the whole source, in one pass.

    ``classes``: every label there may be (labels outside are an error), or None for the labels
    found (each chunk's own, united by the merge; a chunk may miss any of them).  ``prepare`` is the
    model's per-chunk input step (``StatsClassifier._prepare``: the checks and transforms of discrete
    naive Bayes); it must act row by row.
    """
    stats = source.map_reduce(_chunk_stats, _merge, source.n_features, classes, kind, moments,
                              prepare if prepare is not None else _identity)
    if stats is None:
        raise ValueError(f"Found array with 0 sample(s) (shape=(0, {source.n_features})) while a "
                         "minimum of 1 is required.")
    if classes is None:
        validate_chunk_labels(stats.classes)
    if not np.any(stats.counts > 0):
        raise ValueError("Every sample_weight is zero: at least one sample needs a positive weight.")
    return stats


def _identity(X):
    return X


def record_features(estimator, source) -> None:
    """``n_features_in_`` / ``feature_names_in_`` of a fit from ``source`` (as scikit-learn's
    ``validate_data(reset=True)`` records them for in-memory input)."""
    estimator.n_features_in_ = source.n_features
    if source.feature_names is not None:
        estimator.feature_names_in_ = source.feature_names
    elif hasattr(estimator, "feature_names_in_"):
        del estimator.feature_names_in_


def require_two_classes(estimator, stats: ClassStats) -> None:
    """The in-memory fit's "at least two classes" rule, on the reduced statistics."""
    active = stats.classes[stats.counts > 0]
    if active.size < 2:
        which = f" ({active[0]!r})" if active.size else ""
        raise ValueError(
            f"{type(estimator).__name__} needs samples of at least two classes, but y holds only one "
            f"class{which} with positive weight. A classifier cannot be trained on a single class."
        )


# ---------------------------------------------------------------------------------- logistic
def _chunk_objective(chunk: Chunk, n_features, classes, per_class, offset, fit_intercept):
    """The :class:`~linclass.objective.LinearObjective` of one chunk's rows, centred at the whole
    data's ``offset`` and weighted by the class weights; None for a chunk without rows."""
    from linclass.linear.objective import LinearObjective

    X, y, w = validate_chunk(chunk, n_features, again=True)
    if X.shape[0] == 0:
        return None
    yi = _encode(y, classes, chunk.where())
    if per_class is not None:
        w = per_class[yi] if w is None else per_class[yi] * w
    return LinearObjective(X, yi, classes.size, w, fit_intercept=fit_intercept, offset=offset)


def _chunk_terms(chunk: Chunk, n_features, classes, per_class, offset, theta, fit_intercept,
                 with_hessian, low):
    """``LinearObjective.partial_sums`` of one chunk (None when it carries no weight)."""
    part = _chunk_objective(chunk, n_features, classes, per_class, offset, fit_intercept)
    if part is None or part.total <= 0:
        return None
    return part.partial_sums(theta, with_hessian, low=low)


def _chunk_perfect(chunk: Chunk, n_features, classes, per_class, offset, theta, fit_intercept):
    """``LinearObjective.count_perfect`` of one chunk."""
    part = _chunk_objective(chunk, n_features, classes, per_class, offset, fit_intercept)
    return None if part is None else part.count_perfect(theta)


def _add_terms(a, b):
    return (a[0] + b[0], a[1] + b[1], None if a[2] is None else a[2] + b[2])


class ChunkedObjective(ObjectiveLayout):
    """:class:`~linclass.objective.LinearObjective`'s value, gradient and Hessian, computed by a
    map over the chunks of a source and a sum.

    Construction makes one pass (class statistics of kind 'full' when class weights are given, else
    'tied'): the weighted class totals, the centring offset and the Gram matrix of the Hessian bound,
    exact however the rows are chunked.  Each evaluation is then one pass that ships theta (p x m) to
    every chunk and brings back a value, a p x m gradient and, for Newton, the pm x pm curvature: the
    Hessian is formed in the same pass as the gradient at that point (Newton asks for both), so a
    Newton iteration reads the data once.

    Parameters
    ----------
    source : a chunk source (see the module docstring)
    classes : ndarray of shape (K,) or None
        None: the labels found in the source (``stats.classes`` after construction).
    class_weight : dict, 'balanced' or None
        As :class:`linclass.LogisticRegression`.
    l2 : float
    fit_intercept : bool
    with_hessian : bool
        Compute the curvature along with every gradient (for Newton's method).
    """

    def __init__(self, source, classes=None, *, class_weight=None, l2=0.0, fit_intercept=True,
                 with_hessian=False):
        kind = "tied" if class_weight is None else "full"
        stats = self.stats = class_stats(source, classes, kind=kind)
        classes = stats.classes
        self.per_class = class_weights(classes, stats.counts, class_weight)
        if self.per_class is not None:
            stats = _scale_classes(stats, self.per_class)
        if not np.sum(stats.counts > 0) or stats.total <= 0:
            raise ValueError("Every sample has zero weight after applying class_weight.")
        self.fit_stats = stats  # under the objective's weights (the Gaussian start)
        self.source, self.classes = source, classes
        self.with_hessian = with_hessian
        d = source.n_features
        mean = stats.grand_mean()
        if fit_intercept:
            offset = mean
            between = stats.means - mean
            scatter = stats.pooled_scatter() + (between.T * stats.counts) @ between
        else:
            offset = np.zeros(d)
            scatter = stats.pooled_scatter() + (stats.means.T * stats.counts) @ stats.means
        super().__init__(d, classes.size, total=stats.total, offset=offset,
                         class_weight=stats.counts, l2=l2, fit_intercept=fit_intercept)
        self._gram = self._embed_gram(scatter)
        self._cache = None  # (theta, value, gradient, hessian, low precision) of the last evaluation
        self.passes = 1
        # float32 curvature products on large data, as LinearObjective.hessian(low_precision=True)
        self.low_precision = source.n_features * float(stats.n_rows.sum()) >= LOW_PRECISION_MIN

    def _evaluate(self, theta: np.ndarray, with_hessian: bool):
        theta = np.array(theta, dtype=np.float64).reshape(self.shape)
        if self._cache is not None and np.array_equal(self._cache[0], theta) and (
                self._cache[3] is not None or not with_hessian) and (
                not with_hessian or self._cache[4] <= self.low_precision):
            return self._cache
        constant = not np.any(theta[: self.n_features])  # every row has the same probabilities
        low = self.low_precision and with_hessian and not constant
        total = self.source.map_reduce(_chunk_terms, _add_terms, self.n_features, self.classes,
                                       self.per_class, self.offset, theta, self.fit_intercept,
                                       with_hessian and not constant, low)
        self.passes += 1
        value, G, H = total
        if with_hessian and constant:
            H = np.kron(self.gram, self._curvature_weights_at_constant(theta))
        W = theta[: self.n_features]
        value = (value + 0.5 * self.l2 * float(np.sum(W * W))) / self.total
        G = G / self.total
        G[: self.n_features] += (self.l2 / self.total) * W
        if H is not None:
            H = H.copy()
            H[np.diag_indices(H.shape[0])] += self._penalty_diagonal()
            H /= self.total
        self._cache = (theta, value, G, H, low)
        return self._cache

    def value(self, theta) -> float:
        return self._evaluate(theta, self.with_hessian)[1]

    def value_gradient(self, theta):
        _, f, g, _, _ = self._evaluate(theta, self.with_hessian)
        return f, g.copy()

    def hessian(self, theta, *, low_precision: bool = False) -> np.ndarray:
        """The Hessian of :math:`f` at theta (one pass, unless computed with the gradient there).

        As :meth:`LinearObjective.hessian`, its products may be formed in float32 on large data
        (for Newton's steps; the gradient stays float64): once a caller asks for the exact Hessian
        (Newton does after a damped step, and inference always), later passes form it in float64.
        """
        if not low_precision:
            self.low_precision = False
        return self._evaluate(theta, True)[3].copy()

    def start_stats(self):
        """The class statistics of the Gaussian start: those of the first pass."""
        return self.fit_stats

    def curvature_metric(self, theta) -> np.ndarray:
        """L-BFGS's initial metric: the Hessian at theta (one pass, which also evaluates the value
        and gradient there; float32 products on large data)."""
        return self.hessian(theta, low_precision=True)

    def count_perfect(self, theta) -> int:
        theta = np.asarray(theta, dtype=np.float64).reshape(self.shape)
        self.passes += 1
        return int(self.source.map_reduce(_chunk_perfect, int.__add__, self.n_features,
                                          self.classes, self.per_class, self.offset, theta,
                                          self.fit_intercept) or 0)


def _scale_classes(stats: ClassStats, factor: np.ndarray) -> ClassStats:
    """Statistics of the same rows with every weight of class k multiplied by ``factor[k]``."""
    from dataclasses import replace

    scatter = stats.scatter * factor[:, None, None] if stats.kind == "full" else stats.scatter
    return replace(stats, counts=stats.counts * factor, scatter=scatter)
