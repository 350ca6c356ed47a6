"""Class statistics of a large X read in row chunks (:mod:`linclass.core.threads`) and the
compiled passes behind them: the same numbers as one pass over all rows, for any thread count, and
the certified shortcut of QDA's rank rule (:func:`linclass.generative.gaussian.full_form`)
giving the model of the eigenvalue route."""

from __future__ import annotations

from itertools import pairwise
from unittest import mock

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine
from threadpoolctl import threadpool_limits

import linclass
from linclass.core import threads as core_threads
from linclass.generative import class_stats, gaussian, scatter_passes
from linclass.generative.class_stats import ClassStats
from linclass.generative.stats_kernels import head_means

KINDS = [("tied", False), ("full", False), ("full", True)]
KIND_IDS = ["tied", "full", "full+moments"]


def _data(n=12_000, d=5, k=3, offset=0.0, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    X = rng.normal(size=(n, d)) * np.linspace(0.5, 3.0, d) + 2.0 * y[:, None] + offset
    return np.ascontiguousarray(X), y, rng.uniform(0.0, 2.0, n)


def _stats(X, y, w, kind, moments, chunked: bool, threads: int = 1):
    """Statistics with chunks of 2,048 rows (blocks of 512), so that a test-sized X is cut into
    several (``chunked``; else one pass).  The chunks are mapped by the statistics (fourth moments:
    each chunk's, merged) or by the passes (their raw sums, added), which map one chunk when X is
    read in one pass."""
    seen = []

    def spy(fn, chunks):
        seen.append(len(chunks))
        return core_threads.map_chunks(fn, chunks)

    with mock.patch.object(core_threads, "MIN_CHUNK_ROWS", 2048 if chunked else 10**9), \
            mock.patch.object(core_threads, "CHUNK_BYTES", 1), \
            mock.patch.object(class_stats, "_FULL_CHUNK_ROWS", 512), \
            mock.patch.object(scatter_passes, "_BLOCK", 512), \
            mock.patch.object(scatter_passes, "COMPILED_MIN", 0), \
            mock.patch.object(class_stats, "map_chunks", spy), \
            mock.patch.object(scatter_passes, "map_chunks", spy), \
            threadpool_limits(threads, user_api="blas"):
        stats = ClassStats.from_batch(X, y, np.arange(3), w, kind=kind, moments=moments)
    assert set(seen) == ({4} if chunked else {1} if seen else set())
    assert seen or not chunked
    return stats


def test_row_chunks_cover_the_rows_at_aligned_bounds():
    with mock.patch.object(core_threads, "CHUNK_BYTES", 8 * 100 * 40_000):
        chunks = core_threads.row_chunks(200_000, 100, 8 * 100 * 100, align=4096)
    assert len(chunks) == 8  # 5 chunks of 40,000 rows, made a multiple of 4 (even on 2 or 4 threads)
    assert max(c.stop - c.start for c in chunks) - min(c.stop - c.start for c in chunks) <= 4096
    assert chunks[0].start == 0 and chunks[-1].stop == 200_000
    assert all(a.stop == b.start for a, b in pairwise(chunks))
    assert all(c.start % 4096 == 0 for c in chunks)
    assert core_threads.row_chunks(30_000, 100, 800) == [slice(0, 30_000)]  # small X: one range
    assert len(core_threads.row_chunks(50_000, 100, 800)) == 2  # (3 chunks would leave a core idle)
    # statistics too large to hold one per chunk: fewer chunks
    assert len(core_threads.row_chunks(10**7, 10, core_threads.MAX_HELD_BYTES // 3)) == 2
    assert len(core_threads.row_chunks(10**7, 10, core_threads.MAX_HELD_BYTES // 7)) == 4


@pytest.mark.parametrize(("kind", "moments"), KINDS, ids=KIND_IDS)
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("offset", [0.0, 1e5], ids=["centred", "offset"])
def test_chunked_statistics_equal_one_pass(kind, moments, weighted, offset):
    """Chunks merged exactly (Chan, Golub & LeVeque) give one pass's statistics, and the same bits
    on one thread and on two (the chunks depend on X's shape only)."""
    X, y, w = _data(offset=offset)
    w = w if weighted else None
    one = _stats(X, y, w, kind, moments, chunked=False)
    serial = _stats(X, y, w, kind, moments, chunked=True, threads=1)
    threaded = _stats(X, y, w, kind, moments, chunked=True, threads=2)
    for a, b in zip(one.arrays(), serial.arrays()):
        np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-9 * np.max(np.abs(a)))
    np.testing.assert_allclose(serial.counts, one.counts, rtol=1e-13)
    np.testing.assert_array_equal(one.n_rows, serial.n_rows)
    for a, b in zip(serial.arrays(), threaded.arrays()):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("offset", [0.0, 1e6], ids=["centred", "offset"])
def test_scaled_pass_equals_the_numpy_pass(offset):
    """The full scatter's compiled pass (rows gathered, centred and scaled in one read; the sums from
    the syrk's last column) equals the NumPy pass of a Fortran-ordered copy, weighted, several
    blocks per class, and with the offset that sends it to its second, exactly centred pass."""
    X, y, w = _data(n=9000, d=4, offset=offset, seed=5)
    with mock.patch.object(scatter_passes, "_BLOCK", 1000), \
            mock.patch.object(scatter_passes, "COMPILED_MIN", 0):
        a = ClassStats.from_batch(X, y, np.arange(3), w, kind="full")
        b = ClassStats.from_batch(np.asfortranarray(X), y, np.arange(3), w, kind="full")
    np.testing.assert_allclose(a.means, b.means, rtol=1e-14, atol=1e-13)
    np.testing.assert_allclose(a.scatter, b.scatter, rtol=1e-10, atol=1e-10 * 9000)
    # against the definition
    for k in range(3):
        Xk, wk = X[y == k], w[y == k]
        mu = wk @ Xk / wk.sum()
        np.testing.assert_allclose(a.means[k], mu, rtol=1e-12, atol=1e-9)
        np.testing.assert_allclose(a.scatter[k], (Xk - mu).T @ ((Xk - mu) * wk[:, None]),
                                   rtol=1e-9, atol=1e-9 * 9000)


def test_head_means_are_the_first_rows_means():
    X, y, w = _data(n=500, d=3, seed=2)
    w[y == 2] = 0.0  # a class whose first rows weigh nothing: their plain mean
    target = np.array([10, 1000, 7])  # class 1 has fewer rows than asked: all of them
    refs = np.zeros((3, 3))
    head_means(X, y.astype(np.intp), w, target, refs)
    for k in range(3):
        rows = np.flatnonzero(y == k)[: target[k]]
        expected = X[rows].mean(axis=0) if k == 2 else w[rows] @ X[rows] / w[rows].sum()
        np.testing.assert_allclose(refs[k], expected, rtol=1e-13)


@pytest.mark.parametrize("loader", [load_wine, load_breast_cancer], ids=["wine", "breast_cancer"])
def test_certified_rank_gives_the_eigenvalue_routes_model(loader):
    """Where the norm bounds prove that no eigenvalue is floored (real data of full rank), QDA's
    model is bit for bit the one the eigenvalue route gives."""
    X, y = loader(return_X_y=True)
    fast = linclass.QuadraticDiscriminantAnalysis().fit(X, y)
    with mock.patch.object(gaussian, "_certified_full_rank", return_value=None):
        slow = linclass.QuadraticDiscriminantAnalysis().fit(X, y)
    with mock.patch.object(gaussian, "scaled_eigh", side_effect=AssertionError("eigh")):
        linclass.QuadraticDiscriminantAnalysis().fit(X, y)  # the certificate held: no eigenproblem
    for name in ("whiten", "offsets", "const", "rank"):
        np.testing.assert_array_equal(getattr(fast.model_, name), getattr(slow.model_, name))
    np.testing.assert_array_equal(fast.predict_proba(X), slow.predict_proba(X))


def test_certificate_declines_near_the_floor():
    """A class whose standardized covariance has an eigenvalue near ``tol`` times the largest is
    left to the eigenvalues (which floor it, with a warning), never certified."""
    rng = np.random.default_rng(3)
    n = 400
    z = rng.normal(size=(n, 3))
    X = np.column_stack([z, z[:, 0] + 1e-4 * rng.normal(size=n)])  # nearly collinear
    y = np.repeat([0, 1], n // 2)
    stats = ClassStats.from_batch(X, y, np.arange(2), kind="full")
    sigmas = stats.scatter / stats.counts[:, None, None]
    scale = np.sqrt(np.diagonal(sigmas, axis1=1, axis2=2).max(axis=0))
    assert gaussian._certified_full_rank(sigmas, np.arange(2), 1e-6, scale) is None
    assert gaussian._certified_full_rank(sigmas, np.arange(2), 1e-12, scale) is not None
    with pytest.warns(linclass.exceptions.SingularCovarianceWarning):
        linclass.GaussianDiscriminantAnalysis(covariance_type="full", tol=1e-6).fit(X, y)
