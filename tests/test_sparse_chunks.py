"""Dask arrays of scipy.sparse blocks: the discrete naive Bayes models (class counts and sums, one
sparse product per block) read them as they are and equal the in-memory sparse fit; every other
chunked fit refuses them with a message that says how to densify the blocks."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

import linclass as lc  # noqa: E402


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def counts(seed=0, n=360, d=40, K=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    rate = rng.gamma(0.5, 1.0, size=(K, d))
    X = sp.csr_matrix(rng.poisson(rate[y] * (rng.random((n, d)) < 0.2)).astype(float))
    return X, y, rng.uniform(0.5, 2.0, n)


def sparse_dask(X, rows=(100, 90, 110, 60)):
    return da.from_array(X, chunks=(rows, X.shape[1]), asarray=False)


@pytest.mark.parametrize("model", [lc.MultinomialNB, lc.BernoulliNB, lc.ComplementNB,
                                   lc.PoissonNB])
def test_naive_bayes_reads_sparse_blocks(model):
    X, y, w = counts()
    rows = (100, 90, 110, 60)
    a = model().fit(X, y, sample_weight=w)
    b = model().fit(sparse_dask(X, rows), da.from_array(y, chunks=(rows,)),
                    sample_weight=da.from_array(w, chunks=(rows,)))
    np.testing.assert_allclose(b.predict_proba(X), a.predict_proba(X), rtol=0, atol=1e-12)
    lazy = b.predict_proba(sparse_dask(X, rows))
    np.testing.assert_allclose(lazy.compute(), a.predict_proba(X), rtol=0, atol=1e-12)


def test_text_counts_from_the_standard_library():
    """Word counts (log(1 + count)) of standard-library docstrings, as a sparse Dask array."""
    from realdata import docstring_counts

    X, y = docstring_counts()
    a = lc.MultinomialNB(alpha=0.5).fit(X, y)
    n = X.shape[0]
    chunks = (n // 3, n // 3, n - 2 * (n // 3))
    b = lc.MultinomialNB(alpha=0.5).fit(da.from_array(X, chunks=(chunks, X.shape[1]),
                                                      asarray=False),
                                        da.from_array(y, chunks=(chunks,)))
    np.testing.assert_allclose(b.feature_log_prob_, a.feature_log_prob_, rtol=0, atol=1e-12)


@pytest.mark.parametrize("model", [lc.LinearDiscriminantAnalysis, lc.GaussianNB,
                                   lc.LogisticRegression])
def test_dense_only_fits_say_how_to_densify(model):
    X, y, _ = counts()
    with pytest.raises(ValueError, match=r"scipy.sparse matrix.*map_blocks\(lambda b: b.toarray"):
        model().fit(sparse_dask(X), da.from_array(y, chunks=((100, 90, 110, 60),)))


def test_nan_in_a_sparse_block_is_named():
    X, y, _ = counts()
    X = X.tolil()
    X[150, 3] = np.nan
    X = X.tocsr()
    with pytest.raises(ValueError, match=r"chunk 1 .*NaN"):
        lc.MultinomialNB().fit(sparse_dask(X), da.from_array(y, chunks=((100, 90, 110, 60),)))
