"""A small problem's two-class fit (L1, elastic net, and the default L2) loads none of numba's
compiled loops (:data:`linclass.core.lazy.COMPILED_MIN`): a process's first fit of breast cancer
then does not wait for numba to load them, and it reaches the optimum the compiled path reaches."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from linclass import LogisticRegression
from linclass.core import validation
from linclass.core.lazy import COMPILED_MIN
from linclass.linear import compiled
from linclass.linear.logistic import design as design_module
from linclass.linear.solvers.small_model import _descend_elastic

_PROBE = """
import sys
from sklearn.datasets import load_breast_cancer
from linclass import LogisticRegression
X, y = load_breast_cancer(return_X_y=True)
for C in (0.1, 1.0, 10.0):
    LogisticRegression(penalty="l1", C=C).fit(X, y)
LogisticRegression(penalty="elasticnet", l1_ratio=0.5).fit(X, y)
LogisticRegression().fit(X, y)  # the default: an unpenalised-intercept L2 fit by Newton
LogisticRegression(C=100.0).fit(X, y, sample_weight=1.0 + (y == 1))
print(",".join(m for m in sys.modules if m.startswith("linclass.linear.compiled.")
               or m == "linclass.core.magnitude_kernel"))
"""


def test_a_small_penalised_fit_loads_no_compiled_loop():
    done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == ""


def _fit(X, y, weights, compiled_loops: bool, **params):
    """A fit at tol 1e-8 with the compiled loops (COMPILED_MIN 0: every X is large) or without."""
    with pytest.MonkeyPatch.context() as mp:
        if compiled_loops:
            mp.setattr(design_module, "COMPILED_MIN", 0)
            mp.setattr(validation, "COMPILED_MIN", 0)
        return LogisticRegression(tol=1e-8, **params).fit(X, y, sample_weight=weights)


@pytest.mark.parametrize("scaled", [False, True])
@pytest.mark.parametrize("params", [{"penalty": "l1", "C": 0.1}, {"penalty": "l1", "C": 1.0},
                                    {"penalty": "l1", "C": 10.0},
                                    {"penalty": "elasticnet", "l1_ratio": 0.5, "C": 1.0}])
def test_the_numpy_path_reaches_the_compiled_paths_optimum(scaled, params):
    X, y = load_breast_cancer(return_X_y=True)
    assert X.size < COMPILED_MIN
    if scaled:
        X = (X - X.mean(axis=0)) / X.std(axis=0)
    for weights in (None, np.random.default_rng(0).uniform(0.5, 2.0, y.size)):
        ours = _fit(X, y, weights, False, **params)
        theirs = _fit(X, y, weights, True, **params)
        # the same optimum: the objectives agree far below tol times the objective
        assert ours._inference.objective == pytest.approx(theirs._inference.objective, rel=1e-9)
        np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-4, atol=1e-6)
        np.testing.assert_array_equal(ours.coef_ != 0, theirs.coef_ != 0)


def test_the_python_descent_is_the_compiled_one():
    """The small model's coordinate descent in Python makes the compiled loop's updates in its
    order: the same step to the last bit, and the same passes."""
    rng = np.random.default_rng(0)
    for trial in range(60):
        q = int(rng.integers(1, 25))
        A = rng.standard_normal((q + int(rng.integers(-q + 1, 6)), q))
        Q = A.T @ A
        if trial % 5 == 0:  # a coordinate of no curvature
            Q[0, :] = Q[:, 0] = 0.0
        grad = rng.standard_normal(q) * 3.0
        w = rng.standard_normal(q) * (rng.random(q) < 0.5)
        l1 = np.full(q, rng.random() * 2.0)
        l2 = np.full(q, rng.random() * (trial % 2))
        table = np.vstack([l1, l2, np.full(q, -np.inf), np.full(q, np.inf)])
        ours, theirs = np.zeros(q), np.zeros(q)
        passes = _descend_elastic(Q, grad, w, ours, l1, l2, l2, 1e-9, 200)
        assert passes == compiled.cd_gram(Q, grad, w, theirs, None, table, l2, 1e-9, 200)
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("order", ["C", "F"])
def test_the_small_magnitude_check_is_the_compiled_pass(dtype, order):
    from linclass.core.magnitude_kernel import column_magnitude

    rng = np.random.default_rng(1)
    X = np.asarray(rng.normal(size=(300, 7)) * 10.0 ** rng.integers(-3, 4, 7), dtype=dtype,
                   order=order)
    sums = column_magnitude(X)[1]  # the compiled pass's column sums (the centre of a smooth fit)
    np.testing.assert_allclose(validation.check_magnitude("probe", X), sums, rtol=1e-12)
    X[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        validation.check_magnitude("probe", X)
    X[3, 2] = 1e300 if dtype == np.float64 else 1e38
    if dtype == np.float64:
        with pytest.raises(ValueError, match="too large"):
            validation.check_magnitude("probe", X)
