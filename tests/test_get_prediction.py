"""LogisticRegression.get_prediction: probabilities and log-odds with standard errors and intervals,
against statsmodels' GLM(Binomial).get_prediction(exog).summary_frame(alpha) and R's
predict(glm, newdata, se.fit = TRUE) (tests/data/r/predict_se.R)."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import statsmodels.api as sm
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.exceptions import NotFittedError

from linclass import LogisticRegression

DATA = Path(__file__).parent / "data" / "r"
TOL = 1e-7


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, :3]
    model = LogisticRegression(penalty=None, tol=1e-12).fit(X, y)
    reference = sm.GLM(y, sm.add_constant(X), family=sm.families.Binomial()).fit(tol=1e-12)
    return X, y, model, reference


@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_matches_statsmodels_glm(cancer, alpha):
    X, _, model, reference = cancer
    Xnew = X[::7]
    ours = model.get_prediction(Xnew).summary_frame(alpha)
    theirs = reference.get_prediction(sm.add_constant(Xnew)).summary_frame(alpha)
    for column in ["mean", "mean_se", "mean_ci_lower", "mean_ci_upper"]:
        np.testing.assert_allclose(ours[column].to_numpy(), theirs[column].to_numpy(), rtol=TOL,
                                   atol=1e-12, err_msg=column)
    linear = reference.get_prediction(sm.add_constant(Xnew), which="linear").summary_frame(alpha)
    ours_linear = model.get_prediction(Xnew).summary_frame(alpha, which="linear")
    assert list(ours_linear.columns) == list(linear.columns)
    np.testing.assert_allclose(ours_linear.to_numpy(), linear.to_numpy(), rtol=TOL, atol=1e-10)
    both = model.get_prediction(Xnew).summary_frame(alpha)
    np.testing.assert_allclose(both[["linpred", "linpred_se", "linpred_ci_lower",
                                     "linpred_ci_upper"]].to_numpy(), linear.to_numpy(),
                               rtol=TOL, atol=1e-10)


def test_sparse_and_dataframe_rows(cancer):
    X, _, model, _ = cancer
    dense = model.get_prediction(X[:20])
    sparse = model.get_prediction(sp.csr_matrix(X[:20]))
    np.testing.assert_allclose(sparse.se_linpred, dense.se_linpred, rtol=1e-12)
    np.testing.assert_allclose(dense.predicted, model.predict_proba(X[:20])[:, 1], rtol=1e-12)
    frame = pd.DataFrame(X[:5], index=list("abcde"))
    assert list(model.get_prediction(frame).summary_frame().index) == list("abcde")


def test_robust_covariance_matches_statsmodels(cancer):
    X, y, model, _ = cancer
    reference = sm.GLM(y, sm.add_constant(X), family=sm.families.Binomial()).fit(
        tol=1e-12, cov_type="HC0")
    ours = model.get_prediction(X[:30], cov_type="HC0", X_train=X, y_train=y).summary_frame()
    theirs = reference.get_prediction(sm.add_constant(X[:30])).summary_frame()
    np.testing.assert_allclose(ours["mean_se"].to_numpy(), theirs["mean_se"].to_numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="rows the model was fitted on"):
        model.get_prediction(X[:3], cov_type="HC0")


def test_l2_fit_uses_the_summary_covariance(cancer):
    X, y, _, _ = cancer
    model = LogisticRegression(C=0.01, tol=1e-12).fit(X, y)
    V = model.summary().cov_params().to_numpy()
    Z = np.column_stack([np.ones(10), X[:10]])
    se = np.sqrt(np.einsum("ij,jk,ik->i", Z, V, Z))
    np.testing.assert_allclose(model.get_prediction(X[:10]).se_linpred, se, rtol=1e-10)


@pytest.fixture(scope="module")
def birthwt():
    return pd.read_csv(DATA / "predict_se.csv")


def test_matches_r_predict_se_fit(birthwt):
    X, y = birthwt[["age", "lwt", "smoke"]], birthwt["low"]
    result = LogisticRegression(penalty=None, tol=1e-12).fit(X, y).get_prediction(X)
    np.testing.assert_allclose(result.linpred, birthwt["fit"], rtol=TOL)
    np.testing.assert_allclose(result.se_linpred, birthwt["se_fit"], rtol=TOL)
    np.testing.assert_allclose(result.predicted, birthwt["prob"], rtol=TOL)
    np.testing.assert_allclose(result.se_mean, birthwt["se_prob"], rtol=TOL)


def test_firth_matches_brglm2(birthwt):
    X, y = birthwt[["age", "lwt", "smoke"]], birthwt["low"]
    result = LogisticRegression(penalty="firth", tol=1e-12).fit(X, y).get_prediction(X)
    np.testing.assert_allclose(result.linpred, birthwt["firth_fit"], rtol=TOL)
    np.testing.assert_allclose(result.se_linpred, birthwt["firth_se_fit"], rtol=TOL)


def test_bad_inputs(cancer):
    X, y, model, _ = cancer
    with pytest.raises(ValueError, match="features"):
        model.get_prediction(X[:, :2])
    with pytest.raises(NotFittedError):
        LogisticRegression().get_prediction(X)
    l1 = LogisticRegression(penalty="l1", C=0.1).fit(X, y)
    with pytest.raises(ValueError, match="covariance matrix.*L1"):
        l1.get_prediction(X)
    Xi, yi = load_iris(return_X_y=True)
    softmax = LogisticRegression(max_iter=200).fit(Xi, yi)
    with pytest.raises(ValueError, match="two classes"):
        softmax.get_prediction(Xi)
    result = model.get_prediction(X[:3])
    with pytest.raises(ValueError, match="alpha"):
        result.summary_frame(alpha=1.5)
    with pytest.raises(ValueError, match="which"):
        result.conf_int(which="probability")


def test_without_intercept_matches_statsmodels(cancer):
    X, y, _, _ = cancer
    Xc = X - X.mean(axis=0)
    model = LogisticRegression(penalty=None, fit_intercept=False, tol=1e-12).fit(Xc, y)
    reference = sm.GLM(y, Xc, family=sm.families.Binomial()).fit(tol=1e-12)
    ours = model.get_prediction(Xc[:40]).summary_frame(0.05, which="mean")
    theirs = reference.get_prediction(Xc[:40]).summary_frame(0.05)
    np.testing.assert_allclose(ours.to_numpy(), theirs.to_numpy(), rtol=TOL, atol=1e-12)
