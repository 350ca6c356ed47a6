"""Which files a data argument names: one file, several files, a directory of files or a glob, read
in turn as one table by :mod:`linclass.sources.tables` (a dataset written as parts, as Spark, Dask
and ``pyarrow.dataset`` write it).

A directory gives its CSV and Parquet files (not its subdirectories, nor the names that start with
``.`` or ``_``, such as ``_SUCCESS`` or ``.crc`` files), in sorted order; a pattern with ``*``, ``?``
or ``[`` that is not itself a file's name gives the files it matches, in sorted order; a list gives
each of its items so, in the order given.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path

from linclass.exceptions import DataError

__all__ = ["data_files", "describe_files"]

#: the endings of the files a directory gives (as :mod:`linclass.sources.tables` reads them)
DATA_SUFFIXES = (".csv", ".tsv", ".csv.gz", ".tsv.gz", ".parquet", ".pq")


def data_files(spec) -> list[Path]:
    """The files ``spec`` names, in the order they are read.

    Parameters
    ----------
    spec : str, path-like, or a list or tuple of them
        A file, a directory, a glob pattern, or a list of any of these.

    Returns
    -------
    list of Path
        At least one file.  A single name that is neither a directory nor a pattern is returned as
        it is (the reader says whether it exists and what kind of file it is).

    Raises
    ------
    DataError
        An empty list, a directory without CSV or Parquet files, a pattern that matches no file.
    """
    if isinstance(spec, (list, tuple)):
        if not spec:
            raise DataError("no data file given.")
        return [path for item in spec for path in data_files(item)]
    text = os.fspath(spec)
    path = Path(text)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and _is_data_name(p.name))
        if not files:
            raise DataError(f"{text!r} is a directory with no data files: linclass reads the "
                            f"{', '.join(DATA_SUFFIXES)} files in it (not its subdirectories).")
        return files
    if glob.has_magic(text) and not path.exists():
        files = sorted(Path(p) for p in glob.glob(text) if Path(p).is_file())
        if not files:
            raise DataError(f"{text!r} matches no file.")
        return files
    return [path]


def describe_files(spec) -> str:
    """How a message names ``spec``: the file's name, or for several files how many there are and
    where they come from (``'32 files in parts'``, ``"32 files matching 'parts/*.parquet'"``)."""
    if isinstance(spec, (list, tuple)):
        if len(spec) == 1:
            return describe_files(spec[0])
        more = len(data_files(spec)) - 1
        return f"{os.fspath(spec[0])} and {more} more file{'s' * (more != 1)}"
    text = os.fspath(spec)
    if Path(text).is_dir():
        return f"{_files(len(data_files(text)))} in {text}"
    if glob.has_magic(text) and not Path(text).exists():
        return f"{_files(len(data_files(text)))} matching {text!r}"
    return text


def _files(n: int) -> str:
    return f"{n} file{'s' * (n != 1)}"


def _is_data_name(name: str) -> bool:
    lowered = name.lower()
    return not name.startswith((".", "_")) and lowered.endswith(DATA_SUFFIXES)
