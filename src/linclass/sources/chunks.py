"""Estimators that fit from data arriving in chunks (Dask collections, files read piece by piece):
the :class:`ChunkFittable` protocol behind the registry's "chunks" capability, :func:`fit_chunked`,
and what such a fit records.  The chunk protocol itself is :mod:`linclass.core.chunks`; the sources
are :class:`linclass.sources.dask.DaskSource` and :class:`linclass.sources.files.FileSource`.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from linclass.core.chunks import ChunkSource

if TYPE_CHECKING:
    from typing import TypeVar

    from sklearn.base import BaseEstimator

    _Estimator = TypeVar("_Estimator")

__all__ = ["ChunkFittable", "caching", "chunks_refusal", "fit_chunked", "record_features",
           "supports_chunks"]


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


def supports_chunks(estimator: BaseEstimator) -> bool:
    """Whether ``estimator``, with its settings, fits from a chunk source: it implements
    :class:`ChunkFittable` (the statistics models, LogisticRegression, OrderedLogisticRegression
    and KernelFisherDiscriminantAnalysis) and its settings allow it (:func:`chunks_refusal`).

    See Also
    --------
    linclass.chunks.fit_chunked : Fits from a chunk source.
    linclass.registry.entries : The estimators with the ``chunks`` capability.

    Examples
    --------
    >>> import linclass
    >>> from linclass.chunks import supports_chunks
    >>> supports_chunks(linclass.LinearDiscriminantAnalysis())
    True
    >>> supports_chunks(linclass.Perceptron())
    False
    """
    return isinstance(estimator, ChunkFittable) and chunks_refusal(estimator) is None


def chunks_refusal(estimator) -> str | None:
    """Why ``estimator``'s settings need every row in memory, for an estimator that fits from chunks
    with other settings (its ``_chunks_refusal()``: KernelFisherDiscriminantAnalysis fits chunks
    with approximation='nystroem' only); None when they do not, or when it has no such method."""
    refusal = getattr(estimator, "_chunks_refusal", None)
    return refusal() if callable(refusal) else None


def fit_chunked(estimator: _Estimator, source: ChunkSource) -> _Estimator:
    """Fit ``estimator`` on a chunk source (a :class:`linclass.sources.files.FileSource`, a
    :class:`linclass.sources.dask.DaskSource`, or any :class:`ChunkSource`) by its
    :meth:`ChunkFittable.fit_source`; the result equals ``estimator.fit`` on all rows at once.

    Parameters
    ----------
    estimator : estimator with ``fit_source``
        A :class:`ChunkFittable` estimator (the registry's ``chunks`` capability).
    source : ChunkSource
        Where the rows come from.

    Returns
    -------
    estimator
        The estimator, fitted.  A file source's decoded blocks are kept for the later passes of
        an iterative fit and dropped when it returns or raises (:func:`caching`); an estimator
        whose fit reads the data once (``_reads_once``: the models of class statistics) keeps
        none.

    Raises
    ------
    TypeError
        When the estimator does not implement :class:`ChunkFittable`, or its settings need every
        row in memory (:func:`chunks_refusal`).

    See Also
    --------
    linclass.chunks.supports_chunks : Whether an estimator can fit from chunks.
    linclass.datasets.FileSource : A CSV or Parquet file as a chunk source.
    sklearn.naive_bayes.GaussianNB.partial_fit : scikit-learn's out-of-core fits loop over
        ``partial_fit``; Dask-ML's wrappers do the same over Dask collections.

    Examples
    --------
    A source of one's own, the rows in three blocks, gives the fit on all rows at once:

    >>> from functools import reduce
    >>> import numpy as np, linclass
    >>> from linclass.chunks import Chunk, fit_chunked
    >>> X, y, *_ = linclass.datasets.load_dataset('iris')
    >>> class Blocks:
    ...     n_features, feature_names = 4, None
    ...     def map_reduce(self, fn, combine, *args):
    ...         parts = [fn(Chunk(X[i:i + 50], y[i:i + 50], index=i // 50, start=i), *args)
    ...                  for i in (0, 50, 100)]
    ...         return reduce(combine, [part for part in parts if part is not None])
    >>> model = fit_chunked(linclass.LogisticRegression(), Blocks())
    >>> model.classes_, model.coef_.shape
    (array([0, 1, 2]), (3, 4))
    >>> np.allclose(model.coef_, linclass.LogisticRegression().fit(X, y).coef_)
    True
    """
    if not isinstance(estimator, ChunkFittable):
        raise TypeError(f"{type(estimator).__name__} needs all rows in memory; chunked fits work for "
                        "the Gaussian models, naive Bayes, FisherDiscriminantAnalysis, "
                        "LogisticRegression, OrderedLogisticRegression and "
                        "KernelFisherDiscriminantAnalysis(approximation='nystroem').")
    refusal = chunks_refusal(estimator)
    if refusal is not None:
        raise TypeError(refusal)
    if getattr(estimator, "_reads_once", False):  # one pass: nothing would read a cache
        return estimator.fit_source(source)
    with caching(source):
        return estimator.fit_source(source)


def caching(source):
    """The source's cache of decoded blocks for the passes of one fit (its ``caching()``: a
    :class:`linclass.sources.files.FileSource` keeps the blocks of an iterative fit, see
    :mod:`linclass.sources.block_cache`), as a context manager; nothing for a source without one."""
    scope = getattr(source, "caching", None)
    return scope() if callable(scope) else contextlib.nullcontext(source)


def record_features(estimator, source) -> None:
    """``n_features_in_`` / ``feature_names_in_`` of a fit from ``source`` (as scikit-learn's
    ``validate_data(reset=True)`` records them for in-memory input)."""
    estimator.n_features_in_ = source.n_features
    if source.feature_names is not None:
        estimator.feature_names_in_ = source.feature_names
    elif hasattr(estimator, "feature_names_in_"):
        del estimator.feature_names_in_
