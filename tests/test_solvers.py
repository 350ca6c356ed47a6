"""The four solvers on a LinearObjective: same optimum, honest bookkeeping, determinism, monotonicity,
and the singular-Hessian path.

Newton with tol=1e-10 is the reference optimum (quadratic convergence: its gradient is ~1e-12 there).
The objective is the mean penalised log-loss, of order 0.5 on these data; the deterministic solvers
must reach it to 1e-6 (a relative error of ~2e-6 in the log-loss, far below any statistical effect
and far above rounding).  SGD is stochastic and stops on a plateau of the noisy objective, so its
bound is looser and stated where it is tested.
"""

from __future__ import annotations

import numpy as np
import pytest

from linclass.linear.logistic.objective import LinearObjective
from linclass.linear.solvers import (
    SOLVERS,
    SolverResult,
    SymmetricSolver,
    bohning,
    lbfgs,
    newton,
    sgd,
)

DETERMINISTIC = ["newton", "bohning", "lbfgs"]


def make_data(K, *, n=300, d=4, seed=0):
    """Non-separable data: linear class scores plus Gumbel noise of scale 2 (a softmax model), with
    features of unequal scales and far-from-zero means."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * np.array([1.0, 2.0, 0.5, 3.0])[:d] + np.array([1.0, -2.0, 0.0, 5.0])[:d]
    W = rng.normal(size=(d, K)) / np.array([1.0, 2.0, 0.5, 3.0])[:d, None]
    y = ((X - X.mean(axis=0)) @ W + rng.gumbel(size=(n, K))).argmax(axis=1).astype(np.intp)
    assert np.all(np.bincount(y, minlength=K) > n / (4 * K)), np.bincount(y)
    return X, y


def make_objective(K, *, l2=0.0, weighted=False, fit_intercept=True, n=300, seed=0):
    X, y = make_data(K, n=n, seed=seed)
    w = np.random.default_rng(seed + 1).uniform(0.2, 2.0, size=n) if weighted else None
    return LinearObjective(X, y, K, w, l2=l2, fit_intercept=fit_intercept)


def reference(obj):
    result = newton(obj, obj.null_start(), tol=1e-10, max_iter=100)
    assert result.converged and result.gradient_norm <= 1e-10
    return result


def run(name, obj, theta0=None, **kw):
    theta0 = obj.null_start() if theta0 is None else theta0
    options = {"newton": dict(tol=1e-10, max_iter=100), "bohning": dict(tol=1e-8, max_iter=20000),
               "lbfgs": dict(tol=1e-8, max_iter=5000)}[name]
    options.update(kw)
    return SOLVERS[name](obj, theta0, **options)


def seed(name):
    """``random_state`` for the solver that takes one (sgd); the others take no such option."""
    return {"random_state": 0} if name == "sgd" else {}


CASES = [pytest.param(K, l2, wt, fi, id=f"K{K}-l2={l2}-{'w' if wt else 'unw'}-{'int' if fi else 'noint'}")
         for K, l2, wt, fi in [(2, 0.0, False, True), (2, 1.0, True, True), (2, 0.0, True, False),
                               (3, 0.0, False, True), (3, 5.0, True, True), (4, 0.0, True, False)]]


# ----------------------------------------------------------------------------- same optimum


def test_registry():
    assert set(SOLVERS) == {"newton", "bohning", "lbfgs", "sgd"}
    assert SOLVERS["newton"] is newton and SOLVERS["bohning"] is bohning
    assert SOLVERS["lbfgs"] is lbfgs and SOLVERS["sgd"] is sgd


@pytest.mark.parametrize("K, l2, weighted, fit_intercept", CASES)
@pytest.mark.parametrize("name", DETERMINISTIC)
def test_deterministic_solvers_reach_newtons_optimum(name, K, l2, weighted, fit_intercept):
    obj = make_objective(K, l2=l2, weighted=weighted, fit_intercept=fit_intercept)
    ref = reference(obj)
    result = run(name, obj)
    assert isinstance(result, SolverResult)
    assert result.theta.shape == obj.shape
    assert result.converged
    assert 0 < result.n_iter
    assert result.gradient_norm <= 1e-8 or (name == "bohning" and result.gradient_norm <= 1e-4)
    f_ref = obj.value(ref.theta)
    assert abs(obj.value(result.theta) - f_ref) <= 1e-6
    # the optimum is strictly convex here, so the parameters agree too (loosely: f is flat near it)
    np.testing.assert_allclose(result.theta, ref.theta, atol=1e-3 * max(1.0, np.abs(ref.theta).max()))
    # the reported gradient norm is the true one at theta
    _, g = obj.value_gradient(result.theta)
    assert result.gradient_norm == pytest.approx(np.abs(g).max(), rel=1e-12, abs=1e-300)
    # history: the start and one value per iteration, ending at the returned point
    assert result.history.shape == (result.n_iter + 1,)
    assert result.history[0] == pytest.approx(obj.value(obj.null_start()), rel=1e-14)
    assert result.history[-1] == pytest.approx(obj.value(result.theta), rel=1e-12)
    assert result.singular is False


def test_newton_converges_quadratically():
    obj = make_objective(3)
    result = reference(obj)
    assert result.n_iter <= 10
    gaps = result.history[:-1] - result.history[-1]
    gaps = gaps[gaps > 1e-13]
    # each gap at most a constant times the square of the previous one near the optimum
    assert len(gaps) >= 3
    assert gaps[-1] <= 10 * gaps[-2] ** 2 + 1e-13


SGD_GAP = 1e-3  # mean log-loss above Newton's: observed 8e-6 .. 4.5e-4 over 20 seeds on these data


@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("random_state", [0, 1, 2])
def test_sgd_gets_close_to_the_optimum(K, random_state):
    obj = make_objective(K, n=2000, seed=3)
    f_ref = obj.value(reference(obj).theta)
    f0 = obj.value(obj.null_start())
    result = sgd(obj, obj.null_start(), tol=1e-8, max_iter=500, random_state=random_state, batch_size=64)
    assert result.converged and 0 < result.n_iter < 500
    assert result.history.shape == (result.n_iter + 1,)
    assert result.history[-1] == pytest.approx(obj.value(result.theta), rel=1e-14)
    gap = obj.value(result.theta) - f_ref
    assert -1e-12 <= gap <= SGD_GAP
    assert gap <= 0.01 * (f0 - f_ref)  # nearly all the way from the null model to the optimum


@pytest.mark.parametrize("K", [2, 3])
def test_full_batch_sgd_is_the_bounded_hessian_iteration(K):
    """Module docstring of sgd: with rho = 1 and a full batch the step is exactly Böhning's; it then
    reaches the optimum as tightly as the deterministic solvers."""
    obj = make_objective(K, l2=0.5)
    n = len(obj.y)
    one = sgd(obj, obj.null_start(), tol=1e-12, max_iter=1, batch_size=n, eta0=1.0, random_state=0)
    step = bohning(obj, obj.null_start(), tol=1e-12, max_iter=1)
    np.testing.assert_allclose(one.theta, step.theta, rtol=1e-10, atol=1e-13)
    full = sgd(obj, obj.null_start(), tol=1e-12, max_iter=3000, batch_size=n, eta0=1.0, random_state=0)
    assert abs(obj.value(full.theta) - obj.value(reference(obj).theta)) <= 1e-8


# ----------------------------------------------------------------------------- determinism, limits


def test_sgd_is_deterministic_given_random_state():
    obj = make_objective(3, n=500)
    a = sgd(obj, obj.null_start(), max_iter=5, random_state=42, batch_size=32)
    b = sgd(obj, obj.null_start(), max_iter=5, random_state=42, batch_size=32)
    np.testing.assert_array_equal(a.theta, b.theta)
    np.testing.assert_array_equal(a.history, b.history)
    c = sgd(obj, obj.null_start(), max_iter=5, random_state=43, batch_size=32)
    assert not np.array_equal(a.theta, c.theta)
    gen = sgd(obj, obj.null_start(), max_iter=5, random_state=np.random.default_rng(42), batch_size=32)
    np.testing.assert_array_equal(gen.theta, a.theta)


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_deterministic_solvers_repeat_exactly(name):
    obj = make_objective(3, l2=1.0)
    a, b = run(name, obj), run(name, obj)
    np.testing.assert_array_equal(a.theta, b.theta)
    assert a.n_iter == b.n_iter


@pytest.mark.parametrize("name", ["newton", "bohning", "lbfgs", "sgd"])
@pytest.mark.parametrize("max_iter", [1, 2])
def test_max_iter_is_respected(name, max_iter):
    obj = make_objective(3)
    result = SOLVERS[name](obj, obj.null_start(), tol=1e-12, max_iter=max_iter, **seed(name))
    assert result.n_iter <= max_iter
    assert result.converged is False
    assert result.gradient_norm > 1e-12
    if name != "lbfgs":  # SciPy's iteration count may stop one short inside its line search
        assert result.n_iter == max_iter
        assert result.history.shape == (max_iter + 1,)


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_start_at_the_optimum_needs_no_iteration(name):
    obj = make_objective(2, l2=1.0)
    ref = reference(obj)
    result = SOLVERS[name](obj, ref.theta, tol=1e-8, max_iter=50)
    assert result.converged and result.n_iter == 0
    np.testing.assert_array_equal(result.theta, ref.theta)


@pytest.mark.parametrize("name", ["newton", "bohning", "lbfgs", "sgd"])
def test_unknown_option_is_an_error(name):
    """Each solver takes exactly its own options: a misspelled or foreign one is not ignored."""
    obj = make_objective(2)
    with pytest.raises(TypeError, match="max_iters"):
        SOLVERS[name](obj, obj.null_start(), max_iters=3)
    foreign = {"newton": "eta0", "bohning": "random_state", "lbfgs": "batch_size", "sgd": "memory"}
    with pytest.raises(TypeError, match=foreign[name]):
        SOLVERS[name](obj, obj.null_start(), max_iter=1, **{foreign[name]: 1})


def test_solvers_do_not_modify_theta0():
    obj = make_objective(3)
    theta0 = obj.null_start()
    keep = theta0.copy()
    for name in SOLVERS:
        SOLVERS[name](obj, theta0, max_iter=3, **seed(name))
        np.testing.assert_array_equal(theta0, keep)


# ----------------------------------------------------------------------------- monotonicity


@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("name", ["newton", "bohning"])
def test_history_is_non_increasing(name, K):
    """Newton's line search and Böhning's majorisation both guarantee descent, here from a start far
    from the optimum where an undamped Newton step overshoots."""
    obj = make_objective(K, l2=0.1)
    theta0 = np.random.default_rng(5).normal(scale=3.0, size=obj.shape)
    result = run(name, obj, theta0)
    h = result.history
    assert h.size >= 3
    assert np.all(np.diff(h) <= 1e-12 * np.abs(h[1:])), np.diff(h).max()
    assert h[-1] < h[0] - 0.1  # and it actually moved


def test_undamped_newton_would_overshoot_from_that_start():
    """The start of test_history_is_non_increasing is a real test of the line search: the full Newton
    step from it increases the objective."""
    obj = make_objective(2, l2=0.1)
    theta0 = np.random.default_rng(5).normal(scale=3.0, size=obj.shape)
    f0, g = obj.value_gradient(theta0)
    step = np.linalg.solve(obj.hessian(theta0), g.ravel()).reshape(obj.shape)
    assert obj.value(theta0 - step) > f0


# ----------------------------------------------------------------------------- singular curvature


@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("name", ["newton", "bohning", "lbfgs", "sgd"])
def test_duplicated_column_without_penalty(name, K):
    """X with a repeated column and C = inf: the Hessian and its bound are singular.  Only the sum of
    the two duplicated coefficients is identified; the fit must still be finite and reach the optimum
    of the reduced problem."""
    X, y = make_data(K, n=300, seed=7)
    Xd = np.column_stack([X, X[:, 1]])
    obj = LinearObjective(Xd, y, K, l2=0.0)
    reduced = LinearObjective(X, y, K, l2=0.0)
    f_ref = reduced.value(reference(reduced).theta)
    if name == "sgd":
        result = sgd(obj, obj.null_start(), tol=1e-12, max_iter=3000, batch_size=len(y), eta0=1.0,
                     random_state=0)
    else:
        result = run(name, obj)
    assert np.all(np.isfinite(result.theta))
    assert result.singular
    assert abs(obj.value(result.theta) - f_ref) <= 1e-6
    if name in ("newton", "bohning"):  # pseudo-inverse steps from a start with equal (zero)
        # duplicated coefficients stay on the minimum-norm line: the two get equal shares
        np.testing.assert_allclose(result.theta[1], result.theta[-2], rtol=1e-6, atol=1e-9)


def test_symmetric_solver_cholesky_path():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(6, 6))
    A = A @ A.T + 0.1 * np.eye(6)
    b = rng.normal(size=(6, 2))
    system = SymmetricSolver(A)
    assert not system.singular and system.lower is not None
    np.testing.assert_allclose(system.solve(b), np.linalg.solve(A, b), rtol=1e-10)
    np.testing.assert_allclose(system.lower @ system.lower.T, A, rtol=1e-12, atol=1e-12)


def test_symmetric_solver_pseudo_inverse_path():
    rng = np.random.default_rng(1)
    V = rng.normal(size=(6, 4))
    A = V @ V.T  # rank 4
    system = SymmetricSolver(A)
    assert system.singular and system.lower is None
    b = A @ rng.normal(size=6)  # in the range
    x = system.solve(b)
    np.testing.assert_allclose(A @ x, b, rtol=1e-9, atol=1e-9 * np.abs(b).max())
    np.testing.assert_allclose(x, np.linalg.pinv(A) @ b, rtol=1e-8, atol=1e-10)  # minimum norm
    B = rng.normal(size=(6, 3))  # matrices too; components outside the range are dropped
    np.testing.assert_allclose(system.solve(B), np.linalg.pinv(A, rcond=1e-12) @ B, rtol=1e-8, atol=1e-10)
    assert np.all(np.isfinite(SymmetricSolver(np.zeros((3, 3))).solve(np.ones(3))))


def test_sgd_defaults_on_small_data_do_not_claim_convergence_far_from_the_optimum():
    """n = 300 with batch_size=256: a stalled noisy objective must not be reported as convergence far
    from the optimum (the short last batch once took a full step and the step was cut on stalls)."""
    obj = make_objective(2)
    f_ref = obj.value(reference(obj).theta)
    result = sgd(obj, obj.null_start(), tol=1e-6, max_iter=100, random_state=0)
    assert result.converged and obj.value(result.theta) - f_ref <= 1e-5
