"""Reading CSV and Parquet tables into a float feature matrix and a label vector, in one piece or in
chunks.

:func:`read_table` reads a CSV (``.csv``, ``.tsv``, ``.csv.gz``, ``.tsv.gz``) or Parquet (``.parquet``,
``.pq``) file; :class:`linclass.sources.files.FileSource` reads one a chunk at a time for the chunked
fits.

Every problem with a user's file is a :class:`DataError` whose message names the file and, where it
applies, the column and the row (rows count from 1 after the header), so a command-line tool can print
it as it is.

A row index that pandas wrote is never a feature: in Parquet, the columns that the file's pandas
metadata names as the index (``__index_level_0__`` after ``pd.concat(...).to_parquet(...)``); in CSV,
a first column without a name in the header whose values count the rows 0, 1, 2, ... (what
``DataFrame.to_csv`` writes by default), which is skipped with a warning.  An unnamed first column that
does not count the rows is refused, saying so, whichever columns are read (it cannot be named as a
feature, so it would be lost without a word).  A CSV row with more or fewer fields than the header is
refused, naming the row, its number of fields and the header's.

The files are read a block of rows at a time by :mod:`linclass.sources.csv_blocks` (with pandas when
it is installed, else the standard library: the same arrays and the same errors) and
:mod:`linclass.sources.parquet_blocks`.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from linclass.exceptions import DataError
from linclass.sources.csv_blocks import (csv_blocks, csv_header, csv_index, delimiter_hint,
                                         file_delimiter)
from linclass.sources.file_sets import data_files
from linclass.sources.parquet_blocks import parquet_blocks

if TYPE_CHECKING:
    import os

__all__ = ["DataError", "feature_columns", "read_chunks", "read_table"]

_CSV_SUFFIXES = {".csv": ",", ".tsv": "\t", ".csv.gz": ",", ".tsv.gz": "\t"}
_PARQUET_SUFFIXES = (".parquet", ".pq")
_TRUE_FALSE = {"true": True, "false": False}


def read_table(path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], target: str | None,
               *, chunksize: int | None = None, features: Sequence[str] | None = None,
               engine: str | None = None, carry: str | None = None,
               ) -> tuple[np.ndarray, np.ndarray | None, list[str]] | Iterator[tuple]:
    """Read a CSV or Parquet file into features and labels.

    Parameters
    ----------
    path : str, path-like, or a list of them
        ``.csv`` / ``.csv.gz`` (comma), ``.tsv`` / ``.tsv.gz`` (tab), with a header row; or
        ``.parquet`` / ``.pq`` (needs pyarrow: ``pip install linclass[parquet]``).  Several files
        (a list, a directory of them, or a glob pattern such as ``'parts/*.parquet'``: see
        :mod:`linclass.sources.file_sets`) are read in turn as one table; each needs the same
        columns.  Errors name the file and the row in it.
    target : str or None
        The label column (any position).  None: no labels; ``y`` is None.
    chunksize : int, default=None
        None reads the whole file.  An integer returns an iterator of ``(X, y, feature_names)``
        tuples of at most ``chunksize`` rows each (errors still name the row in the whole file).
    features : sequence of str, default=None
        The feature columns, in this order; default every column but ``target`` and a row index
        pandas wrote (see the module docstring), in file order.  An unnamed first CSV column is
        checked (and warned about) either way.
    engine : {'pandas', 'csv'}, default=None
        CSV reader: pandas when installed, else the standard library.  Ignored for Parquet.
    carry : str, default=None
        A column returned as it is read, as a fourth item (see :func:`read_chunks`).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,) or None
        Integer, float, boolean or string labels, as the column holds.
    feature_names : list of str

    Raises
    ------
    DataError
        Missing file, unknown file type, a damaged file (a Parquet page that does not decode: the
        file and its row group), files whose columns differ, an empty directory or a glob that
        matches nothing, unknown column (the message lists the columns), a feature
        column that is not numeric (its name and the first bad value and row), a missing or infinite
        value (column and row), an empty file, an unnamed CSV column that is not a row index, a
        CSV row with more or fewer fields than the header (the row, its line, both counts).

    Warns
    -----
    UserWarning
        When an unnamed first CSV column is read as the row index pandas wrote, not as a feature.

    See Also
    --------
    linclass.datasets.read_chunks : The same, ``chunksize`` rows at a time.
    linclass.datasets.FileSource : A file as a chunk source, for fits larger than memory.
    linclass.datasets.feature_columns : The columns it takes as features.
    pandas.read_csv : pandas's reader, used for CSV files when installed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import numpy as np
    >>> from linclass.datasets import load_dataset
    >>> X, y, names, classes = load_dataset('iris')
    >>> folder = tempfile.TemporaryDirectory()
    >>> csv = pathlib.Path(folder.name) / 'iris.csv'
    >>> np.savetxt(csv, np.column_stack([X, y]), delimiter=',', comments='',
    ...            header='sepal_length,sepal_width,petal_length,petal_width,species', fmt='%g')
    >>> from linclass.datasets import read_table
    >>> X, y, features = read_table(csv, 'species')
    >>> X.shape, features[:2]
    ((150, 4), ['sepal_length', 'sepal_width'])
    >>> folder.cleanup()
    """
    if chunksize is not None:
        return read_chunks(path, target, chunksize, features=features, engine=engine, carry=carry)
    parts = list(_chunks(path, target, None, features, engine, warn_index=True, carry=carry))

    def joined(k):
        return np.concatenate([p[k] for p in parts]) if len(parts) > 1 else parts[0][k]

    X = joined(0)
    y = None if target is None else joined(1)
    return (X, y, parts[0][2]) if carry is None else (X, y, parts[0][2], joined(3))


def read_chunks(path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], target: str | None,
                chunksize: int, *, features: Sequence[str] | None = None, engine: str | None = None,
                warn_index: bool = True, carry: str | None = None,
                located: bool = False) -> Iterator[tuple]:
    """:func:`read_table` with ``chunksize``: an iterator of ``(X, y, feature_names)`` tuples of at
    most ``chunksize`` rows each.

    Parameters
    ----------
    path, target, chunksize, features, engine
        As :func:`read_table`.
    warn_index : bool, default=True
        Warn that an unnamed first CSV column is read as a row index (the column is checked either
        way).  False for the later passes of a reader that reads the file many times (each pass of
        a chunked fit), so that the warning is given once.
    carry : str, default=None
        A column whose values are passed through as they are read (any type, missing values
        included: None or NaN; a CSV column as its text, so ``007`` stays ``007``), as a fourth
        item of each tuple: an identifier for the predictions, say.
    located : bool, default=False
        Add ``(file, first_row)`` as a last item of each tuple: the file the block comes from and
        the row in it (from 0, after the header) of its first row (for messages that name them).

    Raises
    ------
    DataError
        As :func:`read_table`, when the file is opened or as the rows are read.

    See Also
    --------
    linclass.datasets.read_table : The whole file at once.
    linclass.datasets.FileSource : A file as a chunk source, read again for each pass of a fit.
    pandas.read_csv : pandas's reader (its ``chunksize`` too), used when installed.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from linclass.datasets import read_chunks
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     csv = pathlib.Path(folder) / 'small.csv'
    ...     _ = csv.write_text('x1,x2,label\\n1,2,a\\n3,4,b\\n5,6,a\\n')
    ...     print([(X.shape, y.tolist()) for X, y, features in read_chunks(csv, 'label', 2)])
    [((2, 2), ['a', 'b']), ((1, 2), ['a'])]
    """
    return _chunks(path, target, _positive_integer(chunksize), features, engine, warn_index, carry,
                   located)


def _chunks(path, target, chunksize, features, engine, warn_index: bool,
            carry: str | None = None, located: bool = False) -> Iterator[tuple]:
    """The blocks of every file of ``path`` (one file, or several read as one table: see
    :mod:`linclass.sources.file_sets`), converted.  Every file is opened, its columns checked
    against the first file's and the target and features found before a row is read, so that a
    mistake is reported at once."""
    if engine not in (None, "pandas", "csv"):
        raise ValueError(f"engine must be 'pandas', 'csv' or None; got {engine!r}.")
    files = data_files(path)
    opened = []
    for n, file in enumerate(files):
        kind = _file_kind(file)
        if kind == "parquet":
            header, index, blocks = parquet_blocks(file, chunksize)
        else:
            header, index, blocks = csv_blocks(file, file_delimiter(_CSV_SUFFIXES[kind]),
                                               chunksize, engine,
                                               text=() if carry is None else (carry,))
        if n:
            _same_columns(files[0], opened[0][1], opened[0][2], file, header, index)
        target_index, feature_index = _select(file, header, target, features, index)
        carry_index = None if carry is None else _position(file, header, carry)
        # an unnamed CSV column is never a feature (it cannot be named): whichever columns are
        # read, it is the row index pandas wrote, or the file is refused
        counted = [] if kind == "parquet" else [j for j in index if j != target_index]
        opened.append((file, header, index, blocks, target_index, feature_index, counted,
                       carry_index))
    return _read_files(opened, warn_index, located)


def _read_files(opened, warn_index: bool, located: bool = False) -> Iterator[tuple]:
    rows, warned = 0, not warn_index
    for file, header, _, blocks, target_index, feature_index, counted, carry_index in opened:
        # the row index warning: once, for the first file that has one
        in_file = 0
        for piece in _convert(file, header, blocks, target_index, feature_index, counted,
                              not warned, carry_index):
            rows += piece[0].shape[0]
            yield (*piece, (str(file), in_file)) if located else piece
            in_file += piece[0].shape[0]
        warned = warned or bool(counted)
    if not rows:
        what = (f"{str(opened[0][0])!r} has" if len(opened) == 1
                else f"none of the {len(opened)} files ({str(opened[0][0])!r}, ...) has")
        raise DataError(f"{what} column names but no data rows.")


def _same_columns(first: Path, first_header, first_index, path: Path, header, index) -> None:
    """Refuse a file whose named columns (less a row index pandas wrote) are not the first file's."""
    def named(h, ix):
        return [name for j, name in enumerate(h) if name and j not in ix]

    expected, found = named(first_header, first_index), named(header, index)
    if set(expected) == set(found):
        return
    missing = [c for c in expected if c not in found]
    extra = [c for c in found if c not in expected]
    said = "; ".join(part for part in (
        missing and f"it lacks {', '.join(map(repr, missing))}",
        extra and f"it has {', '.join(map(repr, extra))} besides") if part)
    raise DataError(f"{str(path)!r} has other columns than {str(first)!r}, the first file: {said}. "
                    "The files of one data set need the same columns.")


def feature_columns(path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
                    target: str | None = None) -> list[str]:
    """The columns :func:`read_table` takes as features by default (every column but ``target`` and
    a row index pandas wrote), read from the header or the Parquet schema only.

    Raises
    ------
    DataError
        As :func:`read_table` for the file and the target.

    See Also
    --------
    linclass.datasets.read_table : Reads these columns.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from linclass.datasets import feature_columns
    >>> with tempfile.TemporaryDirectory() as folder:  # a first, unnamed column: pandas's row index
    ...     csv = pathlib.Path(folder) / 'small.csv'
    ...     _ = csv.write_text(',age,weight,label\\n0,30,70.5,a\\n1,40,80.2,b\\n')
    ...     print(feature_columns(csv, 'label'))
    ['age', 'weight']
    """
    path = data_files(path)[0]
    kind = _file_kind(path)
    if kind == "parquet":
        header, index, _ = parquet_blocks(path, None)
    else:
        header = csv_header(path, file_delimiter(_CSV_SUFFIXES[kind]))
        index = csv_index(header)
    _, feature_index = _select(path, header, target, None, index)
    return [header[j] for j in feature_index]


def _positive_integer(chunksize) -> int:
    """``chunksize`` as an int (2.0 is 2); anything that is not a whole number >= 1 is refused."""
    try:
        whole = not isinstance(chunksize, bool) and int(chunksize) == chunksize and chunksize >= 1
    except (TypeError, ValueError, OverflowError):  # 'a', nan, inf, a list...
        whole = False
    if not whole:
        raise ValueError(f"chunksize must be a positive integer or None; got {chunksize!r}.")
    return int(chunksize)


def _file_kind(path: Path) -> str:
    name = path.name.lower()
    suffix = next((s for s in sorted(_CSV_SUFFIXES, key=len, reverse=True) if name.endswith(s)), None)
    if suffix is None and path.suffix.lower() in _PARQUET_SUFFIXES:
        suffix = "parquet"
    if suffix is None:
        known = ", ".join([*_CSV_SUFFIXES, *_PARQUET_SUFFIXES])
        raise DataError(f"{str(path)!r}: unknown file type {path.suffix or '(no extension)'!r}; "
                        f"linclass reads {known}.")
    if not path.exists():
        raise DataError(f"{str(path)!r}: no such file.")
    if path.is_dir():
        raise DataError(f"{str(path)!r} is a directory, not a data file.")
    return suffix


def _position(path: Path, header: list[str], name: str) -> int:
    if name not in header or not name:
        raise DataError(f"{str(path)!r} has no column {name!r}; its columns are: "
                        f"{', '.join(repr(h) for h in header if h)}.")
    return header.index(name)


def _select(path: Path, header: list[str], target, features, index=()) -> tuple[int | None, list[int]]:
    """Column positions of the target and of the features, checked against the header; the columns
    ``index`` (a row index pandas wrote) are features only when named in ``features``."""
    position = {name: j for j, name in enumerate(header) if name}

    def find(name) -> int:
        if name not in position:
            raise DataError(f"{str(path)!r} has no column {name!r}; its columns are: "
                            f"{', '.join(repr(h) for h in header if h)}."
                            f"{delimiter_hint(path, header)}")
        return position[name]

    wanted = ([] if target is None else [target]) + list(features or ())
    missing = list(dict.fromkeys(name for name in wanted if name not in position))
    if len(missing) > 1:  # every missing column in one message
        raise DataError(f"{str(path)!r} has no columns {', '.join(map(repr, missing))}; its columns "
                        f"are: {', '.join(repr(h) for h in header if h)}."
                        f"{delimiter_hint(path, header)}")
    target_index = None if target is None else find(target)
    if features is None:
        feature_index = [j for j in range(len(header)) if j != target_index and j not in index]
    else:
        feature_index = [find(name) for name in features]
        if target_index is not None and target_index in feature_index:
            raise DataError(f"column {target!r} cannot be both the target and a feature.")
    if not feature_index:
        raise DataError(f"{str(path)!r} has no feature columns besides the target {target!r}.")
    return target_index, feature_index


# A block is (first_row, columns): columns[j] is either a numpy array of numbers / booleans whose
# missing entries are NaN, or an object array of str (None where missing). first_row counts from 0.
def _convert(path, header, blocks, target_index, feature_index, counted=(),
             warn_index: bool = True, carry_index: int | None = None) -> Iterator[tuple]:
    names = [header[j] for j in feature_index]
    seen = False
    blocks, end = iter(blocks), 0
    while True:
        try:
            start, columns = next(blocks)
        except StopIteration:
            break
        except DataError:
            raise
        except (OSError, EOFError, ValueError) as exc:  # a damaged file: pyarrow's ArrowInvalid...
            message = " ".join(str(exc).split())
            raise DataError(f"{str(path)!r} is damaged: reading the rows after row {end} failed: "
                            f"{message}") from None
        for j in counted:
            _row_index(path, j, columns[j], start, warn=warn_index and not seen)
        seen = True
        X = np.empty((len(columns[0]) if columns else 0, len(feature_index)), dtype=np.float64)
        for k, j in enumerate(feature_index):
            X[:, k] = _numeric(path, header[j], columns[j], start)
        y = None if target_index is None else _labels(path, header[target_index],
                                                      columns[target_index], start)
        end = start + X.shape[0]
        yield (X, y, names) if carry_index is None else (X, y, names, columns[carry_index])


def _row_index(path, j: int, values: np.ndarray, start: int, *, warn: bool) -> None:
    """Check that the unnamed column ``j`` counts the rows (``start``, ``start + 1``, ...): the row
    index pandas writes.  Warn (once, with the first block) that it is not a feature; refuse a
    column that does not count the rows."""
    expected = np.arange(start, start + len(values))
    try:
        numbers = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):  # text, or a missing value
        numbers = np.full(len(values), np.nan)
    wrong = numbers != expected
    if wrong.any():
        i = int(np.argmax(wrong))
        held = f"{numbers[i]:g}" if np.isfinite(numbers[i]) else repr(str(values[i]))
        raise DataError(
            f"{str(path)!r}: column {j + 1} of the header has no name and is not a row index pandas "
            f"wrote: row {start + i + 1} holds {held} where a row index holds {start + i}. "
            "Name it in the header (to use it or leave it out by name), or write the file with "
            "index=False.")
    if warn:
        warnings.warn(f"{str(path)!r}: column {j + 1} has no name and counts the rows 0, 1, 2, ...: "
                      "it is read as the row index pandas writes (DataFrame.to_csv without "
                      "index=False), not as a feature.", UserWarning, stacklevel=4)


def _numeric(path, name: str, values: np.ndarray, start: int) -> np.ndarray:
    if values.dtype == object:
        missing = np.fromiter((v is None for v in values), dtype=bool, count=len(values))
        _no_missing(path, name, missing, start)
        try:
            out = values.astype(np.float64)
        except (TypeError, ValueError):
            lowered = [str(v).strip().lower() for v in values]
            if all(v in _TRUE_FALSE for v in lowered):  # as pandas reads a True/False column
                return np.array([_TRUE_FALSE[v] for v in lowered], dtype=np.float64)
            for i, value in enumerate(values):
                try:
                    float(value)
                except (TypeError, ValueError):
                    raise DataError(
                        f"{str(path)!r}: column {name!r} is not numeric: row {start + i + 1} holds "
                        f"{value!r}. Use it as the target, or drop or encode it first."
                        f"{_missing_mark(value)}") from None
            raise  # every value converted one by one: cannot happen
    else:
        out = values.astype(np.float64)
    _no_missing(path, name, np.isnan(out), start)
    infinite = np.isinf(out)
    if infinite.any():
        i = int(np.argmax(infinite))
        raise DataError(f"{str(path)!r}: column {name!r} holds {out[i]} in row {start + i + 1}; "
                        "features must be finite numbers.")
    return out


def _missing_mark(value) -> str:
    """A sentence when a value that is not a number looks like a mark for a missing one (``?``,
    ``-``, ``.``: no letter or digit): missing feature values are refused, whatever marks them."""
    text = str(value).strip()
    if any(c.isalnum() for c in text):
        return ""
    return (f" If {text!r} marks a missing value: a feature cannot be missing; drop or fill those "
            f"rows first (pandas: pd.read_csv(f, na_values=[{text!r}]).dropna(); the linclass "
            f"command names them with --na-values {text!r}).")


def _no_missing(path, name: str, missing: np.ndarray, start: int) -> None:
    if missing.any():
        i = int(np.argmax(missing))
        raise DataError(f"{str(path)!r}: column {name!r} has a missing value in row {start + i + 1} "
                        f"({int(missing.sum())} in all); drop or impute those rows first.")


def _labels(path, name: str, values: np.ndarray, start: int) -> np.ndarray:
    if values.dtype != object:
        if values.dtype.kind == "f":
            _no_missing(path, name, np.isnan(values), start)
        return values
    missing = np.fromiter((v is None for v in values), dtype=bool, count=len(values))
    _no_missing(path, name, missing, start)
    return _infer_labels(values)


def _infer_labels(values: np.ndarray) -> np.ndarray:
    """Text labels as integers, floats or booleans where every one parses so, else as str."""
    strings = [str(v).strip() for v in values]
    for kind in (np.int64, np.float64):
        try:
            return np.array(strings, dtype=kind)
        except (ValueError, OverflowError):
            pass
    lowered = [s.lower() for s in strings]
    if all(s in _TRUE_FALSE for s in lowered):
        return np.array([_TRUE_FALSE[s] for s in lowered])
    return np.array([str(v) for v in values])
