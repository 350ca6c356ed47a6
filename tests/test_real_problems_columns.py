"""Exact on real problems for the grouped penalty, penalty factors and bounds: on data nobody prepared
for the solver (standardised digits, the standard library's TF-IDF corpus in 13 classes, sparse,
wine, breast cancer), at both ends of a path (the first C past where every penalised coefficient
vanishes, and a hundred times weaker), the default fit and the path point must be within 1e-6 (relative)
of the best objective reached: its own fit continued to ``tol=1e-9``, and, where the penalty has
no groups, L-BFGS-B on the split formulation of tests/test_penalty_columns.py (small data)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from realdata import problem
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import LabelEncoder
from test_penalty_columns import _objective
from test_real_problems import continued

import linclass
from linclass.linear.fitting.path import c_at_null
from linclass.estimators.logistic.path import path_penalty
from linclass.linear.logistic.penalised import PenalisedObjective

TOLERANCE = 1e-6

CASES = {
    "grouped-digits_std": ("digits_std", {"penalty": "l1", "multinomial_penalty": "grouped"}),
    "grouped-text": ("text_multinomial", {"penalty": "l1", "multinomial_penalty": "grouped"}),
    "grouped-wine": ("wine", {"penalty": "elasticnet", "l1_ratio": 0.5,
                              "multinomial_penalty": "grouped"}),
    "factors-nonneg-text": ("text_binary", {"penalty": "l1", "lower_bounds": 0.0,
                                            "penalty_factor": "half"}),
    "box-breast_cancer": ("breast_cancer", {"penalty": "l1", "lower_bounds": -0.5,
                                             "upper_bounds": 0.5, "penalty_factor": "half"}),
}


def _settings(X, params):
    params = dict(params)
    if params.get("penalty_factor") == "half":  # every other feature at half the penalty
        factor = np.ones(X.shape[1])
        factor[::2] = 0.5
        params["penalty_factor"] = factor
    return params


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_both_ends_of_a_path_reach_the_optimum(case):
    name, raw = CASES[case]
    X, y = problem(name)
    if name == "breast_cancer":
        X = X / X.std(axis=0)
    params = _settings(X, raw)
    codes = LabelEncoder().fit_transform(y)
    K = int(codes.max()) + 1
    template = linclass.LogisticRegression(**params)
    objective = PenalisedObjective(X, codes, K, None, path_penalty(template))
    c0 = c_at_null(objective)
    Cs = np.array([1.5 * c0, 100.0 * c0])  # (glmnet's range when n < d: lambda.min.ratio 1e-2)
    path = linclass.logistic_path(X, y, Cs=Cs, **{k: v for k, v in params.items()})
    report = []
    for i, C in enumerate(Cs):
        at_C = objective.with_penalty(objective.penalty.at(C, objective.penalty.l1_ratio))

        def value(coef, intercept, at_C=at_C):
            return at_C.value(*at_C.internal(coef, intercept))

        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)  # the default fit must converge
            fit = linclass.LogisticRegression(C=C, **params).fit(X, y)
        tight = continued(fit, X, y, C=C, **params)
        values = {"fit": value(fit.coef_, fit.intercept_),
                  "tight fit": value(tight.coef_, tight.intercept_),
                  "path": value(path.coefs[i], path.intercepts[i])}
        if "multinomial_penalty" not in params and X.shape[1] <= 100:
            rho = 1.0 if params["penalty"] == "l1" else params["l1_ratio"]
            fun, bounds, size = _objective(np.asarray(X), codes, K, rho, C,
                                           params.get("penalty_factor"), params.get("lower_bounds"),
                                           params.get("upper_bounds"))
            ref = minimize(fun, np.zeros(size), jac=True, method="L-BFGS-B", bounds=bounds,
                           options={"maxiter": 50000, "maxfun": 100000, "ftol": 1e-15,
                                    "gtol": 1e-11})
            values["L-BFGS-B"] = ref.fun
        best = min(values.values())
        gaps = {k: (v - best) / abs(best) for k, v in values.items()}
        report.append(f"C={C:.3g}: " + ", ".join(f"{k} {g:.1e}" for k, g in gaps.items()))
        assert gaps["fit"] <= TOLERANCE and gaps["path"] <= TOLERANCE, "\n".join(report)
    assert path.converged.all(), path.violation
