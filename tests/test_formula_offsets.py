"""Offset terms in formulas, R's ``offset(log(lwt))``: the known part of the linear predictor is
evaluated on every frame (training rows and new rows), kept as a checked expression in model files,
and refused where it cannot apply.  R's glm on the same formulas: tests/test_formula.py ('offset'
and 'offset_weighted' cases)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import linclass
from linclass.formula.safety import UnsafeFormulaError

pytest.importorskip("formulaic")

DATA = Path(__file__).parent / "data" / "r"
FORMULA = "low ~ age + C(race, Treatment('white')) + smoke + offset(np.log(lwt))"


@pytest.fixture(scope="module")
def birthwt():
    return pd.read_csv(DATA / "formula_birthwt.csv")


def test_the_offset_is_evaluated_on_each_frame(birthwt):
    model = linclass.from_formula(FORMULA, birthwt)
    assert model.encoding_.offsets == ("np.log(lwt)",)
    assert "lwt" in model.encoding_.variables and "offset(np.log(lwt))" in model.formula_
    X, y, _ = model.training_rows(birthwt)
    plain = linclass.LogisticRegression(penalty=None).fit(X, y, offset=np.log(birthwt.lwt))
    np.testing.assert_allclose(model.estimator_.coef_, plain.coef_, rtol=1e-10)
    new = birthwt.iloc[:6].assign(lwt=[90, 100, 150, 200, 250, 120])
    expected = plain.predict_proba(model.training_rows(new)[0], offset=np.log(new.lwt))
    np.testing.assert_allclose(model.predict_proba(new), expected, rtol=1e-12)
    assert model.score(birthwt) == pytest.approx(
        np.mean(plain.predict(X, offset=np.log(birthwt.lwt)) == y))
    frame = model.get_prediction(new).summary_frame()
    np.testing.assert_allclose(frame["mean"], expected[:, 1], rtol=1e-10)


def test_two_offsets_add_up_and_the_file_keeps_them(birthwt, tmp_path):
    model = linclass.from_formula("low ~ age + smoke + offset(np.log(lwt)) + offset(0.01 * age)",
                                  birthwt)
    X, y, _ = model.training_rows(birthwt)
    plain = linclass.LogisticRegression(penalty=None).fit(
        X, y, offset=np.log(birthwt.lwt) + 0.01 * birthwt.age)
    np.testing.assert_allclose(model.estimator_.coef_, plain.coef_, rtol=1e-10)
    path = linclass.save(model, tmp_path / "offset.linclass")
    loaded = linclass.load(path)
    assert loaded.encoding_.offsets == model.encoding_.offsets
    np.testing.assert_array_equal(loaded.predict_proba(birthwt), model.predict_proba(birthwt))


def test_offset_terms_are_refused_where_they_cannot_apply(birthwt):
    with pytest.raises(UnsafeFormulaError, match="not a formula transform"):
        linclass.from_formula("low ~ age + offset(eval('1'))", birthwt)
    with pytest.raises(ValueError, match="interacts an offset"):
        linclass.from_formula("low ~ age + offset(lwt):smoke", birthwt)
    with pytest.raises(ValueError, match="does not take"):
        linclass.from_formula("low ~ age + offset(lwt)", birthwt,
                              linclass.LinearDiscriminantAnalysis())
    with pytest.raises(ValueError, match="not finite"):
        linclass.from_formula("low ~ age + offset(np.log(smoke))", birthwt)
    model = linclass.from_formula(FORMULA, birthwt)
    with pytest.raises(ValueError, match="lwt"):
        model.predict_proba(birthwt.drop(columns="lwt"))
    with pytest.raises(ValueError, match="(?i)missing"):
        model.predict_proba(birthwt.assign(lwt=np.where(birthwt.index == 3, np.nan, birthwt.lwt)))
