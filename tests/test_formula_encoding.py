"""How a formula model encodes frames: new rows exactly as the training rows (factor levels and the
transforms' state from the fit, whatever levels or order the new frame has), the intercept from the
formula, the response from the left-hand side or from y, weights by column name, other estimators;
and the refusals, each naming the problem: unseen levels, missing values, missing columns, Python
outside the formula allowlist, formulas without a response or with two."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import linclass
from linclass.formula.safety import UnsafeFormulaError, check_expression

pytest.importorskip("formulaic")

HERE = Path(__file__).parent / "data" / "r"
FORMULAS = [
    "low ~ age + lwt + C(race, Treatment('white')) * smoke",
    "low ~ race + center(lwt) + scale(age) + C(ptl)",
    "low ~ poly(age, 2) + bs(lwt, df=4) + C(race, contr.sum) + np.log(lwt):smoke",
    "low ~ 0 + race + C(race_code, contr.helmert):lwt + I(age > 25)",
]


@pytest.fixture(scope="module")
def birthwt():
    return pd.read_csv(HERE / "formula_birthwt.csv")


def _model(formula, data, **kw):
    return linclass.from_formula(formula, data, linclass.LogisticRegression(C=10.0, tol=1e-10), **kw)


@pytest.mark.parametrize("formula", FORMULAS)
def test_new_frames_are_encoded_as_the_training_rows(birthwt, formula):
    """Rows of one level only, in another order, with a categorical column whose categories come
    in another order: the same columns and predictions as for those rows among the training rows."""
    model = _model(formula, birthwt)
    train = model.predict_proba(birthwt)
    rows = np.flatnonzero(birthwt.race.to_numpy() == "white")[::-1][:20]
    new = birthwt.iloc[rows].reset_index(drop=True)
    new["race"] = pd.Categorical(new.race, categories=["other", "white", "black"])
    np.testing.assert_allclose(model.predict_proba(new), train[rows], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(model.decision_function(new),
                               model.decision_function(birthwt)[rows], rtol=1e-12, atol=1e-12)
    X, _, _ = model.training_rows(birthwt)
    np.testing.assert_array_equal(model.training_rows(new)[0].to_numpy(), X.to_numpy()[rows])
    assert list(model.estimator_.feature_names_in_) == list(X.columns)


def test_stateful_transforms_keep_the_training_state(birthwt):
    model = _model("low ~ center(lwt) + scale(age)", birthwt)
    one = birthwt.iloc[[3]]
    X = model.training_rows(one)[0]
    assert X["center(lwt)"].iloc[0] == pytest.approx(one.lwt.iloc[0] - birthwt.lwt.mean())
    assert X["scale(age)"].iloc[0] == pytest.approx(
        (one.age.iloc[0] - birthwt.age.mean()) / birthwt.age.std())
    assert model.encoding_.transforms["center(lwt)"]["center"] == pytest.approx(birthwt.lwt.mean())


def test_the_formula_decides_the_intercept(birthwt):
    with_ = linclass.from_formula("low ~ age + race", birthwt,
                                  linclass.LogisticRegression(fit_intercept=False))
    assert with_.estimator_.fit_intercept and with_.encoding_.intercept
    without = linclass.from_formula("low ~ age + race - 1", birthwt)
    assert not without.estimator_.fit_intercept
    assert list(without.estimator_.feature_names_in_) == [
        "age", "race[black]", "race[other]", "race[white]"]  # R's full coding of the first factor
    nested = linclass.from_formula("low ~ 0 + race + age", birthwt,
                                   linclass.OneVsRestClassifier(linclass.LogisticRegression()))
    assert nested.estimator_.estimator.fit_intercept is False
    with pytest.raises(ValueError, match="LinearDiscriminantAnalysis has no fit_intercept.*- 1"):
        linclass.from_formula("low ~ 0 + age + race", birthwt, linclass.LinearDiscriminantAnalysis())


@pytest.mark.parametrize("estimator", [linclass.LinearDiscriminantAnalysis(), linclass.GaussianNB(),
                                       linclass.StandardizedClassifier(linclass.LogisticRegression()),
                                       linclass.KClassDiscriminant(linclass.LogisticRegression())])
def test_any_classifier_takes_a_formula(birthwt, estimator):
    """The coded columns (intercept left out) are what the estimator would get by hand."""
    model = linclass.from_formula("race ~ age + lwt + C(smoke) + ht", birthwt, estimator)
    X = birthwt[["age", "lwt", "smoke", "ht"]].rename(columns={"smoke": "C(smoke)[T.1]"})
    plain = linclass.FormulaClassifier(estimator=estimator).fit(X.to_numpy(), birthwt.race)
    np.testing.assert_array_equal(model.predict(birthwt), plain.predict(X.to_numpy()))
    assert model.score(birthwt) == pytest.approx(plain.score(X.to_numpy(), birthwt.race))


def test_response_and_weights(birthwt):
    by_expression = _model("I(lwt < 120) ~ age + race", birthwt)
    assert list(by_expression.classes_) == [False, True]
    by_y = _model("~ age + race", birthwt, y=birthwt.lwt < 120)
    np.testing.assert_allclose(by_y.predict_proba(birthwt), by_expression.predict_proba(birthwt))
    assert by_expression.score(birthwt) == pytest.approx(by_y.score(birthwt, birthwt.lwt < 120))
    named = _model("low ~ age + race", birthwt, sample_weight="freq")
    given = _model("low ~ age + race", birthwt, sample_weight=birthwt.freq.to_numpy())
    np.testing.assert_allclose(named.predict_proba(birthwt), given.predict_proba(birthwt))
    # ``.`` is every column the response does not use
    dot = _model("low ~ . - freq - race_code", birthwt)
    assert dot.formula_ == "low ~ 1 + age + lwt + race + smoke + ptl + ht + ui"
    with pytest.raises(ValueError, match="names the response 'low': pass y=None"):
        _model("low ~ age", birthwt, y=birthwt.low)
    with pytest.raises(ValueError, match="has no response: write it as 'label ~ ...'"):
        _model("~ age", birthwt)
    with pytest.raises(ValueError, match="one response"):
        _model("low + ht ~ age", birthwt)
    with pytest.raises(ValueError, match="sample_weight='w' names no column"):
        _model("low ~ age", birthwt, sample_weight="w")


def test_unseen_levels_are_refused_naming_them(birthwt):
    model = _model("low ~ age + C(race, Treatment('white')) + C(ptl * 1)", birthwt)
    new = birthwt.head(4).assign(race=["white", "asian", "black", "martian"])
    with pytest.raises(ValueError) as info:
        model.predict(new)
    message = str(info.value)
    for fragment in ("'race'", "'asian'", "'martian'", "known levels: ['black', 'other', 'white']",
                     "drop those rows"):
        assert fragment in message
    with pytest.raises(ValueError, match="race.*asian"):  # a categorical column too
        model.predict_proba(new.assign(race=pd.Categorical(new.race)))
    # a factor of an expression: formulaic's own check, turned into an error
    with pytest.raises(ValueError, match="did not see"):
        model.predict(birthwt.head(3).assign(ptl=[0, 7, 1]))
    model.predict(birthwt.head(3).assign(race=["white", "white", "other"]))  # known ones: fine
    with pytest.raises(ValueError, match=r"outside the levels its term names.*'other'.*levels="):
        _model("low ~ C(race, levels=['white', 'black'])", birthwt)


def test_missing_values_and_columns_are_refused(birthwt):
    holed = birthwt.astype({"age": float})
    holed.loc[[3, 8], "age"] = np.nan
    with pytest.raises(ValueError, match=r"'age' \(2 rows\).*R's glm drops such rows.*dropna"):
        _model("low ~ age + race", holed)
    _model("low ~ lwt + race", holed)  # a column the formula does not read may have them
    model = _model("low ~ age + race", birthwt)
    with pytest.raises(ValueError, match=r"'age' \(2 rows\)"):
        model.predict(holed)
    with pytest.raises(ValueError, match="response 'low' is missing in 1 row"):
        _model("low ~ age", birthwt.assign(low=birthwt.low.where(birthwt.index != 5)))
    with pytest.raises(ValueError, match=r"lack the column\(s\) \['race'\]"):
        model.predict(birthwt.drop(columns="race"))
    with pytest.raises(TypeError, match="pandas DataFrame"):
        model.predict(birthwt[["age", "race"]].to_numpy())


@pytest.mark.parametrize("term, why", [
    ("open('x')", "calls 'open'"),
    ("I(__import__('os').system('true'))", "calls something other"),
    ("__import__('os')", "calls '__import__'"),
    ("np.load('x')", "calls np.load"),
    ("age.abs()", "calls age.abs"),
    ("I(age.values)", "reads the attribute .values"),
    ("age[0]", "Subscript"),
    ("I([a for a in age])", "ListComp"),
    ("C(race, contrasts=len)", "reads \\['len'\\], which is not a column"),
    ("lag(age)", "calls 'lag'"),
])
def test_python_outside_the_allowlist_is_refused_at_fit(birthwt, term, why):
    with pytest.raises(UnsafeFormulaError, match=why):
        _model(f"low ~ lwt + {term}", birthwt)


def test_the_allowlist_takes_what_formulas_hold():
    for term in ["C(race, Treatment('white'))", "C(race, contr.sum)", "np.log1p(lwt)", "I(age ** 2)",
                 "C(`race code`, levels=[3, 1, 2])", "bs(age, df=3, degree=2)", "I((a > 1) & ~b)",
                 "np.where(a > 1, a, 0)", "C(race, contr.custom({'a': [1, 0, 0]}))"]:
        check_expression(term)


def test_no_formula_means_the_columns_themselves(birthwt):
    X, y = birthwt[["age", "lwt"]], birthwt.low
    model = linclass.FormulaClassifier().fit(X, y)
    plain = linclass.LogisticRegression(penalty=None).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), plain.predict_proba(X), rtol=1e-10)
    assert model.summary().names == ["const", "age", "lwt"]
