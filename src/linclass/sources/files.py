"""Files as chunk sources: a CSV or Parquet file read a block of rows at a time, so that a fit's
peak memory is a few blocks whatever the file's size (:func:`linclass.sources.chunks.fit_chunked`)."""

from __future__ import annotations

import bisect
import contextlib
import os
from collections.abc import Iterator, Sequence

import numpy as np

from linclass.core.chunks import Chunk, combine_all
from linclass.sources.block_cache import CACHE_MEMORY, CACHE_MODES, BlockCache
from linclass.sources.file_sets import data_files, describe_files
from linclass.sources.tables import DataError, read_chunks

__all__ = ["FileSource"]


class FileSource:
    """A CSV or Parquet file (or several, read as one table) read ``chunksize`` rows at a time: a
    chunk source for :mod:`linclass.core.chunks`, so that a fit's peak memory is a few chunks
    whatever the file's size.

    Within a fit (:func:`linclass.sources.chunks.fit_chunked`, or ``with source.caching():``) the
    blocks decoded by one pass are kept for the later passes of an iterative fit (logistic
    regression: one pass per iteration), in memory when they are small and memory-mapped on local
    disk otherwise (:mod:`linclass.sources.block_cache`); the cache is removed when the fit ends.
    Outside a fit, and with ``cache=False``, every pass rereads the files.  The warning that an
    unnamed first CSV column is read as a row index is given once, when the source is made.

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
    cache : {'auto', 'disk'} or False, default='auto'
        'auto': the first pass's blocks stay in memory when they total at most ``cache_memory``
        bytes; otherwise the second pass (a fit that reads the data more than once) writes them to
        disk and the later passes read them there.  'disk': the first pass writes them to disk.
        False: no cache.
    cache_dir : str or path-like, default=None
        Where the cache's temporary directory is made; None: the system's temporary directory
        (``$TMPDIR``, see :func:`tempfile.gettempdir`).
    cache_memory : int, default=64 MiB
        The most bytes of decoded blocks kept in memory (``cache='auto'``); 0: always on disk.

    Attributes
    ----------
    last_pass : str or None
        How the last complete pass read the data: ``'decoded'``, ``'decoded, cached in memory'``,
        ``'decoded, cached on disk'`` or ``'from the cache in memory'`` / ``'from the cache on
        disk'``.

    See Also
    --------
    linclass.chunks.fit_chunked : Fits an estimator on a chunk source.
    linclass.datasets.read_chunks : The chunks of one pass, as arrays.
    dask.dataframe.read_csv : Dask collections are chunk sources too.

    Examples
    --------
    Iris in three CSV files, read as one table through a glob pattern:

    >>> import tempfile, pathlib
    >>> import numpy as np, linclass
    >>> from linclass.datasets import FileSource
    >>> X, y, *_ = linclass.datasets.load_dataset('iris')
    >>> folder = tempfile.TemporaryDirectory()
    >>> for part, rows in enumerate(np.array_split(np.column_stack([X, y]), 3)):
    ...     np.savetxt(pathlib.Path(folder.name) / f'part{part}.csv', rows, delimiter=',',
    ...                header='sepal_length,sepal_width,petal_length,petal_width,species',
    ...                comments='', fmt='%g')
    >>> source = FileSource(f'{folder.name}/part*.csv', 'species', chunksize=50)
    >>> model = linclass.chunks.fit_chunked(linclass.LinearDiscriminantAnalysis(), source)
    >>> model.classes_
    array([0, 1, 2])
    >>> model.feature_names_in_[:2]
    array(['sepal_length', 'sepal_width'], dtype=object)
    >>> model.means_.shape
    (3, 4)
    >>> folder.cleanup()
    """

    def __init__(self, path, target: str, chunksize: int, *, features: Sequence[str] | None = None,
                 cache: str | bool = "auto", cache_dir=None, cache_memory: int = CACHE_MEMORY):
        if cache is not False and cache not in CACHE_MODES:
            raise ValueError(f"cache must be one of {CACHE_MODES} or False; got {cache!r}.")
        if isinstance(cache_memory, bool) or not isinstance(cache_memory, (int, np.integer)) \
                or cache_memory < 0:
            raise ValueError(f"cache_memory must be a number of bytes >= 0; got {cache_memory!r}.")
        if cache_dir is not None and not os.path.isdir(cache_dir):
            raise ValueError(f"cache_dir {os.fspath(cache_dir)!r} is not a directory: the cache of "
                             "decoded blocks is made in an existing directory.")
        self.files = data_files(path)
        self.path = self.files[0] if len(self.files) == 1 and not isinstance(path, (list, tuple)) \
            else self.files
        self.target, self.chunksize = target, chunksize
        self.features = None if features is None else list(features)
        self.cache, self.cache_dir, self.cache_memory = cache, cache_dir, int(cache_memory)
        self.last_pass = None
        self._cache, self._scopes = None, 0
        self._origins = []  # (row in the whole table, file, row in that file) of each block read
        for X, _, names in read_chunks(self.files, target, chunksize, features=features):
            break  # the first chunk gives the columns
        else:
            raise DataError(f"{describe_files(path)!r} holds no rows.")
        self.n_features = X.shape[1]
        self.feature_names = np.asarray(names, dtype=object)

    @contextlib.contextmanager
    def caching(self):
        """Keep the decoded blocks for the passes made within the ``with`` block (see ``cache``);
        they are dropped, and the cache's directory removed, when it ends, also when it raises.
        Nested blocks share the outer block's cache."""
        if self.cache is False or self._scopes:
            self._scopes += 1
            try:
                yield self
            finally:
                self._scopes -= 1
            return
        self._cache, self._scopes = BlockCache(self.cache, self.cache_dir, self.cache_memory), 1
        try:
            yield self
        finally:
            cache, self._cache, self._scopes = self._cache, None, 0
            cache.close()

    def chunks(self) -> Iterator:
        """The :class:`linclass.core.chunks.Chunk` pieces of the file, in order."""
        cache = self._cache
        if cache is not None and cache.blocks is not None:
            where = cache.where
            for i, (X, y, start) in enumerate(cache.read()):
                yield self._chunk(X, y, i, start)
            self.last_pass = f"from the cache {'in memory' if where == 'memory' else 'on disk'}"
            return
        recorder = None if cache is None else cache.recorder()
        start = 0
        blocks = read_chunks(self.files, self.target, self.chunksize, features=self.features,
                             warn_index=False, located=True)  # said once, by __init__
        try:
            for i, (X, y, _, (file, row)) in enumerate(blocks):
                if not self._origins or self._origins[-1][0] < start:
                    self._origins.append((start, file, row))
                if recorder is not None:
                    X, y = recorder.add(X, y, start)
                yield self._chunk(X, y, i, start)
                start += X.shape[0]
        except BaseException:  # an error, or the reader closed early: keep nothing of this pass
            if recorder is not None:
                recorder.abandon()
            raise
        if recorder is not None:
            recorder.finish()
        kept = cache is not None and cache.blocks is not None
        self.last_pass = "decoded" + (f", cached {'in memory' if cache.where == 'memory' else 'on disk'}"
                                      if kept else "")

    def _chunk(self, X, y, index: int, start: int) -> Chunk:
        """The chunk of the block whose first row is row ``start`` of the table, with the file it
        comes from and its row there (for the messages of :mod:`linclass.core.chunk_validation`)."""
        at = bisect.bisect_right(self._origins, start, key=lambda o: o[0]) - 1
        if at < 0:
            return Chunk(X, y, None, index, start, columns=self.feature_names)
        first, file, row = self._origins[at]
        return Chunk(X, y, None, index, start, origin=file, origin_start=row + start - first,
                     columns=self.feature_names)

    def map_reduce(self, fn, combine, *args):
        """``combine`` over ``fn(chunk, *args)`` for every chunk, read one at a time."""
        total = None
        for chunk in self.chunks():
            total = combine_all(combine, [total, fn(chunk, *args)])
        return total
