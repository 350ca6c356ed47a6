"""The two-class duality gap by its compiled loops (best intercept, residuals, dual entropy) against
the NumPy expressions they replaced, with weights, score offsets and every penalty kind; and as a
bound: never below the objective's true distance to the optimum."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import xlogy

from linclass.linear.penalties.elastic_net import ElasticNet
from linclass.linear.logistic.penalised import PenalisedObjective
from linclass.linear.fitting.choice import coordinate_descent


def _reference_gap(obj, W, b):
    """The gap as the NumPy code computed it (tanh probabilities, Newton on the intercept with a
    1 x 1 solve, xlogy entropies)."""
    S0 = obj.scores(W, np.zeros(1))
    value = obj.loss(S0 + b[:, None]) + obj.penalty.value(W)
    if obj.fit_intercept:
        for _ in range(50):
            P = 0.5 * (1.0 + np.tanh(0.5 * (S0 + b[:, None])))
            g = float(obj.sw @ (P[0] - obj.target))
            if abs(g) <= 1e-13 * obj.total:
                break
            b = b - g / float(obj.sw @ (P[0] * (1.0 - P[0])))
    P = 0.5 * (1.0 + np.tanh(0.5 * (S0 + b[:, None])))
    Y = obj.target[None, :]
    G = obj.design.gradient((P - Y) * obj.sw)
    l1, l2 = obj.penalty.scalars()
    if l2 == 0.0:
        top = float(np.max(np.abs(G)))
        alpha, conjugate = min(1.0, l1 / top) if top > 0 else 1.0, 0.0
    else:
        alpha, conjugate = 1.0, float(np.sum(np.maximum(np.abs(G) - l1, 0.0) ** 2)) / (2.0 * l2)
    Q = alpha * P + (1.0 - alpha) * Y
    dual = float(obj.sw @ -(xlogy(Q[0], Q[0]) + xlogy(1.0 - Q[0], 1.0 - Q[0]))) - conjugate
    if obj.score_offset is not None:
        dual += float(np.sum((Q - Y) * obj.sw * obj.score_offset))
    return max(value - dual, 0.0), value


def _problem(seed, sparse):
    rng = np.random.default_rng(seed)
    n, d = 400, 30
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < (0.2 if sparse else 1.0))
    y = (rng.random(n) < 1 / (1 + np.exp(-(X[:, :5].sum(axis=1) - 0.4)))).astype(int)
    return (sp.csr_matrix(X) if sparse else X), y, rng


@pytest.mark.parametrize("ratio", [1.0, 0.5, 0.0])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("offset", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
def test_compiled_gap_is_the_numpy_gap(ratio, weighted, offset, sparse):
    X, y, rng = _problem(int(ratio * 10) + 2 * weighted + 4 * offset, sparse)
    w = rng.random(y.size) + 0.5 if weighted else None
    o = rng.standard_normal((y.size, 1)) * 0.5 if offset else None
    obj = PenalisedObjective(X, y, 2, w, ElasticNet(0.3, ratio), score_offset=o)
    for scale in (0.0, 0.05, 0.3):  # points short of the optimum, and at zero
        W = rng.standard_normal((1, X.shape[1])) * scale
        b = np.array([0.2])
        gap, value = obj.gap_and_value(W, b)
        ref_gap, ref_value = _reference_gap(obj, W, b.copy())
        assert value == pytest.approx(ref_value, rel=1e-13)
        assert gap == pytest.approx(ref_gap, rel=1e-9, abs=1e-9 * ref_value)


@pytest.mark.parametrize("ratio", [1.0, 0.5])
def test_gap_bounds_the_distance_to_the_optimum(ratio):
    X, y, _ = _problem(11, True)
    obj = PenalisedObjective(X, y, 2, None, ElasticNet(0.5, ratio))
    W0, b0 = obj.null_start()
    best = coordinate_descent(obj, W0, b0, tol=1e-13, max_iter=500)
    optimum = obj.value(best.W, best.b)
    assert obj.duality_gap(best.W, best.b) <= 1e-8 * optimum
    for tol in (1e-2, 1e-4):
        rough = coordinate_descent(obj, W0, b0, tol=tol, max_iter=500)
        gap, value = obj.gap_and_value(rough.W, rough.b)
        assert value - optimum <= gap * (1 + 1e-9) + 1e-9


@pytest.mark.parametrize("ratio", [1.0, 0.5])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("offset", [False, True])
@pytest.mark.parametrize("sparse", [False, True])
def test_gap_from_the_point_products_bounds_the_gap(ratio, weighted, offset, sparse):
    """The gap from the products X^T g, X^T h a two-class fit holds at its point (no product with
    X for the residuals at the best intercept) is never below the gap from those residuals, and
    within a second-order term of it; an intercept far from its best falls back to the product."""
    X, y, rng = _problem(20 + 2 * weighted + 4 * offset, sparse)
    w = rng.random(y.size) + 0.5 if weighted else None
    o = rng.standard_normal((y.size, 1)) * 0.5 if offset else None
    obj = PenalisedObjective(X, y, 2, w, ElasticNet(0.3, ratio), score_offset=o)
    W = rng.standard_normal((1, X.shape[1])) * 0.05
    S0 = obj.scores(W, np.zeros(1))
    best = obj.best_intercepts(W, np.zeros(1), S0=S0)
    for away in (0.0, 1e-7, 1e-5, 0.3):
        b = best + away
        g = obj.score_gradient(S0 + b[:, None])[1][0]
        mu = 1.0 / (1.0 + np.exp(-(S0[0] + b[0])))
        h = obj.sw * mu * (1.0 - mu)
        products = (obj.design.gradient(g[None, :])[:, 0], obj.design.gradient(h[None, :])[:, 0])
        exact, value = obj.gap_and_value(W, b, bare_scores=S0)
        bound, value2 = obj.gap_and_value(W, b, bare_scores=S0, products=products)
        assert value2 == value
        assert bound >= exact * (1 - 1e-12) - 1e-12 * value
        assert bound == pytest.approx(exact, rel=1e-6, abs=1e-9 * value)
