"""LogisticRegression as a drop-in for scikit-learn 1.9's.

Every documented parameter value (L2, L1, elastic net and no penalty) is built with the same arguments in both libraries and the probabilities
compared at 1e-6, with both solved tightly (``tol=1e-10``: scikit-learn's defaults stop at its own
``tol=1e-4``).  liblinear's penalised intercept is reproduced; every scikit-learn solver name reaches
the same optimum.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import linear_model as sklm
from sklearn.datasets import load_breast_cancer, load_iris, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

import linclass

SOLVERS = ("lbfgs", "newton-cg", "newton-cholesky", "sag", "saga", "liblinear")


def iris():
    return load_iris(return_X_y=True)


def three_classes():
    """Overlapping classes: the unpenalised softmax estimate exists (iris's setosa separates)."""
    return make_classification(300, n_features=5, n_informative=3, n_redundant=0, n_classes=3,
                               flip_y=0.1, random_state=0)


def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X)[:, :10], y


def tight(**params):
    return {"tol": 1e-10, "max_iter": 10_000, **params}


def fit_both(params, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's FutureWarning on `penalty`, slow sag / saga
        ours = linclass.LogisticRegression(**{"tol": 1e-10, "max_iter": 1000, **params}).fit(X, y)
        ref = sklm.LogisticRegression(**tight(**params)).fit(X, y)
    return ours, ref


def assert_same(ours, ref, X, atol=1e-6):
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=0, atol=atol)
    sure = ref.predict_proba(X) > 1e-8  # log-probabilities where they are not dominated by rounding
    np.testing.assert_allclose(ours.predict_log_proba(X)[sure], ref.predict_log_proba(X)[sure],
                               rtol=1e-4, atol=atol)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    # (scikit-learn's liblinear without intercept stores intercept_ = 0.0, a float)
    assert ours.coef_.shape == ref.coef_.shape and ours.intercept_.shape == np.shape(ref.intercept_) or (
        np.ndim(ref.intercept_) == 0 and ours.intercept_.shape == (1,))
    assert ours.decision_function(X).shape == ref.decision_function(X).shape
    np.testing.assert_array_equal(ours.classes_, ref.classes_)


CASES = [
    {},
    {"C": 0.05},
    {"C": 20.0},
    {"C": np.inf},
    {"penalty": None},
    {"penalty": "l2"},
    {"penalty": "l2", "C": 0.3},
    {"l1_ratio": 0.0},
    {"fit_intercept": False},
    {"class_weight": "balanced"},
    {"class_weight": {0: 2.0, 1: 0.5}},
    {"warm_start": True},
    {"random_state": 3},
    {"n_jobs": 2},
    {"verbose": 0},
    {"dual": False},
    *[{"solver": s} for s in SOLVERS],
    {"solver": "liblinear", "intercept_scaling": 10.0},
    {"solver": "liblinear", "intercept_scaling": 0.1, "C": 0.5},
    {"solver": "liblinear", "dual": True},
    {"solver": "liblinear", "fit_intercept": False},
    {"solver": "liblinear", "class_weight": "balanced"},
]


@pytest.mark.parametrize("params", CASES, ids=repr)
def test_binary_matches_sklearn_for_every_parameter(params):
    X, y = cancer()
    ours, ref = fit_both(params, X, y)
    assert_same(ours, ref, X)
    assert ours.n_iter_.shape == ref.n_iter_.shape == (1,)


@pytest.mark.parametrize("params", [p for p in CASES if p.get("solver") != "liblinear"], ids=repr)
def test_softmax_matches_sklearn_for_every_parameter(params):
    X, y = three_classes()
    if "class_weight" in params and isinstance(params["class_weight"], dict):
        params = {**params, "class_weight": {0: 2.0, 1: 0.5, 2: 1.0}}
    ours, ref = fit_both(params, X, y)
    assert_same(ours, ref, X)


def test_every_sklearn_solver_name_maps_to_the_documented_linclass_solver():
    X, y = cancer()
    expected = {"lbfgs": "lbfgs", "newton-cg": "newton", "newton-cholesky": "newton",
                "sag": "newton", "saga": "newton", "liblinear": "newton"}  # 'auto' picks newton here
    for name, solver in expected.items():
        assert linclass.LogisticRegression(solver=name).fit(X, y).solver_ == solver


def test_liblinear_penalises_the_intercept_like_liblinear():
    X, y = cancer()
    X = X + 3.0  # an intercept far from zero: its penalty matters
    penalised = linclass.LogisticRegression(solver="liblinear", C=0.1, tol=1e-10).fit(X, y)
    usual = linclass.LogisticRegression(solver="newton", C=0.1, tol=1e-10).fit(X, y)
    ref = sklm.LogisticRegression(solver="liblinear", C=0.1, tol=1e-10, max_iter=10_000).fit(X, y)
    np.testing.assert_allclose(penalised.intercept_, ref.intercept_, rtol=1e-5)
    assert abs(usual.intercept_[0] - ref.intercept_[0]) > 1e-2
    summary = penalised.summary()  # the intercept is reported first, with its scaled variance
    assert summary.names[0] == "const"
    np.testing.assert_allclose(summary.coef[0, 0], penalised.intercept_[0])


def test_liblinear_and_dual_refusals_say_why():
    X, y = iris()
    with pytest.raises(ValueError, match="two classes only"):
        linclass.LogisticRegression(solver="liblinear").fit(X, y)
    with pytest.raises(ValueError, match="dual=True"):
        linclass.LogisticRegression(dual=True).fit(X, y)
    with pytest.raises(ValueError, match="dual=True"):
        linclass.LogisticRegression(solver="liblinear", dual=True, penalty=None).fit(X[y < 2], y[y < 2])


@pytest.mark.parametrize("params", [{"penalty": "l1"}, {"penalty": "elasticnet", "l1_ratio": 0.5},
                                    {"l1_ratio": 1.0}, {"l1_ratio": 0.3}, {"solver": "saga", "l1_ratio": 1},
                                    {"penalty": "l1", "C": 0.05, "solver": "saga"}])
@pytest.mark.parametrize("data", [cancer, three_classes])
def test_l1_and_elastic_net_agree_with_saga(params, data):
    X, y = data()
    ours, ref = fit_both({"solver": "saga", **params}, X, y)
    assert ours.solver_ == "cd"
    assert_same(ours, ref, X)
    np.testing.assert_array_equal(ours.coef_ != 0, ref.coef_ != 0)


def test_liblinear_with_the_elastic_net_or_no_penalty_is_refused_as_sklearn_refuses_it():
    X, y = cancer()
    for params in ({"penalty": "elasticnet", "l1_ratio": 0.5}, {"l1_ratio": 0.5}, {"C": np.inf},
                   {"penalty": None}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            with pytest.raises(ValueError, match="liblinear"):
                sklm.LogisticRegression(solver="liblinear", **params).fit(X, y)
        with pytest.raises(ValueError, match="solver='liblinear' takes the penalty 'l2'"):
            linclass.LogisticRegression(solver="liblinear", **params).fit(X, y)


def liblinear_l1_objective(coef, intercept, X, y, C, scaling, weight=None):
    """liblinear's L1 objective: the lasso on the coefficients and on the constant feature's
    weight (intercept / scaling), plus C times the summed log-loss."""
    z = X @ np.ravel(coef) + intercept
    w = np.ones(len(y)) if weight is None else weight
    return (np.abs(coef).sum() + abs(intercept) / scaling
            + C * w @ np.logaddexp(0.0, -np.where(y == 1, 1.0, -1.0) * z))


@pytest.mark.parametrize("params", [
    {"C": 1.0}, {"C": 0.1}, {"C": 10.0}, {"C": 0.05, "intercept_scaling": 10.0},
    {"C": 0.5, "intercept_scaling": 0.1}, {"C": 1.0, "fit_intercept": False},
    {"C": 0.3, "class_weight": "balanced"}, {"C": 0.3, "weights": True}, {"C": 0.3, "sparse": True},
], ids=repr)
def test_liblinear_l1_reaches_liblinears_optimum(params):
    """The lasso on liblinear's augmented design, penalised intercept included: scikit-learn's
    probabilities to its tolerance, the same support, and an objective no higher than its."""
    params = dict(params)
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    if params.pop("sparse", False):
        X = sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X))
    weight = np.random.default_rng(0).uniform(0.5, 2.0, len(y)) if params.pop("weights", False) \
        else None
    kw = {"l1_ratio": 1.0, "solver": "liblinear", "tol": 1e-10, **params}
    ours = linclass.LogisticRegression(**kw).fit(X, y, sample_weight=weight)
    ref = sklm.LogisticRegression(**kw, max_iter=100_000).fit(X, y, sample_weight=weight)
    assert ours.solver_ == "cd"
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=0, atol=1e-6)
    np.testing.assert_array_equal(ours.coef_ != 0, ref.coef_ != 0)
    if kw.get("class_weight") == "balanced":  # liblinear's C per row: C x its class weight
        counts = np.bincount(y)
        weight = (len(y) / (2 * counts))[y]
    s, C = kw.get("intercept_scaling", 1.0), kw["C"]
    mine = liblinear_l1_objective(ours.coef_, ours.intercept_[0], X, y, C, s, weight)
    theirs = liblinear_l1_objective(ref.coef_, np.ravel(ref.intercept_)[0] if
                                    kw.get("fit_intercept", True) else 0.0, X, y, C, s, weight)
    assert mine <= theirs + 1e-9 * abs(theirs)


def test_liblinear_l1_one_versus_rest_on_iris_is_sklearns():
    """scikit-learn 1.9 refuses liblinear on three classes and says to wrap it in
    OneVsRestClassifier: so does linclass, and the wrapped fits agree."""
    from sklearn.multiclass import OneVsRestClassifier

    X, y = iris()
    X = StandardScaler().fit_transform(X)
    kw = {"l1_ratio": 1.0, "solver": "liblinear", "C": 0.3, "tol": 1e-10}
    with pytest.raises(ValueError, match="liblinear"):
        sklm.LogisticRegression(**kw).fit(X, y)
    with pytest.raises(ValueError, match="OneVsRestClassifier"):
        linclass.LogisticRegression(**kw).fit(X, y)
    ref = OneVsRestClassifier(sklm.LogisticRegression(**kw, max_iter=100_000)).fit(X, y)
    ours = linclass.OneVsRestClassifier(linclass.LogisticRegression(**kw)).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)


def test_liblinear_l1_warm_start_and_summary():
    X, y = cancer()
    model = linclass.LogisticRegression(l1_ratio=1.0, solver="liblinear", C=0.3, warm_start=True)
    first = model.fit(X, y).coef_.copy()
    # from the previous optimum, intercept included: at most one more iteration (a fit that stopped
    # on two agreeing KKT points may be refined once to certify the gap), then none
    second = model.fit(X, y).coef_.copy()
    assert model.n_iter_[0] <= 1
    np.testing.assert_allclose(second, first, rtol=0, atol=1e-5)
    assert model.fit(X, y).n_iter_[0] == 0
    np.testing.assert_array_equal(model.coef_, second)
    assert model.summary().selected[0][0][0] == "const"


def test_penalty_none_ignores_C_with_a_warning():
    X, y = cancer()
    with pytest.warns(UserWarning, match="C=0.5 is ignored"):
        model = linclass.LogisticRegression(penalty=None, C=0.5).fit(X, y)
    plain = linclass.LogisticRegression(C=np.inf).fit(X, y)
    np.testing.assert_array_equal(model.coef_, plain.coef_)


def test_sklearn_default_penalty_spelling_is_accepted():
    X, y = iris()
    a = linclass.LogisticRegression(penalty="deprecated").fit(X, y)
    b = linclass.LogisticRegression().fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)


def test_max_iter_zero_returns_the_starting_point():
    X, y = iris()
    with pytest.warns(ConvergenceWarning):
        model = linclass.LogisticRegression(max_iter=0).fit(X, y)
    assert model.n_iter_.tolist() == [0]
    np.testing.assert_array_equal(model.coef_, 0.0)
    # the intercept-only fit: the class frequencies
    np.testing.assert_allclose(model.predict_proba(X[:1]), [[1 / 3, 1 / 3, 1 / 3]], atol=1e-12)
    warm = linclass.LogisticRegression(warm_start=True).fit(X, y)
    coef = warm.coef_.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warm.set_params(max_iter=0).fit(X, y)
    np.testing.assert_allclose(warm.coef_, coef, atol=1e-12)


def test_sparsify_densify():
    X, y = iris()
    model = linclass.LogisticRegression().fit(X, y)
    dense = model.predict_proba(X)
    assert model.sparsify() is model and sp.issparse(model.coef_)
    np.testing.assert_allclose(model.predict_proba(X), dense, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(model.decision_function(X), model.densify().decision_function(X))
    assert isinstance(model.coef_, np.ndarray)
    model.sparsify()
    str(model.summary())  # summary reads sparse coefficients too


def test_verbose_prints_the_iterations(capsys):
    X, y = iris()
    linclass.LogisticRegression(verbose=1).fit(X, y)
    out = capsys.readouterr().out
    assert "iteration 0: objective" in out and "iteration 1: objective" in out
    linclass.LogisticRegression().fit(X, y)
    assert capsys.readouterr().out == ""


def test_signature_holds_every_sklearn_parameter():
    ours = set(linclass.LogisticRegression().get_params())
    ref = set(sklm.LogisticRegression().get_params())
    assert ref <= ours, ref - ours
    for method in ("fit", "predict", "predict_proba", "predict_log_proba", "decision_function", "score",
                   "sparsify", "densify"):
        assert callable(getattr(linclass.LogisticRegression(), method))


def test_liblinear_objective_on_sparse_x_is_the_dense_one():
    X, y = cancer()
    Xs = sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X))
    dense = linclass.LogisticRegression(solver="liblinear", intercept_scaling=3.0, tol=1e-10).fit(
        Xs.toarray(), y)
    sparse = linclass.LogisticRegression(solver="liblinear", intercept_scaling=3.0, tol=1e-10).fit(Xs, y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, atol=1e-8)
    np.testing.assert_allclose(sparse.intercept_, dense.intercept_, atol=1e-8)


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("params", [{"C": np.inf}, {"penalty": None}, {"C": np.inf, "fit_intercept": False}],
                         ids=repr)
def test_newton_cholesky_on_collinear_columns_warns_sklearns_linalg_warning(params, k):
    """scikit-learn's newton-cholesky meets a singular Hessian on collinear columns, warns a
    LinAlgWarning and falls back to L-BFGS; linclass sets the aliased column aside as R's glm does
    (a unique estimate) with a warning of the same class, and the probabilities are the same
    optimum's."""
    from scipy.linalg import LinAlgWarning

    X, y = cancer() if k == 2 else three_classes()
    X = np.hstack([X[:, :5], X[:, :1] - 2.0 * X[:, 1:2]])
    kw = {"solver": "newton-cholesky", **params}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with pytest.warns(LinAlgWarning, match="singular"):
            ref = sklm.LogisticRegression(**kw, tol=1e-12, max_iter=10_000).fit(X, y)
    with pytest.warns(LinAlgWarning, match="linear combination") as record:
        ours = linclass.LogisticRegression(**kw, tol=1e-10).fit(X, y)
    assert all(issubclass(w.category, linclass.SingularCovarianceWarning) for w in record
               if issubclass(w.category, LinAlgWarning))
    assert ours.aliased_.tolist() == [False] * 5 + [True] and np.all(ours.coef_[:, -1] == 0)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)
