"""The binomial and multinomial log-losses in their two forms, the NumPy datafits
(:class:`~linclass.linear.logistic.losses.Binomial`, :class:`~linclass.linear.logistic.losses.Multinomial`)
and the compiled per-sample terms (:mod:`linclass.linear.compiled.sample_terms`):

* every gradient against central differences of the value, every curvature against central
  differences of the gradient, at scores from -700 to 700 (where ``ln(1 + e^s)`` overflows if written
  as it reads);
* the compiled line-search terms (the loss along a line, its change) by their first and second
  derivatives in the step length, which are the gradient and the curvature along the line;
* the two forms against each other, to 1e-12 relative.

Differences use a step proportional to the score, :math:`h = 10^{-6}\\max(1, |s|)`: the truncation
error is :math:`O(h^2)` times a third derivative at most 0.1, the rounding error about
:math:`\\epsilon\\,|\\ell|/h \\le 10^{-9}`; a missing factor or sign is off by order one.
"""

from __future__ import annotations

import numpy as np
import pytest

from linclass.linear import compiled
from linclass.linear.logistic import losses
from linclass.linear.logistic.losses import Binomial, Multinomial

RTOL, ATOL = 1e-6, 1e-8  # finite differences (module docstring)


def _scores(seed, n=None):
    """Scores across the whole range: a grid from -700 to 700, the points where the loss's forms
    switch, and random ones near zero."""
    rng = np.random.default_rng(seed)
    fixed = np.array([-700.0, -300.0, -36.0, -30.0, -1.0, -1e-3, 0.0, 1e-3, 1.0, 30.0, 36.0, 300.0,
                      700.0])
    s = np.concatenate([np.linspace(-700.0, 700.0, 57), fixed, rng.normal(scale=4.0, size=40)])
    return s if n is None else rng.choice(s, size=n)


def _steps(s):
    """A step per score, or per row of scores (the loss's size is the row's largest score)."""
    scale = np.abs(s) if s.ndim == 1 else np.abs(s).max(axis=1, keepdims=True) + 0 * s
    return 1e-6 * np.maximum(1.0, scale)


def _assert_close(actual, desired, rtol, atol):
    """``|actual - desired| <= rtol |desired| + atol``, with ``atol`` per entry."""
    bad = ~(np.abs(actual - desired) <= rtol * np.abs(desired) + atol)
    assert not np.any(bad), (actual[bad], desired[bad])


def _per_sample(fn, s, *args):
    """A compiled summed term evaluated one sample at a time."""
    return np.array([fn(s[i:i + 1], *[a[i:i + 1] for a in args]) for i in range(s.size)])


# ----------------------------------------------------------------------------- two classes


@pytest.mark.parametrize("label", [0.0, 1.0])
def test_binomial_gradient_and_curvature_are_derivatives(label):
    s = _scores(0)
    y = np.full_like(s, label)
    h = _steps(s)
    g = (Binomial.value(s + h, y) - Binomial.value(s - h, y)) / (2 * h)
    np.testing.assert_allclose(Binomial.gradient(s, y), g, rtol=RTOL, atol=ATOL)
    c = (Binomial.gradient(s + h, y) - Binomial.gradient(s - h, y)) / (2 * h)
    np.testing.assert_allclose(Binomial.curvature(s), c, rtol=RTOL, atol=ATOL)
    assert np.all(np.isfinite(Binomial.value(s, y))) and np.all(Binomial.curvature(s) <= 0.25)


def test_binomial_weighted_terms_from_probabilities():
    s = _scores(1)
    rng = np.random.default_rng(1)
    y, w = (rng.random(s.size) < 0.5).astype(float), rng.uniform(0.1, 3.0, s.size)
    mu = Binomial.probabilities(s)
    np.testing.assert_array_equal(Binomial.gradient_at(mu, y, w), Binomial.gradient(s, y) * w)
    np.testing.assert_allclose(Binomial.curvature_at(mu, w), Binomial.curvature(s) * w,
                               rtol=1e-15, atol=0)


@pytest.mark.parametrize("label", [0.0, 1.0])
def test_compiled_binomial_gradient_and_curvature_are_derivatives(label):
    s = _scores(2)
    y, w = np.full_like(s, label), np.ones_like(s)
    h = _steps(s)
    g, c = np.empty_like(s), np.empty_like(s)
    compiled.binary_terms(s, y, w, g, c)
    value = _per_sample(lambda a, b, d: compiled.binary_terms(a, b, d, np.empty(1), np.empty(1)),
                        s, y, w)
    assert np.all(np.isfinite(value))
    up = _per_sample(lambda a, b, d: compiled.binary_terms(a, b, d, np.empty(1), np.empty(1)),
                     s + h, y, w)
    down = _per_sample(lambda a, b, d: compiled.binary_terms(a, b, d, np.empty(1), np.empty(1)),
                       s - h, y, w)
    np.testing.assert_allclose(g, (up - down) / (2 * h), rtol=RTOL, atol=ATOL)
    gu, gd, scratch = np.empty_like(s), np.empty_like(s), np.empty_like(s)
    compiled.binary_terms(s + h, y, w, gu, scratch)
    compiled.binary_terms(s - h, y, w, gd, scratch)
    np.testing.assert_allclose(c, (gu - gd) / (2 * h), rtol=RTOL, atol=ATOL)
    # the one-pass residuals (the objective's) give the same gradient and probabilities
    mu, r = np.empty_like(s), np.empty_like(s)
    total, _ = compiled.binary_residuals(s, y, w, 1e-12, mu, r)
    np.testing.assert_array_equal(r, g)
    assert total == pytest.approx(value.sum(), rel=1e-12)


def test_compiled_binomial_line_terms_are_the_derivatives_along_the_line():
    rng = np.random.default_rng(3)
    s = _scores(3)
    y, w = (rng.random(s.size) < 0.5).astype(float), rng.uniform(0.1, 3.0, s.size)
    z = rng.normal(size=s.size) * np.maximum(1.0, np.abs(s)) / 700.0
    g, c = np.empty_like(s), np.empty_like(s)
    compiled.binary_terms(s, y, w, g, c)
    h = 1e-4
    for f in (lambda t: compiled.binary_loss(s, z, t, y, w),
              lambda t: compiled.binary_loss_change(s, z, t, y, w)):
        assert (f(h) - f(-h)) / (2 * h) == pytest.approx(g @ z, rel=1e-6)
    # a second difference (h^2 and eps/h^2) of the change, which carries no rounding of the loss
    f = lambda t: compiled.binary_loss_change(s, z, t, y, w)  # noqa: E731
    assert (f(h) + f(-h)) / h**2 == pytest.approx(c @ z**2, rel=1e-4)
    assert compiled.binary_loss_change(s, z, 0.0, y, w) == 0.0
    assert compiled.binary_loss(s, z, 0.0, y, w) == pytest.approx(
        float(w @ Binomial.value(s, y)), rel=1e-12)


def test_binomial_forms_agree():
    rng = np.random.default_rng(4)
    s = _scores(4)
    y, w = (rng.random(s.size) < 0.5).astype(float), rng.uniform(0.1, 3.0, s.size)
    g, c = np.empty_like(s), np.empty_like(s)
    total = compiled.binary_terms(s, y, w, g, c)
    each = _per_sample(lambda a, b, d: compiled.binary_terms(a, b, d, np.empty(1), np.empty(1)),
                       s, y, np.ones_like(s))
    # the loss ln(1 + e^s) - ys rounds at eps |s| where the two terms cancel, in either form
    _assert_close(each, Binomial.value(s, y), 1e-12, 1e-15 * np.abs(s))
    assert total == pytest.approx(float(w @ Binomial.value(s, y)), rel=1e-12)
    mu = Binomial.probabilities(s)
    np.testing.assert_allclose(g, Binomial.gradient_at(mu, y, w), rtol=1e-12, atol=1e-300)
    # mu (1 - mu) near mu = 1 keeps the rounding of mu, eps in absolute terms
    np.testing.assert_allclose(c, Binomial.curvature_at(mu, w), rtol=1e-12, atol=1e-15)
    # the gap's probabilities, both from their own exponential
    p, q, r = np.empty_like(s), np.empty_like(s), np.empty_like(s)
    compiled.binary_gap_residuals(s, 0.0, y, w, p, q, r)
    np.testing.assert_allclose(p, mu, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(q, Binomial.probabilities(-s), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(r, Binomial.gradient_at(mu, y, w), rtol=1e-12, atol=1e-300)


def test_compiled_best_intercept_zeroes_the_intercept_gradient():
    rng = np.random.default_rng(5)
    s = rng.normal(scale=3.0, size=200)
    y, w = (rng.random(200) < 0.3).astype(float), rng.uniform(0.1, 3.0, 200)
    b = compiled.binary_best_intercept(s, y, w, 0.0, w.sum(), 50)
    assert abs(float(w @ Binomial.gradient(s + b, y))) <= 1e-12 * w.sum()


def test_numpy_two_class_terms_are_the_compiled_ones():
    """:mod:`linclass.linear.logistic.losses`'s NumPy forms of the compiled two-class loops (a
    small problem's fit calls them), under the same names and signatures: the same numbers to
    1e-12 relative, at scores from -700 to 700."""
    rng = np.random.default_rng(6)
    s = _scores(6)
    y, w = (rng.random(s.size) < 0.5).astype(float), rng.uniform(0.1, 3.0, s.size)
    z = rng.normal(size=s.size) * np.maximum(1.0, np.abs(s)) / 70.0  # steps beyond |d| = 1 too
    z[::7] = 0.0
    g, c, g2, c2 = (np.empty_like(s) for _ in range(4))
    assert losses.binary_terms(s, y, w, g, c) == pytest.approx(
        compiled.binary_terms(s, y, w, g2, c2), rel=1e-12)
    np.testing.assert_allclose(g, g2, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(c, c2, rtol=1e-12, atol=1e-300)
    for t in (0.0, 0.3, 1.0):
        assert losses.binary_loss(s, z, t, y, w) == pytest.approx(
            compiled.binary_loss(s, z, t, y, w), rel=1e-12)
        each = _per_sample(lambda *a: losses.binary_loss_change(a[0], a[1], t, a[2], a[3]), s, z,
                           y, w)
        _assert_close(each, _per_sample(lambda *a: compiled.binary_loss_change(
            a[0], a[1], t, a[2], a[3]), s, z, y, w), 1e-12, 1e-15 * np.abs(s))
    assert losses.binary_loss_change(s, z, 0.0, y, w) == 0.0
    near = rng.normal(scale=3.0, size=s.size)  # scores a finite intercept fits
    assert losses.binary_best_intercept(near, y, w, 0.0, w.sum(), 50) == pytest.approx(
        compiled.binary_best_intercept(near, y, w, 0.0, w.sum(), 50), rel=1e-12, abs=1e-14)
    p, q, r, p2, q2, r2 = (np.empty_like(s) for _ in range(6))
    losses.binary_gap_residuals(s, 0.4, y, w, p, q, r)
    compiled.binary_gap_residuals(s, 0.4, y, w, p2, q2, r2)
    for a, b in ((p, p2), (q, q2), (r, r2)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-300)
    for alpha in (0.0, 0.37, 1.0):
        assert losses.binary_dual_entropy(p, q, y, w, alpha) == pytest.approx(
            compiled.binary_dual_entropy(p2, q2, y, w, alpha), rel=1e-12)
    for weights in (w, np.empty(0)):  # the residuals of a small unpenalised fit's blocks
        w[::5] = 0.0
        mu, R, mu2, R2 = (np.empty_like(s) for _ in range(4))
        R = np.empty((s.size, 2))[:, 0]  # a strided column, as the objective's blocks pass it
        loss, perfect = losses.binary_residuals(s, y, weights, 1e-8, mu, R)
        loss2, perfect2 = compiled.binary_residuals(s, y, weights, 1e-8, mu2, R2)
        assert loss == pytest.approx(loss2, rel=1e-12)
        assert perfect == perfect2 > 0
        np.testing.assert_allclose(mu, mu2, rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(R, R2, rtol=1e-12, atol=1e-300)


# ----------------------------------------------------------------------------- K classes


def _multinomial_problem(seed, K=4, n=80):
    rng = np.random.default_rng(seed)
    S = _scores(seed, n * K).reshape(n, K)
    y = rng.integers(0, K, n)
    return S, y, rng


@pytest.mark.parametrize("K", [3, 5])
def test_multinomial_gradient_and_curvature_are_derivatives(K):
    S, y, _ = _multinomial_problem(6, K)
    h = _steps(S)
    G, C = Multinomial.gradient(S, y), Multinomial.curvature(S)
    assert np.all(np.isfinite(Multinomial.value(S, y)))
    for k in range(K):
        E = np.zeros_like(S)
        E[:, k] = h[:, k]
        fd = (Multinomial.value(S + E, y) - Multinomial.value(S - E, y)) / (2 * h[:, k])
        np.testing.assert_allclose(G[:, k], fd, rtol=RTOL, atol=ATOL)
        fd = (Multinomial.gradient(S + E, y) - Multinomial.gradient(S - E, y)) / (2 * h[:, [k]])
        np.testing.assert_allclose(C[:, :, k], fd, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(C, np.swapaxes(C, 1, 2), rtol=0, atol=1e-17)
    mu = Multinomial.probabilities(S)
    for k in range(K):
        for l in range(K):
            np.testing.assert_array_equal(Multinomial.curvature_at(mu, k, l), C[:, k, l])


def test_multinomial_weighted_terms_from_probabilities():
    S, y, rng = _multinomial_problem(7)
    w = rng.uniform(0.1, 3.0, y.size)
    mu = Multinomial.probabilities(S)
    np.testing.assert_array_equal(Multinomial.gradient_at(mu, y, w),
                                  Multinomial.gradient(S, y) * w[:, None])
    np.testing.assert_allclose(Multinomial.curvature_at(mu, 1, 2, w),
                               Multinomial.curvature(S)[:, 1, 2] * w, rtol=1e-15, atol=0)


@pytest.mark.parametrize("K", [3, 5])
def test_compiled_multinomial_terms_are_derivatives(K):
    """softmax_terms' probabilities give the gradient; the loss along a line, one class's scores
    moved (softmax_loss) or all of them (softmax_loss_change), has that gradient and the curvature
    as its first and second derivatives."""
    S, y, rng = _multinomial_problem(8, K)
    w = rng.uniform(0.1, 3.0, y.size)
    St = np.ascontiguousarray(S.T)
    P = np.empty_like(St)
    compiled.softmax_terms(St, y, w, P)
    V = (P - np.eye(K)[y].T) * w  # the compiled form's score gradient, (K, n)
    C = P.T[:, :, None] * (np.eye(K) - P.T[:, None, :])  # its curvature, from its probabilities
    h = 1e-4
    Z = rng.normal(size=St.shape) * np.maximum(1.0, np.abs(St)) / 700.0
    for k in range(K):  # one class's scores moved
        f = lambda t: compiled.softmax_loss(St, k, Z[k], t, y, w)  # noqa: E731
        assert (f(h) - f(-h)) / (2 * h) == pytest.approx(V[k] @ Z[k], rel=1e-6)
        Zk = np.zeros_like(Z)
        Zk[k] = Z[k]
        f = lambda t: compiled.softmax_loss_change(St, Zk, t, y, w)  # noqa: E731
        assert (f(h) + f(-h)) / h**2 == pytest.approx(float(w @ (C[:, k, k] * Z[k] ** 2)),
                                                      rel=1e-4)
    f = lambda t: compiled.softmax_loss_change(St, Z, t, y, w)  # noqa: E731
    assert (f(h) - f(-h)) / (2 * h) == pytest.approx(float(np.sum(V * Z)), rel=1e-6)
    assert (f(h) + f(-h)) / h**2 == pytest.approx(
        float(w @ np.einsum("ik,ikl,il->i", Z.T, C, Z.T)), rel=1e-4)
    assert f(0.0) == 0.0


@pytest.mark.parametrize("K", [3, 5])
def test_multinomial_forms_agree(K):
    S, y, rng = _multinomial_problem(9, K)
    w = rng.uniform(0.1, 3.0, y.size)
    St = np.ascontiguousarray(S.T)
    P = np.empty_like(St)
    total = compiled.softmax_terms(St, y, w, P)
    assert total == pytest.approx(float(w @ Multinomial.value(S, y)), rel=1e-12)
    mu = Multinomial.probabilities(S)
    np.testing.assert_allclose(P.T, mu, rtol=1e-12, atol=1e-300)
    assert compiled.softmax_loss(St, 0, St[0], 0.0, y, w) == total
    each = np.array([compiled.softmax_loss(St[:, [i]], 0, St[0, [i]], 0.0, y[[i]], np.ones(1))
                     for i in range(y.size)])
    value = Multinomial.value(S, y)
    _assert_close(each, value, 1e-12, 1e-15 * np.abs(S).max(axis=1))
