"""The two-class path's Newton steps on dense X: the Hessian a fit keeps from the one before it
(:class:`~linclass.linear.solvers.prox_newton.WarmState`: a path's fit forms its first model's
Hessian halfway along the move the fit before it made) changes how fast a fit gets to its end,
never where it ends: every fit of a default path ends within its certificate of a path fitted to
tol=1e-12, at both ends of the path, on a synthetic dense problem and on real data."""

import numpy as np
import pytest
from realdata import bundled

from linclass import logistic_path
from linclass.linear import compiled
from linclass.linear.solvers.prox_newton import AHEAD, WarmState


def _dense_problem(n=4000, d=40, seed=1):
    """Correlated Gaussian columns with a mean, a sparse truth (the benchmark's dense problem,
    smaller)."""
    rng = np.random.default_rng(seed)
    mixing = rng.standard_normal((d, d)) * 0.3 + np.eye(d)
    X = rng.standard_normal((n, d)) @ mixing + rng.standard_normal(d)
    beta = rng.standard_normal(d) * (rng.random(d) < 0.3) * 2 / np.sqrt(d)
    s = (X - X.mean(0)) @ beta - 0.3
    y = (rng.random(n) < 1 / (1 + np.exp(-s))).astype(np.int64)
    return np.ascontiguousarray(X), y


def _problem(name):
    if name == "dense":
        return _dense_problem()
    X, y = bundled(name)
    if name == "breast_cancer":
        return X, y
    return X, (y == (0 if name == "wine" else 3)).astype(int)  # one class against the rest


def _objectives(path, X, y):
    """sum_i loss_i + ||w||_1 / C at each C of the path (one formula for both paths)."""
    out = []
    for C, coef, b in zip(path.Cs, path.coefs[:, 0], path.intercepts[:, 0]):
        s = X @ coef + b
        out.append(float(np.sum(np.logaddexp(0.0, np.where(y == 1, -s, s))) + np.abs(coef).sum() / C))
    return np.array(out)


@pytest.mark.parametrize("name", ["dense", "breast_cancer", "digits", "wine"])
def test_a_default_path_ends_within_its_certificate_of_a_tight_one(name):
    X, y = _problem(name)
    path = logistic_path(X, y, Cs=30, penalty="l1", min_ratio=1e-3)
    tight = logistic_path(X, y, Cs=path.Cs, penalty="l1", tol=1e-12, max_iter=1000)
    assert path.converged.all()
    F, best = _objectives(path, X, y), _objectives(tight, X, y)
    # the certificate: within OBJECTIVE_SHARE * tol = 1e-8 of the optimum, relative
    assert np.all(F - best <= 1e-8 * best + 1e-12), (F - best) / best
    assert np.all(best - F <= 1e-12 * best)  # and the tight path is the better one, to rounding
    assert path.n_nonzero[0] <= 1 and path.n_nonzero[-1] > 1  # both ends of the path


def test_a_path_fit_forms_its_first_hessian_halfway_along_the_last_move():
    """The second fit's first model asks for the curvatures at s + AHEAD (s - s_start) (the
    last fit's move from s_start to s) unless the kept Hessian was formed near there."""
    rng = np.random.default_rng(0)
    start = rng.normal(size=50)
    curvatures = lambda s: np.exp(-np.abs(s))  # noqa: E731  (any function of the scores)
    ws = np.arange(3)
    warm = WarmState()
    s = start.copy()
    warm.started(s, False, curvatures)
    assert warm.kept(ws) is None and warm.ahead is None  # no trend yet: the scores' own curvatures
    warm.formed(ws, np.eye(3))
    s += rng.normal(scale=0.5, size=50)
    warm.moved(s)
    assert warm.kept(ws) is None  # the scores moved by more than STALE_SCORES
    warm.ended(np.zeros(3), 0.0, s, None, None)
    end = s.copy()
    warm.started(end, True, curvatures)
    assert warm.kept(ws) is None
    target = end + AHEAD * (end - start)
    h, at = warm.ahead
    np.testing.assert_array_equal(at, target)
    np.testing.assert_array_equal(h, curvatures(target))
    warm.formed(ws, 2 * np.eye(3), at)  # formed there: the next fit's first model keeps it ...
    warm.ended(np.zeros(3), 0.0, end, None, None)
    warm.started(end.copy(), True, curvatures)
    warm.trend = (target - end) / AHEAD  # (... when the move it predicts ends there too)
    np.testing.assert_array_equal(warm.kept(ws[:2]), 2 * np.eye(2))
    assert warm.ahead is None


@pytest.mark.parametrize("n", [5000, 60_000])  # one thread, and rows in parallel
def test_the_scaled_copy_sums_the_weighted_columns(n):
    """``scaled_columns(..., sums)``: the copy as without sums, and X~^T h in the same read, the
    same numbers for one thread and for many."""
    import numba

    rng = np.random.default_rng(2)
    X = rng.normal(size=(n, 30)) + 3.0
    shift = X.mean(axis=0)
    cols = np.array([1, 4, 5, 17, 29], dtype=np.int64)
    h = rng.uniform(0.0, 0.25, size=n)
    plain, A = np.empty((n, cols.size), np.float32), np.empty((n, cols.size), np.float32)
    sums = np.empty(cols.size)
    compiled.scaled_columns(X, shift, cols, np.sqrt(h), plain)
    compiled.scaled_columns(X, shift, cols, np.sqrt(h), A, sums)
    np.testing.assert_array_equal(A, plain)
    expected = (X[:, cols] - shift[cols]).T @ h
    np.testing.assert_allclose(sums, expected, rtol=1e-10, atol=1e-10 * np.abs(expected).max())
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = np.empty(cols.size)
        compiled.scaled_columns(X, shift, cols, np.sqrt(h), A, one)
    finally:
        numba.set_num_threads(threads)
    np.testing.assert_array_equal(one, sums)
