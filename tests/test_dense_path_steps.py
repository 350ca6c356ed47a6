"""The two-class path's Newton steps on dense X: the Hessian a fit keeps from the one before it
(:class:`~linclass.linear.solvers.prox_newton.WarmState`) changes how fast a fit gets to its end,
never where it ends: every fit of a default path ends within its certificate of a path fitted to
tol=1e-12, at both ends of the path, on a synthetic dense problem and on real data."""

import numpy as np
import pytest
from realdata import bundled

from linclass import logistic_path


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
