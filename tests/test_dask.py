"""Fits on Dask collections and on files read in chunks equal the in-memory fits.

Statistics models: every fitted array within 1e-10 relative; logistic regression: log-loss within
1e-8.  Chunks are uneven and some hold a single class.  One test runs on a distributed LocalCluster.
"""

from __future__ import annotations

import subprocess
import sys
import tracemalloc
import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")

import linclass as lc  # noqa: E402
from linclass.sources.chunks import fit_chunked  # noqa: E402
from linclass.sources.files import FileSource  # noqa: E402

UNEVEN = (37, 200, 1, 400, 62, 300)  # 1000 rows


def blobs(n=1000, d=4, K=3, seed=0, counts=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    if counts:
        X = rng.poisson(1.0 + y[:, None] * np.arange(1, d + 1) / d, size=(n, d)).astype(float)
    else:
        X = rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) + 2.0 * y[:, None] * rng.normal(size=d)
        X += 100.0  # an offset: the merge must stay exact
    return X, y


STATS_MODELS = {
    "lda": lambda: lc.LinearDiscriminantAnalysis(),
    "lda-shrunk": lambda: lc.LinearDiscriminantAnalysis(shrinkage="ledoit-wolf"),
    "qda": lambda: lc.QuadraticDiscriminantAnalysis(reg_param=0.01),
    "gnb": lambda: lc.GaussianNB(),
    **{f"gda-{t}": (lambda t=t: lc.GaussianDiscriminantAnalysis(covariance_type=t))
       for t in ("tied", "full", "diag", "tied_diag", "spherical")},
    **{f"fisher-{s}": (lambda s=s: lc.FisherDiscriminantAnalysis(solver=s))
       for s in ("eigen", "svd", "gsvd")},
    "bernoulli-nb": lambda: lc.BernoulliNB(),
    "multinomial-nb": lambda: lc.MultinomialNB(),
    "poisson-nb": lambda: lc.PoissonNB(),
}
COUNT_MODELS = {"bernoulli-nb", "multinomial-nb", "poisson-nb"}


def fitted_arrays(model):
    out = {}
    for name, value in vars(model).items():
        if name.endswith("_") and not name.startswith("_") and name != "stats_":
            if isinstance(value, np.ndarray) and value.dtype.kind == "f":
                out[name] = value
            elif isinstance(value, float):
                out[name] = np.array(value)
    return out


def assert_same_fit(a, b, rtol=1e-10):
    fa, fb = fitted_arrays(a), fitted_arrays(b)
    assert fa.keys() == fb.keys()
    assert fa, "no fitted arrays compared"
    for name in fa:
        if name == "scalings_":  # beyond K - 1 columns: a basis of the null directions, arbitrary
            K = a.classes_.size
            fa[name], fb[name] = fa[name][:, : K - 1], fb[name][:, : K - 1]
        # relative to the array's largest entry; a floor for arrays that are zero up to rounding
        scale = max(float(np.max(np.abs(fa[name]), initial=0.0)), 1e-4)
        finite = np.isfinite(fa[name])
        np.testing.assert_array_equal(finite, np.isfinite(fb[name]), err_msg=name)
        assert np.max(np.abs(fa[name][finite] - fb[name][finite]), initial=0.0) <= rtol * scale, name
    np.testing.assert_array_equal(a.classes_, b.classes_)


def dask_xy(X, y, chunks=UNEVEN, w=None):
    Xd = da.from_array(X, chunks=(chunks, X.shape[1]))
    yd = da.from_array(y, chunks=(chunks,))
    wd = None if w is None else da.from_array(w, chunks=(chunks,))
    return Xd, yd, wd


@pytest.mark.parametrize("name", sorted(STATS_MODELS))
def test_statistics_models_equal_in_memory(name):
    X, y = blobs(counts=name in COUNT_MODELS)
    w = np.random.default_rng(3).uniform(0.2, 2.0, y.size)
    Xd, yd, wd = dask_xy(X, y, w=w)
    a = STATS_MODELS[name]().fit(X, y, sample_weight=w)
    b = STATS_MODELS[name]().fit(Xd, yd, sample_weight=wd)
    assert_same_fit(a, b)
    proba = b.predict_proba(Xd)
    assert isinstance(proba, da.Array)  # lazy
    np.testing.assert_allclose(proba.compute(), a.predict_proba(X), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(b.predict(Xd).compute(), a.predict(X))
    np.testing.assert_allclose(b.predict_log_proba(Xd).compute(), a.predict_log_proba(X),
                               rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(b.decision_function(Xd).compute(), a.decision_function(X),
                               rtol=1e-9, atol=1e-9)
    if hasattr(a, "transform"):
        Z = b.transform(Xd)
        assert isinstance(Z, da.Array)
        np.testing.assert_allclose(Z.compute(), a.transform(X), rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("name", ["lda", "qda", "gnb", "fisher-svd", "multinomial-nb"])
def test_chunks_that_miss_classes(name):
    """Rows sorted by class: most chunks hold one class, one chunk holds none of class 2."""
    X, y = blobs(counts=name in COUNT_MODELS, seed=1)
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    Xd, yd, _ = dask_xy(X, y, chunks=(100,) * 10)
    assert_same_fit(STATS_MODELS[name]().fit(X, y), STATS_MODELS[name]().fit(Xd, yd))


def test_string_labels_dataframe_and_feature_names():
    X, y = blobs(seed=2)
    labels = np.array(["cat", "dog", "eel"])[y]
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"]).assign(label=labels)
    ddf = dd.from_pandas(frame, npartitions=7)
    features = ddf[["a", "b", "c", "d"]]
    for make in (lc.LinearDiscriminantAnalysis, lc.LogisticRegression):
        a = make().fit(frame[["a", "b", "c", "d"]], labels)
        b = make().fit(features, ddf["label"])
        np.testing.assert_array_equal(b.feature_names_in_, ["a", "b", "c", "d"])
        np.testing.assert_array_equal(b.classes_, ["cat", "dog", "eel"])
        np.testing.assert_allclose(b.coef_, a.coef_, rtol=1e-7, atol=1e-9)
        predicted = b.predict(features)
        assert isinstance(predicted, da.Array)
        np.testing.assert_array_equal(predicted.compute(), a.predict(frame[["a", "b", "c", "d"]]))
        with pytest.raises(ValueError, match="feature names should match"):
            b.predict(ddf[["b", "a", "c", "d"]])
        with pytest.raises(ValueError, match="missing column"):
            b.predict_proba(ddf[["a", "b", "c"]])


def test_dataframe_with_unaligned_labels_and_numpy_labels():
    X, y = blobs(seed=4)
    ddf = dd.from_pandas(pd.DataFrame(X, columns=list("abcd")), npartitions=3)
    a = lc.GaussianNB().fit(X, y)
    assert_same_fit(a, lc.GaussianNB().fit(ddf, y))  # NumPy labels with a Dask frame
    assert_same_fit(a, lc.GaussianNB().fit(ddf, da.from_array(y, chunks=333)))


def test_partial_fit_with_dask_chunks_equals_fit():
    X, y = blobs(seed=5)
    model = lc.QuadraticDiscriminantAnalysis(reg_param=0.1)
    for part in np.array_split(np.arange(y.size), 3):
        Xd, yd, _ = dask_xy(X[part], y[part], chunks=(50,) * (part.size // 50) + (part.size % 50,)
                            if part.size % 50 else (50,) * (part.size // 50))
        model.partial_fit(Xd, yd, classes=[0, 1, 2])
    assert_same_fit(lc.QuadraticDiscriminantAnalysis(reg_param=0.1).fit(X, y), model)


def log_loss(model, X, y):
    P = np.clip(model.predict_proba(X), 1e-300, 1.0)
    return -float(np.mean(np.log(P[np.arange(y.size), np.searchsorted(model.classes_, y)])))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("solver", ["newton", *(pytest.param(s, marks=pytest.mark.slow) for s in ("bohning", "lbfgs"))])
@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("options", [{}, {"class_weight": "balanced", "weights": True},
                                     {"fit_intercept": False, "C": 10.0}])
def test_logistic_equals_in_memory(solver, K, options):
    options = dict(options)
    weighted = options.pop("weights", False)
    X, y = blobs(K=K, seed=6)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    w = np.random.default_rng(7).uniform(0.5, 2.0, y.size) if weighted else None
    Xd, yd, wd = dask_xy(X, y, w=w)
    # the bounded-Hessian iteration converges linearly (slowly where classes are well separated):
    # it is compared after the same 300 iterations, which must give the same point
    params = dict(solver=solver, tol=1e-10, max_iter=300 if solver == "bohning" else 1000,
                  **options)
    a = lc.LogisticRegression(**params).fit(X, y, sample_weight=w)
    b = lc.LogisticRegression(**params).fit(Xd, yd, sample_weight=wd)
    # the same iterations in memory and on chunks (the bounded-Hessian one may not converge in
    # max_iter on well-separated classes, where its bound is loose; the results must still agree)
    assert (a.converged_, a.n_iter_) == (b.converged_, b.n_iter_)
    assert a.converged_ or solver == "bohning"
    assert abs(log_loss(a, X, y) - log_loss(b, X, y)) <= 1e-8
    assert abs(a.log_likelihood_ - b.log_likelihood_) <= 1e-8 * y.size
    np.testing.assert_allclose(b.coef_, a.coef_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(b.predict_proba(Xd).compute(), a.predict_proba(X), atol=1e-8)
    if K == 2:
        assert b.decision_function(Xd).compute().shape == (y.size,)


def test_logistic_newton_reads_the_data_once_per_iteration():
    from linclass.linear.logistic.chunked import ChunkedObjective
    from linclass.sources.dask import DaskSource

    X, y = blobs(K=2, seed=8)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    source = DaskSource(*dask_xy(X, y)[:2])
    objective = ChunkedObjective(source, with_hessian=True)
    from linclass.linear.solvers import newton

    result = newton(objective, objective.null_start(), tol=1e-8)
    # construction, then one pass per point evaluated: the start plus one per accepted step
    # (no backtracking on this well-conditioned problem), plus none for the Hessians
    assert objective.passes == 1 + 1 + result.n_iter


def test_logistic_inference_on_dask_matches_in_memory():
    X, y = blobs(K=2, seed=9)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    X[:, 0] += np.random.default_rng(1).normal(scale=3.0, size=y.size)  # keep it not separable
    Xd, yd, _ = dask_xy(X, y)
    a = lc.LogisticRegression(C=np.inf, tol=1e-10).fit(X, y)
    b = lc.LogisticRegression(C=np.inf, tol=1e-10).fit(Xd, yd)
    sa, sb = a.summary().to_frame(), b.summary().to_frame()
    np.testing.assert_allclose(sb.to_numpy(float), sa.to_numpy(float), rtol=1e-6, atol=1e-9)


def test_separable_dask_data_warns_suspected():
    X, y = blobs(K=2, seed=10)
    X[:, 0] = np.where(y == 1, 5.0, -5.0) + np.random.default_rng(0).uniform(-1, 1, y.size)
    Xd, yd, _ = dask_xy(X, y)
    with pytest.warns(lc.SeparationWarning, match="apparently separated"):
        model = lc.LogisticRegression(C=np.inf, tol=1e-12).fit(Xd, yd)
    assert model.separation_ == "suspected"


# ---------------------------------------------------------------------------------- errors
def test_errors_name_the_problem():
    X, y = blobs(seed=11)
    Xbad = X.copy()
    Xbad[450, 2] = np.nan
    Xd, yd, _ = dask_xy(Xbad, y)
    # the row of the whole array, as in memory (row 212 of the chunk)
    with pytest.raises(ValueError, match=r"chunk 3 \(rows from 238\): Input X contains NaN .*at row 450, "
                                         r"column 2\)"):
        lc.LinearDiscriminantAnalysis().fit(Xd, yd)
    with pytest.raises(ValueError, match="NaN"):
        lc.LogisticRegression().fit(Xd, yd)
    Xd, yd, _ = dask_xy(X, np.zeros(y.size, int))
    with pytest.raises(ValueError, match="at least two classes"):
        lc.GaussianNB().fit(Xd, yd)
    with pytest.raises(ValueError, match="at least two classes"):
        lc.LogisticRegression().fit(Xd, yd)
    mixed = da.concatenate([da.from_array(np.array(["a"] * 500, dtype=object), chunks=500),
                            da.from_array(np.arange(500).astype(object), chunks=500)])
    with pytest.raises(ValueError, match="mix types|Unknown label type"):
        lc.LinearDiscriminantAnalysis().fit(da.from_array(X, chunks=(500, 4)), mixed)
    Xd, yd, _ = dask_xy(X, y)
    with pytest.raises(ValueError, match="solver='sgd' needs the rows in memory"):
        lc.LogisticRegression(solver="sgd").fit(Xd, yd)
    for model in (lc.KernelFisherDiscriminantAnalysis(), lc.Perceptron()):
        with pytest.raises(TypeError, match="does not work on Dask collections"):
            model.fit(Xd, yd)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        lc.GaussianNB().fit(Xd, da.from_array(y[:-1]))
    with pytest.raises(ValueError, match="2D array"):
        lc.GaussianNB().fit(da.from_array(X[:, 0]), yd)
    with pytest.raises(ValueError, match="Negative values in sample_weight"):
        lc.GaussianNB().fit(Xd, yd, sample_weight=-da.ones(y.size, chunks=100))
    with pytest.raises(ValueError, match="Every sample_weight is zero"):
        lc.GaussianNB().fit(Xd, yd, sample_weight=da.zeros(y.size, chunks=100))
    fitted = lc.GaussianNB().fit(Xd, yd)
    with pytest.raises(ValueError, match="expecting 4 features"):
        fitted.predict(da.from_array(X[:, :3]))
    with pytest.raises(lc.exceptions.NotFittedError):
        lc.GaussianNB().predict(Xd)


def test_a_chunk_with_zero_weights_is_fine():
    X, y = blobs(seed=12)
    w = np.ones(y.size)
    w[:37] = 0.0  # the whole first chunk
    Xd, yd, wd = dask_xy(X, y, w=w)
    assert_same_fit(lc.LinearDiscriminantAnalysis().fit(X, y, sample_weight=w),
                    lc.LinearDiscriminantAnalysis().fit(Xd, yd, sample_weight=wd))


# ---------------------------------------------------------------------------------- cluster
@pytest.mark.slow
def test_on_a_distributed_local_cluster():
    distributed = pytest.importorskip("distributed")
    X, y = blobs(n=4000, K=2, seed=13)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        Xd = da.from_array(X, chunks=(500, 4)).persist()
        yd = da.from_array(y, chunks=500).persist()
        lda = lc.LinearDiscriminantAnalysis().fit(Xd, yd)
        logistic = lc.LogisticRegression(tol=1e-10).fit(Xd, yd)
        proba = logistic.predict_proba(Xd).compute()
    assert_same_fit(lc.LinearDiscriminantAnalysis().fit(X, y), lda)
    reference = lc.LogisticRegression(tol=1e-10).fit(X, y)
    assert abs(log_loss(reference, X, y) - log_loss(logistic, X, y)) <= 1e-8
    np.testing.assert_allclose(proba, reference.predict_proba(X), atol=1e-8)


# ---------------------------------------------------------------------------------- files
def write_table(path, X, y, row_group=None):
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])]).assign(label=y)
    if str(path).endswith(".parquet"):
        frame.to_parquet(path, row_group_size=row_group)
    else:
        frame.to_csv(path, index=False)
    return frame


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_file_source_equals_in_memory(tmp_path, suffix):
    X, y = blobs(seed=14)
    labels = np.array(["no", "yes", "maybe"])[y]
    path = tmp_path / f"data{suffix}"
    frame = write_table(path, X, labels, row_group=128)
    features = frame.drop(columns="label")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for make in (lc.LinearDiscriminantAnalysis, lambda: lc.FisherDiscriminantAnalysis(),
                     lc.GaussianNB):
            assert_same_fit(make().fit(features, labels),
                            fit_chunked(make(), FileSource(path, "label", 97)))
        a = lc.LogisticRegression(tol=1e-10).fit(features, labels)
        b = fit_chunked(lc.LogisticRegression(tol=1e-10), FileSource(path, "label", 97))
    np.testing.assert_array_equal(b.feature_names_in_, features.columns)
    assert abs(log_loss(a, features, labels) - log_loss(b, features, labels)) <= 1e-8


@pytest.mark.slow
def test_file_fit_reads_bounded_memory(tmp_path):
    """A file 20x the chunk: the fit's traced peak is a few chunks, far below the file's size."""
    pa = pytest.importorskip("pyarrow")
    n, d, chunk = 200_000, 20, 10_000
    path = tmp_path / "big.parquet"
    # written by another process, so that this one's Arrow memory pool has seen only the fit
    subprocess.run([sys.executable, "-c", f"""
import numpy as np, pandas as pd
rng = np.random.default_rng(15)
y = rng.integers(0, 3, {n})
X = rng.normal(size=({n}, {d})) + y[:, None]
pd.DataFrame(X, columns=[f"f{{j}}" for j in range({d})]).assign(label=y).to_parquet(
    {str(path)!r}, row_group_size={chunk})
"""], check=True, timeout=120)
    rng = np.random.default_rng(15)
    y = rng.integers(0, 3, n)
    X = rng.normal(size=(n, d)) + y[:, None]
    reference = lc.LinearDiscriminantAnalysis().fit(X, y)
    data_bytes = X.nbytes
    del X
    pool = pa.default_memory_pool()
    tracemalloc.start()
    try:
        model = fit_chunked(lc.LinearDiscriminantAnalysis(), FileSource(path, "label", chunk))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    chunk_bytes = chunk * (d + 1) * 8
    assert peak < 6 * chunk_bytes < data_bytes / 3, (peak, chunk_bytes, data_bytes)
    assert pool.max_memory() < 6 * chunk_bytes + 8 * 2**20
    assert_same_fit(reference, model)


def run_cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "linclass", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


@pytest.mark.slow
def test_cli_fit_with_chunksize(tmp_path):
    X, y = blobs(seed=16)
    write_table(tmp_path / "d.parquet", X, np.array(["p", "q", "r"])[y])
    write_table(tmp_path / "d.csv", X, np.array(["p", "q", "r"])[y])
    for model in ("lda", "logistic"):
        whole = run_cli("fit", "--model", model, "--data", "d.csv", "--target", "label", "--out",
                        "a.linclass", cwd=tmp_path)
        assert whole.returncode == 0, whole.stderr
        for data in ("d.csv", "d.parquet") if model == "lda" else ("d.parquet",):
            chunked = run_cli("fit", "--model", model, "--data", data, "--target", "label",
                              "--chunksize", "64", "--train-score", "--out", "b.linclass",
                              cwd=tmp_path)
            assert chunked.returncode == 0, chunked.stderr
            assert "read 64 rows at a time" in chunked.stdout
            a, b = lc.load(tmp_path / "a.linclass"), lc.load(tmp_path / "b.linclass")
            np.testing.assert_allclose(b.coef_, a.coef_, rtol=1e-6, atol=1e-9)
            accuracy = [line.split("training accuracy ")[1][:5] for line in (whole.stdout,
                                                                             chunked.stdout)]
            assert accuracy[0] == accuracy[1]
    refused = run_cli("fit", "--model", "kfda", "--data", "d.csv", "--target", "label",
                      "--chunksize", "64", "--out", "c.linclass", cwd=tmp_path)
    assert refused.returncode == 2 and "needs all rows in memory" in refused.stderr
    assert "Traceback" not in refused.stderr
    bad = run_cli("fit", "--model", "lda", "--dataset", "iris", "--chunksize", "64", "--out",
                  "c.linclass", cwd=tmp_path)
    assert bad.returncode == 2 and "--chunksize goes with --data" in bad.stderr
    zero = run_cli("fit", "--model", "lda", "--data", "d.csv", "--target", "label", "--chunksize",
                   "0", "--out", "c.linclass", cwd=tmp_path)
    assert zero.returncode == 2 and "--chunksize must be an integer >= 1; got 0" in zero.stderr
