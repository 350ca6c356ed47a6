"""Ctrl-C is an interrupt wherever it lands: exit status 130 and ``linclass: interrupted``, never a
message about the file.  pandas' C reader turns a KeyboardInterrupt raised in its reads into a
ParserError ("Calling read(nbytes) on source failed. Try engine='python'.") without the interrupt;
the CSV blocks note that SIGINT's handler ran and raise the interrupt again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pd = pytest.importorskip("pandas")

from linclass.cli import main  # noqa: E402
from linclass.sources.csv_blocks import csv_blocks  # noqa: E402

_SWALLOWED = ("Error tokenizing data. C error: Calling read(nbytes) on source failed. "
              "Try engine='python'.")


def _write(path: Path, n: int = 200) -> Path:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3))
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    frame["label"] = (X[:, 0] > 0).astype(int)
    frame.to_csv(path, index=False)
    return path


def _interrupted_read_csv(real):
    """pandas' read_csv whose reader, on its second chunk, gets a Ctrl-C in a read and swallows
    it as its C reader does: SIGINT's handler runs (raising KeyboardInterrupt), and the reader
    raises ParserError in its place."""
    def read_csv(path, **options):
        chunks = real(path, **options)
        if options.get("chunksize") is None:
            return chunks

        class Reader:
            def __init__(self):
                self.n = 0

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                chunks.close()

            def __iter__(self):
                return self

            def __next__(self):
                self.n += 1
                if self.n == 2:
                    try:
                        signal.raise_signal(signal.SIGINT)
                    except KeyboardInterrupt:
                        raise pd.errors.ParserError(_SWALLOWED) from None
                return next(chunks)

        return Reader()
    return read_csv


@pytest.fixture
def swallowing_reader(monkeypatch):
    monkeypatch.setattr(pd, "read_csv", _interrupted_read_csv(pd.read_csv))


def test_an_interrupt_in_the_pandas_reader_stays_an_interrupt(tmp_path, swallowing_reader):
    path = _write(tmp_path / "big.csv")
    _, _, blocks = csv_blocks(path, ",", 50, "pandas")
    with pytest.raises(KeyboardInterrupt):
        for _ in blocks:
            pass


def test_a_parser_error_without_an_interrupt_is_still_a_file_error(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("a,b,label\n1,2,0\n1,2,3,4\n")
    _, _, blocks = csv_blocks(path, ",", 50, "pandas")
    with pytest.raises(ValueError, match="bad.csv"):
        list(blocks)


def test_the_command_exits_130_on_an_interrupt_in_a_chunked_read(tmp_path, capsys,
                                                                  swallowing_reader):
    path = _write(tmp_path / "big.csv")
    code = main(["fit", "--model", "lda", "--data", str(path), "--target", "label",
                 "--chunksize", "50", "--out", str(tmp_path / "m.linclass")])
    out, err = capsys.readouterr()
    assert code == 130
    assert err.strip() == "linclass: interrupted"
    assert "well-formed" not in err and not (tmp_path / "m.linclass").exists()


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="SIGINT to a child process")
def test_sigint_during_a_chunked_prediction(tmp_path):
    """A real Ctrl-C (SIGINT) to ``linclass predict --chunksize`` while it reads a large CSV."""
    small = _write(tmp_path / "small.csv")
    model = tmp_path / "m.linclass"
    assert main(["fit", "--model", "lda", "--data", str(small), "--target", "label",
                 "--out", str(model)]) == 0
    big = _write(tmp_path / "big.csv", n=400_000)
    process = subprocess.Popen(
        [sys.executable, "-m", "linclass", "predict", "--model-file", str(model), "--data",
         str(big), "--chunksize", "2000", "--verbose", "--out", str(tmp_path / "p.csv")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # a shell's background jobs ignore SIGINT, and the child would inherit that
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    first = process.stderr.readline()  # the first block predicted: the reading is under way
    process.send_signal(signal.SIGINT)
    rest = process.stderr.read()
    process.wait(timeout=60)
    assert first, rest
    assert process.returncode == 130, rest
    assert rest.strip().splitlines()[-1] == "linclass: interrupted"
    assert "well-formed" not in rest and "Traceback" not in rest
    assert not (tmp_path / "p.csv").exists()
