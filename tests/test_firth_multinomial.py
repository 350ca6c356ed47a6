"""Firth's penalised likelihood for K > 2 classes (LogisticRegression(penalty='firth') on
multinomial y) against brglm2's brmultinom(type = "AS_mean") (tests/data/r/firth_multinomial.R and
its CSV files), and the K-class formulas against the binary Firth module on two classes."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import approx_fprime

import linclass as lc
from linclass import SeparationWarning
from linclass.linear.fitting.fit import FitOptions, LogisticProblem, fit_logistic
from linclass.linear.firth.objective import FirthObjective
from linclass.linear.firth.inference import Firth
from linclass.linear.firth.multinomial import (
    MultinomialFirthObjective,
)
from linclass.linear.solvers import newton

R_DIR = Path(__file__).parent / "data" / "r"
pd = pytest.importorskip("pandas")
CASES = ["alligators", "iris_sepal", "iris_length", "separated"]


def _table(part):
    return pd.read_csv(R_DIR / f"firth_multinomial.{part}.csv", skipinitialspace=True)


def case_data(case):
    """``(X, y, weight)`` of one case of firth_multinomial.R."""
    table = _table("data")
    table = table[table["case"] == case]
    X = table[[f"x{j}" for j in range(1, 7)]].dropna(axis=1).to_numpy(float)
    return X, table["y"].to_numpy(int), table["weight"].to_numpy(float)


def endometrial():
    """brglm2's endometrial data (two classes; quasi-complete separation by NV)."""
    table = pd.read_csv(R_DIR / "endometrial.csv")
    return table[["NV", "PI", "EH"]].to_numpy(float), table["HG"].to_numpy(int)


def softmax(S):
    P = np.exp(S - S.max(axis=1, keepdims=True))
    return P / P.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("case", CASES)
def test_matches_brmultinom(case):
    """Reached (tol=1e-10): probabilities within 2e-9 of brmultinom's, baseline-category
    coefficients within 2e-7 and standard errors within 4e-8 (the largest on iris_sepal, whose
    intercepts are -10 and -30 with standard errors 12 and 14); about 1e-10 elsewhere."""
    X, y, w = case_data(case)
    K = y.max() + 1
    model = lc.LogisticRegression(penalty="firth", tol=1e-10).fit(X, y, sample_weight=w)
    assert model.converged_ and model.coef_.shape == (K, X.shape[1])
    proba = _table("proba")
    proba = proba[proba["case"] == case][[f"p{k}" for k in range(K)]].to_numpy()
    np.testing.assert_allclose(model.predict_proba(X), proba, rtol=0, atol=1e-7)
    ref = _table("coef")
    ref = ref[ref["case"] == case].sort_values(["class", "term"])
    table = model.summary()
    np.testing.assert_allclose(table.coef.ravel(), ref["coef"], rtol=0, atol=1e-6)
    np.testing.assert_allclose(table.std_err.ravel(), ref["se"], rtol=0, atol=1e-6)
    assert "Firth-penalised ML" in str(table)


def test_reported_like_the_softmax_fit():
    """coef_ / intercept_ sum to zero over the classes, as the unpenalised softmax fit reports them,
    and predict_proba / predict / decision_function read them as usual."""
    X, y, w = case_data("iris_length")
    firth = lc.LogisticRegression(penalty="firth").fit(X, y)
    mle = lc.LogisticRegression(C=np.inf).fit(X, y)
    assert firth.coef_.shape == mle.coef_.shape and firth.intercept_.shape == mle.intercept_.shape
    np.testing.assert_allclose(firth.coef_.sum(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(firth.intercept_.sum(), 0.0, atol=1e-12)
    S = X @ firth.coef_.T + firth.intercept_
    np.testing.assert_allclose(firth.decision_function(X), S, rtol=1e-12)
    np.testing.assert_allclose(firth.predict_proba(X), softmax(S), rtol=1e-12)
    np.testing.assert_array_equal(firth.predict(X), firth.classes_[S.argmax(axis=1)])
    # the bias reduction shrinks the estimate towards equal probabilities, relative to the MLE
    assert np.abs(firth.coef_).sum() < np.abs(mle.coef_).sum()


def test_separation_gives_finite_estimates_and_no_warning():
    X, y, w = case_data("separated")
    with pytest.warns(SeparationWarning):
        lc.LogisticRegression(C=np.inf).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = lc.LogisticRegression(penalty="firth").fit(X, y)
    assert model.separation_ == "complete"
    assert np.all(np.isfinite(model.coef_)) and np.abs(model.coef_).max() < 5
    table = model.summary()
    assert np.all(np.isfinite(table.std_err))
    assert "complete separation is present" in str(table)
    assert lc.LogisticRegression(penalty="firth").fit(*case_data("iris_sepal")[:2]).separation_ \
        == "quasi"


def test_modified_score_is_the_gradient_of_the_penalised_likelihood():
    """The gradient against central differences, and l* against l + 1/2 log|I| with I formed
    here directly in the baseline-category parametrisation (per row Z_i^T V_i Z_i)."""
    X, y, _ = case_data("iris_sepal")
    w = np.resize([1.0, 2.0, 0.5], y.size)
    objective = MultinomialFirthObjective(X, y, 3, w, offset=np.zeros(2))
    theta = objective.null_start() + np.array([[0.3, -0.2], [-0.4, 0.1], [0.5, 0.7]])
    _, g = objective.value_gradient(theta)
    numeric = approx_fprime(theta.ravel(), objective.value, 1e-7)
    np.testing.assert_allclose(g.ravel(), numeric, rtol=1e-5, atol=1e-8)
    coef, intercept = objective.coefficients(theta)
    P = softmax(X @ coef.T + intercept)
    Xt = np.c_[np.ones(len(X)), X]
    Z = np.einsum("kc,ij->ikcj", np.eye(3)[:, 1:], Xt).reshape(len(X), 3, -1)  # (n, K, 2 * 3)
    V = np.einsum("ik,kl->ikl", P, np.eye(3)) - P[:, :, None] * P[:, None, :]
    info = np.einsum("i,ika,ikl,ilb->ab", w, Z, V, Z)
    log_likelihood = w @ np.log(P[np.arange(len(y)), y])
    assert objective.log_likelihood(theta) == pytest.approx(log_likelihood, rel=1e-12)
    assert objective.penalised_log_likelihood(theta) == pytest.approx(
        log_likelihood + 0.5 * np.linalg.slogdet(info)[1], rel=1e-12)


def test_two_classes_through_the_k_class_formulas_give_the_binary_answer():
    X, y = endometrial()
    w = np.resize([1.0, 2.0, 3.0], y.size)
    binary = FirthObjective(X, y, w, offset=np.zeros(3))
    multi = MultinomialFirthObjective(X, y, 2, w, offset=np.zeros(3))
    # the adjustment: a_i of the second class is the binary h_i (1/2 - mu_i), the first -a_i
    theta_b = np.array([[1.5], [-0.02], [-1.0], [2.0]])
    coef, intercept = binary.coefficients(theta_b)  # the log-odds, as sum-to-zero pairs
    theta_m = multi.from_coefficients(np.r_[-coef, coef] / 2, np.r_[-intercept, intercept] / 2)
    log_det, h, _ = binary.penalty_parts(theta_b)
    mu = 1.0 / (1.0 + np.exp(-binary.scores(theta_b)))
    _, _, log_det_m, a, _ = multi._parts(theta_m)
    np.testing.assert_allclose(a[:, 1], h * (0.5 - mu), rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(a[:, 0], -a[:, 1], rtol=1e-12, atol=1e-15)
    assert log_det_m == pytest.approx(log_det, rel=1e-12)  # ln|I| of the log-odds parameters
    assert multi.penalised_log_likelihood(theta_m) == pytest.approx(
        binary.penalised_log_likelihood(theta_b), rel=1e-12)
    # the fit: the same estimate, standard errors and penalised log-likelihood
    fit = newton(multi, multi.null_start(), tol=1e-12, max_iter=200)
    coef, intercept = multi.coefficients(fit.theta)
    model = lc.LogisticRegression(penalty="firth", tol=1e-12).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(coef[1] - coef[0], model.coef_[0], rtol=1e-9)
    np.testing.assert_allclose(intercept[1] - intercept[0], model.intercept_[0], rtol=1e-9)
    assert multi.penalised_log_likelihood(fit.theta) == pytest.approx(
        model.summary().log_likelihood, rel=1e-10)


def test_a_weight_is_a_repeated_row_and_class_weight_a_weight():
    X, y, w = case_data("alligators")
    weighted = lc.LogisticRegression(penalty="firth", tol=1e-10).fit(X, y, sample_weight=w)
    rows = np.repeat(np.arange(len(y)), w.astype(int))
    repeated = lc.LogisticRegression(penalty="firth", tol=1e-10).fit(X[rows], y[rows])
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(weighted.intercept_, repeated.intercept_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(weighted.summary().std_err, repeated.summary().std_err, atol=1e-8)
    factors = {0: 1.0, 1: 2.0, 2: 0.5, 3: 1.0, 4: 3.0}
    by_class = lc.LogisticRegression(penalty="firth", tol=1e-10, class_weight=factors).fit(
        X, y, sample_weight=w)
    by_sample = lc.LogisticRegression(penalty="firth", tol=1e-10).fit(
        X, y, sample_weight=w * np.vectorize(factors.get)(y))
    np.testing.assert_allclose(by_class.coef_, by_sample.coef_, rtol=0, atol=1e-10)


def test_refusals():
    X, y, _ = case_data("iris_length")
    X2 = np.c_[X, 2.0 * X]
    with pytest.raises(ValueError, match="collinear"):
        lc.LogisticRegression(penalty="firth").fit(X2, y)
    with pytest.raises(ValueError, match="solver='newton'"):
        lc.LogisticRegression(penalty="firth", solver="lbfgs").fit(X, y)
    model = lc.LogisticRegression(penalty="firth").fit(X, y)
    with pytest.raises(ValueError, match="two-class Firth fits only; use ci='wald'"):
        model.summary(ci="profile")
    with pytest.raises(TypeError, match="dense data is required"):  # the estimator's validation
        lc.LogisticRegression(penalty="firth").fit(sp.csr_matrix(X), y)
    problem = LogisticProblem(X=sp.csr_matrix(X), y=y, classes=np.arange(3))
    with pytest.raises(ValueError, match="penalty='firth' needs a dense X"):
        fit_logistic(problem, FitOptions(penalty=Firth()))
    with pytest.raises(ValueError, match="NaN"):
        lc.LogisticRegression(penalty="firth").fit(np.where(X == X[0, 0], np.nan, X), y)


def test_persistence_keeps_the_summary(tmp_path):
    X, y, w = case_data("separated")
    model = lc.LogisticRegression(penalty="firth").fit(X, y)
    loaded = lc.load(lc.save(model, tmp_path / "firth3.linclass"))
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    before, after = model.summary(), loaded.summary()
    np.testing.assert_array_equal(after.std_err, before.std_err)
    assert after.log_likelihood == before.log_likelihood and after.notes == before.notes


def test_null_penalised_log_likelihood_is_the_intercept_only_maximum():
    """The summary's LL-Null: l* maximised over the intercepts with every slope at 0 (the penalty on
    the full model), against scipy's BFGS over the intercepts."""
    from scipy.optimize import minimize

    X, y, w = case_data("alligators")
    table = lc.LogisticRegression(penalty="firth", tol=1e-10).fit(X, y, sample_weight=w).summary()
    objective = MultinomialFirthObjective(X, y, 5, w, offset=np.zeros(X.shape[1]))

    def minus_penalised(b):
        theta = np.zeros(objective.shape)
        theta[-1] = b
        return -objective.penalised_log_likelihood(theta)

    best = minimize(minus_penalised, objective.null_start()[-1], method="BFGS",
                    options={"gtol": 1e-9})
    assert table.null_log_likelihood == pytest.approx(-best.fun, rel=1e-10)
    assert table.null_log_likelihood < table.log_likelihood
