"""``--data -``: the table piped into the command (``cat train.csv | linclass fit -d - ...``).

The readers read files by name, and a chunked fit reads its data more than once, so standard input
is copied to a temporary file first (removed when the command ends), named by what it holds: CSV
(tab-separated when its first line has tabs and no commas), gzip-compressed CSV or Parquet.
Messages name it "standard input", not the temporary file."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import sys
import tempfile

from linclass.cli.errors import UsageError

__all__ = ["STDIN", "named", "standard_input"]

#: how the messages name the table read from standard input
STDIN = "standard input"

_copies: set[str] = set()  # the temporary files that hold standard input (named in messages)


def named(text) -> str:
    """``text`` with the temporary copy of standard input named as :data:`STDIN`."""
    text = str(text)
    for path in _copies:
        text = text.replace(repr(path), STDIN).replace(path, STDIN)
    return text


def _suffix(head: bytes) -> str:
    if head.startswith(b"\x1f\x8b"):
        return ".csv.gz"
    if head.startswith(b"PAR1"):
        return ".parquet"
    first = head.split(b"\n", 1)[0]
    return ".tsv" if b"\t" in first and b"," not in first else ".csv"


@contextlib.contextmanager
def standard_input(args):
    """While inside, ``args.data`` names a temporary copy of standard input where it was ``-``."""
    data = getattr(args, "data", None)
    files = [data] if isinstance(data, str) else list(data or [])
    if "-" not in files:
        yield
        return
    if len(files) > 1:
        raise UsageError("--data -: standard input is one table; it cannot be read with other "
                         "files")
    stream = sys.stdin
    if stream is None or stream.isatty():
        raise UsageError("--data -: standard input is a terminal; pipe a table in, e.g. "
                         "'cat train.csv | linclass ...', or name the file")
    source = getattr(stream, "buffer", None)
    if source is None:  # a text stream without bytes beneath (a test's StringIO)
        source = io.BytesIO(stream.read().encode("utf-8"))
    if not hasattr(source, "peek"):
        source = io.BufferedReader(source)
    head = source.peek(4096)[:4096]  # what the stream holds already, not consumed
    if not head:
        from linclass.sources.tables import DataError

        raise DataError(f"--data -: {STDIN} is empty: pipe a table with a header line in")
    with tempfile.TemporaryDirectory(prefix="linclass-stdin-") as folder:
        path = os.path.join(folder, "stdin" + _suffix(head))
        with open(path, "wb") as handle:
            shutil.copyfileobj(source, handle, 1 << 20)
        _copies.add(path)
        args.data = path
        try:
            yield
        finally:
            args.data = "-"
