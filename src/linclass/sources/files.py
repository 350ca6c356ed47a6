"""Files as chunk sources: a CSV or Parquet file read a block of rows at a time, so that a fit's
peak memory is a few blocks whatever the file's size (:func:`linclass.sources.chunks.fit_chunked`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
import numpy as np

from linclass.core.chunks import Chunk, combine_all
from linclass.sources.file_sets import data_files, describe_files
from linclass.sources.tables import DataError, read_chunks

__all__ = ["FileSource"]


class FileSource:
    """A CSV or Parquet file (or several, read as one table) read ``chunksize`` rows at a time: a
    chunk source for
    :mod:`linclass.core.chunks`, so that a fit's peak memory is a few chunks whatever the file's size.

    Every pass (labels, class statistics, each logistic iteration) rereads the files; the warning
    that an unnamed first CSV column is read as a row index is given once, when the source is made.

    Parameters
    ----------
    path : str, path-like, or a list of them
        A file, a directory of files, a glob pattern (``'parts/*.parquet'``) or a list of these:
        several files are read in turn as one table (see :mod:`linclass.sources.file_sets`); the
        pattern and the directory are read once, when the source is made.
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
        self.files = data_files(path)
        self.path = self.files[0] if len(self.files) == 1 and not isinstance(path, (list, tuple)) \
            else self.files
        self.target, self.chunksize = target, chunksize
        self.features = None if features is None else list(features)
        for X, _, names in read_chunks(self.files, target, chunksize, features=features):
            break  # the first chunk gives the columns
        else:
            raise DataError(f"{describe_files(path)!r} holds no rows.")
        self.n_features = X.shape[1]
        self.feature_names = np.asarray(names, dtype=object)

    def chunks(self) -> Iterator:
        """The :class:`linclass.core.chunks.Chunk` pieces of the file, in order."""
        start = 0
        blocks = read_chunks(self.files, self.target, self.chunksize, features=self.features,
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
