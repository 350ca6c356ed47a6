"""A row index that pandas wrote is never a feature (finding 2).

Parquet: the columns the file's pandas metadata names as the index (``__index_level_0__`` after
``pd.concat(...).to_parquet(...)``, or a named index).  CSV: an unnamed first column that counts the
rows 0, 1, 2, ... (``DataFrame.to_csv`` with its default ``index=True``) is skipped with a warning; an
unnamed first column that does not count the rows is refused, saying what it is not and what to do.
Both CSV engines, whole and in chunks, and through the command.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from linclass.cli import main
from linclass.sources.files import FileSource
from linclass.sources.tables import DataError, feature_columns, read_table

pytest.importorskip("pyarrow")


def frame(n=8, seed=0):
    rng = np.random.default_rng(seed)
    data = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n) * 10})
    data["label"] = np.arange(n) % 2
    return data


def read_quietly(*args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = read_table(*args, **kwargs)
        if kwargs.get("chunksize"):
            result = list(result)
    return result, [str(w.message) for w in caught]


# ------------------------------------------------------------------------------------- Parquet
def test_parquet_index_of_a_concatenated_frame_is_not_a_feature(tmp_path):
    data = pd.concat([frame(), frame(seed=1)])  # index 0..7, 0..7: stored as __index_level_0__
    data.to_parquet(tmp_path / "t.parquet")
    import pyarrow.parquet as pq

    assert "__index_level_0__" in pq.ParquetFile(tmp_path / "t.parquet").schema_arrow.names
    (X, y, names), said = read_quietly(tmp_path / "t.parquet", "label")
    assert names == ["a", "b"] and said == []
    np.testing.assert_array_equal(X, data[["a", "b"]].to_numpy())
    assert feature_columns(tmp_path / "t.parquet", "label") == ["a", "b"]
    chunks, _ = read_quietly(tmp_path / "t.parquet", "label", chunksize=5)
    assert all(c[2] == ["a", "b"] for c in chunks)
    assert FileSource(tmp_path / "t.parquet", "label", 5).n_features == 2


def test_a_named_parquet_index_is_not_a_feature_unless_asked_for(tmp_path):
    data = frame()
    data["id"] = [103, 101, 107, 100, 102, 104, 106, 105]  # not a range: stored as a column
    data.set_index("id").to_parquet(tmp_path / "t.parquet")
    assert read_table(tmp_path / "t.parquet", "label")[2] == ["a", "b"]
    X, _, names = read_table(tmp_path / "t.parquet", "label", features=["id", "a"])
    assert names == ["id", "a"] and X[0, 0] == 103


def test_a_range_index_is_metadata_only(tmp_path):
    frame().to_parquet(tmp_path / "t.parquet")  # RangeIndex: no column at all
    assert read_table(tmp_path / "t.parquet", "label")[2] == ["a", "b"]


# ----------------------------------------------------------------------------------------- CSV
@pytest.mark.parametrize("engine", ["pandas", "csv"])
@pytest.mark.parametrize("chunksize", [None, 3])
def test_csv_row_index_is_skipped_with_a_warning(engine, chunksize, tmp_path):
    data = frame()
    data.to_csv(tmp_path / "t.csv")  # header ",a,b,label"
    assert (tmp_path / "t.csv").read_text().startswith(",a,b,label\n0,")
    result, said = read_quietly(tmp_path / "t.csv", "label", engine=engine, chunksize=chunksize)
    blocks = result if chunksize else [result]
    X = np.concatenate([b[0] for b in blocks])
    assert all(b[2] == ["a", "b"] for b in blocks)
    np.testing.assert_allclose(X, data[["a", "b"]].to_numpy(), rtol=1e-15)
    assert len(said) == 1  # once, not once per chunk
    assert "column 1 has no name and counts the rows 0, 1, 2, ..." in said[0]
    assert "index=False" in said[0]
    assert feature_columns(tmp_path / "t.csv", "label") == ["a", "b"]


@pytest.mark.parametrize("engine", ["pandas", "csv"])
@pytest.mark.parametrize("chunksize", [None, 5])
def test_csv_unnamed_column_that_is_not_a_row_index_is_refused(engine, chunksize, tmp_path):
    pd.concat([frame(), frame(seed=1)]).to_csv(tmp_path / "t.csv")  # the index restarts at row 9
    with pytest.raises(DataError) as caught:
        read_quietly(tmp_path / "t.csv", "label", engine=engine, chunksize=chunksize)
    message = str(caught.value)
    assert "column 1 of the header has no name and is not a row index pandas wrote" in message
    assert "row 9 holds 0 where a row index holds 8" in message
    assert "Name it in the header" in message and "index=False" in message


@pytest.mark.parametrize("engine", ["pandas", "csv"])
def test_csv_unnamed_text_column_is_refused(engine, tmp_path):
    (tmp_path / "t.csv").write_text(",a,label\nx,1,0\ny,2,1\n")
    with pytest.raises(DataError, match="row 1 holds 'x' where a row index holds 0"):
        read_table(tmp_path / "t.csv", "label", engine=engine)


def test_csv_unnamed_column_elsewhere_is_refused_as_before(tmp_path):
    (tmp_path / "t.csv").write_text("a,,label\n1,2,0\n3,4,1\n")
    with pytest.raises(DataError, match="column 2 of the header has no name"):
        read_table(tmp_path / "t.csv", "label")


# ------------------------------------------------------------------------------------- command
def test_the_command_says_it_skipped_the_index_once(tmp_path, capsys):
    data = frame(n=40)
    data.to_csv(tmp_path / "t.csv")
    code = main(["fit", "--model", "lda", "--data", str(tmp_path / "t.csv"), "--target", "label",
                 "--out", str(tmp_path / "m.linclass")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "(40 rows, 2 features, 2 classes)" in out
    lines = [line for line in err.splitlines() if "row index" in line]
    assert len(lines) == 1 and lines[0].startswith("linclass: warning: ")
    pd.concat([data, data]).to_csv(tmp_path / "u.csv")
    code = main(["evaluate", "--model", "lda", "--data", str(tmp_path / "u.csv"), "--target", "label"])
    out, err = capsys.readouterr()
    assert code == 1 and err.count("\n") == 1 and "is not a row index pandas wrote" in err


# ------------------------------------------------- with a column selection (issue 24, finding 6)
@pytest.mark.parametrize("engine", ["pandas", "csv"])
@pytest.mark.parametrize("chunksize", [None, 5])
def test_csv_unnamed_column_is_checked_whatever_features_are_chosen(engine, chunksize, tmp_path):
    """An unnamed first column was neither checked nor warned about when the features were named:
    the file's row index is the same whichever columns are read."""
    pd.concat([frame(), frame(seed=1)]).to_csv(tmp_path / "t.csv")  # the index restarts at row 9
    with pytest.raises(DataError, match="row 9 holds 0 where a row index holds 8"):
        read_quietly(tmp_path / "t.csv", "label", features=["b"], engine=engine, chunksize=chunksize)
    frame(n=16).to_csv(tmp_path / "u.csv")  # a real row index: skipped, with the warning
    result, said = read_quietly(tmp_path / "u.csv", "label", features=["b"], engine=engine,
                                chunksize=chunksize)
    X = np.concatenate([b[0] for b in result]) if chunksize else result[0]
    assert X.shape == (16, 1)
    assert len(said) == 1 and "counts the rows 0, 1, 2, ..." in said[0]


@pytest.mark.parametrize("selection", [["--drop", "a"], ["--drop", "0"], ["--features", "b"],
                                       ["--features", "b", "a", "--drop", "a"]])
@pytest.mark.parametrize("command", ["fit", "evaluate"])
def test_the_command_refuses_an_unnamed_column_with_drop_or_features(selection, command, tmp_path,
                                                                     capsys):
    """Finding 6: with --drop or --features an unnamed first column that is not a row index was
    dropped silently (without them it was refused)."""
    data = frame(n=40)
    pd.concat([data, data]).to_csv(tmp_path / "t.csv")
    argv = [command, "--model", "lda", "--data", str(tmp_path / "t.csv"), "--target", "label",
            *selection] + (["--out", str(tmp_path / "m.linclass")] if command == "fit" else [])
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 1, out
    assert err.count("\n") == 1 and "is not a row index pandas wrote" in err
    assert "row 41 holds 0 where a row index holds 40" in err


@pytest.mark.parametrize("selection", [["--drop", "a"], ["--features", "b"]])
def test_the_command_says_it_skipped_the_index_with_drop_or_features(selection, tmp_path, capsys):
    """Finding 6: with --drop or --features, a real row index's warning was lost."""
    frame(n=40).to_csv(tmp_path / "t.csv")
    code = main(["fit", "--model", "lda", "--data", str(tmp_path / "t.csv"), "--target", "label",
                 *selection, "--out", str(tmp_path / "m.linclass")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "(40 rows, 1 features, 2 classes)" in out
    lines = [line for line in err.splitlines() if "row index" in line]
    assert len(lines) == 1 and lines[0].startswith("linclass: warning: ")


def test_predict_checks_the_unnamed_column_too(tmp_path, capsys):
    """predict reads the model's features by name; the file's unnamed first column is checked (and
    a real row index skipped with the warning) as in fit."""
    data = frame(n=40)
    data.to_csv(tmp_path / "train.csv", index=False)
    model = tmp_path / "m.linclass"
    assert main(["fit", "--model", "lda", "--data", str(tmp_path / "train.csv"), "--target", "label",
                 "--out", str(model)]) == 0
    data.to_csv(tmp_path / "new.csv")
    pd.concat([data, data]).to_csv(tmp_path / "bad.csv")
    for chunksize in ([], ["--chunksize", "7"]):
        capsys.readouterr()
        code = main(["predict", "--model-file", str(model), "--data", str(tmp_path / "new.csv"),
                     *chunksize])
        out, err = capsys.readouterr()
        assert code == 0, err
        assert len(out.splitlines()) == 41
        assert len([line for line in err.splitlines() if "row index" in line]) == 1
        code = main(["predict", "--model-file", str(model), "--data", str(tmp_path / "bad.csv"),
                     *chunksize])
        out, err = capsys.readouterr()
        errors = [line for line in err.splitlines() if line.startswith("linclass: error: ")]
        assert code == 1 and len(errors) == 1 and "is not a row index pandas wrote" in errors[0]
        assert err.splitlines()[-1] == errors[0]  # (in chunks: after the first block's warning)


# --------------------------------------------------------- in many passes (issue 24, finding 7)
@pytest.mark.parametrize("engine", ["pandas", "csv"])
def test_a_file_source_warns_about_the_index_once_for_all_its_passes(engine, tmp_path, monkeypatch):
    """Each pass of a chunked fit rereads the file: the warning belongs to the file, not the pass."""
    frame(n=30).to_csv(tmp_path / "t.csv")
    if engine == "csv":
        monkeypatch.setitem(__import__("sys").modules, "pandas", None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        source = FileSource(tmp_path / "t.csv", "label", 7)
        for _ in range(3):
            rows = sum(chunk.X.shape[0] for chunk in source.chunks())
    assert rows == 30 and source.n_features == 2
    said = [str(w.message) for w in caught]
    assert len(said) == 1 and "counts the rows 0, 1, 2, ..." in said[0]


def test_fit_in_chunks_says_it_skipped_the_index_once(tmp_path, capsys):
    """Finding 7: fit --chunksize repeated the warning once per pass (100 lines for a logistic fit)."""
    frame(n=60).to_csv(tmp_path / "t.csv")
    for model in ("lda", "logistic"):
        code = main(["fit", "--model", model, "--data", str(tmp_path / "t.csv"), "--target", "label",
                     "--chunksize", "16", "--out", str(tmp_path / "m.linclass")])
        out, err = capsys.readouterr()
        assert code == 0, err
        assert "(60 rows, 2 features, read 16 rows at a time; " in out and "over the data)" in out
        lines = [line for line in err.splitlines() if "row index" in line]
        assert len(lines) == 1, err
