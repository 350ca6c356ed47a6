"""The statistician's workflow against R's glm (tests/data/r/glm_workflow.R, its saved output):
deviance tables on MASS's birthwt and Pima.tr, infert and UCBAdmissions (frequency weights);
offsets (coefficients, standard errors, null deviance, predictions with standard errors, hat values,
Cook's distances, drop1, anova); aliased columns (NA coefficients); and statsmodels' var_weights."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import linclass
from linclass.exceptions import SingularCovarianceWarning

DATA = Path(__file__).parent / "data" / "r"
REFERENCE = pd.read_csv(DATA / "glm_workflow.csv", keep_default_na=False, na_values=["NA"])
RTOL = 1e-7


def ref(case: str, quantity: str) -> pd.Series:
    """R's values of ``quantity`` for ``case``, indexed by term."""
    rows = REFERENCE[(REFERENCE["case"] == case) & (REFERENCE["quantity"] == quantity)]
    return pd.Series(rows["value"].to_numpy(dtype=float), index=rows["term"].astype(str).to_numpy())


def scalar(case: str, quantity: str) -> float:
    return float(ref(case, quantity).iloc[0])


def r_names(names) -> list[str]:
    return ["(Intercept)" if n == "const" else n for n in names]


def birthwt() -> pd.DataFrame:
    return pd.read_csv(DATA / "profile_confint_data.csv")


def problem(case: str):
    """``(X, y, sample_weight, model parameters)`` of R's fit ``case``."""
    if case == "birthwt":
        d = birthwt()
        return d[["age", "lwt", "smoke", "ht", "ui"]], d["low"], None, {}
    if case == "pima":
        d = pd.read_csv(DATA / "glm_pima.csv")
        return d[["npreg", "glu", "bmi", "ped", "age"]], d["diabetic"], None, {}
    if case == "infert":
        d = pd.read_csv(DATA / "glm_infert.csv")
        return d[["age", "parity", "induced", "spontaneous"]], d["case"], None, {}
    if case == "ucb":
        d = pd.read_csv(DATA / "glm_ucb.csv")
        X = pd.DataFrame({"GenderFemale": (d["Gender"] == "Female").astype(float)})
        for dept in "BCDEF":
            X[f"Dept{dept}"] = (d["Dept"] == dept).astype(float)
        return X, d["admitted"], d["Freq"].to_numpy(float), {"weight_type": "variance"}
    raise KeyError(case)


def fit(X, y, w=None, offset=None, **params):
    return linclass.LogisticRegression(penalty=None, tol=1e-10, **params).fit(
        X, y, sample_weight=w, offset=offset)


def check_table(case: str, table, *, vcov: bool = True) -> None:
    """The summary ``table`` against R's coefficients, standard errors, deviances, degrees of
    freedom, AIC and vcov for ``case``."""
    names = r_names(table.names)
    coef, se = ref(case, "coef")[names], ref(case, "se")[names]
    np.testing.assert_allclose(table.coef[0], coef.to_numpy(), rtol=RTOL, atol=1e-9)
    np.testing.assert_allclose(table.std_err[0], se.to_numpy(), rtol=RTOL, atol=1e-9)
    assert table.deviance == pytest.approx(scalar(case, "deviance"), rel=1e-9)
    assert table.null_deviance == pytest.approx(scalar(case, "null_deviance"), rel=1e-9)
    assert table.df_resid == scalar(case, "df_residual")
    assert table.df_null == scalar(case, "df_null")
    assert table.aic == pytest.approx(scalar(case, "aic"), rel=1e-9)
    if vcov:
        estimated = [n for n, c in zip(names, table.coef[0]) if np.isfinite(c)]
        reference = ref(case, "vcov")
        expected = np.array([[reference[f"{a}:{b}"] for b in estimated] for a in estimated])
        ours = table.cov_params()
        ours.index = ours.columns = names
        np.testing.assert_allclose(ours.loc[[n for n in names if n in estimated],
                                            [n for n in names if n in estimated]].to_numpy(),
                                   expected, rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("case", ["birthwt", "pima", "infert", "ucb"])
def test_deviance_tables_match_glm(case):
    X, y, w, params = problem(case)
    table = fit(X, y, w, **params).summary()
    check_table(case, table)
    text = str(table)
    assert (f"Null deviance: {scalar(case, 'null_deviance'):.2f} on "
            f"{scalar(case, 'df_null'):g} degrees of freedom") in text
    assert (f"Residual deviance: {scalar(case, 'deviance'):.2f} on "
            f"{scalar(case, 'df_residual'):g} degrees of freedom") in text


def test_frequency_and_variance_weights_differ_only_in_what_counts_as_an_observation():
    """UCBAdmissions as 24 cells with counts: as frequency weights the cells are 4526 applicants
    (the fit on the expanded table), as R's prior (variance) weights 24 observations; the
    estimates, standard errors and deviances are the same."""
    X, y, w, _ = problem("ucb")
    frequency = fit(X, y, w).summary()
    variance = fit(X, y, w, weight_type="variance").summary()
    expanded = fit(X.loc[X.index.repeat(w.astype(int))], y.loc[y.index.repeat(w.astype(int))])
    np.testing.assert_allclose(frequency.coef, variance.coef, rtol=1e-12)
    np.testing.assert_allclose(frequency.std_err, expanded.summary().std_err, rtol=1e-7)
    assert frequency.nobs == 4526 and frequency.df_resid == 4526 - 7
    assert variance.nobs == 24 and variance.df_resid == scalar("ucb", "df_residual") == 17
    assert frequency.bic == pytest.approx(-2 * frequency.llf + 7 * np.log(4526))
    assert variance.bic == pytest.approx(-2 * variance.llf + 7 * np.log(24))
    assert "frequency weights" in str(frequency) and "variance (analytic) weights" in str(variance)


# ------------------------------------------------------------------------------------- offsets
def offset_problem(weighted: bool):
    d = birthwt()
    X = d[["age", "smoke", "ht", "ui"]]
    o = 0.02 * (d["lwt"].to_numpy(float) - 120)
    w = d["freq"].to_numpy(float) if weighted else None
    return X, d["low"], w, o


@pytest.mark.parametrize("weighted", [False, True])
def test_offset_matches_glm(weighted):
    case = "offset_weighted" if weighted else "offset"
    X, y, w, o = offset_problem(weighted)
    model = fit(X, y, w, o, weight_type="variance")
    check_table(case, model.summary())
    # predictions of new rows with their own offsets (R's predict(se.fit = TRUE))
    new, o_new = X.iloc[:12], np.linspace(-1, 1, 12)
    prediction = model.get_prediction(new, offset=o_new)
    np.testing.assert_allclose(prediction.linpred, ref(case, "predict_link").to_numpy(), rtol=1e-8)
    np.testing.assert_allclose(prediction.se_linpred, ref(case, "predict_se").to_numpy(), rtol=1e-7)
    np.testing.assert_allclose(model.predict_proba(new, offset=o_new)[:, 1],
                               1 / (1 + np.exp(-prediction.linpred)), rtol=1e-12)
    # case diagnostics with the offset
    diag = linclass.diagnostics(model, X, y, sample_weight=w, offset=o)
    np.testing.assert_allclose(diag.hat, ref(case, "hat").to_numpy(), rtol=1e-7)
    np.testing.assert_allclose(diag.cooks_distance, ref(case, "cooks").to_numpy(), rtol=1e-6)
    np.testing.assert_allclose(diag.standardized_residuals, ref(case, "rstandard").to_numpy(),
                               rtol=1e-7)
    # nested-model tests with the offset
    table = linclass.drop1(model, X, y, sample_weight=w, offset=o)
    np.testing.assert_allclose(table.loc[list(X.columns), "Deviance"],
                               ref(case, "drop1_deviance")[list(X.columns)], rtol=1e-8)
    np.testing.assert_allclose(table.loc[list(X.columns), "LRT"],
                               ref(case, "drop1_lrt")[list(X.columns)], rtol=1e-6)
    small = fit(X[["age", "smoke"]], y, w, o, weight_type="variance")
    test = linclass.lr_test(small, model)
    assert test.statistic == pytest.approx(scalar(case, "anova_lrt"), rel=1e-7)
    assert test.pvalue == pytest.approx(scalar(case, "anova_p"), rel=1e-6)


@pytest.mark.parametrize("intercept", [True, False])
def test_offset_of_log_age_on_pima(intercept):
    d = pd.read_csv(DATA / "glm_pima.csv")
    case = "offset_pima" if intercept else "offset_pima_no_intercept"
    model = fit(d[["glu", "bmi", "ped"]], d["diabetic"], None, np.log(d["age"].to_numpy(float)),
                fit_intercept=intercept)
    check_table(case, model.summary())


def test_offset_is_a_fixed_coefficient_for_every_penalty_and_solver():
    """An offset is a column whose coefficient is held at one: the fit with the offset equals
    the fit with that column added, bounded to [1, 1] and never penalised (solver 'cd'), for the
    lasso, the elastic net and ridge, and every smooth solver reaches the unpenalised optimum."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    o = np.random.default_rng(0).normal(size=y.size)
    Xo = np.column_stack([X, o])
    d = X.shape[1]
    factor, lower, upper = np.r_[np.ones(d), 0.0], np.r_[np.full(d, -np.inf), 1.0], \
        np.r_[np.full(d, np.inf), 1.0]
    for params in ({"penalty": "l1", "C": 0.1}, {"penalty": "elasticnet", "l1_ratio": 0.5, "C": 0.5},
                   {"penalty": "l2", "C": 0.3}):
        ours = linclass.LogisticRegression(solver="cd", tol=1e-10, **params).fit(X, y, offset=o)
        column = linclass.LogisticRegression(solver="cd", tol=1e-10, penalty_factor=factor,
                                             lower_bounds=lower, upper_bounds=upper,
                                             **params).fit(Xo, y)
        np.testing.assert_allclose(ours.coef_[0], column.coef_[0, :d], atol=1e-7)
        assert ours.intercept_[0] == pytest.approx(column.intercept_[0], abs=1e-7)
    reference = linclass.LogisticRegression(penalty=None, solver="newton", tol=1e-10).fit(
        X[:, :6], y, offset=o)
    for solver in ("lbfgs", "cd", "auto"):
        other = linclass.LogisticRegression(penalty=None, solver=solver, tol=1e-10,
                                            max_iter=2000).fit(X[:, :6], y, offset=o)
        assert other.log_likelihood_ == pytest.approx(reference.log_likelihood_, rel=1e-9)


def test_softmax_offsets_on_wine_reach_the_optimum_of_the_likelihood():
    from scipy.optimize import minimize
    from scipy.special import logsumexp
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True)
    X = ((X - X.mean(0)) / X.std(0))[:, :4]
    O = np.random.default_rng(1).normal(size=(y.size, 3))
    model = linclass.LogisticRegression(penalty=None, tol=1e-10).fit(X, y, offset=O)
    Z = np.column_stack([np.ones(y.size), X])

    def negative_log_likelihood(t):
        S = Z @ np.column_stack([np.zeros(Z.shape[1]), t.reshape(Z.shape[1], 2)]) + O
        return -(S[np.arange(y.size), y] - logsumexp(S, axis=1)).sum()

    best = minimize(negative_log_likelihood, np.zeros(2 * Z.shape[1]), method="BFGS",
                    options={"gtol": 1e-9}).fun
    assert -model.log_likelihood_ <= best + 1e-8
    assert model.log_likelihood_ == pytest.approx(-best, rel=1e-9)
    # the probabilities take the rows' offsets; a shift shared by every class changes nothing
    P = model.predict_proba(X, offset=O)
    np.testing.assert_allclose(model.predict_proba(X, offset=O + 3.0), P, rtol=1e-12)
    assert np.allclose(P.sum(axis=1), 1.0)
    # the null model with the offset: intercepts only, as a constant column without intercept
    null = linclass.LogisticRegression(penalty=None, tol=1e-10, fit_intercept=False).fit(
        np.ones((y.size, 1)), y, offset=O)
    assert model.summary().llnull == pytest.approx(null.log_likelihood_, rel=1e-9)


def test_offset_bad_inputs_name_the_problem():
    X, y, w, o = offset_problem(False)
    with pytest.raises(ValueError, match=r"shape \(189,\)"):
        fit(X, y, offset=o[:-1])
    with pytest.raises(ValueError, match="NaN or infinite.*rows \\[3\\]"):
        fit(X, y, offset=np.where(np.arange(o.size) == 3, np.nan, o))
    from sklearn.datasets import load_iris

    Xi, yi = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="cancels in the softmax"):
        fit(Xi, yi, offset=np.zeros(150))
    with pytest.raises(ValueError, match="penalty='firth' takes no offset"):
        linclass.LogisticRegression(penalty="firth").fit(X, y, offset=o)
    model = fit(X, y, offset=o)
    with pytest.raises(ValueError, match="fitted with an offset; pass the training rows' offset"):
        model.summary(cov_type="HC0", X=X, y=y)
    with pytest.raises(ValueError, match="not the offset the model was fitted with"):
        model.summary(cov_type="HC0", X=X, y=y, offset=o + 1)
    with pytest.raises(ValueError, match="fitted without an offset"):
        fit(X, y).summary(cov_type="HC0", X=X, y=y, offset=o)
    with pytest.raises(ValueError, match="different offsets"):
        linclass.lr_test(fit(X[["age"]], y), model)
    with pytest.raises(ValueError, match="offset"):
        model.marginal_effects(X)
    robust = model.summary(cov_type="HC0", X=X, y=y, offset=o)
    assert np.all(np.isfinite(robust.std_err))


def test_offset_with_dask_is_refused_clearly():
    da = pytest.importorskip("dask.array")
    X, y, w, o = offset_problem(False)
    with pytest.raises(ValueError, match="offset= is taken for rows in memory"):
        linclass.LogisticRegression().fit(da.from_array(X.to_numpy()), y.to_numpy(), offset=o)
    model = fit(X, y, offset=o)
    with pytest.raises(ValueError, match="takes X alone"):
        model.predict_proba(da.from_array(X.to_numpy()), offset=o)


# ------------------------------------------------------------------------------- aliased columns
def aliased_problem(case: str):
    if case == "aliased_race":
        d = birthwt()
        X = pd.DataFrame({"age": d.age, "lwt": d.lwt, "r1": (d.race == 1) * 1.0,
                          "r2": (d.race == 2) * 1.0, "r3": (d.race == 3) * 1.0, "smoke": d.smoke})
        return X, d["low"]
    d = pd.read_csv(DATA / "glm_infert.csv")
    X = d[["age", "induced"]].assign(total=d.induced + d.spontaneous, spontaneous=d.spontaneous,
                                     parity=d.parity)
    return X, d["case"]


@pytest.mark.parametrize("case", ["aliased_race", "aliased_total"])
def test_aliased_columns_are_na_as_in_glm(case):
    X, y = aliased_problem(case)
    with pytest.warns(SingularCovarianceWarning, match="linear combination"):
        model = fit(X, y)
    table = model.summary()
    check_table(case, table)
    names = r_names(table.names)
    expected_na = [n for n in names if np.isnan(ref(case, "coef")[n])]
    assert table.aliased == expected_na and "NA" in str(table)
    np.testing.assert_array_equal(model.aliased_, [n in expected_na for n in X.columns])
    assert table.df_model == len(names) - 1 - len(expected_na)
    # the same model as without the aliased column: probabilities, deviance, robust covariance
    kept = [c for c in X.columns if c not in expected_na]
    with warnings.catch_warnings():
        warnings.simplefilter("error", SingularCovarianceWarning)
        reduced = fit(X[kept], y)
    np.testing.assert_allclose(model.predict_proba(X), reduced.predict_proba(X[kept]), rtol=1e-9)
    robust = model.summary(cov_type="HC0", X=X, y=y)
    robust_reduced = reduced.summary(cov_type="HC0", X=X[kept], y=y)
    np.testing.assert_allclose(robust.bse[["const", *kept]], robust_reduced.bse, rtol=1e-8)
    assert np.isnan(robust.bse[expected_na[0]])
    profile = model.summary(ci="profile", X=X, y=y)
    reduced_profile = reduced.summary(ci="profile", X=X[kept], y=y)
    np.testing.assert_allclose(profile.conf_int().loc[["const", *kept]],
                               reduced_profile.conf_int(), rtol=1e-7)
    diag = linclass.diagnostics(model, X, y)
    np.testing.assert_allclose(diag.hat, linclass.diagnostics(reduced, X[kept], y).hat, rtol=1e-8)
    drop = linclass.drop1(model, X, y)
    assert drop.loc[expected_na[0], "Df"] == 0
    prediction = model.get_prediction(X.iloc[:5])
    np.testing.assert_allclose(prediction.se_linpred,
                               reduced.get_prediction(X[kept].iloc[:5]).se_linpred, rtol=1e-7)
    with pytest.raises(ValueError, match="aliased"):
        table.wald_test(f"{expected_na[0]} = 0")
    assert table.wald_test(f"{kept[0]} = 0").statistic > 0


def test_aliased_model_saves_and_loads(tmp_path):
    X, y = aliased_problem("aliased_race")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularCovarianceWarning)
        model = fit(X, y)
    linclass.save(model, tmp_path / "m.linclass")
    loaded = linclass.load(tmp_path / "m.linclass")
    np.testing.assert_array_equal(loaded.aliased_, model.aliased_)
    assert loaded.summary().aliased == ["r3"]
    np.testing.assert_allclose(loaded.predict_proba(X), model.predict_proba(X))


def test_penalised_collinear_fit_aliases_nothing():
    X, y = aliased_problem("aliased_race")
    with warnings.catch_warnings():
        warnings.simplefilter("error", SingularCovarianceWarning)
        model = linclass.LogisticRegression(C=1.0).fit(X, y)
    assert not model.aliased_.any() and np.all(np.isfinite(model.summary().std_err))


# ------------------------------------------------------------------------- statsmodels var_weights
@pytest.mark.parametrize("weight_type", ["frequency", "variance"])
def test_weights_as_statsmodels_reads_them(weight_type):
    sm = pytest.importorskip("statsmodels.api")
    d = birthwt()
    X = d[["age", "lwt", "smoke", "ht"]]
    w = np.random.default_rng(1).uniform(0.5, 3.0, len(d))
    model = fit(X, d["low"], w, weight_type=weight_type)
    kind = {"frequency": "freq_weights", "variance": "var_weights"}[weight_type]

    def glm(**fit_kw):
        return sm.GLM(d["low"], sm.add_constant(X), family=sm.families.Binomial(),
                      **{kind: w}).fit(tol=1e-12, **fit_kw)

    table, reference = model.summary(), glm()
    np.testing.assert_allclose(table.bse.to_numpy(), reference.bse.to_numpy(), rtol=1e-8)
    assert table.df_resid == pytest.approx(reference.df_resid)
    assert table.llf == pytest.approx(reference.llf, rel=1e-10)
    assert table.bic == pytest.approx(reference.bic_llf, rel=1e-10)
    robust = model.summary(cov_type="HC0", X=X, y=d["low"], sample_weight=w)
    np.testing.assert_allclose(robust.bse.to_numpy(), glm(cov_type="HC0").bse.to_numpy(),
                               rtol=1e-8)
    note = {"frequency": "not whole numbers", "variance": "variance (analytic) weights"}[weight_type]
    assert note in str(table)


def test_class_weight_is_said_in_the_summary():
    X, y, _, _ = problem("birthwt")
    table = fit(X, y, class_weight="balanced").summary()
    assert "class_weight='balanced' multiplied each row's weight" in str(table)
    assert "weights:" not in str(fit(X, y).summary())
