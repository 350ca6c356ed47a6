"""Models that coordinate descent creeps on: the explicit model of a penalised two-class step is
singular where columns are copies or combinations of others (words that occur only together in
text), and descent then lowers it by a rounding-sized amount per pass.  The subspace step
(:func:`linclass.linear.solvers.small_model._subspace_step`) moves along the flat directions at
once; without it a warm-started L1 fit of the standard library's text at ``tol=1e-9`` took 473
Newton steps (33 s), and a non-negative L1 fit ran out of its 100 iterations."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from linclass import LogisticRegression
from linclass.linear.solvers.small_model import _conjugate_gradients, _subspace_step

from realdata import problem


def _model(Q, grad, w, delta, l1, l2):
    u = w + delta
    return float(grad @ delta + 0.5 * delta @ Q @ delta + l1 @ np.abs(u) + 0.5 * l2 @ (u * u))


def _singular_model(seed: int, q: int = 12):
    """A q x q Gram matrix of rank q - 4 (two exact copies, two sums of other columns)."""
    rng = np.random.default_rng(seed)
    B = rng.standard_normal((40, q))
    B[:, 1] = B[:, 0]
    B[:, 3] = B[:, 2]
    B[:, 5] = B[:, 4] + B[:, 6]
    B[:, 7] = B[:, 8] - B[:, 9]
    return B.T @ B / 40, rng


def test_conjugate_gradients_solve_a_consistent_singular_system():
    Q, rng = _singular_model(0)
    b = Q @ rng.standard_normal(Q.shape[0])  # in the range
    x = _conjugate_gradients(Q, b)
    assert np.linalg.norm(Q @ x - b) <= 1e-9 * np.linalg.norm(b)
    # the iterates stay in the range: x is the least-norm solution
    assert np.allclose(x, np.linalg.pinv(Q) @ b, atol=1e-8)


@pytest.mark.parametrize("seed", range(20))
def test_a_subspace_step_lowers_the_model_and_keeps_signs_and_box(seed):
    Q, rng = _singular_model(seed)
    q = Q.shape[0]
    w = rng.standard_normal(q) * (rng.random(q) < 0.7)
    delta = rng.standard_normal(q) * 0.1
    l1, l2 = np.full(q, 0.05), np.full(q, 0.01 * (seed % 2))
    lower = np.where(rng.random(q) < 0.3, -0.5, -np.inf)
    upper = np.where(rng.random(q) < 0.3, 0.8, np.inf)
    u = np.clip(w + delta, lower, upper)
    delta = u - w
    grad = rng.standard_normal(q)
    params = np.ascontiguousarray(np.vstack([l1, l2, lower, upper]))
    before, u0 = _model(Q, grad, w, delta, l1, l2), w + delta
    moved = _subspace_step(Q, grad, w, delta, params)
    u1 = w + delta
    after = _model(Q, grad, w, delta, l1, l2)
    assert after <= before + 1e-12 * abs(before)
    assert np.all(u1 >= lower) and np.all(u1 <= upper)
    assert np.all(u1[u0 == 0.0] == 0.0)  # zeros stay at zero
    assert np.all(np.sign(u1) * np.sign(u0) >= 0)  # no sign flips: at most a move to zero
    if moved:
        assert not np.array_equal(u0, u1)


def test_a_warm_started_tight_text_fit_does_not_creep():
    X, y = problem("text_binary")
    fit = LogisticRegression(penalty="l1", C=10.0).fit(X, y)
    tight = LogisticRegression(penalty="l1", C=10.0, tol=1e-9, max_iter=100, warm_start=True)
    tight.classes_, tight.coef_, tight.intercept_ = fit.classes_, fit.coef_, fit.intercept_
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        tight.fit(X, y)
    assert tight.converged_ and tight.n_iter_.max() <= 20  # (473 without the subspace step)


def test_a_non_negative_text_fit_converges():
    X, y = problem("text_binary")
    factor = np.ones(X.shape[1])
    factor[::2] = 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        fit = LogisticRegression(penalty="l1", C=2.0, lower_bounds=0.0,
                                 penalty_factor=factor).fit(X, y)
    assert fit.converged_ and fit.coef_.min() >= 0.0
