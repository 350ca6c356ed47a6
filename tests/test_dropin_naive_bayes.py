"""The naive Bayes models as drop-ins for scikit-learn 1.9's GaussianNB, BernoulliNB, MultinomialNB,
ComplementNB and CategoricalNB.

Every documented parameter value is built with the same arguments in both libraries and the
probabilities, joint log-likelihoods and fitted attributes compared (1e-10), on dense and sparse
input, by fit and by partial_fit.  Documented differences are asserted as such.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import naive_bayes as sknb

import linclass

ATOL = 1e-10


def counts(seed=0, n=240, d=6, K=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    rates = rng.uniform(0.5, 4.0, size=(K, d))
    return rng.poisson(rates[y]).astype(float), y


def gauss(seed=0, n=200, d=4, K=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    return rng.normal(size=(K, d))[y] + rng.normal(size=(n, d)) * rng.uniform(0.5, 2, d), y


def assert_same(ours, ref, X):
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=0, atol=ATOL)
    np.testing.assert_allclose(ours.predict_log_proba(X), ref.predict_log_proba(X), rtol=1e-9,
                               atol=ATOL)
    np.testing.assert_allclose(ours.predict_joint_log_proba(X), ref.predict_joint_log_proba(X),
                               rtol=1e-10, atol=1e-9)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    np.testing.assert_array_equal(ours.classes_, ref.classes_)
    np.testing.assert_allclose(ours.class_count_, ref.class_count_, rtol=1e-12)
    for name in ("class_log_prior_", "feature_count_", "feature_log_prob_", "class_prior_", "var_",
                 "theta_", "epsilon_", "feature_all_", "n_categories_"):
        if hasattr(ref, name) and not isinstance(getattr(ref, name), list):
            np.testing.assert_allclose(np.asarray(getattr(ours, name)), np.asarray(getattr(ref, name)),
                                       rtol=1e-9, atol=1e-12, err_msg=name)
    for name in ("category_count_", "feature_log_prob_"):
        if isinstance(getattr(ref, name, None), list):
            for a, b in zip(getattr(ours, name), getattr(ref, name), strict=True):
                np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, err_msg=name)


ALPHA_ARRAY = np.array([0.1, 0.5, 1.0, 2.0, 0.3, 1.5])
DISCRETE_CASES = [
    {},
    {"alpha": 0.0, "force_alpha": False},
    {"alpha": 1e-12, "force_alpha": False},
    {"alpha": 0.3},
    {"alpha": 2.5, "force_alpha": True},
    {"fit_prior": False},
    {"class_prior": [0.2, 0.5, 0.3]},
    {"fit_prior": False, "class_prior": [0.6, 0.2, 0.2]},
]


def fit_both(name, params, X, y, sample_weight=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # tiny alpha raised to 1e-10 (both libraries)
        ours = getattr(linclass, name)(**params).fit(X, y, sample_weight=sample_weight)
        ref = getattr(sknb, name)(**params).fit(X, y, sample_weight=sample_weight)
    return ours, ref


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("params", DISCRETE_CASES + [{"alpha": ALPHA_ARRAY}], ids=repr)
def test_multinomial_matches_sklearn(params, sparse):
    X, y = counts()
    Xs = sp.csr_matrix(X) if sparse else X
    ours, ref = fit_both("MultinomialNB", params, Xs, y)
    assert_same(ours, ref, Xs)


@pytest.mark.parametrize("params", DISCRETE_CASES + [{"binarize": 2.0}, {"binarize": None, "alpha": 0.5}],
                         ids=repr)
def test_bernoulli_matches_sklearn(params):
    X, y = counts()
    if params.get("binarize", 0.0) is None:
        X = (X > 2).astype(float)
    ours, ref = fit_both("BernoulliNB", params, X, y)
    assert_same(ours, ref, X)


def test_bernoulli_per_feature_alpha():
    """scikit-learn's BernoulliNB fails on a per-feature alpha (it adds alpha of shape (d,) to the
    class counts of shape (K,)); linclass's is the smoothing (S_kj + a_j) / (n_k + 2 a_j)."""
    X, y = counts()
    model = linclass.BernoulliNB(alpha=ALPHA_ARRAY, binarize=2.0).fit(X, y)
    S = model.feature_count_
    n = model.class_count_[:, None]
    np.testing.assert_allclose(model.feature_log_prob_, np.log((S + ALPHA_ARRAY) / (n + 2 * ALPHA_ARRAY)))


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("params", DISCRETE_CASES + [{"norm": True}, {"norm": True, "alpha": 0.2},
                                                     {"alpha": ALPHA_ARRAY, "norm": False}], ids=repr)
def test_complement_matches_sklearn(params, sparse):
    X, y = counts(seed=1)
    Xs = sp.csc_matrix(X) if sparse else X
    ours, ref = fit_both("ComplementNB", params, Xs, y)
    assert_same(ours, ref, Xs)


@pytest.mark.parametrize("params", [p for p in DISCRETE_CASES] + [
    {"min_categories": 12}, {"min_categories": [9, 10, 11, 12, 13, 14]}], ids=repr)
def test_categorical_matches_sklearn(params):
    X, y = counts(seed=2)
    ours, ref = fit_both("CategoricalNB", params, X, y)
    assert_same(ours, ref, X)


@pytest.mark.parametrize("params", [{}, {"priors": [0.2, 0.5, 0.3]}, {"var_smoothing": 1e-3},
                                    {"var_smoothing": 0.0}], ids=repr)
def test_gaussian_matches_sklearn(params):
    X, y = gauss()
    ours, ref = fit_both("GaussianNB", params, X, y)
    assert_same(ours, ref, X)


@pytest.mark.parametrize("name", ["GaussianNB", "BernoulliNB", "MultinomialNB", "ComplementNB",
                                  "CategoricalNB"])
def test_weighted_fit_and_partial_fit_stream_match_sklearn(name):
    X, y = gauss() if name == "GaussianNB" else counts(seed=3)
    w = np.random.default_rng(0).integers(1, 4, size=len(y)).astype(float)
    ours, ref = fit_both(name, {}, X, y, sample_weight=w)
    if name != "GaussianNB":  # scikit-learn's var_smoothing term uses the unweighted variance
        assert_same(ours, ref, X)
    ours = getattr(linclass, name)()
    ref = getattr(sknb, name)()
    for chunk in np.array_split(np.arange(len(y)), 4):
        ours.partial_fit(X[chunk], y[chunk], classes=[0, 1, 2])
        ref.partial_fit(X[chunk], y[chunk], classes=[0, 1, 2])
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-8)


@pytest.mark.parametrize("name", ["GaussianNB", "BernoulliNB", "MultinomialNB", "ComplementNB",
                                  "CategoricalNB", "PoissonNB"])
def test_one_class_training_set_gives_a_defined_answer(name):
    X, y = counts()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # as scikit-learn 1.9 fits it: without a warning
        model = getattr(linclass, name)().fit(X, np.full(len(y), 7))
    np.testing.assert_array_equal(model.classes_, [7])
    np.testing.assert_array_equal(model.predict(X), 7)
    np.testing.assert_array_equal(model.predict_proba(X), 1.0)
    if hasattr(sknb, name):
        ref = getattr(sknb, name)().fit(X, np.full(len(y), 7))
        np.testing.assert_allclose(model.predict_joint_log_proba(X[:5]), ref.predict_joint_log_proba(X[:5]),
                                   rtol=1e-10)
        for attr in ("class_count_", "class_log_prior_", "class_prior_", "feature_count_", "theta_"):
            if hasattr(ref, attr):
                np.testing.assert_allclose(getattr(model, attr), getattr(ref, attr), rtol=1e-10,
                                           err_msg=attr)


def test_poisson_joint_log_proba_is_the_exact_log_joint():
    from scipy.stats import poisson

    X, y = counts()
    model = linclass.PoissonNB(alpha=0.5).fit(X, y)
    want = np.log(model.priors_) + np.array(
        [poisson.logpmf(X, model.rates_[k]).sum(axis=1) for k in range(3)]).T
    np.testing.assert_allclose(model.predict_joint_log_proba(X), want, rtol=1e-12)
    np.testing.assert_allclose(model.predict_joint_log_proba(sp.csr_matrix(X)), want, rtol=1e-12)


def test_categorical_partial_fit_widens_and_unseen_categories_are_defined():
    X, y = counts(seed=4)
    first, second = X[:120].copy(), X[120:].copy()
    first[first > 3] = 3  # the first batch sees fewer categories
    model = linclass.CategoricalNB().partial_fit(first, y[:120], classes=[0, 1, 2])
    narrow = model.n_categories_.copy()
    model.partial_fit(second, y[120:])
    whole = linclass.CategoricalNB().fit(np.vstack([first, second]), y)
    assert np.all(model.n_categories_ >= narrow)
    np.testing.assert_array_equal(model.n_categories_, whole.n_categories_)
    np.testing.assert_allclose(model.predict_proba(X), whole.predict_proba(X), atol=1e-12)
    # a code never seen in training: count zero in every class, no error (scikit-learn: IndexError)
    unseen = X[:3].copy()
    unseen[:, 0] = 99
    P = model.predict_proba(unseen)
    assert np.all(np.isfinite(P))
    alpha, m = 1.0, model.n_categories_[0]
    zero = np.log(alpha / (model.class_count_ + alpha * m))
    base = unseen.copy()
    base[:, 0] = 0
    diff = model.predict_joint_log_proba(unseen) - model.predict_joint_log_proba(base)
    want = np.broadcast_to(zero - model.feature_log_prob_[0][:, 0], diff.shape)
    np.testing.assert_allclose(diff, want, rtol=1e-12)


def test_categorical_refusals_and_truncation():
    X, y = counts()
    with pytest.raises(ValueError, match="Negative values in data passed to CategoricalNB"):
        linclass.CategoricalNB().fit(X - 1, y)
    with pytest.warns(UserWarning, match="truncated"):
        a = linclass.CategoricalNB().fit(X + 0.5, y)
    b = linclass.CategoricalNB().fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    with pytest.raises(TypeError, match="dense data is required"):
        linclass.CategoricalNB().fit(sp.csr_matrix(X), y)
    assert not linclass.registry.by_class(linclass.CategoricalNB).can("chunks")


def test_class_prior_and_priors_are_one_parameter():
    X, y = counts()
    a = linclass.MultinomialNB(priors=[0.2, 0.5, 0.3]).fit(X, y)
    b = linclass.MultinomialNB(class_prior=[0.2, 0.5, 0.3]).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    with pytest.raises(ValueError, match="same thing"):
        linclass.MultinomialNB(priors=[0.2, 0.5, 0.3], class_prior=[0.2, 0.5, 0.3]).fit(X, y)
    with pytest.warns(UserWarning, match="divided by their sum"):
        linclass.MultinomialNB(class_prior=[1, 1, 2]).fit(X, y)


def test_zero_alpha_is_raised_even_with_force_alpha():
    """Documented difference: scikit-learn keeps alpha=0 with force_alpha=True and returns NaN for a
    row holding a feature never seen in a class; linclass raises alpha to 1e-10 and warns."""
    X, y = counts()
    X[y == 0, 0] = 0
    X_new = X[:2].copy()
    X_new[:, 0] = 0  # 0 * log(0): NaN in scikit-learn's product
    with pytest.warns(UserWarning, match="too small"):
        model = linclass.MultinomialNB(alpha=0.0, force_alpha=True).fit(X, y)
    assert np.all(np.isfinite(model.predict_proba(X_new)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = sknb.MultinomialNB(alpha=0.0, force_alpha=True).fit(X, y)
        assert np.isnan(ref.predict_proba(X_new)).any()


@pytest.mark.parametrize("name", ["GaussianNB", "BernoulliNB", "MultinomialNB", "ComplementNB",
                                  "CategoricalNB"])
def test_signature_holds_every_sklearn_parameter_and_method(name):
    ours = getattr(linclass, name)()
    ref = getattr(sknb, name)()
    assert set(ref.get_params()) <= set(ours.get_params())
    for method in ("fit", "partial_fit", "predict", "predict_proba", "predict_log_proba",
                   "predict_joint_log_proba", "score"):
        assert callable(getattr(ours, method)), method
