"""Regularisation paths (``linclass.logistic_path``), ``LogisticRegressionCV`` and sparse X of a
real vocabulary's width."""

import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold

from linclass import LogisticRegression, LogisticRegressionCV, Perceptron, logistic_path
from test_penalised import objective, problem, sparse_problem


@pytest.mark.parametrize("n_classes, penalty, l1_ratio", [(2, "l1", None), (3, "elasticnet", 0.5),
                                                         (2, "l2", None)])
def test_path_equals_separate_fits(n_classes, penalty, l1_ratio):
    X, y = problem(n_classes, seed=7)
    path = logistic_path(X, y, Cs=12, penalty=penalty, l1_ratio=l1_ratio, tol=1e-10, max_iter=500)
    assert np.all(np.diff(path.Cs) > 0) and path.coefs.shape == (12, 1 if n_classes == 2 else 3, 12)
    assert path.converged.all() and np.all(path.violation <= 1e-10)
    if penalty != "l2":  # the path starts where every coefficient vanishes, and only just
        assert not np.any(path.coefs[0])
        assert np.any(logistic_path(X, y, Cs=[path.Cs[0] * 1.01], penalty=penalty,
                                    l1_ratio=l1_ratio).coefs)
    rho = {"l1": 1.0, "l2": 0.0}.get(penalty, l1_ratio)
    for k in (1, 5, 11):
        fit = LogisticRegression(penalty=penalty, l1_ratio=l1_ratio, C=path.Cs[k], solver="cd",
                                 tol=1e-10, max_iter=500).fit(X, y)
        np.testing.assert_allclose(path.coefs[k], fit.coef_, atol=1e-7)
        np.testing.assert_allclose(path.intercepts[k], fit.intercept_, atol=1e-7)
        f = objective(path.coefs[k], path.intercepts[k], X, y, fit.classes_, path.Cs[k], rho)
        assert path.objective[k] == pytest.approx(f, rel=1e-10)
    assert np.all(np.diff(path.deviance_explained) > -1e-12)  # a weaker penalty fits better
    assert path.n_nonzero[-1] >= path.n_nonzero[0]


def test_path_takes_cs_in_any_order_and_on_sparse_x():
    X, y = sparse_problem()
    Cs = np.array([0.5, 0.02, 0.1])
    path = logistic_path(X, y, Cs=Cs, penalty="l1", tol=1e-10)
    np.testing.assert_array_equal(path.Cs, Cs)
    dense = logistic_path(X.toarray(), y, Cs=Cs, penalty="l1", tol=1e-10)
    np.testing.assert_allclose(path.coefs, dense.coefs, atol=1e-8)


def test_path_refuses_what_has_no_path():
    X, y = problem(2)
    with pytest.raises(ValueError, match="needs a penalty"):
        logistic_path(X, y, penalty=None)
    with pytest.raises(ValueError, match="Cs must be"):
        logistic_path(X, y, Cs=[1.0, -2.0])
    with pytest.warns(UserWarning, match="l1_ratio=0.3 is ignored"):
        logistic_path(X, y, Cs=3, penalty="l1", l1_ratio=0.3)


def _fold_log_loss(X, y, train, test, C, penalty, l1_ratio):
    fit = LogisticRegression(penalty=penalty, l1_ratio=l1_ratio, C=C, tol=1e-10, max_iter=500,
                             solver="cd").fit(X[train], y[train])
    P = fit.predict_log_proba(X[test])
    return float(np.mean(P[np.arange(test.size), np.searchsorted(fit.classes_, y[test])]))


@pytest.mark.parametrize("n_classes, penalty, l1_ratios", [(2, "l1", None), (3, "elasticnet", [0.3, 0.9])])
def test_cv_scores_are_the_folds_held_out_log_likelihood(n_classes, penalty, l1_ratios):
    X, y = problem(n_classes, seed=11)
    cv = LogisticRegressionCV(Cs=6, penalty=penalty, l1_ratios=l1_ratios, cv=4, tol=1e-10,
                              max_iter=500, scoring="neg_log_loss",
                              use_legacy_attributes=False).fit(X, y)
    ratios = [None] if l1_ratios is None else l1_ratios
    assert cv.scores_.shape == (4, len(ratios), 6)
    folds = list(StratifiedKFold(4).split(X, y))
    for f in (0, 3):
        for r, rho in enumerate(ratios):
            for c in (0, 2, 5):
                expected = _fold_log_loss(X, y, *folds[f], cv.Cs_[c], penalty, rho)
                assert cv.scores_[f, r, c] == pytest.approx(expected, abs=1e-7)
    mean = cv.scores_.mean(axis=0)
    r, c = np.unravel_index(np.argmax(mean), mean.shape)
    assert cv.C_ == cv.Cs_[c] and cv.l1_ratio_ == (1.0 if l1_ratios is None else cv.l1_ratios_[r])
    assert cv.C_1se_ <= cv.C_
    refit = LogisticRegression(penalty=penalty, l1_ratio=None if l1_ratios is None else cv.l1_ratio_,
                               C=cv.C_, tol=1e-10, max_iter=500).fit(X, y)
    np.testing.assert_allclose(cv.coef_, refit.coef_, atol=1e-7)
    np.testing.assert_allclose(cv.predict_proba(X), refit.predict_proba(X), atol=1e-8)


def test_cv_with_a_scorer_and_without_refit():
    X, y = problem(2, seed=12)
    cv = LogisticRegressionCV(Cs=[0.01, 0.1, 1.0], penalty="l1", scoring="accuracy", refit=False,
                              cv=3, use_legacy_attributes=False).fit(X, y)
    assert np.all((cv.scores_ >= 0) & (cv.scores_ <= 1))
    # scikit-learn's rule: each fold's own best C (the first of ties), coefficients averaged
    best = cv.scores_[:, 0].argmax(axis=1)
    assert cv.C_ == pytest.approx(cv.Cs_[best].mean(), rel=1e-12)
    paths = cv.coefs_paths_[np.arange(3), 0, best]  # (folds, rows, features + intercept)
    np.testing.assert_allclose(cv.coef_, paths[..., :-1].mean(axis=0))
    np.testing.assert_allclose(cv.intercept_, paths[..., -1].mean(axis=0))


def test_cv_refuses_what_it_cannot_choose():
    X, y = problem(2)
    with pytest.raises(ValueError, match="'penalty' parameter"):
        LogisticRegressionCV(penalty=None).fit(X, y)
    with pytest.raises(ValueError, match="l1_ratios must be an array-like of numbers"):
        LogisticRegressionCV(penalty="elasticnet").fit(X, y)
    # scikit-learn's: the ratios of penalty='l1' are ignored (each is the lasso), with a warning
    with pytest.warns(UserWarning, match="l1_ratios parameter is only used when penalty is"):
        LogisticRegressionCV(penalty="l1", l1_ratios=[0.2, 0.5], Cs=3, cv=3).fit(X, y)


def vocabulary_problem(n=2000, d=2_000_000, per_row=30, seed=0):
    """Bag-of-words shaped data: a million-column vocabulary, ~30 words a row, Zipf-like."""
    rng = np.random.default_rng(seed)
    cols = np.minimum(rng.zipf(1.3, size=n * per_row) - 1, d - 1)
    rows = np.repeat(np.arange(n), per_row)
    X = sp.csr_matrix((np.ones(n * per_row), (rows, cols)), shape=(n, d))
    X.sum_duplicates()
    y = (X[:, :50] @ rng.normal(size=50) + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


@pytest.mark.slow
@pytest.mark.parametrize("make", [
    lambda: LogisticRegression(penalty="l1", C=1.0),
    lambda: LogisticRegression(penalty="elasticnet", l1_ratio=0.5, C=1.0),
    lambda: LogisticRegression(C=1.0),  # L2: 'auto' picks coordinate descent on sparse X
    lambda: LogisticRegression(C=1.0, solver="lbfgs"),
    lambda: Perceptron(max_epochs=3, random_state=0),
], ids=["l1", "elasticnet", "l2", "l2-lbfgs", "perceptron"])
def test_a_vocabulary_wide_sparse_x_is_never_densified(make):
    X, y = vocabulary_problem()
    dense_bytes = 8 * X.shape[0] * X.shape[1]  # 32 GB
    model = make()
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(X, y)
        model.predict(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # vectors of the vocabulary's length (coefficients, gradients, L-BFGS's history: 16 MB each),
    # never a dense block of rows: under 1/20 of the dense X
    assert peak < 1.6e9 < dense_bytes / 20 + 1
    assert model.coef_.shape[-1] == X.shape[1]
    assert model.score(X, y) > 0.6


def test_path_and_cv_figures(tmp_path):
    pytest.importorskip("matplotlib")
    from linclass.plot import coefficient_path, cv_curve

    X, y = problem(2, seed=13)
    path = logistic_path(X, y, Cs=15, penalty="l1")
    fig = coefficient_path(path, feature_names=[f"f{j}" for j in range(X.shape[1])],
                           path=tmp_path / "path.png")
    (lines,) = [a for a in fig.axes[0].collections if a.get_gid() == "path"]
    nonzero = np.flatnonzero(np.any(path.coefs[:, 0] != 0, axis=0))
    assert len(lines.features) == min(10, nonzero.size) and (tmp_path / "path.png").stat().st_size > 0
    for j, segment in zip(lines.features, lines.get_segments()):  # the top 10 of the non-zero ones
        assert j in nonzero
        np.testing.assert_allclose(segment[:, 1], path.coefs[:, 0, j])
    cv = LogisticRegressionCV(Cs=8, penalty="l1", cv=3).fit(X, y)
    fig = cv_curve(cv, path=tmp_path / "cv.svg")
    (curve,) = [a for a in fig.axes[0].get_lines() if a.get_gid() == "curve"]
    # the curve and its band are cv.glmnet's cvm and cvsd: fold scores weighted by fold weight
    np.testing.assert_allclose(curve.get_ydata(), cv.cv_mean_[0])
    (band,) = [a for a in fig.axes[0].collections if a.get_gid() == "band"]
    top = band.get_paths()[0].vertices[:, 1].max()
    assert top == pytest.approx(float(np.max(cv.cv_mean_[0] + cv.cv_se_[0])))
    with pytest.raises(ValueError, match="LogisticPath"):
        coefficient_path(cv)
