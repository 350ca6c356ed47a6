"""The folded concave penalties (MCP, SCAD): skglm's objective or lower on real data, the
optimality conditions at the fit, the lasso limit, the exact coordinate update, and the seam (their
names in three files of code and in no compiled loop)."""

import json
import pathlib
import re

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

import linclass
from linclass.linear.penalties.mcp import MCP
from linclass.linear.penalties.scad import SCAD

DATA = pathlib.Path(__file__).parent / "data" / "skglm" / "folded_concave.json"
SRC = pathlib.Path(linclass.__file__).parent


def _rho(x, lam, gamma, kind):
    """The penalty per unit weight, written from the papers' formulas (not from the module)."""
    x = np.abs(x)
    if kind == "mcp":  # Zhang 2010, eq. 2.1
        return np.where(x <= gamma * lam, lam * x - x * x / (2 * gamma), 0.5 * gamma * lam * lam)
    return np.where(x <= lam, lam * x,  # Fan and Li 2001, eq. 2.7 integrated
                    np.where(x <= gamma * lam,
                             (2 * gamma * lam * x - x * x - lam * lam) / (2 * (gamma - 1)),
                             lam * lam * (gamma + 1) / 2))


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _objective(model, X, y, lam, gamma, kind):
    s = X @ model.coef_[0] + model.intercept_[0]
    return float(np.mean(np.logaddexp(0.0, -(2 * y - 1) * s))
                 + _rho(model.coef_[0], lam, gamma, kind).sum())


def _fits():
    return json.loads(DATA.read_text())["fits"]


@pytest.mark.parametrize("ref", _fits(), ids=lambda f: f"{f['penalty']}-{f['lambda']}")
def test_reaches_skglms_objective_or_lower(cancer, ref):
    """At default settings, the fit's objective is skglm's (AndersonCD from zero, tol 1e-10) or
    lower, to 1e-8 relative: a local minimum at least as good."""
    X, y = cancer
    lam, gamma = ref["lambda"], ref["gamma"]
    model = linclass.LogisticRegression(penalty=ref["penalty"], C=1 / (lam * len(y)), gamma=gamma)
    model.fit(X, y)
    ours = _objective(model, X, y, lam, gamma, ref["penalty"])
    assert ours <= ref["objective"] * (1 + 1e-8)
    assert model.summary().converged if hasattr(model.summary(), "converged") else True


@pytest.mark.parametrize("make, kind", [(MCP, "mcp"), (SCAD, "scad")])
@pytest.mark.parametrize("lam", [0.05, 0.01])
def test_optimality_conditions_hold_at_the_fit(cancer, make, kind, lam):
    """0 in G_j + n d rho(|w_j|): |G_j + n rho'(|w_j|) sign(w_j)| small where w_j != 0, |G_j| <= n
    lambda where w_j = 0 (G the summed gradient), with rho' from the papers' formulas."""
    X, y = cancer
    n = len(y)
    gamma = make.default_gamma
    model = linclass.LogisticRegression(penalty=kind, C=1 / (lam * n), tol=1e-9).fit(X, y)
    w, b = model.coef_[0], model.intercept_[0]
    p = 1 / (1 + np.exp(-(X @ w + b)))
    G = X.T @ (p - y)
    assert abs(np.sum(p - y)) <= 1e-6 * n
    x = np.abs(w)
    if kind == "mcp":
        slope = np.maximum(lam - x / gamma, 0.0)
    else:
        slope = np.where(x <= lam, lam, np.maximum(gamma * lam - x, 0.0) / (gamma - 1))
    nz = w != 0
    assert nz.sum() >= 3
    np.testing.assert_allclose(G[nz] + n * slope[nz] * np.sign(w[nz]), 0.0, atol=1e-6 * n)
    assert np.all(np.abs(G[~nz]) <= n * lam * (1 + 1e-9))


@pytest.mark.parametrize("kind", ["mcp", "scad"])
def test_the_lasso_limit(cancer, kind):
    """gamma -> inf is the lasso: the same coefficients as penalty='l1' at the same C."""
    X, y = cancer
    C = 0.05
    lasso = linclass.LogisticRegression(penalty="l1", C=C, tol=1e-10).fit(X, y)
    folded = linclass.LogisticRegression(penalty=kind, C=C, gamma=1e9, tol=1e-10).fit(X, y)
    np.testing.assert_allclose(folded.coef_, lasso.coef_, atol=1e-6)
    np.testing.assert_allclose(folded.intercept_, lasso.intercept_, atol=1e-6)


@pytest.mark.parametrize("make", [MCP, SCAD])
def test_the_coordinate_update_is_the_global_minimiser(make):
    """The compiled update minimises a/2 v^2 - u v + N rho(|v|) globally, convex or not (a < N/gamma
    included), against a fine grid."""
    from numba import njit

    @njit
    def call(f, a, u, j, pp):
        return f(a, u, 0.0, j, pp)

    pen = make(1.0 / (0.1 * 50), None)
    pen.bind(3, 50.0)  # lambda = 0.1, N = 50
    kernel = pen.kernel(3)
    rng = np.random.default_rng(0)
    grid = np.linspace(-4, 4, 160001)
    penalty = 50.0 * _rho(grid, 0.1, pen.gamma, make.name)
    for _ in range(60):
        a = float(rng.choice([1.0, 5.0, 15.0, 40.0, 200.0]))
        u = float(rng.normal() * 12)
        v = call(kernel.prox, a, u, 1, kernel.params)
        f = 0.5 * a * grid ** 2 - u * grid + penalty
        at_v = 0.5 * a * v * v - u * v + 50.0 * float(_rho(np.array(v), 0.1, pen.gamma, make.name))
        assert at_v <= f.min() + 1e-9 * (1 + abs(f.min()))


def test_a_path_warm_starts_down_the_penalty(cancer):
    """logistic_path with a folded concave penalty: every fit converged, fits from zero
    coefficients at the strong end to more non-zeros at the weak end, each a KKT point."""
    X, y = cancer
    Cs = 1 / (len(y) * np.geomspace(0.3, 0.01, 10))
    path = linclass.logistic_path(X, y, Cs=Cs, penalty="mcp", tol=1e-8)
    nnz = [np.count_nonzero(c) for c in path.coefs]
    assert nnz[0] <= 1 and nnz[-1] >= 5
    assert np.all(path.converged)


def test_bad_input_is_named(cancer):
    X, y = cancer
    with pytest.raises(ValueError, match="gamma"):
        linclass.LogisticRegression(penalty="mcp", gamma=1.0 + 0 * 1).fit(X, y)
    with pytest.raises(ValueError, match="gamma > 2"):
        linclass.LogisticRegression(penalty="scad", gamma=1.5).fit(X, y)
    with pytest.raises(ValueError, match="two classes"):
        linclass.LogisticRegression(penalty="scad").fit(X[:90], np.arange(90) % 3)
    with pytest.warns(UserWarning, match="gamma=2.5 is ignored"):
        linclass.LogisticRegression(penalty="l1", gamma=2.5).fit(X, y)


def test_the_seam_their_names_in_three_files_and_in_no_compiled_loop():
    """Adding a penalty is one module and its name in one table: the names of these two appear in
    their own modules, the table and the estimator's parameter docs and checks, and nowhere else in
    the code (no compiled loop, no solver, no fit)."""
    found = set()
    for path in SRC.rglob("*.py"):
        if re.search(r"\b(mcp|scad)\b", path.read_text(), flags=re.IGNORECASE):
            found.add(path.relative_to(SRC).as_posix())
    assert found <= {"linear/penalties/mcp.py", "linear/penalties/scad.py",
                     "linear/fitting/choice.py", "estimators/logistic/regression.py"}, found
