"""Formula models in model files: the encoding is stored as plain data (the formula as text, factor
levels as lists, transforms' state as numbers: no pickle), a loaded model codes new frames exactly
as the saved one, and a file whose formula holds Python outside the allowlist, or whose encoding is
damaged, is refused by ``load`` as every bad file is (ModelFileError), before anything is
evaluated."""

import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import linclass
from linclass import ModelFileError, load, save
from test_persistence import read_archive, write_archive

pytest.importorskip("formulaic")

HERE = Path(__file__).parent / "data" / "r"
RECORD = "linclass.formula.FormulaEncoding"
FORMULAS = [
    ("low ~ age + lwt + C(race, Treatment('white')) * smoke", None),
    ("low ~ race + center(lwt) + scale(age) + C(ptl, levels=[3, 2, 1, 0])", None),
    ("low ~ poly(age, 2) + bs(lwt, df=4) + C(race, contr.sum) + np.log(lwt):smoke", None),
    ("low ~ 0 + race + C(race_code, contr.helmert):lwt + I(age > 25)", None),
    ("race ~ age + lwt + C(smoke)", linclass.LinearDiscriminantAnalysis()),
    ("I(lwt < 120) ~ age + `race code`", linclass.StandardizedClassifier(linclass.LogisticRegression())),
]


@pytest.fixture(scope="module")
def birthwt():
    data = pd.read_csv(HERE / "formula_birthwt.csv")
    return data.assign(**{"race code": pd.Categorical(data.race, ["white", "black", "other"])})


def _new_rows(data):
    """Rows the model has not seen as a frame: a few, of some levels only, reordered."""
    new = data.iloc[[150, 3, 77, 12, 101]].reset_index(drop=True)
    return new.assign(race=["white", "white", "other", "white", "other"])


@pytest.mark.parametrize("formula, estimator", FORMULAS, ids=[f for f, _ in FORMULAS])
def test_a_loaded_formula_model_codes_new_frames_as_the_saved_one(birthwt, tmp_path, formula,
                                                                  estimator):
    model = linclass.from_formula(formula, birthwt, estimator, sample_weight="freq")
    loaded = load(save(model, tmp_path / "m.linclass"))
    assert type(loaded) is linclass.FormulaClassifier
    new = _new_rows(birthwt)
    np.testing.assert_array_equal(loaded.predict_proba(new), model.predict_proba(new))
    np.testing.assert_array_equal(loaded.training_rows(new)[0], model.training_rows(new)[0])
    for field in ("formula", "response", "intercept", "columns", "terms", "variables", "factors",
                  "transforms"):
        assert getattr(loaded.encoding_, field) == getattr(model.encoding_, field), field
    assert loaded.formula_ == model.formula_ and loaded.factor_levels_ == model.factor_levels_
    if "race" in loaded.encoding_.variables:
        with pytest.raises(ValueError, match="did not see"):
            loaded.predict(new.assign(race="asian"))


def test_the_file_holds_the_encoding_as_text_and_lists(birthwt, tmp_path):
    model = linclass.from_formula("low ~ C(race, Treatment('white')) + center(lwt)", birthwt)
    path = save(model, tmp_path / "m.linclass")
    metadata, entries = read_archive(path)
    node = metadata["model"]["state"]["encoding_"]
    assert node["__type__"] == "dataclass" and node["class"] == RECORD
    fields = node["fields"]
    assert fields["formula"] == "1 + C(race, Treatment('white')) + center(lwt)"
    assert fields["response"] == "low"
    factor = fields["factors"]["items"]["C(race, Treatment('white'))"]["items"]
    assert factor["levels"] == ["black", "other", "white"] and factor["reference"] == "white"
    center = fields["transforms"]["items"]["center(lwt)"]["items"]["center"]
    assert center == pytest.approx(birthwt.lwt.mean(), rel=1e-15)
    assert all(not name.endswith(".pkl") for name in entries)
    with zipfile.ZipFile(path) as zf:
        assert b"pickle" not in zf.read("metadata.json")


def _tampered(path, edit):
    metadata, entries = read_archive(path)
    edit(metadata["model"]["state"]["encoding_"]["fields"])
    return write_archive(path.parent / "bad.linclass", metadata, entries)


def _set(key, value):
    return lambda fields: fields.__setitem__(key, value)


def _factor(update):
    def edit(fields):
        update(fields["factors"]["items"]["C(race)"]["items"])
    return edit


@pytest.mark.parametrize("edit, fragment", [
    (_set("formula", "1 + C(race) + I(__import__('os').system('touch marker'))"),
     "calls something other than a formula transform"),
    (_set("formula", "1 + C(race) + {__import__('os').system('touch marker')}"),
     "calls something other"),
    (_set("formula", "1 + C(race) + {__import__('os')}"), "calls '__import__'"),
    (_set("formula", "1 + C(race) + open('marker', 'w')"), "calls 'open'"),
    (_set("formula", "1 + C(race) + np.save('marker', lwt)"), "calls np.save"),
    (_set("formula", "1 + C(race) + I(lwt.__class__)"), "reads the attribute .__class__"),
    (_set("formula", "1 + C(race) + C(lwt, contrasts=exec)"), "reads ['exec'], which is not a column"),
    (_set("formula", "1 + C(race, contr.sum"), "is not a formula"),
    (_set("formula", "low ~ 1 + C(race)"), "must be one right-hand side"),
    (_set("formula", "0 + C(race) + lwt"), "disagree"),
    (_set("response", "__import__('os').system('touch marker')"), "calls something other"),
    (_set("intercept", "yes"), "must be a bool"),
    (_set("columns", {"__type__": "tuple", "items": ["lwt"]}), "do not own exactly the columns"),
    (_factor(lambda f: f.update(levels=["black", "black"])), "distinct strings"),
    (_factor(lambda f: f.update(levels=[{"__type__": "float", "value": "nan"}])), "distinct strings"),
    (_factor(lambda f: f.update(kind="python")), "'kind' of"),
    (_set("transforms", {"__type__": "dict", "items": {"center(lwt)": {"__type__": "ndarray",
                                                                        "entry": "arrays/0.npy"}}}),
     None),
])
def test_damaged_or_hostile_encodings_are_refused(birthwt, tmp_path, monkeypatch, edit, fragment):
    monkeypatch.chdir(tmp_path)
    model = linclass.from_formula("low ~ C(race) + lwt", birthwt)
    bad = _tampered(save(model, tmp_path / "m.linclass"), edit)
    with pytest.raises(ModelFileError) as info:
        load(bad)
    assert str(bad) in str(info.value)
    if fragment is not None:
        assert fragment in str(info.value), str(info.value)
    assert not (tmp_path / "marker").exists() and not (tmp_path / "marker.npy").exists()


def test_a_file_that_drops_a_column_from_the_variables_is_refused(birthwt, tmp_path):
    """A name the terms read must be one of the columns that prediction requires (else it could
    resolve to a Python built-in)."""
    model = linclass.from_formula("low ~ I(lwt * 2) + C(race)", birthwt)
    bad = _tampered(save(model, tmp_path / "m.linclass"),
                    _set("variables", {"__type__": "tuple", "items": ["race"]}))
    with pytest.raises(ModelFileError, match=r"reads \['lwt'\], which is not a column"):
        load(bad)


def test_the_command_prints_a_formula_models_summary(birthwt, tmp_path, capsys):
    from linclass.cli import main

    model = linclass.from_formula("low ~ age + C(race, Treatment('white'))", birthwt)
    path = save(model, tmp_path / "m.linclass")
    assert main(["summary", "--model-file", str(path)]) == 0
    out = capsys.readouterr().out
    assert "C(race, Treatment('white'))[T.black]" in out
    meta = json.loads(zipfile.ZipFile(path).read("metadata.json"))
    assert meta["estimator"] == "FormulaClassifier"


def test_the_golden_formula_file_still_loads_and_predicts_the_same(birthwt):
    """A formula model file of format version 1 (tests/data/make_golden.py): the encoding it holds
    rebuilds the same columns on the same rows."""
    data = Path(__file__).parent / "data"
    model = load(data / "golden_v1_formula_birthwt.linclass")
    recorded = np.load(data / "golden_v1_formula_birthwt_outputs.npz", allow_pickle=False)
    frame = pd.read_csv(HERE / "formula_birthwt.csv")
    np.testing.assert_array_equal(model.predict(frame), recorded["predict"])
    np.testing.assert_allclose(model.predict_proba(frame), recorded["predict_proba"], rtol=1e-10,
                               atol=1e-15)
