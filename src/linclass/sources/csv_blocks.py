"""CSV files as blocks of columns for :mod:`linclass.sources.tables`: the header, a row index pandas
may have written (an unnamed first column), and the rows a block at a time, read with pandas when it
is installed and with the standard library's ``csv`` module otherwise (both give the same blocks and
the same errors).

A block is ``(first_row, columns)``: ``first_row`` counts from 0; ``columns[j]`` is a numpy array of
numbers or booleans (NaN where missing), or an object array of str (None where missing).
"""

from __future__ import annotations

import csv
import gzip
import io
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from linclass.exceptions import DataError

__all__ = ["NA_VALUES", "csv_blocks", "csv_header", "csv_index"]

# the strings read as a missing value: pandas' defaults, so both CSV readers agree
NA_VALUES = frozenset({
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
})


def _open_text(path: Path):
    if path.name.lower().endswith(".gz"):
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8-sig", newline="")
    return open(path, encoding="utf-8-sig", newline="")


def csv_header(path: Path, delimiter: str) -> list[str]:
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
        if not name and j > 0:  # an unnamed first column may be a row index: _row_index decides
            raise DataError(f"{str(path)!r}: column {j + 1} of the header has no name.")
        if not name:
            continue
        if name in seen:
            raise DataError(f"{str(path)!r}: the header names column {name!r} twice.")
        seen.add(name)
    return header


def csv_index(header: list[str]) -> list[int]:
    """The row-index candidates of a CSV header: an unnamed first column."""
    return [0] if len(header) > 1 and not header[0] else []


def csv_blocks(path: Path, delimiter: str, chunksize, engine):
    header = csv_header(path, delimiter)
    if engine is None:
        try:
            import pandas  # noqa: F401
            engine = "pandas"
        except ImportError:
            engine = "csv"
    reader = _pandas_blocks if engine == "pandas" else _stdlib_blocks
    return header, csv_index(header), reader(path, delimiter, header, chunksize)


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
        column[:] = [None if row[j].strip() in NA_VALUES else row[j] for row in block]
        columns.append(column)
    return columns


def _pandas_blocks(path: Path, delimiter: str, header: list[str], chunksize) -> Iterator[tuple]:
    import pandas as pd

    options = dict(sep=delimiter, na_values=sorted(NA_VALUES), keep_default_na=False,
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
