"""One naming of the classes: a softmax summary's equations and the marginal effects' table both
name a class by the response and its level ("PID=1"), as statsmodels' MNLogit names its equations
and its ``get_margeff`` its effects (statsmodels' anes96, PID in three groups)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from linclass import LogisticRegression

pd = pytest.importorskip("pandas")
sm = pytest.importorskip("statsmodels.api")


@pytest.fixture(scope="module")
def anes():
    data = sm.datasets.anes96.load_pandas().data
    X = data[["logpopul", "selfLR", "age", "educ"]]
    y = pd.Series(np.where(data["PID"] <= 1, 0, np.where(data["PID"] <= 4, 1, 2)), name="PID")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = sm.MNLogit(y, sm.add_constant(X)).fit(disp=0, method="newton", tol=1e-12)
    return X, y, LogisticRegression(penalty=None).fit(X, y), theirs


def test_summary_names_equations_as_statsmodels(anes):
    X, y, model, theirs = anes
    table = model.summary()
    assert table.equations == ["PID=1", "PID=2"]
    their_blocks = re.findall(r"^\s*(PID=\d)\s+coef", str(theirs.summary()), flags=re.M)
    assert table.equations == their_blocks
    text = str(table)
    assert re.search(r"^\s*PID=1\s+coef", text, flags=re.M) and "class 1 vs 0" not in text
    assert "against the reference PID=0" in table.title
    assert list(table.to_frame().index.get_level_values(0).unique()) == ["PID=1", "PID=2"]


def test_summary_and_margins_name_classes_alike(anes):
    X, y, model, theirs = anes
    effects = model.marginal_effects(X)
    their_names = list(theirs.get_margeff().summary_frame().index.get_level_values(0).unique())
    assert list(effects.classes) == their_names == ["PID=0", "PID=1", "PID=2"]
    assert model.summary().equations == list(effects.classes)[1:]


def test_reference_class_is_named_in_the_title(anes):
    X, y, model, _ = anes
    table = model.summary(reference=2)
    assert table.equations == ["PID=0", "PID=1"]
    assert table.title.endswith("against the reference PID=2")


def test_an_unnamed_response_is_y():
    X = np.random.default_rng(0).normal(size=(90, 2))
    y = np.repeat(["a", "b", "c"], 30)
    table = LogisticRegression(penalty=None).fit(X, y).summary()
    assert table.equations == ["y=b", "y=c"]
    assert table.dep_variable == "y"
