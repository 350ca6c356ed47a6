"""The certificate of overlap (Stiemke's weights at an estimate) against the separation linear
programme it stands in for."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer

from linclass import LogisticRegression
from linclass.linear.logistic.separation import overlap_certified, separation


@settings(max_examples=40, deadline=None)
@given(n=st.integers(8, 300), d=st.integers(1, 5), strength=st.floats(0.1, 20.0),
       intercept=st.booleans(), seed=st.integers(0, 2**16))
def test_a_certificate_is_never_wrong(n, d, strength, intercept, seed):
    """Wherever overlap is certified the linear programme finds no separation."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (rng.random(n) < 1 / (1 + np.exp(-strength * X[:, 0]))).astype(np.int64)
    if y.min() == y.max():
        return
    mu = np.clip(1 / (1 + np.exp(-strength * X[:, 0] * rng.uniform(0.5, 1.5))), 1e-300, 1 - 1e-16)
    if overlap_certified(X, y, mu, fit_intercept=intercept):
        assert separation(X, y, 2, fit_intercept=intercept) is None


def _firth_probabilities(X, y, **kw):
    return LogisticRegression(penalty="firth", **kw).fit(X, y).predict_proba(X)[:, 1]


def test_certified_at_the_firth_estimate_of_overlapping_data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((5000, 8))
    y = (rng.random(5000) < 1 / (1 + np.exp(-X[:, 0]))).astype(np.int64)
    assert overlap_certified(X, y, _firth_probabilities(X, y))
    assert separation(X, y, 2) is None
    Xb, yb = load_breast_cancer(return_X_y=True)  # real data, badly scaled features
    assert separation(Xb[:, :4], yb, 2) is None
    assert overlap_certified(Xb[:, :4], yb, _firth_probabilities(Xb[:, :4], yb, max_iter=500))
    # at the maximum-likelihood estimate itself the score vanishes and the weights balance exactly
    Xb = Xb[:, :6]
    mle = LogisticRegression(C=np.inf, max_iter=500).fit(Xb, yb).predict_proba(Xb)[:, 1]
    assert separation(Xb, yb, 2) is None and overlap_certified(Xb, yb, mle)


@pytest.mark.parametrize("kind", ["complete", "quasi"])
def test_separated_classes_are_never_certified(kind):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((200, 3))
    y = (X[:, 0] > 0).astype(np.int64)
    if kind == "quasi":
        X[:10, 0] = 0.0
        y[:5], y[5:10] = 0, 1
    assert separation(X, y, 2) == kind
    assert not overlap_certified(X, y, _firth_probabilities(X, y))


def test_rows_without_weight_take_no_part():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((400, 2))
    y = (X[:, 0] > 0).astype(np.int64)
    w = np.ones(400)
    flip = np.flatnonzero(y == 1)[:20]
    y[flip] = 0  # these rows make the classes overlap ...
    mu = _firth_probabilities(X, y)
    assert overlap_certified(X, y, mu)
    w[flip] = 0.0  # ... unless they carry no weight
    assert not overlap_certified(X, y, mu, sample_weight=w)
    assert separation(X, y, 2, sample_weight=w) is not None


def test_probability_one_rows_and_collinear_columns_prove_nothing():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((100, 2))
    y = (rng.random(100) < 0.5).astype(np.int64)
    mu = np.full(100, 0.5)
    assert overlap_certified(X, y, mu)
    mu[0] = float(y[0])  # fitted exactly: its weight is zero
    assert not overlap_certified(X, y, mu)
    assert not overlap_certified(np.c_[X, X[:, 0]], y, np.full(100, 0.5))


def test_firth_fit_on_overlapping_data_skips_the_linear_programme(monkeypatch):
    import linclass.linear.firth.inference as module

    def refuse(*args, **kwargs):
        raise AssertionError("the linear programme ran")

    monkeypatch.setattr(module, "find_separation", refuse)
    rng = np.random.default_rng(4)
    X = rng.standard_normal((3000, 5))
    y = (rng.random(3000) < 1 / (1 + np.exp(-X[:, 0]))).astype(np.int64)
    model = LogisticRegression(penalty="firth").fit(X, y)
    assert model.separation_ is None
