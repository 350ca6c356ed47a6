"""Properties of :class:`linclass.ClassStats`, checked with hypothesis and against naive numpy.

Every property runs for each statistics kind ('tied', 'full', 'diag'; 'full' also with the fourth-
moment statistics) and with and without sample weights.  Reference values are computed the slow,
obvious way: a Python loop over classes, ``np.cov(..., aweights=w, bias=True)`` times the class weight
for the scatter, ``np.average`` for means and variances.

Tolerances: relative 1e-9 plus an absolute term proportional to the data's scale (total weight times
the squared magnitude of X for scatter).  A wrong divisor, a missing merge correction term or a
misaligned class would be off by a quantity of the order of the scatter itself, far above that.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from linclass.generative import scatter_passes as stats_module  # the blocked passes behind ClassStats
from linclass.generative.class_stats import ClassStats

SETTINGS = settings(max_examples=40, deadline=None, database=None)
RTOL = 1e-9

# (kind, moments): 'full' is run with and without the fourth-moment statistics
KINDS = [("tied", False), ("full", False), ("full", True), ("diag", False)]
KIND_IDS = ["tied", "full", "full+moments", "diag"]
WEIGHTED = [False, True]
WEIGHT_IDS = ["unweighted", "weighted"]

kinds = pytest.mark.parametrize(("kind", "moments"), KINDS, ids=KIND_IDS)
weighted = pytest.mark.parametrize("weighted", WEIGHTED, ids=WEIGHT_IDS)

# ----------------------------------------------------------------------------- strategies

_values = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False, allow_subnormal=False)
_weights = st.one_of(st.just(0.0), st.floats(0.01, 10.0, allow_subnormal=False))


@st.composite
def batches(draw, weighted: bool, min_rows: int = 0, integer_weights: bool = False):
    """(X, y, K, w): X of shape (n, d), y in range(K), w None or non-negative weights."""
    n = draw(st.integers(min_rows, 60))
    d = draw(st.integers(1, 5))
    K = draw(st.integers(1, 4))
    X = draw(hnp.arrays(np.float64, (n, d), elements=_values))
    y = draw(hnp.arrays(np.intp, (n,), elements=st.integers(0, K - 1)))
    w = None
    if weighted:
        elements = st.integers(0, 4) if integer_weights else _weights
        w = draw(hnp.arrays(np.float64, (n,), elements=elements))
    return X, y, K, w


# ----------------------------------------------------------------------------- references


def naive_stats(X, y, K, w):
    """Counts, row counts, means, per-class scatter (K, d, d), fourth and third, by a loop over
    classes.  Classes without weight get zero means and scatter."""
    n, d = X.shape
    w1 = np.ones(n) if w is None else w
    counts = np.array([w1[y == k].sum() for k in range(K)])
    n_rows = np.array([np.count_nonzero(y == k) for k in range(K)])
    means = np.zeros((K, d))
    scatter = np.zeros((K, d, d))
    fourth = np.zeros(K)
    third = np.zeros((K, d))
    for k in range(K):
        rows = y == k
        if counts[k] <= 0:
            continue
        Xk, wk = X[rows], w1[rows]
        means[k] = np.average(Xk, axis=0, weights=wk)
        # np.cov with bias=True divides by sum(aweights): multiply back to get the scatter
        scatter[k] = np.atleast_2d(np.cov(Xk.T, aweights=wk, bias=True)) * counts[k]
        R = Xk - means[k]
        # refine the centre (corrected two-pass): at an offset of 1e6 the rounding of the mean
        # alone moves the fourth moment of a tight class by ~1e-8 relative
        R -= (wk @ R) / counts[k]
        r2 = np.einsum("ij,ij->i", R, R)
        fourth[k] = np.sum(wk * r2 * r2)
        third[k] = (wk * r2) @ R
    return dict(counts=counts, n_rows=n_rows, means=means, scatter=scatter, fourth=fourth, third=third)


def expected_scatter(ref, kind):
    if kind == "tied":
        return ref["scatter"].sum(axis=0)
    if kind == "diag":
        return np.diagonal(ref["scatter"], axis1=1, axis2=2)
    return ref["scatter"]


def data_scale(X, w):
    """(total weight, magnitude of X): the absolute error of scatter is a small multiple of
    eps * W * M^2."""
    W = float(len(X) if w is None else w.sum())
    M = float(np.max(np.abs(X), initial=0.0))
    return max(W, 1.0), max(M, 1.0)


def assert_stats_close(got: ClassStats, want: ClassStats, X, w, *, check_rows=True):
    """Two ClassStats hold the same values (up to rounding on data of the scale of X, w)."""
    W, M = data_scale(X, w)
    assert got.kind == want.kind
    np.testing.assert_array_equal(got.classes, want.classes)
    np.testing.assert_allclose(got.counts, want.counts, rtol=1e-12, atol=1e-12 * W)
    if check_rows:
        np.testing.assert_array_equal(got.n_rows, want.n_rows)
    np.testing.assert_allclose(got.means, want.means, rtol=RTOL, atol=1e-9 * M)
    assert got.scatter.shape == want.scatter.shape
    np.testing.assert_allclose(got.scatter, want.scatter, rtol=RTOL, atol=1e-9 * W * M**2)
    assert (got.fourth is None) == (want.fourth is None)
    assert (got.third is None) == (want.third is None)
    if want.fourth is not None:
        d = X.shape[1]
        r2 = d * (2 * M) ** 2  # bound on ||x - mu||^2
        np.testing.assert_allclose(got.fourth, want.fourth, rtol=RTOL, atol=1e-9 * W * r2**2)
        np.testing.assert_allclose(got.third, want.third, rtol=RTOL, atol=1e-9 * W * r2 * 2 * M)


def assert_matches_naive(st_: ClassStats, X, y, K, w, kind, moments):
    ref = naive_stats(X, y, K, w)
    W, M = data_scale(X, w)
    assert st_.kind == kind
    assert np.all(np.isfinite(st_.means)) and np.all(np.isfinite(st_.scatter))
    np.testing.assert_allclose(st_.counts, ref["counts"], rtol=1e-12, atol=1e-12 * W)
    np.testing.assert_array_equal(st_.n_rows, ref["n_rows"])
    np.testing.assert_allclose(st_.means, ref["means"], rtol=RTOL, atol=1e-9 * M)
    np.testing.assert_allclose(st_.scatter, expected_scatter(ref, kind), rtol=RTOL, atol=1e-9 * W * M**2)
    if moments:
        d = X.shape[1]
        r2 = d * (2 * M) ** 2
        np.testing.assert_allclose(st_.fourth, ref["fourth"], rtol=RTOL, atol=1e-9 * W * r2**2)
        np.testing.assert_allclose(st_.third, ref["third"], rtol=RTOL, atol=1e-9 * W * r2 * 2 * M)
    else:
        assert st_.fourth is None and st_.third is None


def batch_stats(X, y, classes, w, kind, moments):
    return ClassStats.from_batch(X, y, classes, w, kind=kind, moments=moments)


# ----------------------------------------------------------------------------- from_batch


@kinds
@weighted
@SETTINGS
@given(data=st.data())
def test_from_batch_matches_naive_numpy(kind, moments, weighted, data):
    X, y, K, w = data.draw(batches(weighted))
    st_ = batch_stats(X, y, np.arange(K), w, kind, moments)
    np.testing.assert_array_equal(st_.classes, np.arange(K))
    assert_matches_naive(st_, X, y, K, w, kind, moments)


@kinds
@weighted
@SETTINGS
@given(data=st.data())
def test_blocked_passes_match_naive_numpy(kind, moments, weighted, data):
    """The blocked loops (and the two-pass cancellation fallback) with many small blocks: a block of
    3 rows makes every pass span several blocks, as 4096-row blocks do on large data."""
    X, y, K, w = data.draw(batches(weighted, min_rows=1))
    offset = data.draw(st.sampled_from([0.0, 1e6]))
    Xo = X / 1e3 + offset  # spread <= 1 around the offset: with 1e6 the fallback must run
    with mock.patch.object(stats_module, "_BLOCK", 3), mock.patch.object(stats_module, "_WIDTH", 1):
        st_ = batch_stats(Xo, y, np.arange(K), w, kind, moments)
    ref = naive_stats(Xo, y, K, w)
    W = data_scale(Xo, w)[0]
    np.testing.assert_allclose(st_.means, ref["means"], rtol=1e-12, atol=1e-12)
    # absolute error allowed: 1e-9 of the within-class scale (1), independent of the offset
    np.testing.assert_allclose(st_.scatter, expected_scatter(ref, kind), rtol=RTOL, atol=1e-9 * W)
    if moments:
        np.testing.assert_allclose(st_.fourth, ref["fourth"], rtol=RTOL, atol=1e-9 * W * 25 * 25)
        np.testing.assert_allclose(st_.third, ref["third"], rtol=RTOL, atol=1e-9 * W * 25 * 5)


@kinds
@weighted
@SETTINGS
@given(data=st.data())
def test_row_permutation_invariance(kind, moments, weighted, data):
    X, y, K, w = data.draw(batches(weighted))
    perm = data.draw(st.permutations(range(len(y))))
    perm = np.asarray(perm, dtype=np.intp)
    a = batch_stats(X, y, np.arange(K), w, kind, moments)
    b = batch_stats(X[perm], y[perm], np.arange(K), None if w is None else w[perm], kind, moments)
    assert_stats_close(b, a, X, w)


@kinds
@SETTINGS
@given(data=st.data())
def test_integer_weights_equal_repeated_rows(kind, moments, data):
    """Frequency weights: weight m on a row is the row repeated m times (0: dropped)."""
    X, y, K, w = data.draw(batches(True, integer_weights=True))
    reps = w.astype(np.intp)
    weighted_stats = batch_stats(X, y, np.arange(K), w, kind, moments)
    repeated = batch_stats(np.repeat(X, reps, axis=0), np.repeat(y, reps), np.arange(K), None, kind, moments)
    # n_rows counts rows as given (weight ignored), so it differs by design
    assert_stats_close(weighted_stats, repeated, X, w, check_rows=False)
    np.testing.assert_array_equal(weighted_stats.n_rows, np.bincount(y, minlength=K))
    np.testing.assert_array_equal(repeated.n_rows, np.bincount(y, weights=reps, minlength=K).astype(int))


@kinds
@weighted
@settings(max_examples=20, deadline=None, database=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 60), d=st.integers(1, 5), K=st.integers(1, 4))
def test_large_offset_relative_accuracy(kind, moments, weighted, seed, n, d, K):
    """X + 1e6 with unit within-class spread: the one-pass formula X^T X - n mu mu^T would lose ~12
    digits; the cancellation fallback must give the scatter to relative error < 1e-8."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    centres = rng.normal(scale=3.0, size=(K, d))
    X = 1e6 + centres[y] + rng.normal(size=(n, d)) * rng.uniform(0.5, 2.0, size=d)
    w = rng.uniform(0.1, 3.0, n) if weighted else None
    st_ = batch_stats(X, y, np.arange(K), w, kind, moments)
    ref = naive_stats(X, y, K, w)
    assert np.all(np.isfinite(st_.scatter))
    np.testing.assert_allclose(st_.means, ref["means"], rtol=1e-12)
    spread = st_.n_rows >= 2  # classes with a non-degenerate scatter
    S, R = st_.scatter, expected_scatter(ref, kind)
    if kind == "tied":
        if spread.any():
            assert np.linalg.norm(S - R) <= 1e-8 * np.linalg.norm(R)
    elif kind == "full":
        for k in range(K):
            if spread[k]:
                assert np.linalg.norm(S[k] - R[k]) <= 1e-8 * np.linalg.norm(R[k])
            else:  # a single row (or none): zero scatter up to the rounding of the mean
                assert np.max(np.abs(S[k]), initial=0.0) <= 1e-12
    else:
        np.testing.assert_allclose(S[spread], R[spread], rtol=1e-8)
        assert np.max(np.abs(S[~spread]), initial=0.0) <= 1e-12
    if moments:
        present = spread
        np.testing.assert_allclose(st_.fourth[present], ref["fourth"][present], rtol=1e-8)
        # third can be near zero by symmetry: compare with the scale sum w ||r||^3
        r3 = np.array([np.sum((np.ones(n) if w is None else w)[y == k]
                              * np.linalg.norm(X[y == k] - ref["means"][k], axis=1) ** 3) for k in range(K)])
        assert np.all(np.abs(st_.third - ref["third"]) <= 1e-8 * r3[:, None] + 1e-12)


def test_large_offset_tied_without_fallback_would_fail():
    """Sanity check of the test above: the one-pass formula really does lose the scatter at 1e6."""
    rng = np.random.default_rng(0)
    X = 1e6 + rng.normal(size=(50, 3))
    naive_one_pass = X.T @ X - 50 * np.outer(X.mean(0), X.mean(0))
    exact = np.cov(X.T, bias=True) * 50
    assert np.linalg.norm(naive_one_pass - exact) > 1e-8 * np.linalg.norm(exact)
    st_ = ClassStats.from_batch(X, np.zeros(50, dtype=np.intp), np.arange(1), kind="tied")
    assert np.linalg.norm(st_.scatter - exact) <= 1e-8 * np.linalg.norm(exact)


# ----------------------------------------------------------------------------- zero weight


@kinds
def test_zero_weight_and_empty_classes(kind, moments):
    """A class whose rows all have weight 0, and a class without rows: count 0, means 0, scatter 0,
    nothing NaN; the other classes are unaffected."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 3)) + 5.0
    y = np.repeat([0, 1, 3], 10)  # class 2 has no rows
    w = np.ones(30)
    w[10:20] = 0.0  # class 1: rows with zero weight only
    st_ = batch_stats(X, y, np.arange(4), w, kind, moments)
    np.testing.assert_array_equal(st_.counts, [10.0, 0.0, 0.0, 10.0])
    np.testing.assert_array_equal(st_.n_rows, [10, 10, 0, 10])
    assert np.all(np.isfinite(st_.means)) and np.all(np.isfinite(st_.scatter))
    np.testing.assert_array_equal(st_.means[[1, 2]], 0.0)
    if kind != "tied":
        np.testing.assert_array_equal(st_.scatter[[1, 2]], 0.0)
    if moments:
        np.testing.assert_array_equal(st_.fourth[[1, 2]], 0.0)
        np.testing.assert_array_equal(st_.third[[1, 2]], 0.0)
    # the same as the statistics of the rows with weight, with classes 1 and 2 empty
    keep = w > 0
    assert_matches_naive(st_, X, y, 4, w, kind, moments)
    without = batch_stats(X[keep], y[keep], np.arange(4), None, kind, moments)
    assert_stats_close(st_, without, X, w, check_rows=False)
    # merging keeps zero-weight classes at zero (no 0/0)
    merged = st_.merge(st_)
    assert np.all(np.isfinite(merged.means)) and np.all(np.isfinite(merged.scatter))
    np.testing.assert_array_equal(merged.means[[1, 2]], 0.0)
    np.testing.assert_array_equal(merged.counts, [20.0, 0.0, 0.0, 20.0])
    np.testing.assert_array_equal(merged.n_rows, [20, 20, 0, 20])


@kinds
def test_all_weights_zero_is_finite(kind, moments):
    X = np.arange(12.0).reshape(6, 2)
    y = np.array([0, 1, 0, 1, 0, 1])
    st_ = batch_stats(X, y, np.arange(2), np.zeros(6), kind, moments)
    np.testing.assert_array_equal(st_.counts, 0.0)
    np.testing.assert_array_equal(st_.means, 0.0)
    np.testing.assert_array_equal(st_.scatter, 0.0)


# ----------------------------------------------------------------------------- merging


@kinds
@weighted
@SETTINGS
@given(data=st.data())
def test_merge_of_split_equals_whole(kind, moments, weighted, data):
    X, y, K, w = data.draw(batches(weighted))
    cut = data.draw(st.integers(0, len(y)))  # either part may be empty
    classes = np.arange(K)
    part = lambda s: batch_stats(X[s], y[s], classes, None if w is None else w[s], kind, moments)  # noqa: E731
    a, b = part(slice(None, cut)), part(slice(cut, None))
    whole = batch_stats(X, y, classes, w, kind, moments)
    assert_stats_close(a.merge(b), whole, X, w)
    assert_stats_close(a + b, whole, X, w)
    assert_matches_naive(a.merge(b), X, y, K, w, kind, moments)


@kinds
@weighted
@SETTINGS
@given(data=st.data())
def test_merge_is_commutative_and_associative(kind, moments, weighted, data):
    X, y, K, w = data.draw(batches(weighted))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(y)), min_size=2, max_size=2)))
    classes = np.arange(K)
    parts = [
        batch_stats(X[s], y[s], classes, None if w is None else w[s], kind, moments)
        for s in (slice(None, cuts[0]), slice(cuts[0], cuts[1]), slice(cuts[1], None))
    ]
    a, b, c = parts
    assert_stats_close(a.merge(b), b.merge(a), X, w)
    left, right = a.merge(b).merge(c), a.merge(b.merge(c))
    assert_stats_close(left, right, X, w)
    assert_stats_close(c.merge(a).merge(b), left, X, w)
    assert_stats_close(left, batch_stats(X, y, classes, w, kind, moments), X, w)


@kinds
@weighted
@SETTINGS
@given(data=st.data())
def test_merge_of_batches_missing_classes(kind, moments, weighted, data):
    """Each batch knows only the labels it holds (classes = its own sorted labels); the merge aligns
    them on the union (with_classes) and equals the statistics of the whole."""
    X, y, K, w = data.draw(batches(weighted, min_rows=2))
    labels = np.array([-7, 3, 10, 42])[:K]  # arbitrary sorted labels, not 0..K-1
    cut = data.draw(st.integers(1, len(y) - 1))

    def own(s):
        present = np.unique(y[s])
        index = np.searchsorted(present, y[s])
        return batch_stats(X[s], index, labels[present], None if w is None else w[s], kind, moments)

    a, b = own(slice(None, cut)), own(slice(cut, None))
    present = np.unique(y)
    union = labels[present]
    whole = batch_stats(X, np.searchsorted(present, y), union, w, kind, moments)
    merged = a.merge(b)
    np.testing.assert_array_equal(merged.classes, union)
    assert_stats_close(merged, whole, X, w)
    assert_stats_close(b.merge(a), whole, X, w)
    # aligning first gives the same
    assert_stats_close(a.with_classes(union).merge(b.with_classes(union)), whole, X, w)


@kinds
def test_with_classes_alignment(kind, moments):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(20, 2))
    y = np.repeat([0, 1], 10)
    st_ = batch_stats(X, y, np.array([2, 5]), None, kind, moments)
    assert st_.with_classes(np.array([2, 5])) is st_
    wide = st_.with_classes(np.array([1, 2, 3, 5, 8]))
    np.testing.assert_array_equal(wide.classes, [1, 2, 3, 5, 8])
    np.testing.assert_array_equal(wide.counts, [0, 10, 0, 10, 0])
    np.testing.assert_array_equal(wide.n_rows, [0, 10, 0, 10, 0])
    np.testing.assert_array_equal(wide.means[[1, 3]], st_.means)
    np.testing.assert_array_equal(wide.means[[0, 2, 4]], 0.0)
    if kind == "tied":
        np.testing.assert_array_equal(wide.scatter, st_.scatter)
    else:
        np.testing.assert_array_equal(wide.scatter[[1, 3]], st_.scatter)
        np.testing.assert_array_equal(wide.scatter[[0, 2, 4]], 0.0)
    if moments:
        np.testing.assert_array_equal(wide.fourth[[1, 3]], st_.fourth)
        np.testing.assert_array_equal(wide.third[[1, 3]], st_.third)
        np.testing.assert_array_equal(wide.fourth[[0, 2, 4]], 0.0)
    for bad in ([2], [1, 2, 3], [2, 6], [0, 1]):
        with pytest.raises(ValueError, match="superset"):
            st_.with_classes(np.array(bad))


def test_merge_rejects_mismatched_statistics():
    X = np.arange(8.0).reshape(4, 2)
    y = np.array([0, 1, 0, 1])
    tied = ClassStats.from_batch(X, y, np.arange(2), kind="tied")
    diag = ClassStats.from_batch(X, y, np.arange(2), kind="diag")
    with pytest.raises(ValueError, match="merge"):
        tied.merge(diag)
    with pytest.raises(ValueError, match="features"):
        tied.merge(ClassStats.from_batch(X[:, :1].copy(), y, np.arange(2), kind="tied"))
    with pytest.raises(ValueError, match="kind"):
        ClassStats.from_batch(X, y, np.arange(2), kind="spherical")
    with pytest.raises(ValueError, match="fourth-moment"):
        ClassStats.from_batch(X, y, np.arange(2), kind="tied", moments=True)


# ----------------------------------------------------------------------------- derived quantities


@kinds
@weighted
@SETTINGS
@given(data=st.data())
def test_derived_quantities_match_numpy(kind, moments, weighted, data):
    X, y, K, w = data.draw(batches(weighted, min_rows=1))
    assume(w is None or w.sum() > 0)
    st_ = batch_stats(X, y, np.arange(K), w, kind, moments)
    ref = naive_stats(X, y, K, w)
    W, M = data_scale(X, w)
    atol_s = 1e-9 * W * M**2
    assert st_.n_classes == K and st_.n_features == X.shape[1]
    assert st_.total == pytest.approx(len(y) if w is None else w.sum(), rel=1e-12)
    pooled = ref["scatter"].sum(axis=0)
    diagonals = np.diagonal(ref["scatter"], axis1=1, axis2=2)
    if kind == "diag":
        with pytest.raises(ValueError):
            st_.pooled_scatter()
    else:
        np.testing.assert_allclose(st_.pooled_scatter(), pooled, rtol=RTOL, atol=atol_s)
    if kind == "tied":
        with pytest.raises(ValueError):
            st_.class_diagonals()
    else:
        np.testing.assert_allclose(st_.class_diagonals(), diagonals, rtol=RTOL, atol=atol_s)
    np.testing.assert_allclose(st_.pooled_diagonal(), np.diag(pooled), rtol=RTOL, atol=atol_s)
    grand = np.average(X, axis=0, weights=w)
    np.testing.assert_allclose(st_.grand_mean(), grand, rtol=RTOL, atol=1e-9 * M)
    # np.var of all X (weighted), divided by the total weight
    variance = np.average((X - grand) ** 2, axis=0, weights=w)
    if w is None:
        np.testing.assert_allclose(variance, np.var(X, axis=0), rtol=1e-9, atol=1e-9 * M**2)
    np.testing.assert_allclose(st_.total_variance(), variance, rtol=RTOL, atol=1e-9 * M**2)


@pytest.mark.parametrize("kind", ["tied", "diag", "full", "mean"])
@pytest.mark.parametrize("offset", [0.0, 1e6], ids=["centred", "offset"])
def test_compiled_passes_equal_the_numpy_passes(kind, offset):
    """A float64 X with contiguous rows is read by the compiled loops (class sums beside the syrk,
    naive Bayes' moments, the full scatter's gathered blocks); a Fortran-ordered copy takes the NumPy
    passes: the same statistics, with several blocks per class and weights (the offset makes the
    cancellation fallback run)."""
    rng = np.random.default_rng(5)
    n = 9000
    X = rng.normal(size=(n, 4)) * [1.0, 3.0, 0.5, 2.0] + offset
    y = rng.integers(0, 2, n)
    w = rng.uniform(0.5, 2.0, n)
    # COMPILED_MIN 0: the compiled loops read this small X too (they start at 2 MiB)
    with mock.patch.object(stats_module, "_BLOCK", 1000), \
            mock.patch.object(stats_module, "COMPILED_MIN", 0):
        a = ClassStats.from_batch(X, y, np.arange(2), w, kind=kind, moments=kind == "full")
        b = ClassStats.from_batch(np.asfortranarray(X), y, np.arange(2), w, kind=kind,
                                  moments=kind == "full")
    np.testing.assert_allclose(a.means, b.means, rtol=1e-14, atol=1e-13)
    if kind != "mean":
        np.testing.assert_allclose(a.scatter, b.scatter, rtol=1e-9 if offset else 1e-12,
                                   atol=1e-9 * n)
    if kind == "full":
        np.testing.assert_allclose(a.fourth, b.fourth, rtol=1e-9)
        np.testing.assert_allclose(a.third, b.third, rtol=1e-9, atol=1e-6 * n)
