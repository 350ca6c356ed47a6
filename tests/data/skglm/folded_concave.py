"""Reference fits of the folded concave penalties by skglm (0.5), for tests/test_folded_concave.py.

Run with skglm installed (``pip install skglm``): ``python tests/data/skglm/folded_concave.py``
writes ``folded_concave.json`` beside it.  Data: scikit-learn's breast cancer, standardised
(StandardScaler); objective :math:`\\frac1n\\sum_i\\log(1 + e^{-y_is_i}) + \\sum_j\\rho(|w_j|;
\\lambda, \\gamma)`, intercept unpenalised; AndersonCD from zero, tol 1e-10.
"""

import json
import os

import numpy as np
import skglm
from skglm.datafits import Logistic
from skglm.penalties import MCPenalty, SCAD
from skglm.solvers import AndersonCD
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

X, y = load_breast_cancer(return_X_y=True)
X = StandardScaler().fit_transform(X)
ys = 2.0 * y - 1.0
out = {"skglm": skglm.__version__, "fits": []}
for name, make, gamma in (("mcp", MCPenalty, 3.0), ("scad", SCAD, 3.7)):
    for lam in (0.05, 0.02, 0.01):
        penalty = make(alpha=lam, gamma=gamma)
        solver = AndersonCD(fit_intercept=True, tol=1e-10, max_iter=10_000, max_epochs=100_000)
        w = solver.solve(X, ys, Logistic(), penalty)[0]
        coef, intercept = w[:-1], w[-1]
        s = X @ coef + intercept
        value = float(np.mean(np.logaddexp(0.0, -ys * s)) + penalty.value(coef))
        out["fits"].append({"penalty": name, "lambda": lam, "gamma": gamma, "objective": value,
                            "coef": coef.tolist(), "intercept": float(intercept)})
        print(name, lam, value, np.count_nonzero(coef))
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "folded_concave.json")
with open(path + ".tmp", "w") as f:
    json.dump(out, f, indent=1)
os.replace(path + ".tmp", path)
