"""Bernoulli, multinomial and Poisson naive Bayes: closed forms, scikit-learn, scipy, properties."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import log_softmax
from scipy.stats import poisson
from sklearn import naive_bayes as sk

from linclass import BernoulliNB, MultinomialNB, PoissonNB

MODELS = [BernoulliNB, MultinomialNB, PoissonNB]


@pytest.fixture
def counts():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 400)
    rates = rng.gamma(1.0, 1.5, size=(3, 30))
    X = rng.poisson(rates[y]).astype(float)
    return X, y


def test_closed_forms_by_hand():
    X = np.array([[1.0, 0, 2], [0, 1, 0], [3, 0, 1], [0, 2, 2]])
    y = np.array([0, 1, 0, 1])
    a = 0.5
    S = np.array([[4.0, 0, 3], [0, 3, 2]])  # class feature totals
    B = np.array([[2.0, 0, 2], [0, 2, 1]])  # class counts of x > 0
    n = np.array([2.0, 2.0])
    np.testing.assert_allclose(
        np.exp(BernoulliNB(alpha=a).fit(X, y).feature_log_prob_), (B + a) / (n[:, None] + 2 * a)
    )
    np.testing.assert_allclose(
        np.exp(MultinomialNB(alpha=a).fit(X, y).feature_log_prob_),
        (S + a) / (S.sum(1, keepdims=True) + 3 * a),
    )
    np.testing.assert_allclose(PoissonNB(alpha=a).fit(X, y).rates_, (S + a) / (n[:, None] + a))
    np.testing.assert_allclose(PoissonNB(alpha=1e-10).fit(X, y).rates_, S / n[:, None] + 0, atol=1e-9)


@pytest.mark.parametrize("alpha", [1.0, 0.1])
@pytest.mark.parametrize("ours, theirs, kwargs", [
    (BernoulliNB, sk.BernoulliNB, {"binarize": 1.0}),
    (MultinomialNB, sk.MultinomialNB, {}),
])
@pytest.mark.parametrize("sparse", [False, True])
def test_same_probabilities_as_scikit_learn(counts, alpha, ours, theirs, kwargs, sparse):
    X, y = counts
    w = np.random.default_rng(1).uniform(0.2, 3.0, len(y))
    Xi = sp.csr_matrix(X) if sparse else X
    a = ours(alpha=alpha, **kwargs).fit(Xi, y, sample_weight=w)
    b = theirs(alpha=alpha, **kwargs).fit(Xi, y, sample_weight=w)
    np.testing.assert_allclose(a.predict_proba(Xi), b.predict_proba(Xi), atol=1e-12)
    np.testing.assert_allclose(a.predict_log_proba(Xi), b.predict_log_proba(Xi), atol=1e-9)
    np.testing.assert_allclose(a.feature_log_prob_, b.feature_log_prob_, rtol=1e-10)
    np.testing.assert_allclose(a.feature_count_, b.feature_count_, rtol=1e-10)


def test_poisson_against_scipy(counts):
    X, y = counts
    model = PoissonNB(alpha=0.5, priors=[0.2, 0.5, 0.3]).fit(X, y)
    joint = np.stack(
        [poisson.logpmf(X, model.rates_[k]).sum(axis=1) + np.log(model.priors_[k]) for k in range(3)],
        axis=1,
    )
    np.testing.assert_allclose(model.predict_log_proba(X), log_softmax(joint, axis=1), atol=1e-10)


@pytest.mark.parametrize("make", MODELS)
def test_linear_form_identity(make, counts):
    """Bishop 2006 sec. 4.2.3-4.2.4: the posterior is a logistic (softmax) function of a linear score."""
    X, y = counts
    Xb = (X > 0).astype(float) if make is BernoulliNB else X
    multi = make().fit(X, y)
    np.testing.assert_allclose(
        multi.predict_log_proba(X), log_softmax(Xb @ multi.coef_.T + multi.intercept_, axis=1),
        atol=1e-10,
    )
    two = make().fit(X[y < 2], y[y < 2])
    log_odds = Xb[y < 2] @ two.coef_[0] + two.intercept_[0]
    proba = two.predict_proba(X[y < 2])
    np.testing.assert_allclose(np.log(proba[:, 1]) - np.log(proba[:, 0]), log_odds, atol=1e-9)
    np.testing.assert_allclose(two.decision_function(X[y < 2]), log_odds, atol=1e-9)


@pytest.mark.parametrize("make", MODELS)
def test_partial_fit_sparse_and_weights(make, counts):
    X, y = counts
    whole = make().fit(X, y)
    chunked = make()
    for part in np.array_split(np.arange(len(y)), 3):
        keep = part[y[part] != 2] if part[0] == 0 else part  # first chunk lacks class 2
        chunked.partial_fit(sp.csr_matrix(X[keep]), y[keep], classes=[0, 1, 2])
    rest = np.arange(len(y) // 3 + 1)
    rest = rest[y[rest] == 2]
    chunked.partial_fit(X[rest], y[rest])
    np.testing.assert_allclose(chunked.predict_proba(X), whole.predict_proba(X), atol=1e-12)
    np.testing.assert_allclose(
        make().fit(sp.csc_matrix(X), y).predict_proba(sp.csr_matrix(X)), whole.predict_proba(X),
        atol=1e-13,
    )
    reps = np.random.default_rng(2).integers(0, 4, len(y))
    weighted = make().fit(X, y, sample_weight=reps)
    repeated = make().fit(np.repeat(X, reps, axis=0), np.repeat(y, reps))
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), atol=1e-12)


@pytest.mark.parametrize("make", [MultinomialNB, PoissonNB])
@pytest.mark.parametrize("sparse", [False, True])
def test_negative_counts_are_refused(make, counts, sparse):
    X, y = counts
    X = X.copy()
    X[3, 4] = -1
    with pytest.raises(ValueError, match=f"Negative values in data passed to {make.__name__}"):
        make().fit(sp.csr_matrix(X) if sparse else X, y)
    model = make().fit(np.abs(X), y)
    with pytest.raises(ValueError, match="Negative values"):
        model.predict(X)


@pytest.mark.parametrize("make", MODELS)
def test_nan_in_sparse_input_is_named(make, counts):
    X, y = counts
    Xs = sp.csr_matrix(X)
    Xs.data[5] = np.nan
    with pytest.raises(ValueError, match=r"NaN in 1 stored entry \(first at row"):
        make().fit(Xs, y)


def test_bernoulli_without_binarize_needs_binary_input(counts):
    X, y = counts
    with pytest.raises(ValueError, match="binarize=None.*0 or 1"):
        BernoulliNB(binarize=None).fit(X, y)
    Xb = (X > 0).astype(float)
    np.testing.assert_allclose(
        BernoulliNB(binarize=None).fit(Xb, y).predict_proba(Xb),
        BernoulliNB().fit(X, y).predict_proba(X), atol=1e-13,
    )


def test_tiny_alpha_is_raised_with_a_warning(counts):
    X, y = counts
    with pytest.warns(UserWarning, match="alpha=0 is too small"):
        model = MultinomialNB(alpha=0).fit(X, y)
    assert np.all(np.isfinite(model.predict_proba(X)))
