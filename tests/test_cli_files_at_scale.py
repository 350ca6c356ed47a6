"""A data set written as many files (a directory, a glob, several --data), damaged files named, an ID
column carried to the predictions, and what a long chunked fit says (passes, --train-score,
--verbose): the command in-process, on small files."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from conftest import cli, one_error_line
from linclass import load
from linclass.exceptions import DataError
from linclass.sources.files import FileSource
from linclass.sources.tables import read_table

pd = pytest.importorskip("pandas")
pq = pytest.importorskip("pyarrow.parquet")


def _frame(seed: int, n: int = 120):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    frame.insert(0, "key", [f"r{seed}-{i:03d}" for i in range(n)])  # an ID: text
    frame["label"] = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")
    return frame


@pytest.fixture(scope="module")
def parts(tmp_path_factory):
    """Three Parquet parts (row groups of 50 rows), the same rows as one CSV per part, and the
    whole table in one file."""
    root = tmp_path_factory.mktemp("parts")
    (root / "pq").mkdir()
    (root / "csv").mkdir()
    frames = [_frame(seed) for seed in range(3)]
    for i, frame in enumerate(frames):
        frame.to_parquet(root / "pq" / f"part-{i}.parquet", row_group_size=50, index=False)
        frame.to_csv(root / "csv" / f"part-{i}.csv", index=False)
    (root / "pq" / "_SUCCESS").write_text("")  # what Spark leaves: not a data file
    pd.concat(frames).to_csv(root / "whole.csv", index=False)
    return root


def _fit(tmp_path, capsys, *data, extra=(), model="lda"):
    out = tmp_path / "m.linclass"
    code, text, err = cli(["fit", "--model", model, "--data", *data, "--target", "label",
                           "--drop", "key", "--out", out, *extra], capsys)
    assert code == 0, err
    return load(out), text, err


@pytest.mark.parametrize("chunked", [False, True])
def test_a_directory_a_glob_and_several_files_read_as_the_whole_table(parts, tmp_path, capsys,
                                                                      chunked):
    extra = ("--chunksize", "40") if chunked else ()
    whole, _, _ = _fit(tmp_path, capsys, parts / "whole.csv")
    pq_files = sorted(str(p) for p in (parts / "pq").glob("*.parquet"))
    for data in ([parts / "pq"], [parts / "csv"], [str(parts / "pq" / "part-*.parquet")],
                 pq_files, [parts / "csv" / "part-0.csv", parts / "pq" / "part-1.parquet",
                            parts / "csv" / "part-2.csv"]):
        model, text, _ = _fit(tmp_path, capsys, *data, extra=extra)
        np.testing.assert_allclose(model.coef_, whole.coef_, rtol=1e-9)
        assert "360 rows" in text
    _, text, _ = _fit(tmp_path, capsys, parts / "pq", extra=extra)
    assert f"3 files in {parts / 'pq'}" in text
    # repeated --data too
    model, _, _ = _fit(tmp_path, capsys, pq_files[0], "--data", pq_files[1], "--data", pq_files[2],
                       extra=extra)
    np.testing.assert_allclose(model.coef_, whole.coef_, rtol=1e-9)


def test_file_source_and_read_table_take_a_directory_a_glob_and_a_list(parts):
    X, y, _ = read_table(parts / "whole.csv", "label", features=["a", "b", "c"])
    for spec in (parts / "pq", str(parts / "pq" / "*.parquet"),
                 sorted((parts / "csv").glob("*.csv"))):
        X2, y2, _ = read_table(spec, "label", features=["a", "b", "c"])
        np.testing.assert_array_equal(X2, X)
        np.testing.assert_array_equal(y2, y)
        source = FileSource(spec, "label", 35, features=["a", "b", "c"])
        chunks = list(source.chunks())
        assert max(c.X.shape[0] for c in chunks) <= 35
        np.testing.assert_array_equal(np.concatenate([c.X for c in chunks]), X)
        assert [c.start for c in chunks] == list(np.cumsum([0] + [c.X.shape[0] for c in chunks])[:-1])


def test_mismatched_columns_an_empty_directory_and_a_glob_matching_nothing(parts, tmp_path, capsys):
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    _frame(0).to_parquet(mixed / "a.parquet", index=False)
    _frame(1).rename(columns={"c": "z"}).to_parquet(mixed / "b.parquet", index=False)
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("x")
    for data, said in ((mixed, "b.parquet' has other columns than"),
                       (empty, "is a directory with no data files"),
                       (tmp_path / "nothing-*.parquet", "matches no file")):
        for extra in ((), ("--chunksize", "10")):
            code, out, err = cli(["fit", "--model", "lda", "--data", data, "--target", "label",
                                  "--drop", "key", "--out", tmp_path / "m.linclass", *extra], capsys)
            line = one_error_line(code, err, out)
            assert code == 1 and said in line, line
    with pytest.raises(DataError, match="lacks 'c'; it has 'z' besides"):
        FileSource(mixed, "label", 10)


def _damaged(path, out):
    """``path`` with the header of the data page of its second row group's first column overwritten."""
    column = pq.ParquetFile(path).metadata.row_group(1).column(1)
    data = bytearray(path.read_bytes())
    start = column.data_page_offset
    data[start:start + 16] = b"\xff" * 16
    out.write_bytes(bytes(data))
    return out


def test_a_damaged_or_truncated_parquet_file_is_named(parts, tmp_path, capsys):
    bad = _damaged(parts / "pq" / "part-1.parquet", tmp_path / "bad.parquet")
    truncated = tmp_path / "cut.parquet"
    truncated.write_bytes((parts / "pq" / "part-2.parquet").read_bytes()[:1500])
    for extra in ((), ("--chunksize", "20")):
        code, out, err = cli(["fit", "--model", "lda", "--data", bad, "--target", "label",
                              "--drop", "key", "--out", tmp_path / "m.linclass", *extra], capsys)
        line = one_error_line(code, err, out)
        assert code == 1 and "bad.parquet' is damaged: row group 2 of 3" in line, line
    _fit(tmp_path, capsys, parts / "pq")
    for extra in ((), ("--chunksize", "20")):
        code, out, err = cli(["predict", "--model-file", tmp_path / "m.linclass", "--data",
                              parts / "pq" / "part-0.parquet", truncated, *extra], capsys)
        line = one_error_line(code, err, out)
        assert code == 1 and "cut.parquet' is not a readable Parquet file" in line, line
    for chunksize in (None, 30):
        with pytest.raises(DataError, match=r"bad\.parquet' is damaged: row group 2 of 3 \(after row 50\)"):
            read_table(bad, "label", features=["a"]) if chunksize is None else \
                list(read_table(bad, "label", chunksize=chunksize, features=["a"]))
    with pytest.raises(DataError, match="bad.parquet' is damaged"):
        list(FileSource([parts / "pq" / "part-0.parquet", bad], "label", 30, features=["a"]).chunks())


@pytest.mark.parametrize("chunked", [False, True])
def test_predict_carries_the_id_column_first(parts, tmp_path, capsys, chunked):
    _fit(tmp_path, capsys, parts / "pq")
    extra = ["--chunksize", "45"] if chunked else []
    expected = pd.concat([_frame(seed) for seed in range(3)])
    for data, column in ((parts / "pq", "key"), (parts / "csv", "key"), (parts / "pq", "a")):
        code, out, err = cli(["predict", "--model-file", tmp_path / "m.linclass", "--data", data,
                              "--id-column", column, "--proba", *extra], capsys)
        assert code == 0, err
        rows = list(csv.reader(io.StringIO(out)))
        assert rows[0] == [column, "prediction", "proba_no", "proba_yes"]
        assert len(rows) == 361
        got = [r[0] for r in rows[1:]]
        if column == "key":
            assert got == list(expected["key"])
        else:
            np.testing.assert_allclose(np.array(got, dtype=float), expected["a"], rtol=1e-15)
    code, out, err = cli(["predict", "--model-file", tmp_path / "m.linclass", "--data",
                          parts / "pq", "--id-column", "nope", *extra], capsys)
    line = one_error_line(code, err, out)
    assert code == 1 and "has no column 'nope'" in line
    code, out, err = cli(["predict", "--model-file", tmp_path / "m.linclass", "--dataset", "iris",
                          "--id-column", "key"], capsys)
    assert code == 2 and "--id-column goes with --data" in one_error_line(code, err, out)


def test_a_chunked_fit_prints_its_passes_and_scores_only_when_asked(parts, tmp_path, capsys):
    _, text, _ = _fit(tmp_path, capsys, parts / "pq", extra=("--chunksize", "40"))
    assert "1 pass over the data" in text and "training accuracy" not in text
    _, text, _ = _fit(tmp_path, capsys, parts / "pq", extra=("--chunksize", "40", "--train-score"))
    assert "1 pass over the data" in text and "training accuracy 0.9" in text
    _, text, _ = _fit(tmp_path, capsys, parts / "pq", model="logistic", extra=("--chunksize", "40"))
    passes = int(text.split(" passes over the data")[0].rsplit(" ", 1)[1])
    assert passes >= 3
    _, text, _ = _fit(tmp_path, capsys, parts / "pq")  # in memory: as before
    assert "training accuracy" in text and "pass" not in text
    code, out, err = cli(["fit", "--model", "lda", "--data", parts / "pq", "--target", "label",
                          "--drop", "key", "--train-score", "--out", tmp_path / "m.linclass"], capsys)
    assert code == 2 and "--train-score goes with --chunksize" in one_error_line(code, err, out)


def test_verbose_says_each_pass_and_block_and_is_quiet_otherwise(parts, tmp_path, capsys):
    _, text, err = _fit(tmp_path, capsys, parts / "pq", model="logistic",
                        extra=("--chunksize", "40", "--verbose"))
    passes = int(text.split(" passes over the data")[0].rsplit(" ", 1)[1])
    lines = err.strip().splitlines()
    assert len(lines) == passes
    assert lines[0].startswith("linclass: pass 1 over the data: 360 rows in 15 chunks")
    _, _, err = _fit(tmp_path, capsys, parts / "pq", model="logistic", extra=("--chunksize", "40"))
    assert err == ""  # not a terminal: no progress bar
    code, out, err = cli(["predict", "--model-file", tmp_path / "m.linclass", "--data", parts / "pq",
                          "--chunksize", "100", "--verbose"], capsys)
    assert code == 0, err
    said = [line for line in err.splitlines() if line.startswith("linclass: predicted rows")]
    assert said[0].startswith("linclass: predicted rows 1-50 ")  # blocks end at row groups
    assert said[-1].startswith("linclass: predicted rows 341-360 ")


@pytest.mark.parametrize("chunked", [False, True])
def test_a_csv_id_column_is_carried_as_written(tmp_path, capsys, chunked):
    """'007' stays '007' (not 7) and a missing ID is an empty field, with either CSV reader."""
    frame = _frame(5, n=40)
    _fit(tmp_path, capsys, _write(frame, tmp_path / "train.csv"))
    frame["key"] = [f"{i:03d}" for i in range(40)]
    frame.loc[3, "key"] = None
    path = _write(frame, tmp_path / "new.csv")
    extra = ["--chunksize", "15"] if chunked else []
    code, out, err = cli(["predict", "--model-file", tmp_path / "m.linclass", "--data", path,
                          "--id-column", "key", *extra], capsys)
    assert code == 0, err
    got = [row[0] for row in csv.reader(io.StringIO(out))]
    assert got[:6] == ["key", "000", "001", "002", "", "004"] and got[-1] == "039"


def _write(frame, path):
    frame.to_csv(path, index=False)
    return path
