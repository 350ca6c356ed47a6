"""The compiled single-read passes against the NumPy expressions they replace: the column magnitudes
of check_magnitude, the two-class loss-and-gradient pass, and the scaled rows of the two-class
Hessian."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from linclass.core.validation import check_magnitude
from linclass.core.magnitude_kernel import column_magnitude, sparse_column_magnitude
from linclass.linear.compiled.sample_terms import binary_pass
from linclass.linear.logistic.curvature import CurvatureSum
from linclass.linear.logistic.objective import LinearObjective


@pytest.mark.parametrize("shape", [(1, 1), (7, 3), (3 * 4096 + 5, 90), (2000, 600)])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_column_magnitude_is_the_largest_absolute_value(shape, order, dtype):
    rng = np.random.default_rng(sum(shape))
    X = np.asarray(rng.standard_normal(shape) * np.logspace(-3, 3, shape[1]), dtype=dtype, order=order)
    magnitude, sums = column_magnitude(X)
    np.testing.assert_array_equal(magnitude, np.abs(X).max(axis=0).astype(np.float64))
    np.testing.assert_allclose(sums, X.astype(np.float64).sum(axis=0), rtol=1e-12,
                               atol=1e-12 * np.abs(X).sum(axis=0).max())
    for bad in (np.nan, np.inf, -np.inf):
        Y = X.copy(order=order)
        Y[shape[0] // 2, shape[1] - 1] = bad
        magnitude, sums = column_magnitude(Y)
        assert not np.isfinite(sums[-1])
        if not np.isnan(bad):
            assert magnitude[-1] == np.inf


def test_column_magnitude_over_row_chunks(monkeypatch):
    import linclass.core.magnitude_kernel as module

    monkeypatch.setattr(module, "row_chunks",
                        lambda n, d, b: [slice(0, n // 3), slice(n // 3, n // 2), slice(n // 2, n)])
    rng = np.random.default_rng(4)
    X = rng.standard_normal((999, 13)) * 5
    np.testing.assert_array_equal(column_magnitude(X)[0], np.abs(X).max(axis=0))
    np.testing.assert_allclose(column_magnitude(X)[1], X.sum(axis=0), rtol=1e-12, atol=1e-12)
    X[998, 0] = np.nan
    assert np.isnan(column_magnitude(X)[1][0])


def test_column_magnitude_of_a_strided_view():
    X = np.random.default_rng(0).standard_normal((50, 20))[::2, ::3]
    np.testing.assert_array_equal(column_magnitude(X)[0], np.abs(X).max(axis=0))


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sparse_column_magnitude_reads_the_stored_entries(fmt, dtype):
    rng = np.random.default_rng(7)
    X = sp.random(300, 40, density=0.05, random_state=rng, format=fmt, dtype=dtype)
    X.data = (X.data - 0.5) * np.logspace(-2, 2, X.data.size).astype(dtype)
    X = (X @ sp.diags((np.arange(40) != 3).astype(dtype))).asformat(fmt)  # an empty column
    X.eliminate_zeros()
    assert X.getnnz(axis=0)[3] == 0 and X.dtype == dtype
    magnitude, sums = sparse_column_magnitude(X)
    dense = X.toarray().astype(np.float64)
    np.testing.assert_array_equal(magnitude, np.abs(dense).max(axis=0))
    np.testing.assert_allclose(sums, dense.sum(axis=0), rtol=1e-12, atol=1e-12)
    for bad in (np.nan, np.inf, -np.inf):
        Y = X.copy()
        Y.data[-1] = bad
        magnitude, sums = sparse_column_magnitude(Y)
        assert not np.all(np.isfinite(sums))
        with pytest.raises(ValueError, match="NaN" if np.isnan(bad) else "infinity|inf"):
            check_magnitude(object(), Y)
    assert sparse_column_magnitude(X.tocoo()) is None
    assert sparse_column_magnitude(X.astype(np.int64)) is None


def test_check_magnitude_of_sparse_x_names_its_columns():
    X = sp.csr_matrix(np.where(np.arange(5) == 1, 1e-160, np.ones((20, 5))))
    with pytest.raises(ValueError, match=r"too small.*\[1\]"):
        check_magnitude(object(), X)
    X = sp.csc_matrix(np.where(np.arange(5) == 4, 1e160, np.ones((20, 5))))
    with pytest.raises(ValueError, match="too large"):
        check_magnitude(object(), X)
    assert check_magnitude(object(), sp.csr_matrix(np.ones((20, 5)))) is None


def test_check_magnitude_names_nan_and_overflow():
    X = np.ones((30, 4))
    X[5, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        check_magnitude(object(), X)
    X[5, 2] = 1e160
    with pytest.raises(ValueError, match="too large"):
        check_magnitude(object(), X)
    X[5, 2] = 1e-160
    with pytest.raises(ValueError, match="too small"):
        check_magnitude(object(), np.where(np.arange(4) == 2, 1e-160, X))


def _reference(X, coef, b, y, w, shift):
    s = X @ coef + b + (0 if shift.size == 0 else shift)
    mu = 1 / (1 + np.exp(-s))
    weights = np.ones(len(y)) if w.size == 0 else w
    loss = np.sum(weights * (np.logaddexp(0, s) - y * s))
    r = weights * (mu - y)
    own = np.where(y == 1, mu, 1 - mu)
    return loss, X.T @ r, r.sum(), int(np.sum((weights > 0) & (own > 1 - 1e-12)))


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 3000), d=st.integers(1, 40), weighted=st.booleans(),
       shifted=st.booleans(), seed=st.integers(0, 2**16))
def test_binary_pass_equals_the_products_it_fuses(n, d, weighted, shifted, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * 2 + 1
    coef, b = rng.standard_normal(d) * 0.5, float(rng.standard_normal())
    y = (rng.random(n) < 0.4).astype(np.float64)
    w = rng.random(n) * 3 if weighted else np.empty(0)
    shift = rng.standard_normal(n) if shifted else np.empty(0)
    loss, g, rsum, perfect = binary_pass(X, coef, b, y, w, shift, 1e-12)
    ref = _reference(X, coef, b, y, w, shift)
    assert loss == pytest.approx(ref[0], rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(g, ref[1], rtol=1e-11, atol=1e-11 * max(1.0, np.abs(ref[1]).max()))
    assert rsum == pytest.approx(ref[2], rel=1e-11, abs=1e-11 * n)
    assert perfect == ref[3]


@pytest.mark.parametrize("curvature", [False, True])
def test_row_chunks_on_threads_do_not_change_the_result(curvature, monkeypatch):
    """A large X's row chunks go to worker threads; their sums are added in chunk order, so one
    thread and two give the same bits (and the chunked sums equal one pass to rounding)."""
    from threadpoolctl import threadpool_limits

    import linclass.linear.logistic.row_passes as module

    def five_chunks(n, d, stat_bytes):  # small chunks, as a large X would be cut
        bounds = np.linspace(0, n, 6).astype(int)
        return [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:])]

    monkeypatch.setattr(module, "row_chunks", five_chunks)
    rng = np.random.default_rng(3)
    n, d = 70_000, 20
    X = rng.standard_normal((n, d)) + 2
    y = (rng.random(n) < 0.5).astype(np.int64)
    theta = rng.standard_normal((d + 1, 1)) * 0.3
    results = []
    for threads in (1, 2):
        with threadpool_limits(threads, user_api="blas"):
            objective = LinearObjective(X, y, 2)
            value, XtR, rsum, H, _ = objective._evaluate(theta, np.float64 if curvature else None)
            results.append((value, XtR, H))
    assert results[0][0] == results[1][0]
    np.testing.assert_array_equal(results[0][1], results[1][1])
    if curvature:
        np.testing.assert_array_equal(results[0][2], results[1][2])
    blocked = LinearObjective(X, y, 2)
    blocked._reads_once = lambda: False
    value, XtR, _, H, _ = blocked._evaluate(theta, np.float64 if curvature else None)
    assert results[0][0] == pytest.approx(value, rel=1e-13)
    np.testing.assert_allclose(results[0][1], XtR, rtol=1e-10, atol=1e-10)
    if curvature:
        np.testing.assert_allclose(results[0][2], H, rtol=1e-12, atol=1e-12 * np.abs(H).max())


def test_binary_pass_counts_rows_fitted_with_probability_one():
    X = np.array([[40.0], [-40.0], [0.1], [50.0]])
    y = np.array([1.0, 0.0, 1.0, 1.0])
    w = np.array([1.0, 1.0, 1.0, 0.0])  # a row without weight is not counted
    assert binary_pass(X, np.ones(1), 0.0, y, w, np.empty(0), 1e-12)[3] == 2


def test_objective_evaluation_is_the_same_by_either_pass():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((5000, 12)) + 4
    y = (rng.random(5000) < 0.3).astype(np.int64)
    w = rng.random(5000)
    for sw in (None, w):
        fused = LinearObjective(X, y, 2, sw)
        assert fused._reads_once()
        blocked = LinearObjective(X, y, 2, sw)
        blocked._reads_once = lambda: False
        theta = rng.standard_normal(fused.shape) * 0.2
        (f1, g1), (f2, g2) = fused.value_gradient(theta), blocked.value_gradient(theta)
        assert f1 == pytest.approx(f2, rel=1e-13)
        np.testing.assert_allclose(g1, g2, rtol=1e-10, atol=1e-14)
    assert not LinearObjective(np.asfortranarray(X), y, 2)._reads_once()
    # a float32 X is read as it is, its products formed in float64: float64 X's answer to the
    # rounding of X's values, far closer than the float32 products of the blocked pass
    X32 = X.astype(np.float32)
    fused = LinearObjective(X32, y, 2)
    exact = LinearObjective(X32.astype(np.float64), y, 2, offset=fused.offset)
    assert fused._reads_once() and fused.products == "float64"
    theta = rng.standard_normal(fused.shape) * 0.2
    (f1, g1), (f2, g2) = fused.value_gradient(theta), exact.value_gradient(theta)
    assert f1 == pytest.approx(f2, rel=1e-12)
    np.testing.assert_allclose(g1, g2, rtol=1e-9, atol=1e-12)
    assert not LinearObjective(X, rng.integers(0, 3, 5000), 3)._reads_once()


@pytest.mark.parametrize("intercept", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_two_class_curvature_sum_is_the_weighted_gram(intercept, dtype):
    rng = np.random.default_rng(7)
    X = rng.standard_normal((3000, 9)) * 3 + 10
    c = rng.random(3000) * 0.25
    m = X.mean(axis=0)
    low = dtype == np.float32
    acc = CurvatureSum(9, 1, m, intercept, dtype)
    for start in range(0, 3000, 700):  # blocks of several sizes through one buffer
        acc.add(X[start:start + 700], c[start:start + 700])
    A = np.c_[X - m, np.ones(3000)] if intercept else X - m
    expected = A.T @ (A * c[:, None])
    np.testing.assert_allclose(acc.total(), expected, rtol=1e-6 if low else 1e-12,
                               atol=(1e-6 if low else 1e-12) * np.abs(expected).max())
    sparse = CurvatureSum(9, 1, m, intercept, dtype)
    sparse.add(sp.csr_matrix(X), c)
    np.testing.assert_allclose(sparse.total(), acc.total(), rtol=1e-6 if low else 1e-12,
                               atol=(1e-6 if low else 1e-12) * np.abs(expected).max())


@pytest.mark.parametrize("intercept", [True, False])
@pytest.mark.parametrize("weighted", [True, False])
def test_hessian_is_the_same_by_either_pass(intercept, weighted):
    """The two-class Hessian pass (compiled scaled rows, block by block) against NumPy's blocks,
    also with score offsets and float32 products."""
    rng = np.random.default_rng(11)
    n = 9000
    X = rng.standard_normal((n, 15)) * 2 + 6
    y = (rng.random(n) < 0.35).astype(np.int64)
    w = rng.random(n) * 2 if weighted else None
    shift = rng.standard_normal((n, 1)) * 0.3
    for score_offset in (None, shift):
        objectives = [LinearObjective(X, y, 2, w, fit_intercept=intercept, score_offset=score_offset)
                      for _ in range(2)]
        objectives[1]._reads_once = lambda: False
        theta = rng.standard_normal(objectives[0].shape) * 0.1
        for products in (np.float64, np.float32):
            for o in objectives:  # a step's curvature with these products
                o.step_products = np.dtype(products)
            H1, H2 = (o.step_hessian(theta) for o in objectives)
            tol = 1e-6 if products == np.float32 else 1e-13
            np.testing.assert_allclose(H1, H2, rtol=tol, atol=tol * np.abs(H2).max())
            (f1, g1), (f2, g2) = (o.value_gradient(theta) for o in objectives)
            assert f1 == pytest.approx(f2, rel=1e-13)
            np.testing.assert_allclose(g1, g2, rtol=1e-10, atol=1e-13)


def _penalised_objective(model, X, y, C):
    s = X @ model.coef_.ravel() + model.intercept_[0]
    return float(np.sum(np.logaddexp(0.0, np.where(y == 1, -s, s)))
                 + 0.5 * np.sum(model.coef_ ** 2) / C)


def _real_binary(name):
    from sklearn.datasets import load_breast_cancer, load_digits, load_wine

    if name == "breast_cancer":  # raw: features from 1e-3 to 4e3
        return load_breast_cancer(return_X_y=True)
    if name == "wine":
        X, y = load_wine(return_X_y=True)
        return X, (y == 0).astype(np.int64)
    X, y = load_digits(return_X_y=True)
    return X, (y >= 5).astype(np.int64)


@pytest.mark.parametrize("name", ["breast_cancer", "wine", "digits"])
@pytest.mark.parametrize("C", [1e-2, 1e4])
def test_real_data_fits_reach_the_best_objective_by_either_pass(name, C, monkeypatch):
    """The compiled passes on real data at both ends of the penalty: L-BFGS and Newton through
    them reach the lowest penalised objective that either pass (or scikit-learn's lbfgs) finds."""
    from sklearn.linear_model import LogisticRegression as SkLR

    from linclass import LogisticRegression

    X, y = _real_binary(name)
    found = {}
    for solver in ("lbfgs", "newton"):
        found[f"fused {solver}"] = LogisticRegression(C=C, solver=solver, tol=1e-10,
                                                      max_iter=2000).fit(X, y)
    with monkeypatch.context() as patch:
        patch.setattr(LinearObjective, "_reads_once", lambda self: False)
        found["blocked newton"] = LogisticRegression(C=C, solver="newton", tol=1e-10,
                                                     max_iter=2000).fit(X, y)
    found["scikit-learn"] = SkLR(C=C, tol=1e-12, max_iter=100_000).fit(X, y)
    values = {k: _penalised_objective(m, X, y, C) for k, m in found.items()}
    best = min(values.values())
    for key in ("fused lbfgs", "fused newton"):
        assert values[key] - best <= 1e-9 * abs(best), (key, values)
