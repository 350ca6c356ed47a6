"""A pandas column of strings or categories passed to ``fit`` (or ``predict``) without a formula is a
factor, not a number: every estimator refuses it, naming the column and the formula that codes it
(numpy's "could not convert string to float", and an integer-coded categorical fitted silently as
one slope, before).  CategoricalNB, whose features are category codes, takes a 'category' column
whose categories are integers, and refuses strings naming the codes it needs."""

import numpy as np
import pandas as pd
import pytest

import linclass
from conftest import CASES


def _frame(n=60, seed=0):
    rng = np.random.default_rng(seed)
    race = rng.choice(["white", "black", "other"], n)
    X = pd.DataFrame({"age": rng.normal(25, 5, n), "race": race})
    y = (rng.random(n) < np.where(race == "white", 0.3, 0.6)).astype(int)
    return X, y


def _column_estimators():
    """One case per registry class that takes real-valued columns (not category codes)."""
    seen, out = set(), []
    for case in CASES:
        if case.name in seen or case.name == "CategoricalNB":
            continue
        seen.add(case.name)
        out.append(pytest.param(case, id=case.name))
    return out


@pytest.mark.parametrize("case", _column_estimators())
@pytest.mark.parametrize("kind", ["strings", "categories", "integer categories"])
def test_factor_columns_are_refused_naming_the_column_and_the_formula(case, kind):
    X, y = _frame()
    if kind == "categories":
        X["race"] = X.race.astype("category")
    elif kind == "integer categories":
        X["race"] = pd.Categorical(X.race.map({"white": 1, "black": 2, "other": 3}))
    model = case.make()
    with pytest.raises(ValueError) as info:
        model.fit(X, y)
    message = str(info.value)
    assert "['race']" in message
    if case.cls is linclass.FormulaClassifier:  # (without a formula)
        assert "FormulaClassifier('y ~ C(race) + ...')" in message
    else:
        assert f"linclass.from_formula('y ~ C(race) + ...', data, model={case.name}())" in message
    if kind != "strings":
        assert "single slope" in message and ".cat.codes" in message


def test_predict_refuses_them_too():
    X, y = _frame()
    model = linclass.LogisticRegression().fit(X[["age"]].assign(code=1.0), y)
    with pytest.raises(ValueError, match=r"\['code'\] hold strings"):
        model.predict(X[["age"]].assign(code="a"))


def test_numbers_in_object_columns_are_still_numbers():
    X, y = _frame()
    numeric = X[["age"]].assign(w=X.age * 2)
    objects = numeric.astype(object)
    a = linclass.LogisticRegression().fit(numeric, y).coef_
    np.testing.assert_array_equal(linclass.LogisticRegression().fit(objects, y).coef_, a)


def test_categorical_nb_takes_integer_categories_and_refuses_strings():
    X, y = _frame()
    codes = X.race.map({"white": 0, "black": 1, "other": 2})
    frame = pd.DataFrame({"race": pd.Categorical(codes), "old": pd.Categorical((X.age > 25) * 1)})
    plain = pd.DataFrame({"race": codes, "old": (X.age > 25) * 1})
    a = linclass.CategoricalNB().fit(frame, y)
    np.testing.assert_allclose(a.predict_proba(frame), linclass.CategoricalNB().fit(plain, y)
                               .predict_proba(plain))
    with pytest.raises(ValueError, match=r"CategoricalNB takes each category as an integer code.*"
                                         r"\['race'\].*\.cat\.codes"):
        linclass.CategoricalNB().fit(frame.assign(race=X.race), y)
    with pytest.raises(ValueError, match="integer code"):
        linclass.CategoricalNB().fit(frame.assign(race=X.race.astype("category")), y)


def test_the_formula_the_message_names_works():
    X, y = _frame()
    model = linclass.from_formula("y ~ age + C(race)", X.assign(y=y), linclass.LogisticRegression())
    assert list(model.estimator_.feature_names_in_) == ["age", "C(race)[T.other]", "C(race)[T.white]"]
