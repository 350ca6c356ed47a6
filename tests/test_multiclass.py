"""One-versus-rest, one-versus-one and the single K-class discriminant (linclass.estimators.multiclass).

* Bishop's ambiguity (2006 sec. 4.1.2, Figure 4.2) on a hand-made three-class layout: points that are
  ambiguous are *constructed* from the fitted hyperplanes in the test (solving for the scores we want,
  then checking the signs with the binary models' own coef_), and points near each blob centre are
  shown to be unambiguous.  The K-class discriminant has no ambiguous point on a dense grid, while
  one-versus-rest does.
* Agreement with scikit-learn's OneVsRestClassifier / OneVsOneClassifier wrapping the same linclass
  base estimator: same predictions, decision values and (OvR) probabilities.
* Probabilities: rows sum to one, logs finite, also far from the data; the pairwise coupling recovers
  consistent pairwise probabilities exactly (hypothesis).
* The OvO tie rule, sample weights, summaries, input errors, and scikit-learn's estimator checks.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_iris
from sklearn.multiclass import OneVsOneClassifier as SkOneVsOne
from sklearn.multiclass import OneVsRestClassifier as SkOneVsRest
from sklearn.neighbors import KNeighborsClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from linclass import GaussianNB, LinearDiscriminantAnalysis, LogisticRegression
from linclass.strategies.voting import couple_pairwise, ovo_scores, ovo_votes, ovr_ambiguous, top_tied
from linclass.estimators.multiclass import (
    KClassDiscriminant,
    OneVsOneClassifier,
    OneVsRestClassifier,
)
from linclass.estimators.multiclass_base import MulticlassSummary

PAIRS3 = np.array([(0, 1), (0, 2), (1, 2)])


# ----------------------------------------------------------------------------- data


def triangle(n=80, seed=0):
    """Three blobs at the corners of an equilateral triangle (radius 3), two elongated horizontally
    and one vertically, so that the pairwise boundaries are far from concurrent."""
    rng = np.random.default_rng(seed)
    angles = np.pi / 2 + 2 * np.pi * np.arange(3) / 3
    centres = 3.0 * np.column_stack([np.cos(angles), np.sin(angles)])
    spreads = np.array([(2.5, 0.3), (2.5, 0.3), (0.3, 2.5)])
    X = np.vstack([centres[k] + spreads[k] * rng.normal(size=(n, 2)) for k in range(3)])
    return X, np.repeat(np.arange(3), n), centres


@pytest.fixture(scope="module")
def tri():
    X, y, centres = triangle()
    ovr = OneVsRestClassifier(LogisticRegression()).fit(X, y)
    ovo = OneVsOneClassifier(LogisticRegression()).fit(X, y)
    kcd = KClassDiscriminant(LogisticRegression()).fit(X, y)
    return X, y, centres, ovr, ovo, kcd


def grid(lim=8.0, n=241):
    g = np.linspace(-lim, lim, n)
    return np.array(np.meshgrid(g, g)).reshape(2, -1).T


def linear_scores(estimators, X):
    """w^T x + w_0 of each binary model, computed here from coef_ / intercept_ (not via linclass)."""
    return np.column_stack([X @ e.coef_[0] + e.intercept_[0] for e in estimators])


# ----------------------------------------------------------------------------- one-versus-rest ambiguity


def test_ovr_point_claimed_by_no_classifier_is_ambiguous(tri):
    _, _, _, ovr, _, _ = tri
    W = np.vstack([e.coef_[0] for e in ovr.estimators_])
    b = np.array([e.intercept_[0] for e in ovr.estimators_])
    # least-squares point where every "k vs rest" score is -1
    x, *_ = np.linalg.lstsq(W, -1.0 - b, rcond=None)
    s = linear_scores(ovr.estimators_, x[None, :])
    assert np.all(s < 0)  # claimed by none: provably ambiguous
    assert ovr.ambiguous(x[None, :])[0]


@pytest.mark.parametrize("pair", [(0, 1), (0, 2), (1, 2)])
def test_ovr_point_claimed_by_two_classifiers_is_ambiguous(tri, pair):
    _, _, _, ovr, _, _ = tri
    i, j = pair
    W = np.vstack([ovr.estimators_[k].coef_[0] for k in pair])
    b = np.array([ovr.estimators_[k].intercept_[0] for k in pair])
    x = np.linalg.solve(W, 1.0 - b)  # scores of classes i and j both +1
    s = linear_scores(ovr.estimators_, x[None, :])[0]
    assert s[i] > 0 and s[j] > 0
    assert ovr.ambiguous(x[None, :])[0]
    assert ovr.predict(x[None, :])[0] in (i, j)


def test_ovr_blob_centres_are_unambiguous(tri):
    _, _, centres, ovr, _, _ = tri
    s = linear_scores(ovr.estimators_, centres)
    assert np.array_equal(s > 0, np.eye(3, dtype=bool))  # each centre claimed by its own class only
    assert not ovr.ambiguous(centres).any()
    assert np.array_equal(ovr.predict(centres), [0, 1, 2])


def test_ovr_ambiguous_matches_sign_count_on_grid(tri):
    _, _, _, ovr, _, _ = tri
    G = grid()
    expected = (linear_scores(ovr.estimators_, G) > 0).sum(axis=1) != 1
    assert expected.any() and not expected.all()
    assert np.array_equal(ovr.ambiguous(G), expected)


# ----------------------------------------------------------------------------- one-versus-one ambiguity


def cyclic(ovo, X):
    """Votes from the pairwise hyperplanes (computed here): True where each class wins once."""
    s = linear_scores(ovo.estimators_, X) > 0  # pair (i, j) positive -> j wins
    votes = np.zeros((X.shape[0], 3))
    for m, (i, j) in enumerate(PAIRS3):
        votes[:, j] += s[:, m]
        votes[:, i] += ~s[:, m]
    return np.all(votes == 1, axis=1)


def test_ovo_cyclic_vote_is_ambiguous(tri):
    ovo = tri[4]
    assert np.array_equal(ovo.pairs_, PAIRS3)
    W = np.vstack([e.coef_[0] for e in ovo.estimators_])
    b = np.array([e.intercept_[0] for e in ovo.estimators_])
    # the three pairwise lines bound a small triangle; its centroid is inside it
    corners = [np.linalg.solve(W[[p, q]], -b[[p, q]]) for p, q in [(0, 1), (0, 2), (1, 2)]]
    centroid = np.mean(corners, axis=0)[None, :]
    assert cyclic(ovo, centroid)[0]  # the layout has a cyclic region: each class wins one vote
    assert ovo.ambiguous(centroid)[0]
    # the tie is broken (a class is still predicted), by the summed confidences
    conf = linear_scores(ovo.estimators_, centroid)[0]
    summed = np.array([-conf[0] - conf[1], conf[0] - conf[2], conf[1] + conf[2]])
    assert ovo.predict(centroid)[0] == np.argmax(summed)


def test_ovo_ambiguous_matches_cyclic_votes_on_grid(tri):
    _, _, centres, _, ovo, _ = tri
    G = grid()
    expected = cyclic(ovo, G)
    assert expected.any()
    assert np.array_equal(ovo.ambiguous(G), expected)
    assert not ovo.ambiguous(centres).any()
    assert np.array_equal(ovo.predict(centres), [0, 1, 2])


def test_k_class_discriminant_has_no_ambiguous_region(tri):
    _, _, centres, ovr, ovo, kcd = tri
    G = grid(n=401)
    assert not kcd.ambiguous(G).any()
    assert ovr.ambiguous(G).sum() > 1000  # whereas one-versus-rest leaves large regions
    assert ovo.ambiguous(G).any()
    assert np.array_equal(kcd.predict(centres), [0, 1, 2])
    assert np.array_equal(kcd.predict(G), np.argmax(kcd.decision_function(G), axis=1))


def test_k_class_ties_only_at_exact_ties():
    S = np.array([[1.0, 1.0, 0.0], [1.0, 1.0 + 1e-15, 0.0], [0.0, 0.0, 0.0], [3.0, 2.0, 1.0]])
    assert np.array_equal(top_tied(S), [True, False, True, False])


def test_k_class_two_classes_tie_on_boundary():
    X = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    y = np.array([0, 0, 1, 1])
    kcd = KClassDiscriminant(LinearDiscriminantAnalysis()).fit(X, y)
    assert kcd.ambiguous([[0.0]])[0]  # symmetric data: the log-odds at 0 are exactly 0
    assert not kcd.ambiguous([[0.5], [-0.5]]).any()
    assert kcd.predict([[0.0]])[0] == 0


# ----------------------------------------------------------------------------- pure functions


def test_ovr_ambiguous_counts_claims():
    S = np.array([[1.0, -1, -1], [-1, -1, -1], [1, 1, -1], [-1, 0.0, -1]])
    assert np.array_equal(ovr_ambiguous(S), [False, True, True, True])


def test_ovo_tie_rule():
    # cyclic votes: every class has one; the summed confidences decide
    positive = np.array([[True, False, True]])  # (0,1)->1, (0,2)->0, (1,2)->2
    votes = ovo_votes(positive, PAIRS3, 3)
    assert np.array_equal(votes, [[1, 1, 1]])
    conf = np.array([[0.5, -2.0, 0.1]])  # class 0: -0.5 + 2.0 = 1.5; class 1: 0.5 - 0.1; class 2: -2 + 0.1
    S = ovo_scores(votes, conf, PAIRS3)
    assert np.argmax(S) == 0
    # votes dominate: a class with more votes wins whatever the confidences
    positive = np.array([[True, True, True]])  # 2 wins twice
    S = ovo_scores(ovo_votes(positive, PAIRS3, 3), np.array([[1e9, 1e-9, 1e-9]]), PAIRS3)
    assert np.argmax(S) == 2
    # exact tie of votes and confidences: the lowest index
    S = ovo_scores(np.array([[1.0, 1.0, 1.0]]), np.zeros((1, 3)), PAIRS3)
    assert np.argmax(S) == 0


def test_coupling_two_classes_is_the_binary_probability():
    r = np.array([[0.2], [0.9], [0.0], [1.0]])
    p = couple_pairwise(r, np.array([(0, 1)]), 2)
    np.testing.assert_allclose(p[:, 1], r[:, 0], atol=1e-15)
    assert np.all(np.isfinite(np.log(p)))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0.01, 1.0), min_size=3, max_size=6))
def test_coupling_recovers_consistent_probabilities(weights):
    """If r_ij = p_i / (p_i + p_j) for some p, the coupling objective is zero exactly at p."""
    p = np.array(weights) / np.sum(weights)
    K = p.size
    pairs = np.array([(i, j) for i in range(K) for j in range(i + 1, K)])
    r = np.array([[p[j] / (p[i] + p[j]) for i, j in pairs]])
    np.testing.assert_allclose(couple_pairwise(r, pairs, K)[0], p, rtol=1e-9, atol=1e-12)


def test_coupling_saturated_probabilities_stay_finite():
    rng = np.random.default_rng(1)
    r = rng.integers(0, 2, size=(50, 6)).astype(float)  # every pairwise probability 0 or 1
    pairs = np.array([(i, j) for i in range(4) for j in range(i + 1, 4)])
    p = couple_pairwise(r, pairs, 4)
    assert np.all(np.isfinite(np.log(p)))
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-12)


# ----------------------------------------------------------------------------- against scikit-learn


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    return X, names


@pytest.mark.parametrize("base", [LogisticRegression(), LinearDiscriminantAnalysis()],
                         ids=["logistic", "lda"])
@pytest.mark.parametrize("ours, theirs", [(OneVsRestClassifier, SkOneVsRest),
                                          (OneVsOneClassifier, SkOneVsOne)], ids=["ovr", "ovo"])
def test_agrees_with_scikit_learn_wrappers(iris, base, ours, theirs):
    X, y = iris
    a = ours(base).fit(X, y)
    b = theirs(base).fit(X, y)
    np.testing.assert_array_equal(a.classes_, b.classes_)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-12, atol=1e-12)
    if hasattr(b, "predict_proba"):
        np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-12, atol=1e-12)
    assert a.score(X, y) == b.score(X, y)


def test_k_class_discriminant_is_its_estimator(iris):
    X, y = iris
    kcd = KClassDiscriminant(LogisticRegression()).fit(X, y)
    lr = LogisticRegression().fit(X, y)
    np.testing.assert_array_equal(kcd.predict(X), lr.predict(X))
    np.testing.assert_allclose(kcd.predict_proba(X), lr.predict_proba(X), rtol=1e-12)
    np.testing.assert_allclose(kcd.decision_function(X), lr.decision_function(X))


# ----------------------------------------------------------------------------- probabilities

WRAPPERS = [OneVsRestClassifier, OneVsOneClassifier, KClassDiscriminant]


@pytest.mark.parametrize("wrapper", WRAPPERS)
@pytest.mark.parametrize("base", [LogisticRegression(), LinearDiscriminantAnalysis()],
                         ids=["logistic", "lda"])
def test_probabilities_sum_to_one_and_logs_are_finite(iris, wrapper, base):
    X, y = iris
    model = wrapper(base).fit(X, y)
    far = np.vstack([X, 1e3 * X, -1e3 * X, 1e6 * np.ones((1, 4))])
    P, L = model.predict_proba(far), model.predict_log_proba(far)
    assert P.shape == (far.shape[0], 3)
    assert not np.isnan(P).any() and np.all(P >= 0)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(np.isfinite(L))
    np.testing.assert_allclose(np.exp(L), P, rtol=1e-12, atol=1e-300)
    np.testing.assert_array_equal(P[:150].argmax(axis=1), model.classes_.searchsorted(model.predict(X)))


def test_ovr_probability_is_normalised_binary_probability(iris):
    X, y = iris
    ovr = OneVsRestClassifier(LogisticRegression()).fit(X, y)
    binary = np.column_stack([e.predict_proba(X)[:, 1] for e in ovr.estimators_])
    np.testing.assert_allclose(ovr.predict_proba(X), binary / binary.sum(axis=1, keepdims=True), rtol=1e-12)


def test_ovo_probability_is_coupled_pairwise_probability(iris):
    X, y = iris
    ovo = OneVsOneClassifier(LogisticRegression()).fit(X, y)
    r = np.column_stack([e.predict_proba(X)[:, 1] for e in ovo.estimators_])
    np.testing.assert_allclose(ovo.predict_proba(X), couple_pairwise(r, ovo.pairs_, 3), rtol=1e-10)


@pytest.mark.parametrize("wrapper", [OneVsRestClassifier, OneVsOneClassifier])
def test_two_classes_use_one_binary_model(wrapper):
    X, y = load_iris(return_X_y=True)
    X, y = X[y > 0], y[y > 0]
    model = wrapper(LogisticRegression()).fit(X, y)
    assert len(model.estimators_) == 1
    binary = LogisticRegression().fit(X, y)
    np.testing.assert_array_equal(model.predict(X), binary.predict(X))
    np.testing.assert_allclose(model.predict_proba(X), binary.predict_proba(X), rtol=1e-12)
    d = model.decision_function(X)
    assert d.shape == (X.shape[0],)
    np.testing.assert_array_equal(d > 0, model.predict(X) == 2)


# ----------------------------------------------------------------------------- fitting details


@pytest.mark.parametrize("wrapper", WRAPPERS)
def test_integer_weights_equal_repeated_rows(iris, wrapper):
    X, y = iris
    w = np.random.default_rng(0).integers(1, 4, size=y.size)
    a = wrapper(LogisticRegression(tol=1e-10)).fit(X, y, sample_weight=w)
    b = wrapper(LogisticRegression(tol=1e-10)).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-7, atol=1e-9)


def test_sample_weight_refused_when_base_cannot_take_it(iris):
    X, y = iris
    with pytest.raises(TypeError, match="does not accept sample_weight"):
        OneVsRestClassifier(KNeighborsClassifier()).fit(X, y, sample_weight=np.ones(y.size))
    OneVsRestClassifier(KNeighborsClassifier()).fit(X, y)  # fine without weights


@pytest.mark.parametrize("wrapper", [OneVsRestClassifier, OneVsOneClassifier])
def test_class_with_zero_weight_is_a_clear_error(iris, wrapper):
    X, y = iris
    w = np.where(y == "virginica", 0.0, 1.0)
    with pytest.raises(ValueError, match=r"\['virginica'\] have zero total sample_weight"):
        wrapper(LogisticRegression()).fit(X, y, sample_weight=w)


def test_base_without_scores_is_refused():
    class OnlyPredict:
        def fit(self, X, y):
            return self

        def predict(self, X):
            return np.zeros(len(X))

        def get_params(self, deep=True):
            return {}

    with pytest.raises(TypeError, match="neither decision_function nor predict_proba"):
        OneVsRestClassifier(OnlyPredict()).fit(np.eye(3), [0, 1, 2])


@pytest.mark.parametrize("wrapper", WRAPPERS)
def test_input_errors_are_clear(iris, wrapper):
    X, y = iris
    model = wrapper(LogisticRegression()).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :3])
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        model.predict(bad)
    with pytest.raises(ValueError, match="NaN"):
        wrapper(LogisticRegression()).fit(bad, y)


@pytest.mark.parametrize("wrapper", WRAPPERS)
def test_feature_names_and_string_labels(iris, wrapper):
    X, y = iris
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # no "X has feature names" warnings
        model = wrapper(LinearDiscriminantAnalysis()).fit(frame, y)
        assert model.n_features_in_ == 4
        assert list(model.feature_names_in_) == ["a", "b", "c", "d"]
        np.testing.assert_array_equal(model.classes_, ["setosa", "versicolor", "virginica"])
        plain = wrapper(LinearDiscriminantAnalysis()).fit(X, y)
        np.testing.assert_array_equal(model.predict(frame), plain.predict(X))
    with pytest.raises(ValueError, match="feature names"):
        model.predict(frame.rename(columns={"a": "z"}))


# ----------------------------------------------------------------------------- summary


def test_summary(tri):
    X, _, _, ovr, ovo, kcd = tri
    G = grid(n=101)
    for model, strategy, n_est in [(ovr, "one-vs-rest", 3), (ovo, "one-vs-one", 3),
                                   (kcd, "K-class discriminant", 1)]:
        s = model.summary(G)
        assert isinstance(s, MulticlassSummary)
        assert (s.strategy, s.n_classes, s.n_estimators, s.n_samples) == (strategy, 3, n_est, G.shape[0])
        assert s.n_ambiguous == int(model.ambiguous(G).sum())
        assert s.fraction_ambiguous == pytest.approx(s.n_ambiguous / G.shape[0])
        assert strategy in str(s) and f"{s.n_ambiguous} of {G.shape[0]}" in str(s)
        with pytest.raises(dataclasses.FrozenInstanceError):
            s.n_ambiguous = 0
    assert kcd.summary(G).n_ambiguous == 0 < ovr.summary(G).n_ambiguous


# ----------------------------------------------------------------------------- scikit-learn checks

CHECKED = [w(b) for w in WRAPPERS for b in (LogisticRegression(), LinearDiscriminantAnalysis())]
CHECKED.append(OneVsOneClassifier(GaussianNB()))  # a base that is not linear


@pytest.mark.filterwarnings("ignore::linclass.SingularCovarianceWarning")
@pytest.mark.filterwarnings("ignore::linclass.SeparationWarning")
@parametrize_with_checks(CHECKED)
def test_sklearn_compatible(estimator, check):
    check(estimator)
