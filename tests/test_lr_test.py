"""Likelihood-ratio tests of nested logistic models (``linclass.lr_test``, ``linclass.drop1``)
against R's ``anova(small, large, test="Chisq")`` and ``drop1(model, test="Chisq")`` on MASS's
birthwt (tests/data/r/lr_test.R, saved output), and the refusals of models that are not nested."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import linclass

HERE = Path(__file__).parent / "data" / "r"
SMALL, LARGE = ["age", "lwt"], ["age", "lwt", "smoke", "ht", "ui"]


@pytest.fixture(scope="module")
def birthwt():
    data = pd.read_csv(HERE / "profile_confint_data.csv")
    reference = pd.read_csv(HERE / "lr_test.csv")
    return data, reference


def _fit(data, columns, weight=None):
    return linclass.LogisticRegression(penalty=None, tol=1e-12).fit(data[columns], data["low"],
                                                                      sample_weight=weight)


@pytest.mark.parametrize("case", ["anova", "anova_weighted"])
def test_lr_test_is_anova(birthwt, case):
    data, reference = birthwt
    row = reference[reference.case == case].iloc[0]
    weight = data["freq"].to_numpy(float) if case == "anova_weighted" else None
    test = linclass.lr_test(_fit(data, SMALL, weight), _fit(data, LARGE, weight))
    assert test.df == row.df
    assert test.statistic == pytest.approx(row.lrt, rel=1e-8)
    assert test.pvalue == pytest.approx(row.p, rel=1e-7)
    assert test.deviance_large == pytest.approx(row.deviance, rel=1e-10)


def test_drop1_is_rs(birthwt):
    data, reference = birthwt
    ref = reference[reference.case == "drop1"].set_index("term")
    table = linclass.drop1(_fit(data, LARGE), data[LARGE], data["low"])
    assert list(table.index) == ["<none>", *LARGE]
    np.testing.assert_allclose(table["Deviance"], ref.loc[table.index, "deviance"], rtol=1e-9)
    np.testing.assert_allclose(table["AIC"], ref.loc[table.index, "aic"], rtol=1e-9)
    np.testing.assert_allclose(table["LRT"].iloc[1:], ref.loc[LARGE, "lrt"], rtol=1e-7)
    np.testing.assert_allclose(table["Pr(>Chi)"].iloc[1:], ref.loc[LARGE, "p"], rtol=1e-6)
    assert table["Df"].iloc[1:].tolist() == [1.0] * len(LARGE)


def test_models_that_are_not_nested_are_refused(birthwt):
    data, _ = birthwt
    large = _fit(data, LARGE)
    with pytest.raises(ValueError, match="lacks"):
        linclass.lr_test(_fit(data, ["age", "ptl"]), large)
    with pytest.raises(ValueError, match="different rows"):
        linclass.lr_test(_fit(data.iloc[:150], SMALL), large)
    with pytest.raises(ValueError, match="pass the smaller model first"):
        linclass.lr_test(large, _fit(data, SMALL))
    with pytest.raises(ValueError, match="penalised"):
        linclass.lr_test(linclass.LogisticRegression().fit(data[SMALL], data["low"]), large)
    with pytest.raises(ValueError, match="different classes"):
        linclass.lr_test(_fit(data.assign(low=data["low"] + 1), SMALL), large)
    with pytest.raises(ValueError, match="features"):
        linclass.drop1(large, data[SMALL], data["low"])


def test_softmax_models_take_k_minus_one_df_per_feature(birthwt):
    data, _ = birthwt
    small = linclass.LogisticRegression(penalty=None, tol=1e-12).fit(data[["age"]], data["race"])
    large = linclass.LogisticRegression(penalty=None, tol=1e-12).fit(data[["age", "lwt"]],
                                                                      data["race"])
    test = linclass.lr_test(small, large)
    assert test.df == 2
    assert test.statistic == pytest.approx(2 * (large.log_likelihood_ - small.log_likelihood_))
