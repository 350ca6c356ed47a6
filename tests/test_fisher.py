"""Fisher's linear discriminant (``linclass.projection.fisher`` and ``FisherDiscriminantAnalysis``)
against quantities computed independently here from the raw data.

* Two classes: the direction is S_W^{-1}(m_2 - m_1) up to a positive scale (Bishop 2006 eq. 4.30), with
  v^T S_W v = 1 for S_W the pooled within-class scatter / n, and classes_[1] projecting higher.
* K classes: eigenvalues of S_B v = lambda S_W v from scipy.linalg.eigh (S_B weighted by n_k/n); the
  three solvers agree; transform and explained_variance_ratio_ against scikit-learn's LDA(eigen).
* The classifier: threshold='gaussian' with every component is LDA; threshold='midpoint' puts the
  two-class boundary at the midpoint of the projected means.
* Canonical correlations, Wilks' lambda (statsmodels' MANOVA) and Bartlett's chi-square.
* Singular S_W (d > n, constant and collinear features), partial_fit, sample weights, n_components,
  pandas, NaN.
* A hypothesis property: V^T S_B V = diag(lambda), V^T S_W V = I, and J(v_1) is the maximum.

Reference values are computed with loops over classes and numpy / scipy, never with linclass.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.linalg as sla
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from scipy.special import logsumexp
from sklearn import datasets
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as SkLDA
from statsmodels.multivariate.cancorr import CanCorr
from statsmodels.multivariate.manova import MANOVA

from linclass import (
    FisherDiscriminantAnalysis,
    LinearDiscriminantAnalysis,
    SingularCovarianceWarning,
)
from linclass.projection import fisher
from linclass.generative.class_stats import ClassStats

SOLVERS = ["eigen", "svd", "gsvd"]

# ----------------------------------------------------------------------------- data and references


def make_problem(seed: int, n: int = 150, d: int = 4, K: int = 3, *, spread: float = 2.0):
    """Gaussian classes with correlated features and separated means; every class gets >= 2d rows."""
    rng = np.random.default_rng(seed)
    y = np.concatenate([np.arange(K).repeat(2 * d), rng.integers(0, K, n - 2 * d * K)])
    rng.shuffle(y)
    mix = rng.normal(size=(d, d)) + 2 * np.eye(d)
    centres = rng.normal(scale=spread, size=(K, d))
    X = centres[y] + rng.normal(size=(n, d)) @ mix + rng.normal(size=d) * 3
    return X, y


@functools.lru_cache(maxsize=None)
def _load(name):
    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    return np.ascontiguousarray(X, dtype=np.float64), y


def load(name):
    if name == "random5":
        return make_problem(5, n=200, d=6, K=5)
    return _load(name)


def scatter_matrices(X, y, sample_weight=None):
    """S_W = (1/n) sum_i w_i (x_i - m_{y_i})(x_i - m_{y_i})^T (pooled, MLE) and
    S_B = sum_k (n_k/n)(m_k - m)(m_k - m)^T, with a loop over classes."""
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    classes = np.unique(y)
    n = w.sum()
    d = X.shape[1]
    Sw = np.zeros((d, d))
    means, weights = [], []
    for c in classes:
        Xc, wc = X[y == c], w[y == c]
        mc = (wc @ Xc) / wc.sum()
        R = Xc - mc
        Sw += (R * wc[:, None]).T @ R
        means.append(mc)
        weights.append(wc.sum() / n)
    means, weights = np.array(means), np.array(weights)
    mbar = weights @ means
    Sb = sum(p * np.outer(m - mbar, m - mbar) for p, m in zip(weights, means))
    return Sw / n, Sb, means, weights


def reference_eigenvalues(X, y):
    """The K-1 largest eigenvalues of S_B v = lambda S_W v, descending."""
    Sw, Sb, means, _ = scatter_matrices(X, y)
    K = len(means)
    return sla.eigh(Sb, Sw, eigvals_only=True)[::-1][: min(K - 1, X.shape[1])]


def fit_quietly(model, X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularCovarianceWarning)
        return model.fit(X, y, **kw)


def assert_same_up_to_sign(A, B, rtol=1e-9):
    """Columns of A equal those of B up to one sign per column."""
    assert A.shape == B.shape
    for j in range(A.shape[1]):
        sign = np.sign(A[:, j] @ B[:, j])
        assert sign != 0
        np.testing.assert_allclose(sign * A[:, j], B[:, j], rtol=0, atol=rtol * np.abs(B[:, j]).max())


# ----------------------------------------------------------------------------- 1. two classes


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("flip", [False, True], ids=["labels", "flipped-labels"])
def test_two_class_direction_is_Sw_inverse_mean_difference(solver, seed, flip):
    X, y = make_problem(40 + seed, n=90, d=4, K=2)
    if flip:  # the same data with the roles of the classes swapped: the direction must flip too
        y = 1 - y
    labels = np.array(["neg", "pos"])
    model = FisherDiscriminantAnalysis(solver=solver).fit(X, labels[y])
    Sw, Sb, means, weights = scatter_matrices(X, y)
    w = np.linalg.solve(Sw, means[1] - means[0])  # eq. 4.30

    v = model.scalings_
    assert v.shape == (4, 1)
    v = v[:, 0]
    scale = (v @ w) / (w @ w)
    assert scale > 0  # same orientation, not just the same line
    np.testing.assert_allclose(v, scale * w, rtol=1e-10, atol=1e-12 * np.abs(w).max() * scale)
    assert v @ Sw @ v == pytest.approx(1.0, rel=1e-10)  # S_W = pooled scatter / n
    # lambda = v^T S_B v = pi_0 pi_1 (m_1 - m_0)^T S_W^{-1} (m_1 - m_0) for two classes
    lam = weights[0] * weights[1] * (means[1] - means[0]) @ w
    np.testing.assert_allclose(model.eigenvalues_, [lam], rtol=1e-10)
    assert v @ Sb @ v == pytest.approx(lam, rel=1e-10)

    Z = model.transform(X)[:, 0]
    np.testing.assert_allclose(Z, (X - X.mean(axis=0)) @ v, rtol=1e-10, atol=1e-10)
    z0, z1 = Z[y == 0].mean(), Z[y == 1].mean()
    assert z1 > z0  # classes_[1] = 'pos' projects higher
    np.testing.assert_allclose(model.projected_means_[:, 0], [z0, z1], rtol=1e-10, atol=1e-10)
    # the projected classes have unit pooled within-class variance
    within = (np.sum((Z[y == 0] - z0) ** 2) + np.sum((Z[y == 1] - z1) ** 2)) / len(y)
    assert within == pytest.approx(1.0, rel=1e-10)


# ----------------------------------------------------------------------------- 2. K classes

KDATA = ["iris", "wine", "random5"]


@pytest.mark.parametrize("name", KDATA)
@pytest.mark.parametrize("solver", SOLVERS)
def test_eigenvalues_match_scipy_generalized_eigh(name, solver):
    X, y = load(name)
    ref = reference_eigenvalues(X, y)
    model = FisherDiscriminantAnalysis(solver=solver).fit(X, y)
    assert model.eigenvalues_.shape == ref.shape == (len(np.unique(y)) - 1,)
    np.testing.assert_allclose(model.eigenvalues_, ref, rtol=1e-10)
    Sw, Sb, _, _ = scatter_matrices(X, y)
    V = model.scalings_
    np.testing.assert_allclose(V.T @ Sw @ V, np.eye(V.shape[1]), rtol=0, atol=1e-10)
    np.testing.assert_allclose(V.T @ Sb @ V, np.diag(ref), rtol=0, atol=1e-10 * ref[0])
    # S_B v = lambda S_W v, column by column
    np.testing.assert_allclose(Sb @ V, Sw @ V * ref, rtol=0, atol=1e-9 * np.abs(Sb @ V).max())


@pytest.mark.parametrize("name", KDATA)
def test_solvers_agree(name):
    X, y = load(name)
    models = {s: FisherDiscriminantAnalysis(solver=s).fit(X, y) for s in SOLVERS}
    ref = models["eigen"]
    Z_ref = ref.transform(X)
    for s in ("svd", "gsvd"):
        m = models[s]
        np.testing.assert_allclose(m.eigenvalues_, ref.eigenvalues_, rtol=1e-10)
        assert_same_up_to_sign(m.scalings_, ref.scalings_)
        assert_same_up_to_sign(m.transform(X), Z_ref)
        np.testing.assert_allclose(m.predict_proba(X), ref.predict_proba(X), rtol=0, atol=1e-10)
        np.testing.assert_array_equal(m.predict(X), ref.predict(X))


@pytest.mark.parametrize("name", KDATA)
@pytest.mark.parametrize("solver", SOLVERS)
def test_orientation_is_deterministic(name, solver):
    # K classes: the projected class mean farthest from the centre is on the positive side, so the
    # solvers agree including signs
    X, y = load(name)
    model = FisherDiscriminantAnalysis(solver=solver).fit(X, y)
    Z = model.transform(X)
    zbar = np.array([Z[y == k].mean(axis=0) for k in np.unique(y)])
    far = np.argmax(np.abs(zbar), axis=0)
    assert np.all(zbar[far, np.arange(Z.shape[1])] > 0)
    ref = FisherDiscriminantAnalysis(solver="eigen").fit(X, y)
    np.testing.assert_allclose(model.scalings_, ref.scalings_, rtol=0, atol=1e-9 * np.abs(ref.scalings_).max())


@pytest.mark.parametrize("name", KDATA)
@pytest.mark.parametrize("solver", SOLVERS)
def test_transform_matches_sklearn_lda_eigen(name, solver):
    X, y = load(name)
    ours = FisherDiscriminantAnalysis(solver=solver).fit(X, y)
    sk = SkLDA(solver="eigen").fit(X, y)
    Z, Zs = ours.transform(X), sk.transform(X)
    assert Z.shape == Zs.shape
    for j in range(Z.shape[1]):
        assert abs(np.corrcoef(Z[:, j], Zs[:, j])[0, 1]) > 0.999999
    np.testing.assert_allclose(ours.explained_variance_ratio_, sk.explained_variance_ratio_, rtol=1e-10)
    np.testing.assert_allclose(ours.xbar_, X.mean(axis=0), rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------- 3. the classifier


@pytest.mark.parametrize("priors", [None, [0.2, 0.3, 0.5]], ids=["empirical", "user"])
@pytest.mark.parametrize("name", ["iris", "wine", "random3"])
@pytest.mark.parametrize("solver", SOLVERS)
def test_gaussian_threshold_is_lda(name, solver, priors):
    X, y = make_problem(7, n=150, d=5, K=3) if name == "random3" else load(name)
    fisher_model = FisherDiscriminantAnalysis(solver=solver, priors=priors).fit(X, y)
    lda = LinearDiscriminantAnalysis(priors=priors).fit(X, y)
    rng = np.random.default_rng(0)
    Xt = np.vstack([X, X.mean(axis=0) + 2 * (X[rng.integers(0, len(X), 60)] - X.mean(axis=0))])
    np.testing.assert_array_equal(fisher_model.predict(Xt), lda.predict(Xt))
    np.testing.assert_allclose(fisher_model.predict_proba(Xt), lda.predict_proba(Xt), rtol=0, atol=1e-10)
    want_priors = np.bincount(y) / len(y) if priors is None else priors
    np.testing.assert_allclose(fisher_model.priors_, want_priors, rtol=1e-14)


def test_gaussian_threshold_two_classes_is_lda_logit():
    X, y = make_problem(8, n=100, d=3, K=2)
    for priors in (None, [0.7, 0.3]):
        f = FisherDiscriminantAnalysis(priors=priors).fit(X, y)
        lda = LinearDiscriminantAnalysis(priors=priors).fit(X, y)
        np.testing.assert_allclose(f.decision_function(X), lda.decision_function(X), rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(f.coef_, lda.coef_, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(f.intercept_, lda.intercept_, rtol=1e-9, atol=1e-12)


def _points_at(model, X, targets):
    """Move each row of X along the Fisher direction so that its projection equals targets."""
    v = model.scalings_[:, 0]
    z = model.transform(X)[:, 0]
    return X + np.outer(targets - z, v / (v @ v))


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("seed", [0, 1])
def test_midpoint_threshold_is_midpoint_of_projected_means(solver, seed):
    X, y = make_problem(50 + seed, n=120, d=3, K=2)
    y = np.where(np.arange(len(y)) < 30, 0, y)  # unequal class sizes: midpoint must ignore them
    labels = np.array([10, 20])
    model = FisherDiscriminantAnalysis(solver=solver, threshold="midpoint").fit(X, labels[y])
    Z = model.transform(X)[:, 0]
    z0, z1 = Z[y == 0].mean(), Z[y == 1].mean()
    t = (z0 + z1) / 2
    # decision_function = -1/2 (z - z1)^2 + 1/2 (z - z0)^2 = (z1 - z0)(z - t)
    np.testing.assert_allclose(model.decision_function(X), (z1 - z0) * (Z - t), rtol=1e-9, atol=1e-9)
    base = make_problem(60 + seed, n=40, d=3, K=2)[0]
    eps = 1e-6 * (z1 - z0)
    above, below = _points_at(model, base, t + eps), _points_at(model, base, t - eps)
    np.testing.assert_allclose(model.transform(above)[:, 0], t + eps, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(model.predict(above), np.full(40, 20))
    np.testing.assert_array_equal(model.predict(below), np.full(40, 10))
    np.testing.assert_allclose(model.predict_proba(_points_at(model, base, np.full(40, t))), 0.5, atol=1e-9)


@pytest.mark.parametrize("solver", SOLVERS)
def test_unequal_priors_shift_the_gaussian_threshold_but_not_the_midpoint(solver):
    X, y = make_problem(52, n=120, d=3, K=2)
    priors = np.array([0.9, 0.1])
    gauss = FisherDiscriminantAnalysis(solver=solver, priors=priors).fit(X, y)
    mid = FisherDiscriminantAnalysis(solver=solver, priors=priors, threshold="midpoint").fit(X, y)
    np.testing.assert_allclose(gauss.scalings_, mid.scalings_, rtol=0, atol=0)  # priors never move V
    # the two rules differ by the log prior odds, everywhere
    np.testing.assert_allclose(
        gauss.decision_function(X) - mid.decision_function(X), np.log(priors[1] / priors[0]), rtol=1e-10
    )
    Z = gauss.transform(X)[:, 0]
    z0, z1 = Z[y == 0].mean(), Z[y == 1].mean()
    t_mid = (z0 + z1) / 2
    t_gauss = t_mid - np.log(priors[1] / priors[0]) / (z1 - z0)  # moves towards the rarer class 1
    assert t_gauss > t_mid
    base = make_problem(53, n=30, d=3, K=2)[0]
    between = _points_at(gauss, base, np.full(30, (t_mid + t_gauss) / 2))
    np.testing.assert_array_equal(mid.predict(between), np.ones(30))
    np.testing.assert_array_equal(gauss.predict(between), np.zeros(30))
    eps = 1e-6 * (z1 - z0)
    np.testing.assert_array_equal(gauss.predict(_points_at(gauss, base, t_gauss + eps)), np.ones(30))
    np.testing.assert_array_equal(gauss.predict(_points_at(gauss, base, t_gauss - eps)), np.zeros(30))
    # and the posterior at the Gaussian threshold is 1/2
    np.testing.assert_allclose(gauss.predict_proba(_points_at(gauss, base, np.full(30, t_gauss))), 0.5, atol=1e-9)


@pytest.mark.parametrize("solver", SOLVERS)
def test_midpoint_multiclass_is_nearest_projected_mean(solver):
    X, y = make_problem(54, n=160, d=4, K=4)
    model = FisherDiscriminantAnalysis(solver=solver, threshold="midpoint").fit(X, y)
    Z = model.transform(X)
    zbar = np.array([Z[y == k].mean(axis=0) for k in range(4)])
    Xt = make_problem(55, n=80, d=4, K=4)[0]
    Zt = model.transform(Xt)
    d2 = ((Zt[:, None, :] - zbar[None]) ** 2).sum(axis=2)
    np.testing.assert_array_equal(model.predict(Xt), np.argmin(d2, axis=1))
    np.testing.assert_allclose(
        model.predict_log_proba(Xt), -0.5 * d2 - logsumexp(-0.5 * d2, axis=1, keepdims=True), rtol=1e-9, atol=1e-9
    )


def test_midpoint_priors_attribute_is_a_distribution():
    X, y = make_problem(56, n=90, d=3, K=3)
    model = FisherDiscriminantAnalysis(threshold="midpoint").fit(X, y)
    assert model.priors_.sum() == pytest.approx(1.0)


# ----------------------------------------------------------------------------- 4. statistics


def manova_stats(X, y):
    """statsmodels' MANOVA with an intercept and K-1 class indicators; the hypothesis that the
    indicator coefficients vanish is 'all class means are equal'."""
    classes = np.unique(y)
    K = len(classes)
    exog = np.column_stack([np.ones(len(y))] + [(y == c).astype(float) for c in classes[1:]])
    res = MANOVA(X, exog).mv_test([("classes", np.eye(K)[1:])])
    return res.results["classes"]["stat"]


@pytest.mark.parametrize("name", ["iris", "wine", "random5"])
@pytest.mark.parametrize("solver", SOLVERS)
def test_wilks_lambda_and_roots_match_statsmodels_manova(name, solver):
    X, y = load(name)
    model = FisherDiscriminantAnalysis(solver=solver).fit(X, y)
    table = manova_stats(X, y)
    np.testing.assert_allclose(model.wilks_lambda_, table.loc["Wilks' lambda", "Value"], rtol=1e-10)
    # Hotelling-Lawley trace = sum lambda_i, Roy's greatest root = lambda_1, Pillai = sum r_i^2
    np.testing.assert_allclose(model.eigenvalues_.sum(), table.loc["Hotelling-Lawley trace", "Value"], rtol=1e-10)
    np.testing.assert_allclose(model.eigenvalues_[0], table.loc["Roy's greatest root", "Value"], rtol=1e-10)
    np.testing.assert_allclose(
        np.sum(model.canonical_correlations_**2), table.loc["Pillai's trace", "Value"], rtol=1e-10
    )
    # Wilks = |S_W| / |S_T|
    Sw, Sb, _, _ = scatter_matrices(X, y)
    np.testing.assert_allclose(model.wilks_lambda_, np.linalg.det(Sw) / np.linalg.det(Sw + Sb), rtol=1e-9)


@pytest.mark.parametrize("name", ["iris", "wine", "random5"])
def test_canonical_correlations(name):
    X, y = load(name)
    model = FisherDiscriminantAnalysis().fit(X, y)
    lam = reference_eigenvalues(X, y)
    np.testing.assert_allclose(model.canonical_correlations_, np.sqrt(lam / (1 + lam)), rtol=1e-10)
    # and against statsmodels' canonical correlation analysis of X with the class indicators
    classes = np.unique(y)
    indicators = np.column_stack([(y == c).astype(float) for c in classes[1:]])
    cc = np.sort(CanCorr(X, indicators).cancorr)[::-1]
    np.testing.assert_allclose(model.canonical_correlations_, cc[: len(lam)], rtol=1e-9)


@pytest.mark.parametrize("name", ["iris", "wine", "random5"])
def test_wilks_test_is_bartletts_chi_square(name):
    X, y = load(name)
    model = FisherDiscriminantAnalysis().fit(X, y)
    n, d = X.shape
    K = len(np.unique(y))
    Lambda = manova_stats(X, y).loc["Wilks' lambda", "Value"]
    stat = -(n - 1 - (d + K) / 2) * np.log(Lambda)
    df = d * (K - 1)
    result = model.wilks_test()
    assert result.df == df
    np.testing.assert_allclose(result.wilks_lambda, Lambda, rtol=1e-10)
    np.testing.assert_allclose(result.statistic, stat, rtol=1e-10)
    np.testing.assert_allclose(result.pvalue, sps.chi2.sf(stat, df), rtol=1e-8, atol=1e-300)


def test_wilks_test_on_equal_means_is_not_significant_and_p_value_is_moderate():
    # a p-value check away from 0: classes drawn from one distribution
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 3))
    y = rng.integers(0, 3, 200)
    model = FisherDiscriminantAnalysis().fit(X, y)
    Sw, Sb, _, _ = scatter_matrices(X, y)
    Lambda = np.linalg.det(Sw) / np.linalg.det(Sw + Sb)
    stat = -(200 - 1 - (3 + 3) / 2) * np.log(Lambda)
    result = model.wilks_test()
    np.testing.assert_allclose(result.statistic, stat, rtol=1e-9)
    np.testing.assert_allclose(result.pvalue, sps.chi2.sf(stat, 6), rtol=1e-9)
    assert 0.01 < result.pvalue < 1


def test_wilks_test_refuses_too_few_samples():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(8, 5))
    y = np.arange(8) % 3
    model = FisherDiscriminantAnalysis().fit(X, y)  # n - 1 - (d + K)/2 = 8 - 1 - 4 = 3 > 0
    model.wilks_test()
    model = fit_quietly(FisherDiscriminantAnalysis(solver="gsvd"), X[:5], y[:5])  # 5 - 1 - 4 = 0
    message = r"n - 1 - \(n_features \+ n_classes\)/2 > 0.*n = 5, n_features = 5, n_classes = 3"
    with pytest.raises(ValueError, match=message):
        model.wilks_test()
    with pytest.raises(ValueError, match="Bartlett"):
        fisher.wilks_test(np.array([1.0, 0.5]), n=4.0, n_features=4, n_classes=3)


# ----------------------------------------------------------------------------- 5. singular S_W


def wide_problem():
    """30 rows, 100 features, 3 classes: S_W has rank 27."""
    rng = np.random.default_rng(11)
    y = np.arange(30) % 3
    X = rng.normal(size=(30, 100)) + rng.normal(size=(3, 100))[y]
    return X, y


def test_wide_eigen_warns_and_falls_back_to_svd():
    X, y = wide_problem()
    with pytest.warns(SingularCovarianceWarning, match="solver='eigen' cannot invert it"):
        eig = FisherDiscriminantAnalysis(solver="eigen").fit(X, y)
    with pytest.warns(SingularCovarianceWarning, match="rank 27 of 100"):
        svd = FisherDiscriminantAnalysis(solver="svd").fit(X, y)
    np.testing.assert_allclose(eig.eigenvalues_, svd.eigenvalues_, rtol=1e-12)
    np.testing.assert_allclose(eig.scalings_, svd.scalings_, rtol=1e-12, atol=1e-14)
    # svd solves on the range of S_W: V^T S_W V = I there, and the eigenvalues are finite
    Sw, Sb, _, _ = scatter_matrices(X, y)
    V = svd.scalings_
    assert np.all(np.isfinite(svd.eigenvalues_))
    np.testing.assert_allclose(V.T @ Sw @ V, np.eye(2), atol=1e-8)
    np.testing.assert_allclose(V.T @ Sb @ V, np.diag(svd.eigenvalues_), atol=1e-8 * svd.eigenvalues_[0])


def test_wide_gsvd_uses_the_null_space_of_Sw():
    X, y = wide_problem()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # gsvd needs no fallback, so it does not warn
        model = FisherDiscriminantAnalysis(solver="gsvd").fit(X, y)
    np.testing.assert_array_equal(model.eigenvalues_, [np.inf, np.inf])
    np.testing.assert_array_equal(model.canonical_correlations_, [1.0, 1.0])
    assert model.wilks_lambda_ == 0.0
    np.testing.assert_allclose(model.explained_variance_ratio_, [0.5, 0.5])
    Sw, Sb, _, _ = scatter_matrices(X, y)
    V = model.scalings_
    # directions in the null space of S_W, normalised to v^T S_T v = 1 (S_T = S_B + S_W)
    np.testing.assert_allclose(V.T @ Sw @ V, 0, atol=1e-10)
    np.testing.assert_allclose(V.T @ (Sb + Sw) @ V, np.eye(2), atol=1e-10)
    # each class collapses to one point on the projection, so the training data are classified perfectly
    Z = model.transform(X)
    for k in range(3):
        np.testing.assert_allclose(Z[y == k], np.tile(Z[y == k].mean(axis=0), (10, 1)), atol=1e-9)
    np.testing.assert_array_equal(model.predict(X), y)
    proba = model.predict_proba(X)
    assert np.all(proba[np.arange(30), y] > 0.5)
    # the svd solver loses these directions
    svd = fit_quietly(FisherDiscriminantAnalysis(solver="svd"), X, y)
    assert np.all(np.isfinite(svd.eigenvalues_))


def test_gsvd_mixed_finite_and_infinite_eigenvalues():
    # a feature that is constant within each class but differs between classes spans the null space
    # of S_W: the infinite eigenvalue comes first, with v proportional to that feature's axis; the
    # finite one is the generalized eigenvalue on the S_B-orthogonal complement of that axis
    rng = np.random.default_rng(12)
    y = np.arange(90) % 3
    X = rng.normal(size=(90, 3)) + rng.normal(size=(3, 3))[y] * 2
    Xc = np.column_stack([X, np.array([0.0, 1.0, 3.0])[y]])
    model = FisherDiscriminantAnalysis(solver="gsvd").fit(Xc, y)
    assert np.isinf(model.eigenvalues_[0]) and np.isfinite(model.eigenvalues_[1])
    np.testing.assert_allclose(model.explained_variance_ratio_, [1.0, 0.0])
    Sw, Sb, _, _ = scatter_matrices(Xc, y)
    v_inf, v_fin = model.scalings_.T
    assert np.abs(v_inf[:3]).max() < 1e-8 * abs(v_inf[3])
    assert v_inf @ (Sw + Sb) @ v_inf == pytest.approx(1, rel=1e-10)
    assert v_fin @ Sw @ v_fin == pytest.approx(1, rel=1e-10)
    assert v_fin @ Sb @ v_fin == pytest.approx(model.eigenvalues_[1], rel=1e-9)
    assert abs(v_fin @ Sb @ v_inf) < 1e-9
    # reference: S_B v = lambda S_W v restricted to {v : v^T S_B e_4 = 0}
    N = sla.null_space(Sb[:, 3][None, :])
    ref = sla.eigh(N.T @ Sb @ N, N.T @ Sw @ N, eigvals_only=True)[-1]
    assert model.eigenvalues_[1] == pytest.approx(ref, rel=1e-8)
    np.testing.assert_array_equal(model.predict(Xc), y)


@pytest.mark.parametrize("solver", SOLVERS)
def test_exactly_constant_feature_is_ignored(solver):
    X, y = make_problem(13, n=90, d=3, K=3)
    Xc = np.column_stack([X[:, :1], np.full(len(y), 5.0), X[:, 1:]])
    if solver == "gsvd":
        model = FisherDiscriminantAnalysis(solver=solver).fit(Xc, y)
    else:
        with pytest.warns(SingularCovarianceWarning):
            model = FisherDiscriminantAnalysis(solver=solver).fit(Xc, y)
    base = FisherDiscriminantAnalysis(solver=solver).fit(X, y)
    np.testing.assert_allclose(model.eigenvalues_, base.eigenvalues_, rtol=1e-10)
    assert np.abs(model.scalings_[1]).max() < 1e-12 * np.abs(model.scalings_).max()
    np.testing.assert_allclose(np.delete(model.scalings_, 1, axis=0), base.scalings_, rtol=1e-9, atol=1e-12)
    # new data with any value in the constant column: the column must not matter
    Xt = make_problem(14, n=50, d=3, K=3)[0]
    Xtc = np.column_stack([Xt[:, :1], np.random.default_rng(0).normal(size=50) * 10, Xt[:, 1:]])
    np.testing.assert_array_equal(model.predict(Xtc), base.predict(Xt))
    np.testing.assert_allclose(model.predict_proba(Xtc), base.predict_proba(Xt), rtol=0, atol=1e-10)


@pytest.mark.parametrize("solver", ["eigen", "svd"])
def test_inexactly_constant_feature_is_ignored(solver):
    X, y = make_problem(13, n=90, d=3, K=3)
    Xc = np.column_stack([X[:, :1], np.full(len(y), 0.1), X[:, 1:]])
    with pytest.warns(SingularCovarianceWarning):
        model = FisherDiscriminantAnalysis(solver=solver).fit(Xc, y)
    assert np.abs(model.scalings_[1]).max() < 1e-6 * np.abs(model.scalings_).max()
    base = FisherDiscriminantAnalysis(solver=solver).fit(X, y)
    Xt = make_problem(14, n=50, d=3, K=3)[0]
    Xtc = np.column_stack([Xt[:, :1], np.random.default_rng(0).normal(size=50) * 10, Xt[:, 1:]])
    np.testing.assert_array_equal(model.predict(Xtc), base.predict(Xt))


@pytest.mark.parametrize("solver", SOLVERS)
def test_collinear_feature_gives_the_same_model(solver):
    X, y = make_problem(15, n=120, d=4, K=3)
    Xd = np.column_stack([X, 2 * X[:, 0] - X[:, 2]])  # an exact linear combination
    if solver == "gsvd":
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            model = FisherDiscriminantAnalysis(solver=solver).fit(Xd, y)
    else:
        with pytest.warns(SingularCovarianceWarning):
            model = FisherDiscriminantAnalysis(solver=solver).fit(Xd, y)
    base = FisherDiscriminantAnalysis(solver=solver).fit(X, y)
    np.testing.assert_allclose(model.eigenvalues_, base.eigenvalues_, rtol=1e-10)
    Xt = make_problem(16, n=60, d=4, K=3)[0]
    Xtd = np.column_stack([Xt, 2 * Xt[:, 0] - Xt[:, 2]])
    np.testing.assert_array_equal(model.predict(Xtd), base.predict(Xt))
    np.testing.assert_allclose(model.predict_proba(Xtd), base.predict_proba(Xt), rtol=0, atol=1e-10)
    np.testing.assert_allclose(model.transform(Xtd), base.transform(Xt), rtol=0, atol=1e-9)


def test_gsvd_is_scale_invariant():
    # Fisher's discriminant is invariant under rescaling of the features
    X, y = make_problem(17, n=200, d=4, K=3)
    scale = np.array([1e-3, 1.0, 1.0, 1e3])
    ref = FisherDiscriminantAnalysis(solver="gsvd").fit(X, y)
    model = FisherDiscriminantAnalysis(solver="gsvd").fit(X * scale, y)
    np.testing.assert_allclose(model.eigenvalues_, ref.eigenvalues_, rtol=1e-8)
    np.testing.assert_array_equal(model.predict(X * scale), ref.predict(X))


@pytest.mark.parametrize("solver", ["eigen", "svd"])
def test_eigen_and_svd_are_scale_invariant(solver):
    X, y = make_problem(17, n=200, d=4, K=3)
    scale = np.array([1e-3, 1.0, 1.0, 1e3])
    ref = FisherDiscriminantAnalysis(solver=solver).fit(X, y)
    model = FisherDiscriminantAnalysis(solver=solver).fit(X * scale, y)
    np.testing.assert_allclose(model.eigenvalues_, ref.eigenvalues_, rtol=1e-8)
    np.testing.assert_allclose(model.scalings_ * scale[:, None], ref.scalings_, rtol=1e-7, atol=1e-9)
    np.testing.assert_array_equal(model.predict(X * scale), ref.predict(X))


# ----------------------------------------------------------------------------- 6. the estimator


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("K", [2, 4])
def test_partial_fit_in_chunks_equals_fit(solver, K):
    X, y = make_problem(20 + K, n=150, d=4, K=K)
    full = FisherDiscriminantAnalysis(solver=solver).fit(X, y)
    # chunks sorted by class: the first chunks see only some classes
    order = np.argsort(y, kind="stable")
    Xs, ys = X[order], y[order]
    inc = FisherDiscriminantAnalysis(solver=solver)
    for chunk in np.array_split(np.arange(len(y)), 5):
        inc.partial_fit(Xs[chunk], ys[chunk], classes=np.arange(K) if chunk[0] == 0 else None)
    np.testing.assert_allclose(inc.eigenvalues_, full.eigenvalues_, rtol=1e-10)
    np.testing.assert_allclose(inc.scalings_, full.scalings_, rtol=0, atol=1e-10 * np.abs(full.scalings_).max())
    np.testing.assert_allclose(inc.predict_proba(X), full.predict_proba(X), rtol=0, atol=1e-10)
    np.testing.assert_allclose(inc.transform(X), full.transform(X), rtol=0, atol=1e-9)
    assert inc.wilks_lambda_ == pytest.approx(full.wilks_lambda_, rel=1e-10)


@pytest.mark.parametrize("solver", SOLVERS)
def test_integer_sample_weight_equals_repeated_rows(solver):
    X, y = make_problem(25, n=90, d=4, K=3)
    w = np.random.default_rng(1).integers(0, 4, len(y))
    w[:9] = 1 + np.arange(9) % 3  # every class keeps some weight
    weighted = FisherDiscriminantAnalysis(solver=solver).fit(X, y, sample_weight=w)
    repeated = FisherDiscriminantAnalysis(solver=solver).fit(X.repeat(w, axis=0), y.repeat(w))
    np.testing.assert_allclose(weighted.eigenvalues_, repeated.eigenvalues_, rtol=1e-10)
    np.testing.assert_allclose(
        weighted.scalings_, repeated.scalings_, rtol=0, atol=1e-10 * np.abs(repeated.scalings_).max()
    )
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=0, atol=1e-10)
    a, b = weighted.wilks_test(), repeated.wilks_test()
    assert a.statistic == pytest.approx(b.statistic, rel=1e-10) and a.df == b.df
    # and against the weighted reference
    Sw, Sb, _, _ = scatter_matrices(X, y, w)
    np.testing.assert_allclose(weighted.eigenvalues_, sla.eigh(Sb, Sw, eigvals_only=True)[::-1][:2], rtol=1e-10)


@pytest.mark.parametrize("solver", SOLVERS)
def test_n_components_truncates_transform_and_classifier(solver):
    X, y = make_problem(26, n=160, d=5, K=4)
    full = FisherDiscriminantAnalysis(solver=solver).fit(X, y)
    one = FisherDiscriminantAnalysis(n_components=1, solver=solver).fit(X, y)
    assert full.transform(X).shape == (160, 3)
    Z1 = one.transform(X)
    assert Z1.shape == (160, 1)
    np.testing.assert_allclose(Z1, full.transform(X)[:, :1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(one.eigenvalues_, full.eigenvalues_, rtol=1e-14)  # all directions kept
    np.testing.assert_allclose(one.explained_variance_ratio_, full.explained_variance_ratio_[:1], rtol=1e-14)
    np.testing.assert_allclose(full.explained_variance_ratio_.sum(), 1.0, rtol=1e-14)
    np.testing.assert_array_equal(one.get_feature_names_out(), ["fisherdiscriminantanalysis0"])
    np.testing.assert_array_equal(
        full.get_feature_names_out(), [f"fisherdiscriminantanalysis{i}" for i in range(3)]
    )
    # the classifier on the first direction only: Gaussian with unit variance on z_1 and the priors
    z = Z1[:, 0]
    zbar = np.array([z[y == k].mean() for k in range(4)])
    logp = -0.5 * (z[:, None] - zbar) ** 2 + np.log(np.bincount(y) / len(y))
    want = logp - logsumexp(logp, axis=1, keepdims=True)
    np.testing.assert_allclose(one.predict_log_proba(X), want, rtol=1e-9, atol=1e-10)
    np.testing.assert_array_equal(one.predict(X), np.argmax(logp, axis=1))
    assert not np.array_equal(one.predict(X), full.predict(X))  # the truncation does something


def test_n_components_too_large_is_a_clear_error():
    X, y = make_problem(27, n=60, d=4, K=3)
    with pytest.raises(ValueError, match=r"n_components=3 cannot be larger than min\(n_features, n_classes - 1\) = 2"):
        FisherDiscriminantAnalysis(n_components=3).fit(X, y)
    X2 = X[:, :1]  # one feature: at most one direction
    with pytest.raises(ValueError, match=r"= 1"):
        FisherDiscriminantAnalysis(n_components=2).fit(X2, y)
    with pytest.raises(ValueError, match="n_components"):
        FisherDiscriminantAnalysis(n_components=0).fit(X, y)


def test_invalid_solver_and_threshold():
    X, y = make_problem(28, n=60, d=3, K=3)
    with pytest.raises(ValueError, match="solver"):
        FisherDiscriminantAnalysis(solver="lsqr").fit(X, y)
    with pytest.raises(ValueError, match="threshold"):
        FisherDiscriminantAnalysis(threshold="median").fit(X, y)
    stats = ClassStats.from_batch(X, y, np.arange(3))
    with pytest.raises(ValueError, match="solver must be one of"):
        fisher.solve(stats, "lsqr")
    with pytest.raises(ValueError, match="threshold must be one of"):
        fisher.estimate(stats, threshold="median")


def test_spine_functions_match_the_estimator():
    X, y = make_problem(29, n=90, d=4, K=3)
    stats = ClassStats.from_batch(X, y, np.arange(3))
    model = fisher.estimate(stats, solver="gsvd", n_components=1)
    est = FisherDiscriminantAnalysis(solver="gsvd", n_components=1).fit(X, y)
    np.testing.assert_allclose(fisher.project(model, X), est.transform(X), rtol=0, atol=1e-12)
    s = fisher.scores(model, X)
    np.testing.assert_allclose(s - logsumexp(s, axis=1, keepdims=True), est.predict_log_proba(X), atol=1e-12)
    # the linear form coef x + intercept gives the same scores up to a term shared by the classes
    lin = X @ model.coef.T + model.intercept
    diff = lin - s
    np.testing.assert_allclose(diff, np.tile(diff[:, :1], (1, 3)), atol=1e-9)
    np.testing.assert_allclose(est.decision_function(X), X @ est.coef_.T + est.intercept_ - diff[:, :1], atol=1e-9)
    lam, V = fisher.solve(stats, "eigen")
    np.testing.assert_allclose(lam, reference_eigenvalues(X, y), rtol=1e-10)


def test_two_class_coef_is_the_decision_function():
    X, y = make_problem(30, n=80, d=3, K=2)
    for threshold in ("gaussian", "midpoint"):
        model = FisherDiscriminantAnalysis(threshold=threshold).fit(X, y)
        assert model.coef_.shape == (1, 3) and model.intercept_.shape == (1,)
        linear = X @ model.coef_[0] + model.intercept_[0]
        np.testing.assert_allclose(model.decision_function(X), linear, rtol=1e-9, atol=1e-9)


def test_pandas_input():
    X, y = make_problem(31, n=90, d=3, K=3)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    labels = pd.Series(np.array(["x", "y", "z"])[y])
    model = FisherDiscriminantAnalysis().fit(frame, labels)
    ref = FisherDiscriminantAnalysis().fit(X, y)
    np.testing.assert_array_equal(model.feature_names_in_, ["a", "b", "c"])
    np.testing.assert_array_equal(model.classes_, ["x", "y", "z"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no feature-name warnings
        np.testing.assert_allclose(model.transform(frame), ref.transform(X), rtol=0, atol=1e-12)
        np.testing.assert_allclose(model.predict_proba(frame), ref.predict_proba(X), rtol=0, atol=1e-12)
        np.testing.assert_array_equal(model.predict(frame), np.array(["x", "y", "z"])[ref.predict(X)])
    np.testing.assert_array_equal(
        model.get_feature_names_out(), ["fisherdiscriminantanalysis0", "fisherdiscriminantanalysis1"]
    )


def test_nan_is_a_clear_error():
    X, y = make_problem(32, n=60, d=3, K=3)
    bad = X.copy()
    bad[7, 2] = np.nan
    with pytest.raises(ValueError, match=r"NaN in 1 entry \(first at row 7, column 2\)"):
        FisherDiscriminantAnalysis().fit(bad, y)
    model = FisherDiscriminantAnalysis().fit(X, y)
    with pytest.raises(ValueError, match=r"NaN in 1 entry \(first at row 7, column 2\)"):
        model.transform(bad)
    with pytest.raises(ValueError, match=r"NaN"):
        model.predict(bad)
    with pytest.raises(ValueError, match=r"NaN"):
        FisherDiscriminantAnalysis().partial_fit(bad, y, classes=[0, 1, 2])


# ----------------------------------------------------------------------------- 7. property test


@settings(max_examples=30, deadline=None, database=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    K=st.integers(2, 4),
    d=st.integers(1, 5),
    extra=st.integers(0, 40),
)
def test_directions_diagonalise_both_scatters_and_maximise_J(seed, K, d, extra):
    rng = np.random.default_rng(seed)
    n = 3 * d * K + 3 * K + extra
    y = np.concatenate([np.arange(K).repeat(3 * d + 3), rng.integers(0, K, n - (3 * d + 3) * K)])
    mix = np.eye(d) + 0.3 * rng.normal(size=(d, d)) / np.sqrt(d)  # well conditioned
    X = rng.normal(size=(K, d))[y] * rng.uniform(0.2, 3) + rng.normal(size=(n, d)) @ mix
    Sw, Sb, _, _ = scatter_matrices(X, y)
    r = rng.normal(size=(d, 20))
    J_random = np.einsum("ij,ik,kj->j", r, Sb, r) / np.einsum("ij,ik,kj->j", r, Sw, r)
    results = {}
    for solver in SOLVERS:
        model = FisherDiscriminantAnalysis(solver=solver).fit(X, y)
        lam, V = model.eigenvalues_, model.scalings_
        assert V.shape == (d, len(lam)) and len(lam) <= min(K - 1, d)
        assert np.all(np.isfinite(lam)) and np.all(np.diff(lam) <= 1e-12 * lam[0])
        top = max(lam[0], 1.0)
        np.testing.assert_allclose(V.T @ Sb @ V, np.diag(lam), rtol=0, atol=1e-8 * top)
        np.testing.assert_allclose(V.T @ Sw @ V, np.eye(len(lam)), rtol=0, atol=1e-8)
        J1 = (V[:, 0] @ Sb @ V[:, 0]) / (V[:, 0] @ Sw @ V[:, 0])
        assert J1 == pytest.approx(lam[0], rel=1e-8)
        assert np.all(J1 >= J_random * (1 - 1e-10))
        results[solver] = lam
    np.testing.assert_allclose(results["svd"], results["eigen"], rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(results["gsvd"], results["eigen"], rtol=1e-8, atol=1e-12)


# ----------------------------------------------------------------------------- explained variance


def test_explained_variance_ratio_rule():
    """One rule for every Fisher projection: shares of the sum of all eigenvalues; infinite
    eigenvalues share the ratio equally; a zero total gives zeros."""
    np.testing.assert_allclose(fisher.explained_variance_ratio(np.array([3.0, 1.0])), [0.75, 0.25])
    np.testing.assert_allclose(fisher.explained_variance_ratio(np.array([3.0, 1.0]), 1), [0.75])
    inf = np.inf
    np.testing.assert_array_equal(fisher.explained_variance_ratio(np.array([inf, inf, 2.0])), [0.5, 0.5, 0.0])
    np.testing.assert_array_equal(fisher.explained_variance_ratio(np.array([inf, inf, 2.0]), 1), [0.5])
    np.testing.assert_array_equal(fisher.explained_variance_ratio(np.array([inf, 5.0]), 2), [1.0, 0.0])
    np.testing.assert_array_equal(fisher.explained_variance_ratio(np.zeros(2)), [0.0, 0.0])
    assert fisher.explained_variance_ratio(np.zeros(0)).shape == (0,)


def test_lda_fisher_and_kernel_fisher_share_the_explained_variance_rule():
    from linclass import KernelFisherDiscriminantAnalysis, LinearDiscriminantAnalysis

    X, y = make_problem(27, n=150, d=4, K=4)
    fda = FisherDiscriminantAnalysis(n_components=2).fit(X, y)
    np.testing.assert_array_equal(fda.explained_variance_ratio_,
                                  fisher.explained_variance_ratio(fda.eigenvalues_, 2))
    kfda = KernelFisherDiscriminantAnalysis(kernel="linear").fit(X, y)
    np.testing.assert_array_equal(kfda.explained_variance_ratio_,
                                  fisher.explained_variance_ratio(kfda.eigenvalues_))
    lda = LinearDiscriminantAnalysis(n_components=2).fit(X, y)
    full = LinearDiscriminantAnalysis().fit(X, y)
    np.testing.assert_allclose(lda.explained_variance_ratio_, full.explained_variance_ratio_[:2], rtol=1e-14)
    np.testing.assert_allclose(full.explained_variance_ratio_.sum(), 1.0, rtol=1e-14)
    # LDA's directions are Fisher's on the same statistics: the same shares
    np.testing.assert_allclose(full.explained_variance_ratio_, FisherDiscriminantAnalysis().fit(X, y)
                               .explained_variance_ratio_, rtol=1e-10)
