"""Influence measures of linclass.diagnostics against R (tests/data/r/inference/glm_inference.R on
MASS's birthwt, Hosmer and Lemeshow's low birth weight model, without and with integer prior
weights): rstudent, dfbetas, dffits, residuals(type = "response" / "working"), to 1e-6 relative;
and the Hosmer-Lemeshow test with Stata's grouping (estat gof, group(10)) against the same script's
independent implementation of that rule (R's quantile(type = 2) cut points) and against small
cases checked by hand."""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest

import linclass
from linclass import LogisticRegression
from linclass.linear.inference.goodness_of_fit import hosmer_lemeshow
from r_inference import FEATURES, HERE, RTOL, birthwt_and_reference

MEASURES = {"studentized_residuals": "rstudent", "dfbetas": "dfbetas", "dffits": "dffits",
            "response_residuals": "response", "working_residuals": "working"}


@pytest.fixture(scope="module")
def birthwt():
    return birthwt_and_reference()


def _fit(X, y, w=None):
    return LogisticRegression(penalty=None, tol=1e-12).fit(X, y, sample_weight=w)


@pytest.mark.parametrize("weighted", [False, True])
def test_influence_matches_r(birthwt, weighted):
    data, reference = birthwt
    X, y = data[FEATURES], data["low"]
    w = data["w"].to_numpy(float) if weighted else None
    result = linclass.diagnostics(_fit(X, y, w), X, y, sample_weight=w)
    expected = reference["influence_weighted" if weighted else "influence"]
    for name, key in MEASURES.items():
        values, target = np.asarray(getattr(result, name)), np.asarray(expected[key])
        assert values.shape == target.shape, name
        # (dfbetas near zero: an absolute floor far below the entries' size, about 0.1)
        np.testing.assert_allclose(values, target, rtol=RTOL, atol=1e-9, err_msg=name)
    frame = result.to_frame()
    assert list(frame.columns[-9:]) == ["dfb_const"] + [f"dfb_{c}" for c in FEATURES]
    np.testing.assert_allclose(frame["dfb_lwt"], np.asarray(expected["dfbetas"])[:, 2],
                               rtol=RTOL, atol=1e-9)


def test_formula_model_names_the_coded_columns(birthwt):
    data, reference = birthwt
    model = linclass.from_formula("low ~ age + lwt + C(race) + smoke + ptl + ht + ui", data)
    result = linclass.diagnostics(model, data)
    assert result.parameter_names[:4] == ("const", "age", "lwt", "C(race)[T.2]")
    np.testing.assert_allclose(result.dfbetas, reference["influence"]["dfbetas"], rtol=RTOL,
                               atol=1e-9)


@pytest.mark.parametrize("case", ["hosmer_lemeshow", "hosmer_lemeshow_ties",
                                  "hosmer_lemeshow_weighted"])
def test_hosmer_lemeshow_matches_statas_grouping(birthwt, case):
    data, reference = birthwt
    features = ["smoke", "ht", "ui"] if case.endswith("ties") else FEATURES
    X, y = data[features], data["low"]
    w = data["w"].to_numpy(float) if case.endswith("weighted") else None
    test = linclass.diagnostics(_fit(X, y, w), X, y, sample_weight=w).hosmer_lemeshow()
    expected = reference[case]
    np.testing.assert_allclose(test.statistic, expected["statistic"], rtol=RTOL)
    np.testing.assert_allclose(test.pvalue, expected["pvalue"], rtol=RTOL)
    assert test.df == expected["df"] and test.groups == expected["df"] + 2
    np.testing.assert_allclose(test.observed, expected["observed"], rtol=1e-12)
    np.testing.assert_allclose(test.expected, expected["expected"], rtol=RTOL)
    np.testing.assert_allclose(test.total, expected["total"], rtol=1e-12)
    assert list(test.table.columns) == ["Prob", "Obs_1", "Exp_1", "Obs_0", "Exp_0", "Total"]


def test_hosmer_lemeshow_by_hand():
    # ten rows, three groups: N/3 = 3.33 falls in the block of the three rows at 0.3, which stay
    # together (the first group has six rows); 2N/3 = 6.67 ends the second group at 0.5
    fitted = np.array([0.1, 0.1, 0.2, 0.3, 0.3, 0.3, 0.5, 0.6, 0.7, 0.9])
    y = np.array([0, 1, 0, 0, 1, 0, 1, 0, 1, 1])
    test = hosmer_lemeshow(fitted, y, groups=3)
    np.testing.assert_array_equal(test.total, [6, 1, 3])
    np.testing.assert_allclose(test.expected, [1.3, 0.5, 2.2])
    np.testing.assert_array_equal(test.observed, [2, 1, 2])
    by_hand = 0.7 ** 2 / (1.3 * (1 - 1.3 / 6)) + 0.5 ** 2 / (0.5 * 0.5) + 0.2 ** 2 / (2.2 * (1 - 2.2 / 3))
    np.testing.assert_allclose(test.statistic, by_hand, rtol=1e-12)
    assert test.df == 1
    # a cumulative count equal to k N / g ends the group there (Stata's averaged percentile)
    even = hosmer_lemeshow(np.arange(1, 7) / 10, [0, 1, 0, 1, 1, 1], groups=3)
    np.testing.assert_array_equal(even.total, [2, 2, 2])
    # frequency weights are repeated rows
    rows = np.array([0, 1, 2, 3, 3, 4, 5, 5, 5])
    p, labels, counts = np.array([.2, .3, .35, .5, .6, .8]), np.array([0, 0, 1, 1, 0, 1]), \
        np.array([1, 1, 1, 2, 1, 3])
    a = hosmer_lemeshow(p, labels, counts, groups=3)
    b = hosmer_lemeshow(p[rows], labels[rows], groups=3)
    np.testing.assert_allclose([a.statistic, a.df], [b.statistic, b.df], rtol=1e-12)
    with pytest.raises(ValueError, match="at least 3"):
        hosmer_lemeshow(p, labels, groups=2)
    with pytest.raises(ValueError, match="Only 2 groups"):
        hosmer_lemeshow(np.r_[np.full(5, 0.2), np.full(5, 0.7)], np.r_[0, 0, 1, 0, 0, 1, 1, 0, 1, 1])


def test_grouped_counts_match_r(birthwt):
    """cbind(yes, no) responses (MASS's menarche): the measures per group, as R's."""
    _, reference = birthwt
    data = pd.read_csv(HERE / "menarche.csv")
    result = linclass.diagnostics(linclass.from_formula("cbind(yes, no) ~ age + age2", data), data)
    for name, key in MEASURES.items():
        np.testing.assert_allclose(getattr(result, name), reference["grouped_influence"][key],
                                   rtol=RTOL, atol=1e-9, err_msg=name)
