"""CSV files as blocks of columns for :mod:`linclass.sources.tables`: the header, a row index pandas
may have written (an unnamed first column), and the rows a block at a time, read with pandas when it
is installed and with the standard library's ``csv`` module otherwise (both give the same blocks and
the same errors).

A block is ``(first_row, columns)``: ``first_row`` counts from 0; ``columns[j]`` is a numpy array of
numbers or booleans (NaN where missing), or an object array of str (None where missing).
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import io
import re
import signal
import threading
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path

import numpy as np

from linclass.exceptions import DataError

__all__ = ["NA_VALUES", "csv_blocks", "csv_dialect", "csv_header", "csv_index", "delimiter_hint",
           "file_delimiter", "more_na_values"]

# the strings read as a missing value: pandas' defaults, so both CSV readers agree
NA_VALUES = frozenset({
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
})
# more strings read as missing, within more_na_values (the command's --na-values)
_MORE_NA: ContextVar[frozenset] = ContextVar("linclass_more_na_values", default=frozenset())


@contextlib.contextmanager
def more_na_values(values):
    """Within the ``with`` block, a CSV field equal to one of ``values`` (spaces around it aside)
    is a missing value too, for both readers: a file that marks missing values with ``?``, say."""
    token = _MORE_NA.set(frozenset(str(v).strip() for v in values))
    try:
        yield
    finally:
        _MORE_NA.reset(token)


def _na_values() -> frozenset:
    return NA_VALUES | _MORE_NA.get()


# the field delimiter (None: by the file's name) and the decimal mark, within csv_dialect
_DIALECT: ContextVar[tuple] = ContextVar("linclass_csv_dialect", default=(None, "."))
_NUMBER_WITH_COMMA = re.compile(r"\s*[-+]?(\d+,?\d*|,\d+)([eE][-+]?\d+)?\s*")


@contextlib.contextmanager
def csv_dialect(sep: str | None = None, decimal: str = "."):
    """Within the ``with`` block, CSV files are read with ``sep`` between fields (None: by the
    file's name, ``','`` for .csv and tab for .tsv) and ``decimal`` as the decimal mark (``','``:
    ``1,5`` is 1.5), by both readers: a ';'-separated file with decimal commas, as spreadsheets
    write it in much of Europe, is ``csv_dialect(sep=';', decimal=',')`` (the command's
    ``--sep ';' --decimal ','``).

    Raises
    ------
    ValueError
        For a ``sep`` that is not one character, a ``decimal`` other than '.' or ',', or the same
        character for both.
    """
    if sep is not None and (not isinstance(sep, str) or len(sep) != 1 or sep in "\r\n\"'"):
        raise ValueError(f"sep must be one character (such as ';', '|' or a tab) or None; "
                         f"got {sep!r}.")
    if decimal not in (".", ","):
        raise ValueError(f"decimal must be '.' or ','; got {decimal!r}.")
    if sep == decimal:
        raise ValueError(f"sep and decimal are both {sep!r}: a file with decimal commas separates "
                         "its fields with another character (such as ';').")
    token = _DIALECT.set((sep, decimal))
    try:
        yield
    finally:
        _DIALECT.reset(token)


def file_delimiter(default: str) -> str:
    """The field delimiter of a CSV file whose name gives ``default``: :func:`csv_dialect`'s
    ``sep`` where one is set."""
    return _DIALECT.get()[0] or default


def _point(field: str) -> str:
    """A field with a decimal comma written with a point (only a number: a label stays as
    written)."""
    return field.replace(",", ".") if _NUMBER_WITH_COMMA.fullmatch(field) else field


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


_OTHER_DELIMITERS = {";": "';'", "\t": "tab", "|": "'|'"}


def delimiter_hint(path: Path, header: list[str]) -> str:
    """A sentence for the error of a column not found, when the CSV header reads as more columns
    with another delimiter than the file's (``;``, tab or ``|``): a ';'-separated file (often
    with decimal commas, as European spreadsheets write it) saved as ``.csv``.  Empty otherwise."""
    name = path.name.lower()
    if not name.endswith((".csv", ".csv.gz", ".tsv", ".tsv.gz")) or _DIALECT.get()[0] is not None:
        return ""  # (a delimiter given: not the file's name's)
    delimiter = "\t" if ".tsv" in name else ","
    cells = [cell for cell in header if cell]
    best = max(_OTHER_DELIMITERS, key=lambda d: sum(c.count(d) for c in cells))
    if best == delimiter or not any(best in c for c in cells):
        return ""
    columns = sum(len(c.split(best)) for c in cells)
    comma = False
    try:
        with _open_text(path) as handle:
            rows = [line for line in (handle.readline() for _ in range(3)) if line.strip()]
        fields = rows[1].split(best) if len(rows) > 1 else []
        comma = any(re.fullmatch(r"\s*-?\d+,\d+\s*", f) for f in fields)
    except (OSError, UnicodeDecodeError):
        pass
    said, other = {",": "','", "\t": "tab"}[delimiter], _OTHER_DELIMITERS[best]
    text = (f" Its header reads as {len(cells)} column{'s' * (len(cells) != 1)} with {said} "
            f"between fields but as {columns} with {other}: the file looks {other}-separated"
            f"{', with decimal commas (1,5)' * comma}. linclass reads .csv files as ','-separated "
            "and .tsv files as tab-separated, with decimal points")
    option = f"--sep {_OTHER_DELIMITERS[best]}" + " --decimal ," * comma
    call = f"csv_dialect(sep={best!r}" + ", decimal=','" * comma + ")"
    text += (f" (the command reads it as it is with {option}; Python: within "
             f"linclass.sources.csv_blocks.{call})")
    if best == "\t" and not comma:
        return text + ", or name it .tsv."
    sep, decimal = repr(best), ", decimal=','" * comma
    dec = ', dec = ","' * comma
    r = "read.csv2(f)" if best == ";" and comma else f"read.csv(f, sep = {sep}{dec})"
    return (text + f", or save it so (pandas: pd.read_csv(f, sep={sep}{decimal}).to_csv(g, "
            f"index=False); R: write.csv({r}, g, row.names = FALSE)).")


def csv_index(header: list[str]) -> list[int]:
    """The row-index candidates of a CSV header: an unnamed first column."""
    return [0] if len(header) > 1 and not header[0] else []


def csv_blocks(path: Path, delimiter: str, chunksize, engine, text: tuple[str, ...] = ()):
    """The header, its row-index candidates and the blocks; the columns named in ``text`` are read
    as written (str; None where missing), not as numbers: an ID such as ``007`` stays ``007``."""
    if delimiter == _DIALECT.get()[1]:
        raise DataError(f"{str(path)!r} is read with {delimiter!r} between fields, so it cannot "
                        "hold decimal commas: give the delimiter it uses (the command's --sep, "
                        "such as --sep ';').")
    header = csv_header(path, delimiter)
    if engine is None:
        try:
            import pandas  # noqa: F401
            engine = "pandas"
        except ImportError:
            engine = "csv"
    if engine == "pandas":
        return header, csv_index(header), _pandas_blocks(path, delimiter, header, chunksize, text)
    return header, csv_index(header), _stdlib_blocks(path, delimiter, header, chunksize)


def _rows(path: Path, delimiter: str, width: int) -> Iterator[list[str]]:
    """The data rows of the file (blank lines skipped), as lists of fields, by the standard
    library's reader; a row with other than ``width`` fields is a DataError naming it."""
    with _open_text(path) as handle:
        rows = csv.reader(handle, delimiter=delimiter)
        for row in rows:  # skip to the header (blank lines before it)
            if row and any(cell.strip() for cell in row):
                break
        n = 0
        for row in rows:
            if not row or (len(row) == 1 and not row[0].strip()):
                continue  # blank line
            n += 1
            if len(row) != width:
                raise DataError(f"{str(path)!r}: row {n} (line {rows.line_num}) has {len(row)} "
                                f"fields but the header has {width}. Give every row one field per "
                                "column (an empty field for a missing value).")
            yield row


def _stdlib_blocks(path: Path, delimiter: str, header: list[str], chunksize) -> Iterator[tuple]:
    width = len(header)
    start, block = 0, []
    for row in _rows(path, delimiter, width):
        block.append(row)
        if chunksize is not None and len(block) == chunksize:
            yield start, _text_columns(block, width)
            start, block = start + len(block), []
    if block:
        yield start, _text_columns(block, width)


def _text_columns(block: list[list[str]], width: int) -> list[np.ndarray]:
    columns, missing = [], _na_values()
    comma = _DIALECT.get()[1] == ","
    for j in range(width):
        column = np.empty(len(block), dtype=object)
        column[:] = [None if row[j].strip() in missing else _point(row[j]) if comma else row[j]
                     for row in block]
        columns.append(column)
    return columns


def _pandas_blocks(path: Path, delimiter: str, header: list[str], chunksize,
                   text: tuple[str, ...] = ()) -> Iterator[tuple]:
    """The blocks as pandas reads them.  pandas fills a row that is short of fields with missing
    values, which then read as a missing or non-numeric value in the wrong column: a block whose
    last column holds a missing value (as every short row's does) has its rows counted by
    :class:`_FieldCheck`; a row with too many fields stops pandas, and the same check names it."""
    import pandas as pd

    # pandas compares fields as written: a mark with spaces around it is given with them too
    more = _MORE_NA.get()
    more = more | {f" {v}" for v in more} | {f"{v} " for v in more} | {f" {v} " for v in more}
    options = dict(sep=delimiter, na_values=sorted(NA_VALUES | more), keep_default_na=False,
                   skip_blank_lines=True, index_col=False, encoding="utf-8-sig",
                   skipinitialspace=False, decimal=_DIALECT.get()[1])
    if text:
        options["dtype"] = {j: str for j, name in enumerate(header) if name in text}
    fields = _FieldCheck(path, delimiter, len(header))
    noted = _NotedInterrupt()
    try:
        with noted:
            if chunksize is None:
                reader, frames = contextlib.nullcontext(), iter([pd.read_csv(path, **options)])
            else:
                reader = frames = pd.read_csv(path, chunksize=chunksize, **options)
        with reader:
            start = 0
            while True:
                with noted:
                    frame = next(frames, None)
                if frame is None:
                    break
                if len(frame.columns) != len(header):
                    fields.check()
                    raise DataError(f"{str(path)!r}: rows have {len(frame.columns)} fields but the "
                                    f"header has {len(header)}.")
                if len(frame) and frame.iloc[:, -1].isna().any():
                    fields.check(upto=start + len(frame))
                columns = [_pandas_column(frame.iloc[:, j]) for j in range(len(header))]
                if len(frame):
                    yield start, columns
                start += len(frame)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        if noted.interrupted:  # pandas' C reader turns Ctrl-C in its read() into a ParserError
            raise KeyboardInterrupt from None
        if isinstance(exc, pd.errors.ParserError):
            fields.check()  # a row with too many fields: name it as the csv reader does
        message = " ".join(str(exc).split())
        raise DataError(f"{str(path)!r} is not a well-formed CSV file: {message}") from None
    finally:
        fields.close()


class _NotedInterrupt:
    """While entered (in the main thread, where Python runs signal handlers), SIGINT's handler
    also notes that it ran: pandas' C reader turns the KeyboardInterrupt of a Ctrl-C that lands
    in its reads into a ParserError ("Calling read(nbytes) on source failed") without it, and an
    interrupt must stay one.  Handlers that are not Python functions (SIG_IGN, SIG_DFL) are left
    alone."""

    def __init__(self):
        self.interrupted, self._before = False, None

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            before = signal.getsignal(signal.SIGINT)
            if callable(before):
                def note(signum, frame):
                    self.interrupted = True
                    return before(signum, frame)

                self._before = before
                signal.signal(signal.SIGINT, note)
        return self

    def __exit__(self, *exc):
        if self._before is not None:
            signal.signal(signal.SIGINT, self._before)
            self._before = None
        return False


class _FieldCheck:
    """The number of fields of each row, counted by the standard library's reader as far as asked
    (once over the file at most, however many blocks ask), so that the pandas reader names a ragged
    row as the csv reader does."""

    def __init__(self, path: Path, delimiter: str, width: int):
        self._args, self._rows, self._counted = (path, delimiter, width), None, 0

    def check(self, upto: float = float("inf")) -> None:
        """Raise the DataError of the first row, among the first ``upto``, whose number of fields
        is not the header's."""
        if self._rows is None:
            self._rows = _rows(*self._args)
        while self._counted < upto and next(self._rows, None) is not None:
            self._counted += 1

    def close(self) -> None:
        if self._rows is not None:
            self._rows.close()


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
