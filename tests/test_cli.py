"""Tests of the ``linclass`` command.

End to end in a subprocess (``python -m linclass``) for every command, on bundled data and on small
CSV / Parquet files written here (marked ``slow``: each start-up of the interpreter costs 2-4 s); the
many error paths and option details run in-process through ``main(argv)`` (the same code, without
the start-up), and once more in a subprocess, also under the ``slow`` mark.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from linclass import LogisticRegression
from linclass.cli import MODELS, main, make_model, parse_param

# figures need the optional matplotlib (the 'plot' extra); model files and the multi-class wrappers
# are part of the package, so a test that uses them fails, rather than skips, when they break
HAS_PLOT = importlib.util.find_spec("matplotlib") is not None
needs_plot = pytest.mark.skipif(not HAS_PLOT, reason="matplotlib missing (the 'plot' extra)")

FEATURES = ["f1", "f2", "f3"]


def run(args, cwd, timeout=180):
    """``python -m linclass ARGS`` in ``cwd``; the CompletedProcess (text)."""
    return subprocess.run([sys.executable, "-m", "linclass", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


def cli(args, capsys):
    """``main(ARGS)`` in-process: (exit status, stdout, stderr)."""
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_error_line(code, err, out=""):
    assert code != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("linclass: error: ")
    assert "Traceback" not in err and "Traceback" not in out


def make_data(seed=0, n=60):
    """Two Gaussian classes 'no'/'yes' in three features, with some overlap."""
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n) % 2 == 0, "no", "yes")
    X = rng.normal(size=(n, 3)) + np.where(y == "yes", 1.2, 0.0)[:, None] * np.array([1.0, -0.5, 0.3])
    return np.round(X, 6), y


def write_csv(path, X, y, *, target_at=1):
    """Columns f1, label, f2, f3 (the target in the middle)."""
    header = list(FEATURES)
    header.insert(target_at, "label")
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        for row, label in zip(X, y):
            values = [repr(float(v)) for v in row]
            values.insert(target_at, label)
            writer.writerow(values)
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli-data")
    X, y = make_data()
    paths = {"X": X, "y": y, "csv": write_csv(root / "train.csv", X, y)}
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        paths["parquet"] = None
    else:
        # the columns in another order than the CSV: predict matches them by name
        table = pa.table({"f3": X[:, 2], "label": y, "f2": X[:, 1], "f1": X[:, 0]})
        pq.write_table(table, root / "train.parquet")
        paths["parquet"] = root / "train.parquet"
    rng = np.random.default_rng(1)
    counts_y = np.repeat(["spam", "ham"], 30)
    counts = rng.poisson(np.where(counts_y == "spam", 4.0, 1.5)[:, None] * np.array([1.0, 0.5, 2.0]),
                         size=(60, 3))
    paths["counts"] = write_csv(root / "counts.csv", counts.astype(float), counts_y)
    bad = root / "text.csv"
    bad.write_text("f1,colour,label\n1.0,2,no\n2.0,red,yes\n3.0,4,no\n")
    paths["text"] = bad
    gaps = root / "gaps.csv"
    gaps.write_text("f1,f2,label\n1.0,2,no\n2.0,,yes\n3.0,4,no\n")
    paths["gaps"] = gaps
    (root / "empty.csv").write_text("")
    paths["empty"] = root / "empty.csv"
    paths["root"] = root
    return paths


def read_predictions(text: str):
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], rows[1:]


# ---------------------------------------------------------------------------- end to end (subprocess)
@pytest.mark.slow
def test_fit_predict_summary_end_to_end(files, tmp_path):
    from linclass.io.persistence import load

    fitted = run(["fit", "--model", "logistic", "--data", files["csv"], "--target", "label",
                  "--out", "model.linclass"], cwd=tmp_path)
    assert fitted.returncode == 0, fitted.stderr
    assert "saved to model.linclass" in fitted.stdout
    assert (tmp_path / "model.linclass").is_file()

    source = files["parquet"] or files["csv"]  # Parquet columns in another order
    predicted = run(["predict", "--model-file", "model.linclass", "--data", source, "--target", "label",
                     "--proba"], cwd=tmp_path)
    assert predicted.returncode == 0, predicted.stderr
    header, rows = read_predictions(predicted.stdout)
    assert header == ["prediction", "proba_no", "proba_yes"]
    assert len(rows) == len(files["y"])
    labels = np.array([r[0] for r in rows])
    proba = np.array([[float(v) for v in r[1:]] for r in rows])

    X, y = files["X"], files["y"]
    reference = LogisticRegression(random_state=0).fit(X, y)
    np.testing.assert_array_equal(labels, reference.predict(X))
    np.testing.assert_allclose(proba, reference.predict_proba(X), rtol=1e-10, atol=1e-12)
    model = load(tmp_path / "model.linclass")
    import pandas as pd

    np.testing.assert_array_equal(labels, model.predict(pd.DataFrame(X, columns=FEATURES)))
    assert re.search(r"accuracy: 0\.\d{4} on 60 rows", predicted.stderr)

    summary = run(["summary", "--model-file", "model.linclass"], cwd=tmp_path)
    assert summary.returncode == 0, summary.stderr
    text = summary.stdout
    assert "LogisticRegression" in text and "C = 1.0" in text
    assert re.search(r"coef_: shape \(1, 3\), float64", text)
    for word in ("coef", "std err", "P>|z|", "intercept", "f1", "f2", "f3", "Log-Likelihood"):
        assert word in text
    row = re.search(r"^f1\s+(-?[\d.]+)\s+", text, flags=re.M)
    assert row and float(row.group(1)) == pytest.approx(reference.coef_[0, 0], rel=1e-3)


@pytest.mark.slow
def test_compare_end_to_end_on_iris(tmp_path):
    result = run(["compare", "--dataset", "iris", "--cv", "3"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    row = re.compile(r"^(\S+)\s+([\d.]+) (?:±|\+/-) ([\d.]+)\s+(\S+)\s+([\d.]+)$", flags=re.M)
    rows = row.findall(result.stdout)
    names = [r[0] for r in rows]
    expected = {"lda", "qda", "gnb", "gda", "rda", "rda-cv", "logistic", "logistic-cv", "perceptron",
                "fisher", "kfda", "ovr-logistic", "ovo-logistic", "polr"}
    assert set(names) == expected
    accuracy = [float(r[1]) for r in rows]
    assert all(0.0 <= a <= 1.0 for a in accuracy)
    assert accuracy == sorted(accuracy, reverse=True)
    assert min(accuracy) > 0.8
    log_loss = dict((r[0], r[3]) for r in rows)
    assert log_loss["perceptron"] == "-" and float(log_loss["lda"]) > 0
    for skipped in ("bernoulli-nb", "multinomial-nb", "poisson-nb"):
        assert re.search(rf"{skipped}: features are not non-negative counts", result.stdout)
    assert "\r" not in result.stderr and "it/s" not in result.stderr  # no progress bar when piped


@pytest.mark.slow
def test_evaluate_end_to_end_on_parquet(files, tmp_path):
    source = files["parquet"] or files["csv"]
    result = run(["evaluate", "--model", "lda", "--data", source, "--target", "label", "--cv", "3"],
                 cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    accuracy = float(re.search(r"^accuracy\s+([\d.]+)", out, flags=re.M).group(1))
    assert 0.5 < accuracy <= 1.0
    assert re.search(r"^log-loss\s+[\d.]+", out, flags=re.M)
    assert re.search(r"^fit seconds\s+[\d.]+", out, flags=re.M)
    matrix = re.findall(r"^(no|yes)\s+(\d+)\s+(\d+)$", out, flags=re.M)
    assert [m[0] for m in matrix] == ["no", "yes"]
    counts = np.array([[int(m[1]), int(m[2])] for m in matrix])
    assert counts.sum() == 60 and counts.sum(axis=1).tolist() == [30, 30]
    assert np.trace(counts) / 60 == pytest.approx(accuracy, abs=0.02)


@pytest.mark.slow
@needs_plot
def test_plot_end_to_end(tmp_path):
    result = run(["plot", "--model", "qda", "--dataset", "iris", "--kind", "regions",
                  "--features", "2", "petal width (cm)", "--out", "regions.png"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "regions.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_errors_end_to_end(files, tmp_path):
    usage = run(["fit", "--model", "svm", "--dataset", "iris", "--out", "m.linclass"], cwd=tmp_path)
    assert usage.returncode == 2
    assert_one_error_line(usage.returncode, usage.stderr, usage.stdout)
    assert "unknown model 'svm'" in usage.stderr and "lda, qda" in usage.stderr
    data = run(["evaluate", "--model", "lda", "--data", files["text"], "--target", "label"],
               cwd=tmp_path)
    assert data.returncode == 1
    assert_one_error_line(data.returncode, data.stderr, data.stdout)
    assert "column 'colour' is not numeric: row 2 holds 'red'" in data.stderr
    assert not list(tmp_path.iterdir())  # nothing written


# ------------------------------------------------------------------------------------ error paths
ERRORS = {
    "missing data file": (["fit", "--model", "lda", "--data", "absent.csv", "--target", "label",
                           "--out", "m.linclass"], 1, "no such file"),
    "unknown column": (["fit", "--model", "lda", "--data", "{csv}", "--target", "species",
                        "--out", "m.linclass"], 1, "no column 'species'; its columns are: 'f1', 'label'"),
    "non-numeric feature": (["evaluate", "--model", "lda", "--data", "{text}", "--target", "label"], 1,
                            "column 'colour' is not numeric: row 2 holds 'red'"),
    "missing value": (["compare", "--data", "{gaps}", "--target", "label"], 1,
                      "column 'f2' has a missing value in row 2"),
    "empty file": (["evaluate", "--model", "lda", "--data", "{empty}", "--target", "label"], 1, "empty"),
    "unknown extension": (["evaluate", "--model", "lda", "--data", "d.xlsx", "--target", "y"], 1,
                          "unknown file type '.xlsx'"),
    "unknown model": (["evaluate", "--model", "svm", "--dataset", "iris"], 2,
                      "unknown model 'svm'; choose from: lda, qda, gnb"),
    "unknown data set": (["compare", "--dataset", "mnist"], 2, "unknown data set 'mnist'"),
    "wrong model file": (["predict", "--model-file", "{csv}", "--dataset", "iris"], 1, "train.csv"),
    "missing model file": (["summary", "--model-file", "absent.linclass"], 1, "no such model file"),
    "malformed --param": (["fit", "--model", "logistic", "--param", "C", "--dataset", "iris",
                           "--out", "m.linclass"], 2, "not of the form key=value"),
    "unknown --param": (["evaluate", "--model", "lda", "--param", "C=1", "--dataset", "iris"], 2,
                        "unknown parameter 'C' for lda (LinearDiscriminantAnalysis); its parameters"),
    "invalid --param value": (["evaluate", "--model", "logistic", "--param", "C=-1", "--dataset",
                               "iris", "--cv", "3"], 2,
                              "bad --param value for logistic: The 'C' parameter of LogisticRegression"),
    "invalid --param value of a wrapped model": (["fit", "--model", "ovr-logistic", "--param",
                                                  "solver=fast", "--dataset", "iris", "--out",
                                                  "m.linclass"], 2, "'solver' parameter"),
    "--data without --target": (["evaluate", "--model", "lda", "--data", "{csv}"], 2, "needs --target"),
    "--target with --dataset": (["evaluate", "--model", "lda", "--dataset", "iris", "--target", "y"], 2,
                                "--target goes with --data"),
    "--data and --dataset": (["compare", "--data", "{csv}", "--dataset", "iris"], 2, "not allowed"),
    "bad --cv": (["compare", "--dataset", "iris", "--cv", "1"], 2, "--cv must be an integer >= 2"),
    "too many folds": (["compare", "--dataset", "iris", "--cv", "51"], 1, "more folds"),
    "no command": ([], 2, "required: COMMAND"),
    "bad figure name": (["plot", "--model", "lda", "--dataset", "iris", "--kind", "regions",
                         "--out", "f.jpg"], 2, "must end in .png"),
    "plot kind and model": (["plot", "--model", "logistic", "--dataset", "iris", "--kind", "contours",
                             "--out", "f.png"], 2, "--kind contours draws lda, qda, gnb, gda, rda, rda-cv models"),
    "unknown feature": (["plot", "--model", "lda", "--dataset", "iris", "--kind", "regions",
                         "--features", "0", "colour", "--out", "f.png"], 2, "neither a feature name nor"),
    "nothing to compare": (["compare", "--data", "{csv}", "--target", "label", "--models",
                            "multinomial-nb", "poisson-nb"], 1, "no model could be compared: multinomial-nb"),
    "fisher needs two classes": (["plot", "--dataset", "iris", "--kind", "fisher", "--out", "f.png"], 1,
                                 "choose two with --classes"),
}


def _argv(args, files):
    return [a.format(**{k: v for k, v in files.items() if isinstance(v, Path)}) for a in args]


@pytest.mark.parametrize("case", list(ERRORS))
def test_error_paths(case, files, tmp_path, monkeypatch, capsys):
    args, status, message = ERRORS[case]
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(_argv(args, files), capsys)
    assert code == status, err
    assert_one_error_line(code, err, out)
    assert message in err
    assert out == ""


@pytest.mark.slow
@pytest.mark.parametrize("case", ["missing data file", "unknown column", "wrong model file",
                                  "malformed --param", "unknown --param", "missing value",
                                  "no command"])
def test_error_paths_in_a_subprocess(case, files, tmp_path):
    args, status, message = ERRORS[case]
    result = run(_argv(args, files), cwd=tmp_path)
    assert result.returncode == status, result.stderr
    assert_one_error_line(result.returncode, result.stderr, result.stdout)
    assert message in result.stderr


def test_debug_environment_shows_the_traceback(files, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LINCLASS_DEBUG", "1")
    from linclass.sources.tables import DataError

    with pytest.raises(DataError, match="no such file"):
        main(["evaluate", "--model", "lda", "--data", "absent.csv", "--target", "y"])


# ---------------------------------------------------------------------------------- options, help
def test_help_lists_every_model(capsys):
    code, out, _ = cli(["--help"], capsys)
    assert code == 0
    for alias in ("lda", "qda", "gnb", "gda", "bernoulli-nb", "multinomial-nb", "poisson-nb", "logistic",
                  "perceptron", "fisher", "kfda", "ovr-logistic", "ovo-logistic"):
        assert re.search(rf"^\s+{alias}\s+\w+", out, flags=re.M), alias
    code, out, _ = cli(["compare", "--help"], capsys)
    assert code == 0 and "example:" in out and "--models" in out and "ovo-logistic" in out


def test_help_and_refusals_come_from_the_registry(files, tmp_path, monkeypatch, capsys):
    from linclass import registry

    monkeypatch.chdir(tmp_path)

    code, out, _ = cli(["--help"], capsys)
    assert code == 0
    for entry in registry.ENTRIES:
        if entry.alias is not None:
            assert re.search(rf"^\s+{re.escape(entry.alias)}\s+{entry.name}: {re.escape(entry.summary)}$",
                             out, flags=re.M), entry.alias
    chunked = [e.alias for e in registry.entries("chunks") if e.alias is not None]
    code, out, _ = cli(["fit", "--help"], capsys)
    assert code == 0 and ", ".join(chunked[:2]) in " ".join(out.split())
    code, out, err = cli(["fit", "--model", "kfda", "--data", files["csv"], "--target", "label",
                          "--chunksize", "10", "--out", "never.linclass"], capsys)
    assert code == 2
    assert_one_error_line(code, err, out)
    assert f"chunked fits work for {', '.join(chunked)}" in err
    curves = [e.alias for e in registry.entries("curve") if e.alias is not None]
    code, out, err = cli(["plot", "--model", "lda", "--dataset", "iris", "--kind", "curve",
                          "--out", "never.png"], capsys)
    assert code == 2 and f"--kind curve draws {', '.join(curves)} models; not lda" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("text, expected", [
    ("C=0.5", ("C", 0.5)), ("max_iter=50", ("max_iter", 50)), ("fit_intercept=false", ("fit_intercept", False)),
    ("pocket=True", ("pocket", True)), ("shrinkage=None", ("shrinkage", None)), ("C=inf", ("C", np.inf)),
    ("solver=lbfgs", ("solver", "lbfgs")), ("priors=[0.3, 0.7]", ("priors", [0.3, 0.7])),
    ("tol=1e-8", ("tol", 1e-8)), ("shrinkage=auto", ("shrinkage", "auto")), ("n=-3", ("n", -3)),
    ("solver='newton'", ("solver", "newton")), ('solver="lbfgs"', ("solver", "lbfgs")),
    ("name='1'", ("name", "1")), ("solver='", ("solver", "'")),
])
def test_parse_param(text, expected):
    assert parse_param(text) == expected


@pytest.mark.parametrize("text", ["C", "=1", "1x=2", "priors=[0.3,"])
def test_parse_param_rejects(text):
    import argparse

    with pytest.raises(argparse.ArgumentTypeError):
        parse_param(text)


def test_make_model_sets_parameters_and_seed():
    model = make_model("logistic", {"C": 0.5, "solver": "lbfgs"})
    assert isinstance(model, LogisticRegression)
    assert (model.C, model.solver, model.random_state) == (0.5, "lbfgs", 0)
    assert make_model("perceptron", {"random_state": None}).random_state is None
    assert set(MODELS) >= {"lda", "kfda", "ovr-logistic", "ovo-logistic"}


def test_make_model_routes_parameters_to_the_wrapped_logistic():
    model = make_model("ovr-logistic", {"C": 2.0})
    assert type(model).__name__ == "OneVsRestClassifier"
    assert model.estimator.C == 2.0


def test_model_name_accepts_class_names(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(["evaluate", "--model", "GaussianNB", "--dataset", "iris", "--cv", "3"], capsys)
    assert code == 0, err
    assert out.startswith("gnb (GaussianNB) on iris (150 rows, 4 features, 3 classes)")
    assert re.search(r"^setosa\s+50\s+0\s+0$", out, flags=re.M)  # confusion matrix sums the folds


def test_evaluate_perceptron_has_no_log_loss(capsys):
    code, out, err = cli(["evaluate", "--model", "perceptron", "--dataset", "iris", "--cv", "3"], capsys)
    assert code == 0
    assert not re.search(r"^log-loss", out, flags=re.M)
    assert "no log-loss: Perceptron gives no probabilities" in out
    # warnings (if any) come as single lines, once per kind
    assert all(line.startswith("linclass: warning: ") for line in err.splitlines())


def test_compare_includes_count_models_on_counts(files, capsys):
    code, out, err = cli(["compare", "--data", files["counts"], "--target", "label", "--cv", "3",
                          "--format", "csv"], capsys)
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    names = {r["model"] for r in rows}
    assert {"bernoulli-nb", "multinomial-nb", "poisson-nb", "lda", "logistic"} <= names
    assert all(0.0 <= float(r["accuracy_mean"]) <= 1.0 for r in rows)
    assert next(r for r in rows if r["model"] == "perceptron")["log_loss"] == ""
    accuracy = [float(r["accuracy_mean"]) for r in rows]
    assert accuracy == sorted(accuracy, reverse=True)


def test_compare_explicit_models_and_kfda_approximation(files, capsys, monkeypatch):
    import linclass.cli.commands as commands_module

    monkeypatch.setattr(commands_module, "_KERNEL_EXACT_MAX_ROWS", 50)
    code, out, err = cli(["compare", "--data", files["csv"], "--target", "label", "--cv", "3",
                          "--models", "kfda", "gnb"], capsys)
    assert code == 0, err
    assert re.search(r"^kfda \(nystroem\)\s+[\d.]+ (?:±|\+/-)", out, flags=re.M)
    assert re.search(r"^gnb\s+[\d.]+ (?:±|\+/-)", out, flags=re.M)
    assert "lda" not in out


def test_compare_reports_a_failing_model_and_goes_on(files, capsys):
    # MultinomialNB refuses negative features: asked for explicitly, it fails and is reported
    code, out, err = cli(["compare", "--data", files["csv"], "--target", "label", "--cv", "3",
                          "--models", "multinomial-nb", "lda"], capsys)
    assert code == 0, err
    assert re.search(r"^lda\s+[\d.]+ (?:±|\+/-)", out, flags=re.M)
    assert re.search(r"multinomial-nb: failed: ValueError: Negative values", out)


# --------------------------------------------------------------------------- predict, summary, plot
@pytest.fixture(scope="module")
def lda_file(files, tmp_path_factory):
    path = tmp_path_factory.mktemp("models") / "lda.linclass"
    assert main(["fit", "--model", "lda", "--data", str(files["csv"]), "--target", "label",
                 "--out", str(path)]) == 0
    return path


def test_predict_to_file_atomically(files, lda_file, tmp_path, capsys):
    from linclass.io.persistence import load

    out = tmp_path / "predictions.csv"
    code, stdout, err = cli(["predict", "--model-file", lda_file, "--data", files["csv"], "--proba",
                             "--out", out], capsys)
    assert code == 0, err
    assert stdout == "" and "wrote 60 predictions" in err
    assert [p.name for p in tmp_path.iterdir()] == ["predictions.csv"]  # no temporary file left
    reference = tmp_path / "reference.txt"
    reference.write_text("")
    assert out.stat().st_mode == reference.stat().st_mode  # usual permissions, not mkstemp's 0600
    header, rows = read_predictions(out.read_text())
    assert header == ["prediction", "proba_no", "proba_yes"] and len(rows) == 60
    import pandas as pd

    model = load(lda_file)
    frame = pd.DataFrame(files["X"], columns=FEATURES)
    assert [r[0] for r in rows] == model.predict(frame).tolist()
    np.testing.assert_allclose([[float(v) for v in r[1:]] for r in rows], model.predict_proba(frame))


def test_predict_errors_with_a_model(files, lda_file, tmp_path, capsys):
    other = tmp_path / "other.csv"
    other.write_text("a,b,c\n1,2,3\n")
    code, out, err = cli(["predict", "--model-file", lda_file, "--data", other], capsys)
    assert code == 1
    assert_one_error_line(code, err, out)
    assert "no columns 'f1', 'f2', 'f3'" in err  # every missing column, in one line
    code, out, err = cli(["predict", "--model-file", lda_file, "--data", files["csv"],
                          "--out", tmp_path / "absent-dir" / "p.csv"], capsys)
    assert code == 1 and "does not exist" in err


@pytest.mark.parametrize("command", ["fit", "predict", "plot"])
def test_out_in_a_missing_directory_is_one_clean_error(command, files, lda_file, tmp_path, capsys):
    if command == "plot" and not HAS_PLOT:
        pytest.skip("matplotlib missing (the 'plot' extra)")
    missing = tmp_path / "absent-dir"
    args = {
        "fit": ["fit", "--model", "gnb", "--data", files["csv"], "--target", "label",
                "--out", missing / "m.linclass"],
        "predict": ["predict", "--model-file", lda_file, "--data", files["csv"],
                    "--out", missing / "p.csv"],
        "plot": ["plot", "--model", "lda", "--dataset", "iris", "--kind", "regions",
                 "--out", missing / "f.png"],
    }[command]
    code, out, err = cli(args, capsys)
    assert code == 1
    assert_one_error_line(code, err, out)
    assert f"directory {str(missing)!r} does not exist" in err
    assert ".tmp" not in err  # the user's path, never the temporary file's
    assert not missing.exists() and list(tmp_path.iterdir()) == []


def test_predict_proba_of_a_perceptron_is_an_error(files, tmp_path, capsys):
    model = tmp_path / "p.linclass"
    assert main(["fit", "--model", "perceptron", "--param", "max_epochs=20", "--data", str(files["csv"]),
                 "--target", "label", "--out", str(model)]) == 0
    capsys.readouterr()
    code, out, err = cli(["predict", "--model-file", model, "--data", files["csv"], "--proba"], capsys)
    assert code == 1
    assert_one_error_line(code, err, out)
    assert "Perceptron gives no probabilities" in err


def test_summary_of_a_generative_model(lda_file, capsys):
    code, out, err = cli(["summary", "--model-file", lda_file], capsys)
    assert code == 0, err
    assert "class: linclass.LinearDiscriminantAnalysis" in out
    assert re.search(r"means_: shape \(2, 3\), float64", out)
    assert re.search(r"classes_: shape \(2,\), <U3: \['no' 'yes'\]", out)
    assert "std err" not in out  # the inference table is LogisticRegression's
    # LDA's summary, as MASS's print.lda
    assert "Prior probabilities of groups:" in out and "Coefficients of linear discriminants:" in out
    assert "Proportion of trace:" not in out  # two classes: one discriminant, as MASS prints it


def test_fit_and_predict_without_pandas(files, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pandas", None)
    model = tmp_path / "m.linclass"
    code, out, err = cli(["fit", "--model", "gnb", "--data", files["csv"], "--target", "label",
                          "--out", model], capsys)
    assert code == 0, err
    code, out, err = cli(["predict", "--model-file", model, "--data", files["csv"], "--target", "label"],
                         capsys)
    assert code == 0, err
    header, rows = read_predictions(out)
    assert header == ["prediction"] and len(rows) == 60


@needs_plot
@pytest.mark.parametrize("args", [
    ["--kind", "fisher", "--dataset", "iris", "--classes", "versicolor", "virginica"],
    ["--kind", "contours", "--model", "gnb", "--dataset", "wine", "--features", "0", "6"],
    ["--kind", "curve", "--model", "logistic", "--data", "{csv}", "--target", "label"],
    ["--kind", "regions", "--model", "perceptron", "--param", "max_epochs=30", "--data", "{csv}",
     "--target", "label", "--features", "f3", "f1"],
])
def test_plot_kinds(args, files, tmp_path, capsys):
    out = tmp_path / "figure.svg"
    code, stdout, err = cli(["plot", *_argv(args, files), "--out", out], capsys)
    assert code == 0, err
    assert out.read_text().lstrip().startswith("<?xml")
    assert stdout.strip() == f"wrote {out}"


@needs_plot
def test_plot_without_matplotlib_says_how_to_install(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, out, err = cli(["plot", "--model", "lda", "--dataset", "iris", "--kind", "regions",
                          "--out", tmp_path / "f.png"], capsys)
    assert code == 1
    assert_one_error_line(code, err, out)
    assert "pip install linclass[plot]" in err


def test_penalised_logistic_from_the_command(tmp_path, capsys):
    """--param penalty=l1 / elasticnet reach the penalised fit; summary prints its honest table."""
    model = tmp_path / "l1.linclass"
    code, out, err = cli(["fit", "--model", "logistic", "--param", "penalty=l1", "--param", "C=0.05",
                          "--dataset", "breast_cancer", "--scale", "--out", model], capsys)
    assert code == 0, err
    code, out, err = cli(["summary", "--model-file", model], capsys)
    assert code == 0, err
    assert "L1 (lasso), C=0.05" in out and "Optimality violation" in out and "P>|z|" not in out
    code, out, err = cli(["evaluate", "--model", "logistic", "--param", "penalty=elasticnet",
                          "--param", "l1_ratio=0.5", "--dataset", "breast_cancer", "--scale"], capsys)
    assert code == 0, err
    code, out, err = cli(["evaluate", "--model", "logistic-cv", "--param", "penalty=l1", "--param",
                          "Cs=5", "--dataset", "iris"], capsys)
    assert code == 0, err
