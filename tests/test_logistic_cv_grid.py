"""The grid of C that ``LogisticRegressionCV`` and ``logistic_path`` build from an int ``Cs``, and the
warning when cross-validation picks a C on the grid's edge.

An int ``Cs`` means scikit-learn's grid in ``LogisticRegressionCV`` (``np.logspace(-4, 4, Cs)``), so
that the same folds give the same chosen C as scikit-learn's on real data; glmnet's data-driven grid
is ``grid='glmnet'`` (and stays the default of ``logistic_path``, glmnet's path function).
"""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.model_selection import StratifiedKFold

from linclass import GridEdgeWarning, LogisticRegression, LogisticRegressionCV, logistic_path
from test_penalised import problem


@pytest.mark.parametrize("penalty, l1_ratios", [("l2", None), ("l1", None), ("elasticnet", [0.5])])
def test_an_int_cs_is_scikit_learns_grid(penalty, l1_ratios):
    X, y = problem(3, seed=21)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GridEdgeWarning)
        cv = LogisticRegressionCV(penalty=penalty, l1_ratios=l1_ratios, cv=3).fit(X, y)
    np.testing.assert_array_equal(cv.Cs_, np.logspace(-4, 4, 10))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GridEdgeWarning)
        cv = LogisticRegressionCV(Cs=4, penalty=penalty, l1_ratios=l1_ratios, cv=3).fit(X, y)
    np.testing.assert_array_equal(cv.Cs_, np.logspace(-4, 4, 4))


@pytest.mark.parametrize("penalty", ["l1", "l2"])
def test_glmnets_grid_is_one_option_away(penalty):
    X, y = problem(2, seed=22)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GridEdgeWarning)
        cv = LogisticRegressionCV(Cs=6, grid="glmnet", penalty=penalty, cv=3, min_ratio=1e-3,
                                  use_legacy_attributes=False).fit(X, y)
    path = logistic_path(X, y, Cs=6, penalty=penalty, min_ratio=1e-3)
    np.testing.assert_allclose(cv.Cs_, path.Cs, rtol=1e-12)
    np.testing.assert_allclose(cv.Cs_[-1] / cv.Cs_[0], 1e3)
    if penalty == "l1":  # the grid starts where every coefficient vanishes
        assert not np.any(cv.coefs_paths_[:, :, 0, :, :-1])  # (the last column: the intercepts)
        assert np.any(cv.coefs_paths_[:, :, 1, :, :-1])


def test_min_ratio_without_glmnets_grid_is_said_to_be_ignored():
    X, y = problem(2, seed=23)
    with pytest.warns(UserWarning, match="min_ratio=0.01 is ignored.*grid='glmnet'"):
        LogisticRegressionCV(Cs=3, min_ratio=1e-2, cv=3).fit(X, y)
    with pytest.raises(ValueError, match="grid"):
        LogisticRegressionCV(grid="linear").fit(X, y)


def test_logistic_path_keeps_glmnets_grid_and_offers_scikit_learns():
    X, y = problem(2, seed=24)
    path = logistic_path(X, y, Cs=8, penalty="l1")
    assert not np.any(path.coefs[0]) and np.any(path.coefs[1])  # from where every coefficient vanishes
    np.testing.assert_allclose(path.Cs[-1] / path.Cs[0], 1e4)  # n > d: glmnet's lambda.min.ratio
    path = logistic_path(X, y, Cs=8, penalty="l1", grid="logspace")
    np.testing.assert_array_equal(path.Cs, np.logspace(-4, 4, 8))
    with pytest.raises(ValueError, match="grid"):
        logistic_path(X, y, Cs=8, grid="sklearn")


def test_a_c_on_the_weak_edge_is_warned_about():
    X, y = problem(2, seed=25)
    edge = r"C_=0.001, the largest C of the grid.*extend Cs above 0.001"
    with pytest.warns(GridEdgeWarning, match=edge):
        LogisticRegressionCV(Cs=[1e-5, 1e-4, 1e-3], cv=3).fit(X, y)


def test_a_c_on_the_strong_edge_is_warned_about():
    rng = np.random.default_rng(26)
    X, y = rng.normal(size=(120, 10)), rng.integers(0, 2, size=120)  # labels unrelated to X
    edge = r"C_=0.01, the smallest C of the grid.*extend Cs below 0.01"
    with pytest.warns(GridEdgeWarning, match=edge):
        LogisticRegressionCV(Cs=[1e-2, 1.0, 100.0], cv=3).fit(X, y)


def test_no_edge_warning_inside_the_grid_or_at_the_all_zero_model():
    X, y = problem(2, seed=25)
    with warnings.catch_warnings():
        warnings.simplefilter("error", GridEdgeWarning)
        cv = LogisticRegressionCV(cv=3).fit(X, y)
        assert cv.Cs_[0] < cv.C_ < cv.Cs_[-1]
        # with an L1 part the strongest penalties zero every coefficient: a smaller C gives the same
        # intercept-only model, so an edge there is no reason to extend the grid
        rng = np.random.default_rng(26)
        Xn, yn = rng.normal(size=(120, 10)), rng.integers(0, 2, size=120)
        cv = LogisticRegressionCV(Cs=[1e-4, 1e-3, 1.0, 100.0], penalty="l1", cv=3).fit(Xn, yn)
        assert cv.C_ == 1e-4 and not np.any(cv.coef_)


def _scikit_learn_cv(X, y, folds):
    from sklearn.linear_model import LogisticRegressionCV as SklearnCV

    return SklearnCV(Cs=10, cv=folds, l1_ratios=(0.0,), scoring="neg_log_loss", solver="newton-cg",
                     tol=1e-8, max_iter=5000, use_legacy_attributes=False).fit(X, y)


@pytest.mark.parametrize("load, rows", [
    (load_wine, slice(None)), (load_breast_cancer, slice(None)),
    # a fifth of digits' rows, 10 classes (10 s; a third took 20 s, all of them 80 s)
    pytest.param(load_digits, slice(None, None, 5), marks=pytest.mark.slow),
], ids=["wine", "breast_cancer", "digits"])
def test_the_default_grid_chooses_scikit_learns_c_on_real_data(load, rows):
    X, y = load(return_X_y=True)
    X, y = X[rows], y[rows]
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's lbfgs fallbacks and deprecations
        theirs = _scikit_learn_cv(X, y, folds)
    ours = LogisticRegressionCV(cv=folds, l1_ratios=(0.0,), scoring="neg_log_loss",
                                use_legacy_attributes=False, tol=1e-9, max_iter=1000).fit(X, y)
    np.testing.assert_array_equal(ours.Cs_, np.ravel(theirs.Cs_))
    assert ours.C_ == pytest.approx(float(np.ravel(theirs.C_)[0]), rel=1e-12)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-6)
    assert ours.score(X, y) == pytest.approx(theirs.score(X, y), abs=1e-6)  # the scoring's
    # the refit is the plain penalised fit at the chosen C
    plain = LogisticRegression(C=ours.C_, tol=1e-10, max_iter=1000).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), plain.predict_proba(X), atol=1e-6)
