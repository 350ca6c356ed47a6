"""The one-read step of the two-class fit on dense X (step_products in compiled/sample_terms.py)
against NumPy: the score change of a step and the products of the next point's gradients and
curvatures."""

import numpy as np
import pytest

from linclass.linear import compiled


@pytest.mark.parametrize("weighted", [False, True])
def test_step_products_is_the_two_products(weighted):
    rng = np.random.default_rng(3)
    n, d = 700, 13
    X = rng.standard_normal((n, d)) * 2.0 + 5.0
    shift = X.mean(axis=0)
    y = (rng.random(n) < 0.4).astype(np.float64)
    sw = rng.random(n) + 0.5 if weighted else np.ones(n)
    delta = np.zeros(d)
    delta[[1, 4, 9]] = rng.standard_normal(3) * 0.3
    s, db = rng.standard_normal(n) * 3.0, 0.25
    z, g1, h1, Xg, Xh = np.empty(n), np.empty(n), np.empty(n), np.empty(d), np.empty(d)
    loss1 = compiled.step_products(X, shift, delta, s, db, y, sw, z, g1, h1, Xg, Xh)
    Xc = X - shift
    assert np.allclose(z, Xc @ delta, rtol=1e-12, atol=1e-12)
    mu = 1.0 / (1.0 + np.exp(-(s + (Xc @ delta + db))))
    g, h = np.empty(n), np.empty(n)
    loss = compiled.binary_terms(s + (z + db), y, sw, g, h)  # the fit's own terms at the step
    assert loss1 == loss and np.array_equal(g1, g) and np.array_equal(h1, h)
    assert np.allclose(g, sw * (mu - y), rtol=1e-12, atol=1e-15)
    assert np.allclose(Xg, Xc.T @ g, rtol=1e-10, atol=1e-10)
    assert np.allclose(Xh, Xc.T @ h, rtol=1e-10, atol=1e-10)


def test_line_search_takes_the_full_step_on_a_bounded_estimate():
    from linclass.linear.solvers.prox_newton import line_search
    asked = []

    def change(t):
        asked.append(t)
        return -0.6 * t
    # the estimate and its error clear the sufficient decrease: no pass over the samples
    assert line_search(10.0, -1.0, change, first=(-0.6, 1e-9)) == (1.0, 10.0 - 0.6)
    assert asked == []
    # an estimate whose error could reach the threshold: the exact change decides
    t, _ = line_search(10.0, -1.0, change, first=(-0.0105, 1e-3))
    assert t == 1.0 and asked == [1.0]


def test_dense_fit_and_path_take_the_same_steps_without_the_estimate(monkeypatch):
    """The full step's loss from the one-read pass decides the line search only where the
    per-sample differences would decide the same: the fits are bit-identical without it."""
    from linclass.linear.fitting.path import path_steps
    from linclass.linear.logistic.penalised import PenalisedObjective
    from linclass.linear.penalties.elastic_net import ElasticNet
    from linclass.linear.solvers import prox_newton
    rng = np.random.default_rng(5)
    X = rng.standard_normal((3000, 20)) @ (np.eye(20) + 0.3 * rng.standard_normal((20, 20)))
    y = (rng.random(3000) < 1 / (1 + np.exp(-(X[:, :4].sum(axis=1) - 0.5)))).astype(int)
    obj = PenalisedObjective(X, y, 2, None, ElasticNet(1.0, 1.0))
    Cs = np.geomspace(1e-4, 1.0, 12)

    def run():
        return [(r.W.copy(), r.b.copy(), r.n_iter) for _, r in path_steps(obj, Cs, 1.0)]
    with_estimate = run()
    monkeypatch.setattr(prox_newton.TwoClass, "_full_step", lambda self, zb: None)
    without = run()
    for (W1, b1, n1), (W2, b2, n2) in zip(with_estimate, without):
        assert n1 == n2 and np.array_equal(W1, W2) and np.array_equal(b1, b2)
