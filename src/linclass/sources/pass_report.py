"""The passes over the data a chunked fit makes, counted and reported: the command's ``--verbose``
(:mod:`linclass.cli.passes`) and an estimator's ``verbose=`` on a Dask collection or a file source
say each pass on stderr as it ends, and on a terminal a tqdm progress bar follows the chunks of a
pass of a file source (:func:`linclass.core.progress.progress`)."""

from __future__ import annotations

import sys
import time

from linclass.core.chunks import combine_all
from linclass.core.progress import progress

__all__ = ["PassReport", "say"]


def say(text: str, who: str = "linclass") -> None:
    """One line of progress on stderr, ``who: text``, written whole in one call: ``print`` writes
    the text and its newline separately, and a Ctrl-C between the two left the next line (the
    command's ``linclass: interrupted``) at the end of this one."""
    sys.stderr.write(f"{who}: {text}\n")
    sys.stderr.flush()


class PassReport:
    """A chunk source whose complete passes over the data are counted in :attr:`passes`.

    ``verbose`` says each pass on stderr as it ends, as ``who: pass 3 over the data: ...``: for a
    source that hands out its chunks (a :class:`~linclass.sources.files.FileSource`) the rows,
    the chunks, how the pass read them (decoded from the files, or from the cache of decoded
    blocks) and the seconds; for one that computes its passes itself (a
    :class:`~linclass.sources.dask.DaskSource`) the partitions and the seconds.  ``bar``: a
    progress bar over the chunks of a pass when stderr is a terminal.  :attr:`rows` is the number
    of rows of a complete pass (when the source hands out its chunks).  Every other attribute is
    the source's own.
    """

    def __init__(self, source, *, verbose: bool = False, bar: bool = True, who: str = "linclass"):
        self.source, self.verbose, self.bar, self.who = source, verbose, bar, who
        self.n_features, self.feature_names = source.n_features, source.feature_names
        self.passes = 0
        self.rows = None  # of a complete pass
        self._chunks_per_pass = None

    def __getattr__(self, name):  # the source's other attributes (target, map_rows, ...)
        if name == "source":
            raise AttributeError(name)
        return getattr(self.source, name)

    def chunks(self):
        """The chunks of one pass; the pass is counted when the last chunk has been read."""
        start, rows, count = time.perf_counter(), 0, 0
        pieces = self.source.chunks()
        if self.bar and sys.stderr.isatty():
            pieces = progress(pieces, desc=f"pass {self.passes + 1}", total=self._chunks_per_pass)
        for chunk in pieces:
            rows += chunk.X.shape[0]
            count += 1
            yield chunk
        self.passes += 1
        self.rows, self._chunks_per_pass = rows, count
        if self.verbose:
            how = getattr(self.source, "last_pass", None)
            say(f"pass {self.passes} over the data: {rows} rows in {count} chunks"
                f"{'' if how is None else f' ({how})'}, {time.perf_counter() - start:.3g} s",
                self.who)

    def map_reduce(self, fn, combine, *args):
        """``combine`` over ``fn(chunk, *args)`` for every chunk of one pass."""
        if not hasattr(self.source, "chunks"):  # the source computes its passes (Dask)
            start = time.perf_counter()
            total = self.source.map_reduce(fn, combine, *args)
            self.passes += 1
            if self.verbose:
                blocks = len(getattr(self.source, "_blocks", ()))
                say(f"pass {self.passes} over the data: {blocks} partitions, "
                    f"{time.perf_counter() - start:.3g} s", self.who)
            return total
        total = None
        for chunk in self.chunks():
            total = combine_all(combine, [total, fn(chunk, *args)])
        return total

    def caching(self):
        """The source's cache of decoded blocks (:func:`linclass.sources.chunks.caching`)."""
        from linclass.sources.chunks import caching

        return caching(self.source)
