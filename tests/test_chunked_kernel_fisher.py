"""Nystroem kernel Fisher discriminant analysis from chunks (Dask arrays of uneven chunks, Dask data
frames, a CSV file read in blocks) against the in-memory fit with the same random_state: the same
landmark rows, and transform / predict_proba within 1e-8.  The exact fit refuses chunks, naming the
Nystroem option.  Dask's synchronous scheduler, no cluster."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import linclass as lc
from linclass.sources.chunks import fit_chunked, supports_chunks
from linclass.sources.files import FileSource

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

UNEVEN = (61, 7, 150, 1, 81)  # 300 rows
TOL = 1e-8


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def blobs(K, n=300, d=4, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    X = rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) + 1.5 * y[:, None] * rng.normal(size=d)
    return X + 5.0, y  # off the origin: the variance (gamma=None) is merged over chunks


def model(landmarks="kmeans++", **params):
    settings = dict(kernel="rbf", approximation="nystroem", n_landmarks=25, landmarks=landmarks,
                    random_state=7)
    return lc.KernelFisherDiscriminantAnalysis(**{**settings, **params})


def assert_same(chunked, in_memory, X):
    np.testing.assert_array_equal(chunked.classes_, in_memory.classes_)
    np.testing.assert_array_equal(chunked.landmark_indices_, in_memory.landmark_indices_)
    np.testing.assert_array_equal(chunked.X_fit_, in_memory.X_fit_)
    assert chunked.gamma_ == pytest.approx(in_memory.gamma_, rel=1e-13)
    assert chunked.sigma_ == in_memory.sigma_
    np.testing.assert_allclose(chunked.transform(X), in_memory.transform(X), rtol=0, atol=TOL)
    np.testing.assert_allclose(chunked.predict_proba(X), in_memory.predict_proba(X), rtol=0, atol=TOL)
    np.testing.assert_array_equal(chunked.predict(X), in_memory.predict(X))


@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("landmarks", ["kmeans++", "random"])
def test_dask_array_of_uneven_chunks_equals_in_memory(K, landmarks):
    X, y = blobs(K)
    labels = np.array(["a", "b", "c"])[y]
    in_memory = model(landmarks).fit(X, labels)
    Xd = da.from_array(X, chunks=(UNEVEN, X.shape[1]))
    chunked = model(landmarks).fit(Xd, da.from_array(labels, chunks=(UNEVEN,)))
    assert_same(chunked, in_memory, X)
    # predictions on Dask input are lazy, block by block
    for method in ("transform", "predict_proba", "decision_function"):
        lazy = getattr(chunked, method)(Xd)
        assert isinstance(lazy, da.Array)
        np.testing.assert_allclose(lazy.compute(), getattr(in_memory, method)(X), atol=TOL, rtol=0)
    lazy = chunked.predict(Xd)
    assert isinstance(lazy, da.Array)
    np.testing.assert_array_equal(lazy.compute(), in_memory.predict(X))


@pytest.mark.parametrize("K", [2, 3])
def test_dask_dataframe_equals_in_memory(K):
    X, y = blobs(K, seed=1)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])]).assign(label=y)
    ddf = dd.from_pandas(frame, npartitions=4)
    in_memory = model(solver="gsvd").fit(frame.drop(columns="label"), y)
    chunked = model(solver="gsvd").fit(ddf.drop(columns="label"), ddf["label"])
    np.testing.assert_array_equal(chunked.feature_names_in_, in_memory.feature_names_in_)
    assert_same(chunked, in_memory, frame.drop(columns="label"))
    lazy = chunked.predict_proba(ddf.drop(columns="label"))
    assert isinstance(lazy, da.Array)
    np.testing.assert_allclose(lazy.compute(), in_memory.predict_proba(frame.drop(columns="label")),
                               atol=TOL, rtol=0)


@pytest.mark.parametrize("K", [2, 3])
def test_file_source_equals_in_memory(K, tmp_path):
    X, y = blobs(K, seed=2)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"]).assign(label=np.array(["p", "q", "r"])[y])
    frame.to_csv(tmp_path / "d.csv", index=False)
    back = pd.read_csv(tmp_path / "d.csv")  # the values as the file holds them
    features = back.drop(columns="label")
    in_memory = model("random", solver="pinv").fit(features, back["label"].to_numpy())
    source = FileSource(tmp_path / "d.csv", "label", 64)
    chunked = fit_chunked(model("random", solver="pinv"), source)
    assert list(chunked.feature_names_in_) == ["a", "b", "c", "d"]
    assert_same(chunked, in_memory, features)


def test_every_row_a_landmark_and_a_fixed_gamma():
    # n_landmarks above n: every row is a landmark, as in memory; a given gamma is used as is
    X, y = blobs(3, n=40)
    in_memory = model(n_landmarks=100, gamma=0.05).fit(X, y)
    chunked = model(n_landmarks=100, gamma=0.05).fit(da.from_array(X, chunks=(13, 4)), y)
    np.testing.assert_array_equal(chunked.landmark_indices_, np.arange(40))
    assert chunked.gamma_ == 0.05
    assert_same(chunked, in_memory, X)


def test_exact_kernel_fisher_refuses_chunks_naming_nystroem(tmp_path):
    X, y = blobs(3)
    Xd, yd = da.from_array(X, chunks=(UNEVEN, 4)), da.from_array(y, chunks=(UNEVEN,))
    exact = lc.KernelFisherDiscriminantAnalysis()
    assert not supports_chunks(exact) and supports_chunks(model())
    with pytest.raises(TypeError, match=r"does not work on Dask collections.*approximation='nystroem'"):
        exact.fit(Xd, yd)
    frame = pd.DataFrame(X, columns=list("abcd")).assign(label=y)
    frame.to_csv(tmp_path / "d.csv", index=False)
    source = FileSource(tmp_path / "d.csv", "label", 100)
    with pytest.raises(TypeError, match=r"needs all rows in memory.*approximation='nystroem'"):
        fit_chunked(exact, source)
    with pytest.raises(ValueError, match=r"needs all rows in memory.*approximation='nystroem'"):
        exact.fit_source(source)
    with pytest.raises(TypeError, match="kernel='precomputed'"):
        lc.KernelFisherDiscriminantAnalysis("precomputed", approximation="nystroem").fit(Xd, yd)


def test_command_fits_nystroem_from_chunks_and_refuses_the_exact_fit(tmp_path, capsys, monkeypatch):
    from linclass.cli import main

    monkeypatch.chdir(tmp_path)
    X, y = blobs(3)
    pd.DataFrame(X, columns=list("abcd")).assign(label=y).to_csv("d.csv", index=False)
    base = ["fit", "--model", "kfda", "--data", "d.csv", "--target", "label", "--chunksize", "64"]
    assert main(base + ["--out", "never.linclass"]) == 2
    err = capsys.readouterr().err
    assert "needs all rows in memory" in err and "--param approximation=nystroem" in err
    params = ["--param", "approximation=nystroem", "--param", "n_landmarks=25", "--param",
              "random_state=7"]
    assert main(base + params + ["--out", "kfda.linclass"]) == 0
    in_memory = model().fit(pd.read_csv("d.csv").drop(columns="label"), y)
    loaded = lc.load("kfda.linclass")
    features = pd.read_csv("d.csv").drop(columns="label")
    np.testing.assert_allclose(loaded.predict_proba(features), in_memory.predict_proba(features),
                               atol=TOL, rtol=0)
