"""Files as chunk sources: a CSV or Parquet file read a block of rows at a time, so that a fit's
peak memory is a few blocks whatever the file's size (:func:`linclass.sources.chunks.fit_chunked`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from linclass.core.chunks import Chunk, combine_all
from linclass.sources.tables import DataError, read_chunks

__all__ = ["FileSource"]


class FileSource:
    """A CSV or Parquet file read ``chunksize`` rows at a time: a chunk source for
    :mod:`linclass.core.chunks`, so that a fit's peak memory is a few chunks whatever the file's size.

    Every pass (labels, class statistics, each logistic iteration) rereads the file; the warning
    that an unnamed first CSV column is read as a row index is given once, when the source is made.

    Parameters
    ----------
    path : str or path-like
    target : str
        The label column.
    chunksize : int
        Rows per chunk.
    features : sequence of str, default=None
        As :func:`linclass.sources.tables.read_table`.

    Examples
    --------
    >>> from linclass.sources.chunks import fit_chunked             # doctest: +SKIP
    >>> fit_chunked(LinearDiscriminantAnalysis(), FileSource("big.parquet", "label", 100_000))
    """

    def __init__(self, path, target: str, chunksize: int, *, features: Sequence[str] | None = None):
        self.path, self.target, self.chunksize = Path(path), target, chunksize
        self.features = None if features is None else list(features)
        for X, _, names in read_chunks(self.path, target, chunksize, features=features):
            break  # the first chunk gives the columns
        else:
            raise DataError(f"{str(path)!r} holds no rows.")
        self.n_features = X.shape[1]
        self.feature_names = np.asarray(names, dtype=object)

    def chunks(self) -> Iterator:
        """The :class:`linclass.core.chunks.Chunk` pieces of the file, in order."""
        start = 0
        blocks = read_chunks(self.path, self.target, self.chunksize, features=self.features,
                             warn_index=False)  # said once, by __init__
        for i, (X, y, _) in enumerate(blocks):
            yield Chunk(X, y, None, i, start)
            start += X.shape[0]

    def map_reduce(self, fn, combine, *args):
        """``combine`` over ``fn(chunk, *args)`` for every chunk, read one at a time."""
        total = None
        for chunk in self.chunks():
            total = combine_all(combine, [total, fn(chunk, *args)])
        return total
