"""LinearDiscriminantAnalysis and QuadraticDiscriminantAnalysis as drop-ins for scikit-learn's.

Every documented scikit-learn 1.9 parameter value is built with the same arguments in both libraries
and the probabilities compared (1e-8 absolute; the data are well conditioned), as are the fitted
attributes scikit-learn documents.  Documented differences are asserted as such: the solvers give one
model (scikit-learn's 'lsqr' / 'eigen' pool covariances with the given priors), covariance estimators
and shrinkage are accepted with every solver.  QDA raises where scikit-learn's does (a class
covariance of less than full rank, a class of one row).  The
projections (``transform``, ``scalings_``) are scikit-learn's, signs included, where the models are
the same.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn import discriminant_analysis as skda
from sklearn.covariance import OAS, EmpiricalCovariance, LedoitWolf, MinCovDet, ShrunkCovariance
from sklearn.datasets import load_iris, load_wine

import linclass
from linclass import SingularCovarianceWarning


def data(name):
    X, y = {"iris": load_iris, "wine": load_wine}[name](return_X_y=True)
    return X, y


def two_class():
    X, y = load_wine(return_X_y=True)
    return X[y < 2], y[y < 2]


def shared_removed(scores):
    """Multi-class scores less their row mean: scikit-learn's solvers themselves differ by a term
    shared by all classes ('svd' projects coef_ on the discriminant subspace, 'lsqr' does not)."""
    return scores if scores.ndim == 1 else scores - scores.mean(axis=1, keepdims=True)


def assert_same_proba(ours, ref, X, atol=1e-8):
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=0, atol=atol)
    np.testing.assert_allclose(ours.predict_log_proba(X), ref.predict_log_proba(X), rtol=1e-6,
                               atol=atol)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    a, b = shared_removed(ours.decision_function(X)), shared_removed(ref.decision_function(X))
    np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7 * np.abs(b).max())


LDA_CASES = [
    {},
    {"solver": "svd"},
    {"solver": "svd", "store_covariance": True},
    {"solver": "svd", "tol": 1e-6},
    {"solver": "svd", "n_components": 1},
    {"solver": "lsqr"},
    {"solver": "lsqr", "shrinkage": "auto"},
    {"solver": "lsqr", "shrinkage": 0.0},
    {"solver": "lsqr", "shrinkage": 0.35},
    {"solver": "lsqr", "shrinkage": 1.0},
    {"solver": "lsqr", "covariance_estimator": OAS()},
    {"solver": "lsqr", "covariance_estimator": LedoitWolf()},
    {"solver": "lsqr", "covariance_estimator": ShrunkCovariance(shrinkage=0.2)},
    {"solver": "lsqr", "covariance_estimator": EmpiricalCovariance()},
    {"solver": "eigen"},
    {"solver": "eigen", "shrinkage": "auto"},
    {"solver": "eigen", "shrinkage": 0.5},
    {"solver": "eigen", "covariance_estimator": OAS()},
    {"solver": "eigen", "n_components": 2},
    {"priors": [0.2, 0.3, 0.5]},
]


@pytest.mark.parametrize("name", ["iris", "wine"])
@pytest.mark.parametrize("params", LDA_CASES, ids=repr)
def test_lda_matches_sklearn_for_every_parameter(name, params):
    X, y = data(name)
    ours = linclass.LinearDiscriminantAnalysis(**params).fit(X, y)
    ref = skda.LinearDiscriminantAnalysis(**params).fit(X, y)
    assert_same_proba(ours, ref, X)
    np.testing.assert_allclose(ours.means_, ref.means_, rtol=1e-12)
    np.testing.assert_allclose(ours.priors_, ref.priors_, rtol=1e-12)
    assert ours.coef_.shape == ref.coef_.shape and ours.intercept_.shape == ref.intercept_.shape
    a, b = ours.coef_ - ours.coef_.mean(axis=0), ref.coef_ - ref.coef_.mean(axis=0)
    np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8 * np.abs(b).max())
    if params.get("solver") in ("lsqr", "eigen"):  # these give Sigma^-1 mu_k itself, as linclass
        np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-6, atol=1e-8 * np.abs(ref.coef_).max())
    if hasattr(ref, "covariance_"):
        np.testing.assert_allclose(ours.covariance_, ref.covariance_, rtol=1e-9,
                                   atol=1e-12 * np.abs(ref.covariance_).max())
    # scikit-learn's 'eigen' takes S_B as the shrunk total minus the shrunk within covariance, which
    # is not the between-class covariance once shrinkage is applied; linclass uses S_B itself
    plain_eigen = not (params.get("shrinkage") or params.get("covariance_estimator"))
    if hasattr(ref, "explained_variance_ratio_") and plain_eigen:
        np.testing.assert_allclose(ours.explained_variance_ratio_, ref.explained_variance_ratio_,
                                   rtol=1e-8, atol=1e-12)
    solver = params.get("solver", "svd")
    if solver == "svd":
        np.testing.assert_allclose(ours.xbar_, ref.xbar_, rtol=1e-12)
    if solver == "svd" or (solver == "eigen" and plain_eigen):
        # the projection is scikit-learn's, signs included (more data sets: tests/test_lda_axes.py)
        a, b = ours.transform(X), ref.transform(X)
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-8 * np.abs(b).max())
        assert ours.scalings_.shape == ref.scalings_.shape


def test_lda_binary_shapes_match_sklearn():
    X, y = two_class()
    for solver in ("svd", "lsqr", "eigen"):
        ours = linclass.LinearDiscriminantAnalysis(solver=solver).fit(X, y)
        ref = skda.LinearDiscriminantAnalysis(solver=solver).fit(X, y)
        assert ours.coef_.shape == ref.coef_.shape == (1, X.shape[1])
        assert ours.intercept_.shape == ref.intercept_.shape == (1,)
        assert ours.decision_function(X).shape == (X.shape[0],)
        assert_same_proba(ours, ref, X)


def test_lda_positional_signature_is_sklearn_s():
    # scikit-learn's parameters are positional in its order: solver, shrinkage, priors, n_components,
    # store_covariance, tol, covariance_estimator
    X, y = data("iris")
    ours = linclass.LinearDiscriminantAnalysis("lsqr", 0.3, None, None, True, 1e-4, None).fit(X, y)
    ref = skda.LinearDiscriminantAnalysis("lsqr", 0.3, None, None, True, 1e-4, None).fit(X, y)
    assert_same_proba(ours, ref, X)
    ours_names = list(linclass.LinearDiscriminantAnalysis().get_params())
    ref_names = list(skda.LinearDiscriminantAnalysis().get_params())
    assert set(ref_names) <= set(ours_names)


def test_lda_solvers_reach_one_model():
    X, y = data("wine")
    probas = [linclass.LinearDiscriminantAnalysis(solver=s).fit(X, y).predict_proba(X)
              for s in ("svd", "lsqr", "eigen")]
    np.testing.assert_array_equal(probas[0], probas[1])
    np.testing.assert_array_equal(probas[0], probas[2])


def test_lda_given_priors_pool_with_class_shares():
    """Documented difference: with given priors, scikit-learn's 'lsqr' / 'eigen' weight the class
    covariances by the priors (its 'svd' does not); linclass pools with n_k / n for every solver,
    the maximum-likelihood estimate, so it matches scikit-learn's 'svd'."""
    X, y = data("iris")
    priors = [0.6, 0.3, 0.1]
    ours = linclass.LinearDiscriminantAnalysis(solver="lsqr", priors=priors).fit(X, y)
    svd = skda.LinearDiscriminantAnalysis(solver="svd", priors=priors).fit(X, y)
    lsqr = skda.LinearDiscriminantAnalysis(solver="lsqr", priors=priors).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), svd.predict_proba(X), atol=1e-10)
    assert np.abs(ours.predict_proba(X) - lsqr.predict_proba(X)).max() > 1e-3


def test_lda_priors_not_summing_to_one_are_renormalised_with_a_warning():
    X, y = data("iris")
    with pytest.warns(UserWarning, match="sum to 3"):
        ours = linclass.LinearDiscriminantAnalysis(priors=[1, 1, 1]).fit(X, y)
    with pytest.warns(UserWarning):
        ref = skda.LinearDiscriminantAnalysis(priors=[1, 1, 1]).fit(X, y)
    np.testing.assert_allclose(ours.priors_, ref.priors_)
    assert_same_proba(ours, ref, X)


def test_lda_shrinkage_and_estimator_work_with_svd_and_stream_where_they_can():
    X, y = data("iris")
    # scikit-learn refuses shrinkage with solver='svd'; linclass's solvers are one model
    a = linclass.LinearDiscriminantAnalysis(solver="svd", shrinkage="auto").fit(X, y)
    b = skda.LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto").fit(X, y)
    assert_same_proba(a, b, X)
    np.testing.assert_allclose(a.shrinkage_, a.shrinkage_)  # per class intensities
    assert a.shrinkage_.shape == (3,)
    # these estimates do not stream: partial_fit is not offered, chunked fits are refused
    assert not hasattr(linclass.LinearDiscriminantAnalysis(shrinkage="auto"), "partial_fit")
    assert not hasattr(linclass.QuadraticDiscriminantAnalysis(covariance_estimator=OAS()), "partial_fit")
    assert hasattr(linclass.LinearDiscriminantAnalysis(shrinkage="ledoit-wolf"), "partial_fit")
    da = pytest.importorskip("dask.array")
    with pytest.raises(ValueError, match="needs all training rows at once"):
        linclass.LinearDiscriminantAnalysis(shrinkage="auto").fit(da.from_array(X, chunks=(50, 4)),
                                                                  da.from_array(y, chunks=50))
    with pytest.raises(ValueError, match="only one of the two"):
        linclass.LinearDiscriminantAnalysis(shrinkage=0.1, covariance_estimator=OAS()).fit(X, y)


def test_covariance_estimator_gets_a_clone_and_is_left_unfitted():
    X, y = data("iris")
    estimator = MinCovDet(random_state=0)
    ours = linclass.LinearDiscriminantAnalysis(solver="lsqr", covariance_estimator=estimator).fit(X, y)
    assert not hasattr(estimator, "covariance_")
    ref = skda.LinearDiscriminantAnalysis(solver="lsqr", covariance_estimator=MinCovDet(random_state=0))
    ref.fit(X, y)
    assert_same_proba(ours, ref, X, atol=1e-8)


def test_covariance_estimator_refuses_unequal_weights_and_bad_objects():
    X, y = data("iris")
    w = np.ones(len(y))
    ours = linclass.LinearDiscriminantAnalysis(covariance_estimator=OAS()).fit(X, y, sample_weight=w)
    ref = linclass.LinearDiscriminantAnalysis(covariance_estimator=OAS()).fit(X, y)
    np.testing.assert_array_equal(ours.predict_proba(X), ref.predict_proba(X))
    w[0] = 2.0
    with pytest.raises(ValueError, match="takes no sample weights"):
        linclass.LinearDiscriminantAnalysis(covariance_estimator=OAS()).fit(X, y, sample_weight=w)

    class NoCovariance:
        def fit(self, X, y=None):
            return self

        def get_params(self, deep=True):
            return {}

    with pytest.raises(ValueError, match="no covariance_ attribute"):
        linclass.LinearDiscriminantAnalysis(covariance_estimator=NoCovariance()).fit(X, y)


def test_shrinkage_auto_with_weights_equals_repeated_rows():
    X, y = data("wine")
    w = np.random.default_rng(0).integers(1, 4, size=len(y))
    weighted = linclass.LinearDiscriminantAnalysis(shrinkage="auto").fit(X, y, sample_weight=w)
    repeated = linclass.LinearDiscriminantAnalysis(shrinkage="auto").fit(np.repeat(X, w, axis=0),
                                                                         np.repeat(y, w))
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), atol=1e-10)
    np.testing.assert_allclose(weighted.shrinkage_, repeated.shrinkage_, rtol=1e-9)


QDA_CASES = [
    {},
    {"solver": "svd"},
    {"solver": "svd", "store_covariance": True},
    {"solver": "svd", "reg_param": 0.05},
    {"solver": "svd", "reg_param": 1.0},
    {"solver": "svd", "tol": 1e-6},
    {"solver": "eigen"},
    {"solver": "eigen", "shrinkage": "auto"},
    {"solver": "eigen", "shrinkage": 0.0},
    {"solver": "eigen", "shrinkage": 0.4},
    {"solver": "eigen", "covariance_estimator": OAS()},
    {"solver": "eigen", "covariance_estimator": LedoitWolf()},
    {"priors": [0.5, 0.25, 0.25]},
]


@pytest.mark.parametrize("name", ["iris", "wine"])
@pytest.mark.parametrize("params", QDA_CASES, ids=repr)
def test_qda_matches_sklearn_for_every_parameter(name, params):
    X, y = data(name)
    ours = linclass.QuadraticDiscriminantAnalysis(**params).fit(X, y)
    ref = skda.QuadraticDiscriminantAnalysis(**params).fit(X, y)
    assert_same_proba(ours, ref, X)
    np.testing.assert_allclose(ours.means_, ref.means_, rtol=1e-12)
    np.testing.assert_allclose(ours.priors_, ref.priors_, rtol=1e-12)
    assert len(ours.rotations_) == len(ref.rotations_) == len(ours.classes_)
    for k in range(len(ours.classes_)):
        np.testing.assert_allclose(ours.scalings_[k], ref.scalings_[k], rtol=1e-7,
                                   atol=1e-10 * ref.scalings_[k].max())
        if params.get("reg_param") == 1.0:  # Sigma_k = I: every basis is a set of principal axes
            continue
        # axes agree up to sign (distinct eigenvalues here)
        U, V = ours.rotations_[k], ref.rotations_[k]
        np.testing.assert_allclose(np.abs(np.sum(U * V, axis=0)), 1.0, atol=1e-6)
    if params.get("store_covariance"):
        np.testing.assert_allclose(ours.covariance_, np.array(ref.covariance_), rtol=1e-9,
                                   atol=1e-12 * np.abs(ours.covariance_).max())


@pytest.mark.parametrize("solver", ["svd", "eigen"])
@pytest.mark.parametrize("case", ["few rows", "collinear", "one row"])
def test_qda_rank_deficiency_raises_as_sklearn_does(solver, case):
    """A class covariance of less than full rank is scikit-learn's LinAlgError (the message names
    reg_param and shrinkage); a class of one row its ValueError; regularised, both fit.
    GaussianDiscriminantAnalysis(covariance_type='full') floors the eigenvalues instead."""
    X, y = data("wine")
    if case == "few rows":
        keep = np.concatenate([np.flatnonzero(y == 0)[:8], np.flatnonzero(y > 0)])
    elif case == "one row":
        keep = np.concatenate([np.flatnonzero(y == 0)[:1], np.flatnonzero(y > 0)])
    else:
        keep = np.arange(len(y))
        X = np.column_stack([X, X[:, 0] - 2 * X[:, 1]])
    X, y = X[keep], y[keep]
    error = ValueError if case == "one row" else np.linalg.LinAlgError
    with pytest.raises(error) as theirs:
        skda.QuadraticDiscriminantAnalysis(solver=solver).fit(X, y)
    with pytest.raises(type(theirs.value), match="1 sample in class 0" if case == "one row" else
                       r"class\(es\) \[0\] is not full rank.*reg_param.*shrinkage"):
        linclass.QuadraticDiscriminantAnalysis(solver=solver).fit(X, y)
    if case == "one row":
        return
    regularised = {"reg_param": 0.1} if solver == "svd" else {"shrinkage": 0.3}
    ours = linclass.QuadraticDiscriminantAnalysis(solver=solver, **regularised).fit(X, y)
    if solver == "svd" and case == "few rows":
        # scikit-learn's 'svd' keeps only n_k singular values of a class, so it refuses fewer rows
        # than features whatever reg_param is; linclass's (1 - r) Sigma_k + r I is of full rank
        with pytest.raises(np.linalg.LinAlgError, match="Try using `solver='eigen'`"):
            skda.QuadraticDiscriminantAnalysis(solver=solver, **regularised).fit(X, y)
        assert np.all(np.isfinite(ours.predict_proba(X)))
    else:
        ref = skda.QuadraticDiscriminantAnalysis(solver=solver, **regularised).fit(X, y)
        assert_same_proba(ours, ref, X, atol=1e-6)
    with pytest.warns(SingularCovarianceWarning):
        model = linclass.GaussianDiscriminantAnalysis(covariance_type="full").fit(X, y)
    assert np.all(np.isfinite(model.predict_proba(X)))


def test_tol_is_the_rank_threshold_on_sklearn_scale():
    # a feature that is an exact copy of another plus noise at 1e-3 of its spread: its direction has
    # standardized singular value ~1e-3 / sqrt(2); kept at tol=1e-4, dropped at tol=1e-2
    rng = np.random.default_rng(1)
    X, y = data("iris")
    X = np.column_stack([X, X[:, 0] + 1e-3 * X[:, 0].std() * rng.normal(size=len(y))])
    with warnings.catch_warnings():
        warnings.simplefilter("error", SingularCovarianceWarning)
        linclass.LinearDiscriminantAnalysis(tol=1e-4).fit(X, y)
    with pytest.warns(SingularCovarianceWarning, match="rank 4 of 5"):
        linclass.LinearDiscriminantAnalysis(tol=1e-2).fit(X, y)


def test_sklearn_parameter_validation_messages_name_the_parameter():
    X, y = data("iris")
    with pytest.raises(ValueError, match="solver"):
        linclass.LinearDiscriminantAnalysis(solver="cholesky").fit(X, y)
    with pytest.raises(ValueError, match="solver"):
        linclass.QuadraticDiscriminantAnalysis(solver="lsqr").fit(X, y)
    with pytest.raises(ValueError, match="covariance_estimator"):
        linclass.QuadraticDiscriminantAnalysis(covariance_estimator="oas").fit(X, y)
