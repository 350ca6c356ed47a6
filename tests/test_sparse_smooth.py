"""Sparse X through the smooth logistic objective (the blocked pass of linear.objective): the value,
gradient and Hessian on CSR rows equal those on the dense rows, every smooth solver reaches the
dense fit, and L-BFGS with the bound's diagonal as its metric (more than DENSE_BOUND_MAX rows of
theta) reaches the optimum that coordinate descent finds for the same L2 objective."""

import numpy as np
import pytest
import scipy.sparse as sp

from linclass import LogisticRegression
from linclass.linear.logistic.objective import LinearObjective
from linclass.linear.logistic.layout import DENSE_BOUND_MAX
from test_penalised import sparse_problem


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_objective_terms_on_sparse_rows_equal_the_dense_ones(n_classes, fit_intercept):
    X, y = sparse_problem(n_classes=n_classes)
    w = np.random.default_rng(3).uniform(0.5, 2.0, size=y.size)
    dense = LinearObjective(X.toarray(), y, n_classes, w, l2=0.7, fit_intercept=fit_intercept)
    sparse = LinearObjective(X.tocsc(), y, n_classes, w, l2=0.7, fit_intercept=fit_intercept)
    assert sparse.sparse and sparse.X.format == "csr"  # CSC converted once: the blocks read rows
    theta = np.random.default_rng(4).normal(scale=0.3, size=dense.shape)
    f_d, g_d = dense.value_gradient(theta)
    f_s, g_s = sparse.value_gradient(theta)
    np.testing.assert_allclose(f_s, f_d, rtol=1e-13)
    np.testing.assert_allclose(g_s, g_d, rtol=1e-11, atol=1e-14)
    np.testing.assert_allclose(sparse.hessian(theta), dense.hessian(theta), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(sparse.gram, dense.gram, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(sparse.gram_diagonal(), np.diag(dense.gram), rtol=1e-10, atol=1e-10)
    rows = np.arange(0, y.size, 7)
    np.testing.assert_allclose(sparse.batch_gradient(theta, rows), dense.batch_gradient(theta, rows),
                               rtol=1e-11, atol=1e-14)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("solver", ["newton", "bohning", "lbfgs", "sgd"])
def test_every_smooth_solver_reaches_the_dense_fit(solver, n_classes):
    X, y = sparse_problem(n_classes=n_classes)
    kw = dict(C=0.5, solver=solver, tol=1e-9, max_iter=3000, random_state=0)
    dense = LogisticRegression(**kw).fit(X.toarray(), y)
    for fmt in ("csr", "csc"):
        fit = LogisticRegression(**kw).fit(X.asformat(fmt), y)
        np.testing.assert_allclose(fit.predict_proba(X), dense.predict_proba(X.toarray()), atol=1e-7)
        np.testing.assert_allclose(fit.coef_, dense.coef_, atol=1e-6)


def test_wide_sparse_lbfgs_uses_the_diagonal_metric_and_reaches_the_cd_optimum():
    rng = np.random.default_rng(5)
    n, d = 400, DENSE_BOUND_MAX + 500  # more rows of theta than a p x p metric is formed for
    X = sp.random(n, d, density=0.004, format="csr", random_state=5,
                  data_rvs=lambda k: rng.poisson(2.0, size=k) + 1.0)
    y = (X @ (rng.normal(size=d) * (rng.random(d) < 0.05)) + rng.logistic(size=n) > 0).astype(int)
    lbfgs = LogisticRegression(C=0.5, solver="lbfgs", tol=1e-8, max_iter=5000).fit(X, y)
    cd = LogisticRegression(C=0.5, solver="cd", tol=1e-10, max_iter=500).fit(X, y)
    assert lbfgs.converged_
    np.testing.assert_allclose(lbfgs.predict_proba(X), cd.predict_proba(X), atol=1e-6)
