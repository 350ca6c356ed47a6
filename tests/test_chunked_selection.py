"""Leave-one-out and regularised discriminant analysis's leave-one-out search on Dask collections
(linclass.selection.chunked): the same numbers as in memory, block by block, with the global class
statistics shipped to each block.  Dask's synchronous scheduler, no cluster."""

import numpy as np
import pytest

import linclass as lc

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")

CHUNKS = (37, 90, 13, 100)  # uneven row blocks, one small


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def problem(seed=3, n=sum(CHUNKS), d=5):
    """Three Gaussian classes with different covariances (RDA-CV picks an interior point)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    A = rng.normal(size=(3, d, d)) * 0.4 + np.eye(d)
    X = np.einsum("kij,nj->ni", A[y], rng.normal(size=(n, d))) + 0.8 * y[:, None]
    return X, y, rng.uniform(0.5, 2.0, n)


def as_array(X, y, w):
    rows = (CHUNKS,)
    return (da.from_array(X, chunks=(CHUNKS, X.shape[1])), da.from_array(y, chunks=rows),
            None if w is None else da.from_array(w, chunks=rows))


def as_frame(X, y, w):
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    frame["label"] = np.array(["a", "b", "c"])[y]
    frame["weight"] = 1.0 if w is None else w
    parts = dd.from_pandas(frame, npartitions=3)
    return (parts.drop(columns=["label", "weight"]), parts["label"],
            None if w is None else parts["weight"])


MODELS = [
    lc.LinearDiscriminantAnalysis(),
    lc.LinearDiscriminantAnalysis(shrinkage="ledoit-wolf"),
    lc.QuadraticDiscriminantAnalysis(),
    lc.QuadraticDiscriminantAnalysis(reg_param=0.1),
    lc.GaussianNB(),
    lc.GaussianDiscriminantAnalysis(covariance_type="diag"),
    lc.RegularizedDiscriminantAnalysis(),
]  # (LDA, QDA, GaussianNB and RDA also on a data frame: MODELS[::2])


CASES = [(e, as_array) for e in MODELS] + [(e, as_frame) for e in MODELS[::2]]


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("estimator, collection", CASES,
                         ids=[f"{e!r}-{c.__name__}" for e, c in CASES])
def test_loo_predict_proba_on_dask_equals_in_memory(estimator, collection, weighted):
    X, y, w = problem()
    w = w if weighted else None
    labels = y if collection is as_array else np.array(["a", "b", "c"])[y]
    expected = lc.loo_predict_proba(estimator, X, labels, w)
    Xd, yd, wd = collection(X, y, w)
    lazy = lc.loo_predict_proba(estimator, Xd, yd, wd)
    assert isinstance(lazy, da.Array)
    if collection is as_array:
        assert lazy.chunks == (CHUNKS, (3,))  # aligned with X's row blocks
    np.testing.assert_allclose(lazy.compute(), expected, rtol=0, atol=1e-8)
    scoring = ("accuracy", "neg_log_loss", "log_likelihood")[MODELS.index(estimator) % 3]
    assert lc.loo_score(estimator, Xd, yd, wd, scoring=scoring) == pytest.approx(
        lc.loo_score(estimator, X, labels, w, scoring=scoring), rel=0, abs=1e-8)


@pytest.mark.parametrize("cv", [None, 3], ids=["loo", "3-fold"])
@pytest.mark.parametrize("scoring", ["neg_log_loss", "accuracy", "log_likelihood"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("collection", [as_array, as_frame], ids=["array", "frame"])
def test_rda_cv_on_dask_equals_in_memory(collection, weighted, scoring, cv):
    X, y, w = problem()
    w = w if weighted else None
    labels = y if collection is as_array else np.array(["a", "b", "c"])[y]
    grid = dict(poolings=5, shrinkages=[0.0, 0.05, 0.2, 0.5, 1.0], scoring=scoring, cv=cv)
    memory = lc.RegularizedDiscriminantAnalysisCV(**grid).fit(X, labels, w)
    chunked = lc.RegularizedDiscriminantAnalysisCV(**grid).fit(*collection(X, y, w))
    if scoring == "neg_log_loss":  # the data give an interior choice
        assert 0 < memory.pooling_ < 1 and 0 < memory.shrinkage_ < 1
    assert (chunked.pooling_, chunked.shrinkage_) == (memory.pooling_, memory.shrinkage_)
    assert np.array_equal(np.isfinite(chunked.cv_scores_), np.isfinite(memory.cv_scores_))
    finite = np.isfinite(memory.cv_scores_)
    np.testing.assert_allclose(chunked.cv_scores_[finite], memory.cv_scores_[finite], rtol=0,
                               atol=1e-8)
    assert chunked.best_score_ == pytest.approx(memory.best_score_, rel=0, abs=1e-8)
    np.testing.assert_array_equal(chunked.classes_, memory.classes_)
    np.testing.assert_allclose(chunked.covariance_, memory.covariance_, rtol=0, atol=1e-10)


def test_stratified_fold_rule_is_scikit_learns():
    """Each row's fold from per-block label counts equals StratifiedKFold's on all rows (classes
    numbered by first appearance, uneven classes, blocks that miss a class)."""
    from sklearn.model_selection import StratifiedKFold

    from linclass.core.chunks import Chunk
    from linclass.selection import fold_rules

    rng = np.random.default_rng(1)
    y = np.concatenate([[2, 2, 0], rng.choice([0, 1, 2], size=200, p=[0.5, 0.2, 0.3]), [1] * 7])
    bounds = [0, 3, 50, 51, 140, y.size]
    blocks = [Chunk(np.zeros((b - a, 1)), y[a:b], None, i, a)
              for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:]))]
    layout = sum((fold_rules.label_counts(c, 1) for c in blocks), [])
    for n_splits in (2, 3, 5):
        rule = fold_rules.stratified_folds(layout, np.array([0, 1, 2]), n_splits)
        ours = np.concatenate([rule.of(c.index, c.y) for c in blocks])
        expected = np.empty(y.size, int)
        for f, (_, test) in enumerate(StratifiedKFold(n_splits).split(np.zeros((y.size, 1)), y)):
            expected[test] = f
        np.testing.assert_array_equal(ours, expected)


def test_refusals_name_the_function():
    from sklearn.model_selection import KFold

    X, y, w = problem()
    Xd, yd, _ = as_array(X, y, None)
    with pytest.raises(ValueError, match=r"RegularizedDiscriminantAnalysisCV\.fit with cv=KFold"
                                         r".*needs the rows in memory"):
        lc.RegularizedDiscriminantAnalysisCV(cv=KFold(3)).fit(Xd, yd)
    with pytest.raises(ValueError, match=r"cv=200 folds need at least 200 rows of every class"):
        lc.RegularizedDiscriminantAnalysisCV(cv=200).fit(Xd, yd)
    with pytest.raises(TypeError, match="loo_predict_proba needs a Gaussian model"):
        lc.loo_predict_proba(lc.LogisticRegression(), Xd, yd)
    with pytest.raises(TypeError, match=r"^Perceptron\.fit does not work on Dask collections"):
        lc.Perceptron().fit(Xd, yd)
    with pytest.raises(ValueError, match=r"shrinkage='auto'.*cannot be fitted by chunks"):
        lc.loo_predict_proba(lc.LinearDiscriminantAnalysis(shrinkage="auto"), Xd, yd)


def test_loo_on_dask_errors_as_in_memory():
    X, y, w = problem()
    y = y.copy()
    y[5] = 3  # a class of one row: nothing left once it is left out
    Xd, yd, _ = as_array(X, y, None)
    with pytest.raises(ValueError, match=r"single row"):
        lc.loo_predict_proba(lc.QuadraticDiscriminantAnalysis(reg_param=0.1), Xd, yd).compute()
    y[5] = 0
    w = np.ones(y.size)
    w[y == 2] = 0
    Xd, yd, wd = as_array(X, y, w)
    with pytest.raises(ValueError, match=r"have no weight"):
        lc.loo_predict_proba(lc.LinearDiscriminantAnalysis(), Xd, yd, wd)


@pytest.mark.parametrize("cv", [None, 3])
def test_rda_cv_from_files_and_the_command(tmp_path, capsys, cv):
    """RegularizedDiscriminantAnalysisCV is chunk-fittable: a CSV read in blocks chooses the same
    grid point and gives the same posteriors as the rows in memory, also from `linclass fit
    --chunksize`."""
    from linclass.cli import main
    from linclass import load
    from linclass.sources.chunks import fit_chunked, supports_chunks
    from linclass.sources.files import FileSource

    X, y, _ = problem()
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    frame["label"] = y
    path = tmp_path / "rows.csv"
    frame.to_csv(path, index=False)
    grid = {"poolings": 4, "shrinkages": [0.0, 0.1, 0.4], "cv": cv}
    memory = lc.RegularizedDiscriminantAnalysisCV(**grid).fit(frame.drop(columns="label"), y)
    assert supports_chunks(lc.RegularizedDiscriminantAnalysisCV(**grid))
    chunked = fit_chunked(lc.RegularizedDiscriminantAnalysisCV(**grid),
                          FileSource(path, target="label", chunksize=70))
    assert (chunked.pooling_, chunked.shrinkage_) == (memory.pooling_, memory.shrinkage_)
    np.testing.assert_allclose(chunked.predict_proba(frame.drop(columns="label")),
                               memory.predict_proba(frame.drop(columns="label")),
                               rtol=0, atol=1e-10)
    out = tmp_path / "m.linclass"
    args = ["fit", "--model", "rda-cv", "--data", str(path), "--target", "label",
            "--chunksize", "70", "--out", str(out)]
    if cv is not None:
        args[-2:-2] = ["--param", f"cv={cv}"]
    args += ["--param", "poolings=4", "--param", "shrinkages=[0.0, 0.1, 0.4]"]
    assert main(args) == 0, capsys.readouterr().err
    model = load(out)
    assert (model.pooling_, model.shrinkage_) == (memory.pooling_, memory.shrinkage_)


def test_rda_cv_with_a_splitter_is_refused_from_files(tmp_path):
    from sklearn.model_selection import KFold

    from linclass.sources.chunks import fit_chunked, supports_chunks
    from linclass.sources.files import FileSource

    X, y, _ = problem()
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    frame["label"] = y
    frame.to_csv(tmp_path / "rows.csv", index=False)
    model = lc.RegularizedDiscriminantAnalysisCV(cv=KFold(3))
    assert not supports_chunks(model)
    with pytest.raises(TypeError, match=r"cv=KFold.*needs the rows in memory"):
        fit_chunked(model, FileSource(tmp_path / "rows.csv", target="label", chunksize=70))


@pytest.mark.parametrize("model", [lc.LinearDiscriminantAnalysis(), lc.QuadraticDiscriminantAnalysis(),
                                   lc.GaussianNB()])
def test_leave_one_out_from_a_file(tmp_path, model):
    """loo_predict_proba and loo_score read a FileSource in two passes and equal the in-memory
    results, rows in the file's order."""
    from linclass.sources.files import FileSource

    X, y, _ = problem()
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    frame["label"] = y
    path = tmp_path / "rows.parquet"
    frame.to_parquet(path, index=False, row_group_size=60)
    source = FileSource(path, target="label", chunksize=60)
    expected = lc.loo_predict_proba(model, X, y)
    np.testing.assert_allclose(lc.loo_predict_proba(model, source), expected, rtol=0, atol=1e-12)
    for scoring in ("accuracy", "neg_log_loss"):
        assert lc.loo_score(model, source, scoring=scoring) == pytest.approx(
            lc.loo_score(model, X, y, scoring=scoring), abs=1e-12)
    with pytest.raises(ValueError, match="carries its own labels"):
        lc.loo_predict_proba(model, source, y)
    with pytest.raises(ValueError, match="y"):
        lc.loo_predict_proba(model, X)
