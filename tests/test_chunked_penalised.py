"""L1 and elastic-net logistic regression on chunked data (Dask collections, files): proximal
Newton with one pass over the data per iteration (linclass.linear.solvers.prox_newton_chunked)
reaches the in-memory fit's optimum."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
pd = pytest.importorskip("pandas")
dask = pytest.importorskip("dask")

import linclass as lc  # noqa: E402
from linclass.linear.inference.wald import MAX_PARAMS  # noqa: E402
from linclass.sources.chunks import fit_chunked  # noqa: E402
from linclass.sources.files import FileSource  # noqa: E402

CHUNKS = (70, 130, 25, 95)  # uneven row blocks, 320 rows
TIGHT = {"tol": 1e-10, "max_iter": 300}
PENALTIES = [{"penalty": "l1", "l1_ratio": 1.0}, {"penalty": "elasticnet", "l1_ratio": 0.5}]


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def problem(K, seed=0):
    rng = np.random.default_rng(seed)
    n, d = sum(CHUNKS), 6
    y = np.arange(n) % K
    rng.shuffle(y)
    X = rng.normal(size=(n, d)) + 0.7 * rng.normal(size=(K, d))[y]
    X[:, 2] = rng.normal(size=n)  # noise: the penalty sets some coefficients to zero
    X[:, 4] = rng.normal(size=n)
    w = rng.uniform(0.2, 3.0, size=n)
    return X, y, w


def assert_same(a, b, X, atol=1e-8):
    np.testing.assert_allclose(b.coef_, a.coef_, rtol=0, atol=atol)
    np.testing.assert_allclose(b.intercept_, a.intercept_, rtol=0, atol=atol)
    np.testing.assert_allclose(b.predict_proba(X), a.predict_proba(X), rtol=0, atol=atol)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("params", PENALTIES, ids=["l1", "elasticnet"])
@pytest.mark.parametrize("K", [2, 3])
def test_dask_equals_in_memory(K, params, weighted):
    X, y, w = problem(K)
    w = w if weighted else None
    settings = {**params, "C": 0.03, **TIGHT}
    a = lc.LogisticRegression(**settings).fit(X, y, sample_weight=w)
    Xd = da.from_array(X, chunks=(CHUNKS, X.shape[1]))
    yd = da.from_array(y, chunks=(CHUNKS,))
    wd = None if w is None else da.from_array(w, chunks=(CHUNKS,))
    b = lc.LogisticRegression(**settings).fit(Xd, yd, sample_weight=wd)
    assert b.converged_ and b.solver_ == "cd"
    assert_same(a, b, X)
    assert np.any(b.coef_ == 0.0) and np.any(b.coef_ != 0.0)  # the penalty selects
    # one pass for the labels and totals, one at the start, about one per iteration
    assert b.n_passes_ <= b.n_iter_[0] + 4 and b.n_passes_ <= 15
    assert not hasattr(a, "n_passes_")


def test_class_weight_and_no_intercept():
    X, y, w = problem(3, seed=3)
    y = np.where(np.arange(y.size) % 5 == 0, 0, y)  # unbalanced
    settings = {"penalty": "elasticnet", "l1_ratio": 0.5, "C": 0.03, "class_weight": "balanced",
                "fit_intercept": False, **TIGHT}
    a = lc.LogisticRegression(**settings).fit(X, y, sample_weight=w)
    b = lc.LogisticRegression(**settings).fit(
        da.from_array(X, chunks=(CHUNKS, 6)), da.from_array(y, chunks=(CHUNKS,)),
        sample_weight=da.from_array(w, chunks=(CHUNKS,)))
    assert_same(a, b, X)
    assert np.all(b.intercept_ == 0.0)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize("K", [2, 3])
def test_file_source_equals_in_memory(tmp_path, suffix, K):
    X, y, _ = problem(K, seed=1)
    labels = np.array(["no", "yes", "maybe"])[y]
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])]).assign(label=labels)
    path = tmp_path / f"data{suffix}"
    if suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, row_group_size=64)
    features = frame.drop(columns="label")
    for params in PENALTIES:
        settings = {**params, "C": 0.03, **TIGHT}
        a = lc.LogisticRegression(**settings).fit(features, labels)
        b = fit_chunked(lc.LogisticRegression(**settings), FileSource(path, "label", 97))
        np.testing.assert_array_equal(b.classes_, a.classes_)
        assert_same(a, b, features)
        assert b.n_passes_ <= 15


def test_breast_cancer_l1():
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    settings = {"penalty": "l1", "l1_ratio": 1.0, "C": 0.1, **TIGHT}
    a = lc.LogisticRegression(**settings).fit(X, y)
    b = lc.LogisticRegression(**settings).fit(da.from_array(X, chunks=(150, 30)),
                                              da.from_array(y, chunks=150))
    assert_same(a, b, X)
    assert 0 < np.count_nonzero(b.coef_) < X.shape[1]
    assert b.n_passes_ <= 20


def test_default_tolerance_agrees_and_threads():
    X, y, w = problem(3, seed=2)
    settings = {"penalty": "l1", "l1_ratio": 1.0, "C": 0.5}
    a = lc.LogisticRegression(**settings).fit(X, y, sample_weight=w)
    with dask.config.set(scheduler="threads"):
        b = lc.LogisticRegression(**settings).fit(
            da.from_array(X, chunks=(CHUNKS, 6)), da.from_array(y, chunks=(CHUNKS,)),
            sample_weight=da.from_array(w, chunks=(CHUNKS,)))
    assert b.converged_ and b.violation_ <= 1e-4
    np.testing.assert_allclose(b.predict_proba(X), a.predict_proba(X), atol=1e-4)


def test_models_too_wide_for_the_hessian_are_fitted_by_owlqn():
    """Above MAX_PARAMS parameters proximal Newton's Hessian is not formed: OWL-QN's gradient
    passes fit the model (tests/test_owlqn_chunked.py compares it with the in-memory fit)."""
    rng = np.random.default_rng(0)
    d = MAX_PARAMS  # d + 1 parameters for two classes
    X = da.from_array(rng.normal(size=(10, d)), chunks=(5, d))
    y = da.from_array(np.arange(10) % 2, chunks=5)
    model = lc.LogisticRegression(penalty="l1", l1_ratio=1.0, C=0.1).fit(X, y)
    assert model.solver_ == "owlqn" and model.converged_
    # K classes: K (d + 1) parameters, known after the first pass
    d = MAX_PARAMS // 3
    X = da.from_array(rng.normal(size=(12, d)), chunks=(6, d))
    y = da.from_array(np.arange(12) % 3, chunks=6)
    model = lc.LogisticRegression(penalty="elasticnet", l1_ratio=0.5, C=0.1).fit(X, y)
    assert model.solver_ == "owlqn" and model.converged_ and model.coef_.shape == (3, d)
    # at most MAX_PARAMS parameters: proximal Newton
    X = da.from_array(rng.normal(size=(12, 20)), chunks=(6, 20))
    assert lc.LogisticRegression(penalty="l1", l1_ratio=1.0).fit(X, y).solver_ == "cd"


def test_what_still_needs_the_rows_is_refused():
    X, y, _ = problem(3)
    Xd, yd = da.from_array(X, chunks=(CHUNKS, 6)), da.from_array(y, chunks=(CHUNKS,))
    with pytest.raises(ValueError, match="minimises smooth objectives only"):
        lc.LogisticRegression(penalty="l1", l1_ratio=1.0, solver="lbfgs").fit(Xd, yd)
    with pytest.raises(ValueError, match="grouped.*rows in memory"):
        lc.LogisticRegression(penalty="l1", l1_ratio=1.0, multinomial_penalty="grouped").fit(Xd, yd)
    with pytest.raises(ValueError, match="relax needs the rows in memory"):
        lc.LogisticRegression(penalty="l1", l1_ratio=1.0, relax=0.5).fit(Xd, yd)
