"""The objective layer: pointwise losses, LinearObjective's value / gradient / Hessian, the Hessian bound.

* value against the formula of Bishop 2006 sec. 4.3.2 / 4.3.4 written out here (log-sum-exp from SciPy),
  the penalty :math:`\\frac{\\lambda}{2}\\lVert W\\rVert^2` on the coefficients only, divided by the
  total weight;
* the gradient and the Hessian against central differences (of the value and of the gradient), at
  random points and at the null start (zero coefficients: the closed-form Kronecker Hessian);
* the Hessian against the unconstrained K-class Hessian built row by row from the probabilities,
  :math:`\\sum_i w_i(\\mathrm{diag}\\,\\mu_i - \\mu_i\\mu_i^T)\\otimes\\tilde x_i\\tilde x_i^T`, projected on the
  sum-to-zero basis;
* the bound: bound - Hessian is positive semi-definite (hypothesis), also in the K-space form
  :math:`\\tfrac12(I - \\tfrac1K\\mathbf{1}\\mathbf{1}^T)\\otimes\\tilde X^TW\\tilde X`, and it is tight (binary, at zero);
* no overflow for margins of 1e3, the coefficient layout, the float32 Hessian path.

Finite differences use h = 1e-5 on a mean objective of order 1: the truncation error is ~h^2 ~ 1e-10
and the rounding error ~eps/h ~ 1e-11, so a relative 1e-6 tolerance is four orders of magnitude above
the noise and far below any missing factor or sign.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.special import expit, logsumexp

from linclass.linear.logistic import losses
from linclass.linear.logistic import objective as objective_module
from linclass.linear.logistic.objective import LinearObjective
from linclass.linear.logistic.layout import contrast_basis

H_STEP = 1e-5

# ----------------------------------------------------------------------------- helpers


def make_data(seed, *, n=40, d=3, K=2, offset=3.0, scale=1.0):
    """Features with unequal scales and a non-zero mean (so the centring matters) and labels covering
    every class."""
    rng = np.random.default_rng(seed)
    X = (rng.normal(size=(n, d)) * rng.uniform(0.5, 2.0, size=d) + offset) * scale
    y = np.r_[np.arange(K), rng.integers(0, K, n - K)]
    rng.shuffle(y)
    return X, y.astype(np.intp)


def make_objective(seed, *, K=2, fit_intercept=True, weighted=False, l2=0.0, n=40, d=3, scale=1.0):
    X, y = make_data(seed, n=n, d=d, K=K, scale=scale)
    w = np.random.default_rng(seed + 1000).uniform(0.1, 3.0, size=n) if weighted else None
    return LinearObjective(X, y, K, w, l2=l2, fit_intercept=fit_intercept)


def random_theta(obj, seed, scale=0.3):
    return np.random.default_rng(seed + 7).normal(scale=scale, size=obj.shape)


def full_parameters(obj, theta):
    """Independent of the library's ``coefficients``: the K-vector (or binary) coefficients on the
    original features from the centred, basis-coordinates theta."""
    theta = theta.reshape(obj.shape)
    d = obj.n_features
    W = theta[:d]
    if obj.fit_intercept:
        m = obj.X.T @ (np.ones(len(obj.y)) if obj.w is None else obj.w) / obj.total
        b = theta[d] - m @ W
    else:
        b = np.zeros(obj.shape[1])
    if obj.n_classes > 2:
        P = contrast_basis(obj.n_classes)
        W, b = W @ P.T, b @ P.T
    return W, b


def reference_value(obj, theta):
    """(1/N)(sum_i w_i l_i + lambda/2 ||W||^2), l_i the negative log-likelihood of row i."""
    W, b = full_parameters(obj, theta)
    S = obj.X @ W + b
    n = len(obj.y)
    if obj.n_classes == 2:
        s = S[:, 0]
        yy = obj.y.astype(float)
        # -y log(sigma(s)) - (1-y) log(1 - sigma(s)), both terms by log-sum-exp
        nll = yy * logsumexp(np.column_stack([np.zeros(n), -s]), axis=1) + (1 - yy) * logsumexp(
            np.column_stack([np.zeros(n), s]), axis=1)
    else:
        nll = logsumexp(S, axis=1) - S[np.arange(n), obj.y]
    w = np.ones(n) if obj.w is None else obj.w
    penalty = 0.5 * obj.l2 * np.sum(theta.reshape(obj.shape)[: obj.n_features] ** 2)
    return (w @ nll + penalty) / w.sum()


def numeric_gradient(f, theta):
    flat = theta.ravel().astype(float)
    g = np.empty_like(flat)
    for j in range(flat.size):
        e = np.zeros_like(flat)
        e[j] = H_STEP
        g[j] = (f((flat + e).reshape(theta.shape)) - f((flat - e).reshape(theta.shape))) / (2 * H_STEP)
    return g.reshape(theta.shape)


def numeric_hessian(obj, theta):
    flat = theta.ravel().astype(float)
    H = np.empty((flat.size, flat.size))
    for j in range(flat.size):
        e = np.zeros_like(flat)
        e[j] = H_STEP
        gp = obj.value_gradient((flat + e).reshape(obj.shape))[1].ravel()
        gm = obj.value_gradient((flat - e).reshape(obj.shape))[1].ravel()
        H[:, j] = (gp - gm) / (2 * H_STEP)
    return (H + H.T) / 2


def full_space(obj, theta, centred=True):
    """Probabilities mu (n, K), the design X~ = [X (- m), 1] and weights w of the K-class model."""
    W, b = full_parameters(obj, theta)
    S = obj.X @ W + b
    K = obj.n_classes
    if K == 2:
        mu1 = expit(S[:, 0])
        mu = np.column_stack([1 - mu1, mu1])
    else:
        mu = np.exp(S - logsumexp(S, axis=1, keepdims=True))
    n = len(obj.y)
    w = np.ones(n) if obj.w is None else obj.w
    Xt = obj.X - (w @ obj.X) / w.sum() if (centred and obj.fit_intercept) else obj.X
    if obj.fit_intercept:
        Xt = np.column_stack([Xt, np.ones(n)])
    return mu, Xt, w


def k_space_hessian(mu, Xt, w):
    """sum_i w_i (diag(mu_i) - mu_i mu_i^T) kron x~_i x~_i^T, in the issue's (class-major) order."""
    K, p = mu.shape[1], Xt.shape[1]
    H = np.zeros((K * p, K * p))
    for i in range(Xt.shape[0]):
        H += w[i] * np.kron(np.diag(mu[i]) - np.outer(mu[i], mu[i]), np.outer(Xt[i], Xt[i]))
    return H


def min_eig_relative(A, B):
    """Smallest eigenvalue of the symmetric A - B relative to the norm of A."""
    D = A - B
    return np.linalg.eigvalsh((D + D.T) / 2)[0] / np.linalg.norm(A, 2)


CONFIGS = [
    pytest.param(K, fi, wt, l2, id=f"K{K}-{'int' if fi else 'noint'}-{'w' if wt else 'unw'}-l2={l2}")
    for K in (2, 3, 4)
    for fi in (True, False)
    for wt in (False, True)
    for l2 in (0.0, 2.5)
]


# ----------------------------------------------------------------------------- pointwise losses


def test_binary_loss_against_the_closed_form():
    s = np.linspace(-30, 30, 121)
    for yv in (0.0, 1.0):
        y = np.full_like(s, yv)
        loss, mu = losses.Binomial.value_and_probabilities(s, y)
        # Bishop 2006 sec. 4.3.2, with 1 - sigma(s) = sigma(-s) (accurate for |s| <= 30)
        want = -(y * np.log(expit(s)) + (1 - y) * np.log(expit(-s)))
        np.testing.assert_allclose(loss, want, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(mu, expit(s), rtol=1e-15)


def test_softmax_loss_against_log_probabilities():
    rng = np.random.default_rng(0)
    S = rng.normal(scale=4, size=(50, 4))
    y = rng.integers(0, 4, 50)
    loss, mu = losses.Multinomial.value_and_probabilities(S, y)
    logp = S - logsumexp(S, axis=1, keepdims=True)
    np.testing.assert_allclose(loss, -logp[np.arange(50), y], rtol=1e-13)
    np.testing.assert_allclose(mu, np.exp(logp), rtol=1e-13)
    np.testing.assert_allclose(mu.sum(axis=1), 1.0, rtol=1e-15)


def test_losses_do_not_overflow_at_margins_of_1e3():
    s = np.array([-1e3, -1e3, 1e3, 1e3, 800.0, -800.0])
    y = np.array([0.0, 1.0, 0.0, 1.0, 0.0, 1.0])
    with np.errstate(over="ignore"):
        naive = np.log(1 + np.exp(s)) - y * s  # the textbook form
    assert not np.all(np.isfinite(naive))  # it overflows ...
    # ... the library does not (RuntimeWarnings are errors here)
    loss, mu = losses.Binomial.value_and_probabilities(s, y)
    np.testing.assert_allclose(loss, [0.0, 1e3, 1e3, 0.0, 800.0, 800.0], rtol=1e-15, atol=1e-300)
    np.testing.assert_array_equal(mu, [0.0, 0.0, 1.0, 1.0, 1.0, 0.0])
    S = np.array([[1e3, -1e3, 0.0], [-1e3, -1e3, 1e3], [1e3, 1e3, 1e3]])
    yk = np.array([1, 2, 0])
    with np.errstate(over="ignore", invalid="ignore"):
        naive_k = np.log(np.exp(S).sum(axis=1)) - S[np.arange(3), yk]
    assert not np.all(np.isfinite(naive_k))
    loss, mu = losses.Multinomial.value_and_probabilities(S, yk)
    np.testing.assert_allclose(loss, [2e3, 0.0, np.log(3)], rtol=1e-15, atol=1e3 * 4e-16)
    assert np.all(np.isfinite(mu))


# ----------------------------------------------------------------------------- value and gradient


@pytest.mark.parametrize("K, fit_intercept, weighted, l2", CONFIGS)
def test_value_against_formula(K, fit_intercept, weighted, l2):
    obj = make_objective(1, K=K, fit_intercept=fit_intercept, weighted=weighted, l2=l2)
    for theta in (random_theta(obj, 1), obj.null_start()):
        f, _ = obj.value_gradient(theta)
        assert f == pytest.approx(reference_value(obj, theta), rel=1e-12)
        assert obj.value(theta) == pytest.approx(f, rel=1e-14)


@pytest.mark.parametrize("K, fit_intercept, weighted, l2", CONFIGS)
def test_gradient_matches_central_differences(K, fit_intercept, weighted, l2):
    obj = make_objective(2, K=K, fit_intercept=fit_intercept, weighted=weighted, l2=l2)
    for theta in (random_theta(obj, 2), obj.null_start()):
        _, g = obj.value_gradient(theta)
        assert g.shape == obj.shape
        num = numeric_gradient(obj.value, theta)
        np.testing.assert_allclose(g, num, rtol=1e-6, atol=1e-7 * max(1.0, np.abs(num).max()))


@pytest.mark.parametrize("K, fit_intercept, weighted, l2", CONFIGS)
def test_hessian_matches_central_differences(K, fit_intercept, weighted, l2):
    obj = make_objective(3, K=K, fit_intercept=fit_intercept, weighted=weighted, l2=l2)
    zero_coef = obj.null_start()
    if fit_intercept:  # zero coefficients but an intercept away from the null start: still closed form
        shifted = zero_coef.copy()
        shifted[-1] += 0.4
    else:
        shifted = zero_coef
    for theta in (random_theta(obj, 3), zero_coef, shifted):
        H = obj.hessian(theta)
        assert H.shape == (obj.n_params, obj.n_params)
        np.testing.assert_allclose(H, H.T, rtol=0, atol=1e-14 * np.abs(H).max())
        num = numeric_hessian(obj, theta)
        np.testing.assert_allclose(H, num, rtol=1e-6, atol=1e-7 * np.abs(num).max())


@pytest.mark.parametrize("K, fit_intercept, weighted, l2", CONFIGS)
def test_hessian_equals_projected_k_class_hessian(K, fit_intercept, weighted, l2):
    """H = (P (x) I)^T [sum_i w_i (diag mu_i - mu_i mu_i^T) (x) x~_i x~_i^T] (P (x) I) / N + penalty,
    with x~ the centred rows (the library's coordinates); binary: X^T diag(mu(1-mu)) X."""
    _check_projected_hessian(make_objective(4, K=K, fit_intercept=fit_intercept, weighted=weighted,
                                            l2=l2), l2, fit_intercept)


@pytest.mark.parametrize("K, d", [(6, 3), (7, 50), (3, 60), (3, 5)])
def test_hessian_in_every_accumulator_layout(K, d):
    """The K-class Hessian by the Khatri-Rao square (K >= 6, few columns) and by one weighted Gram
    product per block (fewer classes, or more columns) is the projected K-space formula."""
    obj = make_objective(6, K=K, d=d, n=300, weighted=True, l2=0.5)
    _check_projected_hessian(obj, 0.5, True)


def _check_projected_hessian(obj, l2, fit_intercept):
    K = obj.n_classes
    theta = random_theta(obj, 4)
    mu, Xt, w = full_space(obj, theta)
    p, m = obj.shape
    if K == 2:  # Bishop 2006 sec. 4.3.3: X^T diag(mu (1 - mu)) X
        H_data = Xt.T @ (Xt * (w * mu[:, 1] * mu[:, 0])[:, None])
    else:
        P = contrast_basis(K)
        T = np.kron(P, np.eye(p))  # theta in class-major order -> K-space class-major order
        H_major = T.T @ k_space_hessian(mu, Xt, w) @ T
        # class-major (m, p) -> the library's C order of (p, m)
        perm = np.arange(p * m).reshape(m, p).T.ravel()  # library index -> class-major index
        H_data = H_major[np.ix_(perm, perm)]
    penalty = np.full(obj.shape, l2)
    if fit_intercept:
        penalty[-1] = 0.0
    want = (H_data + np.diag(penalty.ravel())) / w.sum()
    np.testing.assert_allclose(obj.hessian(theta), want, rtol=1e-10, atol=1e-13 * np.abs(want).max())


def test_null_start_is_the_intercept_only_optimum():
    for K in (2, 3, 4):
        obj = make_objective(5, K=K, weighted=True, l2=1.0)
        theta = obj.null_start()
        assert not np.any(theta[:-1])
        _, g = obj.value_gradient(theta)
        np.testing.assert_allclose(g[-1], 0.0, atol=1e-13)  # the intercept's gradient vanishes
        assert np.abs(g[:-1]).max() > 1e-3  # the coefficients' does not (informative features)


def test_batch_gradient_of_all_rows_is_the_gradient():
    for K in (2, 3):
        obj = make_objective(6, K=K, weighted=True, l2=0.5)
        theta = random_theta(obj, 6)
        _, g = obj.value_gradient(theta)
        np.testing.assert_allclose(obj.batch_gradient(theta, np.arange(len(obj.y))), g, rtol=1e-12,
                                   atol=1e-15)
        # a batch of zero weight gives no gradient at all
        w0 = obj.w.copy()
        w0[:5] = 0.0
        obj0 = LinearObjective(obj.X, obj.y, K, w0, l2=0.5)
        np.testing.assert_array_equal(obj0.batch_gradient(theta, np.arange(5)), 0.0)


# ----------------------------------------------------------------------------- the Hessian bound


@pytest.mark.parametrize("K", [2, 3, 4])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_bound_block_structure(K, fit_intercept):
    obj = make_objective(8, K=K, fit_intercept=fit_intercept, weighted=True, l2=1.5)
    B = obj.hessian_bound_block()
    mu, Xt, w = full_space(obj, obj.null_start())
    gram = Xt.T @ (Xt * w[:, None])
    penalty = np.full(obj.shape[0], 1.5)
    if fit_intercept:
        penalty[-1] = 0.0
    want = ((0.25 if K == 2 else 0.5) * gram + np.diag(penalty)) / w.sum()
    np.testing.assert_allclose(B, want, rtol=1e-12, atol=1e-14 * np.abs(want).max())
    np.testing.assert_allclose(obj.hessian_bound(), np.kron(B, np.eye(obj.shape[1])), rtol=0, atol=0)
    np.testing.assert_allclose(obj.gram, gram, rtol=1e-12, atol=1e-12 * np.abs(gram).max())


def test_binary_bound_is_attained_at_zero():
    """mu = 1/2 everywhere at theta = 0: mu(1-mu) = 1/4, so H(0) equals the bound (the 1/4 of the
    bound cannot be any smaller)."""
    for fit_intercept in (True, False):
        obj = make_objective(9, K=2, fit_intercept=fit_intercept, weighted=True, l2=0.7)
        zero = np.zeros(obj.shape)
        np.testing.assert_allclose(obj.hessian(zero), obj.hessian_bound(), rtol=1e-12, atol=1e-15)
        # and it still bounds the Hessian away from zero
        assert min_eig_relative(obj.hessian_bound(), obj.hessian(random_theta(obj, 9))) > -1e-12


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31 - 1),
    K=st.sampled_from([2, 3, 4, 5]),
    n=st.integers(1, 30),
    d=st.integers(1, 4),
    fit_intercept=st.booleans(),
    weighted=st.booleans(),
    l2=st.sampled_from([0.0, 1e-3, 1.0, 100.0]),
    theta_scale=st.sampled_from([0.0, 0.1, 1.0, 10.0, 100.0]),
    x_scale=st.sampled_from([1e-3, 1.0, 1e3]),
)
def test_hessian_bound_dominates_the_hessian(seed, K, n, d, fit_intercept, weighted, l2, theta_scale,
                                             x_scale):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * x_scale + rng.normal(size=d) * x_scale * 3
    if d > 1 and rng.random() < 0.3:
        X[:, -1] = X[:, 0]  # collinear columns: the bound is singular too
    y = rng.integers(0, K, n).astype(np.intp)
    w = rng.uniform(0.0, 5.0, size=n) if weighted else None
    if w is not None:
        w[0] = 1.0  # positive total weight
    obj = LinearObjective(X, y, K, w, l2=l2, fit_intercept=fit_intercept)
    theta = rng.normal(scale=theta_scale / x_scale, size=obj.shape)
    if fit_intercept:
        theta[-1] = rng.normal(scale=theta_scale, size=obj.shape[1])
    B, H = obj.hessian_bound(), obj.hessian(theta)
    assert np.all(np.isfinite(H))
    assert min_eig_relative(B, H) >= -1e-10
    # ... and in the unconstrained K-class form of Böhning's bound (uncentred design, the order)
    mu, Xt, ww = full_space(obj, theta, centred=False)
    A = np.eye(K) - np.ones((K, K)) / K
    bound_k = np.kron(A / 2, Xt.T @ (Xt * ww[:, None]))
    assert min_eig_relative(bound_k, k_space_hessian(mu, Xt, ww)) >= -1e-10


def test_k_space_bound_is_violated_by_a_smaller_constant():
    """The PSD check above can fail: (I - 11^T/K)/4 does not bound the softmax Hessian at zero for
    K = 3 (mu = 1/3: diag(mu) - mu mu^T = (I - 11^T/K)/3)."""
    obj = make_objective(10, K=3, fit_intercept=False)
    mu, Xt, w = full_space(obj, np.zeros(obj.shape))
    A = np.eye(3) - np.ones((3, 3)) / 3
    H = k_space_hessian(mu, Xt, w)
    assert min_eig_relative(np.kron(A / 2, Xt.T @ Xt), H) >= -1e-12
    assert min_eig_relative(np.kron(A / 4, Xt.T @ Xt), H) < -1e-3


# ----------------------------------------------------------------------------- contrast basis and layout


@pytest.mark.parametrize("K", [2, 3, 4, 5, 8])
def test_contrast_basis_is_orthonormal_and_sums_to_zero(K):
    P = contrast_basis(K)
    assert P.shape == (K, K - 1)
    np.testing.assert_allclose(P.T @ P, np.eye(K - 1), atol=1e-14)
    np.testing.assert_allclose(np.ones(K) @ P, 0.0, atol=1e-14)
    # together with 1/sqrt(K) it is an orthogonal matrix: P P^T is the centring projector
    np.testing.assert_allclose(P @ P.T, np.eye(K) - np.ones((K, K)) / K, atol=1e-14)


@pytest.mark.parametrize("K", [2, 3, 4])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_coefficients_round_trip(K, fit_intercept):
    obj = make_objective(11, K=K, fit_intercept=fit_intercept, weighted=True)
    theta = random_theta(obj, 11)
    coef, intercept = obj.coefficients(theta)
    rows = 1 if K == 2 else K
    assert coef.shape == (rows, obj.n_features) and intercept.shape == (rows,)
    np.testing.assert_allclose(obj.from_coefficients(coef, intercept), theta, rtol=1e-12, atol=1e-14)
    W, b = full_parameters(obj, theta)  # independent of coefficients()
    np.testing.assert_allclose(coef, W.T, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(intercept, b, rtol=1e-12, atol=1e-13)
    S = obj.scores(theta)
    np.testing.assert_allclose(S, (obj.X @ coef.T + intercept)[:, 0] if K == 2 else obj.X @ coef.T + intercept,
                               rtol=1e-12, atol=1e-12)
    if K > 2:  # the sum-to-zero constraint: sum_j theta_j = 0
        np.testing.assert_allclose(coef.sum(axis=0), 0.0, atol=1e-14)
        np.testing.assert_allclose(intercept.sum(), 0.0, atol=1e-13)
    if not fit_intercept:
        np.testing.assert_array_equal(intercept, 0.0)


def test_from_coefficients_projects_a_shifted_softmax_model():
    """Adding the same vector to every class's coefficients does not change the model; from_coefficients
    removes it (the sum-to-zero representative)."""
    obj = make_objective(12, K=3)
    theta = random_theta(obj, 12)
    coef, intercept = obj.coefficients(theta)
    shift = np.random.default_rng(0).normal(size=obj.n_features)
    np.testing.assert_allclose(obj.from_coefficients(coef + shift, intercept + 2.0), theta, atol=1e-13)


# ----------------------------------------------------------------------------- large margins


@pytest.mark.parametrize("K", [2, 3])
def test_objective_is_finite_at_margins_of_1e3(K):
    obj = make_objective(13, K=K, fit_intercept=True, scale=1e3)
    theta = np.random.default_rng(13).normal(size=obj.shape) * 2.0  # scores of order 1e3 - 1e4
    W, b = full_parameters(obj, theta)
    S = obj.X @ W + b
    margins = np.abs(S if K == 2 else S - S.mean(axis=1, keepdims=True))
    assert margins.max() > 1e3
    with np.errstate(over="ignore"):
        naive = np.log1p(np.exp(S)) if K == 2 else np.log(np.exp(S).sum(axis=1))
    assert not np.all(np.isfinite(naive))  # the textbook formula overflows here
    f, g = obj.value_gradient(theta)
    assert np.isfinite(f) and np.all(np.isfinite(g))
    assert f == pytest.approx(reference_value(obj, theta), rel=1e-12)
    H = obj.hessian(theta)
    assert np.all(np.isfinite(H))


# ----------------------------------------------------------------------------- float32 Hessian


@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("weighted", [False, True])
def test_low_precision_hessian_is_close(monkeypatch, K, weighted):
    obj = make_objective(14, K=K, weighted=weighted, n=3000, d=6, l2=0.1)
    theta = random_theta(obj, 14)
    exact = obj.hessian(theta)
    # below the size threshold a step's curvature is the same float64 computation
    assert obj.step_products == np.float64
    np.testing.assert_array_equal(obj.step_hessian(theta), exact)
    monkeypatch.setattr(objective_module, "LOW_PRECISION_MIN", 100)
    obj = make_objective(14, K=K, weighted=weighted, n=3000, d=6, l2=0.1)
    assert obj.step_products == np.float32
    # an exact Hessian kept from the last evaluation serves a step as it is
    np.testing.assert_array_equal(obj.hessian(theta), exact)
    np.testing.assert_array_equal(obj.step_hessian(theta), exact)
    obj = make_objective(14, K=K, weighted=weighted, n=3000, d=6, l2=0.1)
    low = obj.step_hessian(theta)
    assert obj.hessian_dtype == np.float32  # the float32 path was taken
    assert not np.array_equal(low, exact)
    scale = np.linalg.norm(exact, 2)
    assert np.abs(low - exact).max() <= 1e-4 * scale
    np.testing.assert_allclose(low, exact, rtol=1e-4, atol=1e-5 * scale)
    # the closed form at zero coefficients, on a fresh objective (no cached float64 Gram matrix)
    fresh = make_objective(14, K=K, weighted=weighted, n=3000, d=6, l2=0.1)
    start = fresh.null_start()
    low0 = fresh.step_hessian(start)
    assert fresh.hessian_dtype == np.float32
    np.testing.assert_allclose(low0, obj.hessian(start), rtol=1e-4, atol=1e-5 * scale)
