"""Decision-boundary geometry (linclass.geometry).

* hyperplanes(): for every linear linclass model, w^T x + w0 reproduces the model's own decision
  function (two classes) or the differences of its class scores (K classes), with the pair labels
  right; one-versus-rest / one-versus-one give their binary models' hyperplanes; models whose
  boundary is not a hyperplane are refused with a TypeError.
* signed_distance(): equal to the distance to the hyperplane found by orthogonal projection onto an
  orthonormal basis of the hyperplane (scipy's null_space), with the sign of the side; invariant to
  rescaling (w, w0) -> (c w, c w0), c > 0 (hypothesis).
* generative_to_logistic(): theta and theta0 of the two-class Gaussian model equal coef_ / intercept_, the
  formula evaluated with a plain solve, and sigmoid(X theta + theta0) equals predict_proba to 1e-12.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg import null_space
from scipy.special import expit

from linclass import (
    BernoulliNB,
    FisherDiscriminantAnalysis,
    GaussianDiscriminantAnalysis,
    GaussianNB,
    KernelFisherDiscriminantAnalysis,
    LinearDiscriminantAnalysis,
    LogisticRegression,
    MultinomialNB,
    Perceptron,
    PoissonNB,
    QuadraticDiscriminantAnalysis,
    SingularCovarianceWarning,
)
from linclass.geometry import (
    Hyperplanes,
    generative_to_logistic,
    hyperplanes,
    signed_distance,
)
from linclass.estimators.multiclass import (
    KClassDiscriminant,
    OneVsOneClassifier,
    OneVsRestClassifier,
)


def blobs(K, n=40, d=3, seed=0, counts=False):
    rng = np.random.default_rng(seed)
    means = 2.0 * rng.normal(size=(K, d))
    X = np.vstack([means[k] + rng.normal(size=(n, d)) * [1.0, 0.5, 2.0][:d] for k in range(K)])
    y = np.repeat(np.arange(K), n)
    if counts:
        X = np.floor(np.abs(X) * 2)
    return X, y


LINEAR = {
    "lda": LinearDiscriminantAnalysis,
    "gda_tied": lambda: GaussianDiscriminantAnalysis("tied"),
    "gda_tied_diag": lambda: GaussianDiscriminantAnalysis("tied_diag"),
    "logistic": LogisticRegression,
    "perceptron": lambda: Perceptron(random_state=0, pocket=True, max_epochs=20),
    "fisher": FisherDiscriminantAnalysis,
    "bernoulli_nb": lambda: BernoulliNB(binarize=0.5),
    "multinomial_nb": MultinomialNB,
    "poisson_nb": PoissonNB,
}


def class_scores(model, X):
    """(n, K) scores of a model, from its own decision_function."""
    S = model.decision_function(X)
    return np.column_stack([np.zeros_like(S), S]) if S.ndim == 1 else S


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("K", [2, 3, 4])
@pytest.mark.parametrize("name", list(LINEAR))
def test_hyperplanes_reproduce_the_models_scores(name, K):
    X, y = blobs(K, counts=name in ("multinomial_nb", "poisson_nb"))
    labels = np.array(["a", "b", "c", "d"])[y]
    model = LINEAR[name]().fit(X, labels)
    H = hyperplanes(model)
    m = K * (K - 1) // 2
    assert H.w.shape == (m, 3) and H.w0.shape == (m,) and len(H) == m
    S = class_scores(model, X)
    Xb = (X > 0.5).astype(float) if name == "bernoulli_nb" else X
    values = Xb @ H.w.T + H.w0
    k, j = np.triu_indices(K, 1)
    np.testing.assert_allclose(values, S[:, j] - S[:, k], rtol=1e-9, atol=1e-9 * np.abs(S).max())
    assert H.pairs == [("abcd"[a], "abcd"[b]) for a, b in zip(k, j)]
    r = signed_distance(model, X)
    assert r.shape == ((X.shape[0],) if K == 2 else (X.shape[0], m))
    np.testing.assert_allclose(r.reshape(len(X), -1), values / np.linalg.norm(H.w, axis=1), rtol=1e-12)


def test_two_class_hyperplane_is_coef_and_sign_follows_prediction():
    X, y = blobs(2)
    model = LogisticRegression().fit(X, y)
    H = hyperplanes(model)
    np.testing.assert_array_equal(H.w, model.coef_)
    np.testing.assert_array_equal(H.w0, model.intercept_)
    assert H.pairs == [(0, 1)]
    r = signed_distance(model, X)
    np.testing.assert_array_equal(r > 0, model.predict(X) == 1)  # positive on the side of classes_[1]
    assert "1 hyperplane in 3 dimensions" in str(H)


def projection_distance(w, w0, X):
    """Distance to {x : w^T x + w0 = 0} by projecting onto the plane: a point p0 on it (least-squares
    solution of w^T p = -w0), an orthonormal basis N of its directions (null space of w^T), and
    x_perp = p0 + N N^T (x - p0).  Sign: + on the side where w^T x + w0 > 0 (tested separately)."""
    p0 = np.linalg.lstsq(w[None, :], np.array([-w0]), rcond=None)[0]
    N = null_space(w[None, :])
    X_perp = p0 + (X - p0) @ N @ N.T
    np.testing.assert_allclose(X_perp @ w + w0, 0.0, atol=1e-9 * (1 + np.abs(X @ w).max()))
    side = np.sign((X - X_perp) @ w)
    return side * np.linalg.norm(X - X_perp, axis=1)


@pytest.mark.parametrize("model", [LogisticRegression(), LinearDiscriminantAnalysis(),
                                   GaussianDiscriminantAnalysis("tied_diag")], ids=["lr", "lda", "tdiag"])
@pytest.mark.parametrize("K", [2, 3])
def test_signed_distance_is_the_geometric_distance(model, K):
    X, y = blobs(K)
    model.fit(X, y)
    points = np.vstack([X[::7], 10 * np.random.default_rng(3).normal(size=(5, 3))])
    r = signed_distance(model, points).reshape(len(points), -1)
    H = hyperplanes(model)
    for m in range(len(H)):
        np.testing.assert_allclose(r[:, m], projection_distance(H.w[m], H.w0[m], points),
                                   rtol=1e-10, atol=1e-10)
    # the sign: positive exactly where the pair's second class has the larger score
    S = class_scores(model, points)
    k, j = np.triu_indices(K, 1)
    np.testing.assert_array_equal(r > 0, S[:, j] > S[:, k])


def test_wrappers_hyperplanes():
    X, y = blobs(3)
    labels = np.array(["x", "y", "z"])[y]
    ovr = OneVsRestClassifier(LogisticRegression()).fit(X, labels)
    H = hyperplanes(ovr)
    assert H.pairs == [(None, "x"), (None, "y"), (None, "z")]
    np.testing.assert_array_equal(H.w, np.vstack([e.coef_ for e in ovr.estimators_]))
    r = signed_distance(ovr, X)
    np.testing.assert_allclose(r, ovr.decision_function(X) / np.linalg.norm(H.w, axis=1), rtol=1e-12)
    assert "rest | 'x'" in str(H)

    ovo = OneVsOneClassifier(LinearDiscriminantAnalysis()).fit(X, labels)
    H = hyperplanes(ovo)
    assert H.pairs == [("x", "y"), ("x", "z"), ("y", "z")]
    for m, est in enumerate(ovo.estimators_):
        np.testing.assert_allclose(signed_distance(ovo, X)[:, m],
                                   est.decision_function(X) / np.linalg.norm(est.coef_), rtol=1e-12)

    kcd = KClassDiscriminant(LogisticRegression()).fit(X, labels)
    lr = LogisticRegression().fit(X, labels)
    np.testing.assert_allclose(hyperplanes(kcd).w, hyperplanes(lr).w)
    assert hyperplanes(kcd).pairs == [("x", "y"), ("x", "z"), ("y", "z")]

    # two classes: one hyperplane, labelled by the two classes
    two = OneVsRestClassifier(LogisticRegression()).fit(X[y < 2], labels[y < 2])
    assert hyperplanes(two).pairs == [("x", "y")]
    assert signed_distance(two, X).shape == (len(X),)


@pytest.mark.parametrize("model", [
    QuadraticDiscriminantAnalysis(reg_param=0.01),
    GaussianNB(),
    GaussianDiscriminantAnalysis("full"),
    GaussianDiscriminantAnalysis("diag"),
    GaussianDiscriminantAnalysis("spherical"),
    KernelFisherDiscriminantAnalysis(),
    Perceptron(basis="poly", random_state=0, max_epochs=5, pocket=True),
    OneVsRestClassifier(GaussianNB()),
], ids=lambda m: type(m).__name__ + getattr(m, "covariance_type", ""))
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_non_linear_models_are_refused(model):
    X, y = blobs(3)
    model.fit(X, y)
    with pytest.raises(TypeError, match="not a hyperplane"):
        hyperplanes(model)
    with pytest.raises(TypeError, match="not a hyperplane"):
        signed_distance(model, X)


def test_stale_coefficients_are_not_trusted():
    """A GDA refitted with per-class covariances is quadratic whatever attributes it kept."""
    X, y = blobs(2)
    model = GaussianDiscriminantAnalysis("tied").fit(X, y)
    model.set_params(covariance_type="full").fit(X, y)
    with pytest.raises(TypeError, match="quadric"):
        hyperplanes(model)


def test_unfitted_and_wrong_inputs():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        hyperplanes(LogisticRegression())
    X, y = blobs(2)
    model = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        signed_distance(model, X[:, :2])


def scaled(model, c):
    other = copy.deepcopy(model)
    other.coef_ = c * model.coef_
    other.intercept_ = c * model.intercept_
    return other


@pytest.fixture(scope="module")
def fitted_pair():
    X2, y2 = blobs(2)
    X3, y3 = blobs(3)
    return LogisticRegression().fit(X2, y2), LogisticRegression().fit(X3, y3)


@settings(max_examples=60, deadline=None)
@given(c=st.floats(1e-3, 1e3), seed=st.integers(0, 2**16), three=st.booleans())
def test_signed_distance_is_invariant_to_rescaling(fitted_pair, c, seed, three):
    """y(x) scales with (w, w0) -> (c w, c w0); y(x)/||w|| does not (c > 0)."""
    model = fitted_pair[1 if three else 0]
    X = 5 * np.random.default_rng(seed).normal(size=(20, 3))
    other = scaled(model, c)
    np.testing.assert_allclose(signed_distance(other, X), signed_distance(model, X), rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_allclose(other.decision_function(X), c * model.decision_function(X), rtol=1e-10)
    # a negative factor flips the side
    np.testing.assert_allclose(signed_distance(scaled(model, -c), X), -signed_distance(model, X),
                               rtol=1e-10, atol=1e-12)


def test_degenerate_hyperplane():
    X, y = blobs(2)
    model = LogisticRegression().fit(X, y)
    flat = copy.deepcopy(model)
    flat.coef_ = np.zeros_like(model.coef_)
    flat.intercept_ = np.array([2.0])
    assert np.all(signed_distance(flat, X) == np.inf)
    flat.intercept_ = np.array([0.0])
    assert np.all(signed_distance(flat, X) == 0.0)


# ----------------------------------------------------------------------------- generative -> logistic


def closed_form_logistic(means, sigma, phi):
    """The two-class Gaussian model's theta and theta0 evaluated literally with np.linalg.solve."""
    mu0, mu1 = means
    S = np.diag(sigma) if sigma.ndim == 1 else sigma
    theta = np.linalg.solve(S, mu1 - mu0)
    theta0 = (-0.5 * mu1 @ np.linalg.solve(S, mu1) + 0.5 * mu0 @ np.linalg.solve(S, mu0)
              + np.log(phi / (1 - phi)))
    return theta, theta0


@pytest.mark.parametrize("model", [  # (covariance_ of the 'svd' solver: with store_covariance=True)
    LinearDiscriminantAnalysis(store_covariance=True),
    LinearDiscriminantAnalysis(priors=[0.3, 0.7], store_covariance=True),
    LinearDiscriminantAnalysis(shrinkage=0.3, store_covariance=True),
    LinearDiscriminantAnalysis(unbiased=True, store_covariance=True),
    GaussianDiscriminantAnalysis("tied"),
    GaussianDiscriminantAnalysis("tied_diag"),
    GaussianDiscriminantAnalysis("tied", reg_param=0.1),
], ids=["lda", "priors", "shrinkage", "unbiased", "gda_tied", "gda_tied_diag", "reg"])
def test_generative_to_logistic(model):
    X, y = blobs(2, n=60)
    X = X + [10.0, -5.0, 3.0]  # off the origin: theta0 is not just the prior term
    y = np.where(np.arange(y.size) % 5 == 0, 1 - y, y)  # overlapping classes, unequal counts
    y[:7] = 1
    model.fit(X, y)
    theta, theta0 = generative_to_logistic(model)
    np.testing.assert_allclose(theta, model.coef_[0], rtol=1e-12, atol=1e-14)
    assert theta0 == pytest.approx(model.intercept_[0], rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(expit(X @ theta + theta0), model.predict_proba(X)[:, 1], rtol=0, atol=1e-12)
    ref_theta, ref_theta0 = closed_form_logistic(model.means_, model.covariance_, model.priors_[1])
    np.testing.assert_allclose(theta, ref_theta, rtol=1e-9)
    assert theta0 == pytest.approx(ref_theta0, rel=1e-9)


def test_generative_to_logistic_with_singular_covariance():
    X, y = blobs(2)
    X = np.column_stack([X, X[:, 0] + X[:, 1]])  # a collinear feature
    with pytest.warns(SingularCovarianceWarning):
        model = LinearDiscriminantAnalysis().fit(X, y)
    theta, theta0 = generative_to_logistic(model)
    np.testing.assert_allclose(theta, model.coef_[0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(expit(X @ theta + theta0), model.predict_proba(X)[:, 1], atol=1e-12)


@pytest.mark.parametrize("model, error, match", [
    (LogisticRegression(), TypeError, "shared covariance"),
    (QuadraticDiscriminantAnalysis(), TypeError, "QuadraticDiscriminantAnalysis"),
    (GaussianDiscriminantAnalysis("full"), TypeError, "covariance_type='full'"),
    (FisherDiscriminantAnalysis(), TypeError, "shared covariance"),
], ids=["logistic", "qda", "gda_full", "fisher"])
def test_generative_to_logistic_refuses_other_models(model, error, match):
    X, y = blobs(2)
    model.fit(X, y)
    with pytest.raises(error, match=match):
        generative_to_logistic(model)


def test_generative_to_logistic_refuses_k_classes_and_unfitted():
    from sklearn.exceptions import NotFittedError

    X, y = blobs(3)
    with pytest.raises(ValueError, match="two-class"):
        generative_to_logistic(LinearDiscriminantAnalysis().fit(X, y))
    with pytest.raises(NotFittedError):
        generative_to_logistic(LinearDiscriminantAnalysis())


def test_hyperplanes_record_is_frozen():
    X, y = blobs(2)
    H = hyperplanes(LogisticRegression().fit(X, y))
    assert isinstance(H, Hyperplanes)
    with pytest.raises(AttributeError):
        H.w = None


def test_subclasses_are_read_as_their_registered_class():
    """The registry entry of the nearest registered base class decides (a wrapper stays a wrapper,
    a kernel model stays a kernel model), and a Gaussian model's own record decides its structure."""
    X, y = blobs(3)

    class Wrapper(OneVsRestClassifier):
        pass

    class Kernel(KernelFisherDiscriminantAnalysis):
        pass

    class Tied(GaussianDiscriminantAnalysis):
        pass

    wrapped = Wrapper(LogisticRegression()).fit(X, y)
    assert hyperplanes(wrapped).pairs == [(None, 0), (None, 1), (None, 2)]
    with pytest.raises(TypeError, match="kernel's feature space"):
        hyperplanes(Kernel().fit(X, y))
    tied = Tied("tied").fit(X, y)
    plain = GaussianDiscriminantAnalysis("tied").fit(X, y)
    np.testing.assert_allclose(hyperplanes(tied).w, hyperplanes(plain).w)
    with pytest.raises(TypeError, match="quadric"):
        hyperplanes(Tied("spherical").fit(X, y))
