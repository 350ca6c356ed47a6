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
        The target's directory does not exist.
    IsADirectoryError, NotADirectoryError
        The target is a directory, or its "directory" is a file.
    OSError
        Anything else the system refuses (no permission, a full or read-only disk): the message
        names the target and the reason, never the temporary file.
    """
    path = Path(os.fspath(path))
    directory = path.parent
    if path.is_dir():
        raise IsADirectoryError(f"cannot write {str(path)!r}: it is a directory; give a file name")
    if not directory.exists():
        raise FileNotFoundError(f"cannot write {str(path)!r}: directory {str(directory)!r} does not exist")
    if not directory.is_dir():
        raise NotADirectoryError(f"cannot write {str(path)!r}: {str(directory)!r} is a file, not a "
                                 "directory")
    for _ in range(100):
        tmp = directory / f".{path.name}.{os.urandom(6).hex()}.tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        except FileExistsError:
            continue
        except OSError as exc:
            raise _naming(exc, path) from None
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
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError) and exc.filename is not None and str(tmp) in (
                str(exc.filename), str(exc.filename2)):
            raise _naming(exc, path) from None
        raise
    _sync_directory(directory)
    return path


def _naming(exc: OSError, path: Path) -> OSError:
    """``exc`` retold about the target ``path`` (the system names the temporary file)."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    told = type(exc)(f"cannot write {str(path)!r}: {reason[:1].lower()}{reason[1:]}")
    told.errno = exc.errno
    return told


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
