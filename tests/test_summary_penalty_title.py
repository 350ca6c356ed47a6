"""A summary never reads as the maximum-likelihood fit's when the fit is penalised: the title names
the penalty and C, the Method row says penalised, a note says what the standard errors mean."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine

import linclass


@pytest.mark.parametrize("params, title", [
    ({}, "L2-penalised logistic regression (C=1): log-odds"),
    ({"C": 0.5, "penalty": "elasticnet", "l1_ratio": 0.0}, "L2-penalised logistic regression (C=0.5)"),
    ({"penalty": None}, "Logistic regression: log-odds"),
    ({"C": np.inf}, "Logistic regression: log-odds"),
])
def test_the_title_names_the_penalty(params, title):
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, [0, 1, 4]] / X[:, [0, 1, 4]].std(axis=0)
    table = linclass.LogisticRegression(**params).fit(X, y).summary()
    assert table.title.startswith(title)
    penalised = "penalised" in title
    assert ("penalised" in table.method.lower()) == penalised
    assert any("not valid frequentist inference" in n for n in table.notes) == penalised
    assert title.split(":")[0] in str(table)


def test_softmax_title_names_the_penalty():
    X, y = load_wine(return_X_y=True)
    table = linclass.LogisticRegression(C=0.1).fit(X / X.std(axis=0), y).summary()
    assert table.title.startswith("L2-penalised softmax regression (C=0.1): log-odds")
