"""The covariance matrix in public and Wald tests of linear hypotheses (``summary().cov_params()``,
``summary().wald_test(R, q)`` or a text hypothesis), against statsmodels' ``Logit`` / ``MNLogit``
``cov_params()`` and ``wald_test(..., use_f=False)`` on real data."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_wine

import linclass
from linclass.linear.inference.hypotheses import constraints

sm = pytest.importorskip("statsmodels.api")


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    X = X[["mean radius", "mean texture", "mean smoothness"]]
    model = linclass.LogisticRegression(penalty=None, tol=1e-12).fit(X, y)
    ref = sm.Logit(y, sm.add_constant(X)).fit(disp=0, method="newton", tol=1e-14, maxiter=100)
    return model, ref


def test_cov_params_is_statsmodels(cancer):
    model, ref = cancer
    ours = model.summary().cov_params()
    assert list(ours.index) == ["const", "mean radius", "mean texture", "mean smoothness"]
    np.testing.assert_allclose(ours.to_numpy(), ref.cov_params().to_numpy(), rtol=1e-7)
    np.testing.assert_allclose(np.sqrt(np.diag(ours)), model.summary().bse, rtol=1e-12)


@pytest.mark.parametrize("hypothesis, R", [
    ("mean radius = 0, mean texture = 0", [[0, 1, 0, 0], [0, 0, 1, 0]]),
    ("mean radius - 2*mean texture = 0.5", [[0, 1, -2, 0]]),
    ("const + 100 * mean smoothness = 30", [[1, 0, 0, 100]]),
])
def test_wald_test_is_statsmodels(cancer, hypothesis, R):
    model, ref = cancer
    R = np.array(R, dtype=float)
    q = np.array({"mean radius = 0, mean texture = 0": [0.0, 0.0],
                  "mean radius - 2*mean texture = 0.5": [0.5],
                  "const + 100 * mean smoothness = 30": [30.0]}[hypothesis])
    expected = ref.wald_test((R, q), use_f=False, scalar=True)
    for test in (model.summary().wald_test(hypothesis), model.summary().wald_test(R, q)):
        assert test.statistic == pytest.approx(float(expected.statistic), rel=1e-7)
        assert test.pvalue == pytest.approx(float(expected.pvalue), rel=1e-6, abs=1e-300)
        assert test.df_num == R.shape[0]


def test_robust_covariance_is_the_one_tested(cancer):
    model, _ = cancer
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    X = X[["mean radius", "mean texture", "mean smoothness"]]
    robust = model.summary(cov_type="HC0", X=X, y=y)
    ref = sm.Logit(y, sm.add_constant(X)).fit(disp=0, method="newton", tol=1e-14, cov_type="HC0")
    np.testing.assert_allclose(robust.cov_params().to_numpy(), ref.cov_params().to_numpy(), rtol=1e-7)
    expected = ref.wald_test((np.array([[0, 1, 0, 0], [0, 0, 1, 0.0]]), np.zeros(2)),
                             use_f=False, scalar=True)
    got = robust.wald_test("mean radius = 0, mean texture = 0")
    assert got.statistic == pytest.approx(float(expected.statistic), rel=1e-7)


def test_multinomial_cov_params_is_mnlogits():
    X, y = load_wine(return_X_y=True)
    X = X[:, [0, 9]]  # alcohol and colour intensity: not separated
    model = linclass.LogisticRegression(penalty=None, tol=1e-12).fit(X, y)
    ref = sm.MNLogit(y, sm.add_constant(X)).fit(disp=0, method="newton", tol=1e-14, maxiter=100)
    ours = model.summary().cov_params()
    assert ours.shape == (6, 6) and ours.index.names == ["equation", "parameter"]
    # statsmodels orders MNLogit's parameters equation-major too: (const, x1, x2) per equation
    np.testing.assert_allclose(ours.to_numpy(), np.asarray(ref.cov_params()), rtol=1e-6)
    R = np.zeros((2, 6))
    R[0, 1], R[1, 4] = 1.0, 1.0  # alcohol in both equations
    expected = ref.wald_test(R, use_f=False, scalar=True)
    got = model.summary().wald_test(R)
    assert got.statistic == pytest.approx(float(expected.statistic), rel=1e-6)
    with pytest.raises(ValueError, match="give R as an array"):
        model.summary().wald_test("x0 = 0")


@pytest.mark.parametrize("text, match", [
    ("", "non-empty"),
    ("radius = 0", "Cannot read 'radius'"),
    ("0 = 1", "names no parameter"),
    ("a = b = 0", "one equation"),
    ("a b = 0", "joined by"),
    ("a = 0, a = 0", "not independent"),
])
def test_bad_hypotheses_are_refused_by_name(text, match):
    from linclass.linear.inference.hypotheses import wald_test

    with pytest.raises(ValueError, match=match):
        R, q = constraints(text, ["a", "b"])
        wald_test(np.ones(2), np.eye(2), R, q)


def test_constraints_read_names_with_spaces_and_numbers():
    R, q = constraints("mean radius - 2.5e-1*mean area = -1, 3 = mean area", ["mean radius", "mean area"])
    np.testing.assert_allclose(R, [[1, -0.25], [0, -1]])
    np.testing.assert_allclose(q, [-1, -3])


def test_a_penalised_selection_has_no_covariance():
    X, y = load_breast_cancer(return_X_y=True)
    model = linclass.LogisticRegression(penalty="l1", C=0.1).fit(X / X.std(axis=0), y)
    with pytest.raises(ValueError, match="no covariance"):
        model.summary().cov_params()
    with pytest.raises(ValueError, match="No Wald tests"):
        model.summary().wald_test([[1.0]])
    assert isinstance(model.summary().to_frame(), pd.DataFrame)


def test_deviances_are_glms():
    """Residual and null deviance with their degrees of freedom, as R's summary.glm and statsmodels'
    GLM (binomial) report them."""
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    X = X[["mean radius", "mean texture", "mean smoothness"]]
    table = linclass.LogisticRegression(penalty=None, tol=1e-12).fit(X, y).summary()
    ref = sm.GLM(y, sm.add_constant(X), family=sm.families.Binomial()).fit(tol=1e-14)
    assert table.deviance == pytest.approx(ref.deviance, rel=1e-9)
    assert table.null_deviance == pytest.approx(ref.null_deviance, rel=1e-9)
    assert table.df_resid == ref.df_resid and table.df_null == y.size - 1


@pytest.mark.parametrize("reference", [1, 2])
def test_reference_class_is_mnlogits_with_that_class_first(reference):
    """summary(reference=r) reports each class against r: statsmodels' MNLogit with r coded first
    gives the same contrasts, standard errors and covariance."""
    X, y = load_wine(return_X_y=True)
    X = X[:, [0, 9]]
    model = linclass.LogisticRegression(penalty=None, tol=1e-12).fit(X, y)
    table = model.summary(reference=reference)
    recoded = np.select([y == reference, y < reference], [0, y + 1], y)  # r first, order kept
    ref = sm.MNLogit(recoded, sm.add_constant(X)).fit(disp=0, method="newton", tol=1e-14,
                                                     maxiter=100)
    np.testing.assert_allclose(np.asarray(table.params), np.asarray(ref.params), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(table.bse), np.asarray(ref.bse), rtol=1e-6)
    np.testing.assert_allclose(table.cov_params().to_numpy(), np.asarray(ref.cov_params()),
                               rtol=1e-6)
    assert table.title.endswith(f"reference y={reference}")
    assert table.llf == pytest.approx(model.summary().llf)
    with pytest.raises(ValueError, match="not a class"):
        model.summary(reference=7)
