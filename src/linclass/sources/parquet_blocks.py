"""Parquet files as blocks of columns for :mod:`linclass.sources.tables` (needs pyarrow): the column
names, the columns the file's pandas metadata names as the index, and the rows a block (a record
batch) at a time, with peak memory about one block.  Blocks are as in
:mod:`linclass.sources.csv_blocks`.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from linclass.exceptions import DataError

__all__ = ["parquet_blocks"]


def parquet_blocks(path: Path, chunksize):
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
    index = _pandas_index(parquet.schema_arrow, header)

    def blocks():
        # a row group at a time, so that a page that does not decode is named by its row group
        start, groups = 0, parquet.num_row_groups
        for group in range(groups):
            if chunksize is None:
                pieces = _pieces(lambda: iter([parquet.read_row_group(group, use_threads=False)]))
            else:
                pieces = _pieces(lambda: parquet.iter_batches(batch_size=chunksize, row_groups=[group],
                                                              use_threads=False))
            try:
                for piece in pieces:
                    if piece.num_rows:
                        yield start, [_arrow_column(piece.column(j)) for j in range(len(header))]
                        start += piece.num_rows
            except _Damaged as exc:
                message = " ".join(str(exc.__cause__).split())
                raise DataError(f"{str(path)!r} is damaged: row group {group + 1} of {groups} "
                                f"(after row {start}) cannot be decoded: {message}") from None

    return header, index, blocks()


class _Damaged(Exception):
    """pyarrow's error while decoding a piece of the file (its cause)."""


def _pieces(make):
    """The tables or batches of ``make()``, pyarrow's errors raised as :class:`_Damaged` (so that
    they are told apart from the errors of the caller's own code)."""
    try:
        pieces = make()
        while True:
            try:
                piece = next(pieces)
            except StopIteration:
                return
            yield piece
    except (OSError, ValueError, EOFError) as exc:  # ArrowInvalid, ArrowIOError ("Corrupt snappy ...")
        if isinstance(exc, DataError):
            raise
        raise _Damaged() from exc


def _pandas_index(schema, header: list[str]) -> list[int]:
    """Positions of the columns that a file's pandas metadata names as the DataFrame's index (a
    RangeIndex is stored as metadata only, not as a column)."""
    try:
        metadata = schema.pandas_metadata or {}
    except Exception:  # metadata that is not JSON: a file not written by pandas
        return []
    names = [c for c in metadata.get("index_columns", []) if isinstance(c, str)]
    return [header.index(c) for c in names if c in header]


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
