"""``Summary.odds_ratios()``: exp(params) with the exponentiated intervals, against R's
``exp(cbind(coef(m), confint.default(m)))`` (Wald) and the exponentiated profile intervals
(``confint(m)``, solved tightly) saved by tests/data/r/grouped_binomial.R, on MASS's birthwt (0/1
rows) and the star98 grouped counts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import linclass

DATA = Path(__file__).parent / "data" / "r"
REFERENCE = pd.read_csv(DATA / "grouped_binomial.csv", keep_default_na=False, na_values=["NA"])
BIRTHWT = ["age", "lwt", "smoke", "ht", "ui"]


def ref(case: str, quantity: str) -> pd.Series:
    rows = REFERENCE[(REFERENCE["case"] == case) & (REFERENCE["quantity"] == quantity)]
    return pd.Series(rows["value"].to_numpy(dtype=float), index=rows["term"].astype(str).to_numpy())


def problem(case: str):
    """``(model, X, y)``: the unpenalised fit of R's ``case`` and its training rows."""
    if case == "birthwt":
        d = pd.read_csv(DATA / "profile_confint_data.csv")
        X, y = d[BIRTHWT], d["low"]
    else:
        d = pd.read_csv(DATA / "star98.csv")
        X, y = d.drop(columns=["NABOVE", "NBELOW"]), d[["NABOVE", "NBELOW"]]
    return linclass.LogisticRegression(penalty=None, tol=1e-10).fit(X, y), X, y


def r_terms(frame) -> list[str]:
    return ["(Intercept)" if n == "const" else n for n in frame.index]


@pytest.mark.parametrize("case", ["birthwt", "star98"])
def test_wald_odds_ratios_are_r_confint_default(case):
    model, _, _ = problem(case)
    table = model.summary().odds_ratios()
    terms = r_terms(table)
    assert list(table.columns) == ["Odds Ratio", "std err", "z", "P>|z|", "[0.025", "0.975]"]
    np.testing.assert_allclose(table["Odds Ratio"], ref(case, "or")[terms], rtol=1e-6)
    np.testing.assert_allclose(table["[0.025"], ref(case, "or_wald_lower")[terms], rtol=1e-6)
    np.testing.assert_allclose(table["0.975]"], ref(case, "or_wald_upper")[terms], rtol=1e-6)


@pytest.mark.parametrize("case", ["birthwt", "star98"])
def test_profile_odds_ratios_are_r_confint(case):
    model, X, y = problem(case)
    table = model.summary(ci="profile", X=X, y=y).odds_ratios()
    terms = r_terms(table)
    assert list(table.columns)[2:4] == ["chi2", "P>chi2"]
    np.testing.assert_allclose(table["[0.025"], ref(case, "or_profile_lower")[terms], rtol=1e-6)
    np.testing.assert_allclose(table["0.975]"], ref(case, "or_profile_upper")[terms], rtol=1e-6)
    # R's own confint interpolates a spline through the profile: close, not exact
    np.testing.assert_allclose(table["[0.025"], ref(case, "or_confint_lower")[terms], rtol=1e-3)


def test_odds_ratio_columns_follow_the_table():
    """Stata's std err of an odds ratio is OR * se (the delta method); the tests are the
    table's; alpha=None takes the table's, another alpha recomputes Wald's intervals."""
    model, _, _ = problem("birthwt")
    summary = model.summary(alpha=0.1)
    table = summary.odds_ratios()
    np.testing.assert_allclose(table["std err"], np.exp(summary.coef[0]) * summary.std_err[0])
    np.testing.assert_allclose(table["z"], summary.z[0])
    assert "[0.05" in table.columns
    wider = summary.odds_ratios(alpha=0.01)
    assert np.all(wider["[0.005"] < table["[0.05"])
    np.testing.assert_allclose(np.log(wider["[0.005"]), summary.conf_int(0.01)[0])


def test_profile_table_keeps_its_alpha():
    model, X, y = problem("birthwt")
    with pytest.raises(ValueError, match="profile intervals are for alpha=0.05"):
        model.summary(ci="profile", X=X, y=y).odds_ratios(alpha=0.1)


def test_softmax_gives_relative_risk_ratios():
    d = pd.read_csv(DATA / "profile_confint_data.csv")
    model = linclass.LogisticRegression(penalty=None).fit(d[["age", "lwt"]], d["race"])
    summary = model.summary()
    table = summary.odds_ratios()
    assert table.index.names == ["equation", "parameter"]
    np.testing.assert_allclose(table["Odds Ratio"], np.exp(summary.coef.reshape(-1)))
