"""The working set of a two-class L1 / elastic-net fit from zero: the strong set from lambda_max
where it adds little to each pass, the violators otherwise; the same optimum either way."""

import numpy as np
import pytest
import scipy.sparse as sp

import linclass.linear.solvers.prox_newton as pn
from linclass import LogisticRegression
from linclass.linear.penalties.elastic_net import ElasticNet


def _text(n=3000, d=1500, seed=0):
    rng = np.random.default_rng(seed)
    words = rng.zipf(1.2, size=n * 20) % d
    rows = np.repeat(np.arange(n), 20)
    X = sp.csr_matrix((np.ones(n * 20), (rows, words)), shape=(n, d))
    X.sum_duplicates()
    X.data = np.log1p(X.data)
    w = np.zeros(d)
    w[rng.choice(d, 60, replace=False)] = rng.normal(scale=1.5, size=60)
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ w - 0.3)))).astype(int)
    return X, y


def test_strong_start_rule():
    pen = ElasticNet(0.5, 1.0)  # lambda_1 = 2
    G0 = np.array([5.0, 4.0, 1.5, 1.2, 0.3, 0.2])  # lambda_max = 5 >= 2 lambda_1: every column
    violators = np.array([0, 1])
    # the other columns add 4 stored entries to the violators' 200: the strong set
    few = np.array([100, 100, 1, 1, 1, 1])
    assert pn._strong_start(pen, G0, violators, few).tolist() == [0, 1, 2, 3, 4, 5]
    # they would double each pass: the violators
    many = np.array([100, 100, 50, 50, 50, 50])
    assert pn._strong_start(pen, G0, violators, many).tolist() == [0, 1]
    # lambda_max = 3 < 2 lambda_1 = 4: the strong set is |G_j| >= 1 (columns 0-3)
    G0 = np.array([3.0, 2.5, 1.5, 1.2, 0.3, 0.2])
    mid = np.array([100, 100, 10, 10, 100, 100])
    assert pn._strong_start(pen, G0, violators, mid).tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("C, ratio", [(1.0, 1.0), (1.0, 0.5), (0.05, 1.0)])
def test_fit_reaches_the_optimum_from_either_start(C, ratio, monkeypatch):
    X, y = _text()
    kw = dict(penalty="l1" if ratio == 1.0 else "elasticnet", C=C, solver="cd", tol=1e-10,
              max_iter=1000, l1_ratio=None if ratio == 1.0 else ratio)
    strong = LogisticRegression(**kw).fit(X, y)
    monkeypatch.setattr(pn, "_strong_start", lambda pen, G0, ws, nnz: ws)
    violators = LogisticRegression(**kw).fit(X, y)

    def objective(m):
        s = X @ m.coef_.ravel() + m.intercept_[0]
        w = m.coef_.ravel()
        return (np.sum(np.logaddexp(0, s) - y * s)
                + (ratio * np.abs(w).sum() + (1 - ratio) / 2 * w @ w) / C)

    assert objective(strong) == pytest.approx(objective(violators), rel=1e-10)
    np.testing.assert_allclose(strong.coef_, violators.coef_, atol=1e-5)
