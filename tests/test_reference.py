"""linclass against the closed forms of the published derivations and against scikit-learn.

* Bishop 2006 sec. 4.2.2: maximum-likelihood priors n_k/n, class means and the pooled covariance divided by
  n.
* Bishop 2006 sec. 4.2.1: binary LDA is sigma(theta^T x + theta_0) with theta = Sigma^-1 (mu_1 - mu_0) and
  theta_0 = log(phi/(1-phi)) + 1/2 (mu_0^T Sigma^-1 mu_0 - mu_1^T Sigma^-1 mu_1).
* docs/math/gaussian.md#one-shared-variance-per-feature: naive Bayes with one shared per-feature variance
  sigma_j^2 = (1/n) sum_i (x_ij - mu_{y_i j})^2, whose posterior is a sigmoid of a linear function.
* QDA / spherical / diagonal models against scipy.stats densities.
* scikit-learn's LDA, QDA, GaussianNB and covariance shrinkage estimators on the toy data sets.
* partial_fit == fit, integer sample_weight == repeated rows.

Reference values are computed naively (np.linalg.solve, loops over classes, scipy.stats densities).
Tolerances are far below the effect of any modelling mistake (e.g. dividing by n - 1 instead of n
changes the covariance by a relative 1/n, ~1e-2 here).
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from scipy import stats as sps
from scipy.special import expit, logsumexp
from sklearn import datasets
from sklearn.covariance import ledoit_wolf_shrinkage, oas, shrunk_covariance
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as SkLDA
from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis as SkQDA
from sklearn.naive_bayes import GaussianNB as SkGaussianNB

from linclass import (
    GaussianDiscriminantAnalysis,
    GaussianNB,
    LinearDiscriminantAnalysis,
    QuadraticDiscriminantAnalysis,
    SingularCovarianceWarning,
)

# ----------------------------------------------------------------------------- data


def make_problem(seed: int, n: int = 150, d: int = 4, K: int = 3, *, spread: float = 2.0):
    """Gaussian classes with correlated features (a fixed random mixing matrix) and separated means.
    Every class gets at least 2d rows so that per-class covariances are well conditioned."""
    rng = np.random.default_rng(seed)
    y = np.concatenate([np.arange(K).repeat(2 * d), rng.integers(0, K, n - 2 * d * K)])
    rng.shuffle(y)
    mix = rng.normal(size=(d, d)) + 2 * np.eye(d)
    centres = rng.normal(scale=spread, size=(K, d))
    X = centres[y] + rng.normal(size=(n, d)) @ mix + rng.normal(size=d) * 3
    return X, y


def naive_class_stats(X, y, K):
    """priors n_k/n, means, per-class MLE covariances S_k/n_k and the pooled (1/n) sum (x-mu_y)(x-mu_y)^T."""
    n, d = X.shape
    counts = np.array([np.sum(y == k) for k in range(K)], dtype=float)
    means = np.array([X[y == k].mean(axis=0) for k in range(K)])
    covs = np.array([np.atleast_2d(np.cov(X[y == k].T, bias=True)) for k in range(K)])
    pooled = np.zeros((d, d))
    for i in range(n):  # the textbook sum, literally
        r = X[i] - means[y[i]]
        pooled += np.outer(r, r)
    pooled /= n
    return counts / n, means, covs, pooled


def assert_log_proba(got, want):
    # log posteriors: relative 1e-9; the absolute term covers the dominant class (log p ~ -1e-15)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-10)


def normalise(joint):
    return joint - logsumexp(joint, axis=1, keepdims=True)


# ----------------------------------------------------------------------------- ML estimates


@pytest.mark.parametrize(
    "make", [LinearDiscriminantAnalysis, lambda: GaussianDiscriminantAnalysis(covariance_type="tied")],
    ids=["LDA", "GDA-tied"],
)
@pytest.mark.parametrize("K", [2, 3, 4])
def test_maximum_likelihood_estimates_in_closed_form(make, K):
    X, y = make_problem(K, n=97, d=3, K=K)
    labels = np.array([-3, 5, 11, 20])[:K]  # arbitrary sorted labels
    model = make().fit(X, labels[y])
    priors, means, _, pooled = naive_class_stats(X, y, K)
    np.testing.assert_array_equal(model.classes_, labels)
    np.testing.assert_array_equal(model.class_count_, np.bincount(y, minlength=K))
    np.testing.assert_allclose(model.priors_, priors, rtol=1e-14)
    if K == 2:  # the MLE phi = (1/m) sum 1{y = 1}
        assert model.priors_[1] == pytest.approx(np.mean(y == 1), rel=1e-14)
    np.testing.assert_allclose(model.means_, means, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.model_.covariance, pooled, rtol=1e-10, atol=1e-12)


def test_unbiased_covariance_divides_by_n_minus_K():
    X, y = make_problem(7, n=60, d=3, K=3)
    _, _, _, pooled = naive_class_stats(X, y, 3)
    model = LinearDiscriminantAnalysis(unbiased=True).fit(X, y)
    np.testing.assert_allclose(model.model_.covariance, pooled * 60 / 57, rtol=1e-10)
    with pytest.raises(AssertionError):  # the test resolves n vs n - K
        np.testing.assert_allclose(model.model_.covariance, pooled, rtol=1e-6)


# ----------------------------------------------------------------------------- LDA


def gaussian_logistic_parameters(X, y):
    phi = np.mean(y == 1)
    mu0, mu1 = X[y == 0].mean(axis=0), X[y == 1].mean(axis=0)
    _, _, _, sigma = naive_class_stats(X, y, 2)
    theta = np.linalg.solve(sigma, mu1 - mu0)
    theta_0 = np.log(phi / (1 - phi)) + 0.5 * (mu0 @ np.linalg.solve(sigma, mu0) - mu1 @ np.linalg.solve(sigma, mu1))
    return theta, theta_0


@pytest.mark.parametrize(
    "make", [LinearDiscriminantAnalysis, lambda: GaussianDiscriminantAnalysis(covariance_type="tied")],
    ids=["LDA", "GDA-tied"],
)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gaussian_model_in_logistic_form(make, seed):
    X, y = make_problem(10 + seed, n=80, d=4, K=2)
    theta, theta_0 = gaussian_logistic_parameters(X, y)
    model = make().fit(X, y)
    assert model.coef_.shape == (1, 4) and model.intercept_.shape == (1,)
    np.testing.assert_allclose(model.coef_[0], theta, rtol=1e-10, atol=1e-12 * np.abs(theta).max())
    np.testing.assert_allclose(model.intercept_[0], theta_0, rtol=1e-10)
    Xt = make_problem(100 + seed, n=50, d=4, K=2)[0] * 1.5  # fresh points, some far from the means
    z = Xt @ theta + theta_0
    np.testing.assert_allclose(model.decision_function(Xt), z, rtol=1e-10, atol=1e-10)
    proba = model.predict_proba(Xt)
    np.testing.assert_allclose(proba[:, 1], expit(z), rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(proba[:, 0], expit(-z), rtol=1e-9, atol=1e-13)
    np.testing.assert_array_equal(model.predict(Xt), (z > 0).astype(int))


# ----------------------------------------------------------------------------- naive Bayes


def shared_variances(X, y, K):
    """sigma_j^2 = (1/n) sum_i (x_ij - mu_{y_i j})^2
    (docs/math/gaussian.md#one-shared-variance-per-feature)."""
    means = np.array([X[y == k].mean(axis=0) for k in range(K)])
    return means, np.mean((X - means[y]) ** 2, axis=0)


def test_naive_bayes_binary_is_a_sigmoid_of_a_linear_function():
    X, y = make_problem(21, n=90, d=5, K=2)
    means, var = shared_variances(X, y, 2)
    model = GaussianDiscriminantAnalysis(covariance_type="tied_diag").fit(X, y)
    np.testing.assert_allclose(model.model_.covariance, var, rtol=1e-12)
    np.testing.assert_allclose(model.means_, means, rtol=1e-12, atol=1e-12)
    phi = np.mean(y == 1)
    w = (means[1] - means[0]) / var
    b = np.log(phi / (1 - phi)) - 0.5 * np.sum((means[1] ** 2 - means[0] ** 2) / var)
    np.testing.assert_allclose(model.coef_[0], w, rtol=1e-10, atol=1e-12 * np.abs(w).max())
    np.testing.assert_allclose(model.intercept_[0], b, rtol=1e-10)
    Xt = make_problem(22, n=40, d=5, K=2)[0]
    z = Xt @ w + b
    np.testing.assert_allclose(model.decision_function(Xt), z, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(model.predict_proba(Xt)[:, 1], expit(z), rtol=1e-9, atol=1e-13)


def test_naive_bayes_multiclass_against_product_of_normals():
    K = 4
    X, y = make_problem(23, n=160, d=3, K=K)
    means, var = shared_variances(X, y, K)
    model = GaussianDiscriminantAnalysis(covariance_type="tied_diag").fit(X, y)
    np.testing.assert_allclose(model.model_.covariance, var, rtol=1e-12)
    Xt = make_problem(24, n=60, d=3, K=K)[0]
    prior = np.bincount(y) / len(y)
    # prod_j N(x_j; mu_kj, sigma_j^2) pi_k, in log space
    joint = np.stack(
        [sps.norm.logpdf(Xt, loc=means[k], scale=np.sqrt(var)).sum(axis=1) + np.log(prior[k]) for k in range(K)],
        axis=1,
    )
    assert_log_proba(model.predict_log_proba(Xt), normalise(joint))
    np.testing.assert_allclose(model.predict_proba(Xt), np.exp(normalise(joint)), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(model.predict(Xt), np.argmax(joint, axis=1))


# ----------------------------------------------------------------------------- QDA and friends


def test_qda_against_multivariate_normal_densities():
    K = 3
    X, y = make_problem(31, n=120, d=4, K=K)
    priors, means, covs, _ = naive_class_stats(X, y, K)
    model = QuadraticDiscriminantAnalysis().fit(X, y)
    np.testing.assert_allclose(model.model_.covariance, covs, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(model.priors_, priors, rtol=1e-14)
    Xt = make_problem(32, n=70, d=4, K=K)[0]
    joint = np.stack(
        [sps.multivariate_normal.logpdf(Xt, mean=means[k], cov=covs[k]) + np.log(priors[k]) for k in range(K)],
        axis=1,
    )
    # for quadratic models the scores are ln p(x, C_k) exactly
    np.testing.assert_allclose(model.decision_function(Xt), joint, rtol=1e-9, atol=1e-10)
    assert_log_proba(model.predict_log_proba(Xt), normalise(joint))
    np.testing.assert_array_equal(model.predict(Xt), np.argmax(joint, axis=1))
    # the exposed quadratic form x^T Q_k x + l_k^T x + c_k gives the same scores
    quad = np.einsum("ni,kij,nj->nk", Xt, model.quadratic_, Xt) + Xt @ model.linear_.T + model.constant_
    np.testing.assert_allclose(quad, joint, rtol=1e-9, atol=1e-9)


def test_spherical_against_its_formula():
    K, d = 3, 4
    X, y = make_problem(33, n=120, d=d, K=K)
    priors, means, covs, _ = naive_class_stats(X, y, K)
    # sigma_k^2 = trace(S_k) / (n_k d), S_k the class scatter
    sigma2 = np.array([np.sum((X[y == k] - means[k]) ** 2) / (np.sum(y == k) * d) for k in range(K)])
    np.testing.assert_allclose(sigma2, np.trace(covs, axis1=1, axis2=2) / d, rtol=1e-12)
    model = GaussianDiscriminantAnalysis(covariance_type="spherical").fit(X, y)
    np.testing.assert_allclose(model.model_.covariance, sigma2, rtol=1e-12)
    Xt = make_problem(34, n=60, d=d, K=K)[0]
    joint = np.stack(
        [sps.multivariate_normal.logpdf(Xt, mean=means[k], cov=sigma2[k] * np.eye(d)) + np.log(priors[k])
         for k in range(K)],
        axis=1,
    )
    np.testing.assert_allclose(model.decision_function(Xt), joint, rtol=1e-9, atol=1e-10)
    assert_log_proba(model.predict_log_proba(Xt), normalise(joint))


def test_diag_against_product_of_normals():
    K, d = 3, 4
    X, y = make_problem(35, n=120, d=d, K=K)
    priors, means, covs, _ = naive_class_stats(X, y, K)
    var = np.diagonal(covs, axis1=1, axis2=2)
    model = GaussianDiscriminantAnalysis(covariance_type="diag").fit(X, y)
    np.testing.assert_allclose(model.model_.covariance, var, rtol=1e-12)
    Xt = make_problem(36, n=60, d=d, K=K)[0]
    joint = np.stack(
        [sps.norm.logpdf(Xt, loc=means[k], scale=np.sqrt(var[k])).sum(axis=1) + np.log(priors[k]) for k in range(K)],
        axis=1,
    )
    np.testing.assert_allclose(model.decision_function(Xt), joint, rtol=1e-9, atol=1e-10)
    assert_log_proba(model.predict_log_proba(Xt), normalise(joint))


# ----------------------------------------------------------------------------- scikit-learn

DATASETS = ["iris", "wine", "breast_cancer", "digits"]


@functools.lru_cache(maxsize=None)
def load(name):
    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    return np.ascontiguousarray(X, dtype=np.float64), y


@pytest.mark.parametrize("solver", ["svd", "lsqr"])
@pytest.mark.parametrize("name", DATASETS)
def test_lda_matches_sklearn(name, solver):
    # On raw data, including digits (constant pixels, singular covariance) and breast_cancer (feature
    # scales from 1e-3 to 1e3): linclass's pseudo-inverse (eigenvalues of the correlation matrix) and
    # sklearn's (svd: tol on scaled singular values; lsqr: min-norm lstsq) differ only on directions
    # where every class mean is constant (the all-zero pixels), which do not affect the posterior.
    # breast_cancer/lsqr agrees to ~1e-9: lstsq on the unscaled, ill-conditioned covariance.
    X, y = load(name)
    if name == "digits":  # 3 all-zero pixels
        with pytest.warns(SingularCovarianceWarning, match="rank 61 of 64"):
            ours = LinearDiscriminantAnalysis().fit(X, y)
    else:
        ours = LinearDiscriminantAnalysis().fit(X, y)
    ref = SkLDA(solver=solver).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=0, atol=1e-8)
    np.testing.assert_allclose(ours.means_, ref.means_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours.priors_, ref.priors_, rtol=1e-14)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


@pytest.mark.parametrize("name", DATASETS)
def test_lda_fixed_shrinkage_matches_sklearn(name):
    X, y = load(name)
    ours = LinearDiscriminantAnalysis(shrinkage=0.3).fit(X, y)
    ref = SkLDA(solver="lsqr", shrinkage=0.3).fit(X, y)
    # sklearn shrinks each class covariance and averages with the priors; shrinkage is linear in the
    # covariance, so this equals shrinking the pooled covariance
    np.testing.assert_allclose(ours.model_.covariance, ref.covariance_, rtol=1e-10, atol=1e-12 * np.abs(ref.covariance_).max())
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=0, atol=1e-8)
    assert ours.shrinkage_ == 0.3


@pytest.mark.parametrize("name", DATASETS)
def test_qda_reg_param_matches_sklearn(name):
    # digits has constant pixels: only with reg_param is its per-class covariance invertible
    X, y = load(name)
    ours = QuadraticDiscriminantAnalysis(reg_param=0.1).fit(X, y)
    ref = SkQDA(reg_param=0.1).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=0, atol=1e-8)
    np.testing.assert_allclose(ours.means_, ref.means_, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["iris", "wine", "breast_cancer"])
def test_qda_matches_sklearn(name):
    X, y = load(name)
    # sklearn's QDA rejects covariance eigenvalues below tol=1e-4 in absolute terms; breast_cancer
    # has features in units where some eigenvalues are smaller (its covariances are full rank
    # relative to their scale, see rank_), so sklearn needs a smaller tol there
    sk_tol = 1e-12 if name == "breast_cancer" else 1e-4
    ours = QuadraticDiscriminantAnalysis().fit(X, y)
    ref = SkQDA(tol=sk_tol, store_covariance=True).fit(X, y)
    np.testing.assert_array_equal(ours.rank_, X.shape[1])
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=0, atol=1e-8)
    np.testing.assert_allclose(
        ours.model_.covariance, np.array(ref.covariance_), rtol=1e-9, atol=1e-12 * np.abs(ours.model_.covariance).max()
    )


@pytest.mark.parametrize("name", DATASETS)
def test_gaussian_nb_matches_sklearn(name):
    X, y = load(name)
    ours = GaussianNB().fit(X, y)
    ref = SkGaussianNB().fit(X, y)
    np.testing.assert_allclose(ours.theta_, ref.theta_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ours.var_, ref.var_, rtol=1e-9)
    assert ours.epsilon_ == pytest.approx(ref.epsilon_, rel=1e-12)
    # digits: pixels that are constant within a class get variance epsilon_ ~ 2e-8, so the
    # Mahalanobis terms are ~1e9; linclass evaluates the expanded form x^2/v - 2 x mu/v + mu^2/v
    # while sklearn sums (x - mu)^2 / v, and the expansion loses ~1e-7 absolute in the scores.
    atol = 1e-6 if name == "digits" else 1e-8
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=0, atol=atol)


@pytest.mark.parametrize("name", DATASETS)
def test_lda_transform_matches_sklearn_eigen(name):
    X, y = load(name)
    if name == "digits":
        # sklearn's eigen solver needs a positive definite within-class covariance (Cholesky):
        # drop the all-constant pixels, which carry no information in either implementation
        X = X[:, X.std(axis=0) > 0]
    ours = LinearDiscriminantAnalysis().fit(X, y)
    ref = SkLDA(solver="eigen").fit(X, y)
    T, R = ours.transform(X), ref.transform(X)
    assert T.shape == R.shape == (len(y), min(X.shape[1], len(np.unique(y)) - 1))
    for j in range(T.shape[1]):
        corr = np.corrcoef(T[:, j], R[:, j])[0, 1]
        assert abs(corr) > 1 - 1e-10, (j, corr)
        # both normalise v^T Sigma v = 1 with Sigma the MLE pooled covariance: same scale
        assert np.std(T[:, j]) == pytest.approx(np.std(R[:, j]), rel=1e-8)
    # linclass centres on the mean of the training data: the projections have mean 0
    np.testing.assert_allclose(T.mean(axis=0), 0.0, atol=1e-9 * np.abs(T).max())
    np.testing.assert_allclose(ours.explained_variance_ratio_, ref.explained_variance_ratio_, rtol=1e-8)


# ----------------------------------------------------------------------------- Ledoit-Wolf and OAS


def reference_intensity(rule, R):
    if rule == "ledoit-wolf":
        return ledoit_wolf_shrinkage(R, assume_centered=True)
    return oas(R, assume_centered=True)[1]


@pytest.mark.parametrize("rule", ["ledoit-wolf", "oas"])
@pytest.mark.parametrize("data", ["random", "iris", "wine"])
def test_lda_automatic_shrinkage_matches_sklearn_covariance(rule, data):
    X, y = make_problem(41, n=90, d=5, K=3) if data == "random" else load(data)
    model = LinearDiscriminantAnalysis(shrinkage=rule).fit(X, y)
    R = X - model.means_[np.searchsorted(model.classes_, y)]  # pooled within-class residuals
    alpha = reference_intensity(rule, R)
    assert 0 < alpha < 1
    assert model.shrinkage_ == pytest.approx(alpha, rel=1e-10)
    expected = shrunk_covariance(R.T @ R / len(y), model.shrinkage_)
    np.testing.assert_allclose(model.model_.covariance, expected, rtol=1e-10, atol=1e-12 * np.abs(expected).max())


@pytest.mark.parametrize("rule", ["ledoit-wolf", "oas"])
@pytest.mark.parametrize("data", ["random", "iris", "wine"])
def test_qda_automatic_shrinkage_per_class_matches_sklearn_covariance(rule, data):
    X, y = make_problem(42, n=90, d=5, K=3) if data == "random" else load(data)
    model = QuadraticDiscriminantAnalysis(shrinkage=rule).fit(X, y)
    K = len(model.classes_)
    assert np.shape(model.shrinkage_) == (K,)
    for k, label in enumerate(model.classes_):
        R = X[y == label] - model.means_[k]
        alpha = reference_intensity(rule, R)
        assert model.shrinkage_[k] == pytest.approx(alpha, rel=1e-10), k
        expected = shrunk_covariance(R.T @ R / len(R), model.shrinkage_[k])
        np.testing.assert_allclose(model.model_.covariance[k], expected, rtol=1e-10, atol=1e-12 * np.abs(expected).max())


# ----------------------------------------------------------------------------- partial_fit and weights

ESTIMATORS = {
    "LDA": lambda: LinearDiscriminantAnalysis(),
    "LDA-ledoit-wolf": lambda: LinearDiscriminantAnalysis(shrinkage="ledoit-wolf"),
    "LDA-oas": lambda: LinearDiscriminantAnalysis(shrinkage="oas"),
    "QDA": lambda: QuadraticDiscriminantAnalysis(),
    "QDA-ledoit-wolf": lambda: QuadraticDiscriminantAnalysis(shrinkage="ledoit-wolf"),
    "GaussianNB": lambda: GaussianNB(),
    "GDA-tied_diag": lambda: GaussianDiscriminantAnalysis(covariance_type="tied_diag"),
    "GDA-spherical": lambda: GaussianDiscriminantAnalysis(covariance_type="spherical"),
    "GDA-diag": lambda: GaussianDiscriminantAnalysis(covariance_type="diag"),
}
estimators = pytest.mark.parametrize("make", list(ESTIMATORS.values()), ids=list(ESTIMATORS))


def assert_same_model(a, b, Xt):
    np.testing.assert_array_equal(a.classes_, b.classes_)
    np.testing.assert_allclose(a.class_count_, b.class_count_, rtol=1e-12)
    np.testing.assert_allclose(a.means_, b.means_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(a.model_.covariance, b.model_.covariance, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.predict_proba(Xt), b.predict_proba(Xt), rtol=0, atol=1e-10)


@estimators
def test_partial_fit_with_classes_equals_fit(make):
    X, y = make_problem(51, n=150, d=3, K=3)
    labels = np.array(["ant", "bee", "cat"])
    Y = labels[y]
    first = np.flatnonzero(y != 2)[:40]  # the first chunk lacks class 'cat'
    rest = np.setdiff1d(np.arange(len(y)), first)
    chunks = [first, rest[:50], rest[50:]]
    model = make()
    model.partial_fit(X[chunks[0]], Y[chunks[0]], classes=labels)
    np.testing.assert_array_equal(model.classes_, labels)
    assert model.predict_proba(X)[:, 2].max() == 0.0  # an unseen class has zero posterior
    for c in chunks[1:]:
        model.partial_fit(X[c], Y[c])
    whole = make().fit(X[np.concatenate(chunks)], Y[np.concatenate(chunks)])
    assert_same_model(model, whole, X)
    assert_same_model(model, make().fit(X, Y), X)


@pytest.mark.parametrize("make", [make for name, make in ESTIMATORS.items() if "NB" not in name],
                         ids=[name for name in ESTIMATORS if "NB" not in name])
def test_partial_fit_without_classes_grows_classes(make):
    """LDA and QDA (linclass's partial_fit); naive Bayes needs `classes` first, as scikit-learn's."""
    X, y = make_problem(52, n=150, d=3, K=3)
    chunks = [np.flatnonzero(y != 2)[:40], np.flatnonzero(y == 2)[:20]]  # chunk 2: only the new class
    chunks.append(np.setdiff1d(np.arange(len(y)), np.concatenate(chunks)))
    model = make()
    model.partial_fit(X[chunks[0]], y[chunks[0]])
    np.testing.assert_array_equal(model.classes_, [0, 1])
    model.partial_fit(X[chunks[1]], y[chunks[1]])
    np.testing.assert_array_equal(model.classes_, [0, 1, 2])
    model.partial_fit(X[chunks[2]], y[chunks[2]])
    assert_same_model(model, make().fit(X, y), X)


@estimators
def test_integer_sample_weight_equals_repeated_rows(make):
    X, y = make_problem(53, n=120, d=3, K=3)
    rng = np.random.default_rng(53)
    w = rng.integers(0, 4, len(y))
    for k in range(3):  # every class keeps enough rows with weight
        w[np.flatnonzero(y == k)[:8]] = np.maximum(w[np.flatnonzero(y == k)[:8]], 1)
    weighted = make().fit(X, y, sample_weight=w)
    repeated = make().fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert_same_model(weighted, repeated, X)
    # and the weights matter (a test that could not fail would be no test)
    unweighted = make().fit(X, y)
    assert np.abs(unweighted.predict_proba(X) - weighted.predict_proba(X)).max() > 1e-6


@estimators
def test_large_offset_translation_invariance(make):
    """Fitting on X + 1e6 (the statistics' cancellation fallback) gives the model of X, shifted.
    Xo - 1e6 is exact (Sterbenz), so both fits see the same points; what remains is the rounding of
    points of magnitude 1e6 at predict time (~1e6 * eps * |coef|, observed ~5e-10)."""
    X, y = make_problem(55, n=150, d=3, K=3)
    Xo = X + 1e6
    X0 = Xo - 1e6
    near, far = make().fit(X0, y), make().fit(Xo, y)
    np.testing.assert_allclose(far.means_ - 1e6, near.means_, rtol=0, atol=1e-9)
    np.testing.assert_allclose(far.model_.covariance, near.model_.covariance, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(far.predict_proba(Xo), near.predict_proba(X0), rtol=0, atol=1e-8)


def test_no_singular_warning_on_well_posed_problems():
    X, y = make_problem(54)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SingularCovarianceWarning)
        for make in ESTIMATORS.values():
            make().fit(X, y)
