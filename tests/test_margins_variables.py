"""Marginal effects per variable of formula models, against R (tests/data/r/margins/margins.R, saved
output): a number's derivative through every column built from it (``I(age ** 2)``, ``age:smoke``,
``np.log(lwt)``, ``age:race``), a 0/1 number's change from 0 to 1 and a factor's change from the
reference level with every column built from them set accordingly, as Stata's ``margins, dydx()``
defines them; at the rows (average marginal effects) and at the means (Stata's ``atmeans``),
with variables set by ``atexog`` (Stata's ``at()``); delta-method standard errors.

At default settings (from_formula's LogisticRegression(penalty=None)); measured against R: effects
4e-12 relative, standard errors 1e-10 (R differentiates the effects with respect to the
coefficients numerically).  A spline's derivative is one-sided at its boundary knots, in R too."""

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import linclass

pytest.importorskip("formulaic")
sm = pytest.importorskip("statsmodels.api")

HERE = Path(__file__).parent / "data" / "r" / "margins"
WHITE = "C(race, Treatment('white'))"
CASES = {
    "powers": "low ~ age + I(age**2) + lwt + smoke + age:smoke",
    "factor": f"low ~ age + np.log(lwt) + {WHITE} * smoke + age:{WHITE}",
    # one column of age:race is in the span of the spline's and is aliased (coefficient 0)
    "spline": f"low ~ bs(age, df=4) + age:{WHITE} + lwt",
}


@pytest.fixture(scope="module")
def birthwt():
    return pd.read_csv(HERE / "birthwt.csv")


@pytest.fixture(scope="module")
def reference():
    return pd.read_csv(HERE / "margins.csv", keep_default_na=False)


@pytest.fixture(scope="module")
def models(birthwt):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", linclass.exceptions.SingularCovarianceWarning)
        return {case: linclass.from_formula(formula, birthwt) for case, formula in CASES.items()}


def setting(text: str) -> dict:
    """'age=30;race=black' -> {'age': 30.0, 'race': 'black'}."""
    out = {}
    for item in filter(None, text.split(";")):
        key, value = item.split("=")
        try:
            out[key] = float(value)
        except ValueError:
            out[key] = value
    return out


def groups(reference):
    return [tuple(k) for k in reference[["case", "at", "setting"]].drop_duplicates().to_numpy()]


def test_the_issue_numbers(birthwt, models):
    """Issue 41, finding 1: age -0.0036 (SE 0.0069) through age, I(age**2) and age:smoke, and
    smoke +0.142 switching age:smoke with it; no rows for I(age**2) and age:smoke."""
    got = models["powers"].marginal_effects(birthwt, dummy=True)
    assert got.names == ["age", "lwt", "smoke"]
    assert got.margeff[0] == pytest.approx(-0.0036009, abs=1e-7)
    assert got.margeff_se[0] == pytest.approx(0.0068972, abs=1e-7)
    assert got.margeff[2] == pytest.approx(0.1415581, abs=1e-7)
    assert list(got.dummy_idx) == [2]


@pytest.mark.parametrize("key", [("powers", "overall", ""), ("factor", "mean", "race=other;lwt=120")])
def test_one_setting_in_full(birthwt, models, reference, key):
    """Every effect of one setting, both readings of the 0/1 number (a slope, and its change)."""
    case, at, text = key
    want = reference[(reference.case == case) & (reference["at"] == at)
                     & (reference.setting == text)].set_index("effect")
    slopes = models[case].marginal_effects(birthwt, at=at, atexog=setting(text) or None)
    changes = models[case].marginal_effects(birthwt, at=at, atexog=setting(text) or None,
                                            dummy=["smoke"])
    ours = pd.DataFrame({"estimate": slopes.margeff, "std_err": slopes.margeff_se},
                        index=slopes.names)
    ours.loc["smoke (0 to 1)"] = [changes.margeff[changes.names.index("smoke")],
                                  changes.margeff_se[changes.names.index("smoke")]]
    assert sorted(ours.index) == sorted(want.index)
    ours = ours.loc[want.index]
    np.testing.assert_allclose(ours.estimate, want.estimate, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours.std_err, want.std_err, rtol=1e-7)


def test_every_setting_matches_r(birthwt, models, reference):
    for case, at, text in groups(reference):
        want = reference[(reference.case == case) & (reference["at"] == at)
                         & (reference.setting == text)].set_index("effect")
        atexog = setting(text) or None
        slopes = models[case].marginal_effects(birthwt, at=at, atexog=atexog)
        changes = models[case].marginal_effects(birthwt, at=at, atexog=atexog, dummy=True)
        assert changes.names[changes.dummy_idx[-1]] in ("smoke", "race[other]")
        assert sorted(set(slopes.names) | {"smoke (0 to 1)"} & set(want.index)) == sorted(
            want.index)
        for name, row in want.iterrows():
            table = changes if name == "smoke (0 to 1)" else slopes
            j = table.names.index(name.split(" ")[0])
            assert table.margeff[j] == pytest.approx(row.estimate, rel=1e-9, abs=1e-12), (
                case, at, text, name)
            assert table.margeff_se[j] == pytest.approx(row.std_err, rel=1e-7), (case, at, text,
                                                                                  name)


def test_a_dummy_set_by_atexog_or_by_the_rows_is_still_a_change(birthwt, models, reference):
    """Finding 2 for formula models: smoke set to 1 in every row (by atexog, or in the rows
    themselves) keeps its change from 0 to 1 (R: 0.14156 with and without smoke=1)."""
    model = models["powers"]
    want = reference[(reference.case == "powers") & (reference.setting == "smoke=1")
                     & (reference.effect == "smoke (0 to 1)")].estimate.item()
    by_atexog = model.marginal_effects(birthwt, atexog={"smoke": 1}, dummy=True)
    by_rows = model.marginal_effects(birthwt.assign(smoke=1), dummy=True)
    assert by_atexog.margeff[2] == pytest.approx(want, rel=1e-9)
    assert by_rows.margeff[2] == pytest.approx(want, rel=1e-9)
    np.testing.assert_allclose(by_rows.margeff, by_atexog.margeff, rtol=1e-12)


def test_spector_psi_at_gpa_2(birthwt):
    """Finding 2 (spector): PSI's effect at GPA = 2, PSI = 1 is Stata's 0.0495 (statsmodels'
    get_margeff(atexog={1: 2, 3: 1}, dummy=True)), by atexog or by rows that fix both, for the
    plain estimator (per column) and for a formula."""
    data = sm.datasets.spector.load_pandas().data
    X, y = data[["GPA", "TUCE", "PSI"]], data["GRADE"]
    theirs = sm.Logit(y, sm.add_constant(X)).fit(disp=0, tol=1e-12, method="newton")
    plain = linclass.LogisticRegression(penalty=None).fit(X, y)
    formula = linclass.from_formula("GRADE ~ GPA + TUCE + PSI", data,
                                    linclass.LogisticRegression(penalty=None))
    fixed = X.assign(GPA=2.0, PSI=1.0)
    for at in ("mean", "overall"):
        want = theirs.get_margeff(at=at, atexog={1: 2, 3: 1}, dummy=True)
        got = [plain.marginal_effects(X, at=at, atexog={"GPA": 2, "PSI": 1}, dummy=True),
               plain.marginal_effects(X, at=at, atexog={0: 2, 2: 1}, dummy=True),
               plain.marginal_effects(fixed, at=at, dummy=True),
               formula.marginal_effects(data, at=at, atexog={"GPA": 2, "PSI": 1}, dummy=True),
               formula.marginal_effects(data.assign(GPA=2.0, PSI=1.0), at=at, dummy=True)]
        for table in got:
            np.testing.assert_allclose(table.margeff, want.margeff, rtol=1e-8)
            np.testing.assert_allclose(table.margeff_se, want.margeff_se, rtol=1e-7)
    assert got[0].margeff[2] == pytest.approx(0.0495, abs=5e-5)
    assert "at GPA = 2, PSI = 1 (atexog)" in str(got[0])


def test_rows_that_fix_a_dummy_keep_its_discrete_change():
    """Finding 2, as reported: rows with GPA = 2 and PSI = 1 gave PSI's derivative, 0.1226; the
    change from 0 to 1 is Stata's 0.0495."""
    data = sm.datasets.spector.load_pandas().data
    X = data[["GPA", "TUCE", "PSI"]]
    plain = linclass.LogisticRegression(penalty=None).fit(X, data["GRADE"])
    got = plain.marginal_effects(X.assign(GPA=2.0, PSI=1.0), dummy=True)
    assert got.margeff[2] == pytest.approx(0.0494716, abs=1e-7)
    assert list(got.dummy_idx) == [2]


def test_a_categoricals_order_gives_the_reference(birthwt, models, reference):
    """A pandas Categorical predictor follows its levels' order (the first the reference, as R's
    factor): race with levels other, white, black gives the changes from 'other'."""
    data = birthwt.assign(race=pd.Categorical(birthwt.race, ["other", "white", "black"]))
    model = linclass.from_formula("low ~ age + np.log(lwt) + race * smoke + age:race", data,
                                  linclass.LogisticRegression(penalty=None))
    assert model.encoding_.factors["race"]["reference"] == "other"
    got = model.marginal_effects(data)
    assert got.names == ["age", "lwt", "race[white]", "race[black]", "smoke"]
    want = reference[(reference.case == "factor") & (reference["at"] == "overall")
                     & (reference.setting == "")].set_index("effect").estimate
    assert got.margeff[2] == pytest.approx(-want["race[other]"], rel=1e-8)
    assert got.margeff[3] == pytest.approx(want["race[black]"] - want["race[other]"], rel=1e-8)
    np.testing.assert_allclose(got.margeff[[0, 1, 4]], want[["age", "lwt", "smoke"]], rtol=1e-8)


def test_softmax_effects_are_derivatives_of_the_average_probabilities(birthwt):
    """Three classes (race from age, lwt, I(lwt**2), smoke): every class's effect of lwt is the
    derivative of the average predicted probability, the smoke change the difference."""
    formula = "race ~ age + lwt + I(lwt**2) + smoke + age:smoke"
    model = linclass.from_formula(formula, birthwt,
                                  linclass.LogisticRegression(penalty=None))
    got = model.marginal_effects(birthwt, dummy=True)
    assert got.names == ["age", "lwt", "smoke"] and got.margeff.shape == (3, 3)
    for j, name in enumerate(["age", "lwt"]):
        h = 1e-3
        up = model.predict_proba(birthwt.assign(**{name: birthwt[name] + h})).mean(axis=0)
        down = model.predict_proba(birthwt.assign(**{name: birthwt[name] - h})).mean(axis=0)
        np.testing.assert_allclose(got.margeff[j], (up - down) / (2 * h), rtol=1e-6, atol=1e-10)
    change = (model.predict_proba(birthwt.assign(smoke=1)).mean(axis=0)
              - model.predict_proba(birthwt.assign(smoke=0)).mean(axis=0))
    np.testing.assert_allclose(got.margeff[2], change, rtol=1e-10, atol=1e-14)
    assert np.all(got.margeff_se > 0)


def test_a_spline_is_differentiated_to_its_boundary_knots(birthwt):
    """bs(age, df=4): the derivative through the spline's columns, one-sided at the rows on the
    boundary knots (formulaic refuses values beyond them), is that of the fitted probability."""
    from linclass.formula.variables import derivative, model_variables

    model = linclass.from_formula("low ~ bs(age, df=4) + lwt", birthwt,
                                  linclass.LogisticRegression(penalty=None))
    age = model_variables(model.encoding_)[0]
    assert age.bounds == (14.0, 45.0) and not age.linear
    J = derivative(model.encoding_, birthwt, age)
    h = 1e-6
    x = birthwt.age.to_numpy(dtype=float)
    inside = (x > 14) & (x < 45)
    shifted = {s: model._rows(birthwt.assign(age=np.clip(x + s * h, 14, 45))).to_numpy()
               for s in (-1, 1)}
    step = np.clip(x + h, 14, 45) - np.clip(x - h, 14, 45)
    numeric = (shifted[1] - shifted[-1]) / step[:, None]
    np.testing.assert_allclose(J[inside], numeric[inside], rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(J[~inside], numeric[~inside], rtol=1e-4, atol=1e-6)
    got = model.marginal_effects(birthwt)
    assert got.names == ["age", "lwt"] and np.isfinite(got.margeff_se).all()


def test_elasticities_of_the_numbers(birthwt, models):
    """eyex / dyex / eydx of a number through its columns (dyex = x dy/dx row by row); a factor
    has no elasticity and is left out with a note."""
    model = models["factor"]
    dydx = model.marginal_effects(birthwt, at="mean")
    dyex = model.marginal_effects(birthwt, at="mean", method="dyex")
    assert dyex.names == ["age", "lwt", "smoke"]
    assert dyex.margeff[0] == pytest.approx(dydx.margeff[0] * birthwt.age.mean(), rel=1e-12)
    assert "a factor has no elasticity: race left out." in dyex.notes
    eydx = model.marginal_effects(birthwt, method="eydx")
    P = model.predict_proba(birthwt)[:, 1]
    h = 1e-4
    up = np.log(model.predict_proba(birthwt.assign(age=birthwt.age + h))[:, 1])
    down = np.log(model.predict_proba(birthwt.assign(age=birthwt.age - h))[:, 1])
    assert eydx.margeff[0] == pytest.approx(np.mean((up - down) / (2 * h)), rel=1e-7)
    assert np.all(P > 0)


def test_robust_and_weighted(birthwt, models):
    """Frequency weights equal repeated rows; a robust covariance is taken from the frame."""
    model = models["powers"]
    freq = np.tile([1, 2, 3], 63)
    repeated = birthwt.loc[birthwt.index.repeat(freq)].reset_index(drop=True)
    a = model.marginal_effects(repeated, dummy=True, at="mean")
    b = model.marginal_effects(birthwt, dummy=True, at="mean", sample_weight=freq)
    np.testing.assert_allclose(a.margeff, b.margeff, rtol=1e-9)
    robust = model.marginal_effects(birthwt, cov_type="HC0")
    assert robust.covariance_type == "HC0"
    assert not np.allclose(robust.margeff_se, model.marginal_effects(birthwt).margeff_se)


@pytest.mark.parametrize("kwargs, match", [
    ({"at": "median"}, "at='overall'"),
    ({"atexog": {"I(age ** 2)": 900}}, "follows its variable"),
    ({"atexog": {"age": [1.0, 2.0]}}, "one number per row"),
    ({"atexog": {"race": "purple"}}, "one of the levels"),
    ({"atexog": ["age", 30]}, "must be a dict"),
    ({"dummy": ["race"]}, "not a numeric variable"),
    ({"method": "eyex", "dummy": True}, "discrete changes"),
])
def test_bad_requests_are_refused_naming_the_problem(birthwt, models, kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        models["factor"].marginal_effects(birthwt, **kwargs)


def test_quoted_and_backticked_names_are_variables(birthwt):
    """Q('age') and `age` read the column age: the same effects as age."""
    plain = linclass.from_formula("low ~ age + lwt + smoke:age", birthwt,
                                  linclass.LogisticRegression(penalty=None))
    want = plain.marginal_effects(birthwt)
    for formula in ("low ~ Q('age') + `lwt` + smoke:Q('age')", "low ~ `age` + Q('lwt') + smoke:age"):
        model = linclass.from_formula(formula, birthwt,
                                      linclass.LogisticRegression(penalty=None))
        got = model.marginal_effects(birthwt)
        assert got.names == ["age", "lwt", "smoke"]
        np.testing.assert_allclose(got.margeff, want.margeff, rtol=1e-9)


def test_a_factor_of_an_expression_is_refused(birthwt):
    model = linclass.from_formula("low ~ lwt + C(age > 25)", birthwt,
                                  linclass.LogisticRegression(penalty=None))
    with pytest.raises(ValueError, match="'age' is not defined here.*C\\(age > 25\\)"):
        model.marginal_effects(birthwt)


def test_plain_estimators_keep_one_effect_per_column(birthwt):
    """Without a formula a column is a variable: atexog by name or index, dummy by a list."""
    X = birthwt[["age", "lwt", "smoke"]].astype(float)
    model = linclass.LogisticRegression(penalty=None).fit(X, birthwt.low)
    theirs = sm.Logit(birthwt.low, sm.add_constant(X)).fit(disp=0, tol=1e-12, method="newton")
    want = theirs.get_margeff(atexog={1: 30.0}, dummy=True)
    for atexog in ({"age": 30.0}, {0: 30.0}):
        got = model.marginal_effects(X, atexog=atexog, dummy=["smoke"])
        np.testing.assert_allclose(got.margeff, want.margeff, rtol=1e-8)
        np.testing.assert_allclose(got.margeff_se, want.margeff_se, rtol=1e-7)
    with pytest.raises(ValueError, match="'bwt' is not one of the model's columns"):
        model.marginal_effects(X, atexog={"bwt": 1.0})
    with pytest.raises(ValueError, match="column index 3 is outside"):
        model.marginal_effects(X, atexog={3: 1.0})


@pytest.mark.parametrize("method", ["dydx", "eyex", "dyex", "eydx"])
@pytest.mark.parametrize("at", ["overall", "mean"])
def test_a_slope_along_one_column_is_that_columns_effect(method, at):
    """variable_effects with J = e_j (a variable that is one column) and the change between two
    copies of the points with column j at 0 and 1 give the per-column effects and standard
    errors (tested against statsmodels' MNLogit in test_marginal_effects.py), three classes."""
    from sklearn.datasets import load_wine

    from linclass.estimators.logistic.summary import reported_parameters
    from linclass.linear.inference.margins import evaluation_rows, variable_effects

    X, y = load_wine(return_X_y=True)
    X = (X[:, :4] - X[:, :4].mean(axis=0)) / X[:, :4].std(axis=0) + 3.0
    X = np.column_stack([X, (X[:, 0] > 3.0).astype(float)])
    model = linclass.LogisticRegression(penalty=None).fit(X, y)
    coef, intercept = reported_parameters(model)
    covariance = model.summary().covariance
    discrete = method in ("dydx", "eydx")
    want = model.marginal_effects(X, at=at, method=method, dummy=[4] if discrete else False)
    Z, v = evaluation_rows(X, np.ones(len(X)), at)
    designs = []
    for j in range(X.shape[1]):
        if j == 4 and discrete:
            low, high = Z.copy(), Z.copy()
            low[:, j], high[:, j] = 0.0, 1.0
            designs.append(("change", f"x{j}", low, high, 1.0))
        else:
            J = np.zeros_like(Z)
            J[:, j] = 1.0
            designs.append(("slope", f"x{j}", J, Z[:, j]))
    got = variable_effects(Z, v, designs, coef, intercept, covariance, fit_intercept=True, at=at,
                           method=method, classes=model.classes_)
    np.testing.assert_allclose(got.margeff, want.margeff, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(got.margeff_se, want.margeff_se, rtol=1e-10, atol=1e-15)


def test_a_count_changes_by_one_either_side_through_its_columns(birthwt, models):
    """count=['age']: (P(age + 1) - P(age - 1)) / 2 with I(age**2) and age:smoke following."""
    model = models["powers"]
    got = model.marginal_effects(birthwt, count=["age"])
    up = model.predict_proba(birthwt.assign(age=birthwt.age + 1))[:, 1]
    down = model.predict_proba(birthwt.assign(age=birthwt.age - 1))[:, 1]
    assert got.margeff[0] == pytest.approx(np.mean(up - down) / 2, rel=1e-12)
    assert list(got.count_idx) == [0]
    assert model.marginal_effects(birthwt, count=True).count_idx.tolist() == [0, 1]  # age, lwt
