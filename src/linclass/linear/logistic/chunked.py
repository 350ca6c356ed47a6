"""The logistic / softmax objective of a chunked design (a Dask collection, a file read in blocks):
:class:`ChunkedObjective` computes :class:`~linclass.linear.logistic.objective.LinearObjective`'s
value, gradient and Hessian by a map over the chunks of a :class:`~linclass.core.chunks.ChunkSource`
and a sum, so every smooth solver runs on it unchanged, one pass per iteration.
"""

from __future__ import annotations

import numpy as np

from linclass.core.chunk_validation import validate_chunk
from linclass.core.chunks import Chunk, encode_chunk_labels
from linclass.core.validation import LOW
from linclass.generative.class_stats import ClassStats
from linclass.linear.logistic.class_weights import class_weights
from linclass.linear.logistic.layout import LOW_PRECISION_MIN, ObjectiveLayout

__all__ = ["ChunkedObjective", "chunk_objective"]


def chunk_objective(chunk: Chunk, n_features, classes, per_class, offset, fit_intercept):
    """The :class:`~linclass.linear.logistic.objective.LinearObjective` of one chunk's rows, centred at the whole
    data's ``offset`` and weighted by the class weights; None for a chunk without rows."""
    from linclass.linear.logistic.objective import LinearObjective

    X, y, w = validate_chunk(chunk, n_features, again=True)
    if X.shape[0] == 0:
        return None
    yi = encode_chunk_labels(y, classes, chunk.where())
    if per_class is not None:
        w = per_class[yi] if w is None else per_class[yi] * w
    return LinearObjective(X, yi, classes.size, w, fit_intercept=fit_intercept, offset=offset)


def _chunk_terms(chunk: Chunk, n_features, classes, per_class, offset, theta, fit_intercept,
                 curvature):
    """``LinearObjective.partial_sums`` of one chunk (None when it carries no weight); the
    curvature with products of the dtype ``curvature`` (None: without)."""
    part = chunk_objective(chunk, n_features, classes, per_class, offset, fit_intercept)
    if part is None or part.total <= 0:
        return None
    return part.partial_sums(theta, curvature)


def _chunk_perfect(chunk: Chunk, n_features, classes, per_class, offset, theta, fit_intercept):
    """``LinearObjective.count_perfect`` of one chunk."""
    part = chunk_objective(chunk, n_features, classes, per_class, offset, fit_intercept)
    return None if part is None else part.count_perfect(theta)


def _add_terms(a, b):
    return (a[0] + b[0], a[1] + b[1], None if a[2] is None else a[2] + b[2])


class ChunkedObjective(ObjectiveLayout):
    """:class:`~linclass.linear.logistic.objective.LinearObjective`'s value, gradient and Hessian, computed by a
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
        stats = self.stats = ClassStats.from_source(source, classes, kind=kind,
                                                    squares="LogisticRegression")
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
        self._cache = None  # (theta, value, gradient, hessian, its products' dtype), last evaluated
        self.passes = 1
        #: the dtype of the curvature's products in a Newton step, as
        #: :attr:`LinearObjective.step_products`: float32 on large data, until the exact Hessian
        #: is asked for (:meth:`hessian`)
        large = source.n_features * float(stats.n_rows.sum()) >= LOW_PRECISION_MIN
        self.step_products = LOW if large else np.dtype(np.float64)

    def _evaluate(self, theta: np.ndarray, with_hessian: bool):
        theta = np.array(theta, dtype=np.float64).reshape(self.shape)
        if self._cache is not None and np.array_equal(self._cache[0], theta) and (
                self._cache[3] is not None or not with_hessian) and (
                not with_hessian or self._cache[4].itemsize >= self.step_products.itemsize):
            return self._cache
        constant = not np.any(theta[: self.n_features])  # every row has the same probabilities
        curvature = self.step_products if with_hessian and not constant else None
        total = self.source.map_reduce(_chunk_terms, _add_terms, self.n_features, self.classes,
                                       self.per_class, self.offset, theta, self.fit_intercept,
                                       curvature)
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
        self._cache = (theta, value, G, H, np.dtype(np.float64) if curvature is None else curvature)
        return self._cache

    def value(self, theta) -> float:
        return self._evaluate(theta, self.with_hessian)[1]

    def value_gradient(self, theta):
        _, f, g, _, _ = self._evaluate(theta, self.with_hessian)
        return f, g.copy()

    def hessian(self, theta) -> np.ndarray:
        """The exact Hessian of :math:`f` at theta (one pass, unless computed with the gradient
        there).  Once a caller asks for it (Newton does after a damped step, and inference always),
        later passes form every curvature with float64 products."""
        self.step_products = np.dtype(np.float64)
        return self._evaluate(theta, True)[3].copy()

    def step_hessian(self, theta) -> np.ndarray:
        """The curvature of a Newton step at theta: as :meth:`LinearObjective.step_hessian`, its
        products are :attr:`step_products` (float32 on large data; the gradient stays float64)."""
        return self._evaluate(theta, True)[3].copy()

    def start_stats(self):
        """The class statistics of the Gaussian start: those of the first pass."""
        return self.fit_stats

    def curvature_metric(self, theta) -> np.ndarray:
        """L-BFGS's initial metric: the Hessian at theta (one pass, which also evaluates the value
        and gradient there; float32 products on large data)."""
        return self.step_hessian(theta)

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
