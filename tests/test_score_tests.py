"""Score (Rao) tests and the sequential analysis of deviance against R
(tests/data/r/inference/glm_inference.R on MASS's birthwt): anova(small, large, test = "Rao") for a
model within Hosmer and Lemeshow's low birth weight model, for the intercept-only model and for
fits with prior weights; anova(glm, test = "Chisq") and test = "Rao" of the formula model, one row
per term; to 1e-6 relative.  And the pairs of models and rows they refuse."""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest

import linclass
from linclass import LogisticRegression
from r_inference import FEATURES, HERE, RTOL, birthwt_and_reference, tight_fit

SMALL = ["age", "lwt", "smoke"]
FORMULA = "low ~ age + lwt + C(race) + smoke + ptl + ht + ui"


@pytest.fixture(scope="module")
def birthwt():
    return birthwt_and_reference()


_fit = tight_fit


def _assert_test(test, expected):
    np.testing.assert_allclose(test.statistic, expected["statistic"], rtol=RTOL)
    np.testing.assert_allclose(test.pvalue, expected["pvalue"], rtol=RTOL)
    assert test.df == expected["df"]


def test_score_test_matches_r(birthwt):
    data, reference = birthwt
    X, y = data[FEATURES], data["low"]
    large = _fit(X, y)
    _assert_test(linclass.score_test(_fit(X[SMALL], y), large, X, y), reference["rao_small_full"])
    _assert_test(linclass.score_test(None, large, X, y), reference["rao_null_full"])
    assert "Score (Rao) test: chi2(5)" in str(linclass.score_test(_fit(X[SMALL], y), large, X, y))


def test_score_test_with_prior_weights_matches_r(birthwt):
    data, reference = birthwt
    X, y, w = data[FEATURES], data["low"], data["w"].to_numpy(float)
    small = _fit(X[SMALL], y, w, weight_type="variance")
    large = _fit(X, y, w, weight_type="variance")
    _assert_test(linclass.score_test(small, large, X, y, sample_weight=w),
                 reference["rao_small_full_weighted"])


def test_score_test_of_formula_models(birthwt):
    data, reference = birthwt
    small = linclass.from_formula("low ~ age + lwt + smoke", data)
    large = linclass.from_formula(FORMULA, data)
    _assert_test(linclass.score_test(small, large, data), reference["rao_small_full"])


def test_score_test_by_position_without_names(birthwt):
    data, reference = birthwt
    order = SMALL + [c for c in FEATURES if c not in SMALL]
    X, y = data[order].to_numpy(), data["low"].to_numpy()
    large = _fit(X, y)
    test = linclass.score_test(_fit(X[:, :3], y), large, X, y)
    _assert_test(test, reference["rao_small_full"])
    # the smaller model's columns are X's first ones: another order is caught by its score
    shuffled = np.roll(X, 1, axis=1)
    with pytest.raises(ValueError, match="smaller model's score is not zero"):
        linclass.score_test(_fit(X[:, :3], y), _fit(shuffled, y), shuffled, y)


@pytest.mark.parametrize("test", ["Chisq", "Rao"])
def test_anova_matches_r(birthwt, test):
    data, reference = birthwt
    expected = reference["anova_chisq" if test == "Chisq" else "anova_rao"]
    table = linclass.anova(linclass.from_formula(FORMULA, data), data, test=test)
    assert list(table.index) == ["NULL", "age", "lwt", "C(race)", "smoke", "ptl", "ht", "ui"]
    columns = ["Df", "Deviance", "Resid. Df", "Resid. Dev"] + (["Rao"] if test == "Rao" else [])
    assert list(table.columns) == columns + ["Pr(>Chi)"]

    def numbers(values):
        return np.array([np.nan if v == "NA" else v for v in values], dtype=float)

    for column, key in [("Df", "Df"), ("Deviance", "Deviance"), ("Resid. Df", "resid_df"),
                        ("Resid. Dev", "resid_dev"), ("Pr(>Chi)", "pvalue")] + (
                            [("Rao", "stat")] if test == "Rao" else []):
        np.testing.assert_allclose(table[column].to_numpy(float), numbers(expected[key]),
                                   rtol=RTOL, err_msg=column)


def test_anova_of_a_plain_model_adds_one_feature_at_a_time(birthwt):
    data, reference = birthwt
    X, y = data[FEATURES], data["low"]
    model = _fit(X, y)
    table = linclass.anova(model, X, y)
    assert list(table.index) == ["NULL"] + FEATURES
    expected = reference["anova_chisq"]["resid_dev"]
    # race2 then race3 add the factor's two columns; the other rows are the formula's
    np.testing.assert_allclose(table["Resid. Dev"].to_numpy()[[0, 1, 2, 4, 5, 6, 7, 8]],
                               expected, rtol=RTOL)
    np.testing.assert_allclose(table["Resid. Dev"].iloc[-1], model.summary().deviance, rtol=1e-12)


def test_refusals(birthwt):
    data, _ = birthwt
    X, y = data[FEATURES], data["low"]
    large, small = _fit(X, y), _fit(X[SMALL], y)
    with pytest.raises(ValueError, match="pass the smaller model first"):
        linclass.score_test(large, large, X, y)
    with pytest.raises(ValueError, match="lacks"):
        linclass.score_test(_fit(data[["age", "w"]], y), large, X, y)
    with pytest.raises(ValueError, match="penalised"):
        linclass.score_test(LogisticRegression(C=1.0).fit(X[SMALL], y), large, X, y)
    with pytest.raises(ValueError, match="test must be 'Chisq' or 'Rao'"):
        linclass.anova(large, X, y, test="F")
    with pytest.raises(ValueError, match="smaller model's score is not zero"):
        linclass.score_test(small, large, X.iloc[::-1].reset_index(drop=True),
                            y.iloc[::-1].reset_index(drop=True).sample(frac=1.0, random_state=0)
                            .reset_index(drop=True))


def test_softmax_score_test_matches_statsmodels():
    """Three classes: statsmodels' MNLogit ``score_test(exog_extra=...)`` of the smaller fit."""
    sm = pytest.importorskip("statsmodels.api")
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True)
    X = X[:, [0, 1, 9, 4]]
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    small = sm.MNLogit(y, sm.add_constant(X[:, :2])).fit(disp=0, method="newton", tol=1e-14,
                                                         maxiter=100)
    expected = small.score_test(exog_extra=X[:, 2:])
    test = linclass.score_test(_fit(X[:, :2], y), _fit(X, y), X, y)
    np.testing.assert_allclose(test.statistic, float(np.squeeze(expected.statistic)), rtol=1e-8)
    np.testing.assert_allclose(test.pvalue, float(np.squeeze(expected.pvalue)), rtol=1e-6)
    assert test.df == 4


def test_grouped_counts_match_r(birthwt):
    """cbind(yes, no) responses (MASS's menarche): the score test and anova(test = "Rao")."""
    _, reference = birthwt
    data = pd.read_csv(HERE / "menarche.csv")
    small = linclass.from_formula("cbind(yes, no) ~ age", data)
    large = linclass.from_formula("cbind(yes, no) ~ age + age2", data)
    _assert_test(linclass.score_test(small, large, data), reference["grouped_rao"])
    _assert_rao_anova(linclass.anova(large, data, test="Rao"), reference["grouped_anova_rao"],
                      resid_df=True)


def test_offsets_match_r(birthwt):
    """A formula's offset(o) enters the null model, every refit and the score tests, as R's."""
    data, reference = birthwt
    data = data.assign(o=0.3 * data["smoke"] - 0.01 * data["age"])
    large = linclass.from_formula("low ~ age + lwt + ht + offset(o)", data)
    small = linclass.from_formula("low ~ age + offset(o)", data)
    _assert_test(linclass.score_test(small, large, data), reference["offset_rao"])
    _assert_rao_anova(linclass.anova(large, data, test="Rao"), reference["offset_anova_rao"],
                      pvalue=True)


def _assert_rao_anova(table, expected, *, resid_df=False, pvalue=False):
    """anova(test="Rao")'s Rao statistics (the null row has none) and residual deviances as R's;
    its residual degrees of freedom and p-values too when asked."""
    np.testing.assert_allclose(table["Rao"].to_numpy(float)[1:], expected["stat"][1:], rtol=RTOL)
    np.testing.assert_allclose(table["Resid. Dev"], expected["resid_dev"], rtol=RTOL)
    if resid_df:
        np.testing.assert_allclose(table["Resid. Df"], expected["resid_df"], rtol=RTOL)
    if pvalue:
        np.testing.assert_allclose(table["Pr(>Chi)"].to_numpy(float)[1:], expected["pvalue"][1:],
                                   rtol=RTOL)
