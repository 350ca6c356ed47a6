"""Tests of the data readers of linclass.datasets: bundled data sets, CSV and Parquet tables
(linclass.sources.tables), files as chunk sources (linclass.sources.files), and their errors."""

from __future__ import annotations

import gzip
import sys

import numpy as np
import pytest

from linclass.datasets import DATASETS, DataError, FileSource, load_dataset, read_table

ENGINES = ["pandas", "csv"]


def write(path, text: str):
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def basic_csv(tmp_path):
    # target in the middle, quoted header with a comma, quoted numbers and labels, a blank line
    return write(tmp_path / "basic.csv",
                 'a,"b, in cm",label,c\n'
                 '1, 2.5,"setosa",3\n'
                 '4,"5",virginica,6e0\n'
                 '\n'
                 '7,8,"vir, ginica",-9\n')


# ------------------------------------------------------------------------------------ load_dataset
@pytest.mark.parametrize("name, shape, n_classes", [
    ("iris", (150, 4), 3), ("wine", (178, 13), 3), ("breast_cancer", (569, 30), 2),
    ("digits", (1797, 64), 10),
])
def test_load_dataset_shapes_and_names(name, shape, n_classes):
    X, y, feature_names, target_names = load_dataset(name)
    assert X.shape == shape and X.dtype == np.float64
    assert y.shape == (shape[0],)
    assert np.unique(y).size == n_classes
    assert len(feature_names) == shape[1] and all(isinstance(f, str) for f in feature_names)
    assert len(target_names) == n_classes
    assert name in DATASETS


def test_load_dataset_iris_content_and_alias():
    X, y, names, targets = load_dataset("iris")
    assert targets == ["setosa", "versicolor", "virginica"]
    assert names[0] == "sepal length (cm)"
    np.testing.assert_allclose(X[0], [5.1, 3.5, 1.4, 0.2])
    X2, *_ = load_dataset("Breast-Cancer")
    assert X2.shape == (569, 30)


def test_load_dataset_unknown_name_lists_choices():
    with pytest.raises(DataError, match="unknown data set 'mnist'.*iris, wine, breast_cancer, digits"):
        load_dataset("mnist")


# ------------------------------------------------------------------------------------------- CSV
@pytest.mark.parametrize("engine", ENGINES)
def test_csv_header_target_in_middle_and_quoted_fields(basic_csv, engine):
    X, y, names = read_table(basic_csv, "label", engine=engine)
    assert names == ["a", "b, in cm", "c"]
    np.testing.assert_array_equal(X, [[1, 2.5, 3], [4, 5, 6], [7, 8, -9]])
    assert X.dtype == np.float64
    assert y.tolist() == ["setosa", "virginica", "vir, ginica"]


@pytest.mark.parametrize("engine", ENGINES)
def test_csv_no_target_and_feature_selection(basic_csv, engine):
    X, y, names = read_table(basic_csv, None, features=["c", "a"], engine=engine)
    assert y is None and names == ["c", "a"]
    np.testing.assert_array_equal(X, [[3, 1], [6, 4], [-9, 7]])


@pytest.mark.parametrize("engine", ENGINES)
def test_csv_label_types(tmp_path, engine):
    ints = write(tmp_path / "ints.csv", "x,y\n0.5,1\n1.5,0\n2.5,1\n")
    _, y, _ = read_table(ints, "y", engine=engine)
    assert y.dtype.kind == "i" and y.tolist() == [1, 0, 1]
    floats = write(tmp_path / "floats.csv", "x,y\n0.5,1.5\n1.5,0\n")
    _, y, _ = read_table(floats, "y", engine=engine)
    assert y.dtype.kind == "f" and y.tolist() == [1.5, 0.0]
    booleans = write(tmp_path / "bools.csv", "x,flag\n0.5,True\n1.5,False\n")
    X, y, _ = read_table(booleans, "flag", engine=engine)
    assert y.dtype == bool and y.tolist() == [True, False]
    # a True/False feature is read as 1/0 by both engines
    X, _, _ = read_table(booleans, None, engine=engine)
    np.testing.assert_array_equal(X, [[0.5, 1], [1.5, 0]])


def test_csv_engines_agree(basic_csv):
    a = read_table(basic_csv, "label", engine="pandas")
    b = read_table(basic_csv, "label", engine="csv")
    np.testing.assert_array_equal(a[0], b[0])
    assert a[1].tolist() == b[1].tolist() and a[2] == b[2]


@pytest.mark.parametrize("engine", ENGINES)
def test_tsv_and_gzip(tmp_path, engine):
    tsv = write(tmp_path / "t.tsv", "p\tq\tk\n1\t2\ta\n3\t4\tb\n")
    X, y, names = read_table(tsv, "k", engine=engine)
    np.testing.assert_array_equal(X, [[1, 2], [3, 4]])
    assert names == ["p", "q"] and y.tolist() == ["a", "b"]
    gz = tmp_path / "t.csv.gz"
    with gzip.open(gz, "wt", encoding="utf-8") as handle:
        handle.write("p,q,k\n1,2,a\n3,4,b\n")
    X2, y2, _ = read_table(gz, "k", engine=engine)
    np.testing.assert_array_equal(X2, X)
    assert y2.tolist() == ["a", "b"]


@pytest.mark.parametrize("engine", ENGINES)
def test_csv_chunks_concatenate_to_the_whole(tmp_path, engine):
    rows = "\n".join(f"{i},{i * 2},{'ab'[i % 2]}" for i in range(7))
    path = write(tmp_path / "c.csv", "u,v,t\n" + rows + "\n")
    chunks = list(read_table(path, "t", chunksize=3, engine=engine))
    assert [len(c[0]) for c in chunks] == [3, 3, 1]
    X, y, names = read_table(path, "t", engine=engine)
    np.testing.assert_array_equal(np.concatenate([c[0] for c in chunks]), X)
    assert np.concatenate([c[1] for c in chunks]).tolist() == y.tolist()
    assert all(c[2] == names == ["u", "v"] for c in chunks)


@pytest.mark.parametrize("engine", ENGINES)
def test_chunked_errors_name_the_row_in_the_whole_file(tmp_path, engine):
    rows = ["1,a"] * 4 + ["oops,b"] + ["2,a"]
    path = write(tmp_path / "c.csv", "v,t\n" + "\n".join(rows) + "\n")
    with pytest.raises(DataError, match=r"column 'v' is not numeric: row 5 holds 'oops'"):
        list(read_table(path, "t", chunksize=2, engine=engine))


def test_chunksize_must_be_positive(basic_csv):
    with pytest.raises(ValueError, match="chunksize"):
        read_table(basic_csv, "label", chunksize=0)


@pytest.mark.parametrize("chunksize", [-1, 1.5, "a", "3", float("nan"), float("inf"), [2], True])
def test_chunksize_that_is_not_a_whole_number_is_named(basic_csv, chunksize):
    with pytest.raises(ValueError, match=r"chunksize must be a positive integer or None; got"):
        read_table(basic_csv, "label", chunksize=chunksize)


@pytest.mark.parametrize("engine", ENGINES)
def test_chunksize_of_a_whole_float_counts_as_the_integer(basic_csv, engine):
    chunks = list(read_table(basic_csv, "label", chunksize=2.0, engine=engine))
    assert [len(c[0]) for c in chunks] == [2, 1]


def test_csv_without_pandas_uses_the_standard_library(basic_csv, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # `import pandas` now raises ImportError
    X, y, names = read_table(basic_csv, "label")
    np.testing.assert_array_equal(X[:, 0], [1, 4, 7])
    assert y.tolist() == ["setosa", "virginica", "vir, ginica"]


# ----------------------------------------------------------------------------------------- errors
def test_missing_file(tmp_path):
    with pytest.raises(DataError, match="no such file"):
        read_table(tmp_path / "absent.csv", "y")


def test_unknown_extension(tmp_path):
    path = write(tmp_path / "data.xlsx", "a,b\n1,2\n")
    with pytest.raises(DataError, match=r"unknown file type '\.xlsx'.*\.csv.*\.parquet"):
        read_table(path, "b")


@pytest.mark.parametrize("engine", ENGINES)
def test_unknown_target_lists_the_columns(basic_csv, engine):
    with pytest.raises(DataError, match=r"no column 'species'; its columns are: 'a', 'b, in cm', "
                                        r"'label', 'c'"):
        read_table(basic_csv, "species", engine=engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_non_numeric_feature_names_column_value_and_row(tmp_path, engine):
    path = write(tmp_path / "bad.csv", "x,colour,y\n1,2,a\n2,3,b\n3,red,a\n4,blue,b\n")
    with pytest.raises(DataError, match=r"column 'colour' is not numeric: row 3 holds 'red'"):
        read_table(path, "y", engine=engine)
    # the same column is fine as the target
    X, y, _ = read_table(path, "colour", features=["x"], engine=engine)
    assert y.tolist() == ["2", "3", "red", "blue"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("token", ["", "NA", "nan", "null"])
def test_missing_value_names_column_and_row(tmp_path, engine, token):
    path = write(tmp_path / "na.csv", f"x,z,y\n1,2,a\n2,3,b\n3,{token},a\n")
    with pytest.raises(DataError, match=r"column 'z' has a missing value in row 3"):
        read_table(path, "y", engine=engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_missing_label(tmp_path, engine):
    path = write(tmp_path / "na.csv", "x,y\n1,a\n2,\n")
    with pytest.raises(DataError, match=r"column 'y' has a missing value in row 2"):
        read_table(path, "y", engine=engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_infinite_feature(tmp_path, engine):
    path = write(tmp_path / "inf.csv", "x,y\n1,a\ninf,b\n")
    with pytest.raises(DataError, match=r"column 'x' holds inf in row 2"):
        read_table(path, "y", engine=engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_empty_file(tmp_path, engine):
    with pytest.raises(DataError, match="is empty"):
        read_table(write(tmp_path / "empty.csv", ""), "y", engine=engine)
    with pytest.raises(DataError, match="is empty"):
        read_table(write(tmp_path / "blank.csv", "\n\n"), "y", engine=engine)
    with pytest.raises(DataError, match="no data rows"):
        read_table(write(tmp_path / "header.csv", "x,y\n"), "y", engine=engine)


def test_ragged_row_and_duplicate_header(tmp_path):
    ragged = write(tmp_path / "ragged.csv", "x,y\n1,a\n2,b,3\n")
    with pytest.raises(DataError, match="row 2 .*3 fields but the header has 2"):
        read_table(ragged, "y", engine="csv")
    duplicate = write(tmp_path / "dup.csv", "x,x,y\n1,2,a\n")
    with pytest.raises(DataError, match="column 'x' twice"):
        read_table(duplicate, "y")


def test_only_a_target_column(tmp_path):
    with pytest.raises(DataError, match="no feature columns"):
        read_table(write(tmp_path / "t.csv", "y\na\nb\n"), "y")


# --------------------------------------------------------------------------------------- Parquet
@pytest.fixture
def parquet_file(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table({
        "x1": pa.array([1.0, 2.0, 3.0, 4.0]),
        "species": pa.array(["a", "b", "a", "b"]),
        "n": pa.array([1, 2, 3, 4], type=pa.int32()),
        "flag": pa.array([True, False, True, True]),
        "gaps": pa.array([1.0, None, 2.0, 3.0]),
        "text": pa.array(["1", "2", "three", "4"]),
    })
    path = tmp_path / "data.parquet"
    pq.write_table(table, path, row_group_size=2)
    return path


def test_parquet_target_in_the_middle(parquet_file):
    X, y, names = read_table(parquet_file, "species", features=["x1", "n", "flag"])
    assert names == ["x1", "n", "flag"]
    np.testing.assert_array_equal(X, [[1, 1, 1], [2, 2, 0], [3, 3, 1], [4, 4, 1]])
    assert X.dtype == np.float64
    assert y.tolist() == ["a", "b", "a", "b"]


def test_parquet_chunks(parquet_file):
    chunks = list(read_table(parquet_file, "species", features=["x1", "n"], chunksize=3))
    assert sum(len(c[0]) for c in chunks) == 4 and len(chunks) >= 2
    X = np.concatenate([c[0] for c in chunks])
    np.testing.assert_array_equal(X[:, 0], [1, 2, 3, 4])


def test_parquet_errors(parquet_file, tmp_path):
    with pytest.raises(DataError, match=r"column 'gaps' has a missing value in row 2"):
        read_table(parquet_file, "species", features=["x1", "gaps"])
    with pytest.raises(DataError, match=r"column 'text' is not numeric: row 3 holds 'three'"):
        read_table(parquet_file, "species", features=["x1", "text"])
    with pytest.raises(DataError, match=r"column 'species' is not numeric"):
        read_table(parquet_file, "n", features=["species"])
    with pytest.raises(DataError, match=r"no column 'label'.*'x1', 'species', 'n'"):
        read_table(parquet_file, "label")
    empty = tmp_path / "empty.parquet"
    empty.write_bytes(b"")
    with pytest.raises(DataError, match="empty"):
        read_table(empty, "y")
    garbage = write(tmp_path / "garbage.pq", "this is not parquet")
    with pytest.raises(DataError, match="not a readable Parquet file"):
        read_table(garbage, "y")


def test_parquet_without_pyarrow_says_how_to_install(tmp_path, monkeypatch):
    path = tmp_path / "d.parquet"
    path.write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(DataError, match=r"pip install linclass\[parquet\]"):
        read_table(path, "y")


# ------------------------------------------------------------------------------------ FileSource
def test_file_source_chunks_cover_the_file_in_order(tmp_path):
    rows = "".join(f"{i},{2 * i},{'ab'[i % 2]}\n" for i in range(10))
    path = write(tmp_path / "rows.csv", "x,z,t\n" + rows)
    source = FileSource(path, "t", 4)
    assert source.n_features == 2
    assert source.feature_names.tolist() == ["x", "z"] and source.feature_names.dtype == object
    chunks = list(source.chunks())
    assert [c.index for c in chunks] == [0, 1, 2]
    assert [c.start for c in chunks] == [0, 4, 8]
    assert [c.X.shape for c in chunks] == [(4, 2), (4, 2), (2, 2)]
    assert all(c.sample_weight is None for c in chunks)
    np.testing.assert_array_equal(np.concatenate([c.X for c in chunks])[:, 0], np.arange(10))
    assert np.concatenate([c.y for c in chunks]).tolist() == list("ab" * 5)
    # every pass rereads the file: a second one gives the same chunks
    assert [c.start for c in source.chunks()] == [0, 4, 8]


def test_file_source_map_reduce_and_features(tmp_path):
    path = write(tmp_path / "rows.csv", "x,z,t\n" + "".join(f"{i},{-i},0\n" for i in range(7)))
    source = FileSource(path, "t", 3, features=["z"])
    assert source.n_features == 1 and source.feature_names.tolist() == ["z"]
    total = source.map_reduce(lambda chunk, scale: scale * chunk.X.sum(), lambda a, b: a + b, 2.0)
    assert total == 2.0 * -sum(range(7))
    # a chunk that carries nothing (None) is skipped
    assert source.map_reduce(lambda chunk: None, lambda a, b: a + b) is None


def test_file_source_errors_name_the_file(tmp_path):
    with pytest.raises(DataError, match=r"absent\.csv': no such file"):
        FileSource(tmp_path / "absent.csv", "t", 10)
    header_only = write(tmp_path / "header.csv", "x,t\n")
    with pytest.raises(DataError, match=r"header\.csv' has column names but no data rows"):
        FileSource(header_only, "t", 10)
    path = write(tmp_path / "rows.csv", "x,t\n1,a\n")
    with pytest.raises(DataError, match=r"rows\.csv' has no column 'label'"):
        FileSource(path, "label", 10)

