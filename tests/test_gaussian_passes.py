"""The Gaussian models' passes over a large float64 X (:mod:`linclass.generative.scatter_passes`):
each block's rows grouped by class in the cache and accumulated by BLAS syrk, chunks' raw sums added
about common centres, and QDA's whitening from LAPACK's triangular inverse, against the definitions
and against scikit-learn."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as SkLDA
from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis as SkQDA

import linclass
from linclass.core import threads as core_threads
from linclass.generative import gaussian, scatter_passes
from linclass.generative.class_stats import ClassStats
from linclass.generative.stats_kernels import group_scaled_rows


def _data(n, d, k, seed, offset=0.0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    X = rng.normal(size=(n, d)) * np.linspace(0.5, 2.0, d) + y[:, None] + offset
    return np.ascontiguousarray(X), y, rng.uniform(0.0, 2.0, n)


def _definition(X, y, w, k):
    """Weighted means and per-class scatter, the obvious way."""
    w = np.ones(len(y)) if w is None else w
    means, scatter = [], []
    for c in range(k):
        Xc, wc = X[y == c], w[y == c]
        mu = wc @ Xc / wc.sum() if wc.sum() > 0 else np.zeros(X.shape[1])
        means.append(mu)
        scatter.append((Xc - mu).T @ ((Xc - mu) * wc[:, None]))
    return np.array(means), np.array(scatter)


def test_grouped_rows_are_a_stable_counting_sort():
    """The grouping loop puts each class's rows of the block, in row order, between the running
    totals it returns, centred and scaled, beside sqrt(w)."""
    X, y, w = _data(500, 4, 5, seed=1)
    y[y == 3] = 0  # a class absent from the block
    refs = np.arange(20.0).reshape(5, 4)
    out, ends = np.full((120, 5), np.nan), np.zeros(5, dtype=np.int64)
    group_scaled_rows(X, y.astype(np.intp), 100, 220, refs, w, out, ends)
    block = np.arange(100, 220)
    np.testing.assert_array_equal(ends, np.cumsum(np.bincount(y[block], minlength=5)))
    first = 0
    for c in range(5):
        rows = block[y[block] == c]
        s = np.sqrt(w[rows])
        np.testing.assert_array_equal(out[first : ends[c], :4], s[:, None] * (X[rows] - refs[c]))
        np.testing.assert_array_equal(out[first : ends[c], 4], s)
        first = ends[c]


@pytest.mark.parametrize("kind", ["tied", "full"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("offset", [0.0, 1e6], ids=["centred", "offset"])
def test_chunked_passes_match_the_definition(kind, weighted, offset):
    """Chunks of about 1,024 rows, in blocks of 64 rows (LDA) and 192 (QDA: 16 per class), so that
    each chunk has several blocks and a last short one; 12 classes, one with no rows in the first
    chunks, another weighing nothing; the offset sends both passes to their exactly centred
    second pass."""
    X, y, w = _data(9000, 6, 12, seed=2, offset=offset)
    y[:3000][y[:3000] == 7] = 6  # class 7 only from row 3,000 on
    w[y == 11] = 0.0
    w = w if weighted else None
    seen = []

    def spy(fn, chunks):
        seen.append(len(chunks))
        return core_threads.map_chunks(fn, chunks)

    with mock.patch.object(core_threads, "MIN_CHUNK_ROWS", 1024), \
            mock.patch.object(core_threads, "CHUNK_BYTES", 1), \
            mock.patch.object(scatter_passes, "_BLOCK", 256), \
            mock.patch.object(scatter_passes, "_CLASS_ROWS", 16), \
            mock.patch.object(scatter_passes, "COMPILED_MIN", 0), \
            mock.patch.object(scatter_passes, "map_chunks", spy), \
            mock.patch("linclass.generative.class_stats._FULL_CHUNK_ROWS", 64):
        stats = ClassStats.from_batch(X, y, np.arange(12), w, kind=kind)
    assert seen and min(seen) >= 4
    means, scatter = _definition(X, y, w, 12)
    present = np.arange(12) if w is None else np.arange(11)
    np.testing.assert_allclose(stats.means[present], means[present], rtol=1e-12, atol=1e-9)
    expected = scatter[present].sum(axis=0) if kind == "tied" else scatter[present]
    got = stats.scatter if kind == "tied" else stats.scatter[present]
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9 * 9000)
    if kind == "full" and w is not None:
        np.testing.assert_array_equal(stats.scatter[11], 0.0)


def test_inverse_transpose_of_a_cholesky_factor():
    rng = np.random.default_rng(4)
    A = rng.normal(size=(40, 30))
    L = np.linalg.cholesky(A.T @ A)
    H = gaussian._inverse_transpose(L)
    np.testing.assert_array_equal(np.tril(H, -1), 0.0)  # upper triangular, as the scores expect
    np.testing.assert_allclose(H.T @ L, np.eye(30), atol=1e-12)
    singular = L.copy()
    singular[3, 3] = 0.0
    assert gaussian._inverse_transpose(singular) is None


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_large_fits_match_scikit_learn(weighted):
    """LDA and QDA on an X that the compiled passes read in several chunks, with priors and
    weights: scikit-learn's means, covariances and probabilities (QDA's to rounding; LDA's
    probabilities through its 'lsqr' solve)."""
    X, y, w = _data(60_000, 8, 4, seed=5, offset=3.0)
    priors = np.array([0.1, 0.2, 0.3, 0.4])
    theirs = SkQDA(priors=priors, store_covariance=True)
    if weighted:  # scikit-learn's QDA takes no weights: integer weights, its rows repeated
        w = np.round(w * 2)
        theirs.fit(np.repeat(X, w.astype(int), axis=0), np.repeat(y, w.astype(int)))
    else:
        w = None
        theirs.fit(X, y)
    with mock.patch.object(core_threads, "CHUNK_BYTES", 2**20):  # chunks of 16,384 rows
        assert scatter_passes.compiled(X) and len(core_threads.row_chunks(*X.shape, 1)) > 1
        ours = linclass.QuadraticDiscriminantAnalysis(priors=priors, store_covariance=True).fit(
            X, y, sample_weight=w)
        lda = linclass.LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    np.testing.assert_allclose(ours.means_, theirs.means_, rtol=1e-12)
    for a, b in zip(ours.covariance_, theirs.covariance_):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(X[:2000]), theirs.predict_proba(X[:2000]),
                               rtol=1e-8, atol=1e-12)
    sk = SkLDA(solver="lsqr", store_covariance=True).fit(X, y)
    np.testing.assert_allclose(lda.means_, sk.means_, rtol=1e-12)
    np.testing.assert_allclose(lda.covariance_, sk.covariance_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(lda.predict_proba(X[:2000]), sk.predict_proba(X[:2000]),
                               rtol=1e-8, atol=1e-12)


def test_the_pass_update_off_the_main_thread_is_dsyrk_s_and_releases_the_gil():
    """Row chunks on worker threads use NumPy's product (SciPy's BLAS wrappers hold the GIL, and
    the chunks would take turns); its update is dsyrk's: the upper triangle only, in place."""
    import threading

    from scipy.linalg.blas import dsyrk

    rng = np.random.default_rng(3)
    A = rng.standard_normal((300, 7))
    expected = np.asfortranarray(np.triu(rng.standard_normal((7, 7))))
    got = expected.copy(order="F")
    dsyrk(1.0, A.T, 1.0, expected, 0, 0, 1)
    found = {}
    worker = threading.Thread(target=lambda: found.setdefault("syrk", scatter_passes._syrk()))
    worker.start()
    worker.join()
    assert found["syrk"] is scatter_passes._syrk_released
    assert scatter_passes._syrk() is dsyrk
    found["syrk"](1.0, A.T, 1.0, got, 0, 0, 1)
    np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-13)
    assert np.all(np.tril(got, -1) == np.tril(expected, -1))
