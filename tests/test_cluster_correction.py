"""The small-sample factor of cluster-robust standard errors, against R's sandwich on a glm
(tests/data/r/sandwich/sandwich.R: infert with 83 clusters, spector with N=32, k=4, 8 clusters).

The default is the convention Stata's ``logit, vce(cluster g)`` and R's ``vcovCL(m, cluster = g)``
share, G/(G-1); ``cluster_correction='statsmodels'`` is statsmodels' G/(G-1) (N-1)/(N-k), R's
``vcovCL(..., type = "HC1")``; ``'none'`` is no factor (``type = "HC0", cadjust = FALSE``).  HC1
is R's ``vcovHC(type = "HC1")``, N/(N-k); Stata's ``vce(robust)`` (HC0 N/(N-1), R's ``vcovCL(m)``
without clusters) is the cluster covariance with every row its own cluster.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from linclass import LogisticRegression

pd = pytest.importorskip("pandas")

HERE = Path(__file__).parent / "data" / "r" / "sandwich"
CASES = {"infert": (["spontaneous", "induced"], "case", "stratum"),
         "spector": (["GPA", "TUCE", "PSI"], "GRADE", "class_id")}
RTOL = 1e-9


def reference(case: str, call: str) -> np.ndarray:
    table = pd.read_csv(HERE / "sandwich_reference.csv")
    part = table[(table["case"] == case) & (table["call"] == call)]
    out = np.zeros((part["row"].max() + 1, part["col"].max() + 1))
    out[part["row"], part["col"]] = part["value"]
    return out


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request):
    name = request.param
    features, target, cluster = CASES[name]
    data = pd.read_csv(HERE / f"{name}.csv")
    X, y, g = data[features], data[target].to_numpy(), data[cluster].to_numpy()
    model = LogisticRegression(penalty=None).fit(X, y)
    return name, model, X, y, g


def assert_cov(summary, expected):
    """Standard errors to RTOL, and every covariance to RTOL of se_i se_j (an off-diagonal entry
    near zero has fewer correct digits than the variances)."""
    got = np.asarray(summary.cov_params())
    se = np.sqrt(np.diag(expected))
    np.testing.assert_allclose(np.sqrt(np.diag(got)), se, rtol=RTOL, atol=0)
    np.testing.assert_allclose(got / np.outer(se, se), expected / np.outer(se, se), rtol=0,
                               atol=RTOL)


def test_the_fit_is_r_glm(case):
    name, model, *_ = case
    np.testing.assert_allclose(np.r_[model.intercept_, model.coef_[0]],
                               reference(name, "coef")[0], rtol=RTOL)


def test_default_is_vcovCL_and_stata(case):
    name, model, X, y, g = case
    table = model.summary(cov_type="cluster", groups=g, X=X, y=y)
    assert_cov(table, reference(name, "vcovCL"))
    assert table.cluster_correction == "stata"
    assert table.n_clusters == len(np.unique(g))


@pytest.mark.parametrize("correction, call", [("statsmodels", "vcovCL_HC1"),
                                              ("none", "vcovCL_HC0_noadjust"),
                                              ("stata", "vcovCL")])
def test_each_correction_is_its_r_call(case, correction, call):
    name, model, X, y, g = case
    table = model.summary(cov_type="cluster", groups=g, X=X, y=y, cluster_correction=correction)
    assert_cov(table, reference(name, call))
    assert table.cluster_correction == correction


@pytest.mark.parametrize("cov_type, call", [("HC0", "vcovHC_HC0"), ("HC1", "vcovHC_HC1")])
def test_hc_as_vcovHC(case, cov_type, call):
    name, model, X, y, _ = case
    assert_cov(model.summary(cov_type=cov_type, X=X, y=y), reference(name, call))


def test_stata_vce_robust_is_one_row_per_cluster(case):
    name, model, X, y, _ = case
    table = model.summary(cov_type="cluster", groups=np.arange(len(y)), X=X, y=y)
    assert_cov(table, reference(name, "vcovCL_rows"))
    hc0 = reference(name, "vcovHC_HC0")
    np.testing.assert_allclose(reference(name, "vcovCL_rows"), hc0 * len(y) / (len(y) - 1),
                               rtol=1e-12)


def test_statsmodels_convention_is_statsmodels():
    sm = pytest.importorskip("statsmodels.api")
    data = pd.read_csv(HERE / "spector.csv")
    X, y, g = data[["GPA", "TUCE", "PSI"]], data["GRADE"].to_numpy(), data["class_id"].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = sm.Logit(y, sm.add_constant(X)).fit(disp=0, method="newton", tol=1e-14,
                                                     cov_type="cluster", cov_kwds={"groups": g})
    model = LogisticRegression(penalty=None).fit(X, y)
    ours = model.summary(cov_type="cluster", groups=g, X=X, y=y, cluster_correction="statsmodels")
    np.testing.assert_allclose(ours.bse, theirs.bse, rtol=1e-7)
    default = model.summary(cov_type="cluster", groups=g, X=X, y=y)
    n, k = len(y), 4  # statsmodels' variances are (N-1)/(N-k) = 31/28 larger: 10.7%
    np.testing.assert_allclose(ours.bse ** 2 / default.bse ** 2, (n - 1) / (n - k), rtol=1e-12)


def test_header_says_clusters_and_correction(case):
    name, model, X, y, g = case
    G = len(np.unique(g))
    text = str(model.summary(cov_type="cluster", groups=g, X=X, y=y))
    assert re.search(rf"No\. Clusters:\s+{G}\b", text)
    assert re.search(r"Cluster Correction:\s+G/\(G-1\)\s", text)
    text = str(model.summary(cov_type="cluster", groups=g, X=X, y=y,
                             cluster_correction="statsmodels"))
    assert re.search(r"Cluster Correction:\s+G/\(G-1\)\(N-1\)/\(N-k\)", text)
    text = str(model.summary(cov_type="HC1", X=X, y=y))
    assert "No. Clusters" not in text and "Cluster Correction" not in text


def test_chunked_rows_follow_the_same_convention(case, tmp_path):
    name, model, X, y, g = case
    from linclass.sources.files import FileSource

    path = tmp_path / "rows.csv"
    X.assign(label=y).to_csv(path, index=False)
    source = FileSource(path, "label", chunksize=7)
    for correction, call in (("stata", "vcovCL"), ("statsmodels", "vcovCL_HC1")):
        table = model.summary(cov_type="cluster", groups=g, source=source,
                              cluster_correction=correction)
        assert_cov(table, reference(name, call))
        assert table.n_clusters == len(np.unique(g))


def test_bad_correction(case):
    name, model, X, y, g = case
    with pytest.raises(ValueError, match="cluster_correction must be one of 'stata', "
                                         "'statsmodels', 'none'; got 'CR2'"):
        model.summary(cov_type="cluster", groups=g, X=X, y=y, cluster_correction="CR2")
    with pytest.raises(ValueError, match="cluster_correction= applies to cov_type='cluster'"):
        model.summary(cov_type="HC1", X=X, y=y, cluster_correction="statsmodels")
