"""L1 / elastic-net logistic regression on chunked data too wide for proximal Newton's Hessian:
OWL-QN (linclass.linear.solvers.owlqn) with gradient passes only reaches the in-memory optimum."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

import linclass as lc  # noqa: E402
import linclass.linear.inference.wald as wald  # noqa: E402
from linclass.linear.solvers.owlqn import _pseudo_gradient, _two_loop  # noqa: E402
from linclass.sources.chunks import fit_chunked  # noqa: E402
from linclass.sources.files import FileSource  # noqa: E402

TIGHT = {"tol": 1e-10, "max_iter": 3000}
CHUNKS = (90, 160, 50, 100)


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.fixture
def narrow_limit(monkeypatch):
    """Models above 5 parameters count as wide: OWL-QN on small problems."""
    monkeypatch.setattr(wald, "MAX_PARAMS", 5)


def problem(K, seed=0):
    rng = np.random.default_rng(seed)
    n, d = sum(CHUNKS), 8
    y = np.arange(n) % K
    rng.shuffle(y)
    X = rng.normal(size=(n, d)) + 0.8 * rng.normal(size=(K, d))[y]
    X[:, 3] = rng.normal(size=n)  # noise columns: the penalty zeroes them
    X[:, 6] = rng.normal(size=n)
    return X, y, rng.uniform(0.2, 3.0, size=n)


def dask_of(X, y, w=None):
    Xd = da.from_array(X, chunks=(CHUNKS, X.shape[1]))
    yd = da.from_array(y, chunks=(CHUNKS,))
    return Xd, yd, None if w is None else da.from_array(w, chunks=(CHUNKS,))


def assert_same(a, b, X, atol=1e-8):
    np.testing.assert_allclose(b.coef_, a.coef_, rtol=0, atol=atol)
    np.testing.assert_allclose(b.intercept_, a.intercept_, rtol=0, atol=atol)
    np.testing.assert_allclose(b.predict_proba(X), a.predict_proba(X), rtol=0, atol=atol)


def test_pseudo_gradient_is_the_steepest_descent_of_the_l1_objective():
    x = np.array([1.0, -2.0, 0.0, 0.0, 0.0, 0.5])
    g = np.array([0.3, 0.3, 0.5, -2.0, 3.0, -1.0])
    l1 = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 0.0])
    # off zero: g + l1 sign(x); at zero: the one-sided derivative pointing downhill, or 0
    np.testing.assert_array_equal(_pseudo_gradient(x, g, l1), [1.3, -0.7, 0.0, -1.0, 2.0, -1.0])


def test_two_loop_is_the_inverse_of_a_quadratic_after_enough_pairs():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(4, 4))
    H = A @ A.T + 4 * np.eye(4)
    pairs = []
    for s in np.linalg.eigh(H)[1].T:  # H-conjugate steps: BFGS's inverse update is then exact
        y = H @ s
        pairs.append((s, y, 1.0 / float(s @ y)))
    v = rng.normal(size=4)
    np.testing.assert_allclose(_two_loop(v, pairs), np.linalg.solve(H, v), rtol=1e-10)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("l1_ratio", [1.0, 0.5], ids=["l1", "elasticnet"])
@pytest.mark.parametrize("K", [2, 3])
def test_wide_models_fit_by_owlqn_equal_in_memory(narrow_limit, K, l1_ratio, weighted):
    X, y, w = problem(K)
    w = w if weighted else None
    settings = {"penalty": "l1" if l1_ratio == 1.0 else "elasticnet", "l1_ratio": l1_ratio,
                "C": 0.03, **TIGHT}
    a = lc.LogisticRegression(**settings).fit(X, y, sample_weight=w)
    b = lc.LogisticRegression(**settings).fit(*dask_of(X, y, w))
    assert b.solver_ == "owlqn" and b.converged_ and a.solver_ == "cd"
    assert_same(a, b, X)
    assert np.any(b.coef_ == 0.0) and np.any(b.coef_ != 0.0)  # exact zeros, as in memory
    np.testing.assert_array_equal(b.coef_ == 0.0, a.coef_ == 0.0)
    # one pass per iteration and a few for rejected steps and the first passes
    assert b.n_iter_[0] + 2 <= b.n_passes_ <= 2 * b.n_iter_[0] + 4


def test_no_intercept_and_class_weight(narrow_limit):
    X, y, w = problem(3, seed=4)
    settings = {"penalty": "elasticnet", "l1_ratio": 0.5, "C": 0.05, "fit_intercept": False,
                "class_weight": "balanced", **TIGHT}
    a = lc.LogisticRegression(**settings).fit(X, y, sample_weight=w)
    b = lc.LogisticRegression(**settings).fit(*dask_of(X, y, w))
    assert b.solver_ == "owlqn"
    assert_same(a, b, X)
    assert np.all(b.intercept_ == 0.0)


def test_real_data_digits(narrow_limit):
    from sklearn.datasets import load_digits
    from sklearn.preprocessing import StandardScaler

    X, y = load_digits(return_X_y=True)
    X, y = StandardScaler().fit_transform(X[:500]), y[:500]
    settings = {"penalty": "l1", "l1_ratio": 1.0, "C": 0.1, **TIGHT}
    a = lc.LogisticRegression(**settings).fit(X, y)
    b = lc.LogisticRegression(**settings).fit(da.from_array(X, chunks=(130, 64)),
                                              da.from_array(y, chunks=130))
    assert b.solver_ == "owlqn" and b.converged_
    assert_same(a, b, X, atol=1e-7)
    np.testing.assert_array_equal(b.coef_ != 0, a.coef_ != 0)


def test_file_source(narrow_limit, tmp_path):
    X, y, _ = problem(2, seed=2)
    path = tmp_path / "rows.csv"
    cols = [f"x{j}" for j in range(X.shape[1])]
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header=",".join([*cols, "y"]),
               comments="", fmt="%.17g")
    settings = {"penalty": "l1", "l1_ratio": 1.0, "C": 0.03, **TIGHT}
    a = lc.LogisticRegression(**settings).fit(X, y)
    b = fit_chunked(lc.LogisticRegression(**settings), FileSource(path, target="y", chunksize=130))
    assert b.solver_ == "owlqn" and b.converged_
    np.testing.assert_allclose(b.coef_, a.coef_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(b.intercept_, a.intercept_, rtol=0, atol=1e-8)


@pytest.mark.slow
def test_genuinely_wide_model_beyond_the_hessian_limit():
    """More than MAX_PARAMS parameters: proximal Newton would form a 2101 x 2101 Hessian per pass;
    OWL-QN needs gradients only and reaches the in-memory optimum."""
    rng = np.random.default_rng(0)
    n, d = 500, wald.MAX_PARAMS + 100
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.05)
    beta = np.zeros(d)
    beta[:20] = 3 * rng.normal(size=20)
    y = (X @ beta + rng.logistic(size=n) > 0).astype(int)
    settings = {"penalty": "l1", "l1_ratio": 1.0, "C": 0.5, **TIGHT}
    a = lc.LogisticRegression(**settings).fit(X, y)
    b = lc.LogisticRegression(**settings).fit(da.from_array(X, chunks=(125, d)),
                                              da.from_array(y, chunks=125))
    assert b.solver_ == "owlqn" and b.converged_
    np.testing.assert_allclose(b.predict_proba(X), a.predict_proba(X), rtol=0, atol=1e-7)
    np.testing.assert_array_equal(b.coef_ != 0, a.coef_ != 0)


def _objective(model, X, y, C):
    """Summed log-loss plus the L1 penalty over C, from the fitted model alone."""
    log_proba = model.predict_log_proba(X)
    loss = -log_proba[np.arange(y.size), np.searchsorted(model.classes_, y)].sum()
    return loss + np.abs(model.coef_).sum() / C


@pytest.mark.parametrize("name, C", [("wine", 0.01), ("wine", 1.0), ("digits", 0.01)])
def test_both_ends_of_a_path_reach_the_best_objective_on_real_data(narrow_limit, name, C):
    """At a strong and a weak penalty (wine: 3 and 207 passes) OWL-QN on chunks reaches the objective
    of the in-memory proximal Newton fit at tol=1e-10, the lowest either method finds."""
    from sklearn.datasets import load_digits, load_wine
    from sklearn.preprocessing import StandardScaler

    X, y = {"wine": load_wine, "digits": load_digits}[name](return_X_y=True)
    X, y = StandardScaler().fit_transform(X[:600]), y[:600]
    settings = {"penalty": "l1", "l1_ratio": 1.0, "C": C, "tol": 1e-10, "max_iter": 5000}
    a = lc.LogisticRegression(**settings).fit(X, y)
    b = lc.LogisticRegression(**settings).fit(da.from_array(X, chunks=(100, X.shape[1])),
                                              da.from_array(y, chunks=100))
    assert b.solver_ == "owlqn" and b.converged_
    best = min(_objective(a, X, y, C), _objective(b, X, y, C))
    assert _objective(b, X, y, C) - best <= 1e-10 * best
    assert _objective(a, X, y, C) - best <= 1e-10 * best
