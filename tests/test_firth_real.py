"""Firth's logistic regression on real data at DEFAULT settings, against brglm2 (issue 41,
findings 3, 4 and 8): mlbench's Sonar (208 rows, 60 features, completely separated) against
glm(method = "brglmFit", type = "AS_mean"), MASS's fgl (214 rows, 9 features, six classes) against
brmultinom.  References: tests/data/r/firth/firth_real.R and its output."""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import linclass as lc
from sklearn.exceptions import ConvergenceWarning

pd = pytest.importorskip("pandas")
HERE = Path(__file__).parent / "data" / "r" / "firth"


def sonar():
    table = pd.read_csv(HERE / "sonar.csv")
    return table.drop(columns="Class").to_numpy(float), table["Class"].to_numpy()


def fgl():
    table = pd.read_csv(HERE / "fgl.csv")
    return table.drop(columns="type"), table["type"].to_numpy()


def summary_row(case, kind="AS_mean"):
    table = pd.read_csv(HERE / "firth_real_summary.csv")
    return table[(table["case"] == case) & (table["type"] == kind)].iloc[0]


@pytest.fixture(scope="module")
def sonar_fit():
    X, y = sonar()
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: one maximum, reached
        model = lc.LogisticRegression(penalty="firth").fit(X, y)
    return model, time.perf_counter() - start


def test_binary_firth_on_sonar_is_brglm2s_estimate_at_default_settings(sonar_fit):
    """Finding 4: Fisher scoring stopped at a gradient of 1e-6 where l* is flat (separation), 8%
    from brglm2 on one coefficient; Newton's steps with the Hessian of l* reach the optimum."""
    model, _ = sonar_fit
    ref = pd.read_csv(HERE / "sonar_coef.csv")
    X, y = sonar()
    assert model.separation_ == "complete" and model.converged_
    params = np.r_[model.intercept_, model.coef_.ravel()]
    np.testing.assert_allclose(params, ref["coef"], rtol=1e-9)
    table = model.summary()
    np.testing.assert_allclose(table.std_err.ravel(), ref["se"], rtol=1e-9)
    proba = pd.read_csv(HERE / "sonar_proba.csv")["p"].to_numpy()
    np.testing.assert_allclose(model.predict_proba(X)[:, 1], proba, rtol=1e-9, atol=1e-14)
    assert table.log_likelihood == pytest.approx(summary_row("sonar")["penalised"], rel=1e-10)


@pytest.mark.parametrize("tol", [1e-10, 1e-12])
def test_binary_firth_converges_at_tight_tolerances(tol):
    """Finding 4: at tol=1e-10 Fisher scoring ran out of max_iter=100 on sonar."""
    X, y = sonar()
    ref = pd.read_csv(HERE / "sonar_coef.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = lc.LogisticRegression(penalty="firth", tol=tol).fit(X, y)
    assert model.converged_ and model.n_iter_[0] < 30
    np.testing.assert_allclose(np.r_[model.intercept_, model.coef_.ravel()], ref["coef"],
                               rtol=1e-9)


def test_fit_leaves_the_profile_intervals_to_the_summary_that_asks(sonar_fit):
    """Finding 8: fit() profiled every parameter (31 of the 31.1 s of a fit on sonar)."""
    model, seconds = sonar_fit
    firth = model._inference.firth
    assert firth["profile"] is None and firth["profile_pending"]
    assert "summary(ci='profile')" in " ".join(model.summary().notes)


def test_profile_intervals_are_computed_once_when_asked():
    X, y = (lambda t: (t[["NV", "PI", "EH"]].to_numpy(float), t["HG"].to_numpy(int)))(
        pd.read_csv(Path(__file__).parent / "data" / "r" / "endometrial.csv"))
    model = lc.LogisticRegression(penalty="firth").fit(X, y)
    assert model._inference.firth["profile"] is None
    first = model.summary(ci="profile")
    kept = model._inference.firth["profile"]
    assert kept is not None and "profile_pending" not in model._inference.firth
    second = model.summary(ci="profile")
    assert model._inference.firth["profile"] is kept
    np.testing.assert_array_equal(first.ci_lower, second.ci_lower)
    np.testing.assert_array_equal(first.ci_upper, second.ci_upper)


@pytest.fixture(scope="module")
def fgl_fit():
    X, y = fgl()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = lc.LogisticRegression(penalty="firth").fit(X, y)
    messages = [str(w.message) for w in caught if "several local maxima" in str(w.message)]
    return model, " ".join(messages)


def _brmultinom(kind="AS_mean"):
    """brmultinom's coefficients as (K, d) and (K,) in linclass's class order, the baseline
    class WinF at zero, and its standard errors by (class, term)."""
    table = pd.read_csv(HERE / "fgl_coef.csv")
    return table[table["type"] == kind]


@pytest.mark.slow
def test_multinomial_firth_on_fgl_reaches_the_highest_maximum_brmultinoms(fgl_fit):
    """Finding 3: Fisher scoring from the intercept-only fit stopped at a lower local maximum
    (l* = -133.545, probabilities up to 0.32 from brmultinom's); finding 4: 1.8e-4 from it."""
    model, message = fgl_fit
    X, y = fgl()
    row = summary_row("fgl")
    table = model.summary()
    assert table.log_likelihood == pytest.approx(row["penalised"], rel=1e-9)
    assert "several local maxima" in message  # and which one is returned:
    assert f"the highest, {row['penalised']:.6f}" in message
    proba = pd.read_csv(HERE / "fgl_proba.csv")
    proba = proba[proba["type"] == "AS_mean"]
    P = model.predict_proba(X)
    for k, name in enumerate(model.classes_):
        np.testing.assert_allclose(P[:, k], proba[name].to_numpy(), rtol=1e-7, atol=1e-10)
    ref = _brmultinom()
    base = list(model.classes_).index("WinF")
    coef = model.coef_ - model.coef_[base]
    intercept = model.intercept_ - model.intercept_[base]
    names = ["(Intercept)"] + list(X.columns)
    for _, r in ref.iterrows():
        k = list(model.classes_).index(r["class"])
        ours = intercept[k] if r["term"] == "(Intercept)" else coef[k, names.index(r["term"]) - 1]
        assert ours == pytest.approx(r["coef"], rel=1e-7, abs=1e-7), (r["class"], r["term"])
    # standard errors of each class against WinF, from the covariance of the contrasts against
    # classes_[0] (equation-major, intercept first): brmultinom's inverse Fisher information
    cov = np.asarray(table.covariance)
    np.testing.assert_allclose(np.sqrt(np.diag(cov)), table.std_err.ravel(), rtol=1e-12)
    p = len(names)
    for _, r in ref.iterrows():
        a = np.zeros(cov.shape[0])
        j = names.index(r["term"])
        for name, sign in ((r["class"], 1.0), ("WinF", -1.0)):
            k = list(model.classes_).index(name)
            if k > 0:
                a[(k - 1) * p + j] += sign
        assert np.sqrt(a @ cov @ a) == pytest.approx(r["se"], rel=1e-7), (r["class"], r["term"])


def test_brmultinoms_two_types_maximise_the_same_penalised_likelihood():
    """For the canonical multinomial logit AS_mean (mean bias reduction) and MPL_Jeffreys
    (Jeffreys-prior penalty) solve the same equations: the R script's two fits agree."""
    a, b = summary_row("fgl", "AS_mean"), summary_row("fgl", "MPL_Jeffreys")
    assert a["penalised"] == pytest.approx(b["penalised"], rel=1e-9)
    ca, cb = _brmultinom("AS_mean"), _brmultinom("MPL_Jeffreys")
    np.testing.assert_allclose(ca["coef"].to_numpy(), cb["coef"].to_numpy(), rtol=1e-6, atol=1e-6)


def test_saving_computes_no_profile_and_a_loaded_model_takes_the_rows(tmp_path, monkeypatch):
    """Saving used to compute the pending profile (the cost the fit had shed); now a model file
    holds it only if a summary computed it, and a loaded model computes it from rows passed."""
    from linclass.linear.firth import inference as firth_inference

    table = pd.read_csv(Path(__file__).parent / "data" / "r" / "endometrial.csv")
    X, y = table[["NV", "PI", "EH"]].to_numpy(float), table["HG"].to_numpy(int)
    model = lc.LogisticRegression(penalty="firth").fit(X, y)
    real = firth_inference.profile_state

    def refuse(*args, **kwargs):
        raise AssertionError("saving computed the profile")

    monkeypatch.setattr(firth_inference, "profile_state", refuse)
    loaded = lc.load(lc.save(model, tmp_path / "firth.linclass"))
    monkeypatch.setattr(firth_inference, "profile_state", real)
    from linclass.exceptions import TrainingRowsNeeded

    with pytest.raises(TrainingRowsNeeded, match="does not keep the training rows"):
        loaded.summary(ci="profile")
    with pytest.raises(ValueError, match="pass the rows"):
        loaded.summary(ci="profile", X=X[::-1], y=1 - y)
    expected = model.summary(ci="profile")
    got = loaded.summary(ci="profile", X=X, y=y)
    np.testing.assert_allclose(got.ci_lower, expected.ci_lower, rtol=1e-9)
    np.testing.assert_allclose(got.ci_upper, expected.ci_upper, rtol=1e-9)
    np.testing.assert_allclose(got.p_value, expected.p_value, rtol=1e-9)
