"""The perceptron (Bishop 2006 sec. 4.1.7): convergence, the block-wise rule against a per-sample loop,
the error-reduction property, bases, the pocket algorithm, scikit-learn, bad input."""

import warnings
from math import comb

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron as SkPerceptron
from sklearn.preprocessing import PolynomialFeatures

from linclass import Perceptron
from linclass.linear.perceptron import basis_functions
from linclass.linear.perceptron import rule

no_convergence_warning = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def reference_loop(X, y, n_classes, sample_weight=None, max_epochs=20, shuffle=True, seed=0):
    """Rosenblatt's algorithm, one pattern at a time, with phi = (1, x): the spec of the fast path."""
    rng = np.random.default_rng(seed)
    Phi = np.hstack([np.ones((X.shape[0], 1)), X])
    W = np.zeros((1 if n_classes == 2 else n_classes, Phi.shape[1]))
    mistakes = []
    for _ in range(max_epochs):
        made = 0
        for n in rng.permutation(len(y)) if shuffle else range(len(y)):
            s = 1.0 if sample_weight is None else sample_weight[n]
            if s == 0:
                continue
            phi = Phi[n]
            if n_classes == 2:
                t = 1.0 if y[n] == 1 else -1.0
                f = 1.0 if phi @ W[0] >= 0 else -1.0  # step function, f(0) = +1
                if f != t:
                    W[0] += s * (phi * t)  # eq. 6.9, eta = 1
                    made += 1
            else:
                p = int(np.argmax(W @ phi))
                if p != y[n]:
                    W[y[n]] += s * phi
                    W[p] -= s * phi
                    made += 1
        mistakes.append(made)
        if made == 0:
            break
    return W[:, 1:], W[:, 0], mistakes


def separable(n, d, n_classes, seed, margin=0.3):
    """Linearly separable data: labels from random hyperplanes, points near a boundary dropped."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    W = rng.standard_normal((1 if n_classes == 2 else n_classes, d))
    S = X @ W.T + 0.3 * rng.standard_normal(W.shape[0])
    if n_classes == 2:
        y, gap = (S[:, 0] >= 0).astype(int), np.abs(S[:, 0])
    else:
        top = np.sort(S, axis=1)
        y, gap = S.argmax(axis=1), top[:, -1] - top[:, -2]
    return X[gap > margin], y[gap > margin]


def noisy(n=400, d=3, n_classes=2, seed=0):
    """Overlapping classes: not linearly separable."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    return rng.standard_normal((n, d)) + 0.8 * y[:, None], y


# --------------------------------------------------------------------------- convergence


@pytest.mark.parametrize("n_classes", [2, 3])
def test_converges_on_separable_data(n_classes):
    X, y = separable(500, 4, n_classes, seed=n_classes)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = Perceptron(random_state=0, tol=None).fit(X, y)  # until an epoch without mistakes
    assert model.converged_
    assert np.array_equal(model.predict(X), y)
    assert model.errors_[-1] == 0 and np.all(model.errors_[:-1] > 0)
    assert model.n_epochs_ == model.n_iter_ == model.errors_.size
    rows = 1 if n_classes == 2 else n_classes
    assert model.coef_.shape == (rows, 4) and model.intercept_.shape == (rows,)
    scores = model.decision_function(X)
    if n_classes == 2:
        assert scores.shape == (len(y),)
        assert np.array_equal(model.predict(X), model.classes_[(scores >= 0).astype(int)])
    else:
        assert scores.shape == (len(y), 3)
        assert np.array_equal(model.predict(X), model.classes_[scores.argmax(axis=1)])


def test_no_predict_proba():
    # Bishop 2006 sec. 4.1.7: the perceptron gives no probabilistic outputs
    model = Perceptron().fit(*separable(50, 2, 2, seed=1))
    assert not hasattr(model, "predict_proba") and not hasattr(model, "predict_log_proba")


# --------------------------------------------------------------------------- fast path == per-sample loop


CASES = [  # (n, d, n_classes, shuffle, weighted, integer data)
    (300, 3, 2, False, False, True),
    (1500, 4, 2, True, False, True),
    (1200, 6, 2, True, True, True),
    (900, 2, 3, False, True, True),
    (1500, 5, 4, True, False, True),
    (1000, 3, 3, True, True, True),
    (800, 5, 2, True, True, False),
    (700, 4, 3, True, False, False),
    (12_000, 60, 2, True, False, False),  # more rows than the largest block
]


@no_convergence_warning
@pytest.mark.parametrize("n, d, n_classes, shuffle, weighted, integer", CASES)
def test_fast_path_equals_reference_loop(n, d, n_classes, shuffle, weighted, integer):
    rng = np.random.default_rng(n + d)
    X = rng.integers(-3, 4, (n, d)).astype(float) if integer else rng.standard_normal((n, d))
    y = rng.integers(0, n_classes, n)  # random labels: many updates every epoch, ties included
    sw = rng.choice([0.0, 0.5, 1.0, 2.0], n) if weighted else None
    epochs = 3 if n > 5000 else 12
    coef, intercept, mistakes = reference_loop(X, y, n_classes, sw, epochs, shuffle, seed=7)
    model = Perceptron(max_epochs=epochs, shuffle=shuffle, random_state=7, tol=None).fit(
        X, y, sample_weight=sw)
    assert model.errors_.tolist() == mistakes and model.n_epochs_ == len(mistakes)
    if integer:  # every sum is exact: the same update sequence gives the same bits
        assert np.array_equal(model.coef_, coef) and np.array_equal(model.intercept_, intercept)
    else:
        np.testing.assert_allclose(model.coef_, coef, rtol=1e-12, atol=1e-9)
        np.testing.assert_allclose(model.intercept_, intercept, rtol=1e-12, atol=1e-9)


def test_fast_path_equals_reference_loop_until_convergence():
    X, y = separable(600, 3, 2, seed=5, margin=0.05)
    coef, intercept, mistakes = reference_loop(X, y, 2, max_epochs=1000, seed=3)
    model = Perceptron(random_state=3, tol=None).fit(X, y)
    assert model.converged_ and mistakes[-1] == 0
    assert model.errors_.tolist() == mistakes
    np.testing.assert_allclose(model.coef_, coef, rtol=1e-12)


def test_single_update_reduces_the_patterns_error():
    # Bishop 2006 sec. 4.1.7: -w'^T phi t = -w^T phi t - ||phi t||^2 < -w^T phi t for the
    # misclassified pattern
    rng = np.random.default_rng(0)
    for n_classes, y in ((2, np.array([1])), (2, np.array([0]))):
        phi = rng.standard_normal((1, 5))
        P = rule.Patterns.build(phi, y, n_classes)
        W = -P.Z.copy()  # w^T z = -||z||^2 < 0: misclassified
        before = -(W[0] @ P.Z[0])
        made, criterion = rule.run_epoch(P, W)
        assert made == 1
        assert criterion == pytest.approx(before)  # the criterion measured at the visit
        after = -(W[0] @ P.Z[0])
        assert after < before
        np.testing.assert_allclose(before - after, 1.0 + phi @ phi.T)


def test_ties_follow_the_step_function_and_lowest_index():
    assert rule.predict_index(np.array([[0.0], [-1e-300]])).tolist() == [1, 0]  # f(0) = +1
    assert rule.predict_index(np.array([[1.0, 1.0, 0.0], [0.0, 2.0, 2.0]])).tolist() == [0, 1]
    # zero weights: the first pattern of class t = +1 is correct (no update), of t = -1 is not
    model = Perceptron(shuffle=False, max_epochs=1)
    assert model.partial_fit([[1.0], [2.0]], [1, 1], classes=[0, 1]).errors_.tolist() == [0]
    assert model.partial_fit([[1.0]], [0]).errors_.tolist() == [0, 1]


# --------------------------------------------------------------------------- bases


def test_xor_needs_a_basis():
    X = np.array([[0.0, 0], [1, 1], [0, 1], [1, 0]])
    y = np.array([0, 0, 1, 1])
    with pytest.warns(ConvergenceWarning, match="not be linearly separable") as record:
        linear = Perceptron(max_epochs=50, random_state=0, tol=None).fit(X, y)
    message = str(record[0].message)
    assert "pocket=True" in message and "basis='poly'" in message and "misclassify" in message
    assert not linear.converged_ and linear.score(X, y) < 1
    poly = Perceptron(basis="poly", degree=2, random_state=0, tol=None).fit(X, y)
    assert poly.converged_ and poly.score(X, y) == 1.0
    assert poly.coef_.shape == (1, 5)  # x1, x2, x1^2, x1 x2, x2^2


@pytest.mark.parametrize("d, degree", [(1, 3), (3, 1), (3, 2), (4, 3), (2, 5)])
def test_poly_features_are_all_monomials(d, degree):
    X = np.random.default_rng(d).uniform(0.5, 2.0, (7, d))
    powers = basis_functions.poly_powers(d, degree)
    assert powers.shape == (comb(d + degree, degree) - 1, d)
    assert len({tuple(p) for p in powers}) == len(powers)
    assert powers.sum(axis=1).min() == 1 and powers.sum(axis=1).max() == degree
    Phi = basis_functions.poly_features(X, degree)
    np.testing.assert_allclose(Phi, np.prod(X[:, None, :] ** powers[None], axis=2), rtol=1e-13)
    sk = PolynomialFeatures(degree, include_bias=False).fit(X)  # a reference only
    assert {tuple(p) for p in sk.powers_} == {tuple(p) for p in powers}


def test_callable_basis():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (300, 2))
    y = (np.sum(X**2, axis=1) < 0.5).astype(int)  # a disc: not linearly separable in x

    def radius(Z):
        return np.c_[Z, np.sum(Z**2, axis=1)]

    model = Perceptron(basis=radius, random_state=0, tol=None).fit(X, y)
    assert model.converged_ and model.score(X, y) == 1.0 and model.coef_.shape == (1, 3)
    same = Perceptron(basis=lambda Z: basis_functions.poly_features(Z, 2), random_state=1).fit(X, y)
    poly = Perceptron(basis="poly", random_state=1).fit(X, y)
    np.testing.assert_array_equal(same.coef_, poly.coef_)


def test_bad_basis_output_is_explained():
    X, y = separable(40, 2, 2, seed=0)

    def one_dimensional(Z):
        return Z[:, 0]

    def texts(Z):
        return np.full((len(Z), 2), "a")

    def holes(Z):
        out = Z.copy()
        out[3, 1] = np.nan
        return out

    with pytest.raises(ValueError, match=r"one_dimensional returned an array of shape \(\d+,\)"):
        Perceptron(basis=one_dimensional).fit(X, y)
    with pytest.raises(ValueError, match="texts returned values of dtype"):
        Perceptron(basis=texts).fit(X, y)
    with pytest.raises(ValueError, match="holes returned NaN or infinity.*row 3, column 1"):
        Perceptron(basis=holes).fit(X, y)
    with pytest.raises(ValueError, match="must return a 2-D array with one row per sample"):
        Perceptron(basis=lambda Z: Z[:-1]).fit(X, y)
    width = {"n": 2}
    model = Perceptron(basis=lambda Z: Z[:, : width["n"]]).fit(X, y)
    width["n"] = 1
    with pytest.raises(ValueError, match="returned 1 features, but it returned 2 when the model"):
        model.predict(X)


# --------------------------------------------------------------------------- pocket


@no_convergence_warning
@pytest.mark.parametrize("n_classes, weighted", [(2, False), (2, True), (3, False)])
def test_pocket_is_no_worse_than_the_last_iterate(n_classes, weighted):
    X, y = noisy(n_classes=n_classes, seed=n_classes)
    sw = np.random.default_rng(1).uniform(0, 2, len(y)) if weighted else None

    def error(model):
        return np.sum((model.predict(X) != y) * (1.0 if sw is None else sw))

    epochs = 12
    last = Perceptron(max_epochs=epochs, random_state=0).fit(X, y, sample_weight=sw)
    pocket = Perceptron(max_epochs=epochs, random_state=0, pocket=True).fit(X, y, sample_weight=sw)
    # same orders, same path: the last iterate is one of the pocket's candidates
    np.testing.assert_array_equal(last.errors_, pocket.errors_)
    assert error(pocket) <= error(last)
    # the pocket holds the best of the zero start and the weights after each epoch
    start = np.sum((y != (1 if n_classes == 2 else 0)) * (1.0 if sw is None else sw))
    path = [error(Perceptron(max_epochs=k, random_state=0).fit(X, y, sample_weight=sw)) for k in range(1, epochs)]
    assert error(pocket) == pytest.approx(min([start, *path, error(last)]))
    again = Perceptron(max_epochs=epochs, random_state=0, pocket=True).fit(X, y, sample_weight=sw)
    np.testing.assert_array_equal(again.coef_, pocket.coef_)


@no_convergence_warning
def test_pocket_warning_mentions_the_pocket_weights():
    X, y = noisy()
    with pytest.warns(ConvergenceWarning, match="pocket weights misclassify"):
        Perceptron(max_epochs=3, pocket=True, random_state=0, tol=None).fit(X, y)


def test_default_tol_is_sklearn_s_and_none_is_rosenblatt_s_rule():
    """tol=1e-3 (scikit-learn's default) stops when the objective stalls; tol=None trains until an
    epoch without mistakes, and warns when max_iter runs out first."""
    assert Perceptron().tol == SkPerceptron().tol == 1e-3
    X, y = separable(500, 4, 2, seed=2)
    rosenblatt = Perceptron(random_state=0, tol=None).fit(X, y)
    assert rosenblatt.converged_ and rosenblatt.errors_[-1] == 0
    assert np.all(rosenblatt.errors_[:-1] > 0)  # it stopped at the first clean epoch
    default = Perceptron(random_state=0).fit(X, y)
    # scikit-learn's rule runs on after the clean epoch until n_iter_no_change epochs stall
    assert default.converged_ and default.n_iter_ > rosenblatt.n_iter_
    np.testing.assert_array_equal(default.errors_[: rosenblatt.n_iter_], rosenblatt.errors_)
    np.testing.assert_array_equal(default.coef_, rosenblatt.coef_)
    X, y = noisy()
    with pytest.warns(ConvergenceWarning, match="misclassified some training patterns"):
        Perceptron(max_iter=5, tol=None, random_state=0).fit(X, y)
    with pytest.warns(ConvergenceWarning, match="tol=1e-09"):
        Perceptron(max_iter=5, tol=1e-9, random_state=0).fit(X, y)


# --------------------------------------------------------------------------- scikit-learn


@pytest.mark.parametrize("weighted", [False, True])
def test_same_updates_as_sklearn_perceptron(weighted):
    # scikit-learn updates when t a <= 0, Bishop's rule when f(a) != t: they differ only at a == 0 for
    # t = +1.  Zero weights give a = 0 for the first pattern, so it is put in class t = -1 (both
    # update); with continuous data no later activation is exactly 0.
    X, y = separable(400, 5, 2, seed=11, margin=0.05)
    first = np.flatnonzero(y == 0)[0]
    order = np.r_[first, np.delete(np.arange(len(y)), first)]
    X, y = X[order], y[order]
    sw = np.random.default_rng(0).uniform(0.5, 2.0, len(y)) if weighted else None
    ours = Perceptron(shuffle=False).fit(X, y, sample_weight=sw)
    theirs = SkPerceptron(
        eta0=1.0, alpha=0.0, penalty=None, tol=None, shuffle=False, max_iter=ours.n_epochs_
    ).fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-10)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=1e-10)


# --------------------------------------------------------------------------- the estimator


@no_convergence_warning
def test_fit_equals_repeated_partial_fit():
    X, y = noisy(seed=4)
    fitted = Perceptron(max_epochs=6, shuffle=False).fit(X, y)
    model = Perceptron(shuffle=False)
    for _ in range(6):
        model.partial_fit(X, y, classes=[0, 1])
    np.testing.assert_array_equal(model.coef_, fitted.coef_)
    np.testing.assert_array_equal(model.errors_, fitted.errors_)
    assert model.n_epochs_ == 6 and not model.converged_


def test_partial_fit_checks_its_classes():
    model = Perceptron().partial_fit([[0.0], [1.0]], ["a", "b"], classes=["a", "b", "c"])
    assert model.coef_.shape == (3, 1)
    with pytest.raises(ValueError, match=r"label\(s\) \['d'\] that are not in classes"):
        model.partial_fit([[2.0]], ["d"])
    with pytest.raises(ValueError, match="is not the same as on the first call"):
        model.partial_fit([[2.0]], ["a"], classes=["a", "b"])
    with pytest.raises(ValueError, match="classes must be passed on the first call"):
        Perceptron().partial_fit([[0.0], [1.0]], ["a", "b"])  # scikit-learn's rule
    with pytest.raises(ValueError, match="at least two class labels"):
        Perceptron().partial_fit([[0.0], [1.0]], ["a", "a"], classes=["a"])


def test_zero_weights_are_the_same_as_removed_rows():
    X, y = noisy(seed=2)
    sw = np.random.default_rng(0).integers(0, 2, len(y)).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        weighted = Perceptron(shuffle=False, max_epochs=20).fit(X, y, sample_weight=sw)
        removed = Perceptron(shuffle=False, max_epochs=20).fit(X[sw > 0], y[sw > 0])
    np.testing.assert_array_equal(weighted.coef_, removed.coef_)
    np.testing.assert_array_equal(weighted.errors_, removed.errors_)


@pytest.mark.parametrize("labels", [["no", "yes"], [False, True], [-3, 7]])
def test_labels_of_any_type(labels):
    X, y = separable(80, 2, 2, seed=3)
    named = np.asarray(labels)[y]
    model = Perceptron(random_state=0).fit(X, named)
    assert model.classes_.tolist() == labels
    assert np.array_equal(model.predict(X), named)
    reference = Perceptron(random_state=0).fit(X, y)  # classes_[1] is t = +1 whatever its name
    np.testing.assert_array_equal(model.coef_, reference.coef_)


@pytest.mark.parametrize("seed", [np.random.default_rng(5), np.random.RandomState(5)])
def test_random_state_kinds(seed):
    X, y = separable(100, 2, 2, seed=0)
    assert Perceptron(random_state=seed).fit(X, y).converged_


def test_bad_input_is_explained():
    X, y = separable(30, 3, 2, seed=0)
    X_nan = X.copy()
    X_nan[4, 2] = np.nan
    with pytest.raises(ValueError, match="NaN.*row 4, column 2"):
        Perceptron().fit(X_nan, y)
    model = Perceptron(basis="poly").fit(X, y)
    with pytest.raises(ValueError, match="NaN.*row 4, column 2"):
        model.predict(X_nan)
    with pytest.raises(ValueError, match="NaN.*row 4, column 2"):
        Perceptron().fit(X, y).decision_function(X_nan)
    with pytest.raises(ValueError, match="at least two classes"):
        Perceptron().fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="'degree' parameter"):
        Perceptron(basis="poly", degree=0).fit(X, y)
    with pytest.raises(ValueError, match="'basis' parameter"):
        Perceptron(basis="cubic").fit(X, y)
    with pytest.raises(ValueError, match="'max_epochs' parameter"):
        Perceptron(max_epochs=0).fit(X, y)
    with pytest.raises(ValueError, match="overflow float64"):
        Perceptron(basis="poly", degree=3).fit(X * 1e120, y)


# --------------------------------------------------------------------------- properties


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 60),
    d=st.integers(1, 4),
    n_classes=st.integers(2, 3),
)
def test_separable_data_are_always_learned(seed, n, d, n_classes):
    # the perceptron convergence theorem: with shuffle=False and enough epochs, every training
    # pattern ends up correctly classified
    X, y = separable(n, d, n_classes, seed, margin=0.5)
    assume(np.unique(y).size >= 2)
    model = Perceptron(shuffle=False, max_epochs=20_000).fit(X, y)
    assert model.converged_
    assert np.array_equal(model.predict(X), y)


@no_convergence_warning
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), random_state=st.integers(0, 2**31), pocket=st.booleans())
def test_same_random_state_same_model(seed, random_state, pocket):
    X, y = noisy(n=60, n_classes=3, seed=seed)
    a = Perceptron(random_state=random_state, max_epochs=5, pocket=pocket).fit(X, y)
    b = Perceptron(random_state=random_state, max_epochs=5, pocket=pocket).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.intercept_, b.intercept_)
    np.testing.assert_array_equal(a.errors_, b.errors_)
