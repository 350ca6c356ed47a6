"""Reading CSV and Parquet tables into a float feature matrix and a label vector, in one piece or in
chunks.

:func:`read_table` reads a CSV (``.csv``, ``.tsv``, ``.csv.gz``, ``.tsv.gz``) or Parquet (``.parquet``,
``.pq``) file; :class:`linclass.sources.files.FileSource` reads one a chunk at a time for the chunked
fits.

Every problem with a user's file is a :class:`DataError` whose message names the file and, where it
applies, the column and the row (rows count from 1 after the header), so a command-line tool can print
it as it is.  CSV is read with pandas when it is installed and with the standard library's ``csv``
module otherwise; both give the same arrays and the same errors.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

__all__ = ["DataError", "read_table"]

# the strings read as a missing value: pandas' defaults, so both CSV readers agree
_NA_VALUES = frozenset({
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
})
_CSV_SUFFIXES = {".csv": ",", ".tsv": "\t", ".csv.gz": ",", ".tsv.gz": "\t"}
_PARQUET_SUFFIXES = (".parquet", ".pq")
_TRUE_FALSE = {"true": True, "false": False}


class DataError(ValueError):
    """A data file or data set name that cannot be used: the message says what and where."""


def read_table(path, target: str | None, *, chunksize: int | None = None,
               features: Sequence[str] | None = None, engine: str | None = None):
    """Read a CSV or Parquet file into features and labels.

    Parameters
    ----------
    path : str or path-like
        ``.csv`` / ``.csv.gz`` (comma), ``.tsv`` / ``.tsv.gz`` (tab), with a header row; or
        ``.parquet`` / ``.pq`` (needs pyarrow: ``pip install linclass[parquet]``).
    target : str or None
        The label column (any position).  None: no labels; ``y`` is None.
    chunksize : int, default=None
        None reads the whole file.  An integer returns an iterator of ``(X, y, feature_names)``
        tuples of at most ``chunksize`` rows each (errors still name the row in the whole file).
    features : sequence of str, default=None
        The feature columns, in this order; default every column but ``target``, in file order.
    engine : {'pandas', 'csv'}, default=None
        CSV reader: pandas when installed, else the standard library.  Ignored for Parquet.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,) or None
        Integer, float, boolean or string labels, as the column holds.
    feature_names : list of str

    Raises
    ------
    DataError
        Missing file, unknown file type, unknown column (the message lists the columns), a feature
        column that is not numeric (its name and the first bad value and row), a missing or infinite
        value (column and row), an empty file.
    """
    if chunksize is not None:
        chunksize = _positive_integer(chunksize)
    if engine not in (None, "pandas", "csv"):
        raise ValueError(f"engine must be 'pandas', 'csv' or None; got {engine!r}.")
    path = Path(path)
    kind = _file_kind(path)
    if kind == "parquet":
        header, blocks = _parquet_blocks(path, chunksize)
    else:
        header, blocks = _csv_blocks(path, _CSV_SUFFIXES[kind], chunksize, engine)
    target_index, feature_index = _select(path, header, target, features)
    chunks = _convert(path, header, blocks, target_index, feature_index)
    if chunksize is not None:
        return chunks
    parts = list(chunks)
    X = np.concatenate([p[0] for p in parts]) if len(parts) > 1 else parts[0][0]
    y = None if target is None else (np.concatenate([p[1] for p in parts]) if len(parts) > 1
                                     else parts[0][1])
    return X, y, parts[0][2]


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


def _select(path: Path, header: list[str], target, features) -> tuple[int | None, list[int]]:
    """Column positions of the target and of the features, checked against the header."""
    position = {name: j for j, name in enumerate(header)}

    def find(name) -> int:
        if name not in position:
            raise DataError(f"{str(path)!r} has no column {name!r}; its columns are: "
                            f"{', '.join(map(repr, header))}.")
        return position[name]

    target_index = None if target is None else find(target)
    if features is None:
        feature_index = [j for j in range(len(header)) if j != target_index]
    else:
        feature_index = [find(name) for name in features]
        if target_index is not None and target_index in feature_index:
            raise DataError(f"column {target!r} cannot be both the target and a feature.")
    if not feature_index:
        raise DataError(f"{str(path)!r} has no feature columns besides the target {target!r}.")
    return target_index, feature_index


# A block is (first_row, columns): columns[j] is either a numpy array of numbers / booleans whose
# missing entries are NaN, or an object array of str (None where missing). first_row counts from 0.
def _convert(path, header, blocks, target_index, feature_index) -> Iterator[tuple]:
    names = [header[j] for j in feature_index]
    seen = False
    for start, columns in blocks:
        seen = True
        X = np.empty((len(columns[0]) if columns else 0, len(feature_index)), dtype=np.float64)
        for k, j in enumerate(feature_index):
            X[:, k] = _numeric(path, header[j], columns[j], start)
        y = None if target_index is None else _labels(path, header[target_index],
                                                      columns[target_index], start)
        yield X, y, names
    if not seen:
        raise DataError(f"{str(path)!r} has column names but no data rows.")


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
                    ) from None
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


# ---------------------------------------------------------------------------------------- CSV
def _open_text(path: Path):
    if path.name.lower().endswith(".gz"):
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8-sig", newline="")
    return open(path, encoding="utf-8-sig", newline="")


def _csv_header(path: Path, delimiter: str) -> list[str]:
    try:
        with _open_text(path) as handle:
            for row in csv.reader(handle, delimiter=delimiter):
                if row and any(cell.strip() for cell in row):
                    header = [cell.strip() for cell in row]
                    break
            else:
                raise DataError(f"{str(path)!r} is empty: expected a header row and data rows.")
    except (UnicodeDecodeError, OSError, csv.Error) as exc:
        if isinstance(exc, DataError):
            raise
        raise DataError(f"{str(path)!r} cannot be read as text CSV: {exc}") from None
    seen = set()
    for j, name in enumerate(header):
        if not name:
            raise DataError(f"{str(path)!r}: column {j + 1} of the header has no name.")
        if name in seen:
            raise DataError(f"{str(path)!r}: the header names column {name!r} twice.")
        seen.add(name)
    return header


def _csv_blocks(path: Path, delimiter: str, chunksize, engine):
    header = _csv_header(path, delimiter)
    if engine is None:
        try:
            import pandas  # noqa: F401
            engine = "pandas"
        except ImportError:
            engine = "csv"
    reader = _pandas_blocks if engine == "pandas" else _stdlib_blocks
    return header, reader(path, delimiter, header, chunksize)


def _stdlib_blocks(path: Path, delimiter: str, header: list[str], chunksize) -> Iterator[tuple]:
    width = len(header)
    with _open_text(path) as handle:
        rows = csv.reader(handle, delimiter=delimiter)
        for row in rows:  # skip to the header (blank lines before it)
            if row and any(cell.strip() for cell in row):
                break
        start, block = 0, []
        for row in rows:
            if not row or (len(row) == 1 and not row[0].strip()):
                continue  # blank line
            if len(row) != width:
                raise DataError(f"{str(path)!r}: row {start + len(block) + 1} (line {rows.line_num}) "
                                f"has {len(row)} fields but the header has {width}.")
            block.append(row)
            if chunksize is not None and len(block) == chunksize:
                yield start, _text_columns(block, width)
                start, block = start + len(block), []
        if block:
            yield start, _text_columns(block, width)


def _text_columns(block: list[list[str]], width: int) -> list[np.ndarray]:
    columns = []
    for j in range(width):
        column = np.empty(len(block), dtype=object)
        column[:] = [None if row[j].strip() in _NA_VALUES else row[j] for row in block]
        columns.append(column)
    return columns


def _pandas_blocks(path: Path, delimiter: str, header: list[str], chunksize) -> Iterator[tuple]:
    import pandas as pd

    options = dict(sep=delimiter, na_values=sorted(_NA_VALUES), keep_default_na=False,
                   skip_blank_lines=True, index_col=False, encoding="utf-8-sig", chunksize=chunksize,
                   skipinitialspace=False)
    try:
        frames = pd.read_csv(path, **options)
        if chunksize is None:
            frames = [frames]
        start = 0
        for frame in frames:
            if len(frame.columns) != len(header):
                raise DataError(f"{str(path)!r}: rows have {len(frame.columns)} fields but the header "
                                f"has {len(header)}.")
            columns = [_pandas_column(frame.iloc[:, j]) for j in range(len(header))]
            if len(frame):
                yield start, columns
            start += len(frame)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        message = " ".join(str(exc).split())
        raise DataError(f"{str(path)!r} is not a well-formed CSV file: {message}") from None


def _pandas_column(series) -> np.ndarray:
    import pandas as pd

    if pd.api.types.is_bool_dtype(series) or pd.api.types.is_numeric_dtype(series):
        if series.isna().any():
            return series.to_numpy(dtype=np.float64, na_value=np.nan)
        return series.to_numpy()
    values = series.to_numpy(dtype=object)
    missing = series.isna().to_numpy()
    out = np.empty(len(values), dtype=object)
    out[:] = [None if m else str(v) for v, m in zip(values, missing)]
    return out


# ------------------------------------------------------------------------------------ Parquet
def _parquet_blocks(path: Path, chunksize):
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise DataError(f"reading {str(path)!r} needs pyarrow, an optional dependency: "
                        "pip install linclass[parquet]") from None
    try:
        # no pre-buffering, one reader thread: peak memory is about one batch, not the file
        parquet = pq.ParquetFile(path, pre_buffer=False, buffer_size=1 << 20)
    except Exception as exc:  # pyarrow raises its own ArrowInvalid / OSError for a bad file
        if os.path.getsize(path) == 0:
            raise DataError(f"{str(path)!r} is empty: expected a Parquet file.") from None
        message = " ".join(str(exc).split())
        raise DataError(f"{str(path)!r} is not a readable Parquet file: {message}") from None
    header = [str(name) for name in parquet.schema_arrow.names]
    if not header:
        raise DataError(f"{str(path)!r} is empty: it has no columns.")
    duplicates = sorted({name for name in header if header.count(name) > 1})
    if duplicates:
        raise DataError(f"{str(path)!r} has more than one column named {duplicates[0]!r}.")

    def blocks():
        if chunksize is None:
            table = parquet.read()
            if table.num_rows:
                yield 0, [_arrow_column(table.column(j)) for j in range(len(header))]
            return
        start = 0
        for batch in parquet.iter_batches(batch_size=chunksize, use_threads=False):
            if batch.num_rows:
                yield start, [_arrow_column(batch.column(j)) for j in range(len(header))]
                start += batch.num_rows

    return header, blocks()


def _arrow_column(column) -> np.ndarray:
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    kind = column.type
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind) \
            or pa.types.is_decimal(kind):
        if not column.null_count:
            values = column.to_numpy(zero_copy_only=False)
            return values.astype(np.float64) if pa.types.is_decimal(kind) else values
        missing = column.is_null().to_numpy(zero_copy_only=False)
        filled = pc.fill_null(column, pa.scalar(0).cast(kind) if not pa.types.is_boolean(kind) else False)
        values = filled.to_numpy(zero_copy_only=False).astype(np.float64)
        values[missing] = np.nan
        return values
    out = np.empty(len(column), dtype=object)
    out[:] = [None if v is None else str(v) for v in column.to_pylist()]
    return out
