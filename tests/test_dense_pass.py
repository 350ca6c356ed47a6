"""The one-read step of the two-class fit on dense X (compiled/dense_pass.py) against NumPy: the
score change of a step and the products of the next point's gradients and curvatures."""

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
