"""The decoded blocks of a file source kept for the later passes of an iterative fit.

A chunked fit that reads the data more than once (logistic regression: one pass per iteration) would
otherwise decode its CSV or Parquet files on every pass: parse the text or decompress the pages and
convert the columns into float64 blocks, which costs far more than reading the result.  A
:class:`BlockCache` keeps the blocks as the fit's chunks see them (X as float64 C-contiguous, the
labels as read), so that every later pass reads them back unchanged: the fit's answer does not depend
on whether the cache is used.

Where the blocks go (``mode``):

``'auto'``
    During the first pass the blocks are kept in memory as long as their total stays within
    ``memory`` bytes; when the whole pass fits, every later pass reads them from memory.  When it
    does not (or ``memory`` is 0) they are dropped, and the second pass, which tells that the fit
    reads the data more than once, writes them to disk; the passes after it read the disk copy.  A
    fit that reads the data once never writes anything.
``'disk'``
    The first pass writes the blocks to disk; every later pass reads them.

On disk, each block is a ``.npy`` file (X in float64, the labels in their own dtype) in a temporary
directory of ``directory`` (default: the system's, ``$TMPDIR``), written to a temporary name and
renamed when complete, and read back memory-mapped, one block at a time, so that resident memory
stays a few blocks.  The directory is removed when the cache is closed (at the end of the fit, also
when it raises; at the latest when the interpreter exits).  A disk that is too small (checked
against the first pass's size) or a failed write leaves the fit decoding the files as before.

A pass that is not completed (its reader is closed early, or the fit raises) keeps nothing.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

__all__ = ["BlockCache", "CACHE_MEMORY", "CACHE_MODES"]

#: the default bound, in bytes, of the blocks kept in memory (mode 'auto')
CACHE_MEMORY = 64 * 2**20
#: the values of ``mode``
CACHE_MODES = ("auto", "disk")
#: free space left on the cache's disk beyond the blocks themselves
_DISK_MARGIN = 256 * 2**20


class BlockCache:
    """The decoded blocks of one fit (see the module docstring).

    Parameters
    ----------
    mode : {'auto', 'disk'}
    directory : str or path-like, default=None
        Where the temporary directory is made (None: :func:`tempfile.gettempdir`).
    memory : int, default=CACHE_MEMORY
        Bytes of blocks kept in memory in mode 'auto'.

    Attributes
    ----------
    blocks : list of (X, y, start) or None
        The cached blocks (in memory, or the paths of their files), once a pass is complete.
    where : {'memory', 'disk'} or None
        Where :attr:`blocks` are.
    path : Path or None
        The temporary directory, while it exists.
    """

    def __init__(self, mode: str = "auto", directory=None, memory: int = CACHE_MEMORY):
        if mode not in CACHE_MODES:
            raise ValueError(f"cache must be one of {CACHE_MODES} or False; got {mode!r}.")
        self.mode, self.directory, self.memory = mode, directory, int(memory)
        self.blocks, self.where, self.path = None, None, None
        self._passes = 0  # complete passes that decoded the files
        self._bytes = None  # of the blocks of the first complete pass
        self._tmp = None
        self._disabled = False  # a disk too small, or a failed write

    # ------------------------------------------------------------------ passes
    def recorder(self):
        """What keeps the blocks of the pass about to decode the files: a :class:`_Recorder`, or
        None when this pass keeps nothing."""
        if self.blocks is not None or self._disabled:
            return None
        if self.mode == "disk" or self._passes >= 1:
            if self._passes >= 1 and not self._room_for(self._bytes):
                self._disabled = True
                return None
            return _DiskRecorder(self)
        return _MemoryRecorder(self) if self.memory > 0 else _Counter(self)

    def read(self):
        """The cached blocks, in order, as ``(X, y, start)`` (read-only arrays)."""
        for X, y, start in self.blocks:
            if self.where == "disk":
                X = np.load(X, mmap_mode="r")
                y = None if y is None else np.load(y, mmap_mode="r")
            yield X, y, start

    def close(self) -> None:
        """Drop the blocks and remove the temporary directory."""
        self.blocks, self.where = None, None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp, self.path = None, None

    # ------------------------------------------------------------------ helpers
    def _directory(self) -> Path:
        if self._tmp is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="linclass-cache-", dir=self.directory)
            self.path = Path(self._tmp.name)
        return self.path

    def _room_for(self, nbytes) -> bool:
        where = self.directory if self.directory is not None else tempfile.gettempdir()
        try:
            free = shutil.disk_usage(where).free
        except OSError:
            return False
        return nbytes is None or free >= nbytes + _DISK_MARGIN

    def _done(self, blocks, where, nbytes) -> None:
        self._passes += 1
        if self._bytes is None:
            self._bytes = nbytes
        if blocks is not None:
            self.blocks, self.where = blocks, where


def _read_only(a):
    if a is None:
        return None
    view = a.view()
    view.flags.writeable = False
    return view


class _Counter:
    """A pass that keeps nothing, counted (its size tells the next pass whether the disk has
    room)."""

    def __init__(self, cache: BlockCache):
        self.cache, self.nbytes = cache, 0

    def add(self, X, y, start):
        """Take one block; returns the block as the fit is to see it (read-only when kept)."""
        self.nbytes += X.nbytes + (0 if y is None else y.nbytes)
        return X, y

    def finish(self) -> None:
        self.cache._done(None, None, self.nbytes)

    def abandon(self) -> None:
        pass


class _MemoryRecorder(_Counter):
    def __init__(self, cache: BlockCache):
        super().__init__(cache)
        self.kept = []

    def add(self, X, y, start):
        super().add(X, y, start)
        if self.kept is None:
            return X, y
        if self.nbytes > self.cache.memory:  # larger than the budget: keep nothing
            self.kept = None
            return X, y
        X, y = _read_only(X), _read_only(y)
        self.kept.append((X, y, start))
        return X, y

    def finish(self) -> None:
        self.cache._done(self.kept, "memory", self.nbytes)

    def abandon(self) -> None:
        self.kept = None


class _DiskRecorder(_Counter):
    def __init__(self, cache: BlockCache):
        super().__init__(cache)
        self.kept, self.files = [], []

    def add(self, X, y, start):
        super().add(X, y, start)
        if self.kept is None:
            return X, y
        try:
            folder = self.cache._directory()
            name = f"block-{len(self.kept):06d}"
            x_path = self._write(folder / f"{name}-X.npy", X)
            y_path = None if y is None else self._write(folder / f"{name}-y.npy", y)
        except (OSError, ValueError):  # a full disk; labels that .npy cannot hold (objects)
            self.abandon()
            self.cache._disabled = True
            return X, y
        self.kept.append((x_path, y_path, start))
        return X, y

    def _write(self, path: Path, a) -> Path:
        partial = path.with_name(path.name + ".partial")
        self.files.append(partial)
        with open(partial, "wb") as handle:
            np.save(handle, np.ascontiguousarray(a), allow_pickle=False)
        os.replace(partial, path)
        self.files[-1] = path
        return path

    def finish(self) -> None:
        self.cache._done(self.kept, "disk", self.nbytes)

    def abandon(self) -> None:
        self.kept = None
        for path in self.files:
            try:
                os.remove(path)
            except OSError:
                pass
        self.files = []
