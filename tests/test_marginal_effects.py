"""LogisticRegression.marginal_effects against statsmodels' get_margeff.

Logit: every ``at`` x ``method``, and the dummy / count changes: margeff and margeff_se within 1e-7
relative (measured: 5e-12, and 1e-10 at 'zero', where the probabilities are within 1e-12 of 1 and the
effects follow the parameters' last digits).  MNLogit: 'dydx' and 'eydx' at every ``at`` (measured:
4e-14; 7e-8 at 'zero', where statsmodels' P_k (b_k - sum_m P_m b_m) cancels and ours does not).
statsmodels 0.15's MNLogit fails on 'eyex' / 'dyex' and on dummy / count changes; there the effects
and standard errors are compared with the definitions written out here, differentiated by complex
steps (1e-10).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine

from test_sandwich import cancer as plain_cancer
from test_sandwich import standardised as plain_standardised
from test_sandwich import wine as plain_wine

from linclass import LogisticRegression

sm = pytest.importorskip("statsmodels.api")
pd = pytest.importorskip("pandas")

AT = ["overall", "mean", "median", "zero"]
METHODS = ["dydx", "eyex", "dyex", "eydx"]
RTOL = 1e-7


def standardised(X, shift=3.0):
    """Standardised, then shifted to positive values (elasticities divide by x)."""
    return plain_standardised(X) + shift


def cancer():
    X, y = plain_cancer()
    return X + 3.0, y


def wine():
    X, y = plain_wine()
    return X + 3.0, y


def with_discrete(X, raw):
    """X with a 0/1 column and a count column (0..4) appended."""
    dummy = (raw[:, 0] > np.median(raw[:, 0])).astype(float)
    count = np.clip(np.floor((raw[:, 1] - raw[:, 1].min()) / raw[:, 1].std()), 0, 4)
    return np.column_stack([X, dummy, count])


def statsmodels_fit(kind, X, y, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(sm, kind)(y, sm.add_constant(X, prepend=True)).fit(
            disp=0, method="newton", maxiter=100, tol=1e-14, **kwargs)


def fit(X, y, **params):
    return LogisticRegression(penalty=None, tol=1e-12, **params).fit(X, y)


def assert_close(ours, theirs, rtol=RTOL):
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=rtol, atol=1e-15)


@pytest.fixture(scope="module")
def binary():
    X, y = cancer()
    return X, y, fit(X, y), statsmodels_fit("Logit", X, y)


@pytest.fixture(scope="module")
def softmax():
    X, y = wine()
    return X, y, fit(X, y), statsmodels_fit("MNLogit", X, y)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("at", AT)
def test_logit_matches_statsmodels(binary, at, method):
    X, _, ours, theirs = binary
    expected = theirs.get_margeff(at=at, method=method)
    got = ours.marginal_effects(X, at=at, method=method)
    assert got.margeff.shape == expected.margeff.shape == (4,)
    assert_close(got.margeff, expected.margeff)
    assert_close(got.margeff_se, expected.margeff_se)
    assert_close(got.margeff_cov, expected.margeff_cov)
    defined = expected.margeff_se > 0  # an elasticity at zero is 0 with no error: 0/0 there
    with np.errstate(invalid="ignore"):
        assert_close(got.pvalues[defined], expected.pvalues[defined], rtol=1e-6)
    assert np.all(got.pvalues[~defined] == 1.0)


@pytest.mark.parametrize("method", ["dydx", "eydx"])
@pytest.mark.parametrize("at", AT)
def test_mnlogit_matches_statsmodels(softmax, at, method):
    X, _, ours, theirs = softmax
    expected = theirs.get_margeff(at=at, method=method)
    got = ours.marginal_effects(X, at=at, method=method)
    assert got.margeff.shape == expected.margeff.shape == (3, 3)
    assert_close(got.margeff, expected.margeff)
    assert_close(got.margeff_se, expected.margeff_se)
    assert_close(got.margeff_cov, expected.margeff_cov)


@pytest.mark.parametrize("at", ["overall", "mean"])
@pytest.mark.parametrize("method", ["dydx", "eydx"])
@pytest.mark.parametrize("dummy, count", [(True, False), (False, True), (True, True)])
def test_logit_discrete_changes_match_statsmodels(at, method, dummy, count):
    raw, y = load_breast_cancer(return_X_y=True)
    X = with_discrete(standardised(raw[:, [0, 1]], 0.0), raw[:, [4, 8]])
    theirs = statsmodels_fit("Logit", X, y).get_margeff(at=at, method=method, dummy=dummy,
                                                        count=count)
    got = fit(X, y).marginal_effects(X, at=at, method=method, dummy=dummy, count=count)
    assert_close(got.margeff, theirs.margeff)
    assert_close(got.margeff_se, theirs.margeff_se)
    assert (got.dummy_idx is not None) == dummy and (got.count_idx is not None) == count


# ----------------------------------------------- the definitions, for what statsmodels cannot do
def reference(theta, Xt, v, method, discrete):
    """Effects (d, K) from the definitions, for complex ``theta`` ((K-1) x p, intercept first):
    P = softmax(0, Xt theta_l); continuous dP_k/dx_j = P_k (B_kj - sum_m P_m B_mj), transformed by
    method; ``discrete``: {column: (low, high, factor)} changes of P_k (or ln P_k)."""
    B = np.vstack([np.zeros(theta.shape[1]), theta])

    def proba(Z):
        E = np.exp(Z @ B.T)
        return E / E.sum(axis=1, keepdims=True)

    P = proba(Xt)
    slopes = B[:, 1:]
    me = P[:, :, None] * (slopes[None] - (P @ slopes)[:, None, :])  # (r, K, d)
    x = Xt[:, None, 1:]
    if "ex" in method:
        me = me * x
    if method.startswith("ey"):
        me = me / P[:, :, None]
    for j, (low, high, factor) in discrete.items():
        ends = []
        for value in (low, high):
            Z = Xt.copy()
            Z[:, 1 + j] = value(Z[:, 1 + j].real)
            Pz = proba(Z)
            ends.append(np.log(Pz) if method.startswith("ey") else Pz)
        me[:, :, j] = (ends[1] - ends[0]) * factor
    return np.einsum("i,ikj->jk", v, me)


def complex_step_jacobian(f, theta):
    h = 1e-30
    flat = theta.ravel()
    columns = []
    for q in range(flat.size):
        step = flat.astype(complex)
        step[q] += 1j * h
        columns.append(f(step.reshape(theta.shape)).ravel(order="F").imag / h)
    return np.array(columns).T


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("at", ["overall", "mean"])
def test_every_method_and_discrete_change_for_softmax_from_the_definitions(at, method):
    raw, y = load_wine(return_X_y=True)
    X = with_discrete(standardised(raw[:, [0, 1]]), raw[:, [9, 12]])
    model = fit(X, y)
    discrete = method in ("dydx", "eydx")
    got = model.marginal_effects(X, at=at, method=method, dummy=discrete, count=discrete)
    theta = np.column_stack([model.intercept_[1:] - model.intercept_[0],
                             model.coef_[1:] - model.coef_[0]])
    rows = X if at == "overall" else X.mean(axis=0, keepdims=True)
    Xt = np.column_stack([np.ones(len(rows)), rows])
    v = np.full(len(rows), 1.0 / len(rows))
    changes = {2: (lambda x: 0 * x, lambda x: 0 * x + 1, 1.0),
               3: (lambda x: x - 1, lambda x: x + 1, 0.5)} if discrete else {}
    effect = reference(theta.astype(complex), Xt, v, method, changes).real
    assert_close(got.margeff, effect, rtol=1e-10)
    G = complex_step_jacobian(lambda t: reference(t, Xt, v, method, changes), theta)
    V = model._inference.covariance
    assert_close(got.margeff_cov, G @ V @ G.T, rtol=1e-9)


def test_the_effects_are_derivatives_of_predict_proba(softmax):
    X, _, model, _ = softmax
    h = 1e-6
    got = model.marginal_effects(X).margeff
    for j in range(X.shape[1]):
        up, down = X.copy(), X.copy()
        up[:, j] += h
        down[:, j] -= h
        numeric = (model.predict_proba(up) - model.predict_proba(down)).mean(axis=0) / (2 * h)
        np.testing.assert_allclose(got[j], numeric, rtol=1e-6, atol=1e-9)


# ------------------------------------------------------------------------ tables, weights, cov
def test_summary_frame_and_table_as_statsmodels(binary, softmax):
    X, _, ours, theirs = binary
    frame = ours.marginal_effects(X).summary_frame()
    expected = theirs.get_margeff().summary_frame()
    assert list(frame.columns) == list(expected.columns) == [
        "dy/dx", "Std. Err.", "z", "Pr(>|z|)", "Conf. Int. Low", "Cont. Int. Hi."]
    np.testing.assert_allclose(frame.to_numpy(), expected.to_numpy(), rtol=1e-6)
    Xw, _, ours_w, theirs_w = softmax
    frame = ours_w.marginal_effects(Xw, method="eydx").summary_frame(alpha=0.1)
    expected = theirs_w.get_margeff(method="eydx").summary_frame(alpha=0.1)
    assert frame.index.names == expected.index.names == ["endog", "exog"]
    assert list(frame.index.get_level_values(0)) == list(expected.index.get_level_values(0))
    assert frame.columns[0] == expected.columns[0] == "d(lny)/dx"
    np.testing.assert_allclose(frame.to_numpy(), expected.to_numpy(), rtol=1e-6)
    text = str(ours_w.marginal_effects(Xw, at="median"))
    assert "MNLogit Marginal Effects" in text and "At:" in text and "median" in text
    assert text.count("dy/dx") == 3 and "y=2" in text
    assert "Logit Marginal Effects" in str(ours.marginal_effects(X))


@pytest.mark.parametrize("at", ["overall", "mean", "median"])
def test_frequency_weights_equal_repeated_rows(at):
    X, y = wine()
    weight = np.random.default_rng(2).integers(0, 4, len(y))
    rows = np.repeat(np.arange(len(y)), weight)
    a = fit(X[rows], y[rows]).marginal_effects(X[rows], at=at, method="eyex")
    weighted = LogisticRegression(penalty=None, tol=1e-12).fit(X, y, sample_weight=weight)
    b = weighted.marginal_effects(X, at=at, method="eyex", sample_weight=weight)
    assert_close(b.margeff, a.margeff, rtol=1e-8)
    assert_close(b.margeff_se, a.margeff_se, rtol=1e-8)


def test_robust_covariance_as_statsmodels_fit_with_it(binary):
    X, y, ours, _ = binary
    groups = np.arange(len(y)) % 29
    for cov_type, kwargs in (("HC0", {}), ("cluster", {"cov_kwds": {"groups": groups}})):
        theirs = statsmodels_fit("Logit", X, y, cov_type=cov_type, **kwargs).get_margeff(at="mean")
        got = ours.marginal_effects(X, at="mean", y=y, cov_type=cov_type,
                                    groups=groups if kwargs else None)
        # the cluster factor is Stata's G/(G-1); statsmodels' has (N-1)/(N-k) more
        n, k = len(y), X.shape[1] + 1
        factor = np.sqrt((n - k) / (n - 1)) if kwargs else 1.0
        assert_close(got.margeff_se, theirs.margeff_se * factor)
        assert got.covariance_type == cov_type


def test_bad_inputs(binary):
    X, y, ours, _ = binary
    with pytest.raises(ValueError, match="at must be one of 'overall', 'mean', 'median', 'zero'"):
        ours.marginal_effects(X, at="all")
    with pytest.raises(ValueError, match="method must be one of"):
        ours.marginal_effects(X, method="dy/dx")
    with pytest.raises(ValueError, match="discrete changes.*'dydx' or 'eydx' at 'overall' or 'mean'"):
        ours.marginal_effects(X, method="eyex", dummy=True)
    with pytest.raises(ValueError, match="discrete changes"):
        ours.marginal_effects(X, at="zero", count=True)
    with pytest.raises(ValueError, match="4 features"):
        ours.marginal_effects(X[:, :2])
    with pytest.raises(ValueError, match="needs y"):
        ours.marginal_effects(X, cov_type="HC1")
    with pytest.raises(ValueError, match="needs groups="):
        ours.marginal_effects(X, y=y, cov_type="cluster")
    with pytest.raises(ValueError, match="marginal_effects is computed for unpenalised fits"):
        LogisticRegression().fit(X, y).marginal_effects(X)


@pytest.mark.parametrize("kind, data", [("Logit", cancer), ("MNLogit", wine)])
def test_without_intercept_and_with_a_robust_covariance(kind, data):
    X, y = data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = getattr(sm, kind)(y, X).fit(disp=0, method="newton", maxiter=100, tol=1e-14,
                                             cov_type="HC0")
    method = "eyex" if kind == "Logit" else "dydx"  # statsmodels' MNLogit fails on elasticities
    expected = theirs.get_margeff(at="mean", method=method)
    got = fit(X, y, fit_intercept=False).marginal_effects(X, at="mean", method=method, y=y,
                                                         cov_type="HC0")
    assert_close(got.margeff, expected.margeff)
    assert_close(got.margeff_se, expected.margeff_se)
