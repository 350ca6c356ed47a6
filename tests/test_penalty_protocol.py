"""The penalty protocol (linclass.linear.fitting.choice): every entry of the table has it, and the
fit needs nothing but it, so that a new penalty is one class plus one table entry."""

from __future__ import annotations

import numpy as np
import pytest

from linclass import LogisticRegression
from linclass.linear.fitting.fit import FitOptions, LogisticProblem, fit_logistic
from linclass.linear.fitting.records import inference_record
from linclass.linear.penalties.elastic_net import ElasticNet
from linclass.linear.fitting.choice import PENALTIES, make_penalty
from linclass.linear.fitting.liblinear import with_penalised_intercept

ATTRIBUTES = ("name", "kind", "smooth", "sparse", "solvers", "in_memory", "l2", "C", "l1_ratio",
              "final_step", "certifiable", "score")
METHODS = ("check", "value")
OWN_STAGES = ("objective", "start", "coefficients", "finish")


def data(K=2, n=200, d=4, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    X = rng.normal(size=(n, d)) + 0.7 * rng.normal(size=(K, d))[y]
    return X, y


@pytest.mark.parametrize("name", list(PENALTIES))
def test_every_table_entry_has_the_protocol(name):
    penalty = make_penalty(name, 0.5, 0.5 if name == "elasticnet" else None)
    for attribute in ATTRIBUTES:
        assert hasattr(penalty, attribute), attribute
    for method in METHODS:
        assert callable(getattr(penalty, method)), method
    # a penalty on the coefficients is a leaf: the fit builds its objective; Firth's brings its own
    assert all(hasattr(penalty, stage) for stage in OWN_STAGES) == (name == "firth")
    assert set(penalty.solvers) <= {"newton", "bohning", "lbfgs", "sgd", "cd"}
    assert penalty.smooth != penalty.sparse or penalty.name == "firth"
    assert LogisticRegression(penalty=name).get_params()["penalty"] == name


def test_liblinear_entry_has_the_protocol():
    penalty = with_penalised_intercept(make_penalty("l2", 1.0, None), 1.0)
    for attribute in ATTRIBUTES:
        assert hasattr(penalty, attribute), attribute
    for method in METHODS + OWN_STAGES:
        assert callable(getattr(penalty, method)), method


class HalfRidge:
    """A penalty written against the protocol alone: the ridge penalty at twice C, delegating its
    mathematics to the elastic net (the shape a new penalty module takes: no objective, start or
    record of its own)."""

    name = kind = "halfridge"
    smooth, sparse, in_memory, final_step, certifiable = True, False, False, True, False
    score = "gradient"
    solvers = ("newton", "bohning", "lbfgs", "sgd")
    l1_ratio = 0.0

    def __init__(self, C):
        self.inner = ElasticNet(2.0 * C, 0.0)
        self.C, self.l2 = self.inner.C, self.inner.l2

    def value(self, W):
        return self.inner.value(W)

    def check(self, problem):
        pass


@pytest.mark.parametrize("K", [2, 3])
def test_the_fit_runs_a_penalty_it_has_never_seen(K):
    X, y = data(K)
    problem = LogisticProblem(X=X, y=y, classes=np.arange(K), weight=None)
    fit = fit_logistic(problem, FitOptions(penalty=HalfRidge(0.25), solver="newton", tol=1e-10))
    reference = LogisticRegression(C=0.5, solver="newton", tol=1e-10).fit(X, y)
    np.testing.assert_allclose(fit.coef, reference.coef_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(fit.intercept, reference.intercept_, rtol=1e-8, atol=1e-10)
    assert fit.converged and fit.solver == "newton"
    assert inference_record(fit.inference, fit.log_likelihood).log_likelihood == pytest.approx(
        reference.log_likelihood_, rel=1e-10)
    with pytest.raises(ValueError, match="is minimised by solver"):
        fit_logistic(problem, FitOptions(penalty=HalfRidge(0.25), solver="cd"))
