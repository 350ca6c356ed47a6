"""MASS's other posteriors (posterior='predictive' / 'debiased' of LDA and QDA): the textbook
formulas against scipy's multivariate t and direct computation, and against MASS where MASS's code
gives the same (tests/data/r/mass_posteriors.R and its output)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.special import digamma
from scipy.stats import multivariate_t
from sklearn.datasets import load_iris

import linclass as lc

R_DIR = Path(__file__).parent / "data" / "r"
LDA, QDA = lc.LinearDiscriminantAnalysis, lc.QuadraticDiscriminantAnalysis


def unequal(seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], [12, 20, 30])
    X = rng.normal(size=(y.size, 3)) * np.array([1.0, 2.0, 0.5]) + 0.7 * y[:, None]
    X[y == 2] *= 1.4
    return X, y


def normalise(log_scores):
    s = log_scores - log_scores.max(axis=1, keepdims=True)
    P = np.exp(s)
    return P / P.sum(axis=1, keepdims=True)


def test_mass_plugin_predictive_and_debiased():
    pd = pytest.importorskip("pandas")
    X, y = load_iris(return_X_y=True)
    table = pd.read_csv(R_DIR / "mass_posteriors.csv", skipinitialspace=True)
    models = {
        "lda_plugin": (LDA(unbiased=True), X),
        "qda_plugin": (QDA(unbiased=True), X),
        "qda_predictive": (QDA(posterior="predictive"), X),
        "lda_debiased_2": (LDA(posterior="debiased"), X[:, :2]),
    }
    for case, (model, Xc) in models.items():
        expected = table[table["case"] == case][["p0", "p1", "p2"]].to_numpy()
        np.testing.assert_allclose(model.fit(Xc, y).predict_proba(Xc), expected, atol=1e-10,
                                   err_msg=case)


def test_predictive_qda_is_a_multivariate_t_per_class():
    X, y = unequal()
    model = QDA(posterior="predictive").fit(X, y)
    p = X.shape[1]
    logs = np.empty((y.size, 3))
    for k in range(3):
        Xk = X[y == k]
        n = Xk.shape[0]
        A = (Xk - Xk.mean(0)).T @ (Xk - Xk.mean(0))
        t = multivariate_t(loc=Xk.mean(0), shape=(n + 1) / (n * (n - p)) * A, df=n - p)
        logs[:, k] = t.logpdf(X) + np.log(n / y.size)
    np.testing.assert_allclose(model.predict_proba(X), normalise(logs), atol=1e-12)
    np.testing.assert_allclose(model.predict_log_proba(X), np.log(normalise(logs)), atol=1e-10)


def test_predictive_lda_is_a_multivariate_t_per_class():
    X, y = unequal()
    model = LDA(posterior="predictive").fit(X, y)
    N, p, K = y.size, X.shape[1], 3
    S_W = sum((X[y == k] - X[y == k].mean(0)).T @ (X[y == k] - X[y == k].mean(0)) for k in range(K))
    df = N - K - p + 1
    logs = np.empty((N, K))
    for k in range(K):
        n = np.sum(y == k)
        t = multivariate_t(loc=X[y == k].mean(0), shape=(n + 1) / (n * df) * S_W, df=df)
        logs[:, k] = t.logpdf(X) + np.log(n / N)
    np.testing.assert_allclose(model.predict_proba(X), normalise(logs), atol=1e-12)


def test_debiased_is_the_unbiased_distance_and_log_determinant():
    X, y = unequal(1)
    N, p, K = y.size, X.shape[1], 3
    means = [X[y == k].mean(0) for k in range(K)]
    scatters = [(X[y == k] - means[k]).T @ (X[y == k] - means[k]) for k in range(K)]
    n = np.bincount(y)
    # LDA: (N-K-p-1) q - p/n_k
    S_W = sum(scatters)
    q = np.stack([np.einsum("ij,jk,ik->i", X - m, np.linalg.inv(S_W), X - m) for m in means], 1)
    logs = -0.5 * ((N - K - p - 1) * q - p / n) + np.log(n / N)
    np.testing.assert_allclose(LDA(posterior="debiased").fit(X, y).predict_proba(X), normalise(logs),
                               atol=1e-12)
    # QDA: (n_k-p-2) q - p/n_k and log|S_k/(n_k-1)| + p log((n_k-1)/2) - sum_j psi((n_k-j)/2)
    logs = np.empty((N, K))
    for k in range(K):
        qk = np.einsum("ij,jk,ik->i", X - means[k], np.linalg.inv(scatters[k]), X - means[k])
        logdet = (np.linalg.slogdet(scatters[k] / (n[k] - 1))[1] + p * np.log((n[k] - 1) / 2)
                  - digamma((n[k] - np.arange(1, p + 1)) / 2).sum())
        logs[:, k] = -0.5 * ((n[k] - p - 2) * qk - p / n[k] + logdet) + np.log(n[k] / N)
    np.testing.assert_allclose(QDA(posterior="debiased").fit(X, y).predict_proba(X), normalise(logs),
                               atol=1e-12)


def test_plug_in_is_unchanged_and_predictive_tends_to_it():
    X, y = unequal()
    np.testing.assert_array_equal(QDA().fit(X, y).predict_proba(X),
                                  QDA(posterior="plug-in").fit(X, y).predict_proba(X))
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 4000)
    X = rng.normal(size=(y.size, 2)) + y[:, None]
    for cls in (LDA, QDA):
        a = cls(unbiased=True).fit(X, y).predict_proba(X[:50])
        for posterior in ("predictive", "debiased"):
            np.testing.assert_allclose(cls(posterior=posterior).fit(X, y).predict_proba(X[:50]), a,
                                       atol=2e-3)


def test_refusals():
    X, y = unequal()
    with pytest.raises(ValueError, match="unregularised"):
        QDA(posterior="predictive", reg_param=0.1).fit(X, y)
    with pytest.raises(ValueError, match="more than 5 rows"):
        QDA(posterior="debiased").fit(X[:, :3][np.r_[0:4, 12:40, 32:62]], y[np.r_[0:4, 12:40, 32:62]])
    with pytest.raises(ValueError, match="posterior"):
        LDA(posterior="bayes").fit(X, y)
    with pytest.raises(ValueError, match="plug-in"):
        lc.loo_predict_proba(LDA(posterior="predictive"), X, y)
