"""A formula model takes a pandas Categorical response's classes in the levels' order, as R takes a
factor's (tests/data/r/levels/levels.R): MASS's lda(type ~ ., fgl) (its LD signs follow the group
order), glm with the levels "normal", "low" (P(low) is modelled) and multinom with race's reference
"white".  The plain estimators keep scikit-learn's sorted classes_."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import linclass
from linclass import LinearDiscriminantAnalysis, LogisticRegression

pd = pytest.importorskip("pandas")

HERE = Path(__file__).parent / "data" / "r" / "levels"
FGL_LEVELS = ["WinF", "WinNF", "Veh", "Con", "Tabl", "Head"]  # levels(MASS::fgl$type)


def reference(case: str, part: str) -> np.ndarray:
    table = pd.read_csv(HERE / "levels_reference.csv")
    rows = table[(table["case"] == case) & (table["part"] == part)]
    out = np.zeros((rows["row"].max() + 1, rows["col"].max() + 1))
    out[rows["row"], rows["col"]] = rows["value"]
    return out


@pytest.fixture(scope="module")
def fgl():
    data = pd.read_csv(HERE / "fgl.csv")
    data["type"] = pd.Categorical(data["type"], categories=FGL_LEVELS)
    return data


@pytest.fixture(scope="module")
def birthwt():
    data = pd.read_csv(HERE / "birthwt.csv")
    data["low"] = pd.Categorical(data["low"], categories=["normal", "low"])
    data["race"] = pd.Categorical(data["race"], categories=["white", "black", "other"])
    return data


def test_lda_formula_is_mass_lda_in_the_levels_order(fgl):
    model = linclass.from_formula("type ~ .", fgl, LinearDiscriminantAnalysis())
    assert model.classes_.tolist() == FGL_LEVELS
    table = model.summary()
    np.testing.assert_allclose(np.asarray(table.scaling), reference("fgl", "scaling"), rtol=1e-8,
                               atol=1e-10)
    np.testing.assert_allclose(table.svd, reference("fgl", "svd")[0], rtol=1e-10)
    np.testing.assert_allclose(np.asarray(table.means), reference("fgl", "means"), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(table.prior), reference("fgl", "prior")[0], rtol=1e-12)
    assert list(table.prior.index) == FGL_LEVELS
    probabilities = model.predict_proba(fgl)
    assert probabilities.shape[1] == 6
    np.testing.assert_array_equal(model.predict(fgl),
                                  np.asarray(FGL_LEVELS)[probabilities.argmax(axis=1)])


def test_plain_estimators_keep_sorted_classes(fgl):
    X, y = fgl.drop(columns="type"), fgl["type"]
    plain = LinearDiscriminantAnalysis().fit(X, y)
    assert plain.classes_.tolist() == sorted(FGL_LEVELS)
    formula = linclass.from_formula("type ~ .", fgl, LinearDiscriminantAnalysis())
    order = [plain.classes_.tolist().index(c) for c in FGL_LEVELS]
    np.testing.assert_allclose(formula.predict_proba(fgl), plain.predict_proba(X)[:, order],
                               rtol=1e-9, atol=1e-13)


def test_glm_models_the_second_level(birthwt):
    model = linclass.from_formula("low ~ age + lwt + smoke", birthwt)
    assert model.classes_.tolist() == ["normal", "low"]
    table = model.summary()
    np.testing.assert_allclose(table.coef[0], reference("glm", "coef")[0], rtol=1e-9)
    np.testing.assert_allclose(table.std_err[0], reference("glm", "se")[0], rtol=1e-9)
    assert "log-odds of class 'low' against class 'normal'" in table.title
    assert model.predict_proba(birthwt).shape == (189, 2)
    assert set(model.predict(birthwt)) <= {"normal", "low"}
    assert model.score(birthwt) == pytest.approx(
        np.mean(model.predict(birthwt) == birthwt["low"].astype(str)))


def test_multinom_contrasts_against_the_first_level(birthwt):
    model = linclass.from_formula("race ~ age + lwt + smoke", birthwt)
    assert model.classes_.tolist() == ["white", "black", "other"]
    table = model.summary()
    assert table.equations == ["race=black", "race=other"]
    assert table.title.endswith("against the reference race=white")
    # nnet's BFGS (reltol 1e-16) stops 5e-8 from the MLE (measured)
    np.testing.assert_allclose(table.coef, reference("multinom", "coef"), rtol=1e-6)
    np.testing.assert_allclose(table.std_err, reference("multinom", "se"), rtol=1e-6)
    other = model.summary(reference="other")
    assert other.equations == ["race=white", "race=black"]
    np.testing.assert_allclose(other.coef[0], -table.coef[1], rtol=1e-9)


def test_saved_and_loaded_keeps_the_order(birthwt, tmp_path):
    model = linclass.from_formula("race ~ age + lwt + smoke", birthwt)
    path = tmp_path / "race.linclass"
    linclass.save(model, path)
    loaded = linclass.load(path)
    assert loaded.classes_.tolist() == ["white", "black", "other"]
    np.testing.assert_array_equal(loaded.predict(birthwt), model.predict(birthwt))


def test_sorted_levels_and_plain_labels_are_unchanged(birthwt):
    plain = birthwt.assign(race=birthwt["race"].astype(str))
    model = linclass.from_formula("race ~ age + lwt + smoke", plain)
    assert model.classes_.tolist() == ["black", "other", "white"]
    assert model.response_levels_ is None
    with pytest.raises(ValueError, match=r"label\(s\) \['purple'\] that are not levels"):
        linclass.from_formula("race ~ age + lwt + smoke", birthwt).score(
            birthwt, y=np.array(["purple"] * len(birthwt)))


def test_marginal_effects_name_the_levels_as_the_summary(birthwt):
    model = linclass.from_formula("race ~ age + lwt + smoke", birthwt)
    effects = model.marginal_effects(birthwt)
    assert list(effects.classes) == ["race=white", "race=black", "race=other"]
    assert model.summary().equations == list(effects.classes)[1:]
