"""Dask collections from any source align X, y and sample_weight by position (finding 1).

With current Dask, X and y taken from one frame need not split into the same partitions:
``dd.read_parquet("events/*.parquet")`` over files of uneven sizes fuses small files differently for
the three feature columns than for the one label column, and pairing partition i of X with partition
i of y crashed (IndexError in ``_part``) or, worse, could pair the wrong rows.  Each case here fits
from Dask and compares with the fit on the same rows in memory; the labels depend on the features,
so a misalignment changes the model.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

import linclass as lc  # noqa: E402
from linclass.sources.dask import DaskSource  # noqa: E402

SIZES = (50, 3000, 7, 400, 1, 2000, 90)  # uneven files: Dask fuses some of them when it reads


def table(seed=0):
    rng = np.random.default_rng(seed)
    n = sum(SIZES)
    X = rng.normal(size=(n, 3)) * [1.0, 2.0, 0.5] + [10.0, -3.0, 0.0]
    score = X @ [1.0, -0.7, 2.0] - 12.0 + rng.logistic(size=n)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    frame["label"] = (score > 0).astype(int)
    frame["weight"] = rng.integers(1, 4, n).astype(float)
    return frame


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("events")
    data = table()
    start = 0
    for i, n in enumerate(SIZES):
        part = data.iloc[start:start + n]
        part.to_parquet(root / f"part{i}.parquet")  # each keeps its pandas index (a column)
        part.to_csv(root / f"part{i}.csv", index=False)
        start += n
    return root, data


def reference(model, data, weights=False):
    w = data["weight"].to_numpy() if weights else None
    return model.fit(data[["a", "b", "c"]].to_numpy(), data["label"].to_numpy(), sample_weight=w)


def same(model, expected):
    np.testing.assert_allclose(model.coef_, expected.coef_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(model.intercept_, expected.intercept_, rtol=1e-7, atol=1e-9)


MODELS = {
    "lda": lambda: lc.LinearDiscriminantAnalysis(),
    "logistic": lambda: lc.LogisticRegression(solver="newton", tol=1e-10),
}


def split(frame):
    return frame.drop(columns=["label", "weight"]), frame["label"], frame["weight"]


def test_parquet_files_split_differently_for_x_and_y(files):
    """The precondition of the bug: X and y of one frame have different partitions."""
    root, _ = files
    X, y, _ = split(dd.read_parquet(str(root / "*.parquet")))
    assert len(X.to_delayed()) != len(y.to_delayed()) or [
        len(p) for p in dask.compute(*X.to_delayed())] != [len(p) for p in dask.compute(*y.to_delayed())]


@pytest.mark.parametrize("model", list(MODELS))
@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_multi_file_read_from_one_frame(model, kind, files):
    root, data = files
    if kind == "parquet":
        frame = dd.read_parquet(str(root / "*.parquet"))
    else:
        frame = dd.read_csv(str(root / "*.csv"), blocksize=20_000)
    X, y, w = split(frame)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning about feature names or alignment
        fitted = MODELS[model]().fit(X, y)
    same(fitted, reference(MODELS[model](), data))
    assert list(fitted.feature_names_in_) == ["a", "b", "c"]
    weighted = MODELS[model]().fit(X, y, sample_weight=w)
    same(weighted, reference(MODELS[model](), data, weights=True))


@pytest.mark.parametrize("case", [
    "persisted X", "both persisted", "y of another read", "from_pandas separately",
    "unknown divisions", "y a dask array", "y numpy", "weights of another read",
])
def test_every_other_pairing_is_cut_at_the_rows_of_x(case, files):
    root, data = files
    path = str(root / "*.parquet")
    X, y, w = split(dd.read_parquet(path))
    if case == "persisted X":
        # from CSV: persisting a projection of read_parquet alone, whose files Dask fuses, gives a
        # collection that Dask itself cannot compute (dask/dask#12488); persisted with y it works
        X = dd.read_csv(str(root / "*.csv"), blocksize=25_000).drop(columns=["label", "weight"]).persist()
    elif case == "both persisted":
        X, y, w = dask.persist(X, y, w)
    elif case == "y of another read":
        y = dd.read_parquet(path, columns=["label"])["label"]
    elif case == "from_pandas separately":
        X = dd.from_pandas(data[["a", "b", "c"]], npartitions=3)
        y = dd.from_pandas(data["label"], npartitions=5)
        w = dd.from_pandas(data["weight"], npartitions=2)
    elif case == "unknown divisions":
        X = dd.from_pandas(data[["a", "b", "c"]], npartitions=4).clear_divisions()
        y = dd.from_pandas(data["label"], npartitions=6).clear_divisions()
        w = dd.from_pandas(data["weight"], npartitions=6).clear_divisions()
    elif case == "y a dask array":
        y = da.from_array(data["label"].to_numpy(), chunks=700)
        w = da.from_array(data["weight"].to_numpy(), chunks=1000)
    elif case == "y numpy":
        y, w = data["label"].to_numpy(), data["weight"].to_numpy()
    elif case == "weights of another read":
        w = dd.read_csv(str(root / "*.csv"), blocksize=30_000)["weight"]
    for model in MODELS.values():
        same(model().fit(X, y, sample_weight=w), reference(model(), data, weights=True))


def test_arrays_of_unknown_chunks(files):
    _, data = files
    X = dd.from_pandas(data[["a", "b", "c"]], npartitions=4).to_dask_array()  # nan chunk sizes
    y = dd.from_pandas(data["label"], npartitions=3).to_dask_array()
    assert np.isnan(X.chunks[0][0])
    same(lc.LinearDiscriminantAnalysis().fit(X, y), reference(lc.LinearDiscriminantAnalysis(), data))


def test_one_frame_is_one_graph(files):
    """y and the weights taken from X's frame travel inside X's partitions: no row counting."""
    root, _ = files
    X, y, w = split(dd.read_parquet(str(root / "*.parquet")))
    source = DaskSource(X, y, w)
    assert all(block[4] is not None for block in source._blocks)  # split in the task
    assert all(block[3] is None for block in source._blocks)  # no rows counted


def test_a_label_column_named_like_the_helper_columns(files):
    _, data = files
    frame = dd.from_pandas(data.rename(columns={"a": "__linclass_y__"}), npartitions=3)
    X, y, w = frame.drop(columns=["label", "weight"]), frame["label"], frame["weight"]
    fitted = lc.LinearDiscriminantAnalysis().fit(X, y, sample_weight=w)
    same(fitted, reference(lc.LinearDiscriminantAnalysis(), data, weights=True))
    assert list(fitted.feature_names_in_) == ["__linclass_y__", "b", "c"]


def test_lengths_that_do_not_match_are_refused(files):
    _, data = files
    X = dd.from_pandas(data[["a", "b", "c"]], npartitions=3)
    y = dd.from_pandas(data["label"].iloc[:-5], npartitions=2)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        lc.LinearDiscriminantAnalysis().fit(X, y)


def test_predictions_of_a_parquet_frame_are_row_for_row(files):
    root, data = files
    X, y, _ = split(dd.read_parquet(str(root / "*.parquet")))
    model = lc.LinearDiscriminantAnalysis().fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X).compute(),
                               model.predict_proba(data[["a", "b", "c"]]), rtol=1e-12)
