"""Perceptron as a drop-in for scikit-learn 1.9's.

For two classes and a fixed visiting order (``shuffle=False``) from a random start
(``coef_init`` / ``intercept_init``, so that no activation is exactly 0, where Bishop's step
function and scikit-learn's rule differ), linclass's rule is scikit-learn's: every documented
parameter value (the L1 and elastic-net penalties' truncated rule included) gives the same weights
to rounding, and the same ``n_iter_`` and ``t_``.  Shuffled orders come from different random
generators, and K > 2 classes use the multi-class perceptron (scikit-learn: one-vs-rest), the
documented differences; there both must separate separable data.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import linear_model as sklm
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning

import linclass


def noisy(n_classes=2, seed=0, n=300, d=6):
    return make_classification(n, n_features=d, n_informative=4, n_redundant=0, n_classes=n_classes,
                               flip_y=0.05, random_state=seed)


def separable(n_classes=3, seed=0, n=300, d=4):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    centres = 8.0 * rng.normal(size=(n_classes, d))
    return centres[y] + rng.uniform(-1, 1, size=(n, d)), y


START = np.random.default_rng(1)
COEF0, INTERCEPT0 = START.normal(size=(1, 6)), START.normal(size=1)

CASES = [
    {},
    {"max_iter": 3},
    {"tol": 1e-3},
    {"tol": 1e-3, "n_iter_no_change": 2},
    {"tol": 0.5, "n_iter_no_change": 1},
    {"penalty": "l2"},
    {"penalty": "l2", "alpha": 0.01},
    {"penalty": "l2", "alpha": 0.001, "eta0": 0.5, "tol": 1e-4},
    {"penalty": "l2", "alpha": 2.0},  # 1 - eta0 * alpha < 0: scikit-learn zeroes the weights
    {"penalty": "l1"},
    {"penalty": "l1", "alpha": 0.01},
    {"penalty": "l1", "alpha": 0.003, "tol": 1e-3},
    {"penalty": "l1", "alpha": 0.05, "fit_intercept": False},
    {"penalty": "elasticnet"},
    {"penalty": "elasticnet", "alpha": 0.01, "l1_ratio": 0.5},
    {"penalty": "elasticnet", "alpha": 0.003, "l1_ratio": 0.9, "eta0": 0.3, "tol": 1e-4},
    {"penalty": "elasticnet", "alpha": 1.5, "l1_ratio": 0.3},
    {"eta0": 0.1},
    {"fit_intercept": False},
    {"class_weight": {0: 3.0, 1: 0.5}},
    {"class_weight": "balanced"},
    {"verbose": 0, "n_jobs": 2, "random_state": 5},
    {"l1_ratio": 0.5},  # used only with penalty='elasticnet'
    {"tol": 1e-3, "zero_weights": True},  # zero-weight rows: their loss counts for tol
    {"penalty": "l2", "zero_weights": True},  # ... and their visits shrink the weights
    {"penalty": "l1", "tol": 1e-3, "zero_weights": True},
]


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("params", CASES, ids=repr)
def test_binary_fixed_order_matches_sklearn_for_every_parameter(params, sparse):
    X, y = noisy()
    params = dict(params)
    # scikit-learn's 'balanced' counts rows, linclass's sums sample_weight (equal without weights)
    w = None if params.get("class_weight") == "balanced" else (
        np.random.default_rng(2).integers(1, 3, size=len(y)).astype(float))
    if params.pop("zero_weights", False):
        w[::7] = 0.0
    settings = {"shuffle": False, "max_iter": 8, "tol": None, **params}
    Xs = sp.csr_matrix(X) if sparse else X
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours = linclass.Perceptron(**settings).fit(Xs, y, coef_init=COEF0, intercept_init=INTERCEPT0,
                                                   sample_weight=w)
        # on sparse X scikit-learn's SGD damps every intercept update by 0.01 (and truncates only
        # a pattern's stored features); linclass's rule is the same for dense and sparse X, so the
        # reference is scikit-learn's fit on the dense X (which writes its result into coef_init:
        # it gets copies)
        ref = sklm.Perceptron(**settings).fit(X, y, coef_init=COEF0.copy(),
                                              intercept_init=INTERCEPT0.copy(), sample_weight=w)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-10, atol=1e-10)
    assert ours.n_iter_ == ref.n_iter_
    assert ours.t_ == ref.t_
    np.testing.assert_array_equal(ours.predict(Xs), ref.predict(X))
    np.testing.assert_allclose(ours.decision_function(Xs), ref.decision_function(X), rtol=1e-9, atol=1e-9)


def test_partial_fit_stream_matches_sklearn():
    X, y = noisy(seed=3)
    ours = linclass.Perceptron(shuffle=False)
    ref = sklm.Perceptron(shuffle=False)
    for chunk in np.array_split(np.arange(len(y)), 5):
        ours.partial_fit(X[chunk], y[chunk], classes=[0, 1])
        ref.partial_fit(X[chunk], y[chunk], classes=[0, 1])
    # from zero weights the first activations are exactly 0: Bishop's f(0) = +1 and scikit-learn's
    # "update when y a <= 0" differ there, so the paths differ; both must learn the problem
    assert abs(ours.score(X, y) - ref.score(X, y)) < 0.1
    assert ours.t_ == ref.t_ and ours.n_iter_ == ref.n_iter_


@pytest.mark.parametrize("n_classes", [2, 3, 4])
@pytest.mark.parametrize("params", [{}, {"tol": 1e-3}, {"shuffle": True, "random_state": 3},
                                    {"early_stopping": True, "tol": 1e-3, "validation_fraction": 0.2}],
                         ids=repr)
def test_separable_data_are_separated_like_sklearn(n_classes, params):
    X, y = separable(n_classes)
    ours = linclass.Perceptron(**params).fit(X, y)
    ref = sklm.Perceptron(**params).fit(X, y)
    assert ours.score(X, y) == ref.score(X, y) == 1.0
    assert ours.coef_.shape == ref.coef_.shape and ours.intercept_.shape == ref.intercept_.shape


def test_default_tol_stops_and_none_trains_to_zero_errors():
    X, y = separable(2, n=200)
    X = X + np.random.default_rng(4).normal(scale=3.0, size=X.shape)  # overlapping now
    with pytest.warns(ConvergenceWarning):
        seed = linclass.Perceptron(max_iter=50, tol=None).fit(X, y)  # Rosenblatt's rule
    assert seed.n_iter_ == 50 and not seed.converged_
    early = linclass.Perceptron(max_iter=50).fit(X, y)  # tol=1e-3, scikit-learn's default
    assert early.n_iter_ < 50 and early.converged_
    ref = sklm.Perceptron(max_iter=50, shuffle=False).fit(X, y)
    ours = linclass.Perceptron(max_iter=50, shuffle=False).fit(X, y)
    assert ours.n_iter_ == ref.n_iter_ and ours.t_ == ref.t_


def test_early_stopping_holds_out_a_validation_split():
    X, y = noisy(seed=5, n=600)
    model = linclass.Perceptron(early_stopping=True, tol=1e-3, n_iter_no_change=3,
                                validation_fraction=0.25).fit(X, y)
    assert model.converged_ and model.n_iter_ < 1000
    assert model.t_ == model.n_iter_ * len(y) + 1
    with pytest.raises(ValueError, match="validation_fraction"):
        linclass.Perceptron(early_stopping=True, validation_fraction=0.001).fit(X[:20], y[:20])


@pytest.mark.parametrize("penalty", ["l1", "elasticnet"])
def test_l1_and_elastic_net_zero_weights_and_stream(penalty):
    """The truncated rule sets weights exactly to zero, as scikit-learn's; sparse X gives the dense
    X's weights (the penalty touches every weight at every visit, whatever X stores); partial_fit
    restarts the cumulative penalty at every call, as scikit-learn does."""
    X, y = noisy(d=20, seed=4)
    X[:, 10:] = np.random.default_rng(0).normal(size=(len(y), 10))  # noise features
    settings = {"penalty": penalty, "alpha": 0.01, "l1_ratio": 0.5, "random_state": 0, "max_iter": 30}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        dense = linclass.Perceptron(**settings).fit(X, y)
        sparse = linclass.Perceptron(**settings).fit(sp.csr_matrix(X), y)
        ref = sklm.Perceptron(**settings).fit(X, y)
    assert np.any(dense.coef_ == 0) and np.any(ref.coef_ == 0)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(sparse.coef_ == 0, dense.coef_ == 0)
    ours = linclass.Perceptron(penalty=penalty, alpha=0.01, shuffle=False)
    theirs = sklm.Perceptron(penalty=penalty, alpha=0.01, shuffle=False)
    start = {"coef_init": COEF0[:, :1].repeat(20, axis=1), "intercept_init": INTERCEPT0}
    ours.fit(X, y, **start)
    theirs.fit(X, y, coef_init=start["coef_init"].copy(), intercept_init=INTERCEPT0.copy())
    for chunk in np.array_split(np.arange(len(y)), 4):
        ours.partial_fit(X[chunk], y[chunk])
        theirs.partial_fit(X[chunk], y[chunk])
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=1e-10, atol=1e-10)


def test_class_weight_makes_the_weighted_class_win():
    """scikit-learn's check_class_weight_classifiers: a class weighted 1000 against 1e-4 must be
    predicted for most of a very noisy test set, for two and three classes (the multi-class rule
    weights the pull towards a pattern's class, as scikit-learn's one-vs-rest does)."""
    from sklearn.datasets import make_blobs
    from sklearn.model_selection import train_test_split
    from sklearn.utils.estimator_checks import check_class_weight_classifiers

    check_class_weight_classifiers("Perceptron", linclass.Perceptron(random_state=0))
    # the last weights of a perceptron that cannot converge move with the visiting order: over
    # orders, the weighted class wins as often as the check asks (one-vs-rest weighting; the
    # symmetric multi-class weighting, both updates times c_t, gave 0.86-1.0 here)
    for n_centers in (2, 3):
        X, y = make_blobs(centers=n_centers, random_state=0, cluster_std=20)
        X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.5, random_state=0)
        weights = {0: 1000, 1: 0.0001, 2: 0.0001} if n_centers == 3 else {0: 1000, 1: 0.0001}
        shares = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            for seed in range(6):
                model = linclass.Perceptron(class_weight=weights, max_iter=1000, n_iter_no_change=20,
                                            random_state=seed).fit(X_train, y_train)
                shares.append(np.mean(model.predict(X_test) == 0))
        assert np.mean(shares) > 0.9 and np.median(shares) > 0.95


def test_wide_sparse_input_is_never_densified_and_equals_dense():
    rng = np.random.default_rng(6)
    n, d = 300, 5000  # the dense copy (1.5M entries) is above the size that is densified
    X = sp.random(n, d, density=0.01, random_state=7, format="csr")
    y = (np.asarray(X[:, :50].sum(axis=1)).ravel() > 0.25).astype(int)
    for K, labels in ((2, y), (3, y + (rng.random(n) < 0.3))):
        dense = linclass.Perceptron(max_iter=15, random_state=0).fit(X.toarray(), labels)
        sparse = linclass.Perceptron(max_iter=15, random_state=0).fit(X, labels)
        np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(sparse.intercept_, dense.intercept_, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(sparse.predict(X), dense.predict(X.toarray()))


def test_warm_start_and_coef_init():
    X, y = noisy(seed=8)
    model = linclass.Perceptron(warm_start=True, max_iter=2, tol=None, shuffle=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
        first = model.coef_.copy()
        model.fit(X, y)  # continues from `first`
        again = linclass.Perceptron(max_iter=2, tol=None, shuffle=False).fit(
            X, y, coef_init=first, intercept_init=model.intercept_ * 0 + model.intercept_)
    assert not np.allclose(model.coef_, first)
    with pytest.raises(ValueError, match="coef_init must have shape"):
        linclass.Perceptron().fit(X, y, coef_init=np.zeros((2, 3)))
    del again


def test_sparsify_densify_verbose_and_legacy_max_epochs(capsys):
    X, y = separable(3)
    model = linclass.Perceptron(verbose=1).fit(X, y)
    assert "-- Epoch 1:" in capsys.readouterr().out
    dense = model.decision_function(X)
    model.sparsify()
    assert sp.issparse(model.coef_)
    np.testing.assert_allclose(model.decision_function(X), dense)
    model.partial_fit(X, y)  # continues from the sparse coefficients
    model.densify()
    assert isinstance(model.coef_, np.ndarray)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        legacy = linclass.Perceptron(max_epochs=3, max_iter=500).fit(*noisy())
    assert legacy.n_iter_ == 3


def test_signature_holds_every_sklearn_parameter_and_method():
    ours = linclass.Perceptron()
    ref = sklm.Perceptron()
    assert set(ref.get_params()) <= set(ours.get_params())
    for method in ("fit", "partial_fit", "predict", "decision_function", "score", "sparsify", "densify"):
        assert callable(getattr(ours, method)), method
