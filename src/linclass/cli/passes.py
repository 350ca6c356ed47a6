"""What the command shows of a long chunked fit or prediction: the passes over the data it makes
(counted, and with ``--verbose`` one line each on stderr) and, when stderr is a terminal and tqdm is
installed, a progress bar over the chunks of each pass."""

from __future__ import annotations

import sys
import time

from linclass.core.chunks import combine_all
from linclass.core.progress import progress

__all__ = ["CountedSource", "say"]


def say(text: str) -> None:
    """One line of ``--verbose`` progress on stderr."""
    print(f"linclass: {text}", file=sys.stderr, flush=True)


class CountedSource:
    """A chunk source (:class:`linclass.sources.files.FileSource`) whose complete passes over the
    data are counted in :attr:`passes`; ``verbose`` says each on stderr as it ends (rows, chunks,
    seconds), and a progress bar shows the chunks of a pass on a terminal.  :attr:`rows` is the
    number of rows of a complete pass."""

    def __init__(self, source, *, verbose: bool = False, bar: bool = True):
        self.source, self.verbose, self.bar = source, verbose, bar
        self.n_features, self.feature_names = source.n_features, source.feature_names
        self.passes = 0
        self.rows = None  # of a complete pass
        self._chunks_per_pass = None

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
            say(f"pass {self.passes} over the data: {rows} rows in {count} chunks, "
                f"{time.perf_counter() - start:.3g} s")

    def map_reduce(self, fn, combine, *args):
        """``combine`` over ``fn(chunk, *args)`` for every chunk of one pass."""
        total = None
        for chunk in self.chunks():
            total = combine_all(combine, [total, fn(chunk, *args)])
        return total
