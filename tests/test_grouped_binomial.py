"""Grouped binomial responses (successes, failures) against R's ``glm(cbind(NABOVE, NBELOW) ~ ...,
family = binomial)`` on the star98 data (tests/data/r/grouped_binomial.R and its saved output):
the formula's ``cbind`` and the estimator's two-column y; the summary's deviance, null deviance,
degrees of freedom, AIC, BIC and log-likelihood; diagnostics per group; predictions with standard
errors; drop1 and the likelihood-ratio test (R's anova)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import linclass

DATA = Path(__file__).parent / "data" / "r"
REFERENCE = pd.read_csv(DATA / "grouped_binomial.csv", keep_default_na=False, na_values=["NA"])
STAR = pd.read_csv(DATA / "star98.csv")
COLUMNS = [c for c in STAR.columns if c not in ("NABOVE", "NBELOW")]
SMALL = ["LOWINC", "PERASIAN", "PERBLACK", "PERHISP", "PCTCHRT", "PCTYRRND"]
RTOL = 1e-6


def ref(case: str, quantity: str) -> pd.Series:
    rows = REFERENCE[(REFERENCE["case"] == case) & (REFERENCE["quantity"] == quantity)]
    return pd.Series(rows["value"].to_numpy(dtype=float), index=rows["term"].astype(str).to_numpy())


def scalar(case: str, quantity: str) -> float:
    return float(ref(case, quantity).iloc[0])


def formula_model(columns=COLUMNS):
    return linclass.from_formula("cbind(NABOVE, NBELOW) ~ " + " + ".join(columns), STAR,
                                 linclass.LogisticRegression(penalty=None, tol=1e-10))


def array_model(X=None, **fit):
    X = STAR[COLUMNS] if X is None else X
    return linclass.LogisticRegression(penalty=None, tol=1e-10).fit(
        X, STAR[["NABOVE", "NBELOW"]], **fit)


@pytest.fixture(scope="module")
def full():
    return formula_model()


def check_table(case: str, table) -> None:
    names = ["(Intercept)" if n == "const" else n for n in table.names]
    np.testing.assert_allclose(table.coef[0], ref(case, "coef")[names].to_numpy(), rtol=RTOL)
    np.testing.assert_allclose(table.std_err[0], ref(case, "se")[names].to_numpy(), rtol=RTOL)
    for quantity, value in [("deviance", table.deviance), ("null_deviance", table.null_deviance),
                            ("aic", table.aic), ("bic", table.bic), ("loglik", table.llf)]:
        assert value == pytest.approx(scalar(case, quantity), rel=1e-8), quantity
    assert table.df_resid == scalar(case, "df_residual")
    assert table.df_null == scalar(case, "df_null")
    assert table.nobs == scalar(case, "nobs")


def test_formula_cbind_is_r_glm(full):
    table = full.summary()
    check_table("star98", table)
    assert table.dep_variable == "cbind(NABOVE, NBELOW)"
    text = str(table)
    assert "Residual deviance: 4078.77 on 282 degrees of freedom" in text
    assert "Null deviance: 34345.37 on 302 degrees of freedom" in text


def test_array_form_is_the_same_model(full):
    """y of shape (n, 2): (successes, failures) per row, as statsmodels' GLM Binomial endog; a
    plain array and a sparse X give the same table."""
    by_frame = array_model().summary()
    check_table("star98", by_frame)
    X = STAR[COLUMNS].to_numpy()
    plain = linclass.LogisticRegression(penalty=None, tol=1e-10).fit(
        X, STAR[["NABOVE", "NBELOW"]].to_numpy()).summary()
    np.testing.assert_allclose(plain.coef, by_frame.coef, rtol=1e-8)
    assert plain.deviance == pytest.approx(by_frame.deviance, rel=1e-10)
    assert plain.dep_variable == "y"
    small = STAR[SMALL].to_numpy()
    dense = linclass.LogisticRegression(penalty=None, tol=1e-10).fit(
        small, STAR[["NABOVE", "NBELOW"]].to_numpy()).summary()
    sparse = linclass.LogisticRegression(penalty=None, tol=1e-10).fit(
        sp.csr_matrix(small), STAR[["NABOVE", "NBELOW"]].to_numpy()).summary()
    np.testing.assert_allclose(sparse.coef, dense.coef, rtol=1e-7)
    assert sparse.deviance == pytest.approx(dense.deviance, rel=1e-9)


def test_today_route_of_expanded_rows_gives_the_trials_model(full):
    """Frequency weights on expanded 0/1 rows reach the same parameters but count trials as
    observations (the deviance, df and AIC of the individual trials)."""
    n = len(STAR)
    X = pd.concat([STAR[COLUMNS], STAR[COLUMNS]], ignore_index=True)
    y = np.r_[np.ones(n), np.zeros(n)]
    w = np.r_[STAR["NABOVE"], STAR["NBELOW"]].astype(float)
    rows = linclass.LogisticRegression(penalty=None, tol=1e-10).fit(X, y, sample_weight=w)
    table, grouped = rows.summary(), full.summary()
    np.testing.assert_allclose(table.coef, grouped.coef, rtol=1e-6)
    assert table.df_resid == w.sum() - 21
    # D = 2 (l_sat - l), l = the trials' log-likelihood plus the binomial coefficients
    assert grouped.deviance == pytest.approx(2 * grouped.saturated_log_likelihood + table.deviance
                                             - 2 * (grouped.llf - table.llf), rel=1e-9)


def test_diagnostics_per_group(full):
    diag = linclass.diagnostics(full, STAR)
    for name in ["fitted", "deviance_residuals", "pearson_residuals", "hat", "cooks_distance",
                 "standardized_residuals"]:
        np.testing.assert_allclose(getattr(diag, name), ref("star98", name).to_numpy(),
                                   rtol=RTOL, atol=1e-12, err_msg=name)
    share = STAR["NABOVE"] / (STAR["NABOVE"] + STAR["NBELOW"])
    np.testing.assert_allclose(share - diag.fitted, ref("star98", "response_residuals"),
                               rtol=RTOL)
    for name in ["response_residuals", "working_residuals"]:
        np.testing.assert_allclose(getattr(diag, name), ref("star98", name).to_numpy(),
                                   rtol=RTOL, err_msg=name)
    by_array = linclass.diagnostics(array_model(), STAR[COLUMNS], STAR[["NABOVE", "NBELOW"]])
    np.testing.assert_allclose(by_array.hat, diag.hat, rtol=1e-7)


def test_prediction_with_standard_errors(full):
    frame = full.get_prediction(STAR.iloc[:10]).summary_frame()
    for column, quantity in [("mean", "mean"), ("mean_se", "mean_se"), ("linpred", "linpred"),
                             ("linpred_se", "linpred_se")]:
        np.testing.assert_allclose(frame[column].to_numpy(), ref("star98", quantity).to_numpy(),
                                   rtol=RTOL, err_msg=column)


def test_drop1_and_anova(full):
    table = linclass.drop1(full, STAR)
    terms = ["<none>", *COLUMNS]
    assert list(table.index) == terms
    for column, quantity in [("Deviance", "drop1_deviance"), ("AIC", "drop1_aic"),
                             ("LRT", "drop1_lrt")]:
        expected = ref("star98", quantity)[terms].to_numpy()
        np.testing.assert_allclose(table[column].to_numpy(), expected, rtol=RTOL, err_msg=column)
    p = ref("star98", "drop1_p")[COLUMNS].to_numpy()
    np.testing.assert_allclose(table["Pr(>Chi)"].to_numpy()[1:], p, rtol=1e-5, atol=1e-300)

    small = formula_model(SMALL)
    check_table("star98_small", small.summary())
    test = linclass.lr_test(small, full)
    assert test.df == scalar("star98", "anova_df")
    assert test.statistic == pytest.approx(scalar("star98", "anova_deviance"), rel=RTOL)
    assert test.deviance_small == pytest.approx(float(ref("star98", "anova_resid_dev")["small"]),
                                                rel=1e-8)
    assert test.deviance_large == pytest.approx(float(ref("star98", "anova_resid_dev")["full"]),
                                                rel=1e-8)


def test_prior_weights_multiply_the_counts():
    """R's weights with cbind: each row's log-likelihood times its weight; weight 2 everywhere
    doubles the deviance and leaves the estimate."""
    once, twice = array_model().summary(), array_model(sample_weight=np.full(len(STAR), 2.0))
    twice = twice.summary()
    np.testing.assert_allclose(twice.coef, once.coef, rtol=1e-6)
    assert twice.deviance == pytest.approx(2 * once.deviance, rel=1e-8)


def test_empty_and_one_sided_groups():
    """A row of no trials takes no part; a row of successes only has its saturated
    log-likelihood at 0 (x log x = 0)."""
    d = STAR[SMALL[:3]].iloc[:40].copy()
    counts = STAR[["NABOVE", "NBELOW"]].iloc[:40].to_numpy().copy()
    counts[0] = [0, 0]
    counts[1] = [12, 0]
    model = linclass.LogisticRegression(penalty=None, tol=1e-10).fit(d, counts)
    kept = linclass.LogisticRegression(penalty=None, tol=1e-10).fit(d.iloc[1:], counts[1:])
    a, b = model.summary(), kept.summary()
    np.testing.assert_allclose(a.coef, b.coef, rtol=1e-7)
    assert a.deviance == pytest.approx(b.deviance, rel=1e-9)
    assert a.nobs == b.nobs == 39


@pytest.mark.parametrize("counts, message", [
    (np.c_[np.arange(10.0), -np.ones(10)], "negative counts"),
    (np.c_[np.arange(10.0), np.full(10, np.nan)], "NaN"),
    (np.zeros((10, 2)), "no trials"),
    (np.ones((9, 2)), "inconsistent numbers"),
])
def test_bad_counts_are_refused(counts, message):
    X = np.arange(10.0)[:, None]
    with pytest.raises(ValueError, match=message):
        linclass.LogisticRegression(penalty=None).fit(X, counts)


@pytest.mark.parametrize("quantity, options", [
    ("se_HC0", {"cov_type": "HC0"}),
    ("se_HC1", {"cov_type": "HC1"}),
    ("se_cluster", {"cov_type": "cluster"}),
    ("se_cluster_HC1", {"cov_type": "cluster", "cluster_correction": "statsmodels"}),
])
def test_sandwich_of_the_groups_is_r_vcovhc_and_vcovcl(quantity, options):
    """R's sandwich on a glm with cbind: one score per row (county), N the rows."""
    model = formula_model(SMALL)
    if options["cov_type"] == "cluster":
        options = dict(options, groups=np.arange(len(STAR)) % 25)
    table = model.summary(data=STAR, **options)
    names = ["(Intercept)" if n == "const" else n for n in table.names]
    np.testing.assert_allclose(table.std_err[0], ref("star98_small", quantity)[names].to_numpy(),
                               rtol=RTOL)


def test_sandwich_refusals(full):
    with pytest.raises(ValueError, match="grouped binomial.*HC0"):
        full.summary(cov_type="HC3", data=STAR)
    weighted = array_model(sample_weight=np.full(len(STAR), 2.0))
    with pytest.raises(ValueError, match="weight_type='variance'"):
        weighted.summary(cov_type="HC0", X=STAR[COLUMNS], y=STAR[["NABOVE", "NBELOW"]],
                         sample_weight=np.full(len(STAR), 2.0))
    with pytest.raises(ValueError, match="grouped binomial"):
        full.marginal_effects(STAR, cov_type="HC0")


def test_cbind_needs_two_columns():
    with pytest.raises(ValueError, match="two columns"):
        linclass.from_formula("cbind(NABOVE) ~ LOWINC", STAR)


def test_cbind_of_expressions():
    """The failures written from the trials, as R's cbind(s, n - s)."""
    d = STAR.assign(TRIALS=STAR["NABOVE"] + STAR["NBELOW"])
    model = linclass.from_formula("cbind(NABOVE, I(TRIALS - NABOVE)) ~ " + " + ".join(SMALL), d,
                                  linclass.LogisticRegression(penalty=None, tol=1e-10))
    check_table("star98_small", model.summary())


def test_model_file_keeps_the_grouped_model(full, tmp_path):
    loaded = linclass.load(linclass.save(full, tmp_path / "star98.linclass"))
    assert str(loaded.summary()) == str(full.summary())
    assert loaded.summary().deviance == full.summary().deviance


def test_score_is_the_accuracy_over_the_trials():
    model = array_model()
    counts = STAR[["NABOVE", "NBELOW"]].to_numpy(float)
    predicted = model.predict(STAR[COLUMNS])
    right = np.where(predicted == 1, counts[:, 0], counts[:, 1]).sum()
    assert model.score(STAR[COLUMNS], counts) == pytest.approx(right / counts.sum(), rel=1e-12)
    formula = formula_model(SMALL)
    assert 0.5 < formula.score(STAR) < 1.0


def test_titles_name_the_counts(full):
    assert full.summary().title == "Logistic regression: log-odds of NABOVE against NBELOW"
    plain = linclass.LogisticRegression(penalty=None).fit(
        STAR[SMALL].to_numpy(), STAR[["NABOVE", "NBELOW"]].to_numpy())
    assert plain.summary().title.endswith("log-odds of successes against failures")


def test_offset_with_grouped_counts():
    """R's glm(cbind(NABOVE, NBELOW) ~ LOWINC + PERASIAN + offset(o)): the null model is the
    intercept with the offset; drop1 and profile intervals take the offset per row."""
    d = STAR.assign(o=0.01 * STAR["PCTAF"])
    model = linclass.from_formula("cbind(NABOVE, NBELOW) ~ LOWINC + PERASIAN + offset(o)", d,
                                  linclass.LogisticRegression(penalty=None, tol=1e-10))
    table = model.summary()
    names = ["(Intercept)" if n == "const" else n for n in table.names]
    np.testing.assert_allclose(table.coef[0], ref("star98_offset", "coef")[names], rtol=RTOL)
    np.testing.assert_allclose(table.std_err[0], ref("star98_offset", "se")[names], rtol=RTOL)
    assert table.deviance == pytest.approx(scalar("star98_offset", "deviance"), rel=1e-8)
    assert table.null_deviance == pytest.approx(scalar("star98_offset", "null_deviance_refit"),
                                                rel=1e-8)
    assert table.aic == pytest.approx(scalar("star98_offset", "aic"), rel=1e-8)
    assert linclass.drop1(model, d).loc["<none>", "Deviance"] == pytest.approx(table.deviance)
    assert np.all(np.isfinite(model.summary(ci="profile", data=d).conf_int().to_numpy()))


def test_class_weight_is_refused_with_counts():
    with pytest.raises(ValueError, match="class_weight"):
        linclass.LogisticRegression(penalty=None, class_weight="balanced").fit(
            STAR[SMALL], STAR[["NABOVE", "NBELOW"]])
