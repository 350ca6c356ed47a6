"""The errors a user's file or ``--param`` meets say what to do: a ';'-separated (or decimal-comma,
or tab-separated) file saved as .csv is named as such, a '?' that marks missing values is named, a
Python tuple is read as a list (and a bad list says how lists are written), and missing labels are
named with their rows instead of "Labels in y mix types ['NoneType', 'str']"."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

import linclass
from linclass.cli import main, parse_param


def _error(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code != 0 and len(lines) == 1 and lines[0].startswith("linclass: error: "), err
    return code, lines[0]


def _evaluate(path):
    return ["evaluate", "--model", "lda", "--data", path, "--target", "Class", "--cv", "2"]


def test_semicolon_file_with_decimal_commas_is_named(tmp_path, capsys):
    path = tmp_path / "wine.csv"
    path.write_text("alcohol;ash;Class\n14,23;2,43;a\n13,2;2,14;b\n13,16;2,67;a\n14,37;2,5;b\n")
    code, line = _error(_evaluate(path), capsys)
    assert code == 1
    assert "has no column 'Class'" in line
    assert "the file looks ';'-separated, with decimal commas (1,5)" in line
    assert "pd.read_csv(f, sep=';', decimal=',')" in line and "read.csv2(f)" in line


def test_semicolon_file_with_decimal_points_is_named(tmp_path, capsys):
    path = tmp_path / "wine.csv"
    path.write_text("alcohol;ash;Class\n14.23;2.43;a\n13.2;2.14;b\n")
    _, line = _error(_evaluate(path), capsys)
    assert "the file looks ';'-separated." in line and "decimal" not in line.split("looks")[1][:40]
    assert "pd.read_csv(f, sep=';')" in line


def test_tab_separated_csv_is_told_to_be_a_tsv(tmp_path, capsys):
    path = tmp_path / "wine.csv"
    path.write_text("alcohol\tash\tClass\n14.23\t2.43\ta\n13.2\t2.14\tb\n")
    _, line = _error(_evaluate(path), capsys)
    assert "the file looks tab-separated" in line and "name it .tsv" in line


def test_a_comma_file_without_the_column_gets_no_delimiter_hint(tmp_path, capsys):
    path = tmp_path / "wine.csv"
    path.write_text("alcohol,ash,label\n14.23,2.43,a\n13.2,2.14,b\n")
    _, line = _error(_evaluate(path), capsys)
    assert "has no column 'Class'" in line and "separated" not in line


def test_a_question_mark_for_missing_values_is_named(tmp_path, capsys):
    path = tmp_path / "breast.csv"
    path.write_text("a,b,Class\n1,2,x\n?,3,y\n2,1,x\n3,3,y\n")
    _, line = _error(_evaluate(path), capsys)
    assert "row 2 holds '?'" in line
    assert "If '?' marks a missing value" in line and "na_values=['?']" in line


def test_a_python_tuple_param_is_a_list(capsys):
    assert parse_param("l1_ratios=(1,)") == ("l1_ratios", (1,))
    assert parse_param("l1_ratios=(0, 0.5, 1)") == ("l1_ratios", (0, 0.5, 1))
    code = main(["evaluate", "--model", "logistic-cv", "--dataset", "iris", "--cv", "3",
                 "--param", "l1_ratios=(1,)", "--param", "Cs=3"])
    capsys.readouterr()
    assert code == 0


@pytest.mark.parametrize("text", ["x=(1)", "x=(a,", "x=(__import__('os'),)"])
def test_a_bad_tuple_says_how_lists_are_written(text):
    with pytest.raises(argparse.ArgumentTypeError, match=r"written \[1\] or \[0, 0.5, 1\]"):
        parse_param(text)


def test_a_refused_list_value_says_how_lists_are_written(capsys):
    code, line = _error(["evaluate", "--model", "logistic-cv", "--dataset", "iris", "--param",
                         "l1_ratios=0,1"], capsys)
    assert code == 2 and "a list is written [1] or [0, 0.5, 1]" in line


@pytest.mark.parametrize("missing", [None, np.nan])
def test_missing_labels_are_named_with_their_rows(missing):
    X = np.random.default_rng(0).normal(size=(8, 2))
    y = np.array(["a", "b", missing, "a", "b", "a", missing, "b"], dtype=object)
    for model in (linclass.LinearDiscriminantAnalysis(), linclass.LogisticRegression()):
        with pytest.raises(ValueError, match=r"y has 2 missing labels \(None or NaN\) at rows 2, 6"):
            model.fit(X, y)


def test_labels_of_two_types_are_still_refused_as_such():
    X = np.random.default_rng(0).normal(size=(6, 2))
    with pytest.raises(ValueError, match=r"mix types \['int', 'str'\]"):
        linclass.LinearDiscriminantAnalysis().fit(X, np.array(["a", 1] * 3, dtype=object))


@pytest.mark.parametrize("chunked", [[], ["--chunksize", "2"]])
def test_na_values_reads_a_mark_as_missing(tmp_path, capsys, chunked):
    path = tmp_path / "breast.csv"
    path.write_text("a,b,Class\n1,2,x\n ? ,3,y\n2,1,x\n3,3,y\n")
    code, line = _error(["fit", "--model", "lda", "--data", path, "--target", "Class",
                         "--na-values", "?", *chunked, "--out", tmp_path / "m.linclass"], capsys)
    assert code == 1 and "column 'a' has a missing value in row 2 (1 in all)" in line


def test_na_values_names_a_missing_label(tmp_path, capsys):
    path = tmp_path / "labels.csv"
    path.write_text("a,b,Class\n1,2,x\n4,3,?\n2,1,x\n3,3,y\n")
    code, line = _error(_evaluate(path) + ["--na-values", "?", "NA?"], capsys)
    assert code == 1 and "column 'Class' has a missing value in row 2" in line


def test_na_values_goes_with_files_only(capsys):
    code, line = _error(["evaluate", "--model", "lda", "--dataset", "iris", "--na-values", "?"],
                        capsys)
    assert code == 2 and "--na-values goes with --data" in line


@pytest.mark.parametrize("engine", ["pandas", "csv"])
def test_more_na_values_in_both_readers(tmp_path, engine):
    from linclass.sources.csv_blocks import more_na_values
    from linclass.sources.tables import DataError, read_table

    path = tmp_path / "q.csv"
    path.write_text("a,b,Class\n1,2,x\n?,3,y\n2,1,x\n")
    with pytest.raises(DataError, match="is not numeric: row 2 holds '\\?'"):
        read_table(path, "Class", engine=engine)
    with more_na_values(["?"]), pytest.raises(DataError, match="missing value in row 2"):
        read_table(path, "Class", engine=engine)
    X, _, _ = read_table(path, "Class", engine=engine, features=["b"])  # '?' only in 'a'
    assert X.shape == (3, 1)


WINE_EU = "alcohol;ash;Class\n14,23;2,43;a\n13,2;2,14;b\n13,16;2,67;a\n14,37;2,5;b\n12,5;1,9;a\n13,8;2,2;b\n"


def test_the_delimiter_hint_names_the_options_that_read_the_file(tmp_path, capsys):
    path = tmp_path / "wine.csv"
    path.write_text(WINE_EU)
    _, line = _error(_evaluate(path), capsys)
    assert "with --sep ';' --decimal ," in line and "csv_dialect(sep=';', decimal=',')" in line


@pytest.mark.parametrize("chunked", [[], ["--chunksize", "2"]])
def test_sep_and_decimal_read_a_semicolon_file_with_decimal_commas(tmp_path, capsys, chunked):
    path, plain = tmp_path / "wine.csv", tmp_path / "plain.csv"
    path.write_text(WINE_EU)
    plain.write_text(WINE_EU.replace(",", ".").replace(";", ","))
    fitted = []
    for file, options in ((path, ["--sep", ";", "--decimal", ","]), (plain, [])):
        out = tmp_path / f"{file.stem}.linclass"
        assert main(["fit", "--model", "lda", "--data", str(file), "--target", "Class", *options,
                     *chunked, "--out", str(out)]) == 0, capsys.readouterr().err
        fitted.append(linclass.load(out))
    np.testing.assert_array_equal(fitted[0].means_, fitted[1].means_)
    np.testing.assert_allclose(fitted[0].means_[0], [(14.23 + 13.16 + 12.5) / 3,
                                                     (2.43 + 2.67 + 1.9) / 3])


@pytest.mark.parametrize("engine", ["pandas", "csv"])
def test_csv_dialect_in_both_readers(tmp_path, engine):
    from linclass.sources.csv_blocks import csv_dialect
    from linclass.sources.tables import read_table

    path = tmp_path / "eu.csv"
    path.write_text("a;b;Class\n1,5;-2;x,1\n,25;3e2;y\n2,0;1,;x,1\n")
    with csv_dialect(sep=";", decimal=","):
        X, y, names = read_table(path, "Class", engine=engine)
    np.testing.assert_array_equal(X, [[1.5, -2.0], [0.25, 300.0], [2.0, 1.0]])
    assert list(y) == ["x,1", "y", "x,1"] and names == ["a", "b"]  # labels stay as written


def test_bad_sep_and_decimal_are_refused(tmp_path, capsys):
    from linclass.sources.csv_blocks import csv_dialect

    path = tmp_path / "wine.csv"
    path.write_text(WINE_EU)
    code, line = _error(_evaluate(path) + ["--sep", ";;"], capsys)
    assert code == 2 and "not one character" in line
    code, line = _error(_evaluate(path) + ["--decimal", ","], capsys)  # a .csv: ',' between fields
    assert code == 1 and "cannot hold decimal commas" in line and "--sep" in line
    code, line = _error(["evaluate", "--model", "lda", "--dataset", "iris", "--sep", ";"], capsys)
    assert code == 2 and "--sep and --decimal go with --data" in line
    with pytest.raises(ValueError, match="both ','"), csv_dialect(sep=",", decimal=","):
        pass
