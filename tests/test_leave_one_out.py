"""Closed-form leave-one-out (linclass.loo_predict_proba / loo_score) against brute force (n refits
through scikit-learn's cross_val_predict) and against MASS's lda(CV=TRUE) / qda(CV=TRUE)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.model_selection import LeaveOneOut, cross_val_predict

import linclass as lc
from linclass import loo_predict_proba, loo_score

R_DIR = Path(__file__).parent / "data" / "r"


def brute(estimator, X, y, sample_weight=None):
    params = None if sample_weight is None else {"sample_weight": sample_weight}
    return cross_val_predict(clone(estimator), X, y, cv=LeaveOneOut(), method="predict_proba",
                             params=params)


def data(n=45, d=3, K=3, seed=0, offset=5.0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % K
    X = rng.normal(size=(n, d)) * np.linspace(0.5, 2.0, d) + 0.8 * y[:, None] + offset
    return X, y


CONFIGS = [
    lc.LinearDiscriminantAnalysis(),
    lc.LinearDiscriminantAnalysis(unbiased=True),
    lc.LinearDiscriminantAnalysis(priors=[0.2, 0.3, 0.5]),
    lc.LinearDiscriminantAnalysis(shrinkage=0.3),
    lc.LinearDiscriminantAnalysis(shrinkage="oas"),
    lc.LinearDiscriminantAnalysis(shrinkage="ledoit-wolf", unbiased=True),
    lc.LinearDiscriminantAnalysis(var_smoothing=0.1),
    lc.QuadraticDiscriminantAnalysis(),
    lc.QuadraticDiscriminantAnalysis(unbiased=True, priors=[0.5, 0.25, 0.25]),
    lc.QuadraticDiscriminantAnalysis(reg_param=0.2),
    lc.QuadraticDiscriminantAnalysis(shrinkage=0.4),
    lc.QuadraticDiscriminantAnalysis(shrinkage="oas"),
    lc.QuadraticDiscriminantAnalysis(shrinkage="ledoit-wolf"),
    lc.GaussianNB(),
    lc.GaussianNB(var_smoothing=0.05, unbiased=True),
    *[lc.GaussianDiscriminantAnalysis(t, reg_param=0.1, var_smoothing=0.01)
      for t in ("tied", "full", "diag", "tied_diag", "spherical")],
    *[lc.GaussianDiscriminantAnalysis(t, unbiased=True)
      for t in ("tied", "full", "diag", "tied_diag", "spherical")],
]


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("estimator", CONFIGS, ids=repr)
def test_equals_brute_force(estimator, weighted):
    X, y = data()
    w = np.random.default_rng(3).integers(1, 4, y.size).astype(float) if weighted else None
    np.testing.assert_allclose(loo_predict_proba(estimator, X, y, w), brute(estimator, X, y, w),
                               rtol=0, atol=1e-9)


def test_an_integer_weight_is_a_repeated_row_left_out_whole():
    # weight 2 on a row = the row twice, and leaving it out removes both copies
    X, y = data(n=30)
    w = np.ones(30)
    w[4] = 2.0
    P = loo_predict_proba(lc.QuadraticDiscriminantAnalysis(), X, y, w)
    keep = np.arange(30) != 4
    ref = lc.QuadraticDiscriminantAnalysis().fit(X[keep], y[keep]).predict_proba(X[4:5])
    np.testing.assert_allclose(P[4], ref[0], atol=1e-12)
    # a zero weight: the row is not in the fit, its leave-one-out model is the full model
    w[7] = 0.0
    P = loo_predict_proba(lc.QuadraticDiscriminantAnalysis(), X, y, w)
    full = lc.QuadraticDiscriminantAnalysis().fit(X, y, sample_weight=w).predict_proba(X[7:8])
    np.testing.assert_allclose(P[7], full[0], atol=1e-12)


def test_far_from_the_origin_and_badly_scaled():
    X, y = data(offset=0.0)
    # offsets far beyond the spread (but where the data still hold ~10 digits of it)
    X = X * np.array([1e-4, 1.0, 1e4]) + np.array([1e2, -3e5, 2e8])
    for est in (lc.LinearDiscriminantAnalysis(), lc.QuadraticDiscriminantAnalysis(),
                lc.GaussianNB()):
        np.testing.assert_allclose(loo_predict_proba(est, X, y), brute(est, X, y), atol=1e-8)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), d=st.integers(1, 3), K=st.integers(2, 3),
       kind=st.sampled_from(["tied", "full", "diag", "spherical", "tied_diag"]))
def test_property_equals_brute_force(seed, d, K, kind):
    X, y = data(n=8 * K + 4, d=d, K=K, seed=seed)
    est = lc.GaussianDiscriminantAnalysis(kind)
    np.testing.assert_allclose(loo_predict_proba(est, X, y), brute(est, X, y), atol=1e-9)


def test_string_labels_and_column_order():
    X, y = data()
    labels = np.array(["c", "a", "b"])[y]
    P = loo_predict_proba(lc.LinearDiscriminantAnalysis(), X, labels)
    ref = brute(lc.LinearDiscriminantAnalysis(), X, labels)  # columns in sorted label order
    np.testing.assert_allclose(P, ref, atol=1e-9)


def test_the_estimator_is_not_modified():
    X, y = data()
    est = lc.QuadraticDiscriminantAnalysis()
    loo_predict_proba(est, X, y)
    assert not hasattr(est, "classes_")
    fitted = lc.QuadraticDiscriminantAnalysis().fit(X[:20], y[:20])
    before = fitted.means_.copy()
    loo_predict_proba(fitted, X, y)
    np.testing.assert_array_equal(fitted.means_, before)


@pytest.mark.parametrize("scoring", ["accuracy", "neg_log_loss"])
def test_loo_score(scoring):
    X, y = data(seed=5)
    w = np.random.default_rng(1).integers(1, 3, y.size).astype(float)
    est = lc.QuadraticDiscriminantAnalysis()
    P = brute(est, X, y, w)
    if scoring == "accuracy":
        expected = np.average(P.argmax(axis=1) == y, weights=w)
    else:
        expected = np.average(np.log(P[np.arange(y.size), y]), weights=w)
    assert loo_score(est, X, y, w, scoring=scoring) == pytest.approx(expected, abs=1e-12)
    assert 0 < loo_score(est, X, y) <= 1


def test_mass_lda_and_qda_cv():
    """MASS 7.3 (tests/data/r/mass_loo.R): lda / qda with CV=TRUE, method 'mle' (linclass's default
    divisor) and 'moment' (unbiased=True), with the priors MASS holds at the full data's
    proportions."""
    pd = pytest.importorskip("pandas")
    X, y = load_iris(return_X_y=True)
    table = pd.read_csv(R_DIR / "mass_loo.csv", skipinitialspace=True)
    for (_, model, method), g in table.groupby(["subset", "model", "method"]):
        rows = g["row"].to_numpy()
        Xs, ys = X[rows], y[rows]
        cls = lc.LinearDiscriminantAnalysis if model == "lda" else lc.QuadraticDiscriminantAnalysis
        est = cls(priors=np.bincount(ys) / ys.size, unbiased=method == "moment")
        np.testing.assert_allclose(loo_predict_proba(est, Xs, ys), g[["p0", "p1", "p2"]].to_numpy(),
                                   atol=1e-10, err_msg=f"{model} {method}")


def test_learned_priors_are_relearned_not_held():
    # the documented convention: the model fitted without the row (brute force), not MASS's
    X, y = load_iris(return_X_y=True)
    P = loo_predict_proba(lc.LinearDiscriminantAnalysis(), X, y)
    held = loo_predict_proba(lc.LinearDiscriminantAnalysis(priors=[1 / 3] * 3), X, y)
    assert np.abs(P - held).max() > 1e-3
    np.testing.assert_allclose(P, brute(lc.LinearDiscriminantAnalysis(), X, y), atol=1e-9)


# ---------------------------------------------------------------- refusals
def test_single_row_class_is_refused():
    X, y = data()
    y = y.copy()
    y[0] = 7
    with pytest.raises(ValueError, match=r"single row"):
        loo_predict_proba(lc.LinearDiscriminantAnalysis(), X, y)


def test_singular_downdate_is_refused():
    # 4 rows per class in 3 dimensions: each class covariance is full rank, but not without a row
    X, y = data(n=12, d=3, K=3)
    with pytest.raises(ValueError, match=r"singular"):
        loo_predict_proba(lc.QuadraticDiscriminantAnalysis(), X, y)
    # regularised, it is defined, and equals brute force
    est = lc.QuadraticDiscriminantAnalysis(reg_param=0.1)
    np.testing.assert_allclose(loo_predict_proba(est, X, y), brute(est, X, y), atol=1e-9)


def test_singular_fit_is_refused():
    X, y = data()
    X = np.column_stack([X, X[:, 0]])  # collinear
    with pytest.raises(ValueError, match=r"singular covariance"):
        loo_predict_proba(lc.LinearDiscriminantAnalysis(), X, y)


def test_class_without_weight_is_refused():
    X, y = data()
    w = np.where(y == 2, 0.0, 1.0)
    with pytest.raises(ValueError, match=r"no weight"):
        loo_predict_proba(lc.LinearDiscriminantAnalysis(), X, y, w)


def test_other_models_are_refused():
    X, y = data()
    with pytest.raises(TypeError, match=r"cross_val_predict"):
        loo_predict_proba(lc.LogisticRegression(), X, y)


def test_bad_scoring():
    X, y = data()
    with pytest.raises(ValueError, match=r"scoring"):
        loo_score(lc.LinearDiscriminantAnalysis(), X, y, scoring="f1")
