"""The command's column and scaling options: ``--features`` / ``--drop`` (fit, evaluate, compare,
plot; predict takes the model's own features by name), ``--scale`` (a StandardizedClassifier, saved
and loaded like any model), the ``--scale`` hint, and ``predict --chunksize`` (streamed, atomic).

In-process through ``main(argv)``.
"""

from __future__ import annotations

import csv
import io
import re

import numpy as np
import pandas as pd
import pytest

import linclass
from conftest import cli, one_error_line
from linclass.cli import main




def predictions(text):
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], rows[1:]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """300 rows: an ID column (text), a row number, two informative features on very different
    scales (income in dollars, age in years), a noise feature, and the label."""
    rng = np.random.default_rng(0)
    n = 300
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame({
        "id": [f"p{i:04d}" for i in range(n)],
        "row": np.arange(n, dtype=float),
        "income": np.round(40_000 + 2_000 * y + rng.normal(0, 9_000, n), 2),
        "age": np.round(45 - 12 * y + rng.normal(0, 6, n), 1),
        "noise": np.round(rng.normal(size=n), 4),
        "label": np.where(y == 1, "yes", "no"),
    })
    root = tmp_path_factory.mktemp("options")
    frame.to_csv(root / "people.csv", index=False)
    frame.to_parquet(root / "people.parquet", index=False)
    return {"frame": frame, "csv": root / "people.csv", "parquet": root / "people.parquet", "root": root}


# ------------------------------------------------------------------------- --features / --drop
def test_without_drop_an_id_column_is_refused_or_used(table, tmp_path, capsys):
    """Finding 3: every non-target column was used, an ID column too."""
    code, out, err = cli(["fit", "--model", "lda", "--data", table["csv"], "--target", "label",
                          "--out", tmp_path / "m.linclass"], capsys)
    assert "column 'id' is not numeric" in one_error_line(code, err, out)
    code, out, err = cli(["fit", "--model", "lda", "--data", table["csv"], "--target", "label",
                          "--drop", "id", "row", "--out", tmp_path / "m.linclass"], capsys)
    assert code == 0, err
    model = linclass.load(tmp_path / "m.linclass")
    assert list(model.feature_names_in_) == ["income", "age", "noise"]


@pytest.mark.parametrize("source", ["csv", "parquet"])
def test_features_choose_and_order_the_columns(source, table, tmp_path, capsys):
    out_file = tmp_path / "m.linclass"
    code, out, err = cli(["fit", "--model", "logistic", "--param", "C=inf", "--data", table[source],
                          "--target", "label", "--features", "age", "income", "--out", out_file], capsys)
    assert code == 0, err
    assert "2 features" in out
    model = linclass.load(out_file)
    assert list(model.feature_names_in_) == ["age", "income"]
    frame = table["frame"]
    reference = linclass.LogisticRegression(C=np.inf).fit(frame[["age", "income"]], frame["label"])
    np.testing.assert_allclose(model.coef_, reference.coef_, rtol=1e-6)
    # predict takes the model's own columns by name from a file with more of them
    code, out, err = cli(["predict", "--model-file", out_file, "--data", table[source], "--proba"],
                         capsys)
    assert code == 0, err
    header, rows = predictions(out)
    assert header == ["prediction", "proba_no", "proba_yes"]
    np.testing.assert_allclose([[float(v) for v in r[1:]] for r in rows],
                               reference.predict_proba(frame[["age", "income"]]), rtol=1e-6)


def test_features_and_drop_take_positions_among_the_features(table, capsys):
    # positions count among the feature columns (every column but the target): 2 = income
    code, out, err = cli(["evaluate", "--model", "gnb", "--data", table["csv"], "--target", "label",
                          "--features", "2", "3", "--cv", "3"], capsys)
    assert code == 0, err
    assert "(300 rows, 2 features, 2 classes)" in out
    code, out, err = cli(["compare", "--data", table["csv"], "--target", "label", "--drop", "0", "row",
                          "--models", "lda", "gnb", "--cv", "3"], capsys)
    assert code == 0, err
    assert "(300 rows, 3 features, 2 classes)" in out


def test_drop_on_a_bundled_data_set(capsys):
    code, out, err = cli(["evaluate", "--model", "lda", "--dataset", "iris", "--drop",
                          "sepal length (cm)", "1", "--cv", "3"], capsys)
    assert code == 0, err
    assert "iris (150 rows, 2 features, 3 classes)" in out


@pytest.mark.parametrize("args, message", [
    (["--features", "height"], "--features 'height' is neither a feature name nor a position"),
    (["--drop", "9"], "--drop 9: the data has features 0..4"),
    (["--drop", "id", "row", "income", "age", "noise"], "leave no feature"),
    (["--features", "age", "3"], "--features names the same feature twice"),
])
def test_column_mistakes_are_usage_errors(args, message, table, tmp_path, capsys):
    code, out, err = cli(["fit", "--model", "lda", "--data", table["csv"], "--target", "label", *args,
                          "--out", tmp_path / "m.linclass"], capsys)
    line = one_error_line(code, err, out)
    assert code == 2 and message in line
    assert list(tmp_path.iterdir()) == []


def test_fit_in_chunks_with_drop(table, tmp_path, capsys):
    code, out, err = cli(["fit", "--model", "lda", "--data", table["parquet"], "--target", "label",
                          "--drop", "id", "row", "--chunksize", "64", "--out", tmp_path / "m.linclass"],
                         capsys)
    assert code == 0, err
    model = linclass.load(tmp_path / "m.linclass")
    frame = table["frame"]
    reference = linclass.LinearDiscriminantAnalysis().fit(frame[["income", "age", "noise"]], frame["label"])
    assert list(model.feature_names_in_) == ["income", "age", "noise"]
    np.testing.assert_allclose(model.coef_, reference.coef_, rtol=1e-9)


def test_plot_features_and_drop(table, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "r.svg"
    code, stdout, err = cli(["plot", "--model", "gnb", "--data", table["csv"], "--target", "label",
                             "--kind", "regions", "--drop", "id", "row", "--out", out], capsys)
    assert code == 0, err  # the first two remaining features: income, age
    text = out.read_text()
    assert "income" in text and "age" in text
    code, stdout, err = cli(["plot", "--model", "gnb", "--data", table["csv"], "--target", "label",
                             "--kind", "regions", "--features", "income", "age", "noise", "--out", out],
                            capsys)
    assert code == 2 and "draws two features; --features names 3" in err


def test_gaussian_contours_are_labelled_with_the_feature_names(tmp_path, capsys):
    """Finding 6: Gaussian contour figures labelled the axes x1 / x2."""
    pytest.importorskip("matplotlib")
    out = tmp_path / "c.svg"
    code, stdout, err = cli(["plot", "--model", "qda", "--dataset", "iris", "--kind", "contours",
                             "--features", "petal length (cm)", "petal width (cm)", "--out", out], capsys)
    assert code == 0, err
    text = out.read_text()
    assert "petal length (cm)" in text and "petal width (cm)" in text
    assert ">x1<" not in text and "x1" not in re.findall(r"<!-- (.*?) -->", text)


# ------------------------------------------------------------------------------------ --scale
def test_scale_saves_the_scaler_in_the_model_file(table, tmp_path, capsys):
    model_file = tmp_path / "k.linclass"
    code, out, err = cli(["fit", "--model", "logistic", "--data", table["csv"], "--target", "label",
                          "--drop", "id", "row", "--scale", "--out", model_file], capsys)
    assert code == 0, err
    model = linclass.load(model_file)
    assert type(model).__name__ == "StandardizedClassifier"
    frame = table["frame"]
    X = frame[["income", "age", "noise"]]
    np.testing.assert_allclose(model.mean_, X.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(model.scale_, X.std(axis=0, ddof=0), rtol=1e-12)
    reference = linclass.LogisticRegression(random_state=0).fit((X - X.mean()) / X.std(ddof=0),
                                                                frame["label"])
    np.testing.assert_allclose(model.estimator_.coef_, reference.coef_, rtol=1e-6)
    # predicts on raw data
    code, out, err = cli(["predict", "--model-file", model_file, "--data", table["csv"], "--proba"], capsys)
    assert code == 0, err
    _, rows = predictions(out)
    np.testing.assert_allclose([[float(v) for v in r[1:]] for r in rows],
                               reference.predict_proba((X - X.mean()) / X.std(ddof=0)), rtol=1e-6)
    # and the summary names the features and says they are standardised
    code, out, err = cli(["summary", "--model-file", model_file], capsys)
    assert code == 0, err
    assert "class: linclass.StandardizedClassifier" in out
    assert re.search(r"^income\s+-?\d", out, flags=re.M)
    assert "standard deviation of its feature" in out


def test_scale_changes_a_scale_sensitive_model_only(table, capsys):
    args = ["compare", "--data", table["csv"], "--target", "label", "--drop", "id", "row", "--cv", "3",
            "--format", "csv", "--models", "lda", "kfda"]
    results = {}
    for scale in (False, True):
        code, out, err = cli(args + (["--scale"] if scale else []), capsys)
        assert code == 0, err
        results[scale] = {r["model"]: float(r["accuracy_mean"]) for r in csv.DictReader(io.StringIO(out))}
        assert ("--scale" in err) == (not scale)  # the hint, only without --scale
    assert results[True]["lda"] == pytest.approx(results[False]["lda"], abs=1e-12)  # affine-invariant
    assert results[True]["kfda"] > results[False]["kfda"] + 0.1


def test_the_scale_hint_names_the_features_and_the_models(table, capsys):
    code, out, err = cli(["evaluate", "--model", "perceptron", "--data", table["csv"], "--target",
                          "label", "--drop", "id", "row", "--cv", "3"], capsys)
    assert code == 0, err
    hint = [line for line in err.splitlines() if line.startswith("linclass: hint:")]
    assert len(hint) == 1
    assert "'income'" in hint[0] and "'noise'" in hint[0] and "perceptron" in hint[0]
    assert "try --scale" in hint[0]
    code, out, err = cli(["evaluate", "--model", "lda", "--data", table["csv"], "--target", "label",
                          "--drop", "id", "row", "--cv", "3"], capsys)
    assert code == 0 and "hint" not in err  # LDA does not depend on the units
    code, out, err = cli(["evaluate", "--model", "perceptron", "--dataset", "iris", "--cv", "3"], capsys)
    assert code == 0 and "hint" not in err  # iris' features are on one scale


@pytest.mark.slow
def test_anes96_kernel_fisher_at_chance_unscaled_and_good_scaled(tmp_path, capsys):
    """Finding 3: compare ranked kernel Fisher at chance (0.58) on unscaled anes96, with no hint; a
    scaled fit reaches 0.86 or more."""
    sm = pytest.importorskip("statsmodels.api")
    data = sm.datasets.anes96.load_pandas().data
    data.to_csv(tmp_path / "anes96.csv", index=False)
    args = ["compare", "--data", tmp_path / "anes96.csv", "--target", "vote", "--models", "kfda",
            "--format", "csv"]
    code, out, err = cli(args, capsys)
    assert code == 0, err
    unscaled = float(next(csv.DictReader(io.StringIO(out)))["accuracy_mean"])
    assert unscaled < 0.65
    assert "linclass: hint:" in err and "'popul'" in err and "try --scale" in err
    code, out, err = cli(args + ["--scale"], capsys)
    assert code == 0, err
    assert float(next(csv.DictReader(io.StringIO(out)))["accuracy_mean"]) > 0.86


@pytest.mark.parametrize("args, message", [
    (["fit", "--model", "lda", "--data", "{csv}", "--target", "label", "--drop", "id", "--scale",
      "--chunksize", "10", "--out", "m.linclass"], "--scale needs the rows in memory"),
    (["plot", "--model", "qda", "--dataset", "iris", "--kind", "contours", "--scale", "--out", "c.png"],
     "--scale goes with --kind regions or curve"),
])
def test_scale_refusals(args, message, table, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli([a.format(csv=table["csv"]) for a in args], capsys)
    assert code == 2 and message in one_error_line(code, err, out)


def test_plot_regions_and_curve_with_scale(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    for kind in ("regions", "curve"):
        out = tmp_path / f"{kind}.png"
        code, stdout, err = cli(["plot", "--model", "logistic", "--dataset", "wine", "--kind", kind,
                                 "--scale", "--out", out], capsys)
        assert code == 0, err
        assert out.read_bytes()[:4] == b"\x89PNG"


# ----------------------------------------------------------------------- predict --chunksize
@pytest.fixture(scope="module")
def lda_model(table):
    path = table["root"] / "lda.linclass"
    assert main(["fit", "--model", "lda", "--data", str(table["csv"]), "--target", "label", "--drop",
                 "id", "row", "--out", str(path)]) == 0
    return path


@pytest.mark.parametrize("source", ["csv", "parquet"])
def test_predict_in_chunks_equals_predict_at_once(source, table, lda_model, capsys):
    code, whole, err = cli(["predict", "--model-file", lda_model, "--data", table[source], "--proba",
                            "--target", "label"], capsys)
    assert code == 0, err
    accuracy = re.search(r"accuracy: ([\d.]+) on 300 rows", err).group(1)
    code, chunked, err = cli(["predict", "--model-file", lda_model, "--data", table[source], "--proba",
                              "--target", "label", "--chunksize", "7"], capsys)
    assert code == 0, err
    assert chunked == whole
    assert f"accuracy: {accuracy} on 300 rows" in err


def test_predict_in_chunks_writes_as_it_goes_and_atomically(table, lda_model, tmp_path, monkeypatch,
                                                            capsys):
    """predict --chunksize reads the file a block at a time (fit --chunksize did; predict read the
    whole file), writing each block's predictions before reading the next."""
    import linclass.sources.tables as tables

    real = tables.read_table
    reads = []

    def spy(path, target, *, chunksize=None, features=None, engine=None, carry=None):
        assert chunksize == 50  # never the whole file
        for i, block in enumerate(real(path, target, chunksize=chunksize, features=features,
                                       carry=carry)):
            reads.append(sys.stdout.tell() if hasattr(sys.stdout, "tell") else None)
            if i == 3:
                raise tables.DataError("row 151 holds rubbish")
            yield block

    import sys

    monkeypatch.setattr(tables, "read_table", spy)
    buffer = io.StringIO()
    monkeypatch.setattr(sys, "stdout", buffer)
    code = main(["predict", "--model-file", str(lda_model), "--data", str(table["csv"]),
                 "--chunksize", "50"])
    assert code == 1
    written = buffer.getvalue().splitlines()
    assert written[0] == "prediction" and len(written) == 1 + 150  # three blocks went out
    assert reads[0] == 0 < reads[1] < reads[2]  # each block was written before the next was read
    # with --out: all or nothing
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    code = main(["predict", "--model-file", str(lda_model), "--data", str(table["csv"]),
                 "--chunksize", "50", "--out", str(tmp_path / "p.csv")])
    assert code == 1
    assert list(tmp_path.iterdir()) == []


def test_predict_in_chunks_checks_the_columns_first(table, lda_model, tmp_path, capsys):
    other = tmp_path / "other.csv"
    other.write_text("income,age\n1,2\n")
    code, out, err = cli(["predict", "--model-file", lda_model, "--data", other, "--chunksize", "10"],
                         capsys)
    assert code == 1 and "no column 'noise'" in one_error_line(code, err, out)
    assert out == ""
    code, out, err = cli(["predict", "--model-file", lda_model, "--dataset", "iris", "--chunksize",
                          "10"], capsys)
    assert code == 2 and "--chunksize goes with --data" in err
