"""OrderedLogisticRegression, the proportional odds model, against MASS's polr (R), with the logit
and probit links and frequency weights: coefficients, thresholds (zeta), standard errors and the
covariance, log-likelihood, deviance, AIC and the fitted probabilities, at 1e-6 relative.

The reference is ``tests/data/polr/polr.json``, written by ``tests/data/polr/polr.R`` (MASS's
housing, Sat ~ Infl + Type + Cont with weights = Freq, and a simulated set of 300 rows, 4 classes,
written to simulated.csv).  Also here: the likelihood's gradient and Hessian against finite
differences, statsmodels' OrderedModel, the formula interface, chunked fits, the far tails, and
properties (probabilities sum to 1, thresholds increase)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import linclass
from linclass import OrderedLogisticRegression
from linclass.linear.ordinal import likelihood
from linclass.linear.ordinal.links import get_link

pd = pytest.importorskip("pandas")

HERE = Path(__file__).parent / "data" / "polr"
REFERENCE = json.loads((HERE / "polr.json").read_text())
FITS = sorted(k for k in REFERENCE if k != "versions")
RTOL = 1e-6
HOUSING_LEVELS = {"Sat": ["Low", "Medium", "High"], "Infl": ["Low", "Medium", "High"],
                  "Type": ["Tower", "Apartment", "Atrium", "Terrace"], "Cont": ["Low", "High"]}


def housing() -> pd.DataFrame:
    frame = pd.read_csv(HERE / "housing.csv")
    for column, levels in HOUSING_LEVELS.items():
        frame[column] = pd.Categorical(frame[column], categories=levels, ordered=column == "Sat")
    return frame


def problem(key):
    """``(X, y, sample_weight, link)`` of a reference fit (X: polr's model matrix, from R)."""
    data, link = key.rsplit("_", 1)
    X = np.array(REFERENCE[key]["X"])
    if data == "housing":
        frame = housing()
        return X, frame["Sat"].cat.codes.to_numpy(), frame["Freq"].to_numpy(float), link
    sim = pd.read_csv(HERE / "simulated.csv")
    weights = sim["w"].to_numpy(float) if data == "simulated_weighted" else None
    return X, sim["y"].to_numpy(), weights, link


@pytest.fixture(scope="module", params=FITS)
def fitted(request):
    X, y, w, link = problem(request.param)
    return REFERENCE[request.param], OrderedLogisticRegression(link=link).fit(X, y, sample_weight=w), X


def test_coefficients_and_thresholds_are_polrs(fitted):
    ref, model, _ = fitted
    np.testing.assert_allclose(model.coef_, ref["coef"], rtol=RTOL)
    np.testing.assert_allclose(model.thresholds_, ref["zeta"], rtol=RTOL)
    assert model.converged_ and ref["convergence"] == [0]


def test_standard_errors_and_covariance_are_polrs(fitted):
    ref, model, _ = fitted
    table = model.summary()
    np.testing.assert_allclose(table.std_err, ref["se"], rtol=RTOL)
    np.testing.assert_allclose(model.cov_params_, np.array(ref["vcov"]), rtol=RTOL, atol=1e-12)
    np.testing.assert_allclose(table.z, np.r_[ref["coef"], ref["zeta"]] / np.array(ref["se"]),
                               rtol=RTOL)


def test_likelihood_deviance_and_aic_are_polrs(fitted):
    ref, model, _ = fitted
    table = model.summary()
    np.testing.assert_allclose(table.llf, ref["loglik"], rtol=1e-10)
    np.testing.assert_allclose(table.deviance, ref["deviance"], rtol=1e-10)
    np.testing.assert_allclose(table.aic, ref["aic"], rtol=1e-10)
    assert table.nobs == ref["nobs"][0] and table.edf == ref["edf"][0]
    assert table.df_resid == ref["nobs"][0] - ref["edf"][0]


def test_fitted_probabilities_are_polrs(fitted):
    ref, model, X = fitted
    np.testing.assert_allclose(model.predict_proba(X), np.array(ref["fitted"]), rtol=RTOL)


def test_formula_fit_on_housing_names_the_parameters_as_polr():
    ref = REFERENCE["housing_logit"]
    model = linclass.from_formula("Sat ~ Infl + Type + Cont", housing(),
                                  OrderedLogisticRegression(), sample_weight="Freq")
    assert list(model.classes_) == ["Low", "Medium", "High"]  # the factor's order, not sorted
    table = model.summary()
    assert table.threshold_names == ref["zeta_names"] == ["Low|Medium", "Medium|High"]
    assert table.names == ["Infl[T.Medium]", "Infl[T.High]", "Type[T.Apartment]",
                           "Type[T.Atrium]", "Type[T.Terrace]", "Cont[T.High]"]
    assert table.dep_variable == "Sat"
    np.testing.assert_allclose(table.params, np.r_[ref["coef"], ref["zeta"]], rtol=RTOL)
    np.testing.assert_allclose(table.bse, ref["se"], rtol=RTOL)
    np.testing.assert_allclose(model.predict_proba(housing()), np.array(ref["fitted"]), rtol=RTOL)
    text = str(table)
    # polr's print(summary(m)) ends "Residual Deviance: 3479.149 \n AIC: 3495.149"
    assert "Residual Deviance: 3479.149" in text and "AIC: 3495.149" in text
    assert text.index("Infl[T.Medium]") < text.index("Intercepts") < text.index("Low|Medium")


def test_an_ordered_categorical_y_gives_the_classes_order():
    frame = housing()
    X = np.array(REFERENCE["housing_probit"]["X"])
    model = OrderedLogisticRegression(link="probit").fit(X, frame["Sat"], sample_weight=frame["Freq"])
    np.testing.assert_array_equal(model.classes_, ["Low", "Medium", "High"])
    np.testing.assert_allclose(model.thresholds_, REFERENCE["housing_probit"]["zeta"], rtol=RTOL)
    assert model.summary().threshold_names == ["Low|Medium", "Medium|High"]
    assert set(model.predict(X)) <= {"Low", "Medium", "High"}
    # the sorted labels would be High < Low < Medium: another model
    other = OrderedLogisticRegression(link="probit").fit(X, frame["Sat"].astype(str),
                                                         sample_weight=frame["Freq"])
    np.testing.assert_array_equal(other.classes_, ["High", "Low", "Medium"])


def test_chunked_fit_equals_polr():
    from linclass.core.chunks import Chunk, combine_all
    from linclass.chunks import fit_chunked

    class Source:
        def __init__(self, X, y, w, cut):
            self.n_features, self.feature_names = X.shape[1], None
            edges = [0, *cut, X.shape[0]]
            self.chunks = [Chunk(X[a:b], y[a:b], w[a:b], i, a)
                           for i, (a, b) in enumerate(zip(edges[:-1], edges[1:]))]

        def map_reduce(self, fn, combine, *args):
            return combine_all(combine, [fn(c, *args) for c in self.chunks])

    X, y, w, link = problem("simulated_weighted_probit")
    model = fit_chunked(OrderedLogisticRegression(link=link), Source(X, y, w, (37, 38, 200)))
    ref = REFERENCE["simulated_weighted_probit"]
    np.testing.assert_allclose(model.coef_, ref["coef"], rtol=RTOL)
    np.testing.assert_allclose(model.thresholds_, ref["zeta"], rtol=RTOL)
    np.testing.assert_allclose(model.summary().std_err, ref["se"], rtol=RTOL)


@pytest.mark.parametrize("link", ["logit", "probit"])
def test_statsmodels_ordered_model_agrees(link):
    ordinal_model = pytest.importorskip("statsmodels.miscmodels.ordinal_model")
    X, y, _, _ = problem(f"simulated_{link}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its BFGS reports the tight gtol as not reached
        sm = ordinal_model.OrderedModel(y, X, distr=link)
        result = sm.fit(method="bfgs", disp=False, maxiter=5000, gtol=1e-10)
    ours = OrderedLogisticRegression(link=link).fit(X, y)
    np.testing.assert_allclose(ours.coef_, result.params[:3], rtol=1e-6)
    np.testing.assert_allclose(ours.thresholds_, sm.transform_threshold_params(result.params)[1:-1],
                               rtol=1e-6)
    np.testing.assert_allclose(ours.log_likelihood_, result.llf, rtol=1e-10)


@pytest.mark.parametrize("link", ["logit", "probit"])
def test_gradient_and_hessian_match_finite_differences(link):
    rng = np.random.default_rng(3)
    X, y, w, _ = problem("simulated_weighted_logit")
    coef, zeta = rng.normal(scale=0.5, size=3), np.array([-1.2, 0.1, 0.9])
    f = get_link(link)
    got = likelihood.derivatives(X, y, w, coef, zeta, f)
    theta = np.r_[coef, zeta]

    def value(t):
        return likelihood.log_likelihood(X, y, w, t[:3], t[3:], f)

    def gradient(t):
        return likelihood.derivatives(X, y, w, t[:3], t[3:], f).gradient

    h = 1e-6
    eye = np.eye(theta.size)
    numeric_g = np.array([(value(theta + h * e) - value(theta - h * e)) / (2 * h) for e in eye])
    numeric_h = np.array([(gradient(theta + h * e) - gradient(theta - h * e)) / (2 * h) for e in eye])
    np.testing.assert_allclose(got.value, value(theta), rtol=1e-14)
    np.testing.assert_allclose(got.gradient, numeric_g, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got.hessian, numeric_h, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(got.hessian, got.hessian.T)


@pytest.mark.parametrize("link", ["logit", "probit"])
def test_far_tails_give_finite_logs_and_no_nan(link):
    X, y, w, _ = problem(f"simulated_{link}")
    model = OrderedLogisticRegression(link=link).fit(X, y)
    far = np.outer([-1e6, -60.0, -30.0, 30.0, 60.0, 1e6], model.coef_ / np.linalg.norm(model.coef_))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        log_p = model.predict_log_proba(far)
        P = model.predict_proba(far)
    assert not np.any(np.isnan(log_p)) and not np.any(log_p == np.inf)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    # the extreme classes are certain far out, and their neighbours' logs stay finite at +-30
    np.testing.assert_array_equal(model.predict(far), [0, 0, 0, 3, 3, 3])
    assert np.all(np.isfinite(log_p[2:4]))
    # exact in log space where 1 - p would round: log P(y = 0) at eta -> +30 is log F(zeta_1 - eta)
    eta = model.linear_predictor(far[3:4])
    expected = get_link(link).log_cdf(model.thresholds_[0] - eta)
    np.testing.assert_allclose(log_p[3, 0], expected[0], rtol=1e-12)


def test_two_classes_are_logistic_regression():
    X, y, _, _ = problem("simulated_logit")
    binary = (y >= 2).astype(int)
    ours = OrderedLogisticRegression(tol=1e-12).fit(X, binary)
    glm = linclass.LogisticRegression(C=np.inf, tol=1e-12).fit(X, binary)
    np.testing.assert_allclose(ours.coef_, glm.coef_[0], rtol=1e-7)
    np.testing.assert_allclose(-ours.thresholds_, glm.intercept_, rtol=1e-7)
    np.testing.assert_allclose(ours.predict_proba(X), glm.predict_proba(X), rtol=1e-7)
    np.testing.assert_allclose(ours.decision_function(X), glm.decision_function(X), rtol=1e-6,
                               atol=1e-9)


def test_decision_function_and_linear_predictor():
    X, y, _, _ = problem("simulated_probit")
    model = OrderedLogisticRegression(link="probit").fit(X, y)
    np.testing.assert_allclose(model.linear_predictor(X), X @ model.coef_)
    scores = model.decision_function(X)
    assert scores.shape == (X.shape[0], 4)
    np.testing.assert_array_equal(model.classes_[scores.argmax(axis=1)], model.predict(X))


@pytest.mark.parametrize("y, weights, message", [
    (np.zeros(6, int), None, r"only one class \(0\)"),
    (np.array([0, 1, 2, 0, 1, 2]), np.array([1, 0, 1, 1, 0, 1.0]),
     r"Class\(es\) \[1\] of y have no sample with positive sample_weight"),
])
def test_bad_labels_are_refused_clearly(y, weights, message):
    X = np.arange(12.0).reshape(6, 2) % 5
    with pytest.raises(ValueError, match=message):
        OrderedLogisticRegression().fit(X, y, sample_weight=weights)


def test_bad_settings_and_missing_labels_are_refused():
    X = np.random.default_rng(0).normal(size=(6, 2))
    with pytest.raises(ValueError, match="link"):
        OrderedLogisticRegression(link="cloglog").fit(X, [0, 1, 2, 0, 1, 2])
    y = pd.Series(pd.Categorical(["a", "b", None, "a", "b", "c"], categories=["a", "b", "c"]))
    with pytest.raises(ValueError, match="1 missing label"):
        OrderedLogisticRegression().fit(X, y)


def test_summary_names_statsmodels_fields():
    X, y, _, _ = problem("simulated_logit")
    table = OrderedLogisticRegression().fit(X, y).summary()
    assert list(table.params.index) == ["x0", "x1", "x2", "0|1", "1|2", "2|3"]
    frame = table.to_frame()
    assert list(frame.columns) == ["Value", "Std. Error", "t value", "p value"]
    intervals = table.conf_int(0.1)
    np.testing.assert_allclose(intervals[1] - intervals[0], 2 * 1.6448536269514722 * table.std_err)
    np.testing.assert_allclose(np.sqrt(np.diag(table.cov_params())), table.bse)
    assert 0 < table.prsquared < 1 and table.llr_pvalue < 1e-10


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), K=st.integers(2, 5), link=st.sampled_from(["logit", "probit"]),
       scale=st.floats(0.1, 5.0))
def test_probabilities_sum_to_one_and_thresholds_increase(seed, K, link, scale):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(120, 2))
    latent = scale * (X @ [1.0, -0.7]) + rng.logistic(size=120)
    y = np.argsort(np.argsort(latent)) * K // 120  # K classes of equal size, ordered by the latent
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (a large scale may separate the classes)
        model = OrderedLogisticRegression(link=link).fit(X, y)
    assert np.all(np.diff(model.thresholds_) > 0)
    X_new = rng.normal(scale=3.0, size=(50, 2))
    P = model.predict_proba(X_new)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(P >= 0)
    # cumulative probabilities fall as the latent score rises
    order = np.argsort(model.linear_predictor(X_new))
    cumulative = np.cumsum(P[order], axis=1)[:, :-1]
    assert np.all(np.diff(cumulative, axis=0) <= 1e-12)


def test_a_saved_model_keeps_its_summary_and_the_command_prints_it(tmp_path, capsys):
    from linclass.cli import main

    X, y, w, _ = problem("simulated_weighted_logit")
    frame = pd.DataFrame(X, columns=["x1", "x2", "x3"]).assign(y=y)
    model = OrderedLogisticRegression().fit(frame[["x1", "x2", "x3"]], frame["y"], sample_weight=w)
    linclass.save(model, tmp_path / "m.linclass")
    loaded = linclass.load(tmp_path / "m.linclass")
    a, b = model.summary(), loaded.summary()
    np.testing.assert_array_equal(a.coef, b.coef)
    np.testing.assert_array_equal(a.std_err, b.std_err)
    assert (b.names, b.dep_variable, b.nobs) == (["x1", "x2", "x3"], "y", w.sum())
    frame.to_csv(tmp_path / "sim.csv", index=False)
    out = tmp_path / "cli.linclass"
    assert main(["fit", "--model", "polr", "--param", "link=probit", "--data", str(tmp_path / "sim.csv"),
                 "--target", "y", "--out", str(out)]) == 0
    assert main(["summary", "--model-file", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Proportional odds model (probit link)" in text and "2|3" in text
    ref = OrderedLogisticRegression(link="probit").fit(X, y)
    np.testing.assert_allclose(linclass.load(out).thresholds_, ref.thresholds_, rtol=1e-9)


def test_summary_refuses_what_it_does_not_compute():
    X, y, _, _ = problem("simulated_logit")
    model = OrderedLogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="Wald's table only"):
        model.summary(ci="profile")
    with pytest.raises(ValueError, match="Wald's table only"):
        model.summary(cov_type="HC0", X=X, y=y)
    with pytest.raises(linclass.exceptions.NotFittedError):
        OrderedLogisticRegression().summary()


def test_dask_collections_fit_from_their_blocks():
    da = pytest.importorskip("dask.array")
    X, y, w, link = problem("simulated_weighted_logit")
    model = OrderedLogisticRegression(link=link).fit(da.from_array(X, chunks=70),
                                                     da.from_array(y, chunks=70),
                                                     sample_weight=da.from_array(w, chunks=70))
    ref = REFERENCE["simulated_weighted_logit"]
    np.testing.assert_allclose(model.coef_, ref["coef"], rtol=RTOL)
    np.testing.assert_allclose(model.thresholds_, ref["zeta"], rtol=RTOL)
    lazy = model.predict_proba(da.from_array(X, chunks=70))
    np.testing.assert_allclose(lazy.compute(), np.array(ref["fitted"]), rtol=RTOL)
