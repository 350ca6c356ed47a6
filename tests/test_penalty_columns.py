"""Per-feature penalty factors and box constraints on the coefficients (``penalty_factor``,
``lower_bounds``, ``upper_bounds``): against glmnet at a tight threshold on two real data sets
(tests/data/glmnet/glmnet_columns.R, saved output), against an independent solve of the same
objective (scipy's L-BFGS-B on the split w = u - v, which makes the L1 part smooth and the box
simple bounds), and their properties and bad inputs."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import log_softmax, logsumexp

import linclass

HERE = Path(__file__).parent / "data" / "glmnet"
P10, P13 = 10, 13

# the cases of glmnet_columns.R: (id, file, l1_ratio, C, factor, lower, upper)
CASES = {
    "factor_l1": ("breast_cancer10.csv", 1.0, 0.5, [0, 0.5, 1, 1, 2, 1, 1, 0, 1.5, 1], None, None),
    "box_enet": ("breast_cancer10.csv", 0.5, 0.1, None, -0.5, np.linspace(0.1, 1, P10)),
    "nonneg_factor_l1": ("breast_cancer10.csv", 1.0, 1.0, [1, 1, 1, 0, 1, 1, 1, 1, 1, 3], 0.0,
                         None),
    "box_ridge": ("breast_cancer10.csv", 0.0, 0.2, None, -1.0, 0.3),
    "box_none": ("breast_cancer10.csv", 1.0, np.inf, None, -1.5, 1.5),
    "factor_enet_multi": ("wine.csv", 0.5, 0.2, [0, 1, 1, 1, 1, 1, 2, 2, 1, 1, 1, 1, 0.5], None,
                          None),
    "nonneg_l1_multi": ("wine.csv", 1.0, 0.3, None, 0.0, None),
}
# grouped multinomial penalties (multinomial_penalty='grouped'): (file, l1_ratio, C, factor)
GROUPED = {
    "grouped_l1_multi": ("wine.csv", 1.0, 0.3, None),
    "grouped_factor_enet_multi": ("wine.csv", 0.5, 0.05, [0, 1, 1, 1, 1, 1, 2, 2, 1, 1, 1, 1, 0.5]),
}


def _data(file):
    data = np.loadtxt(HERE / file, delimiter=",")
    return data[:, 1:], data[:, 0].astype(int)


def _glmnet(case_id):
    with open(HERE / "glmnet_columns.csv") as f:
        rows = [r for r in csv.DictReader(f) if r["id"] == case_id]
    values = [[float(v) for k, v in r.items() if k not in ("id", "row") and v != ""] for r in rows]
    table = np.array(values)
    return table[:, 1:], table[:, 0]


def _model(l1_ratio, C, factor, lower, upper, **kw):
    penalty = None if np.isinf(C) else "elasticnet"
    return linclass.LogisticRegression(penalty=penalty, C=C, l1_ratio=None if penalty is None
                                       else l1_ratio, penalty_factor=factor, lower_bounds=lower,
                                       upper_bounds=upper, tol=1e-10, max_iter=1000, **kw)


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_coefficients_match_glmnet(case_id):
    file, rho, C, factor, lower, upper = CASES[case_id]
    X, y = _data(file)
    model = _model(rho, C, factor, lower, upper).fit(X, y)
    assert model.converged_ and model.solver_ == "cd"
    coef, intercept = _glmnet(case_id)
    if coef.shape[0] > 1:  # glmnet leaves the intercepts' common shift free; linclass centres them
        intercept = intercept - intercept.mean()
    np.testing.assert_allclose(model.coef_, coef, atol=1e-6)
    np.testing.assert_allclose(model.intercept_, intercept, atol=1e-6)
    if lower is not None:
        assert np.all(model.coef_ >= np.asarray(lower) - 1e-15)
    if upper is not None:
        assert np.all(model.coef_ <= np.asarray(upper) + 1e-15)


@pytest.mark.parametrize("case_id", sorted(GROUPED))
def test_grouped_multinomial_matches_glmnet(case_id):
    file, rho, C, factor = GROUPED[case_id]
    X, y = _data(file)
    model = _model(rho, C, factor, None, None, multinomial_penalty="grouped").fit(X, y)
    assert model.converged_ and model.solver_ == "cd"
    coef, intercept = _glmnet(case_id)
    # glmnet's grouped fit stops on the change of the deviance even at thresh=1e-15: its largest
    # optimality violation there is 3e-6 (linclass's: 1e-10), its objective 9e-12 higher; the
    # coefficients agree to 1.2e-6
    np.testing.assert_allclose(model.coef_, coef, atol=3e-6)
    np.testing.assert_allclose(model.intercept_, intercept - intercept.mean(), atol=3e-6)
    from linclass.linear.penalties.grouped import GroupedElasticNet

    pen = GroupedElasticNet(C, rho, factor=factor)

    def objective(W, b):
        S = X @ W.T + b
        return float(np.sum(logsumexp(S, axis=1) - S[np.arange(y.size), y])) + pen.value(W)

    assert objective(model.coef_, model.intercept_) <= objective(coef, intercept) + 1e-12
    # a feature is in the model for every class or for none
    zero = model.coef_ == 0.0
    assert np.all(zero.all(axis=0) == zero.any(axis=0)) and zero.any()


def test_grouped_penalty_optimality_and_objective():
    """At the grouped fit the group conditions hold (a feature out of the model has a gradient
    of norm at most l1, one in it a zero group subgradient), and its objective is below the
    ungrouped fit's point under the grouped objective."""
    from linclass.linear.penalties.grouped import GroupedElasticNet

    X, y = _data("wine.csv")
    C = 0.3
    model = _model(1.0, C, None, None, None, multinomial_penalty="grouped").fit(X, y)
    P = model.predict_proba(X)
    G = (P - np.eye(3)[y]).T @ X  # (K, d)
    norms = np.linalg.norm(model.coef_, axis=0)
    out = norms == 0
    assert np.all(np.linalg.norm(G[:, out], axis=0) <= 1 / C + 1e-8)
    inside = G[:, ~out] + (1 / C) * model.coef_[:, ~out] / norms[~out]
    np.testing.assert_allclose(inside, 0.0, atol=1e-7)
    pen = GroupedElasticNet(C, 1.0)
    S = X @ model.coef_.T + model.intercept_
    ours = float(np.sum(logsumexp(S, axis=1) - S[np.arange(y.size), y])) + pen.value(model.coef_)
    other = _model(1.0, C, None, None, None).fit(X, y)
    S = X @ other.coef_.T + other.intercept_
    theirs = float(np.sum(logsumexp(S, axis=1) - S[np.arange(y.size), y])) + pen.value(other.coef_)
    assert ours < theirs


def test_grouped_is_the_plain_penalty_for_two_classes_and_for_ridge(cancer):
    X, y = cancer
    for params in ({"penalty": "l1", "C": 0.5}, {"penalty": "l2", "C": 0.5}):
        a = linclass.LogisticRegression(tol=1e-10, **params).fit(X, y)
        b = linclass.LogisticRegression(tol=1e-10, multinomial_penalty="grouped", **params).fit(X, y)
        np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-8)
    Xw, yw = _data("wine.csv")
    a = linclass.LogisticRegression(penalty="l2", C=0.5, tol=1e-10).fit(Xw, yw)
    b = linclass.LogisticRegression(penalty="l2", C=0.5, tol=1e-10,
                                    multinomial_penalty="grouped").fit(Xw, yw)
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-7)


# ----------------------------------------------------------------- an independent solve
def _objective(X, y, K, rho, C, factor, lower, upper):
    """The penalised objective (summed log-loss) in the split variables, with its gradient and the
    simple bounds that carry the box, for L-BFGS-B."""
    n, d = X.shape
    m = 1 if K == 2 else K
    f = np.ones(d) if factor is None else np.asarray(factor, float)
    l1 = 0.0 if np.isinf(C) else rho / C * f
    l2 = 0.0 if np.isinf(C) else (1 - rho) / C * f
    lo = np.broadcast_to(-np.inf if lower is None else lower, (d,))
    hi = np.broadcast_to(np.inf if upper is None else upper, (d,))
    Y = np.eye(K)[y]

    def unpack(z):
        u, v = z[: m * d].reshape(m, d), z[m * d: 2 * m * d].reshape(m, d)
        return u - v, u, v, z[2 * m * d:]

    def fun(z):
        W, u, v, b = unpack(z)
        S = X @ W.T + b
        if K == 2:
            s = S[:, 0]
            loss = float(np.sum(np.logaddexp(0, s) - y * s))
            V = (1 / (1 + np.exp(-s)) - y)[:, None]
        else:
            L = log_softmax(S, axis=1)
            loss = -float(np.sum(Y * L))
            V = np.exp(L) - Y
        G = V.T @ X
        value = loss + float(np.sum(l1 * (u + v)) + 0.5 * np.sum(l2 * W * W))
        gW = G + l2 * W
        return value, np.concatenate([(gW + l1).ravel(), (-gW + l1).ravel(), V.sum(axis=0)])

    bounds = ([(max(a, 0.0), max(c, 0.0)) for a, c in zip(np.tile(lo, m), np.tile(hi, m))]
              + [(max(-c, 0.0), max(-a, 0.0)) for a, c in zip(np.tile(lo, m), np.tile(hi, m))]
              + [(None, None)] * m)
    bounds = [(a, None if c == np.inf else c) for a, c in bounds]
    return fun, bounds, 2 * m * d + m


@pytest.mark.parametrize("case_id", ["factor_l1", "box_enet", "nonneg_factor_l1", "box_ridge",
                                     "factor_enet_multi", "nonneg_l1_multi"])
def test_objective_is_the_best_an_independent_solver_reaches(case_id):
    """No point that L-BFGS-B finds for the same objective is lower than linclass's, and the two
    agree to the precision of L-BFGS-B."""
    file, rho, C, factor, lower, upper = CASES[case_id]
    X, y = _data(file)
    K = np.unique(y).size
    model = _model(rho, C, factor, lower, upper).fit(X, y)
    fun, bounds, size = _objective(X, y, K, rho, C, factor, lower, upper)
    ref = minimize(fun, np.zeros(size), jac=True, method="L-BFGS-B", bounds=bounds,
                   options={"maxiter": 20000, "maxfun": 40000, "ftol": 1e-15, "gtol": 1e-11})
    W = model.coef_
    b = model.intercept_
    u, v = np.maximum(W, 0), np.maximum(-W, 0)
    ours = fun(np.concatenate([u.ravel(), v.ravel(), b]))[0]
    assert ours <= ref.fun + 1e-9 * abs(ref.fun)
    assert ours == pytest.approx(ref.fun, rel=1e-7)


# ----------------------------------------------------------------- properties
@pytest.fixture(scope="module")
def cancer():
    return _data("breast_cancer10.csv")


def test_factors_of_one_and_wide_bounds_change_nothing(cancer):
    X, y = cancer
    plain = _model(1.0, 0.5, None, None, None).fit(X, y)
    ones = _model(1.0, 0.5, np.ones(P10), -1e6, 1e6).fit(X, y)
    np.testing.assert_allclose(ones.coef_, plain.coef_, atol=1e-9)
    np.testing.assert_allclose(ones.predict_proba(X), plain.predict_proba(X), atol=1e-10)


def test_a_common_factor_is_a_change_of_C(cancer):
    X, y = cancer
    scaled = _model(0.5, 1.0, np.full(P10, 4.0), None, None).fit(X, y)
    weaker = _model(0.5, 0.25, None, None, None).fit(X, y)
    np.testing.assert_allclose(scaled.coef_, weaker.coef_, atol=1e-8)


def test_a_feature_fixed_at_zero_by_its_bounds_is_a_feature_left_out(cancer):
    X, y = cancer
    lower, upper = np.full(P10, -np.inf), np.full(P10, np.inf)
    lower[[2, 5]] = upper[[2, 5]] = 0.0
    boxed = _model(1.0, 0.5, None, lower, upper).fit(X, y)
    keep = np.setdiff1d(np.arange(P10), [2, 5])
    dropped = _model(1.0, 0.5, None, None, None).fit(X[:, keep], y)
    assert np.all(boxed.coef_[:, [2, 5]] == 0.0)
    np.testing.assert_allclose(boxed.coef_[:, keep], dropped.coef_, atol=1e-8)
    np.testing.assert_allclose(boxed.intercept_, dropped.intercept_, atol=1e-8)


def test_unpenalised_features_are_never_zero_and_the_rest_shrink(cancer):
    X, y = cancer
    f = np.ones(P10)
    f[[0, 7]] = 0.0
    model = _model(1.0, 1e-3, f, None, None).fit(X, y)  # a penalty that zeroes every other feature
    assert np.all(model.coef_[0, [0, 7]] != 0.0)
    assert np.all(model.coef_[0, np.flatnonzero(f)] == 0.0)
    # the unpenalised features alone, by maximum likelihood
    alone = linclass.LogisticRegression(penalty=None, tol=1e-10).fit(X[:, [0, 7]], y)
    np.testing.assert_allclose(model.coef_[0, [0, 7]], alone.coef_[0], atol=1e-7)


def test_bounded_fit_meets_its_optimality_conditions(cancer):
    """At the optimum of a box-constrained fit every coefficient strictly inside the box has a zero
    (sub)gradient, and at a bound the gradient points out of the box."""
    X, y = cancer
    model = _model(0.0, 0.2, None, -1.0, 0.3).fit(X, y)
    p = model.predict_proba(X)[:, 1]
    G = X.T @ (p - y) + model.coef_[0] / 0.2
    inside = (model.coef_[0] > -1.0) & (model.coef_[0] < 0.3)
    np.testing.assert_allclose(G[inside], 0.0, atol=1e-7)
    assert np.all(G[model.coef_[0] == 0.3] <= 1e-9)
    assert np.all(G[model.coef_[0] == -1.0] >= -1e-9)
    assert model.violation_ <= 1e-10


def test_softmax_coefficients_within_bounds_and_predictions_finite():
    X, y = _data("wine.csv")
    model = _model(0.5, 0.5, None, -0.2, 0.4).fit(X, y)
    assert model.coef_.min() >= -0.2 - 1e-15 and model.coef_.max() <= 0.4 + 1e-15
    P = model.predict_proba(X)
    assert np.all(np.isfinite(P)) and np.allclose(P.sum(axis=1), 1.0)


def test_penalty_factor_round_trips_through_a_model_file(tmp_path, cancer):
    X, y = cancer
    model = _model(1.0, 0.5, np.linspace(0, 2, P10), -2.0, np.full(P10, 2.0)).fit(X, y)
    path = tmp_path / "m.linclass"
    linclass.save(model, path)
    loaded = linclass.load(path)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(loaded.get_params()["penalty_factor"], model.penalty_factor)


def test_the_summary_of_a_bounded_fit_reports_no_standard_errors(cancer):
    X, y = cancer
    model = _model(1.0, np.inf, None, -1.5, 1.5).fit(X, y)
    text = str(model.summary())
    assert "bound" in text.lower()


# ----------------------------------------------------------------- bad inputs
@pytest.mark.parametrize("params, match", [
    ({"penalty_factor": np.ones(3)}, "penalty_factor has 3 entries; X has 10 features"),
    ({"lower_bounds": np.zeros(4)}, "lower_bounds has 4 entries"),
    ({"penalty_factor": -np.ones(P10)}, "penalty_factor must be finite and >= 0"),
    ({"penalty_factor": np.full(P10, np.inf)}, "penalty_factor must be finite"),
    ({"lower_bounds": np.nan}, "lower_bounds contains NaN"),
    ({"lower_bounds": 1.0, "upper_bounds": 0.5}, "lower_bounds must be <= upper_bounds"),
    ({"upper_bounds": -np.inf}, "upper_bounds cannot be -inf"),
    ({"penalty_factor": np.ones((2, 5))}, "must be a number or a 1-D array"),
    ({"penalty_factor": np.ones(P10), "solver": "lbfgs"}, "fitted by solver='cd'"),
    ({"lower_bounds": 0.0, "solver": "liblinear"}, "liblinear"),
    ({"lower_bounds": 0.0, "penalty": "firth"}, "penalty='firth' takes no"),
    ({"lower_bounds": 0.0, "penalty": "l1", "multinomial_penalty": "grouped"},
     "does not take lower_bounds"),
    ({"penalty": "firth", "multinomial_penalty": "grouped"}, "not penalty='firth'"),
    ({"multinomial_penalty": "group"}, "multinomial_penalty"),
])
def test_bad_column_settings_are_refused_by_name(cancer, params, match):
    X, y = cancer
    with pytest.raises(ValueError, match=match):
        linclass.LogisticRegression(**params).fit(X, y)


def test_chunked_input_refuses_column_settings(cancer):
    da = pytest.importorskip("dask.array")
    X, y = cancer
    model = linclass.LogisticRegression(penalty_factor=np.ones(P10))
    with pytest.raises(ValueError, match="need the rows in memory"):
        model.fit(da.from_array(X, chunks=200), da.from_array(y, chunks=200))


def test_sample_weights_are_frequencies_under_bounds(cancer):
    X, y = cancer
    rng = np.random.default_rng(0)
    w = rng.integers(1, 3, size=y.size)
    weighted = _model(1.0, 0.5, np.linspace(0.5, 1.5, P10), -0.4, 0.6).fit(X, y, sample_weight=w)
    repeated = _model(1.0, 0.5, np.linspace(0.5, 1.5, P10), -0.4, 0.6).fit(
        np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, atol=1e-8)


def test_logsumexp_reference_helper_is_sound():
    """The reference objective above equals the summed log-loss at a random point (a check on the
    check)."""
    X, y = _data("wine.csv")
    fun, _, size = _objective(X, y, 3, 1.0, np.inf, None, None, None)
    rng = np.random.default_rng(1)
    z = rng.normal(size=size) * 0.1
    m, d = 3, X.shape[1]
    W = z[: m * d].reshape(m, d) - z[m * d: 2 * m * d].reshape(m, d)
    S = X @ W.T + z[2 * m * d:]
    expected = float(np.sum(logsumexp(S, axis=1) - S[np.arange(y.size), y]))
    assert fun(z)[0] == pytest.approx(expected, rel=1e-12)


def test_grouped_small_model_is_solved_exactly():
    """The exact inner step of the grouped penalty (block updates and Newton on the non-zero
    groups) reaches the minimum a derivative-free search finds, on a random convex model."""
    from linclass.linear.solvers.small_grouped import block_minimiser, solve_small_grouped

    rng = np.random.default_rng(0)
    K, q = 3, 4
    n = K * q
    A = rng.normal(size=(n, n))
    Q = A @ A.T / n
    grad, w = rng.normal(size=n), rng.normal(size=n) * (rng.random(n) < 0.5)
    l1, l2 = np.full(q, 0.5), np.full(q, 0.1)
    delta, _ = solve_small_grouped(Q, grad, w, l1, l2, K, 1e-12, 200)
    groups = np.arange(K)[None, :] * q + np.arange(q)[:, None]

    def model(d):
        u = w + d
        norms = np.linalg.norm(u[groups], axis=1)
        return grad @ d + 0.5 * d @ Q @ d + l1 @ norms + 0.5 * l2 @ norms ** 2

    ref = minimize(model, np.zeros(n), method="Powell",
                   options={"xtol": 1e-12, "ftol": 1e-15, "maxfev": 200000})
    assert model(delta) <= ref.fun + 1e-10
    B, b = Q[:3, :3], rng.normal(size=3)
    u = block_minimiser(B, b, 0.3)
    block = lambda v: 0.5 * v @ B @ v - b @ v + 0.3 * np.linalg.norm(v)  # noqa: E731
    assert block(u) <= minimize(block, np.full(3, 0.1), method="Nelder-Mead",
                                options={"xatol": 1e-12, "fatol": 1e-15}).fun + 1e-12
    assert np.all(block_minimiser(B, 0.1 * b / np.linalg.norm(b), 0.3) == 0.0)


# ----------------------------------------------------------------- paths and cross-validation
def _glmnet_cv(case_id):
    with open(HERE / "glmnet_columns_cv.csv") as f:
        rows = [r for r in csv.DictReader(f) if r["id"] == case_id]
    column = lambda key: np.array([float(r[key]) for r in rows])  # noqa: E731
    flags = lambda key: np.array([r[key] == "TRUE" for r in rows])  # noqa: E731
    coefs = np.array([[float(r[f"x{j + 1}"]) for j in range(P10)] for r in rows])
    return column("lambda"), column("cvm"), column("cvsd"), flags("is_min"), flags("is_1se"), \
        coefs, column("intercept")


_F_CV = np.array([0, 0.5, 1, 1, 2, 1, 1, 0, 1.5, 1.0])
CV_CASES = {"cv_factor_l1": {"penalty_factor": _F_CV * P10 / _F_CV.sum()},
            "cv_nonneg_l1": {"lower_bounds": 0.0}}


@pytest.mark.parametrize("case_id", sorted(CV_CASES))
def test_path_and_cross_validation_match_cv_glmnet(case_id, cancer):
    """glmnet_columns_cv.R: cv.glmnet with penalty factors (factor 0: never penalised) or a lower
    bound, on given folds and a given lambda grid: the same cvm / cvsd, lambda.min and lambda.1se,
    and the path on all rows has glmnet's coefficients."""
    from sklearn.model_selection import PredefinedSplit

    X, y = cancer
    lam, cvm, cvsd, is_min, is_1se, coefs, intercepts = _glmnet_cv(case_id)
    Cs = 1.0 / (lam * y.size)  # increasing, as lambda decreases
    folds = PredefinedSplit(np.arange(y.size) % 5)

    def glmnet_deviance(model, Xt, yt, sample_weight=None):
        # cv.glmnet's binomial deviance floors the held-out probabilities at 1e-5 (this data's
        # confident predictions move cvm by 6e-7 with it); linclass's default score does not
        p = np.clip(model.predict_proba(Xt)[:, 1], 1e-5, 1 - 1e-5)
        return float(np.mean(yt * np.log(p) + (1 - yt) * np.log(1 - p)))

    for rule, chosen in (("min", is_min), ("1se", is_1se)):
        cv = linclass.LogisticRegressionCV(Cs=Cs, penalty="l1", cv=folds, fold_penalty="lambda",
                                           refit_rule=rule, tol=1e-10, max_iter=500,
                                           scoring=glmnet_deviance, **CV_CASES[case_id]).fit(X, y)
        np.testing.assert_allclose(-2 * cv.cv_mean_[0], cvm, atol=1e-7)
        np.testing.assert_allclose(2 * cv.cv_se_[0], cvsd, atol=1e-7)
        assert cv.C_ == pytest.approx(Cs[chosen][0], rel=1e-12)
    path = linclass.logistic_path(X, y, Cs=Cs, penalty="l1", tol=1e-10, max_iter=500,
                                  **CV_CASES[case_id])
    # glmnet's weakest fits stop 2e-6 from linclass's (whose optimality violation is 4e-13 and
    # objective 3e-12 lower there), the others within 3e-7
    np.testing.assert_allclose(path.coefs[:, 0], coefs, atol=3e-6)
    np.testing.assert_allclose(path.intercepts[:, 0], intercepts, atol=3e-6)
    assert np.all(path.violation <= 1e-10)


def test_path_grid_starts_where_the_penalised_coefficients_vanish(cancer):
    """With unpenalised features glmnet's grid starts at the penalty that zeroes every penalised
    coefficient with the unpenalised ones fitted: there only those are in the model (to rounding
    at the boundary), and one step further some other feature enters."""
    X, y = cancer
    path = linclass.logistic_path(X, y, Cs=15, penalty="l1", penalty_factor=_F_CV)
    first = path.coefs[0, 0]
    assert np.all(first[[0, 7]] != 0.0)
    assert np.max(np.abs(np.delete(first, [0, 7]))) < 1e-9
    assert path.n_nonzero[-1] > 2
    alone = linclass.LogisticRegression(penalty=None, tol=1e-10).fit(X[:, [0, 7]], y)
    np.testing.assert_allclose(first[[0, 7]], alone.coef_[0], atol=1e-6)


def test_grouped_path_keeps_features_whole_and_bad_lengths_are_refused(cancer):
    X, y = _data("wine.csv")
    path = linclass.logistic_path(X, y, Cs=8, penalty="l1", multinomial_penalty="grouped")
    zero = path.coefs == 0.0
    assert np.all(zero.all(axis=1) == zero.any(axis=1)) and path.converged.all()
    assert path.n_nonzero[0] == 0 and path.n_nonzero[-1] > 5
    with pytest.raises(ValueError, match="penalty_factor has 3 entries"):
        linclass.logistic_path(X, y, Cs=3, penalty="l1", penalty_factor=np.ones(3))


def test_conjugate_is_the_supremum_over_the_box():
    """The duality gap's conjugate h*(u) = sup over [lo, hi] of u w - l1 |w| - l2/2 w^2 equals a fine
    grid search, coordinate by coordinate, with and without an L2 part; dual_scale makes an open
    side finite."""
    from linclass.linear.penalties.conjugate import conjugate, dual_scale

    rng = np.random.default_rng(3)
    grid = np.linspace(-3, 3, 600001)
    for l2 in (0.0, 0.7):
        columns = np.array([[0.5, 0.2, 1.0], [l2] * 3, [-1.0, 0.0, -2.0], [2.0, 1.5, 0.5]])
        U = rng.normal(scale=2.0, size=(3, 2))
        expected = 0.0
        for j in range(3):
            l1, l2j, lo, hi = columns[:, j]
            w = grid[(grid >= lo) & (grid <= hi)]
            for u in U[j]:
                expected += float(np.max(u * w - l1 * np.abs(w) - 0.5 * l2j * w * w))
        assert conjugate(U, columns) == pytest.approx(expected, abs=1e-9)
    open_side = np.array([[0.5], [0.0], [0.0], [np.inf]])
    U = np.array([[2.0]])
    assert conjugate(U, open_side) == np.inf
    alpha = dual_scale(U, open_side)
    assert alpha == pytest.approx(0.25) and np.isfinite(conjugate(alpha * U, open_side))


def test_best_shift_within_bounds_minimises_over_the_feasible_shifts():
    from linclass.linear.penalties.softmax_shift import best_shift

    rng = np.random.default_rng(4)
    W = rng.normal(size=(4, 6))
    l1, l2 = np.array([1.0, 0.0, 0.5, 1.0, 0.0, 0.3]), np.array([0.0, 1.0, 0.5, 0.0, 0.0, 0.1])
    lower, upper = np.full(6, -1.0), np.full(6, 2.5)  # a feasible shift exists: spreads < 3.5
    shift = best_shift(W, l1, l2, lower, upper)
    for j in range(6):
        lo, hi = W[:, j].max() - upper[j], W[:, j].min() - lower[j]
        cs = np.linspace(lo, hi, 200001)
        D = W[:, j][:, None] - cs[None, :]
        values = l1[j] * np.abs(D).sum(axis=0) + 0.5 * l2[j] * (D * D).sum(axis=0)
        assert lo - 1e-12 <= shift[j] <= hi + 1e-12
        f = l1[j] * np.abs(W[:, j] - shift[j]).sum() + 0.5 * l2[j] * ((W[:, j] - shift[j]) ** 2).sum()
        assert f <= min(values) + 1e-9
    assert shift[4] == pytest.approx(np.clip(W[:, 4].mean(), W[:, 4].max() - 2.5, W[:, 4].min() + 1.0))
