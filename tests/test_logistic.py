"""LogisticRegression, the estimator: against statsmodels (unpenalised maximum likelihood and its
inference) and scikit-learn (L2-penalised fits), separation, collinearity, warm starts, predictions and
input errors.

statsmodels' Logit / MNLogit are fitted by Newton with tol=1e-12, so both sides sit at the optimum to
~1e-12: the tolerances (params 1e-6, standard errors 1e-5) are orders of magnitude above that and far
below any mistake in the likelihood, the Hessian or the reporting (a missing factor, a wrong
reference class, n vs n - 1).  scikit-learn is run with tol=1e-10; its lbfgs stops ~1e-7 from the
optimum in the probabilities, hence atol=1e-6 there.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

from linclass import LogisticRegression, SeparationWarning, SingularCovarianceWarning, load
from linclass.linear.inference.wald import LogisticInference
from linclass.linear.logistic.separation import separation

SOLVER_NAMES = ["newton", "bohning", "lbfgs", "sgd"]


# ----------------------------------------------------------------------------- data


def make_data(K, *, n=200, d=4, seed=0):
    """Non-separable data from a softmax model (Gumbel noise), features of unequal scales and means."""
    rng = np.random.default_rng(seed)
    scales = np.array([1.0, 2.0, 0.5, 3.0, 1.5])[:d]
    X = rng.normal(size=(n, d)) * scales + np.array([1.0, -2.0, 0.0, 5.0, 2.0])[:d]
    W = rng.normal(size=(d, K)) / scales[:, None]
    y = ((X - X.mean(axis=0)) @ W + rng.gumbel(size=(n, K))).argmax(axis=1)
    assert np.all(np.bincount(y, minlength=K) > n / (4 * K))
    return X, y


def no_warnings_of(*categories):
    """Context manager turning the given warning categories into errors."""
    ctx = warnings.catch_warnings()

    class _Ctx:
        def __enter__(self):
            ctx.__enter__()
            for c in categories:
                warnings.simplefilter("error", c)

        def __exit__(self, *exc):
            return ctx.__exit__(*exc)

    return _Ctx()


# ----------------------------------------------------------------------------- statsmodels


def spector():
    data = sm.datasets.spector.load_pandas()
    return data.exog, data.endog


def anes96():
    data = sm.datasets.anes96.load_pandas().data
    return data


def compare_with_statsmodels(res, summary, *, binary):
    """res: a statsmodels (MN)Logit result with the constant first; summary: ours."""
    params = np.asarray(res.params)
    if binary:
        params, bse = params[:, None].T, np.asarray(res.bse)[None, :]
        tvalues, pvalues = np.asarray(res.tvalues)[None, :], np.asarray(res.pvalues)[None, :]
        ci = np.asarray(res.conf_int())
        lo, hi = ci[None, :, 0], ci[None, :, 1]
    else:  # statsmodels: (n_params, n_equations)
        params, bse = params.T, np.asarray(res.bse).T
        tvalues, pvalues = np.asarray(res.tvalues).T, np.asarray(res.pvalues).T
        ci = np.asarray(res.conf_int())  # rows equation-major
        lo, hi = ci[:, 0].reshape(params.shape), ci[:, 1].reshape(params.shape)
    np.testing.assert_allclose(summary.coef, params, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(summary.std_err, bse, rtol=1e-5)
    np.testing.assert_allclose(summary.z, tvalues, rtol=1e-5)
    np.testing.assert_allclose(summary.p_value, pvalues, rtol=1e-5, atol=1e-300)
    np.testing.assert_allclose(summary.ci_lower, lo, rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(summary.ci_upper, hi, rtol=1e-5, atol=1e-8)
    assert summary.log_likelihood == pytest.approx(res.llf, rel=1e-10)
    assert summary.null_log_likelihood == pytest.approx(res.llnull, rel=1e-8)
    assert summary.lr_statistic == pytest.approx(res.llr, rel=1e-7)
    assert summary.lr_df == res.df_model
    assert summary.lr_p_value == pytest.approx(res.llr_pvalue, rel=1e-5)
    assert summary.pseudo_r2 == pytest.approx(res.prsquared, rel=1e-7)
    assert summary.aic == pytest.approx(res.aic, rel=1e-10)
    assert summary.bic == pytest.approx(res.bic, rel=1e-10)
    assert summary.n_obs == res.nobs


def sm_fit(model):
    return model.fit(disp=0, method="newton", tol=1e-12, maxiter=100)


def test_logit_spector_matches_statsmodels():
    X, y = spector()
    res = sm_fit(sm.Logit(y, sm.add_constant(X, prepend=True)))
    model = LogisticRegression(C=np.inf, tol=1e-12).fit(X, y)
    assert model.separation_ is None and model.converged_
    summary = model.summary()
    compare_with_statsmodels(res, summary, binary=True)
    np.testing.assert_allclose(model.coef_[0], res.params.values[1:], rtol=1e-6)
    np.testing.assert_allclose(model.intercept_, res.params.values[:1], rtol=1e-6)
    np.testing.assert_allclose(model.predict_proba(X)[:, 1], res.predict(), rtol=1e-7, atol=1e-12)
    assert model.log_likelihood_ == pytest.approx(res.llf, rel=1e-10)
    # another alpha: statsmodels' conf_int(alpha=0.1)
    ci = np.asarray(res.conf_int(alpha=0.1))
    s90 = model.summary(alpha=0.1)
    np.testing.assert_allclose(s90.ci_lower[0], ci[:, 0], rtol=1e-5)
    np.testing.assert_allclose(s90.ci_upper[0], ci[:, 1], rtol=1e-5)


def test_logit_anes96_vote_matches_statsmodels():
    data = anes96()
    X = data[["logpopul", "TVnews", "selfLR", "ClinLR", "age", "educ", "income"]]
    y = data["vote"]
    res = sm_fit(sm.Logit(y, sm.add_constant(X, prepend=True)))
    summary = LogisticRegression(C=np.inf, tol=1e-12).fit(X, y).summary()
    compare_with_statsmodels(res, summary, binary=True)


def test_logit_without_intercept_matches_statsmodels():
    X, y = spector()
    res = sm_fit(sm.Logit(y, X))
    model = LogisticRegression(C=np.inf, fit_intercept=False, tol=1e-12).fit(X, y)
    s = model.summary()
    assert s.names == ["GPA", "TUCE", "PSI"]
    np.testing.assert_allclose(s.coef[0], res.params.values, rtol=1e-6)
    np.testing.assert_allclose(s.std_err[0], res.bse.values, rtol=1e-5)
    np.testing.assert_allclose(s.p_value[0], res.pvalues.values, rtol=1e-5)
    assert s.log_likelihood == pytest.approx(res.llf, rel=1e-10)
    # without an intercept the null model is the all-zero model: N log(1/2)
    assert s.null_log_likelihood == pytest.approx(-len(y) * np.log(2), rel=1e-12)


def anes_pid3():
    """anes96 with party identification grouped into 3 levels (Democrat 0-1 / independent 2-4 /
    Republican 5-6): not separated."""
    data = anes96()
    X = data[["logpopul", "selfLR", "age", "educ", "income"]]
    pid = np.where(data["PID"] <= 1, 0, np.where(data["PID"] <= 4, 1, 2))
    return X, pid


def test_mnlogit_anes96_matches_statsmodels():
    X, y = anes_pid3()
    res = sm_fit(sm.MNLogit(y, sm.add_constant(X, prepend=True)))
    model = LogisticRegression(C=np.inf, tol=1e-12).fit(X, y)
    assert model.separation_ is None and model.converged_
    summary = model.summary()
    assert summary.equations == ["y=1", "y=2"]
    compare_with_statsmodels(res, summary, binary=False)
    np.testing.assert_allclose(model.predict_proba(X), np.asarray(res.predict()), rtol=1e-7, atol=1e-12)
    # coef_ are the sum-to-zero coefficients; their contrasts against class 0 are statsmodels' params
    np.testing.assert_allclose(model.coef_.sum(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose((model.coef_[1:] - model.coef_[0]).T, np.asarray(res.params)[1:], rtol=1e-6)


def test_mnlogit_four_classes_matches_statsmodels():
    data = anes96()
    X = data[["selfLR", "age", "educ"]]
    y = np.digitize(data["PID"], [1, 3, 5])  # 0-0 / 1-2 / 3-4 / 5-6
    res = sm_fit(sm.MNLogit(y, sm.add_constant(X, prepend=True)))
    summary = LogisticRegression(C=np.inf, tol=1e-12).fit(X, y).summary()
    compare_with_statsmodels(res, summary, binary=False)


def test_summary_frame_and_text():
    X, y = spector()
    summary = LogisticRegression(C=np.inf).fit(X, y).summary()
    frame = summary.to_frame()
    assert list(frame.columns) == ["coef", "std err", "z", "P>|z|", "[0.025", "0.975]"]
    assert list(frame.index) == ["const", "GPA", "TUCE", "PSI"]
    assert frame.index.name == "parameter"
    np.testing.assert_array_equal(frame["coef"].to_numpy(), summary.coef[0])
    text = str(summary)
    for name in ("GPA", "TUCE", "PSI", "const", "Log-Likelihood", "Pseudo R-squ.", "AIC", "BIC"):
        assert name in text
    assert "penalised" not in text
    assert repr(summary) == text
    assert list(LogisticRegression(C=np.inf).fit(X, y).summary(alpha=0.1).to_frame().columns)[-2:] == [
        "[0.05", "0.95]"]
    # softmax: (equation, parameter) index
    Xm, ym = anes_pid3()
    sm3 = LogisticRegression(C=np.inf).fit(Xm, ym).summary()
    f3 = sm3.to_frame()
    assert f3.index.names == ["equation", "parameter"]
    assert f3.shape == (12, 6)
    assert list(f3.loc["y=2"].index) == ["const", *Xm.columns]
    np.testing.assert_array_equal(f3.loc["y=2", "coef"].to_numpy(), sm3.coef[1])
    assert "y=1" in str(sm3) and "selfLR" in str(sm3)


def test_summary_without_feature_names_and_with_string_labels():
    X, y = make_data(2, seed=1)
    labels = np.array(["no", "yes"])[y]
    summary = LogisticRegression(C=np.inf).fit(X, labels).summary()
    assert summary.names == ["const", "x0", "x1", "x2", "x3"]
    assert "'yes'" in summary.title and "'no'" in summary.title


def test_summary_of_penalised_fit_says_so():
    X, y = spector()
    model = LogisticRegression(C=1.0).fit(X, y)
    summary = model.summary()
    assert any("penalised" in note for note in summary.notes)
    assert "penalised" in str(summary)
    with pytest.raises(ValueError, match="alpha"):
        model.summary(alpha=0.0)
    with pytest.raises(ValueError, match="alpha"):
        model.summary(alpha=1.5)


def test_inference_record_round_trips_through_its_stored_form():
    X, y = spector()
    model = LogisticRegression(C=2.0).fit(X, y)
    assert isinstance(model._inference, LogisticInference)  # the typed record of a smooth fit
    state = model._inference.as_state()  # the dict older model files of format version 1 hold
    assert isinstance(state, dict)
    record = LogisticInference.from_state(state, model.log_likelihood_)
    assert record.log_likelihood == model.log_likelihood_
    assert record.null_log_likelihood == state["null"] and record.n_obs == state["n_obs"] == len(y)
    assert record.notes and "penalised fit (C=2)" in record.notes[0]
    again = record.as_state()
    assert set(again) == set(state) == {"notes", "covariance", "reason", "null", "n_obs"}
    np.testing.assert_array_equal(again["covariance"], state["covariance"])
    with pytest.raises(TypeError, match="inference state"):
        LogisticInference.from_state(None, 0.0)


def test_model_too_large_for_standard_errors_says_why(monkeypatch):
    from linclass.linear.inference import wald as inference

    X, y = spector()
    monkeypatch.setattr(inference, "MAX_PARAMS", 3)
    model = LogisticRegression(C=np.inf).fit(X, y)  # 4 parameters
    assert model._inference.covariance is None
    with pytest.raises(ValueError, match="4 parameters; standard errors are formed for at most 3"):
        model.summary()


@pytest.mark.parametrize("case", ["logistic_mle_binary", "logistic_bohning"])
def test_summary_of_a_golden_file_equals_a_fresh_fit(case):
    """Files written before the inference record existed store a dict; their summary is the one a
    fresh fit of the same model on the same data gives (tests/data/make_golden.py)."""
    from sklearn.datasets import load_iris

    import json
    import zipfile

    path = Path(__file__).parent / "data" / f"golden_v1_{case}.linclass"
    with zipfile.ZipFile(path) as zf:  # the file holds the record as a dict (format version 1)
        assert json.loads(zf.read("metadata.json"))["model"]["state"]["_inference"]["__type__"] == "dict"
    loaded = load(path)
    assert isinstance(loaded._inference, LogisticInference)  # read back as the typed record
    X, y = load_iris(return_X_y=True)
    if case == "logistic_mle_binary":
        X, y = X[50:], y[50:]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fresh = LogisticRegression(**loaded.get_params()).fit(X, y)
        exact = LogisticRegression(**{**loaded.get_params(), "tol": 1e-12, "max_iter": 1000}).fit(X, y)
    old, new = loaded.summary(), fresh.summary()
    assert old.title == new.title and old.names == new.names and old.notes == new.notes
    # fits now start at the Gaussian model and converged ones end with one Newton step
    # (linclass.linear.logistic.start, linclass.linear.solvers.final_step): the file's numbers are those of a
    # fit stopped at tol (4e-5 from the optimum for the MLE case), the fresh ones are at least as
    # close to the exact optimum's, and agree with the file's to its accuracy
    best = exact.summary()
    for field in ("coef", "std_err"):
        gap_old, gap_new = (np.abs(getattr(s, field) - getattr(best, field)).max() for s in (old, new))
        assert gap_new <= gap_old + 1e-12
        np.testing.assert_allclose(getattr(old, field), getattr(new, field), rtol=1e-4, atol=1e-12)
    assert old.log_likelihood == pytest.approx(new.log_likelihood, rel=1e-8)
    assert old.null_log_likelihood == pytest.approx(new.null_log_likelihood, rel=1e-12)
    assert old.n_obs == new.n_obs


def test_integer_weights_are_repeated_rows():
    X, y = make_data(3, n=120, seed=2)
    w = np.random.default_rng(0).integers(0, 4, size=len(y))
    weighted = LogisticRegression(C=np.inf, tol=1e-12).fit(X, y, sample_weight=w)
    repeated = LogisticRegression(C=np.inf, tol=1e-12).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-8, atol=1e-10)
    a, b = weighted.summary(), repeated.summary()
    np.testing.assert_allclose(a.std_err, b.std_err, rtol=1e-7)
    assert a.n_obs == b.n_obs == w.sum()
    assert a.log_likelihood == pytest.approx(b.log_likelihood, rel=1e-10)
    assert a.null_log_likelihood == pytest.approx(b.null_log_likelihood, rel=1e-12)
    assert a.bic == pytest.approx(b.bic, rel=1e-10)


@pytest.mark.parametrize("class_weight", ["balanced", {0: 3.0, 2: 0.5}])
def test_class_weight_with_integer_weights_is_repeated_rows(class_weight):
    """Frequency weights: class_weight must treat weight 2 and a twice-repeated row alike (for
    'balanced' the class counts are the classes' total weights, as in scikit-learn)."""
    X, y = make_data(3, n=120, seed=4)
    w = np.random.default_rng(1).integers(0, 4, size=len(y))
    w[y == 0] *= 2  # make the weighted class counts differ from the raw ones
    a = LogisticRegression(C=2.0, tol=1e-12, class_weight=class_weight).fit(X, y, sample_weight=w)
    b = LogisticRegression(C=2.0, tol=1e-12, class_weight=class_weight).fit(
        np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-8, atol=1e-10)


def test_log_likelihood_attribute_is_the_training_log_likelihood():
    X, y = make_data(3, seed=5)
    w = np.random.default_rng(2).uniform(0.5, 2.0, size=len(y))
    for C in (np.inf, 0.5):
        model = LogisticRegression(C=C).fit(X, y, sample_weight=w)
        own = model.predict_log_proba(X)[np.arange(len(y)), y]
        assert model.log_likelihood_ == pytest.approx(w @ own, rel=1e-10)


# ----------------------------------------------------------------------------- scikit-learn


def sklearn_pair(K, C, fit_intercept, variant, seed=0):
    X, y = make_data(K, seed=seed)
    kw, fit_kw = {}, {}
    sw = np.random.default_rng(seed + 10).uniform(0.2, 3.0, size=len(y))
    if variant in ("sample_weight", "balanced+sample_weight"):
        fit_kw["sample_weight"] = sw
    if variant.startswith("balanced"):
        kw["class_weight"] = "balanced"
    if variant == "dict":
        kw["class_weight"] = {0: 2.0, 1: 0.5}
    sk = SkLogisticRegression(C=C, tol=1e-10, max_iter=10000, fit_intercept=fit_intercept, **kw)
    ours = LogisticRegression(C=C, tol=1e-10, fit_intercept=fit_intercept, **kw)
    return X, y, sk.fit(X, y, **fit_kw), ours.fit(X, y, **fit_kw)


@pytest.mark.parametrize("variant", ["plain", "sample_weight", "balanced", "dict", "balanced+sample_weight"])
@pytest.mark.parametrize("fit_intercept", [True, False], ids=["int", "noint"])
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
@pytest.mark.parametrize("K", [2, 3])
def test_matches_sklearn_at_the_same_penalty(K, C, fit_intercept, variant):
    X, y, sk, ours = sklearn_pair(K, C, fit_intercept, variant)
    assert ours.converged_ and ours.separation_ is None
    assert ours.coef_.shape == sk.coef_.shape and ours.intercept_.shape == sk.intercept_.shape
    Xt = make_data(K, seed=99)[0]
    np.testing.assert_allclose(ours.predict_proba(X), sk.predict_proba(X), atol=1e-6)
    np.testing.assert_allclose(ours.predict_proba(Xt), sk.predict_proba(Xt), atol=1e-6)
    scale = max(1.0, np.abs(sk.coef_).max())
    np.testing.assert_allclose(ours.coef_, sk.coef_, atol=1e-5 * scale)
    np.testing.assert_allclose(ours.intercept_, sk.intercept_, atol=1e-5 * max(1.0, np.abs(sk.intercept_).max()))
    if K > 2:  # with the symmetric L2 penalty both optima sum to zero over the classes
        np.testing.assert_allclose(sk.coef_.sum(axis=0), 0.0, atol=1e-10 * scale)
        np.testing.assert_allclose(ours.coef_.sum(axis=0), 0.0, atol=1e-12 * scale)
        np.testing.assert_allclose(ours.intercept_.sum(), 0.0, atol=1e-12)
    np.testing.assert_array_equal(ours.predict(Xt), sk.predict(Xt))


def test_penalty_matters_in_the_sklearn_comparison():
    """The comparison above resolves C: C=1 and C=1.1 give visibly different fits."""
    _, _, sk, _ = sklearn_pair(3, 1.0, True, "plain")
    X, y = make_data(3)
    other = LogisticRegression(C=1.1, tol=1e-10).fit(X, y)
    assert np.abs(other.predict_proba(X) - sk.predict_proba(X)).max() > 1e-5


@pytest.mark.parametrize("solver", ["bohning", "lbfgs"])
@pytest.mark.parametrize("K", [2, 3])
def test_other_solvers_match_sklearn(solver, K):
    X, y = make_data(K, seed=3)
    sk = SkLogisticRegression(C=1.0, tol=1e-10, max_iter=10000).fit(X, y)
    ours = LogisticRegression(C=1.0, solver=solver, tol=1e-9, max_iter=20000).fit(X, y)
    assert ours.solver_ == solver and ours.converged_
    np.testing.assert_allclose(ours.predict_proba(X), sk.predict_proba(X), atol=1e-6)


def test_sgd_solver_is_close_to_sklearn():
    X, y = make_data(3, n=2000, seed=3)
    sk = SkLogisticRegression(C=1.0, tol=1e-10, max_iter=10000).fit(X, y)
    ours = LogisticRegression(C=1.0, solver="sgd", batch_size=64, tol=1e-8, max_iter=500,
                              random_state=0).fit(X, y)
    assert ours.converged_
    # stochastic: the plateau is ~1e-4 in the mean log-loss, ~1e-2 in the probabilities
    assert np.abs(ours.predict_proba(X) - sk.predict_proba(X)).max() < 0.03


# ----------------------------------------------------------------------------- separation


def separable(seed=1, n=60):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    return X, y


def quasi_separable(seed=1):
    """Separable data plus two identical rows with opposite labels on the separating line: every
    hyperplane that separates the rest has them on it, and nothing separates strictly."""
    X, y = separable(seed)
    return np.vstack([X, [[0.0, 0.0], [0.0, 0.0]]]), np.r_[y, 0, 1]


def three_sectors(seed=2, n=90):
    """3 classes in three angular sectors around the origin: completely separated."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    angle = np.arctan2(X[:, 1], X[:, 0])
    return X, ((angle + np.pi) // (2 * np.pi / 3)).astype(int)


def one_class_apart(seed=3, n=90):
    """Classes 0 and 1 overlap; class 2 lies beyond a line: quasi-complete separation (class 2's
    coefficients diverge, the 0/1 contrast has a finite MLE)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = rng.integers(0, 2, n)
    y[X[:, 0] > 0.8] = 2
    return X, y


def test_separation_function_binary():
    X, y = separable()
    assert separation(X, y, 2) == "complete"
    Xq, yq = quasi_separable()
    assert separation(Xq, yq, 2) == "quasi"
    yn = y.copy()
    yn[np.argsort(X[:, 0])[[5, -5]]] ^= 1  # a point deep on each side gets the other label
    assert separation(X, yn, 2) is None
    # a zero-weight contradicting row does not take part
    w = np.ones(len(yn))
    w[np.argsort(X[:, 0])[[5, -5]]] = 0.0
    assert separation(X, yn, 2, sample_weight=w) == "complete"
    # without an intercept: separable through the origin, not by an offset line
    assert separation(X, y, 2, fit_intercept=False) == "complete"
    shifted = X + [3.0, 0.0]  # the same labels, now the separating line misses the origin
    assert separation(shifted, y, 2, fit_intercept=False) is None
    assert separation(shifted, y, 2, fit_intercept=True) == "complete"


def test_separation_function_multiclass():
    X, y = three_sectors()
    assert separation(X, y, 3) == "complete"
    Xa, ya = one_class_apart()
    assert separation(Xa, ya, 3) == "quasi"
    Xn, yn = make_data(3, n=150, d=2, seed=4)
    assert separation(Xn, yn, 3) is None


@pytest.mark.parametrize("solver", SOLVER_NAMES)
def test_complete_separation_warns_and_stays_finite(solver):
    X, y = separable()
    model = LogisticRegression(C=np.inf, solver=solver, max_iter=100, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, y)
    sep = [w for w in caught if issubclass(w.category, SeparationWarning)]
    assert len(sep) == 1
    message = str(sep[0].message)
    assert "complete" in message and "quasi" not in message
    assert model.separation_ == "complete"
    assert model.n_iter_ <= 100
    assert np.all(np.isfinite(model.coef_)) and np.all(np.isfinite(model.intercept_))
    proba = model.predict_proba(X)
    assert np.all(np.isfinite(proba)) and np.all(np.isfinite(model.predict_log_proba(X)))
    if solver in ("newton", "lbfgs"):  # fast solvers drive the fit to (numerically) certain
        assert np.all(np.abs(model.coef_) > 10)
        np.testing.assert_array_equal(model.predict(X), y)
    else:  # the linearly convergent ones stop on the way, with the warning all the same
        assert np.mean(model.predict(X) == y) > 0.9


def test_quasi_separation_warns_quasi():
    Xq, yq = quasi_separable()
    with pytest.warns(SeparationWarning, match="quasi") as record:
        model = LogisticRegression(C=np.inf).fit(Xq, yq)
    assert len([w for w in record if issubclass(w.category, SeparationWarning)]) == 1
    assert model.separation_ == "quasi"
    proba = model.predict_proba(Xq)
    assert np.all(np.isfinite(proba))
    # the two tied rows tend to 1/2 as the other rows' fit tends to certainty
    np.testing.assert_allclose(proba[-2:, 1], 0.5, atol=1e-3)
    assert any("quasi" in note for note in model.summary().notes)


def test_multiclass_separation_through_the_estimator():
    X, y = three_sectors()
    with pytest.warns(SeparationWarning, match="complete"):
        model = LogisticRegression(C=np.inf).fit(X, y)
    assert model.separation_ == "complete"
    assert np.all(np.isfinite(model.predict_proba(X)))
    Xa, ya = one_class_apart()
    with pytest.warns(SeparationWarning, match="quasi"):
        model = LogisticRegression(C=np.inf).fit(Xa, ya)
    assert model.separation_ == "quasi"


def test_no_separation_warning_on_overlapping_data():
    for K in (2, 3):
        X, y = make_data(K, seed=6)
        with no_warnings_of(SeparationWarning, ConvergenceWarning, SingularCovarianceWarning):
            model = LogisticRegression(C=np.inf).fit(X, y)
        assert model.separation_ is None
        assert not any("separation" in note for note in model.summary().notes)


def test_no_separation_warning_with_a_finite_penalty():
    for X, y in (separable(), quasi_separable(), three_sectors()):
        with no_warnings_of(SeparationWarning, ConvergenceWarning):
            model = LogisticRegression(C=1.0).fit(X, y)
        assert model.separation_ is None
        assert model.converged_ and np.abs(model.coef_).max() < 20


# ----------------------------------------------------------------------------- collinearity


@pytest.mark.parametrize("K", [2, 3])
def test_collinear_features_without_penalty(K):
    X, y = make_data(K, seed=7)
    Xc = np.column_stack([X, X[:, 0] - 2 * X[:, 1]])
    with pytest.warns(SingularCovarianceWarning, match=f"x{X.shape[1]} is a linear combination"):
        model = LogisticRegression(C=np.inf).fit(Xc, y)
    assert np.all(np.isfinite(model.coef_))
    reference = LogisticRegression(C=np.inf, tol=1e-10).fit(X, y)
    # the same fitted model as without the redundant column, which is aliased (R's NA)
    np.testing.assert_allclose(model.predict_proba(Xc), reference.predict_proba(X), atol=1e-7)
    assert model.log_likelihood_ == pytest.approx(reference.log_likelihood_, rel=1e-9)
    np.testing.assert_array_equal(model.aliased_, np.arange(X.shape[1] + 1) == X.shape[1])
    np.testing.assert_array_equal(model.coef_[:, -1], 0.0)
    table, full = model.summary(), reference.summary()
    assert table.aliased == [f"x{X.shape[1]}"] and np.all(np.isnan(table.coef[:, -1]))
    np.testing.assert_allclose(table.coef[:, :-1], full.coef, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(table.std_err[:, :-1], full.std_err, rtol=1e-6)
    assert table.df_resid == full.df_resid and table.df_model == full.df_model
    # a finite C makes the problem well posed again: no warning, and a summary
    with no_warnings_of(SingularCovarianceWarning):
        penalised = LogisticRegression(C=1.0).fit(Xc, y)
    assert np.all(np.isfinite(penalised.summary().std_err))


def test_constant_feature_without_intercept_is_fine_but_with_intercept_is_collinear():
    X, y = make_data(2, seed=8)
    Xk = np.column_stack([X, np.full(len(y), 3.0)])
    with no_warnings_of(SingularCovarianceWarning):
        LogisticRegression(C=np.inf, fit_intercept=False).fit(Xk, y).summary()
    with pytest.warns(SingularCovarianceWarning):
        LogisticRegression(C=np.inf).fit(Xk, y)


# ----------------------------------------------------------------------------- warm start, convergence


@pytest.mark.parametrize("K", [2, 3])
def test_warm_start_starts_from_the_previous_solution(K):
    X, y = make_data(K, seed=9)
    cold = LogisticRegression(C=np.inf, solver="newton", tol=1e-8)
    cold.fit(X, y)
    assert cold.n_iter_ >= 3
    warm = LogisticRegression(C=np.inf, solver="newton", tol=1e-8, warm_start=True)
    warm.fit(X, y)
    first = warm.coef_.copy()
    warm.fit(X, y)
    assert warm.n_iter_ <= 1
    np.testing.assert_allclose(warm.coef_, first, rtol=1e-8, atol=1e-10)
    # without warm_start a refit starts over
    cold.fit(X, y)
    assert cold.n_iter_ >= 3
    # a warm start from a nearby problem takes fewer iterations than a cold one
    Xp = X + np.random.default_rng(0).normal(scale=0.01, size=X.shape)
    warm.fit(Xp, y)
    cold.fit(Xp, y)
    assert warm.n_iter_ < cold.n_iter_
    np.testing.assert_allclose(warm.coef_, cold.coef_, rtol=1e-6, atol=1e-8)


def test_warm_start_with_different_classes_or_features_starts_cold():
    X, y = make_data(3, seed=10)
    model = LogisticRegression(C=1.0, warm_start=True).fit(X, y)
    model.fit(X, np.where(y == 2, 1, y))  # now two classes
    assert model.coef_.shape == (1, X.shape[1])
    model.fit(X[:, :2], y)  # fewer features
    assert model.coef_.shape == (3, 2)
    fresh = LogisticRegression(C=1.0).fit(X[:, :2], y)
    np.testing.assert_allclose(model.coef_, fresh.coef_, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("solver", SOLVER_NAMES)
def test_convergence_warning_when_max_iter_is_too_small(solver):
    X, y = make_data(3, seed=11)
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        model = LogisticRegression(C=np.inf, solver=solver, max_iter=1, tol=1e-12, random_state=0).fit(X, y)
    assert model.converged_ is False
    assert model.n_iter_ <= 1
    assert any("did not converge" in note for note in model.summary().notes)
    with no_warnings_of(ConvergenceWarning):
        LogisticRegression(C=np.inf, solver="newton").fit(X, y)


def test_auto_solver_choice():
    X, y = make_data(3, seed=12)
    model = LogisticRegression().fit(X, y)
    assert model.solver_ == "newton"
    assert model.get_params()["solver"] == "auto"
    rng = np.random.default_rng(0)
    Xw = rng.normal(size=(40, 1001))  # 1002 parameters: a dense Newton Hessian is not worth it
    yw = rng.integers(0, 2, 40)
    yw[:2] = [0, 1]
    wide = LogisticRegression(C=1.0).fit(Xw, yw)
    assert wide.solver_ == "lbfgs"
    for solver in SOLVER_NAMES:
        assert LogisticRegression(solver=solver, random_state=0).fit(X, y).solver_ == solver


def test_loss_curve_and_n_iter():
    X, y = make_data(2, seed=13)
    model = LogisticRegression(C=np.inf, solver="newton").fit(X, y)
    assert model.loss_curve_.shape == (model.n_iter_ + 1,)
    assert np.all(np.diff(model.loss_curve_) <= 1e-12)
    assert model.loss_curve_[-1] == pytest.approx(-model.log_likelihood_ / len(y), rel=1e-12)


# ----------------------------------------------------------------------------- predictions


@pytest.mark.parametrize("K", [2, 3, 4])
def test_prediction_shapes_and_consistency(K):
    X, y = make_data(K, seed=14)
    labels = np.array(["ant", "bee", "cat", "dog"])[:K]
    model = LogisticRegression(C=np.inf).fit(X, labels[y])
    np.testing.assert_array_equal(model.classes_, labels)
    assert model.classes_.dtype.kind == "U"
    Xt = make_data(K, seed=15)[0]
    proba = model.predict_proba(Xt)
    assert proba.shape == (len(Xt), K)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    log_proba = model.predict_log_proba(Xt)
    big = proba > 1e-300
    np.testing.assert_allclose(log_proba[big], np.log(proba[big]), rtol=1e-12, atol=1e-14)
    scores = model.decision_function(Xt)
    if K == 2:
        assert scores.shape == (len(Xt),)
        np.testing.assert_allclose(scores, Xt @ model.coef_[0] + model.intercept_[0], rtol=1e-12)
        np.testing.assert_allclose(proba[:, 1], expit(scores), rtol=1e-12, atol=1e-15)
    else:
        assert scores.shape == (len(Xt), K)
        np.testing.assert_allclose(scores, Xt @ model.coef_.T + model.intercept_, rtol=1e-12, atol=1e-12)
    pred = model.predict(Xt)
    assert pred.dtype.kind == "U"
    np.testing.assert_array_equal(pred, labels[np.argmax(proba, axis=1)])


@pytest.mark.parametrize("K", [2, 3])
def test_huge_margins_at_predict_time(K):
    X, y = make_data(K, seed=16)
    model = LogisticRegression(C=np.inf).fit(X, y)
    Xt = make_data(K, seed=17)[0] * 1e3
    scores = model.decision_function(Xt)
    assert np.abs(scores).max() > 500
    proba = model.predict_proba(Xt)
    log_proba = model.predict_log_proba(Xt)
    assert np.all(np.isfinite(proba)) and np.all((proba >= 0) & (proba <= 1))
    assert np.all(np.isfinite(log_proba)) and log_proba.min() < -500
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)


# ----------------------------------------------------------------------------- bad inputs


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_nan_in_X_names_row_and_column(fit_intercept):
    X, y = make_data(2, seed=18)
    X[7, 2] = np.nan
    with pytest.raises(ValueError, match=r"NaN.*row 7, column 2"):
        LogisticRegression(fit_intercept=fit_intercept).fit(X, y)
    frame = pd.DataFrame(make_data(2, seed=18)[0], columns=["a", "b", "c", "d"])
    frame.iloc[3, 1] = np.inf
    with pytest.raises(ValueError, match=r"infinity.*row 3, column 'b'"):
        LogisticRegression(fit_intercept=fit_intercept).fit(frame, y)


def test_nan_at_predict_time():
    X, y = make_data(2, seed=19)
    model = LogisticRegression().fit(X, y)
    Xt = X[:5].copy()
    Xt[2, 0] = np.nan
    for method in (model.predict, model.predict_proba, model.decision_function):
        with pytest.raises(ValueError, match=r"NaN.*row 2, column 0"):
            method(Xt)


def test_single_class_is_refused():
    X, _ = make_data(2, seed=20)
    with pytest.raises(ValueError, match="two classes"):
        LogisticRegression().fit(X, np.zeros(len(X)))
    y = np.r_[np.ones(5), np.zeros(len(X) - 5)]
    w = np.r_[np.zeros(5), np.ones(len(X) - 5)]
    with pytest.raises(ValueError, match="two classes"):
        LogisticRegression().fit(X, y, sample_weight=w)


@pytest.mark.parametrize("params", [{"C": 0.0}, {"C": -1.0}, {"solver": "cholesky"}, {"tol": -1.0},
                                    {"max_iter": -1}, {"class_weight": "auto"}, {"eta0": 0.0},
                                    {"penalty": "l3"}, {"l1_ratio": 2.0}, {"intercept_scaling": 0.0}])
def test_bad_parameters(params):
    X, y = make_data(2, seed=21)
    with pytest.raises(ValueError, match=list(params)[0]):
        LogisticRegression(**params).fit(X, y)


def test_class_weight_naming_an_unknown_label():
    X, y = make_data(3, seed=22)
    with pytest.raises(ValueError, match=r"class_weight.*\[7\]"):
        LogisticRegression(class_weight={0: 1.0, 7: 2.0}).fit(X, y)
    with pytest.raises(ValueError, match="zero weight"):
        LogisticRegression(class_weight={0: 0.0, 1: 0.0, 2: 0.0}).fit(X, y)
    with pytest.raises(ValueError, match="non-negative"):
        LogisticRegression(class_weight={0: -1.0}).fit(X, y)


def test_bad_sample_weight():
    X, y = make_data(2, seed=23)
    with pytest.raises(ValueError, match="zero"):
        LogisticRegression().fit(X, y, sample_weight=np.zeros(len(y)))
    with pytest.raises(ValueError, match="Negative"):
        LogisticRegression().fit(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(ValueError, match="sample_weight"):
        LogisticRegression().fit(X, y, sample_weight=np.ones(len(y) - 1))


def test_predict_before_fit():
    X, _ = make_data(2, seed=24)
    model = LogisticRegression()
    for method in (model.predict, model.predict_proba, model.predict_log_proba, model.decision_function):
        with pytest.raises(NotFittedError):
            method(X)
    with pytest.raises(NotFittedError):
        model.summary()


def test_wrong_number_of_features_at_predict():
    X, y = make_data(2, seed=25)
    model = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :3])
    with pytest.raises(ValueError, match="features"):
        model.predict_proba(np.column_stack([X, X[:, 0]]))
