"""Summary speaks statsmodels (finding 5): the attribute names a statsmodels user types (llf, llnull,
llr, llr_pvalue, nobs, df_model, df_resid, prsquared, aic, bic, params, bse, tvalues / zvalues,
pvalues, conf_int(alpha)) give statsmodels' values in statsmodels' shapes, the first names remain as
aliases, and the printed table shows statsmodels' numbers to statsmodels' decimals (-13.0213, not
-13.02).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

sm = pytest.importorskip("statsmodels.api")
pd = pytest.importorskip("pandas")

from linclass import LogisticRegression  # noqa: E402


def fit_both(kind):
    if kind == "Logit":
        data = sm.datasets.spector.load_pandas()
        X, y = data.exog, data.endog
    else:
        frame = sm.datasets.anes96.load_pandas().data
        X = frame[["logpopul", "selfLR", "age", "educ", "income"]]
        y = np.where(frame["PID"] <= 1, 0, np.where(frame["PID"] <= 4, 1, 2))
    model = getattr(sm, kind)(y, sm.add_constant(X, prepend=True))
    res = model.fit(disp=0, method="newton", tol=1e-12, maxiter=100)
    ours = LogisticRegression(C=np.inf, tol=1e-12).fit(X, y).summary()
    return res, ours


SCALARS = ["llf", "llnull", "llr", "llr_pvalue", "nobs", "df_model", "df_resid", "prsquared", "aic", "bic"]


@pytest.mark.parametrize("kind", ["Logit", "MNLogit"])
def test_statsmodels_scalar_names(kind):
    res, ours = fit_both(kind)
    for name in SCALARS:
        rel = 1e-6 if name == "llr_pvalue" else 1e-8  # 4e-90: very sensitive to llf
        assert getattr(ours, name) == pytest.approx(getattr(res, name), rel=rel, abs=1e-300), name


@pytest.mark.parametrize("kind", ["Logit", "MNLogit"])
def test_statsmodels_array_names_and_shapes(kind):
    res, ours = fit_both(kind)
    for name in ("params", "bse", "tvalues", "pvalues"):
        theirs, mine = getattr(res, name), getattr(ours, name)
        assert type(mine) is type(theirs), name  # Series for Logit, DataFrame for MNLogit
        assert np.shape(mine) == np.shape(theirs), name
        np.testing.assert_allclose(np.asarray(mine), np.asarray(theirs), rtol=1e-6, atol=1e-12,
                                   err_msg=name)
    pd.testing.assert_frame_equal(ours.zvalues if kind == "MNLogit" else ours.zvalues.to_frame(),
                                  ours.tvalues if kind == "MNLogit" else ours.tvalues.to_frame())
    assert list(ours.params.index)[1:] == [str(c) for c in res.params.index[1:]]  # the features
    for alpha in (0.05, 0.1):
        np.testing.assert_allclose(np.asarray(ours.conf_int(alpha)), np.asarray(res.conf_int(alpha)),
                                   rtol=1e-6)
    with pytest.raises(ValueError, match="alpha"):
        ours.conf_int(1.5)


def test_the_first_names_remain():
    res, ours = fit_both("Logit")
    assert ours.log_likelihood == ours.llf and ours.null_log_likelihood == ours.llnull
    assert ours.n_obs == ours.nobs and ours.pseudo_r2 == ours.prsquared
    assert ours.lr_statistic == ours.llr and ours.lr_p_value == ours.llr_pvalue
    np.testing.assert_array_equal(ours.coef[0], ours.params.to_numpy())
    np.testing.assert_array_equal(ours.std_err[0], ours.bse.to_numpy())
    np.testing.assert_array_equal(ours.z[0], ours.zvalues.to_numpy())


def test_without_pandas_the_arrays_have_statsmodels_shapes(monkeypatch):
    import sys

    _, binary = fit_both("Logit")
    _, softmax = fit_both("MNLogit")
    monkeypatch.setitem(sys.modules, "pandas", None)
    assert isinstance(binary.params, np.ndarray) and binary.params.shape == (4,)
    assert softmax.params.shape == (6, 2)  # parameters x equations, as MNLogit's params
    assert binary.conf_int().shape == (4, 2) and softmax.conf_int().shape == (12, 2)


def _rows(text):
    """name -> the six cells of every coefficient row of a printed table."""
    rows = {}
    for line in text.splitlines():
        cells = line.split()
        if len(cells) >= 7 and all(re.fullmatch(r"-?[\d.]+(e[-+]\d+)?", c) for c in cells[-6:]):
            rows[" ".join(cells[:-6])] = cells[-6:]
    return rows


def test_the_table_prints_statsmodels_decimals():
    """statsmodels prints Spector's intercept as -13.0213 (4 decimals), not -13.02."""
    res, ours = fit_both("Logit")
    text = str(ours)
    theirs = _rows(str(res.summary()))
    mine = _rows(text)
    assert mine["const"][0] == "-13.0213"
    assert mine == theirs
    for label in ("No. Observations:", "Df Residuals:", "Df Model:", "Pseudo R-squ.:",
                  "Log-Likelihood:", "LL-Null:", "LLR p-value:"):
        mine_value = re.search(rf"{re.escape(label)}\s+(\S+)", text).group(1)
        their_value = re.search(rf"{re.escape(label)}\s+(\S+)", str(res.summary())).group(1)
        assert mine_value == their_value, label


def test_softmax_table_has_one_block_per_equation():
    res, ours = fit_both("MNLogit")
    text = str(ours)
    assert len(re.findall(r"^\s*y=1\s", text, flags=re.M)) == 1
    assert len(re.findall(r"^\s*y=2\s", text, flags=re.M)) == 1
    assert "Model:                          MNLogit" in text
    rows = [line for line in text.splitlines() if line.startswith("selfLR")]
    assert len(rows) == 2
    assert rows[0].split()[1] == f"{res.params.iloc[2, 0]:.4f}"


# ------------------------------------------------------- issue 24, finding 12: statsmodels' layout
def _header(text):
    """label -> value of the two-column statistics above the table ('Dep. Variable:' -> 'GRADE')."""
    facts = {}
    for line in text.splitlines():
        for label, value in re.findall(r"([A-Za-z][\w. -]*?:)\s+(\S(?:.*?\S)??)(?=\s{3,}[A-Za-z]|\s*$)",
                                       line):
            facts[label] = value
    return facts


def test_the_header_has_statsmodels_rows_and_values():
    """Dep. Variable, Model, Method, Date, Time, converged, Covariance Type next to the statistics,
    each the value statsmodels prints (Date and Time: when the model was fitted)."""
    import time

    for kind in ("Logit", "MNLogit"):
        res, ours = fit_both(kind)
        mine, theirs = _header(str(ours)), _header(str(res.summary()))
        for label in ("Dep. Variable:", "Model:", "Method:", "converged:", "Covariance Type:",
                      "No. Observations:", "Df Residuals:", "Df Model:", "Pseudo R-squ.:",
                      "Log-Likelihood:", "LL-Null:", "LLR p-value:"):
            assert mine.get(label) == theirs[label], (kind, label, mine.get(label))
        assert time.strptime(mine["Date:"], "%a, %d %b %Y") and time.strptime(mine["Time:"], "%H:%M:%S")
        assert mine["Solver:"] == "newton" and int(mine["Iterations:"]) > 0
    assert _header(str(res.summary()))["Dep. Variable:"] == "y"  # MNLogit on an array: 'y'


def test_dep_variable_method_and_clock_follow_the_fit():
    data = sm.datasets.spector.load_pandas()
    first = LogisticRegression(C=1.0).fit(data.exog, data.endog)
    text = str(first.summary())
    facts = _header(text)
    assert facts["Dep. Variable:"] == "GRADE" and facts["Method:"] == "L2-penalised ML"
    assert facts["converged:"] == "True" and facts["Covariance Type:"] == "nonrobust"
    assert str(first.summary()) == text  # the clock is the fit's: the same model prints the same
    assert _header(str(LogisticRegression(C=np.inf).fit(data.exog, data.endog.to_numpy())
                       .summary()))["Dep. Variable:"] == "y"
    firth = LogisticRegression(penalty="firth").fit(data.exog, data.endog)
    assert _header(str(firth.summary()))["Method:"] == "Firth-penalised ML"
    lasso = LogisticRegression(penalty="l1", C=0.5).fit(data.exog, data.endog).summary()
    facts = _header(str(lasso))
    assert facts["Dep. Variable:"] == "GRADE" and facts["Method:"] == "L1-penalised ML"
    assert facts["Solver:"] == "cd" and facts["converged:"] == "True" and "Date:" in facts
    assert float(facts["Log-Likelihood:"]) == pytest.approx(lasso.log_likelihood, rel=1e-4)
    assert "LLR p-value:" not in facts  # no tests after selection


def test_the_constant_is_const():
    res, ours = fit_both("Logit")
    assert list(ours.params.index) == list(res.params.index) == ["const", "GPA", "TUCE", "PSI"]
    assert _rows(str(ours))["const"] == _rows(str(res.summary()))["const"]
    data = sm.datasets.spector.load_pandas()
    lasso = LogisticRegression(penalty="l1", C=0.5).fit(data.exog, data.endog).summary()
    assert lasso.selected[0][0][0] == "const" and "const" in lasso.to_frame().index


@pytest.mark.parametrize("penalty", [None, "firth", "l1"])
def test_rules_are_as_wide_as_the_widest_line(penalty):
    """With long feature names the table grew past the 78-character rules above it."""
    data = sm.datasets.spector.load_pandas()
    X = data.exog.rename(columns={"GPA": "grade point average of the student, on the 4-point scale, "
                                         "before the course"})
    params = {None: {"C": np.inf}, "firth": {"penalty": "firth"}, "l1": {"penalty": "l1", "C": 5.0}}
    text = str(LogisticRegression(**params[penalty]).fit(X, data.endog).summary())
    body = [line for line in text.splitlines() if not line.startswith("Note:")]
    rules = [line for line in body if set(line) <= {"=", "-"} and line]
    widest = max(len(line) for line in body)
    assert widest > 78 and len(rules) >= 3
    assert {len(rule) for rule in rules} == {widest}, text
    title = body[0]
    assert abs((len(title) - len(title.lstrip())) - (widest - len(title.strip())) / 2) <= 1  # centred
