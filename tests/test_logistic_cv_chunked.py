"""logistic_path and LogisticRegressionCV on chunked data (Dask arrays and data frames, CSV and
Parquet files read in blocks): every fold's path and the path on all rows advance together, one
pass over the data serving a step of each (linclass.linear.fitting.chunked_path), and give the
in-memory answer with the same folds: path coefficients within 1e-8, the same chosen C and
l1_ratio, coefficients and probabilities within 1e-6 (here within 1e-8, at a tight tol)."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")
dask = pytest.importorskip("dask")

from sklearn.model_selection import KFold, PredefinedSplit, ShuffleSplit, StratifiedKFold  # noqa: E402

import linclass as lc  # noqa: E402
from linclass.selection.fold_rules import (  # noqa: E402
    block_layout, fold_rule, label_counts, merge_lists,
)
from linclass.sources.dask import DaskSource  # noqa: E402
from linclass.sources.files import FileSource  # noqa: E402

CHUNKS = (70, 130, 25, 95)  # uneven row blocks, 320 rows
TIGHT = {"tol": 1e-10, "max_iter": 300}
CV = {"Cs": 5, "use_legacy_attributes": False, **TIGHT}


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def problem(K, seed=0):
    rng = np.random.default_rng(seed)
    n, d = sum(CHUNKS), 5
    y = np.arange(n) % K
    rng.shuffle(y)
    X = rng.normal(size=(n, d)) + 0.7 * rng.normal(size=(K, d))[y]
    X[:, 2] = rng.normal(size=n)  # noise: the L1 part sets some coefficients to zero
    w = rng.uniform(0.2, 3.0, size=n)
    return X, y, w


def on_dask(X, y, w=None, chunks=CHUNKS):
    return (da.from_array(X, chunks=(chunks, X.shape[1])), da.from_array(y, chunks=(chunks,)),
            None if w is None else da.from_array(w, chunks=(chunks,)))


def assert_same_path(a, b, atol=1e-8):
    np.testing.assert_allclose(b.Cs, a.Cs, rtol=1e-12)
    np.testing.assert_allclose(b.coefs, a.coefs, rtol=0, atol=atol)
    np.testing.assert_allclose(b.intercepts, a.intercepts, rtol=0, atol=atol)
    np.testing.assert_allclose(b.log_likelihood, a.log_likelihood, rtol=1e-9)
    np.testing.assert_allclose(b.deviance_explained, a.deviance_explained, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(b.n_nonzero, a.n_nonzero)
    assert b.converged.all() and a.n_passes is None
    # the labels, the totals, glmnet's grid; then at least one pass per iteration
    assert b.n_iter.sum() + 3 <= b.n_passes <= 2 * b.n_iter.sum() + 3


def assert_same_cv(a, b, X, atol=1e-8):
    assert b.C_ == a.C_ and b.l1_ratio_ == a.l1_ratio_
    np.testing.assert_array_equal(b.classes_, a.classes_)
    np.testing.assert_allclose(b.Cs_, a.Cs_, rtol=1e-12)
    np.testing.assert_allclose(b.coef_, a.coef_, rtol=0, atol=atol)
    np.testing.assert_allclose(b.intercept_, a.intercept_, rtol=0, atol=atol)
    np.testing.assert_allclose(b.predict_proba(X), a.predict_proba(X), rtol=0, atol=atol)
    np.testing.assert_allclose(b.scores_, a.scores_, rtol=0, atol=atol)
    np.testing.assert_allclose(b.cv_mean_, a.cv_mean_, rtol=0, atol=atol)
    np.testing.assert_allclose(b.cv_se_, a.cv_se_, rtol=0, atol=atol)
    np.testing.assert_allclose(b.coefs_paths_, a.coefs_paths_, rtol=0, atol=atol)
    np.testing.assert_array_equal(b.n_iter_.shape, a.n_iter_.shape)
    assert b.C_1se_ == a.C_1se_
    # every path advances in the same passes: far fewer passes than the folds' iterations
    assert b.n_passes_ < b.n_iter_.sum() and not hasattr(a, "n_passes_")


# ------------------------------------------------------------------------------ the path
@pytest.mark.parametrize("params", [{"penalty": "l1"}, {"penalty": "elasticnet", "l1_ratio": 0.5},
                                    {"penalty": "l2"}], ids=["l1", "elasticnet", "l2"])
@pytest.mark.parametrize("K", [2, 3])
def test_path_on_dask_array_equals_in_memory(K, params):
    X, y, w = problem(K)
    settings = {"Cs": 6, **params, **TIGHT}
    a = lc.logistic_path(X, y, sample_weight=w, **settings)
    b = lc.logistic_path(*on_dask(X, y)[:2], sample_weight=on_dask(X, y, w)[2], **settings)
    assert_same_path(a, b)
    if params["penalty"] != "l2":
        assert b.n_nonzero[0] == 0 and b.n_nonzero[-1] > 0  # glmnet's grid: from all zero


def test_path_on_dask_frame_with_given_cs_and_class_weight():
    X, y, _ = problem(3, seed=4)
    labels = np.array(["a", "b", "c"])[y]
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])]).assign(label=labels)
    ddf = dd.from_pandas(frame, npartitions=3)
    settings = {"Cs": [1.0, 0.05, 0.3], "penalty": "elasticnet", "l1_ratio": 0.7,
                "class_weight": "balanced", "fit_intercept": False, **TIGHT}
    a = lc.logistic_path(frame.drop(columns="label"), labels, **settings)
    b = lc.logistic_path(ddf.drop(columns="label"), ddf["label"], **settings)
    np.testing.assert_array_equal(b.classes, a.classes)
    np.testing.assert_allclose(b.coefs, a.coefs, rtol=0, atol=1e-8)
    assert np.all(b.intercepts == 0.0)
    assert b.n_passes == b.n_passes and b.n_passes >= b.n_iter.sum() + 2  # no grid pass


# ------------------------------------------------------------------------------ the folds
@pytest.mark.parametrize("splitter", [3, StratifiedKFold(4), KFold(3)], ids=["int", "skf", "kf"])
def test_each_rows_fold_is_the_in_memory_splitters_whatever_the_blocks(splitter):
    X, y, _ = problem(3, seed=5)
    y[:40] = 0  # classes unevenly spread over the blocks
    expected = np.empty(y.size, dtype=int)
    cv = StratifiedKFold(splitter) if isinstance(splitter, int) else splitter
    for f, (_, test) in enumerate(cv.split(X, y)):
        expected[test] = f
    for chunks in (CHUNKS, (320,), (1, 99, 0, 100, 120)):
        source = DaskSource(*on_dask(X, y, chunks=chunks)[:2])
        layout = block_layout(source.map_reduce(label_counts, merge_lists, source.n_features))
        rule = fold_rule(splitter, layout, "test")
        folds = np.concatenate([rule.of(i, y[layout.starts[i]:layout.starts[i] + n])
                                for i, n in enumerate(chunks)])
        np.testing.assert_array_equal(folds, expected)
        assert layout.classes.dtype == y.dtype  # an empty block does not change the labels' type


# ------------------------------------------------------------------------------ the CV model
@pytest.mark.parametrize("settings", [
    {"l1_ratios": (1.0,), "scoring": "neg_log_loss"},
    {"l1_ratios": (0.3, 0.8), "scoring": "accuracy", "cv": 4},
    {"l1_ratios": (0.0,), "scoring": "neg_log_loss", "refit_rule": "1se"},
], ids=["l1", "elasticnet-accuracy", "l2-1se"])
@pytest.mark.parametrize("K", [2, 3])
def test_cv_on_dask_array_equals_in_memory(K, settings):
    X, y, w = problem(K, seed=1)
    params = {"cv": 3, **CV, **settings}
    a = lc.LogisticRegressionCV(**params).fit(X, y, sample_weight=w)
    b = lc.LogisticRegressionCV(**params).fit(*on_dask(X, y, w)[:2],
                                              sample_weight=on_dask(X, y, w)[2])
    assert_same_cv(a, b, X)
    assert b.converged_ and b.solver_ == "cd"


def test_cv_on_dask_frame_with_predefined_and_explicit_folds():
    X, y, w = problem(3, seed=2)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])]).assign(label=y, w=w)
    ddf = dd.from_pandas(frame, npartitions=4)
    features = frame[[f"f{j}" for j in range(X.shape[1])]]
    test_fold = np.arange(y.size) % 4 - 1  # -1: in every training set, held out by none
    params = {**CV, "l1_ratios": (0.5,), "scoring": "neg_log_loss"}
    a = lc.LogisticRegressionCV(cv=PredefinedSplit(test_fold), **params).fit(features, y,
                                                                           sample_weight=w)
    b = lc.LogisticRegressionCV(cv=PredefinedSplit(test_fold), **params).fit(
        ddf.drop(columns=["label", "w"]), ddf["label"], sample_weight=ddf["w"])
    assert_same_cv(a, b, features)
    assert list(b.feature_names_in_) == list(features.columns)
    # KFold's folds on chunks against the same folds given as a list of splits in memory
    splits = list(KFold(3).split(X))
    a = lc.LogisticRegressionCV(cv=splits, **params).fit(X, y)
    b = lc.LogisticRegressionCV(cv=KFold(3), **params).fit(*on_dask(X, y)[:2])
    assert_same_cv(a, b, X)


def test_cv_fold_penalty_lambda_class_weight_refit_false_and_legacy_layout():
    X, y, w = problem(3, seed=3)
    y = np.where(np.arange(y.size) % 5 == 0, 0, y)  # unbalanced
    params = {**CV, "cv": 3, "l1_ratios": (1.0,), "scoring": "neg_log_loss",
              "fold_penalty": "lambda", "class_weight": "balanced", "refit": False,
              "use_legacy_attributes": True}
    a = lc.LogisticRegressionCV(**params).fit(X, y, sample_weight=w)
    b = lc.LogisticRegressionCV(**params).fit(*on_dask(X, y)[:2], sample_weight=on_dask(X, y, w)[2])
    np.testing.assert_array_equal(b.C_, a.C_)
    np.testing.assert_allclose(b.coef_, a.coef_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(b.predict_proba(X), a.predict_proba(X), rtol=0, atol=1e-8)
    for k in a.coefs_paths_:
        np.testing.assert_allclose(b.coefs_paths_[k], a.coefs_paths_[k], rtol=0, atol=1e-8)
        np.testing.assert_allclose(b.scores_[k], a.scores_[k], rtol=0, atol=1e-9)


# ------------------------------------------------------------------------------ files
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_file_source_equals_in_memory(tmp_path, suffix):
    X, y, _ = problem(3, seed=6)
    labels = np.array(["no", "yes", "maybe"])[y]
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])]).assign(label=labels)
    path = tmp_path / f"data{suffix}"
    if suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, row_group_size=64)
    features = frame.drop(columns="label")
    source = FileSource(path, "label", 97)
    settings = {"Cs": 5, "penalty": "l1", **TIGHT}
    assert_same_path(lc.logistic_path(features, labels, **settings),
                     lc.logistic_path(source, None, **settings))
    params = {**CV, "cv": 3, "l1_ratios": (0.5,), "scoring": "neg_log_loss"}
    a = lc.LogisticRegressionCV(**params).fit(features, labels)
    b = lc.LogisticRegressionCV(**params).fit_source(source)
    assert_same_cv(a, b, features)


def test_command_fit_chunksize(tmp_path, capsys):
    from conftest import cli

    X, y, _ = problem(3, seed=7)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])]).assign(label=y)
    frame.to_csv(tmp_path / "rows.csv", index=False)
    params = ["--param", "l1_ratios=[1.0]", "--param", "scoring=neg_log_loss", "--param", "Cs=4",
              "--param", "cv=3", "--param", "use_legacy_attributes=False", "--param", "tol=1e-10"]
    said = {}
    for name, extra in (("chunked", ["--chunksize", "90"]), ("memory", [])):
        code, said[name], err = cli(["fit", "--model", "logistic-cv", "--data",
                                     tmp_path / "rows.csv", "--target", "label", *params, *extra,
                                     "--out", tmp_path / f"{name}.linclass"], capsys)
        assert code == 0, err
    a, b = (lc.load(tmp_path / f"{name}.linclass") for name in ("memory", "chunked"))
    assert f"{b.n_passes_} passes over the data" in said["chunked"]
    assert b.C_ == a.C_ and b.n_passes_ > 3
    np.testing.assert_allclose(b.predict_proba(X), a.predict_proba(X), rtol=0, atol=1e-8)


# ------------------------------------------------------------------------------ real data
def test_breast_cancer_and_wine_standardised():
    from sklearn.datasets import load_breast_cancer, load_wine
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    # (a weaker penalty nearly separates the classes: the coefficients grow large and slow)
    params = {"Cs": [0.03, 0.3, 3.0], "cv": 3, "l1_ratios": (1.0,), "scoring": "neg_log_loss",
              "use_legacy_attributes": False, **TIGHT}
    a = lc.LogisticRegressionCV(**params).fit(X, y)
    b = lc.LogisticRegressionCV(**params).fit(da.from_array(X, chunks=(150, 30)),
                                              da.from_array(y, chunks=150))
    assert_same_cv(a, b, X, atol=1e-6)
    assert 0 < np.count_nonzero(b.coef_) < X.shape[1]
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    # (min_ratio: a weaker end nearly separates the classes, where tol=1e-10 leaves 5e-8)
    settings = {"Cs": 5, "penalty": "elasticnet", "l1_ratio": 0.5, "min_ratio": 0.01, **TIGHT}
    assert_same_path(lc.logistic_path(X, y, **settings),
                     lc.logistic_path(da.from_array(X, chunks=(60, 13)),
                                      da.from_array(y, chunks=60), **settings))


# ------------------------------------------------------------------------------ refusals
def test_what_needs_the_rows_in_memory_is_refused_by_name():
    X, y, _ = problem(2)
    Xd, yd, _ = on_dask(X, y)
    params = {"Cs": 3, "l1_ratios": (1.0,), "scoring": "neg_log_loss",
              "use_legacy_attributes": False}
    for cv in (ShuffleSplit(3), KFold(3, shuffle=True, random_state=0)):
        with pytest.raises(ValueError, match="PredefinedSplit"):
            lc.LogisticRegressionCV(cv=cv, **params).fit(Xd, yd)
    with pytest.raises(ValueError, match="'accuracy'.*'neg_log_loss'.*roc_auc"):
        lc.LogisticRegressionCV(**{**params, "scoring": "roc_auc"}).fit(Xd, yd)
    with pytest.raises(ValueError, match="relax below 1 needs the rows in memory"):
        lc.LogisticRegressionCV(relax=0.5, **params).fit(Xd, yd)
    with pytest.raises(ValueError, match="liblinear"):
        lc.LogisticRegressionCV(solver="liblinear", **params).fit(Xd, yd)
    with pytest.raises(ValueError, match="penalty_factor.*rows in memory"):
        lc.logistic_path(Xd, yd, penalty_factor=np.ones(X.shape[1]))
    with pytest.raises(ValueError, match="test_fold has 10 entries.*320 rows"):
        lc.LogisticRegressionCV(cv=PredefinedSplit(np.arange(10) % 2), **params).fit(Xd, yd)
    with pytest.raises(ValueError, match="metadata"):
        lc.LogisticRegressionCV(**params).fit(Xd, yd, groups=np.zeros(320))
    with pytest.raises(ValueError, match="holds its labels"):
        lc.logistic_path(DaskSource(Xd, yd), yd)
