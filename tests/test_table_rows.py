"""A CSV row with the wrong number of fields is named as such (issue 24, finding 9): which row (and
line), how many fields it has and how many the header has, by both CSV readers, whole and in chunks,
and through the command; never as a column that "is not numeric" or "has a missing value" because
the fields after the gap moved left.  A row whose last field is present but empty is a missing value,
not a short row.  (Parquet is columnar: its rows cannot be ragged.)
"""

from __future__ import annotations

import pytest

from conftest import cli, one_error_line
from linclass.sources.files import FileSource
from linclass.sources.tables import DataError, read_table

HEADER = "a,b,c,d,label\n"
ROWS = ["5.1,3.5,1.4,0.2,setosa", "4.9,3.0,1.4,0.2,setosa", "4.7,3.2,1.3,0.2,setosa",
        "4.6,3.1,1.5,0.2,setosa", "5.0,3.6,1.4,0.2,setosa", "5.4,3.9,1.7,0.4,versicolor",
        "5.5,2.3,4.0,1.3,versicolor", "6.5,2.8,4.6,1.5,versicolor"]


def write(path, rows, header=HEADER):
    path.write_text(header + "\n".join(rows) + "\n")
    return path


def with_row(k, row):
    """ROWS with row ``k`` (from 1) replaced."""
    return [row if i == k - 1 else r for i, r in enumerate(ROWS)]


RAGGED = {  # name: (row 5's text, fields it has)
    "a field missing in the middle": ("5.0,3.6,1.4,setosa", 4),
    "the label missing": ("5.0,3.6,1.4,0.2", 4),
    "two fields missing": ("5.0,3.6,setosa", 3),
    "a field too many": ("5.0,3.6,1.4,0.2,setosa,9", 6),
}


def read(path, engine, chunksize, target="label", features=None):
    result = read_table(path, target, engine=engine, chunksize=chunksize, features=features)
    return list(result) if chunksize else [result]


@pytest.mark.parametrize("case", list(RAGGED))
@pytest.mark.parametrize("chunksize", [None, 2, 3])
@pytest.mark.parametrize("engine", ["pandas", "csv"])
def test_a_ragged_row_is_named_as_such(case, engine, chunksize, tmp_path):
    row, fields = RAGGED[case]
    path = write(tmp_path / "t.csv", with_row(5, row))
    with pytest.raises(DataError) as caught:
        read(path, engine, chunksize)
    message = str(caught.value)
    assert f"row 5 (line 6) has {fields} fields but the header has 5" in message
    assert "not numeric" not in message and "has a missing value" not in message


@pytest.mark.parametrize("engine", ["pandas", "csv"])
def test_a_ragged_row_is_found_whichever_columns_are_read(engine, tmp_path):
    path = write(tmp_path / "t.csv", with_row(7, "5.5,2.3,4.0,versicolor"))
    for chunksize in (None, 4):
        with pytest.raises(DataError, match="row 7 .*has 4 fields but the header has 5"):
            read(path, engine, chunksize, features=["a", "b"])


@pytest.mark.parametrize("engine", ["pandas", "csv"])
def test_an_empty_last_field_is_a_missing_value_not_a_short_row(engine, tmp_path):
    path = write(tmp_path / "t.csv", with_row(5, "5.0,3.6,1.4,0.2,"))
    with pytest.raises(DataError, match="column 'label' has a missing value in row 5"):
        read(path, engine, None)
    path = write(tmp_path / "u.csv", with_row(5, "5.0,3.6,1.4,0.2,"), header="a,b,c,label,note\n")
    for chunksize in (None, 2):  # the empty column is not read: no error at all
        blocks = read(path, engine, chunksize, features=["a", "b", "c"])
        assert sum(X.shape[0] for X, _, _ in blocks) == len(ROWS)


def test_a_file_source_names_the_ragged_row(tmp_path):
    path = write(tmp_path / "t.csv", with_row(6, "5.4,3.9,1.7,versicolor"))
    with pytest.raises(DataError, match="row 6 .*has 4 fields but the header has 5"):
        source = FileSource(path, "label", 2)
        list(source.chunks())


@pytest.mark.parametrize("command, chunksize", [
    ("fit", []), ("fit", ["--chunksize", "2"]), ("evaluate", []), ("predict", []),
    ("predict", ["--chunksize", "2"]),
])
def test_the_command_names_the_ragged_row(command, chunksize, tmp_path, capsys):
    """Finding 9: a missing field was reported as "column 'd' is not numeric: row 5 holds
    'setosa'"."""
    good = write(tmp_path / "good.csv", ROWS)
    bad = write(tmp_path / "bad.csv", with_row(5, "5.0,3.6,1.4,setosa"))
    model = tmp_path / "m.linclass"
    assert cli(["fit", "--model", "lda", "--data", good, "--target", "label", "--out", model],
               capsys)[0] == 0
    argv = {"fit": ["fit", "--model", "lda", "--data", bad, "--target", "label", "--out", model],
            "evaluate": ["evaluate", "--model", "lda", "--data", bad, "--target", "label", "--cv", "2"],
            "predict": ["predict", "--model-file", model, "--data", bad, "--target", "label"]}[command]
    code, out, err = cli(argv + chunksize, capsys)
    line = one_error_line(code, err, out)
    assert "row 5 (line 6) has 4 fields but the header has 5" in line
    assert code == 1
