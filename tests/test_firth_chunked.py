"""Firth's penalised logistic regression on chunked data (Dask arrays and data frames, files, the
command's --chunksize): Newton / IRLS with the lagged modified score, about one pass per iteration
(linclass.linear.firth.chunked), reaches the in-memory Firth estimate (itself tested
against R's logistf and brglm2) and its Wald table.  Dask's synchronous scheduler; one slow test on
a LocalCluster."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")
dask = pytest.importorskip("dask")

import linclass as lc  # noqa: E402
from conftest import cli, one_error_line  # noqa: E402
from linclass import load  # noqa: E402
from linclass.linear.inference.wald import MAX_PARAMS  # noqa: E402
from linclass.linear.firth import chunked as firth_chunked, inference as firth_inference  # noqa: E402
from linclass.sources.chunks import fit_chunked  # noqa: E402
from linclass.sources.dask import DaskSource  # noqa: E402
from linclass.sources.files import FileSource  # noqa: E402

CHUNKS = (70, 130, 25, 95)  # uneven row blocks
N_ROWS = sum(CHUNKS)
TIGHT = {"penalty": "firth", "tol": 1e-11, "max_iter": 300}


@pytest.fixture(autouse=True)
def synchronous(monkeypatch):
    # the in-memory fits skip their profile intervals (seconds to a minute each on two cores),
    # which the chunked fit does not compute
    monkeypatch.setattr(firth_inference, "MAX_PROFILE_PARAMS", 0)
    with dask.config.set(scheduler="synchronous"):
        yield


def problem(K, seed=0, n=N_ROWS, d=5):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % K
    rng.shuffle(y)
    X = rng.normal(size=(n, d)) + 0.7 * rng.normal(size=(K, d))[y]
    w = rng.uniform(0.2, 3.0, size=n)
    return X, y, w


def dask_xy(X, y, w=None, chunks=CHUNKS):
    return (da.from_array(X, chunks=(chunks, X.shape[1])), da.from_array(y, chunks=(chunks,)),
            None if w is None else da.from_array(w, chunks=(chunks,)))


def assert_same(a, b, X, atol=1e-8):
    np.testing.assert_allclose(b.coef_, a.coef_, rtol=0, atol=atol)
    np.testing.assert_allclose(b.intercept_, a.intercept_, rtol=0, atol=atol)
    np.testing.assert_allclose(b.predict_proba(X), a.predict_proba(X), rtol=0, atol=atol)


def assert_same_wald(a, b, atol=1e-8):
    """The Wald table of the chunked fit is the in-memory one (estimates, standard errors, the
    penalised log-likelihoods of the model and of its null model)."""
    sa, sb = a.summary(), b.summary()
    np.testing.assert_allclose(sb.std_err, sa.std_err, rtol=1e-7, atol=atol)
    np.testing.assert_allclose(sb.coef, sa.coef, rtol=0, atol=atol)
    ra, rb = a._inference, b._inference
    for key in ("penalised", "null_penalised"):
        assert abs(ra.firth[key] - rb.firth[key]) <= 1e-8 * max(1.0, abs(ra.firth[key]))
    assert abs(a.log_likelihood_ - b.log_likelihood_) <= 1e-8 * abs(a.log_likelihood_)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("K", [2, 3])
def test_dask_array_equals_in_memory(K, weighted):
    X, y, w = problem(K)
    w = w if weighted else None
    a = lc.LogisticRegression(**TIGHT).fit(X, y, sample_weight=w)
    b = lc.LogisticRegression(**TIGHT).fit(*dask_xy(X, y, w))
    assert b.converged_ and b.solver_ == "newton"
    assert_same(a, b, X)
    assert_same_wald(a, b)
    # the first pass, then one or two per iteration, and one or two to settle
    assert b.n_iter_[0] + 2 <= b.n_passes_ <= 2 * b.n_iter_[0] + 3
    assert not hasattr(a, "n_passes_")


def test_default_tolerance_is_as_close_as_memory_to_the_estimate():
    """At the default tol both fits stop within about tol of the estimate (not of each other's
    last iterate): each is within 1e-4 of a tightly converged in-memory fit."""
    X, y, w = problem(2, seed=4)
    best = lc.LogisticRegression(**TIGHT).fit(X, y, sample_weight=w)
    a = lc.LogisticRegression(penalty="firth").fit(X, y, sample_weight=w)
    b = lc.LogisticRegression(penalty="firth").fit(*dask_xy(X, y, w))
    assert b.converged_ and b.violation_ <= 1e-6
    for fit in (a, b):
        np.testing.assert_allclose(fit.predict_proba(X), best.predict_proba(X), atol=1e-4)


def test_dask_dataframe_with_partitions_and_class_weights():
    X, y, w = problem(3, seed=1)
    names = [f"f{j}" for j in range(X.shape[1])]
    frame = pd.DataFrame(X, columns=names)
    labels = pd.Series(np.array(["a", "b", "c"])[y])
    settings = {**TIGHT, "class_weight": "balanced"}
    a = lc.LogisticRegression(**settings).fit(frame, labels, sample_weight=w)
    b = lc.LogisticRegression(**settings).fit(
        dd.from_pandas(frame, npartitions=4), dd.from_pandas(labels, npartitions=4),
        sample_weight=dd.from_pandas(pd.Series(w), npartitions=4))
    np.testing.assert_array_equal(b.feature_names_in_, names)
    np.testing.assert_array_equal(b.classes_, a.classes_)
    assert_same(a, b, frame)
    assert_same_wald(a, b)


@pytest.mark.parametrize("K", [2, 3])
def test_without_intercept(K):
    X, y, w = problem(K, seed=2)
    settings = {**TIGHT, "fit_intercept": False}
    a = lc.LogisticRegression(**settings).fit(X, y, sample_weight=w)
    b = lc.LogisticRegression(**settings).fit(*dask_xy(X, y, w))
    assert np.all(b.intercept_ == 0.0)
    assert_same(a, b, X)
    assert_same_wald(a, b)


def test_null_model_closed_form_equals_the_constrained_fit():
    """The null model's penalised log-likelihood (slopes 0, the penalty on the full model), which
    the chunked fit takes from the class totals and the Gram matrix, is the in-memory constrained
    fit's, with and without an intercept and with weights."""
    from linclass.linear.firth.objective import constrained_fit
    from linclass.linear.firth.multinomial import MultinomialFirthObjective

    for K in (2, 3, 4):
        for intercept in (True, False):
            X, y, w = problem(K, seed=10 + K, n=150, d=3)
            objective = MultinomialFirthObjective(X, y, K, w, fit_intercept=intercept)
            d = X.shape[1]
            slopes = np.zeros(objective.shape, dtype=bool)
            slopes[:d] = True
            _, value, converged = constrained_fit(objective, slopes.ravel(),
                                                  np.zeros(objective.n_params))
            assert converged
            source = DaskSource(*dask_xy(X, y, w, chunks=(50, 60, 40)))
            chunked = firth_chunked.ChunkedFirthObjective(source, fit_intercept=intercept)
            assert abs(chunked.null_penalised() - (-value * objective.total)) <= 1e-9


def test_lagged_score_error_is_within_its_bound():
    """A lagged score (the adjustments with another point's inverse information) differs from the
    exact score at the same point by no more than the bound the pass computes."""
    for K in (2, 3):
        X, y, w = problem(K, seed=5)
        source = DaskSource(*dask_xy(X, y, w))
        objective = firth_chunked.ChunkedFirthObjective(source)
        rng = np.random.default_rng(K)
        theta0 = objective.null_start()
        objective.value_gradient(theta0)  # read with its own information
        for scale in (0.05, 0.2, 0.5):
            theta = theta0 + scale * rng.normal(size=objective.shape)
            lagged = objective._read(theta, objective._inverse(objective._recent[1]), False)
            exact = objective._read(theta, objective._inverse(lagged[2]), True)
            error = np.max(np.abs(lagged[3] - exact[3]))
            assert 0 < error <= lagged[5]
            objective._recent = (theta0, objective._known_information(theta0))


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_file_source_equals_in_memory(tmp_path, suffix):
    X, y, _ = problem(3, seed=3)
    labels = np.array(["no", "yes", "maybe"])[y]
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])]).assign(label=labels)
    path = tmp_path / f"data{suffix}"
    if suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, row_group_size=64)
    features = frame.drop(columns="label")
    a = lc.LogisticRegression(**TIGHT).fit(features, labels)
    b = fit_chunked(lc.LogisticRegression(**TIGHT), FileSource(path, "label", 97))
    np.testing.assert_array_equal(b.classes_, a.classes_)
    assert_same(a, b, features)
    assert b.n_passes_ <= 2 * b.n_iter_[0] + 3


def test_the_command_fits_firth_with_chunksize(tmp_path, capsys):
    X, y, _ = problem(2, seed=6, d=3)
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(label=np.where(y == 1, "yes", "no"))
    data = tmp_path / "d.csv"
    frame.to_csv(data, index=False)
    model_file = tmp_path / "m.linclass"
    argv = ["fit", "--model", "logistic", "--param", "penalty=firth", "--param", "tol=1e-11",
            "--data", data, "--target", "label", "--out", model_file]
    code, text, err = cli([*argv, "--chunksize", "40"], capsys)
    assert code == 0, err
    passes = int(text.split(" passes over the data")[0].rsplit(" ", 1)[1])
    chunked = load(model_file)
    assert passes == chunked.n_passes_ >= 3
    a = lc.LogisticRegression(**TIGHT).fit(frame[["a", "b", "c"]], frame["label"])
    assert_same(a, chunked, frame[["a", "b", "c"]])
    code, out, err = cli(["summary", "--model-file", model_file], capsys)
    assert code == 0 and "Firth" in out and "separation was not checked" in out
    code, out, err = cli(["summary", "--model-file", model_file, "--ci", "profile"], capsys)
    line = one_error_line(code, err, out)
    assert "refit in memory" in line


def test_separated_classes_have_a_finite_estimate_on_chunks():
    """Firth's reason to exist: on completely separated classes the maximum-likelihood estimate
    does not exist (the unpenalised fit runs off), Firth's does, and the chunked fit finds it."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(320, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ml = lc.LogisticRegression(penalty=None).fit(X, y)
    assert ml.separation_ == "complete"
    settings = {**TIGHT, "tol": 1e-12, "max_iter": 500}
    a = lc.LogisticRegression(**settings).fit(X, y)
    b = lc.LogisticRegression(**settings).fit(*dask_xy(X, y))
    assert a.separation_ == "complete" and b.separation_ is None  # (not checked on chunks)
    assert b.converged_ and np.all(np.abs(b.coef_) < 100)
    assert np.max(np.abs(ml.coef_)) > 2 * np.max(np.abs(b.coef_))
    assert_same(a, b, X, atol=1e-7)


def test_breast_cancer_ten_features():
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X[:, :10])
    settings = {**TIGHT, "tol": 1e-12}
    a = lc.LogisticRegression(**settings).fit(X, y)
    b = lc.LogisticRegression(**settings).fit(da.from_array(X, chunks=(150, 10)),
                                              da.from_array(y, chunks=150))
    assert_same(a, b, X)
    assert_same_wald(a, b)
    assert b.n_passes_ <= 2 * b.n_iter_[0] + 3


def test_warm_start_and_max_iter_zero():
    X, y, _ = problem(2, seed=8)
    Xd, yd, _ = dask_xy(X, y)
    model = lc.LogisticRegression(**TIGHT, warm_start=True).fit(Xd, yd)
    model.fit(Xd, yd)  # from the estimate: the first pass, its information, the exact score
    assert model.n_iter_[0] == 0 and model.n_passes_ == 3
    a = lc.LogisticRegression(**TIGHT).fit(X, y)
    assert_same(a, model, X)
    with pytest.warns(Warning, match="did not converge"):
        start = lc.LogisticRegression(penalty="firth", max_iter=0).fit(Xd, yd)
    assert np.all(start.coef_ == 0.0) and start.n_passes_ == 2


def test_what_a_chunked_firth_fit_refuses():
    X, y, _ = problem(3)
    Xd, yd, _ = dask_xy(X, y)
    model = lc.LogisticRegression(penalty="firth").fit(Xd, yd)
    with pytest.raises(ValueError, match="No profile intervals.*refit in memory.*ci='wald'"):
        model.summary(ci="profile")
    with pytest.raises(ValueError, match="solver='newton' only"):
        lc.LogisticRegression(penalty="firth", solver="lbfgs").fit(Xd, yd)
    rng = np.random.default_rng(0)
    d = MAX_PARAMS  # d + 1 parameters for two classes: refused before a pass
    wide = da.from_array(rng.normal(size=(10, d)), chunks=(5, d))
    two = da.from_array(np.arange(10) % 2, chunks=5)
    with pytest.raises(ValueError, match=f"firth.*{d + 1} parameters.*MAX_PARAMS={MAX_PARAMS}"):
        lc.LogisticRegression(penalty="firth").fit(wide, two)
    d = MAX_PARAMS // 2  # (K - 1)(d + 1) for three classes, known after the first pass
    wide = da.from_array(rng.normal(size=(12, d)), chunks=(6, d))
    three = da.from_array(np.arange(12) % 3, chunks=6)
    with pytest.raises(ValueError, match=f"{2 * (d + 1)} parameters .*MAX_PARAMS={MAX_PARAMS}"):
        lc.LogisticRegression(penalty="firth").fit(wide, three)


@pytest.mark.slow
def test_on_a_distributed_local_cluster():
    distributed = pytest.importorskip("distributed")
    X, y, w = problem(2, seed=9, n=2000)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        b = lc.LogisticRegression(**TIGHT).fit(
            dd.from_pandas(frame, npartitions=5), dd.from_pandas(pd.Series(y), npartitions=5),
            sample_weight=dd.from_pandas(pd.Series(w), npartitions=5))
    a = lc.LogisticRegression(**TIGHT).fit(frame, y, sample_weight=w)
    assert_same(a, b, frame)
