"""Formula models (``linclass.from_formula``, ``FormulaClassifier``) against R's glm and statsmodels'
formula API on MASS's birthwt with race as a factor (tests/data/r/formula_glm.R, saved output):
coefficients, standard errors, deviances and AIC of treatment codings with two reference levels,
sum coding, interactions of a factor and of two numbers, transforms, a factor of integer codes, a
formula without intercept and frequency weights; drop1 by whole terms, lr_test and diagnostics of
formula models; the summary, predictions with standard errors and marginal effects from frames."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import linclass

sm = pytest.importorskip("statsmodels.api")
smf = pytest.importorskip("statsmodels.formula.api")
pytest.importorskip("formulaic")

HERE = Path(__file__).parent / "data" / "r"
WHITE = "C(race, Treatment('white'))"

#: case -> (our formula, weighted, statsmodels' (patsy) formula, {our name: R's name} where the
#: names do not follow the treatment pattern)
CASES = {
    "treatment_white": (f"low ~ age + lwt + {WHITE} + smoke", False, None, {}),
    "treatment_other": ("low ~ age + lwt + C(race, Treatment('other')) + smoke", False, None, {}),
    "weighted": (f"low ~ age + lwt + {WHITE} + smoke", True, None, {}),
    "race_smoke": (f"low ~ age + lwt + {WHITE} * smoke", False, None, {}),
    "race_smoke_weighted": (f"low ~ age + lwt + {WHITE} * smoke", True, None, {}),
    "age_smoke": (f"low ~ age * smoke + lwt + {WHITE}", False, None, {}),
    "no_intercept": (f"low ~ 0 + {WHITE} + age + lwt", False, None, {}),
    "sum_coding": ("low ~ C(race, contr.sum, levels=['white', 'black', 'other']) + age", False,
                   "low ~ C(race, Sum, levels=['white', 'black', 'other']) + age",
                   {"C(race, contr.sum, levels=['white', 'black', 'other'])[S.white]":
                        "C(race, contr.sum)1",
                    "C(race, contr.sum, levels=['white', 'black', 'other'])[S.black]":
                        "C(race, contr.sum)2"}),
    "transforms": (f"low ~ np.log(lwt) + I(age ** 2) + {WHITE}", False,
                   f"low ~ np.log(lwt) + I(age ** 2) + {WHITE}",
                   {"np.log(lwt)": "log(lwt)", "I(age ** 2)": "I(age^2)"}),
    "integer_factor": ("low ~ age + lwt + C(race_code)", False, None,
                       {f"C(race_code)[T.{k}]": f"factor(race_code){k}" for k in (2, 3)}),
    # an offset term (statsmodels: patsy has none, the offset is passed apart)
    "offset": (f"low ~ age + {WHITE} + smoke + offset(np.log(lwt))", False,
               f"low ~ age + {WHITE} + smoke", {}),
    "offset_weighted": (f"low ~ age + {WHITE} + smoke + offset(np.log(lwt))", True,
                        f"low ~ age + {WHITE} + smoke", {}),
}


def r_name(name: str, renamed: dict) -> str:
    """R's name of one of our columns or terms: "C(race, Treatment('white'))[T.black]:smoke" ->
    'raceblack:smoke' (a factor's level appended to the variable, as R's model.matrix names it),
    "C(race, Treatment('white'))" -> 'race'."""
    if name == "const":
        return "(Intercept)"
    if name in renamed:
        return renamed[name]
    parts = []
    for part in name.split(":"):
        term, _, level = part.partition("[")
        if term.startswith("C("):
            term = term[2:].split(",")[0].rstrip(")")
        parts.append(term + level.rstrip("]").removeprefix("T."))
    return ":".join(parts)


def patsy_name(name: str) -> str:
    """statsmodels' (patsy's) name of one of our columns."""
    return "Intercept" if name == "const" else name.replace("contr.sum", "Sum")


@pytest.fixture(scope="module")
def birthwt():
    return pd.read_csv(HERE / "formula_birthwt.csv")


@pytest.fixture(scope="module")
def reference():
    return (pd.read_csv(HERE / "formula_glm.csv"), pd.read_csv(HERE / "formula_glm_fit.csv"),
            pd.read_csv(HERE / "formula_glm_drop1.csv"))


def fit(data, case, **kw):
    formula, weighted = CASES[case][:2]
    model = linclass.LogisticRegression(penalty=None, tol=1e-12)
    return linclass.from_formula(formula, data, model, sample_weight="freq" if weighted else None,
                                 **kw)


# ------------------------------------------------------------------------------------------ R's glm
@pytest.mark.parametrize("case", list(CASES))
def test_matches_r_glm(birthwt, reference, case):
    coefs, fits, _ = reference
    model = fit(birthwt, case)
    table = model.summary()
    ours = pd.DataFrame({"estimate": table.coef[0], "std_err": table.std_err[0]},
                        index=[r_name(n, CASES[case][3]) for n in table.names])
    want = coefs[coefs.case == case].set_index("term")
    assert sorted(ours.index) == sorted(want.index)
    ours = ours.loc[want.index]
    np.testing.assert_allclose(ours.estimate, want.estimate, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours.std_err, want.std_err, rtol=1e-9)
    row = fits[fits.case == case].iloc[0]
    assert table.deviance == pytest.approx(row.deviance, rel=1e-10)
    assert table.null_deviance == pytest.approx(row.null_deviance, rel=1e-10)
    assert table.aic == pytest.approx(row.aic, rel=1e-10)
    if not CASES[case][1]:  # (weighted: observations are the weights' sum, as statsmodels counts)
        assert table.df_resid == pytest.approx(row.df_residual)


def test_categorical_column_is_a_factor_with_its_own_order(birthwt, reference):
    """A pandas categorical column is a factor without C(); its categories' order gives the
    reference level (white, as R's factor)."""
    data = birthwt.assign(race=pd.Categorical(birthwt.race, ["white", "black", "other"]))
    model = linclass.from_formula("low ~ age + lwt + race + smoke", data,
                                  linclass.LogisticRegression(penalty=None, tol=1e-12))
    table = model.summary()
    assert table.names == ["const", "age", "lwt", "race[T.black]", "race[T.other]", "smoke"]
    want = reference[0][reference[0].case == "treatment_white"]
    np.testing.assert_allclose(table.coef[0], want.estimate, rtol=1e-7)
    assert model.factor_levels_ == {"race": ["white", "black", "other"]}
    assert model.encoding_.factors["race"]["reference"] == "white"


@pytest.mark.parametrize("case", ["treatment_white", "weighted", "race_smoke", "age_smoke",
                                  "offset_weighted"])
def test_drop1_drops_whole_terms_as_r(birthwt, reference, case):
    want = reference[2][reference[2].case == case].set_index("term")
    model = fit(birthwt, case)
    table = linclass.drop1(model, birthwt, sample_weight="freq" if CASES[case][1] else None)
    assert [r_name(n, {}) for n in table.index] == list(want.index)
    np.testing.assert_allclose(table.Deviance, want.deviance, rtol=1e-9)
    np.testing.assert_allclose(table.AIC, want.aic, rtol=1e-9)
    np.testing.assert_allclose(table.Df.iloc[1:], want.df.iloc[1:])
    np.testing.assert_allclose(table.LRT.iloc[1:], want.lrt.iloc[1:], rtol=1e-7)
    np.testing.assert_allclose(table["Pr(>Chi)"].iloc[1:], want.p.iloc[1:], rtol=1e-6)


def test_lr_test_of_formula_models_is_anova(birthwt, reference):
    fits = reference[1].set_index("case")
    test = linclass.lr_test(fit(birthwt, "treatment_white"), fit(birthwt, "race_smoke"))
    assert test.df == 2
    expected = fits.deviance["treatment_white"] - fits.deviance["race_smoke"]
    assert test.statistic == pytest.approx(expected, rel=1e-8)
    with pytest.raises(ValueError, match="pass the smaller model first"):
        linclass.lr_test(fit(birthwt, "race_smoke"), fit(birthwt, "treatment_white"))


def test_diagnostics_of_a_formula_model_are_those_of_its_columns(birthwt):
    model = fit(birthwt, "weighted")
    frame = birthwt.set_index(birthwt.index + 100)
    got = linclass.diagnostics(model, frame, sample_weight="freq")
    X, y, w = model.training_rows(frame, sample_weight="freq")
    plain = linclass.LogisticRegression(penalty=None, tol=1e-12).fit(X, y, sample_weight=w)
    want = linclass.diagnostics(plain, X, y, sample_weight=w)
    np.testing.assert_allclose(got.hat, want.hat, rtol=1e-9)
    np.testing.assert_allclose(got.cooks_distance, want.cooks_distance, rtol=1e-8)
    assert list(got.to_frame().index) == list(frame.index)


# ------------------------------------------------------------------------ statsmodels' formula API
@pytest.mark.parametrize("case", list(CASES))
def test_matches_statsmodels_formula_api(birthwt, case):
    formula, weighted, patsy_formula, _ = CASES[case]
    weights = birthwt.freq.to_numpy(float) if weighted else None
    offset = np.log(birthwt.lwt.to_numpy(float)) if "offset(" in formula else None
    ref = smf.glm(patsy_formula or formula, birthwt, family=sm.families.Binomial(),
                  freq_weights=weights, offset=offset).fit(tol=1e-13)
    table = fit(birthwt, case).summary()
    names = [patsy_name(n) for n in table.names]  # (patsy orders the terms otherwise)
    assert sorted(names) == sorted(ref.params.index)
    np.testing.assert_allclose(table.coef[0], ref.params[names], rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(table.std_err[0], ref.bse[names], rtol=1e-7)


def test_robust_summary_prediction_and_margins_from_frames(birthwt):
    """summary(cov_type='HC0', data=frame), get_prediction(new frame) and marginal_effects(frame)
    code the frames by the formula: statsmodels' formula API on the same rows."""
    formula = CASES["treatment_white"][0]
    model = fit(birthwt, "treatment_white")
    new = birthwt.iloc[[5, 40, 77, 120]].reset_index(drop=True)
    ref = smf.logit(formula, birthwt).fit(disp=0, tol=1e-12)
    robust = smf.glm(formula, birthwt, family=sm.families.Binomial()).fit(cov_type="HC0", tol=1e-13)
    names = [patsy_name(n) for n in model.summary().names]
    np.testing.assert_allclose(model.summary(cov_type="HC0", data=birthwt).std_err[0],
                               robust.bse[names], rtol=1e-7)
    got = model.get_prediction(new).summary_frame()
    want = smf.glm(formula, birthwt, family=sm.families.Binomial()).fit(tol=1e-13).get_prediction(
        new).summary_frame()
    np.testing.assert_allclose(got["mean"], want["mean"], rtol=1e-8)
    np.testing.assert_allclose(got["mean_se"], want["mean_se"], rtol=1e-7)
    # per variable: the numbers as statsmodels' per-column effects (each is one column here), the
    # factor's levels as the change of the average probability from white to the level
    margins = model.marginal_effects(birthwt)
    assert margins.names == ["age", "lwt", "race[black]", "race[other]", "smoke"]
    theirs = ref.get_margeff()
    numbers = [list(ref.params.index).index(n) - 1 for n in ("age", "lwt", "smoke")]
    np.testing.assert_allclose(margins.margeff[[0, 1, 4]], theirs.margeff[numbers], rtol=1e-7)
    np.testing.assert_allclose(margins.margeff_se[[0, 1, 4]], theirs.margeff_se[numbers], rtol=1e-6)
    white = ref.predict(birthwt.assign(race="white")).mean()
    for j, level in ((2, "black"), (3, "other")):
        assert margins.margeff[j] == pytest.approx(
            ref.predict(birthwt.assign(race=level)).mean() - white, rel=1e-7)


def test_a_factor_response_is_a_multinomial_logit(birthwt):
    """A response of three classes: statsmodels' MNLogit (integer codes, the first the reference);
    labelled by strings, the same model with the classes in sorted order."""
    formula = "race_code ~ age + lwt + smoke"
    model = linclass.from_formula(formula, birthwt,
                                  linclass.LogisticRegression(penalty=None, tol=1e-12))
    ref = smf.mnlogit(formula, birthwt).fit(disp=0, method="newton", tol=1e-12)
    np.testing.assert_allclose(model.summary().coef.T, ref.params.to_numpy(), rtol=1e-6)
    named = linclass.from_formula("race ~ age + lwt + smoke", birthwt,
                                  linclass.LogisticRegression(penalty=None, tol=1e-12))
    assert list(named.classes_) == ["black", "other", "white"]
    assert named.summary().dep_variable == "race"
    np.testing.assert_allclose(named.predict_proba(birthwt)[:, [2, 0, 1]],
                               model.predict_proba(birthwt), atol=1e-9)
