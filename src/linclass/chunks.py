"""Fits from data that arrives in chunks (files read a block of rows at a time, or any source of
your own), so that memory stays bounded whatever the data's size.

:func:`fit_chunked` fits an estimator from a chunk source; the result equals ``fit`` on all rows at
once.  :func:`supports_chunks` says whether an estimator, with its settings, can (the protocol it
implements is :class:`ChunkFittable`, the registry's "chunks" capability).  A source is any object of
the :class:`ChunkSource` protocol: it hands each :class:`Chunk` of (X, y, sample_weight) to a function
and combines the results.  :class:`linclass.datasets.FileSource` is the one for CSV and Parquet
files; Dask collections are passed to ``fit`` itself.

The code lives in :mod:`linclass.sources.chunks` and :mod:`linclass.core.chunks` and is imported on
first use (module ``__getattr__``), so importing this module costs no SciPy or scikit-learn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from linclass.core.lazy import lazy_getattr

if TYPE_CHECKING:  # what type checkers see: the names the module __getattr__ imports on first use
    from linclass.core.chunks import Chunk, ChunkSource
    from linclass.sources.chunks import ChunkFittable, fit_chunked, supports_chunks

__all__ = ["Chunk", "ChunkFittable", "ChunkSource", "fit_chunked", "supports_chunks"]

#: each name -> its module, imported on first use
_HOME = {
    "Chunk": "core.chunks", "ChunkSource": "core.chunks",
    "ChunkFittable": "sources.chunks", "fit_chunked": "sources.chunks",
    "supports_chunks": "sources.chunks",
}

if not TYPE_CHECKING:  # type checkers read the imports above instead
    __getattr__ = lazy_getattr(__name__, _HOME, globals(), base="linclass")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
