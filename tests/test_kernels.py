"""``linclass.projection.kernels``: kernel values, block-built Gram matrices, gamma resolution and
landmark selection.

* Every named kernel against ``sklearn.metrics.pairwise`` (an independent implementation) to 1e-12.
* ``Kernel.gram`` built in several row blocks equals the matrix computed in one piece; ``diag`` equals
  the diagonal of the full matrix, for named kernels and callables.
* Callable kernels, and the error for a callable returning the wrong shape.
* ``gamma=None`` resolves to 1/(d Var(X)) (scikit-learn's SVC ``gamma='scale'``).
* ``select_landmarks``: distinct, sorted indices; k-means++ reproducible for a seed and spread out
  (covers every well-separated cluster far more often than uniform sampling would).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel, sigmoid_kernel

from linclass import KernelFisherDiscriminantAnalysis
from linclass.projection import kernels
from linclass.projection.kernels import (
    Kernel,
    make_kernel,
    resolve_gamma,
    row_blocks,
    select_landmarks,
)


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(37, 5)) * np.array([1.0, 2.0, 0.5, 3.0, 1.0]) + 0.3
    B = rng.normal(size=(23, 5))
    return A, B


def reference(name, A, B, gamma, degree, coef0):
    """The kernel matrix from scikit-learn's pairwise functions (same parametrisation)."""
    if name == "linear":
        return linear_kernel(A, B)
    if name == "poly":
        return polynomial_kernel(A, B, degree=degree, gamma=gamma, coef0=coef0)
    if name == "rbf":
        return rbf_kernel(A, B, gamma=gamma)
    return sigmoid_kernel(A, B, gamma=gamma, coef0=coef0)


NAMED = [
    ("linear", {}),
    ("poly", dict(gamma=0.3, degree=3, coef0=1.0)),
    ("poly", dict(gamma=0.1, degree=2, coef0=0.0)),
    ("poly", dict(gamma=0.2, degree=4, coef0=-0.5)),
    ("rbf", dict(gamma=0.1)),
    ("rbf", dict(gamma=2.0)),
    ("sigmoid", dict(gamma=0.05, coef0=0.3)),
]


# ------------------------------------------------------------------------------------------ named kernels
@pytest.mark.parametrize("name, params", NAMED)
def test_named_kernel_matches_sklearn(data, name, params):
    A, B = data
    kern = make_kernel(name, A, **{"gamma": 1.0, "degree": 3, "coef0": 1.0, **params})
    want = reference(name, A, B, kern.gamma, kern.degree, kern.coef0)
    scale = max(1.0, np.abs(want).max())
    np.testing.assert_allclose(kern(A, B), want, rtol=1e-12, atol=1e-12 * scale)
    np.testing.assert_allclose(kern.gram(A, B), want, rtol=1e-12, atol=1e-12 * scale)
    # the symmetric Gram matrix of A with itself
    np.testing.assert_allclose(
        kern.gram(A), reference(name, A, A, kern.gamma, kern.degree, kern.coef0), rtol=1e-12,
        atol=1e-12 * scale,
    )


@pytest.mark.parametrize("name, params", NAMED)
def test_call_writes_into_out(data, name, params):
    A, B = data
    kern = make_kernel(name, A, **{"gamma": 1.0, "degree": 3, "coef0": 1.0, **params})
    out = np.full((A.shape[0], B.shape[0]), np.nan)
    got = kern(A, B, out=out)
    assert got is out
    np.testing.assert_allclose(out, reference(name, A, B, kern.gamma, kern.degree, kern.coef0), rtol=1e-12,
                               atol=1e-12 * max(1.0, np.abs(out).max()))


def test_rbf_is_exactly_one_on_duplicates_and_never_above_one():
    """Rounding in ||a||^2 + ||b||^2 - 2a.b must not give exp(+tiny) > 1 for equal rows."""
    rng = np.random.default_rng(1)
    A = rng.normal(size=(50, 3)) * 1e3 + 1e4  # large norms: the cancellation is worst here
    kern = make_kernel("rbf", A, gamma=1e-6)
    K = kern.gram(A)
    assert np.all(K <= 1.0)
    np.testing.assert_allclose(np.diag(K), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(K, rbf_kernel(A, gamma=1e-6), rtol=1e-9, atol=1e-12)


# ------------------------------------------------------------------------------------------ row blocks
@pytest.mark.parametrize(
    "n_rows, n_cols, budget", [(10, 3, 8 * 3 * 4), (10, 3, 1), (7, 0, 64), (1, 5, 8), (25, 4, 10**9)]
)
def test_row_blocks_cover_range_exactly(n_rows, n_cols, budget):
    blocks = list(row_blocks(n_rows, n_cols, budget=budget))
    covered = np.concatenate([np.arange(a, b) for a, b in blocks])
    np.testing.assert_array_equal(covered, np.arange(n_rows))
    step = max(1, min(n_rows, budget // (8 * max(n_cols, 1))))
    assert all(b - a <= step for a, b in blocks)


@pytest.mark.parametrize("name, params", NAMED + [("callable", {})])
def test_gram_in_many_row_blocks_equals_direct_matrix(monkeypatch, name, params):
    """Shrink the block budget so that the Gram matrix is built in many blocks (with a ragged last one)."""
    rng = np.random.default_rng(2)
    A = rng.normal(size=(103, 4))
    B = rng.normal(size=(41, 4))
    if name == "callable":
        kern = make_kernel(lambda P, Q: np.cos(P @ Q.T), A)
        want_AB, want_AA = np.cos(A @ B.T), np.cos(A @ A.T)
    else:
        kern = make_kernel(name, A, **{"gamma": 1.0, "degree": 3, "coef0": 1.0, **params})
        want_AB = reference(name, A, B, kern.gamma, kern.degree, kern.coef0)
        want_AA = reference(name, A, A, kern.gamma, kern.degree, kern.coef0)

    seen = []
    original = kernels.row_blocks

    def small_blocks(n_rows, n_cols, budget=None):
        out = list(original(n_rows, n_cols, budget=8 * n_cols * 10))  # 10 rows per block
        seen.append(out)
        return iter(out)

    monkeypatch.setattr(kernels, "row_blocks", small_blocks)
    got_AB, got_AA = kern.gram(A, B), kern.gram(A)
    assert len(seen) == 2 and len(seen[0]) == 11 and seen[0][-1] == (100, 103)
    scale = max(1.0, np.abs(want_AA).max())
    np.testing.assert_allclose(got_AB, want_AB, rtol=1e-12, atol=1e-12 * scale)
    np.testing.assert_allclose(got_AA, want_AA, rtol=1e-12, atol=1e-12 * scale)


# ------------------------------------------------------------------------------------------ diagonal
@pytest.mark.parametrize("name, params", NAMED)
def test_diag_equals_diagonal_of_gram(data, name, params):
    A, _ = data
    kern = make_kernel(name, A, **{"gamma": 1.0, "degree": 3, "coef0": 1.0, **params})
    full = reference(name, A, A, kern.gamma, kern.degree, kern.coef0)
    np.testing.assert_allclose(kern.diag(A), np.diag(full), rtol=1e-12, atol=1e-12)
    assert kern.diag(A).shape == (A.shape[0],)


def test_diag_of_callable_over_several_steps():
    """The callable's diagonal is taken in chunks of 256 rows: 600 rows need three."""
    rng = np.random.default_rng(3)
    A = rng.normal(size=(600, 3))
    calls = []

    def f(P, Q):
        calls.append((P.shape[0], Q.shape[0]))
        return np.exp(-np.abs(P[:, None, :] - Q[None, :, :]).sum(axis=2)) + P[:, :1] * Q[:, :1].T

    kern = make_kernel(f, A)
    np.testing.assert_allclose(kern.diag(A), 1.0 + A[:, 0] ** 2, rtol=1e-13)
    assert max(c[0] for c in calls) <= 256 and len(calls) >= 3


# ------------------------------------------------------------------------------------------ callables
def test_callable_kernel_values_and_estimator(data):
    A, B = data

    def laplacian(P, Q):
        return np.exp(-0.3 * np.abs(P[:, None, :] - Q[None, :, :]).sum(axis=2))

    kern = make_kernel(laplacian, A)
    assert kern.name == "callable" and kern.function is laplacian
    np.testing.assert_allclose(kern(A, B), laplacian(A, B), rtol=0, atol=0)
    np.testing.assert_allclose(kern.gram(A), laplacian(A, A), rtol=0, atol=0)

    # the estimator with the callable equals the estimator on the precomputed matrix
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, A.shape[0])
    y[:2] = [0, 1]
    est = KernelFisherDiscriminantAnalysis(kernel=laplacian).fit(A, y)
    pre = KernelFisherDiscriminantAnalysis(kernel="precomputed").fit(laplacian(A, A), y)
    np.testing.assert_allclose(est.transform(B), pre.transform(laplacian(B, A)), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(est.eigenvalues_, pre.eigenvalues_, rtol=1e-10)


@pytest.mark.parametrize("bad", [lambda P, Q: P @ Q.T[:, :1], lambda P, Q: (P @ Q.T).T, lambda P, Q: np.ones(len(P))])
def test_callable_wrong_shape_is_a_clear_error(data, bad):
    A, B = data
    kern = make_kernel(bad, A)
    with pytest.raises(ValueError, match=r"kernel callable returned shape .* it must return \(37, 23\)"):
        kern(A, B)
    y = np.arange(A.shape[0]) % 2
    with pytest.raises(ValueError, match="kernel callable returned shape"):
        # (the transposed result has the right shape on the square training Gram matrix: then
        # transform, which evaluates k(B, A), raises)
        KernelFisherDiscriminantAnalysis(kernel=bad).fit(A, y).transform(B)


def test_precomputed_kernel_cannot_be_evaluated_and_unknown_names_are_refused(data):
    A, B = data
    with pytest.raises(ValueError, match="precomputed kernel has no function"):
        make_kernel("precomputed", A)(A, B)
    with pytest.raises(ValueError, match="kernel must be one of"):
        make_kernel("laplacian", A)


# ------------------------------------------------------------------------------------------ gamma
def test_gamma_none_is_one_over_d_times_variance(data):
    A, _ = data
    want = 1.0 / (A.shape[1] * A.var())
    assert resolve_gamma(None, A) == pytest.approx(want, rel=1e-14)
    assert make_kernel("rbf", A).gamma == pytest.approx(want, rel=1e-14)
    assert resolve_gamma(0.25, A) == 0.25
    # scale invariance: the default does not depend on the units of X
    np.testing.assert_allclose(make_kernel("rbf", 7.0 * A).gram(7.0 * A), make_kernel("rbf", A).gram(A), rtol=1e-12)
    # constant X: 1/d
    assert resolve_gamma(None, np.full((4, 8), 3.0)) == pytest.approx(1.0 / 8)


def test_estimator_gamma_none_equals_explicit_scale_gamma(data):
    A, B = data
    y = np.arange(A.shape[0]) % 3
    auto = KernelFisherDiscriminantAnalysis().fit(A, y)
    g = 1.0 / (A.shape[1] * A.var())
    assert auto.gamma_ == pytest.approx(g, rel=1e-14)
    explicit = KernelFisherDiscriminantAnalysis(gamma=g).fit(A, y)
    np.testing.assert_allclose(auto.transform(B), explicit.transform(B), rtol=1e-12, atol=1e-12)
    assert KernelFisherDiscriminantAnalysis(gamma=0.7).fit(A, y).gamma_ == 0.7


# ------------------------------------------------------------------------------------------ landmarks
def five_blobs(seed, per=40):
    rng = np.random.default_rng(seed)
    centres = np.array([[0, 0], [20, 0], [0, 20], [20, 20], [10, 40]], dtype=float)
    labels = np.repeat(np.arange(5), per)
    return centres[labels] + rng.normal(scale=0.5, size=(labels.size, 2)), labels


@pytest.mark.parametrize("method", ["random", "kmeans++"])
def test_landmarks_are_distinct_sorted_indices(method):
    X, _ = five_blobs(0)
    kern = make_kernel("rbf", X, gamma=0.05)
    for seed in range(5):
        idx = select_landmarks(X, 30, method, kern, np.random.RandomState(seed))
        assert idx.shape == (30,) and idx.dtype.kind == "i"
        assert np.unique(idx).size == 30
        assert np.all(np.diff(idx) > 0)
        assert idx.min() >= 0 and idx.max() < X.shape[0]


@pytest.mark.parametrize("method", ["random", "kmeans++"])
def test_landmarks_all_rows_when_asking_for_n_or_more(method):
    X, _ = five_blobs(0, per=6)
    kern = make_kernel("linear", X)
    for m in (30, 31, 1000):
        np.testing.assert_array_equal(select_landmarks(X, m, method, kern, np.random.RandomState(0)), np.arange(30))


@pytest.mark.parametrize("method", ["random", "kmeans++"])
def test_landmarks_reproducible_for_a_seed(method):
    X, _ = five_blobs(1)
    kern = make_kernel("rbf", X, gamma=0.05)
    a = select_landmarks(X, 12, method, kern, np.random.RandomState(7))
    b = select_landmarks(X, 12, method, kern, np.random.RandomState(7))
    np.testing.assert_array_equal(a, b)
    others = [select_landmarks(X, 12, method, kern, np.random.RandomState(s)) for s in range(8, 12)]
    assert any(not np.array_equal(a, o) for o in others)


@pytest.mark.parametrize("kernel, gamma, at_least", [("linear", None, 0.9), ("rbf", 0.01, 0.9), ("rbf", 0.05, 0.6)])
def test_kmeanspp_spreads_over_well_separated_clusters(kernel, gamma, at_least):
    """With 5 well-separated blobs and 5 landmarks, k-means++ (kernel-induced distance) picks one per
    blob almost always; uniform sampling does so with probability 5!/5^5 ~ 4%.

    The rbf feature distance 2 - 2k saturates at 2 between blobs, while inside a blob (std 0.5) it is
    about 2(1 - exp(-gamma)); so the chance of covering every blob is ~0.97 for gamma=0.01 and ~0.75
    for gamma=0.05 (the product over the draws of the uncovered blobs' share of the total distance)."""
    X, labels = five_blobs(2)
    kern = make_kernel(kernel, X, gamma=gamma)
    trials = 60
    covered = {"kmeans++": 0, "random": 0}
    for method in covered:
        for seed in range(trials):
            idx = select_landmarks(X, 5, method, kern, np.random.RandomState(seed))
            covered[method] += np.unique(labels[idx]).size == 5
    assert covered["kmeans++"] >= at_least * trials
    assert covered["random"] <= 0.2 * trials


def test_kmeanspp_with_duplicate_rows_covers_every_distinct_point():
    """Only 3 distinct points among 30 rows: after those the distances are all zero and the remaining
    landmarks are filled uniformly (still distinct indices)."""
    base = np.array([[0.0, 0.0], [5.0, 1.0], [-3.0, 4.0]])
    X = np.repeat(base, 10, axis=0)
    kern = make_kernel("rbf", X, gamma=0.5)
    for seed in range(10):
        idx = select_landmarks(X, 7, "kmeans++", kern, np.random.RandomState(seed))
        assert np.unique(idx).size == 7
        assert set(idx // 10) == {0, 1, 2}


def test_kmeanspp_first_landmarks_are_far_apart_in_feature_space():
    """The kernel-induced distance is used: with a tiny rbf gamma, far points are picked (the squared
    feature distance 2 - 2k grows with the Euclidean one); k-means++ spreads more than random."""
    rng = np.random.default_rng(5)
    X = rng.uniform(-10, 10, size=(400, 2))
    kern = make_kernel("rbf", X, gamma=0.01)

    def min_pairwise(idx):
        D = np.sqrt(((X[idx, None, :] - X[None, idx, :]) ** 2).sum(-1))
        return D[np.triu_indices(len(idx), 1)].min()

    def spread(method):
        return np.mean(
            [min_pairwise(select_landmarks(X, 10, method, kern, np.random.RandomState(s))) for s in range(30)]
        )

    kpp, rnd = spread("kmeans++"), spread("random")
    assert kpp > 1.5 * rnd


def test_block_budget_default_is_bounded():
    """A block never holds much more than the budget: rows * cols * 8 bytes <= budget (or one row)."""
    for n_rows, n_cols in [(10**6, 1000), (10**5, 10**5), (3, 10**9)]:
        start, stop = next(row_blocks(n_rows, n_cols))
        assert (stop - start) == 1 or (stop - start) * n_cols * 8 <= kernels._BLOCK_BYTES


def test_kernel_is_frozen():
    kern = Kernel("rbf", gamma=0.5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        kern.gamma = 1.0  # type: ignore[misc]
