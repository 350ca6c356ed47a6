"""HC2 / HC3 and multi-way clustered covariances of LogisticRegression.summary against R's
sandwich (tests/data/r/inference/glm_inference.R on MASS's birthwt: vcovHC(type = "HC2" / "HC3"),
unweighted and with prior weights; vcovCL(m, cluster = ~ g1 + g2) with its defaults, type "HC1" and
cadjust = FALSE), to 1e-6 relative (every entry against se_i se_j); frequency weights equal
repeated rows; a softmax fit's two-way covariance is V1 + V2 - V12 of its one-way ones."""

from __future__ import annotations


import numpy as np
import pytest
from sklearn.datasets import load_wine

from linclass import LogisticRegression
from r_inference import FEATURES, RTOL, birthwt_and_reference, tight_fit


@pytest.fixture(scope="module")
def birthwt():
    return birthwt_and_reference()


_fit = tight_fit


def _wine():
    X, y = load_wine(return_X_y=True)
    X = X[:, [0, 1, 9]]
    return (X - X.mean(axis=0)) / X.std(axis=0), y


def _relative(V, expected):
    """The largest |V - R| / (se_i se_j) (R's variances may be negative: two-way sums)."""
    V, expected = np.asarray(V), np.asarray(expected)
    scale = np.sqrt(np.abs(np.diag(expected)))
    return float(np.max(np.abs(V - expected) / np.outer(scale, scale)))


CASES = {
    "vcovHC_HC2": ("HC2", False, None, None),
    "vcovHC_HC3": ("HC3", False, None, None),
    "vcovHC_HC2_weighted": ("HC2", True, None, None),
    "vcovHC_HC3_weighted": ("HC3", True, None, None),
    "vcovCL_g1": ("cluster", False, ["g1"], None),
    "vcovCL_2way": ("cluster", False, ["g1", "g2"], None),
    "vcovCL_2way_HC1": ("cluster", False, ["g1", "g2"], "statsmodels"),
    "vcovCL_2way_noadjust": ("cluster", False, ["g1", "g2"], "none"),
    "vcovCL_2way_weighted": ("cluster", True, ["g1", "g2"], None),
}


@pytest.mark.parametrize("call", sorted(CASES))
def test_matches_r_sandwich(birthwt, call):
    data, reference = birthwt
    cov_type, weighted, clusters, correction = CASES[call]
    X, y = data[FEATURES], data["low"].to_numpy()
    w = data["w"].to_numpy(float) if weighted else None
    model = _fit(X, y, w, weight_type="variance") if weighted else _fit(X, y)
    kwargs = {}
    if clusters is not None:
        kwargs["groups"] = data[clusters[0]] if len(clusters) == 1 else data[clusters].to_numpy()
        kwargs["cluster_correction"] = correction
    table = model.summary(cov_type=cov_type, X=X, y=y, sample_weight=w, **kwargs)
    assert _relative(table.covariance, reference[call]) < RTOL
    if clusters is not None and len(clusters) == 2:
        assert table.n_clusters == 9 and "12 x 9 clusters" in str(table)


def test_leverage_counts_one_copy_of_a_frequency_weighted_row(birthwt):
    data, _ = birthwt
    X, y = data[FEATURES].to_numpy(), data["low"].to_numpy()
    w = data["w"].to_numpy()
    rows = np.repeat(np.arange(len(y)), w)
    weighted, repeated = _fit(X, y, w.astype(float)), _fit(X[rows], y[rows])
    for cov_type in ("HC2", "HC3"):
        a = weighted.summary(cov_type=cov_type, X=X, y=y, sample_weight=w).covariance
        b = repeated.summary(cov_type=cov_type, X=X[rows], y=y[rows]).covariance
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-12)
        clustered = weighted.summary(cov_type="cluster", X=X, y=y, sample_weight=w,
                                     groups=data[["g1", "g2"]].to_numpy()).covariance
        expanded = repeated.summary(cov_type="cluster", X=X[rows], y=y[rows],
                                    groups=data[["g1", "g2"]].to_numpy()[rows]).covariance
        np.testing.assert_allclose(clustered, expanded, rtol=1e-7, atol=1e-12)


def test_softmax_two_way_is_the_sum_of_one_way_terms():
    X, y = _wine()
    n = len(y)
    g1, g2 = np.arange(n) % 11, (np.arange(n) // 4) % 7
    both = np.array([f"{a}_{b}" for a, b in zip(g1, g2)])
    model = _fit(X, y)

    def cov(groups):
        return model.summary(cov_type="cluster", groups=groups, X=X, y=y,
                             cluster_correction="none").covariance

    np.testing.assert_allclose(cov(np.c_[g1, g2]), cov(g1) + cov(g2) - cov(both),
                               rtol=1e-9, atol=1e-12)
    # string labels, and three dimensions: the seven signed terms
    labels = np.c_[g1.astype(str), g2.astype(str)]
    np.testing.assert_allclose(cov(labels), cov(np.c_[g1, g2]), rtol=1e-12)
    g3 = np.arange(n) % 3
    three = cov(np.c_[g1, g2, g3])
    pair = lambda a, b: np.array([f"{u}_{v}" for u, v in zip(a, b)])  # noqa: E731
    expected = (cov(g1) + cov(g2) + cov(g3) - cov(pair(g1, g2)) - cov(pair(g1, g3))
                - cov(pair(g2, g3)) + cov(pair(pair(g1, g2), g3)))
    np.testing.assert_allclose(three, expected, rtol=1e-9, atol=1e-12)


def test_refusals(birthwt):
    data, _ = birthwt
    X, y = data[FEATURES], data["low"].to_numpy()
    Xw, yw = _wine()
    with pytest.raises(ValueError, match="two classes"):
        _fit(Xw, yw).summary(cov_type="HC3", X=Xw, y=yw)
    model = _fit(X, y)
    with pytest.raises(ValueError, match="at least two clusters in dimension 1"):
        model.summary(cov_type="cluster", X=X, y=y, groups=np.c_[data["g1"], np.zeros(len(y))])
    with pytest.raises(ValueError, match="cov_type must be one of"):
        model.summary(cov_type="HC4", X=X, y=y)
    with pytest.raises(ValueError, match="groups must be one cluster label per row"):
        model.summary(cov_type="cluster", X=X, y=y, groups=np.zeros((len(y), 2, 2)))
    with pytest.raises(ValueError, match="missing"):
        model.summary(cov_type="cluster", X=X, y=y,
                      groups=np.c_[data["g1"], np.where(data["g2"] == 3, np.nan, data["g2"])])


def test_two_way_matches_statsmodels(birthwt):
    """statsmodels' Logit ``fit(cov_type='cluster', cov_kwds={'groups': np.c_[g1, g2]})`` (its
    cov_cluster_2groups) is cluster_correction='statsmodels': every term's G/(G-1) (N-1)/(N-k)."""
    sm = pytest.importorskip("statsmodels.api")
    import warnings

    data, _ = birthwt
    X, y = data[FEATURES], data["low"].to_numpy()
    groups = data[["g1", "g2"]].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = sm.Logit(y, sm.add_constant(X)).fit(disp=0, method="newton", tol=1e-14,
                                                      maxiter=100, cov_type="cluster",
                                                      cov_kwds={"groups": groups})
    table = _fit(X, y).summary(cov_type="cluster", groups=groups, X=X, y=y,
                               cluster_correction="statsmodels")
    assert _relative(table.covariance, fitted.cov_params()) < 1e-8


def test_dask_chunks_merge_two_way_clusters():
    """The chunks' per-cluster sums of every set of dimensions merge (a cluster split over chunks
    is one cluster); HC2 / HC3 need the rows in memory."""
    da = pytest.importorskip("dask.array")
    X, y = _wine()
    groups = np.c_[np.arange(len(y)) % 9, (np.arange(len(y)) // 5) % 4]
    model = _fit(X, y)
    expected = model.summary(cov_type="cluster", groups=groups, X=X, y=y)
    chunks = (40, 1, 60, 77)
    got = model.summary(cov_type="cluster", groups=da.from_array(groups, chunks=(chunks, 2)),
                        X=da.from_array(X, chunks=(chunks, 3)), y=da.from_array(y, chunks=chunks))
    np.testing.assert_allclose(got.std_err, expected.std_err, rtol=1e-12)
    with pytest.raises(ValueError, match="rows in memory"):
        model.summary(cov_type="HC2", X=da.from_array(X, chunks=(chunks, 3)),
                      y=da.from_array(y, chunks=chunks))
