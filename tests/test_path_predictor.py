"""A sparse two-class path starts each fit from the point its last solutions predict
(``linclass.linear.fitting.path.predicted``): the start moves, the ends do not."""

import numpy as np
import pytest
import scipy.sparse as sp

from linclass import logistic_path
from linclass.linear.fitting.path import predicted


def text_like(n=1500, d=600, per_row=20, seed=3):
    """Bag-of-words shaped: Zipf word ids, log(1 + count) values, labels from 60 words."""
    rng = np.random.default_rng(seed)
    words = rng.zipf(1.1, size=n * per_row * 3) - 1
    words = words[words < d][: n * per_row]
    rows = np.repeat(np.arange(n), per_row)
    X = sp.csr_matrix((np.ones(n * per_row), (rows, rng.permutation(d)[words])), shape=(n, d))
    X.sum_duplicates()
    X.data = np.log1p(X.data)
    w = np.zeros(d)
    w[rng.choice(d, 60, replace=False)] = rng.normal(scale=2.0, size=60)
    y = (rng.random(n) < 1 / (1 + np.exp(-(X @ w - 0.5)))).astype(int)
    return X, y


def test_predicted_is_the_polynomial_through_the_last_solutions():
    b = [np.array([0.0]), np.array([1.0]), np.array([4.0])]
    W = [np.array([[1.0, 0.0, 2.0, 1.0, 1.0]]), np.array([[2.0, 1.0, 3.0, 0.5, 1.0]]),
         np.array([[3.0, 2.0, 4.0, 0.1, 0.0]])]
    trail = [(0.0, W[0], b[0]), (1.0, W[1], b[1]), (2.0, W[2], b[2])]
    W3, b3 = predicted(trail, 3.0)
    # column 0 and 2: on a line; 1: zero in the oldest, so the last value; 3: the quadratic
    # 1, 0.5, 0.1 -> -0.2 changes sign, so the last value; 4: zero in the last, stays zero
    np.testing.assert_allclose(W3, [[4.0, 2.0, 5.0, 0.1, 0.0]])
    np.testing.assert_allclose(b3, [9.0])  # the parabola x^2
    W3, b3 = predicted(trail[1:], 2.5)  # two points: the line through them
    np.testing.assert_allclose(W3, [[3.5, 2.5, 4.5, 0.1, 0.0]])
    np.testing.assert_allclose(b3, [5.5])
    W3, b3 = predicted(trail[2:], 9.0)  # one point: itself
    assert W3 is W[2] and b3 is b[2]
    W3, b3 = predicted(trail, 4.5)  # beyond twice the last spacing: the last point
    assert W3 is W[2] and b3 is b[2]


def test_repeated_and_uneven_cs_and_bounds():
    """A repeated C, a grid with a jump, and bounds that the prediction would cross: the path
    still reaches the optimum of each (its own fits to tol=1e-12)."""
    X, y = text_like(n=600, d=300)
    Cs = np.array([0.3, 0.4, 0.5, 0.5, 0.6, 3.0, 3.3, 3.6, 4.0])
    for kw in ({}, {"upper_bounds": 0.5, "lower_bounds": -0.5}):
        path = logistic_path(X, y, Cs=Cs, penalty="l1", **kw)
        tight = logistic_path(X, y, Cs=Cs, penalty="l1", tol=1e-12, max_iter=1000, **kw)
        assert path.converged.all()
        assert np.all(np.abs(path.objective - tight.objective) <= 1e-8 * np.abs(tight.objective))
        if kw:
            assert np.all(path.coefs <= 0.5) and np.all(path.coefs >= -0.5)
            assert np.any(path.coefs == 0.5)  # a bound binds


@pytest.mark.parametrize("penalty, l1_ratio", [("l1", None), ("elasticnet", 0.5)])
def test_predicted_starts_end_at_the_optimum(penalty, l1_ratio):
    """Every fit of the path (sparse X: predicted starts) is within the certificate's 1e-8 of the
    tol=1e-12 path's objective, and so is the same path on dense X (no prediction)."""
    X, y = text_like()
    path = logistic_path(X, y, Cs=40, penalty=penalty, l1_ratio=l1_ratio)
    tight = logistic_path(X, y, Cs=path.Cs, penalty=penalty, l1_ratio=l1_ratio, tol=1e-12,
                          max_iter=1000)
    dense = logistic_path(X.toarray(), y, Cs=path.Cs, penalty=penalty, l1_ratio=l1_ratio)
    assert path.converged.all() and tight.converged.all() and dense.converged.all()
    assert path.n_nonzero[-1] > 100  # the predictor had a long run of supports to follow
    for p in (path, dense):
        gap = (p.objective - tight.objective) / np.abs(tight.objective)
        assert np.all(gap <= 1e-8) and np.all(gap >= -1e-12)
