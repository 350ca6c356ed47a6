"""Robust covariances of LogisticRegression.summary(cov_type=...) against statsmodels' Logit and
MNLogit ``fit(cov_type=..., cov_kwds={'groups': g})``.

Standard errors, z and p-values agree within 1e-7 (relative; measured: 1e-11 for Logit, whose own
Newton fit stops at about that precision, 5e-14 for MNLogit).  statsmodels 0.15's discrete models
return HC0 under the name 'HC1'; ours is HC0 times N/(N-k), checked against their HC0.  Their
cluster factor is ``cluster_correction='statsmodels'`` (the default is Stata's and R's G/(G-1):
tests/test_cluster_correction.py).  Frequency weights equal repeated rows; chunked and Dask rows
equal rows in memory.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris, load_wine

from linclass import LogisticRegression

sm = pytest.importorskip("statsmodels.api")

RTOL = 1e-7


def standardised(X):
    return (X - X.mean(axis=0)) / X.std(axis=0)


def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return standardised(X[:, [0, 1, 4, 8]]), y


def wine():
    X, y = load_wine(return_X_y=True)
    return standardised(X[:, [0, 1, 9]]), y


def iris():
    X, y = load_iris(return_X_y=True)
    return standardised(X[:, [0]]), y  # two features separate setosa (no MLE)


def clusters(n, G=37):
    return np.arange(n) % G


def statsmodels_fit(kind, X, y, cov_type, groups=None):
    model = getattr(sm, kind)(y, sm.add_constant(X, prepend=True))
    kwargs = {"cov_kwds": {"groups": groups}} if cov_type == "cluster" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(disp=0, method="newton", maxiter=100, tol=1e-14, cov_type=cov_type,
                         **kwargs)


def fit(X, y, **params):
    return LogisticRegression(penalty=None, tol=1e-12, **params).fit(X, y)


def assert_close(ours, theirs, rtol=RTOL):
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=rtol, atol=0)


CASES = [("Logit", cancer), ("MNLogit", wine), ("MNLogit", iris)]


@pytest.mark.parametrize("kind, data", CASES, ids=["cancer", "wine", "iris"])
@pytest.mark.parametrize("cov_type", ["HC0", "cluster"])
def test_matches_statsmodels(kind, data, cov_type):
    X, y = data()
    groups = clusters(len(y)) if cov_type == "cluster" else None
    theirs = statsmodels_fit(kind, X, y, cov_type, groups)
    convention = {"cluster_correction": "statsmodels"} if cov_type == "cluster" else {}
    ours = fit(X, y).summary(cov_type=cov_type, groups=groups, X=X, y=y, **convention)
    assert_close(ours.bse, theirs.bse)
    assert_close(ours.zvalues, theirs.tvalues)
    assert_close(ours.pvalues, theirs.pvalues)
    assert_close(ours.conf_int(0.1), np.asarray(theirs.conf_int(0.1)).reshape(-1, 2))
    assert ours.covariance_type == cov_type
    assert f"Covariance Type:{cov_type:>{40 - len('Covariance Type:') - 1}}" in str(ours)


@pytest.mark.parametrize("kind, data", CASES[:2], ids=["cancer", "wine"])
def test_hc1_is_hc0_with_the_small_sample_factor(kind, data):
    """statsmodels' Logit / MNLogit 'HC1' is their HC0 (no factor): compare with HC0 * N/(N-k)."""
    X, y = data()
    theirs = statsmodels_fit(kind, X, y, "HC0")
    ours = fit(X, y).summary(cov_type="HC1", X=X, y=y)
    n, k = len(y), ours.coef.size
    assert_close(ours.bse, np.asarray(theirs.bse) * np.sqrt(n / (n - k)))
    assert "HC1" in str(ours)


def test_nonrobust_is_unchanged_and_needs_no_data():
    X, y = cancer()
    model = fit(X, y)
    theirs = statsmodels_fit("Logit", X, y, "nonrobust")
    assert_close(model.summary(cov_type="nonrobust").bse, theirs.bse, rtol=1e-6)
    assert model.summary().covariance_type == "nonrobust"


@pytest.mark.parametrize("cov_type", ["HC0", "HC1", "cluster"])
def test_frequency_weights_equal_repeated_rows(cov_type):
    X, y = wine()
    weight = np.random.default_rng(0).integers(0, 4, len(y))
    groups = clusters(len(y), 13)
    rows = np.repeat(np.arange(len(y)), weight)
    weighted = LogisticRegression(penalty=None, tol=1e-12).fit(X, y, sample_weight=weight)
    repeated = fit(X[rows], y[rows])
    kwargs = {"groups": groups} if cov_type == "cluster" else {}
    a = weighted.summary(cov_type=cov_type, X=X, y=y, sample_weight=weight, **kwargs)
    b = repeated.summary(cov_type=cov_type, X=X[rows], y=y[rows],
                         **({"groups": groups[rows]} if kwargs else {}))
    assert_close(a.std_err, b.std_err, rtol=1e-8)


def test_cluster_labels_of_any_type_and_pandas():
    pd = pytest.importorskip("pandas")
    X, y = cancer()
    codes = clusters(len(y))
    model = fit(X, y)
    base = model.summary(cov_type="cluster", groups=codes, X=X, y=y)
    named = model.summary(cov_type="cluster", groups=pd.Series([f"g{c}" for c in codes]),
                          X=pd.DataFrame(X), y=y)
    assert_close(named.std_err, base.std_err, rtol=1e-12)
    assert "37 clusters" in str(base)


def test_cluster_of_one_row_each_is_hc0_with_the_cluster_factor():
    """With every row its own cluster: Stata's vce(robust), HC0 N/(N-1), by default; statsmodels'
    HC0 N/(N-k) with its factor; HC0 without one."""
    X, y = cancer()
    model = fit(X, y)
    n, k = len(y), 5
    hc0 = model.summary(cov_type="HC0", X=X, y=y)
    for correction, factor in ((None, n / (n - 1)), ("statsmodels", n / (n - k)), ("none", 1.0)):
        each = model.summary(cov_type="cluster", groups=np.arange(n), X=X, y=y,
                             cluster_correction=correction)
        assert_close(each.std_err, hc0.std_err * np.sqrt(factor), rtol=1e-10)


def test_class_weights_as_the_fit_applies_them():
    X, y = wine()
    weighted = LogisticRegression(penalty=None, tol=1e-12, class_weight={0: 2}).fit(X, y)
    rows = np.concatenate([np.arange(len(y)), np.flatnonzero(y == 0)])
    repeated = fit(X[rows], y[rows])
    a = weighted.summary(cov_type="HC0", X=X, y=y)
    b = repeated.summary(cov_type="HC0", X=X[rows], y=y[rows])
    assert_close(a.std_err, b.std_err, rtol=1e-8)


# ------------------------------------------------------------------------------- chunked rows
def test_dask_arrays_equal_rows_in_memory():
    da = pytest.importorskip("dask.array")
    X, y = wine()
    w = np.random.default_rng(1).integers(1, 3, len(y)).astype(float)
    groups = clusters(len(y), 9)
    model = LogisticRegression(penalty=None, tol=1e-12, class_weight="balanced").fit(
        X, y, sample_weight=w)
    expected = model.summary(cov_type="cluster", groups=groups, X=X, y=y, sample_weight=w)
    chunks = ((40, 1, 60, 77),)
    got = model.summary(cov_type="cluster", groups=da.from_array(groups, chunks=chunks),
                        X=da.from_array(X, chunks=(chunks[0], 3)), y=da.from_array(y, chunks=chunks),
                        sample_weight=da.from_array(w, chunks=chunks))
    assert_close(got.std_err, expected.std_err, rtol=1e-12)
    hc1 = model.summary(cov_type="HC1", X=da.from_array(X, chunks=(50, 3)), y=y, sample_weight=w)
    assert_close(hc1.std_err, model.summary(cov_type="HC1", X=X, y=y, sample_weight=w).std_err,
                 rtol=1e-12)


def test_dask_frame_with_groups_as_its_column():
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    X, y = cancer()
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"]).assign(label=y, g=clusters(len(y)) * 3)
    model = fit(frame[["a", "b", "c", "d"]], frame["label"])
    expected = model.summary(cov_type="cluster", groups=frame["g"], X=frame[["a", "b", "c", "d"]],
                             y=frame["label"])
    lazy = dd.from_pandas(frame, npartitions=4)
    got = model.summary(cov_type="cluster", groups=lazy["g"], X=lazy[["a", "b", "c", "d"]],
                        y=lazy["label"])
    assert_close(got.std_err, expected.std_err, rtol=1e-12)


def test_file_source_with_groups_in_row_order(tmp_path):
    pd = pytest.importorskip("pandas")
    from linclass.sources.files import FileSource

    X, y = wine()
    path = tmp_path / "wine.csv"
    pd.DataFrame(X, columns=["a", "b", "c"]).assign(label=y).to_csv(path, index=False)
    source = FileSource(path, "label", chunksize=50)
    model = LogisticRegression(penalty=None, tol=1e-12).fit_source(source)
    groups = clusters(len(y), 7)
    got = model.summary(cov_type="cluster", groups=groups, source=source)
    expected = model.summary(cov_type="cluster", groups=groups, X=pd.DataFrame(X, columns=list("abc")),
                             y=y)
    assert_close(got.std_err, expected.std_err, rtol=1e-10)
    with pytest.raises(ValueError, match="groups has 100 labels, fewer than the rows"):
        model.summary(cov_type="cluster", groups=groups[:100], source=source)
    with pytest.raises(ValueError, match="groups has 200 labels, but the source has 178 rows"):
        model.summary(cov_type="cluster", groups=np.arange(200), source=source)


# --------------------------------------------------------------------------------- bad inputs
@pytest.fixture(scope="module")
def fitted():
    X, y = cancer()
    return fit(X, y), X, y


def test_bad_cov_type(fitted):
    model, X, y = fitted
    with pytest.raises(ValueError, match="cov_type must be one of 'nonrobust', 'HC0', 'HC1', "
                                         "'HC2', 'HC3', 'cluster'"):
        model.summary(cov_type="HC4", X=X, y=y)
    assert model.summary(cov_type="hc0", X=X, y=y).covariance_type == "HC0"


def test_cluster_needs_groups_and_groups_need_cluster(fitted):
    model, X, y = fitted
    with pytest.raises(ValueError, match="cov_type='cluster' needs groups="):
        model.summary(cov_type="cluster", X=X, y=y)
    with pytest.raises(ValueError, match="groups= is used by cov_type='cluster' only"):
        model.summary(cov_type="HC0", groups=clusters(len(y)), X=X, y=y)


def test_groups_of_the_wrong_length_or_shape_or_missing(fitted):
    model, X, y = fitted
    with pytest.raises(ValueError, match="groups has 568 labels, but X has 569 rows"):
        model.summary(cov_type="cluster", groups=clusters(len(y))[:-1], X=X, y=y)
    with pytest.raises(ValueError, match="1-D"):  # (2-D: multi-way clusters)
        model.summary(cov_type="cluster", groups=np.zeros((len(y), 2, 2)), X=X, y=y)
    labels = clusters(len(y)).astype(float)
    labels[5] = np.nan
    with pytest.raises(ValueError, match="missing label.*row 5"):
        model.summary(cov_type="cluster", groups=labels, X=X, y=y)
    mixed = np.array([1, "a"] * (len(y) // 2) + [1], dtype=object)
    with pytest.raises(ValueError, match="different types"):
        model.summary(cov_type="cluster", groups=mixed, X=X, y=y)


def test_one_cluster(fitted):
    model, X, y = fitted
    with pytest.raises(ValueError, match="at least two clusters; groups holds one \\('school'\\)"):
        model.summary(cov_type="cluster", groups=np.full(len(y), "school"), X=X, y=y)


def test_data_missing_or_wrong(fitted):
    model, X, y = fitted
    with pytest.raises(ValueError, match="computed from the rows the model was fitted on"):
        model.summary(cov_type="HC0")
    with pytest.raises(ValueError, match="needs y"):
        model.summary(cov_type="HC0", X=X)
    with pytest.raises(ValueError, match="4 features"):
        model.summary(cov_type="HC0", X=X[:, :3], y=y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        model.summary(cov_type="HC0", X=X, y=y[:-1])
    with pytest.raises(ValueError, match=r"label\(s\) \[7\]"):
        model.summary(cov_type="HC0", X=X, y=np.where(y == 1, 7, 0))
    with pytest.warns(UserWarning, match="are they the rows the model was fitted on"):
        model.summary(cov_type="HC0", X=X[::2], y=y[::2])


def test_penalised_and_firth_fits_are_refused():
    X, y = cancer()
    for model in (LogisticRegression(C=1.0).fit(X, y), LogisticRegression(penalty="firth").fit(X, y),
                  LogisticRegression(penalty="l1", C=1.0).fit(X, y)):
        with pytest.raises(ValueError, match="computed for unpenalised fits.*penalty=None"):
            model.summary(cov_type="HC0", X=X, y=y)


@pytest.mark.parametrize("kind, data", CASES[:2], ids=["cancer", "wine"])
def test_without_intercept(kind, data):
    X, y = data()
    X = X + 0.5
    theirs = getattr(sm, kind)(y, X).fit(disp=0, method="newton", maxiter=100, tol=1e-14,
                                         cov_type="HC0")
    ours = fit(X, y, fit_intercept=False).summary(cov_type="HC0", X=X, y=y)
    assert ours.names == ["x0", "x1", "x2", "x3"][:X.shape[1]]
    assert_close(ours.bse, theirs.bse)
