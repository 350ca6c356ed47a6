"""Every solver on every design: dense X, sparse X (CSR) and X in chunks.

``linclass.linear.fitting.choice.SOLVER_DESIGNS`` says which solver x design pairs exist; each one
must reach the optimum that the dense Newton fit reaches (the same objective, through the same
:func:`~linclass.linear.fitting.fit.fit_logistic`), and each pair that does not exist must be
refused with a message naming what works.  Two classes and three (softmax), the L2 penalty (every
solver) and the L1 penalty ('cd' only).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from linclass import LogisticRegression
from linclass.core.chunks import Chunk, combine_all
from linclass.linear.fitting.choice import LINCLASS_SOLVERS, SOLVER_DESIGNS

DESIGNS = ("dense", "sparse", "chunked")
SOLVERS = [s for s in LINCLASS_SOLVERS if s != "auto"]


class RowBlocks:
    """A chunk source over row blocks held in memory (:class:`linclass.core.chunks.ChunkSource`)."""

    def __init__(self, X, y, size=70):
        self.n_features, self.feature_names = X.shape[1], None
        self.chunks = [Chunk(X[a:a + size], y[a:a + size], None, i, a)
                       for i, a in enumerate(range(0, X.shape[0], size))]

    def map_reduce(self, fn, combine, *args):
        return combine_all(combine, [fn(chunk, *args) for chunk in self.chunks])


def problem(K):
    rng = np.random.default_rng(K)
    n, d = 300, 6
    y = rng.integers(0, K, n)
    X = rng.normal(size=(n, d)) + 0.8 * rng.normal(size=(K, d))[y]
    X[rng.random((n, d)) < 0.3] = 0.0  # zeros, so that the CSR matrix is really sparse
    return X, y


def fit(solver, design, X, y, **params):
    settings = {"tol": 1e-10, "max_iter": 5000 if solver == "sgd" else 500}
    if solver == "sgd":
        settings.update(tol=1e-9, random_state=0, batch_size=32)
    model = LogisticRegression(solver=solver, **{**settings, **params})
    if design == "dense":
        return model.fit(X, y)
    if design == "sparse":
        return model.fit(sp.csr_matrix(X), y)
    return model.fit_source(RowBlocks(X, y))


def test_the_table_names_every_solver_and_design():
    assert set(SOLVER_DESIGNS) == set(SOLVERS)
    assert all(set(designs) <= set(DESIGNS) for designs in SOLVER_DESIGNS.values())
    # a solver that runs on chunks runs in memory too; every solver runs on dense and sparse X
    assert all({"dense", "sparse"} <= set(designs) for designs in SOLVER_DESIGNS.values())


@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("solver", SOLVERS)
def test_solver_on_design_reaches_the_dense_newton_optimum(solver, design, K):
    X, y = problem(K)
    reference = fit("newton", "dense", X, y, C=0.5)
    if design not in SOLVER_DESIGNS[solver]:
        with pytest.raises(ValueError, match="rows in memory"):
            fit(solver, design, X, y, C=0.5)
        return
    model = fit(solver, design, X, y, C=0.5)
    assert model.converged_
    tol = 2e-4 if solver == "sgd" else 1e-7
    np.testing.assert_allclose(model.predict_proba(X), reference.predict_proba(X), atol=tol)
    np.testing.assert_allclose(model.coef_, reference.coef_, atol=50 * tol)
    assert model.n_iter_.shape == (1,) and model.n_iter_.dtype == np.int32


@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("design", DESIGNS)
def test_l1_runs_on_the_designs_of_cd_only(design, K):
    X, y = problem(K)
    if design not in SOLVER_DESIGNS["cd"]:
        with pytest.raises(ValueError, match="rows in memory"):
            fit("cd", design, X, y, penalty="l1", C=0.3)
        return
    model = fit("cd", design, X, y, penalty="l1", C=0.3)
    dense = fit("cd", "dense", X, y, penalty="l1", C=0.3)
    np.testing.assert_allclose(model.predict_proba(X), dense.predict_proba(X), atol=1e-8)
    assert np.any(model.coef_ == 0.0)  # the penalty selects
    for smooth in ("newton", "lbfgs", "bohning", "sgd"):
        with pytest.raises(ValueError, match="minimises smooth objectives only|rows in memory"):
            fit(smooth, design, X, y, penalty="l1", C=0.3)
