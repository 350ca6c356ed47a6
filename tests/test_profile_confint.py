"""Profile-likelihood intervals of unpenalised fits, summary(ci='profile', X=, y=), against R
(tests/data/r/profile_confint.R on MASS's birthwt, unweighted and with integer frequency weights,
levels 0.95 and 0.90).

* The exact ends (R: uniroot on glm.fit's deviance with the parameter as an offset; for the
  multinomial fit a constrained Newton fit written out in R): within 1e-10 (measured: 2.4e-13
  binary, 8e-13 multinomial); the likelihood-ratio statistics at 0 within 1e-9 (measured 1e-13).
* R's confint() of the glm (MASS's profile.glm: a spline through a few profile points): within
  2e-4 absolute (measured: 1.4e-4, the spline's own error: it differs from the exact ends by as
  much).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from linclass import LogisticRegression

pd = pytest.importorskip("pandas")

HERE = Path(__file__).parent / "data" / "r"
DATA = pd.read_csv(HERE / "profile_confint_data.csv")
REFERENCE = pd.read_csv(HERE / "profile_confint.csv")
BINARY = ["age", "lwt", "smoke", "ptl", "ht", "ui"]
MULTINOMIAL = ["age", "lwt", "smoke"]


def reference(model, level):
    rows = REFERENCE[REFERENCE.model.str.startswith(model) & (REFERENCE.level == level)]
    if model == "binary":
        rows = rows[rows.model == "binary"]
    return rows


@pytest.mark.parametrize("level", [0.95, 0.90])
@pytest.mark.parametrize("model", ["binary", "binary_weighted"])
def test_binary_matches_r(model, level):
    weight = DATA["freq"].to_numpy() if model.endswith("weighted") else None
    X, y = DATA[BINARY], DATA["low"]
    fitted = LogisticRegression(penalty=None, tol=1e-10).fit(X, y, sample_weight=weight)
    table = fitted.summary(alpha=1 - level, ci="profile", X=X, y=y, sample_weight=weight)
    ref = reference(model, level)
    assert table.names == list(ref.parameter)
    np.testing.assert_allclose(table.coef[0], ref.estimate, rtol=1e-8)
    np.testing.assert_allclose(table.ci_lower[0], ref.exact_lower, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(table.ci_upper[0], ref.exact_upper, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(table.ci_lower[0], ref.confint_lower, atol=2e-4)
    np.testing.assert_allclose(table.ci_upper[0], ref.confint_upper, atol=2e-4)
    np.testing.assert_allclose(table.chi2[0], ref.lr_zero, rtol=1e-9)
    np.testing.assert_allclose(np.asarray(table.conf_int(1 - level)),
                               np.c_[ref.exact_lower, ref.exact_upper], rtol=1e-10)
    assert table.ci == "profile" and "profile likelihood" in str(table) and "P>chi2" in str(table)


@pytest.mark.parametrize("level", [0.95, 0.90])
def test_multinomial_contrasts_match_r(level):
    X, y = DATA[MULTINOMIAL], DATA["race"]
    fitted = LogisticRegression(penalty=None, tol=1e-10).fit(X, y)
    table = fitted.summary(alpha=1 - level, ci="profile", X=X, y=y)
    ref = reference("multinomial", level)
    np.testing.assert_allclose(table.coef.ravel(), ref.estimate, rtol=1e-7)
    np.testing.assert_allclose(table.ci_lower.ravel(), ref.exact_lower, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(table.ci_upper.ravel(), ref.exact_upper, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(table.chi2.ravel(), ref.lr_zero, rtol=1e-9, atol=1e-12)


def test_frequency_weights_equal_repeated_rows():
    X, y, w = DATA[BINARY].to_numpy(), DATA["low"].to_numpy(), DATA["freq"].to_numpy()
    rows = np.repeat(np.arange(len(y)), w)
    weighted = LogisticRegression(penalty=None, tol=1e-10).fit(X, y, sample_weight=w)
    repeated = LogisticRegression(penalty=None, tol=1e-10).fit(X[rows], y[rows])
    a = weighted.summary(ci="profile", X=X, y=y, sample_weight=w)
    b = repeated.summary(ci="profile", X=X[rows], y=y[rows])
    np.testing.assert_allclose(a.ci_lower, b.ci_lower, rtol=1e-9)
    np.testing.assert_allclose(a.ci_upper, b.ci_upper, rtol=1e-9)


def test_the_ends_are_where_the_deviance_reaches_the_quantile():
    """D_j at each end, by an independent constrained fit (statsmodels' Logit with an offset)."""
    sm = pytest.importorskip("statsmodels.api")
    from scipy.stats import chi2

    X, y = DATA[BINARY].to_numpy(), DATA["low"].to_numpy()
    design = np.column_stack([np.ones(len(y)), X])
    table = LogisticRegression(penalty=None, tol=1e-10).fit(X, y).summary(
        alpha=0.2, ci="profile", X=X, y=y)
    best = sm.Logit(y, design).fit(disp=0, method="newton", tol=1e-14)
    for j in (0, 2, 5):
        for end in (table.ci_lower[0, j], table.ci_upper[0, j]):
            others = np.delete(design, j, axis=1)
            fit = sm.Logit(y, others, offset=end * design[:, j]).fit(
                disp=0, method="newton", tol=1e-14, start_params=np.delete(best.params, j))
            assert 2 * (best.llf - fit.llf) == pytest.approx(chi2.ppf(0.8, 1), rel=1e-8)


def test_refusals():
    X, y = DATA[BINARY], DATA["low"]
    mle = LogisticRegression(penalty=None).fit(X, y)
    with pytest.raises(ValueError, match="ci='profile' is computed from the rows the model was "
                                         "fitted on"):
        mle.summary(ci="profile")
    with pytest.raises(ValueError, match="penalty='firth'"):
        LogisticRegression().fit(X, y).summary(ci="profile", X=X, y=y)
    table = mle.summary(ci="profile", X=X, y=y)
    with pytest.raises(ValueError, match="profile intervals are for alpha=0.05"):
        table.conf_int(0.1)
    da = pytest.importorskip("dask.array")
    with pytest.raises(ValueError, match="needs every row in memory"):
        mle.summary(ci="profile", X=da.from_array(X.to_numpy(), chunks=(50, 6)), y=y.to_numpy())
    with pytest.warns(UserWarning, match="not the maximum-likelihood estimate of these rows"):
        mle.summary(ci="profile", X=X[::2], y=y[::2])
