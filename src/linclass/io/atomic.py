"""The one way linclass writes a file: completely or not at all.

The content goes to a temporary file in the target's directory, is flushed and ``fsync``-ed, and
then replaces the target with :func:`os.replace` (atomic on POSIX and Windows); the directory is
``fsync``-ed too, so the rename survives a crash.  A failure at any point removes the temporary file
and leaves an existing target untouched.  Model files, figures and the command's CSV output all
go through :func:`atomic_write`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

__all__ = ["atomic_write"]


def atomic_write(path, write: Callable, *, text: bool = False, encoding: str = "utf-8") -> Path:
    """Write ``path`` atomically; ``write(handle)`` fills the file.

    Parameters
    ----------
    path : str or path-like
    write : callable
        Called once with an open file handle (binary, or text with ``newline=""`` when ``text``).
    text : bool, default=False
    encoding : str, default='utf-8'
        For text files.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    FileNotFoundError
        The target's directory does not exist (the message names the directory, never the
        temporary file).
    """
    path = Path(os.fspath(path))
    directory = path.parent
    if not directory.is_dir():
        raise FileNotFoundError(f"cannot write {str(path)!r}: directory {str(directory)!r} does not exist")
    for _ in range(100):
        tmp = directory / f".{path.name}.{os.urandom(6).hex()}.tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        except FileExistsError:
            continue
        break
    else:  # pragma: no cover - 100 collisions of 48 random bits
        raise FileExistsError(f"could not create a temporary file next to {path}")
    try:
        mode = {"mode": "w", "encoding": encoding, "newline": ""} if text else {"mode": "wb"}
        with os.fdopen(fd, **mode) as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _sync_directory(directory)
    return path


def _sync_directory(directory: Path) -> None:
    """Make the rename itself durable (POSIX; not possible on every platform)."""
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)
