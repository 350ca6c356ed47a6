"""Firth's penalised logistic regression (LogisticRegression(penalty='firth')) against brglm2 and
against logistf's profile penalised-likelihood inference (computed in R by constrained fits:
tests/data/r/firth.R and its output)."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import approx_fprime

import linclass as lc
from linclass import SeparationWarning
from linclass.linear.firth.objective import FirthObjective

R_DIR = Path(__file__).parent / "data" / "r"
pd = pytest.importorskip("pandas")

def endometrial():
    """brglm2's endometrial data (Heinze & Schemper 2002): NV quasi-completely separates the
    classes (written by tests/data/r/firth.R's companion line, see endometrial.csv)."""
    table = pd.read_csv(R_DIR / "endometrial.csv")
    return table[["NV", "PI", "EH"]].to_numpy(float), table["HG"].to_numpy(int)


def complete():
    x1 = np.array([-2.1, -1.3, -0.8, -0.4, -0.2, 0.3, 0.5, 0.9, 1.4, 2.2])
    return x1[:, None], (x1 > 0).astype(int)


def reference(case):
    table = pd.read_csv(R_DIR / "firth_reference.csv", skipinitialspace=True)
    return table[table["case"] == case]


CASES = {
    "endometrial": lambda: (*endometrial(), None),
    "complete": lambda: (*complete(), None),
    "endometrial_weighted": lambda: (*endometrial(), np.resize([1.0, 2.0, 3.0], 79)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_matches_brglm2_and_logistf_profile(case):
    X, y, w = CASES[case]()
    ref = reference(case)
    model = lc.LogisticRegression(penalty="firth", tol=1e-10).fit(X, y, sample_weight=w)
    params = np.r_[model.intercept_, model.coef_.ravel()]
    np.testing.assert_allclose(params, ref["coef"], rtol=1e-7, atol=1e-8)
    wald = model.summary()
    np.testing.assert_allclose(wald.std_err.ravel(), ref["se"], rtol=1e-6)
    profile = model.summary(ci="profile")
    np.testing.assert_allclose(profile.ci_lower.ravel(), ref["lower"], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(profile.ci_upper.ravel(), ref["upper"], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(profile.p_value.ravel(), ref["p"], rtol=1e-5, atol=1e-9)
    assert profile.log_likelihood == pytest.approx(ref["penalised"].iloc[0], rel=1e-9)
    assert profile.null_log_likelihood == pytest.approx(ref["null_penalised"].iloc[0], rel=1e-9)


def test_separation_gives_finite_estimates_a_note_and_no_warning():
    X, y = complete()
    with pytest.warns(SeparationWarning):
        lc.LogisticRegression(C=np.inf).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = lc.LogisticRegression(penalty="firth").fit(X, y)
    assert model.separation_ == "complete"
    assert np.all(np.isfinite(model.coef_)) and np.abs(model.coef_).max() < 10
    assert "complete separation is present" in str(model.summary())
    X, y = endometrial()
    assert lc.LogisticRegression(penalty="firth").fit(X, y).separation_ == "quasi"


def test_modified_score_is_the_gradient_of_the_penalised_likelihood():
    X, y = endometrial()
    objective = FirthObjective(X, y, np.resize([1.0, 2.0], 79))
    theta = np.array([0.5, -0.02, -1.0, 1.5])
    _, g = objective.value_gradient(theta)
    numeric = approx_fprime(theta, objective.value, 1e-7)
    np.testing.assert_allclose(g.ravel(), numeric, rtol=1e-5, atol=1e-8)
    # the penalty is Jeffreys' prior: 1/2 log|X~^T W X~| added to the log-likelihood
    info = objective.curvature_sum(theta)
    assert objective.penalised_log_likelihood(theta) == pytest.approx(
        objective.log_likelihood(theta) + 0.5 * np.linalg.slogdet(info)[1])


def test_a_weight_is_a_repeated_row():
    X, y = endometrial()
    w = np.resize([1.0, 2.0, 3.0], 79)
    a = lc.LogisticRegression(penalty="firth").fit(X, y, sample_weight=w)
    rows = np.repeat(np.arange(79), w.astype(int))
    b = lc.LogisticRegression(penalty="firth").fit(X[rows], y[rows])
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-6)


def test_unbiased_where_the_mle_is_biased_away_from_zero():
    # on small samples the MLE overestimates |beta|; Firth's estimate removes the O(1/n) bias
    # (the objective and solver directly: the estimator's fit also profiles every parameter)
    from linclass.linear.solvers import newton

    rng = np.random.default_rng(0)
    mle, firth = [], []
    for _ in range(200):
        x = rng.normal(size=(40, 1))
        y = (rng.random(40) < 1 / (1 + np.exp(-(0.5 + 1.0 * x[:, 0])))).astype(int)
        if y.min() == y.max():
            continue
        objective = FirthObjective(x, y)
        firth.append(newton(objective, objective.null_start(), tol=1e-10).theta[0, 0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SeparationWarning)
            mle.append(lc.LogisticRegression(C=np.inf).fit(x, y).coef_[0, 0])
    assert abs(np.mean(firth) - 1.0) < abs(np.mean(mle) - 1.0)
    assert np.mean(mle) > 1.05


def test_refusals():
    X, y = endometrial()
    with pytest.raises(ValueError, match="solver='newton'"):
        lc.LogisticRegression(penalty="firth", solver="lbfgs").fit(X, y)
    with pytest.raises(ValueError, match="penalty='firth'"):
        lc.LogisticRegression().fit(X, y).summary(ci="profile")
    with pytest.raises(ValueError, match="collinear"):
        lc.LogisticRegression(penalty="firth").fit(np.column_stack([X, X[:, 1]]), y)


def test_persistence_keeps_the_profile(tmp_path):
    """A model file holds the profile at alpha=0.05 (when a summary computed it before saving),
    not the rows: other levels are refused on a loaded model, computed on a fitted one."""
    X, y = endometrial()
    model = lc.LogisticRegression(penalty="firth").fit(X, y)
    model.summary(ci="profile")
    loaded = lc.load(lc.save(model, tmp_path / "firth.linclass"))
    np.testing.assert_array_equal(loaded.summary(ci="profile").ci_lower,
                                  model.summary(ci="profile").ci_lower)
    with pytest.raises(ValueError, match="alpha=0.05"):
        loaded.summary(alpha=0.1, ci="profile")
    wide, narrow = model.summary(ci="profile"), model.summary(alpha=0.1, ci="profile")
    assert np.all(narrow.ci_lower > wide.ci_lower) and np.all(narrow.ci_upper < wide.ci_upper)
    np.testing.assert_allclose(narrow.p_value, wide.p_value, rtol=1e-9)


def test_estimator_contract_on_two_classes():
    from sklearn.base import clone

    X, y = endometrial()
    model = lc.LogisticRegression(penalty="firth")
    assert clone(model).get_params()["penalty"] == "firth"
    assert model.fit(X, y) is model
    P = model.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.predict(X), model.classes_[P.argmax(axis=1)])
    with pytest.raises(ValueError, match="NaN"):
        lc.LogisticRegression(penalty="firth").fit(np.where(X == X[0, 1], np.nan, X), y)


# ------------------------------------------------------------ issue 24, finding 4: one answer
def test_profile_summary_gives_one_interval_everywhere():
    """conf_int() of a profile summary gave the Wald intervals while the table and to_frame()
    showed the profile ones."""
    X, y = endometrial()
    ref = reference("endometrial")
    profile = lc.LogisticRegression(penalty="firth", tol=1e-10).fit(X, y).summary(ci="profile")
    bounds = np.asarray(profile.conf_int())
    np.testing.assert_allclose(bounds, ref[["lower", "upper"]].to_numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(bounds, np.asarray(profile.to_frame().iloc[:, -2:]))
    np.testing.assert_array_equal(bounds, np.c_[profile.ci_lower[0], profile.ci_upper[0]])
    printed = {line.split()[0]: [float(v) for v in line.split()[-2:]]
               for line in str(profile).splitlines() if line.split()[:1] == ["x2"]}
    np.testing.assert_allclose(printed["x2"], bounds[3], atol=5e-4)  # EH
    with pytest.raises(ValueError, match="ci='wald'"):
        profile.conf_int(alpha=0.1)  # the table holds the profile for alpha=0.05 only


def test_profile_table_labels_the_likelihood_ratio_tests():
    """The profile table's p-values are likelihood-ratio tests: its columns say chi2 / P>chi2 (with
    the LR statistics, as logistf's 'Chisq'), not Wald's z / P>|z|."""
    X, y = endometrial()
    ref = reference("endometrial")
    model = lc.LogisticRegression(penalty="firth", tol=1e-10).fit(X, y)
    profile, wald = model.summary(ci="profile"), model.summary()
    header = next(line for line in str(profile).splitlines() if "coef" in line).split()
    assert header[:4] == ["coef", "std", "err", "chi2"] and header[4] == "P>chi2"
    assert "P>|z|" not in str(profile) and "P>|z|" in str(wald)
    frame = profile.to_frame()
    assert list(frame.columns[:4]) == ["coef", "std err", "chi2", "P>chi2"]
    np.testing.assert_allclose(frame["chi2"], ref["lr"], rtol=1e-5, atol=1e-9)
    np.testing.assert_allclose(frame["P>chi2"], ref["p"], rtol=1e-5, atol=1e-9)
    np.testing.assert_allclose(profile.pvalues, ref["p"], rtol=1e-5, atol=1e-9)
    assert list(wald.to_frame().columns[:4]) == ["coef", "std err", "z", "P>|z|"]
    np.testing.assert_array_equal(profile.zvalues, wald.zvalues)  # Wald's z stays an attribute


def separated(case):
    """30 completely separated rows (tests/data/r/separated.csv; firth_separated.R's data)."""
    table = pd.read_csv(R_DIR / "separated.csv")
    table = table[table["case"] == case]
    return table[["x1", "x2", "x3"]].to_numpy(float), table["y"].to_numpy(int)


@pytest.mark.parametrize("case", ["separated1", "separated2"])
def test_profile_intervals_under_separation_are_the_global_ones(case):
    """With one coefficient held far out, l* has several local maxima in the others; a fit
    warm-started along the profile followed one and gave intervals too narrow (separated1: the
    intercept's lower end -8.438 for -9.151, separated2: x1's upper end 34.88 for 47.35).  The
    reference is R's optim (BFGS) from 60 random starts at every point (firth_separated.R); a
    Python check with scipy's BFGS from 40 random starts gave the same ends to 1e-7."""
    X, y = separated(case)
    ref = pd.read_csv(R_DIR / "firth_separated.csv", skipinitialspace=True)
    ref = ref[ref["case"] == case]
    model = lc.LogisticRegression(penalty="firth", tol=1e-10, max_iter=1000).fit(X, y)
    assert model.separation_ == "complete"
    np.testing.assert_allclose(np.r_[model.intercept_, model.coef_.ravel()], ref["coef"], rtol=1e-6)
    profile = model.summary(ci="profile")
    np.testing.assert_allclose(profile.std_err.ravel(), ref["se"], rtol=1e-5)
    np.testing.assert_allclose(profile.ci_lower.ravel(), ref["lower"], rtol=1e-6)
    np.testing.assert_allclose(profile.ci_upper.ravel(), ref["upper"], rtol=1e-6)
    np.testing.assert_allclose(profile.chi2.ravel(), ref["lr"], rtol=1e-6)
    # the single local search in R (a Newton fit from the estimate at each point) stops short
    assert np.any(np.abs(ref["local_upper"] - ref["upper"]) > 1.0)


def test_exact_hessian_and_gradient_of_the_penalised_likelihood():
    from linclass.linear.firth.likelihood import PenalisedLikelihood

    X, y = endometrial()
    w = np.resize([1.0, 2.0, 3.0], 79)
    problem = PenalisedLikelihood(X, y, w)
    objective = FirthObjective(X, y, w, offset=np.zeros(3))
    thetas = np.array([[2.0, -0.03, -2.5, 3.0], [4.0, -0.06, -2.3, 3.6], [0.5, 0.01, -1.0, 1.0]])
    parts = problem.evaluate(thetas)
    for k, theta in enumerate(thetas):
        assert parts.value[k] == pytest.approx(objective.penalised_log_likelihood(theta), rel=1e-12)
        np.testing.assert_allclose(parts.gradient[k],
                                   -objective.value_gradient(theta)[1].ravel() * objective.total,
                                   rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(parts.info[k], objective.curvature_sum(theta), rtol=1e-12)
        h = 1e-5  # central differences of the gradient
        numeric = np.array([(problem.evaluate(theta + h * e, 1).gradient[0]
                             - problem.evaluate(theta - h * e, 1).gradient[0]) / (2 * h)
                            for e in np.eye(4)])
        np.testing.assert_allclose(parts.hessian[k], numeric, rtol=1e-6, atol=1e-6)


class _Synthetic:
    """A stand-in for the penalised likelihood: the profile's deviance is given directly."""

    total = 1.0

    def value(self, theta):
        return 0.0


@pytest.mark.parametrize("curve, lower, upper", [
    # dips back below the quantile beyond its first crossing: the outermost crossing is the end
    (lambda t: 2.0 if abs(t) < 1.5 else (5.0 if abs(t) < 2.5 else 2.0 + (abs(t) - 2.5)), -4.3415,
     4.3415),
    # flat: never reaches the quantile on one side
    (lambda t: 3.0 * (1 - np.exp(-abs(t))) if t > 0 else t * t, -1.9600, np.inf),
    # far away: a slowly growing profile crosses at 1e6
    (lambda t: 3.841458820694124 * np.log1p(abs(t)) / np.log1p(1e6), -1e6, 1e6),
])
def test_bound_search_handles_dips_flat_profiles_and_far_ends(curve, lower, upper):
    from scipy.stats import chi2

    from linclass.linear.firth.profile import Profile

    profile = Profile(_Synthetic(), np.zeros(2), 0, np.ones(2), n_starts=4)
    profile.deviance = lambda t, explore=False, refresh=False: float(curve(float(t)))
    q = chi2.ppf(0.95, 1)
    assert profile.bound(-1.0, q) == pytest.approx(lower, rel=1e-4)
    assert profile.bound(1.0, q) == pytest.approx(upper, rel=1e-4)


def _overlapping(n=600, d=4, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ rng.standard_normal(d) - 0.5)))).astype(int)
    return X, y


def test_profile_slope_and_tangent_are_the_derivatives_of_the_constrained_maximum():
    """The profile's slope (g_j at the constrained maximum) and tangent (-H_ff^{-1} H_fj) against
    central differences of P_j(t) and of the maximiser itself."""
    from linclass.linear.firth.likelihood import PenalisedLikelihood, maximise
    from linclass.linear.firth.profile import Profile

    X, y = _overlapping()
    problem = PenalisedLikelihood(X, y)
    theta = maximise(problem, np.zeros((1, 5)), np.ones(5, dtype=bool))[0][0]
    j = 2
    profile = Profile(problem, theta, j, np.full(5, 0.1), n_starts=0)
    free = np.arange(5) != j

    def argmax(t):  # polished by exact Newton steps to a gradient near rounding
        start = theta.copy()
        start[j] = t
        best = maximise(problem, start[None, :], free, tol=1e-13)[0][0]
        for _ in range(3):
            parts = problem.evaluate(best[None, :])
            H = parts.hessian[0][np.ix_(free, free)]
            best[free] -= np.linalg.solve(H, parts.gradient[0][free])
        return best, problem.value(best)

    t, h = theta[j] + 0.3, 1e-4
    profile.deviance(t)
    slope, tangent = profile.slopes[t]
    (lo, v_lo), (hi, v_hi) = argmax(t - h), argmax(t + h)
    assert slope == pytest.approx((v_hi - v_lo) / (2 * h), rel=1e-6)
    np.testing.assert_allclose(tangent, (hi - lo) / (2 * h), rtol=1e-5, atol=1e-7)


def test_profile_ends_by_newton_are_the_roots_brent_finds():
    """The ends found by the bracketed Newton iteration on D_j - q are the roots scipy's brentq
    finds on the same profile (to 1e-9 of their size); the maxima come from the tangent's start."""
    from scipy.optimize import brentq
    from scipy.stats import chi2

    from linclass.linear.firth.likelihood import PenalisedLikelihood, maximise
    from linclass.linear.firth.profile import Profile

    X, y = _overlapping()
    problem = PenalisedLikelihood(X, y)
    theta = maximise(problem, np.zeros((1, 5)), np.ones(5, dtype=bool))[0][0]
    q = chi2.ppf(0.95, 1)
    for j in range(5):
        profile = Profile(problem, theta, j, np.full(5, 0.1), n_starts=0)
        for side in (-1.0, 1.0):
            end = profile.bound(side, q)
            check = Profile(problem, theta, j, np.full(5, 0.1), n_starts=0)
            root = brentq(lambda t: check.deviance(t) - q, theta[j], theta[j] + side * 10.0,
                          xtol=1e-12, rtol=1e-14)
            assert end == pytest.approx(root, rel=1e-9, abs=1e-10)
