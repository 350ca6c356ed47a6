"""Errors of reading a Dask collection's partitions, named: a chunked fit on a Dask collection whose
files cannot be read (a damaged Parquet page: pyarrow's ``Corrupt snappy compressed data.`` or
``Deserializing page header failed.``; a truncated file) fails in the task that reads the
partition, and Dask passes the reader's error on without saying which partition or file it was.

:func:`read_error_named` finds the partition by computing the partitions one at a time (on the
error's path only: the first that fails with the same kind of error is the one), and the files it
reads from its task graph (the paths in the arguments of its tasks), and returns a
:class:`~linclass.exceptions.DataError` that names both.
"""

from __future__ import annotations

import os

from linclass.exceptions import DataError

__all__ = ["is_read_error", "read_error_named"]

#: how many paths a message names at most
_MAX_NAMED = 3


def is_read_error(exc: BaseException) -> bool:
    """Whether ``exc`` is a reader's error (an OSError or EOFError, pyarrow's and fastparquet's own
    errors), not an error of linclass's checks of the rows (a ValueError naming the chunk)."""
    if isinstance(exc, DataError):
        return False
    module = type(exc).__module__.split(".")[0]
    return isinstance(exc, (OSError, EOFError)) or module in ("pyarrow", "fastparquet")


def read_error_named(blocks, exc: BaseException) -> BaseException:
    """A DataError naming the partition of ``blocks`` (a :class:`~linclass.sources.dask.DaskSource`'s
    ``(X, y, weights, ...)`` delayed pieces per partition) whose reading raises ``exc``'s kind of
    error, and its files; ``exc`` itself when no partition raises it alone."""
    import dask

    message = " ".join(str(exc).split()) or type(exc).__name__
    for i, block in enumerate(blocks):
        pieces = [p for p in block[:3] if hasattr(p, "__dask_graph__")]
        try:
            dask.compute(*pieces)
        except Exception as again:  # noqa: BLE001 - compared with exc below
            if type(again) is not type(exc):
                continue
            files = sorted({f for p in pieces for f in _paths(p)})
            named = ", ".join(repr(f) for f in files[:_MAX_NAMED])
            if len(files) > _MAX_NAMED:
                named += f" and {len(files) - _MAX_NAMED} more"
            where = f" (reading {named})" if files else ""
            return DataError(f"partition {i} of {len(blocks)} of the Dask collection{where} cannot "
                             f"be read: {message}")
    return exc


def _paths(piece) -> list[str]:
    """The paths of existing files among the arguments of the tasks ``piece`` depends on."""
    graph = dict(piece.__dask_graph__())
    seen, stack, found = set(), [piece.key], []
    while stack:
        key = stack.pop()
        if key in seen or key not in graph:
            continue
        seen.add(key)
        task = graph[key]
        stack.extend(getattr(task, "dependencies", ()) or ())
        for value in (getattr(task, "args", ()), getattr(task, "kwargs", {})):
            found.extend(_strings(value, depth=0))
    return [text for text in dict.fromkeys(found) if _is_file(text)]


def _strings(value, depth: int) -> list[str]:
    """The strings (and ``path`` attributes, as pyarrow's fragments have) within ``value``."""
    if depth > 6:
        return []
    if isinstance(value, (str, os.PathLike)):
        return [os.fspath(value)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v, depth + 1)]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [s for v in value for s in _strings(v, depth + 1)]
    path = getattr(value, "path", None)
    if isinstance(path, str):
        return [path]
    inner = getattr(value, "args", None)  # a nested task
    return _strings(inner, depth + 1) if isinstance(inner, tuple) else []


def _is_file(text: str) -> bool:
    if "://" in text:
        return text.split("://", 1)[0] not in ("", "file") or os.path.isfile(text.split("://", 1)[1])
    try:
        return len(text) < 4096 and os.path.isfile(text)
    except (OSError, ValueError):
        return False
