"""The chunk-source protocol: which estimators fit from chunks (the registry's "chunks" capability is
exactly :class:`~linclass.sources.chunks.ChunkFittable`), and what ``fit_source`` / ``fit_chunked``
do with an earlier fit.  Runs without Dask: the source here is a list of in-memory chunks."""

from __future__ import annotations

import numpy as np
import pytest

import linclass as lc
from linclass import registry
from linclass.core.chunks import Chunk, combine_all
from linclass.sources.chunks import ChunkFittable, fit_chunked, supports_chunks


class ListSource:
    """A chunk source (:class:`linclass.core.chunks.ChunkSource`) over row blocks in memory."""

    def __init__(self, X, y, sizes, sample_weight=None):
        self.n_features = X.shape[1]
        self.feature_names = None
        edges = np.cumsum([0, *sizes])
        assert edges[-1] == X.shape[0]
        self.chunks = [
            Chunk(X[a:b], y[a:b], None if sample_weight is None else sample_weight[a:b], i, int(a))
            for i, (a, b) in enumerate(zip(edges[:-1], edges[1:]))
        ]

    def map_reduce(self, fn, combine, *args):
        return combine_all(combine, [fn(chunk, *args) for chunk in self.chunks])


def blobs(n=300, d=3, K=3, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    X = rng.normal(size=(n, d)) + 2.0 * y[:, None] * rng.normal(size=d)
    return X, y


# fit from chunks with some settings, not with their defaults (the capability is the default's)
CHUNKS_WITH_SETTINGS = {lc.KernelFisherDiscriminantAnalysis: {"approximation": "nystroem"}}


@pytest.mark.parametrize("entry", registry.ENTRIES, ids=lambda e: e.name)
def test_chunks_capability_is_exactly_the_protocol(entry):
    implements = issubclass(entry.cls, ChunkFittable)
    assert callable(getattr(entry.cls, "fit_source", None)) == implements
    assert entry.can("chunks") == supports_chunks(entry.make())
    assert entry.can("chunks") == (implements and entry.cls not in CHUNKS_WITH_SETTINGS)
    if entry.cls in CHUNKS_WITH_SETTINGS:
        assert supports_chunks(entry.make(**CHUNKS_WITH_SETTINGS[entry.cls]))


@pytest.mark.parametrize("entry", registry.entries("chunks"), ids=lambda e: e.name)
def test_fit_source_equals_fit(entry):
    X, y = blobs(seed=1)
    if entry.can("counts"):
        X = np.abs(np.round(X))
    params = {"tol": 1e-10} if entry.cls in (lc.LogisticRegression, lc.LogisticRegressionCV) else {}
    in_memory = entry.make(**params).fit(X, y)
    chunked = fit_chunked(entry.make(**params), ListSource(X, y, (37, 1, 200, 62)))
    np.testing.assert_array_equal(chunked.classes_, in_memory.classes_)
    np.testing.assert_allclose(chunked.predict_proba(X), in_memory.predict_proba(X), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("entry", [e for e in registry.ENTRIES if not e.can("chunks")],
                         ids=lambda e: e.name)
def test_fit_chunked_refuses_estimators_without_the_protocol(entry):
    X, y = blobs()
    with pytest.raises(TypeError, match="needs all rows in memory"):
        fit_chunked(entry.make(), ListSource(X, y, (150, 150)))


def test_fit_source_forgets_an_earlier_fit():
    X, y = blobs(K=4)
    # partial_fit state: the classes given on the first call must not carry over
    model = lc.GaussianNB().partial_fit(X, y, classes=[0, 1, 2, 3, 4])
    three = y < 3
    fit_chunked(model, ListSource(X[three], y[three], (three.sum(),)))
    np.testing.assert_array_equal(model.classes_, [0, 1, 2])
    assert model._partial_classes is None
    # attributes set only by the earlier fit's settings are gone
    lda = lc.LinearDiscriminantAnalysis(shrinkage=0.1).fit(X, y)
    assert hasattr(lda, "shrinkage_")
    lda.set_params(shrinkage=None)
    lda.fit_source(ListSource(X, y, (100, 200)))
    assert not hasattr(lda, "shrinkage_")
    # feature names of an earlier in-memory fit are not kept by a source without names
    pd = pytest.importorskip("pandas")
    logistic = lc.LogisticRegression().fit(pd.DataFrame(X, columns=["a", "b", "c"]), y)
    logistic.fit_source(ListSource(X, y, (300,)))
    assert not hasattr(logistic, "feature_names_in_")
    assert not hasattr(logistic, "_partial_classes")


def test_fit_source_checks_parameters_before_forgetting_the_fit():
    X, y = blobs()
    model = lc.QuadraticDiscriminantAnalysis().fit(X, y)
    coef = model.means_.copy()
    model.set_params(reg_param=2.0)
    with pytest.raises(ValueError, match="reg_param"):
        model.fit_source(ListSource(X, y, (300,)))
    np.testing.assert_array_equal(model.means_, coef)
