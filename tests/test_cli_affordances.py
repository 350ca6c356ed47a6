"""The command line's usual affordances (issue 44, item 6): short options, ``--quiet``, ``--data -``
(standard input), ``--format json``, every missing column in one error, ``--target``'s name as
the summary's Dep. Variable, each warning once and without NumPy reprs, and a progress bar on a
long fit (in memory too) that counts its iterations.

In-process through ``main(argv)``.
"""

from __future__ import annotations

import gzip
import io
import json
import re
import sys

import numpy as np
import pandas as pd
import pytest

import linclass
from conftest import cli, one_error_line
from linclass.cli import main
from linclass.core import progress


@pytest.fixture(scope="module")
def wine(tmp_path_factory):
    """The wine data as a CSV file whose label column is 'cultivar'."""
    from linclass.datasets import load_dataset

    X, y, names, _ = load_dataset("wine")
    frame = pd.DataFrame(X, columns=names)
    frame["cultivar"] = np.array(["barolo", "grignolino", "barbera"])[y]
    root = tmp_path_factory.mktemp("affordances")
    frame.to_csv(root / "wine.csv", index=False)
    return {"csv": root / "wine.csv", "frame": frame, "root": root}


def strict_json(text):
    """JSON as a strict parser reads it: NaN and Infinity are not JSON."""
    def refuse(name):
        raise ValueError(f"{name} is not JSON")
    return json.loads(text, parse_constant=refuse)


class _Stdin(io.TextIOWrapper):
    """Standard input that is a pipe (or, with ``tty``, a terminal)."""

    def __init__(self, data: bytes, tty: bool = False):
        super().__init__(io.BufferedReader(io.BytesIO(data)), encoding="utf-8")
        self._tty = tty

    def isatty(self):
        return self._tty


# ------------------------------------------------------------------------------ short options
def test_short_options_fit_predict_and_export(wine, tmp_path, capsys):
    model = tmp_path / "m.linclass"
    code, out, err = cli(["fit", "-m", "lda", "-d", wine["csv"], "-t", "cultivar", "-o", model],
                         capsys)
    assert code == 0, err
    assert linclass.load(model).classes_.tolist() == ["barbera", "barolo", "grignolino"]
    code, out, err = cli(["predict", "--model-file", model, "-d", wine["csv"], "-t", "cultivar",
                          "-o", tmp_path / "p.csv"], capsys)
    assert code == 0, err
    assert (tmp_path / "p.csv").read_text().startswith("prediction\n")
    code, out, err = cli(["evaluate", "-m", "gnb", "-d", wine["csv"], "-t", "cultivar", "--cv", "3"],
                         capsys)
    assert code == 0, err and out.startswith("gnb (GaussianNB)")


# ------------------------------------------------------------------------------------ --quiet
@pytest.mark.parametrize("where", ["before", "after"])
def test_quiet_prints_no_confirmation(wine, tmp_path, capsys, where):
    args = ["fit", "-m", "lda", "-d", wine["csv"], "-t", "cultivar", "-o", tmp_path / "m.linclass"]
    args = ["-q", *args] if where == "before" else [*args, "--quiet"]
    code, out, err = cli(args, capsys)
    assert (code, out, err) == (0, "", "")
    assert (tmp_path / "m.linclass").exists()


def test_quiet_keeps_results_and_drops_hints(tmp_path, capsys):
    """The --scale hint (income in dollars against age in years) goes; the table stays."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    frame = pd.DataFrame({"income": 40_000 + 9_000 * rng.normal(size=200) + 3_000 * y,
                          "age": 45 - 10 * y + 6 * rng.normal(size=200), "label": y})
    frame.to_csv(tmp_path / "people.csv", index=False)
    args = ["evaluate", "-m", "perceptron", "-d", tmp_path / "people.csv", "-t", "label", "--cv", "3"]
    code, out, err = cli(args, capsys)
    assert code == 0 and "linclass: hint:" in err
    code, quiet_out, err = cli(["-q", *args], capsys)
    assert code == 0 and "hint" not in err
    assert quiet_out.splitlines()[:2] == out.splitlines()[:2]


def test_quiet_and_verbose_contradict(wine, tmp_path, capsys):
    code, out, err = cli(["fit", "-q", "-m", "lda", "-d", wine["csv"], "-t", "cultivar", "-o",
                          tmp_path / "m.linclass", "--chunksize", "50", "--verbose"], capsys)
    assert code == 2
    assert "--quiet and --verbose" in one_error_line(code, err, out)


# ------------------------------------------------------------------------------------ --data -
def test_data_from_standard_input(wine, tmp_path, monkeypatch, capsys):
    model = tmp_path / "m.linclass"
    monkeypatch.setattr(sys, "stdin", _Stdin(wine["csv"].read_bytes()))
    code, out, err = cli(["fit", "-m", "lda", "-d", "-", "-t", "cultivar", "-o", model], capsys)
    assert code == 0, err
    assert "on standard input (178 rows, 13 features, 3 classes)" in out
    # predict from a pipe: only some columns, gzip-compressed
    part = wine["frame"].head(5).to_csv(index=False).encode()
    monkeypatch.setattr(sys, "stdin", _Stdin(gzip.compress(part)))
    code, out, err = cli(["predict", "--model-file", model, "-d", "-", "-t", "cultivar"], capsys)
    assert code == 0, err
    assert out.splitlines()[0] == "prediction" and len(out.splitlines()) == 6


def test_data_from_standard_input_chunked(wine, tmp_path, monkeypatch, capsys):
    """A chunked fit reads its data more than once: standard input is kept for its passes."""
    monkeypatch.setattr(sys, "stdin", _Stdin(wine["csv"].read_bytes()))
    code, out, err = cli(["fit", "-m", "logistic", "-d", "-", "-t", "cultivar", "--chunksize",
                          "50", "-o", tmp_path / "m.linclass"], capsys)
    assert code == 0, err
    assert re.search(r"standard input \(178 rows, 13 features, read 50 rows at a time; \d+ "
                     r"passes", out)


def test_standard_input_mistakes(wine, tmp_path, monkeypatch, capsys):
    out_file = tmp_path / "m.linclass"
    monkeypatch.setattr(sys, "stdin", _Stdin(b""))
    code, out, err = cli(["fit", "-m", "lda", "-d", "-", "-t", "cultivar", "-o", out_file], capsys)
    assert "standard input is empty" in one_error_line(code, err, out)
    monkeypatch.setattr(sys, "stdin", _Stdin(b"", tty=True))  # nothing piped: do not wait
    code, out, err = cli(["fit", "-m", "lda", "-d", "-", "-t", "cultivar", "-o", out_file], capsys)
    assert "standard input is a terminal" in one_error_line(code, err, out)
    monkeypatch.setattr(sys, "stdin", _Stdin(b"a,b,label\n1,2,x\n3,4,y\n"))
    code, out, err = cli(["fit", "-m", "lda", "-d", "-", "-t", "cultivar", "-o", out_file], capsys)
    line = one_error_line(code, err, out)
    assert line.startswith("linclass: error: standard input has no column 'cultivar'")
    assert "linclass-stdin" not in line  # the temporary copy is not named
    code, out, err = cli(["fit", "-m", "lda", "-d", "-", wine["csv"], "-t", "cultivar", "-o",
                          out_file], capsys)
    assert "cannot be read with other files" in one_error_line(code, err, out)


# ------------------------------------------------------------------------------ --format json
def test_evaluate_json(wine, capsys):
    code, out, err = cli(["evaluate", "-m", "lda", "-d", wine["csv"], "-t", "cultivar", "--cv", "4",
                          "--format", "json"], capsys)
    assert code == 0, err
    result = strict_json(out)
    assert result["model"] == "lda" and result["class"] == "LinearDiscriminantAnalysis"
    assert result["data"]["rows"] == 178 and len(result["data"]["features"]) == 13
    assert result["cv"] == {"folds": 4, "stratified": True, "shuffled": True, "seed": 0}
    accuracy = result["metrics"]["accuracy"]
    assert len(accuracy["folds"]) == 4
    assert accuracy["mean"] == pytest.approx(np.mean(accuracy["folds"]))
    confusion = np.array(result["confusion_matrix"])
    assert confusion.shape == (3, 3) and confusion.sum() == 178
    assert result["classes"] == ["barbera", "barolo", "grignolino"]


def test_compare_json(wine, capsys):
    code, out, err = cli(["compare", "-d", wine["csv"], "-t", "cultivar", "--cv", "3", "--models",
                          "lda", "perceptron", "--format", "json"], capsys)
    assert code == 0, err
    result = strict_json(out)
    models = {m["model"]: m for m in result["models"]}
    assert set(models) == {"lda", "perceptron"}
    assert models["perceptron"]["log_loss"] is None  # no probabilities
    assert 0 < models["lda"]["log_loss"]["mean"]
    means = [m["accuracy"]["mean"] for m in result["models"]]
    assert means == sorted(means, reverse=True)


def test_summary_json_with_target_name(wine, tmp_path, capsys):
    """JSON of a logistic model's summary: strict JSON (an infinite C is the string "inf"), the
    inference table's fields, and the Dep. Variable named after --target."""
    model = tmp_path / "m.linclass"
    code, out, err = cli(["fit", "-m", "logistic", "--param", "penalty=None", "--param",
                          "max_iter=25", "-d", wine["csv"], "-t", "cultivar",
                          "--features", "alcohol", "hue", "-o", model], capsys)
    assert code == 0, err
    code, out, err = cli(["summary", "--model-file", model, "--format", "json"], capsys)
    assert code == 0, err
    result = strict_json(out)
    assert result["class"] == "linclass.LogisticRegression"
    assert result["parameters"]["penalty"] is None
    assert result["inference"]["dep_variable"] == "cultivar"
    assert "Dep. Variable:" in result["inference"]["text"]
    names = result["inference"]["names"]
    assert names == ["const", "alcohol", "hue"]
    assert np.shape(result["inference"]["coef"]) == (2, 3)
    assert np.asarray(result["fitted_attributes"]["coef_"]).shape == (3, 2)
    # the text summary says the same
    code, out, err = cli(["summary", "--model-file", model], capsys)
    assert re.search(r"Dep\. Variable:\s+cultivar", out)


def test_summary_names_the_target_with_scale(wine, tmp_path, capsys):
    model = tmp_path / "m.linclass"
    code, out, err = cli(["fit", "-m", "logistic", "--scale", "-d", wine["csv"], "-t", "cultivar",
                          "-o", model], capsys)
    assert code == 0, err
    code, out, err = cli(["summary", "--model-file", model], capsys)
    assert code == 0, err
    assert re.search(r"Dep\. Variable:\s+cultivar", out)


def test_json_format_is_offered_where_it_applies(capsys):
    code, out, err = cli(["fit", "-m", "lda", "--dataset", "iris", "-o", "m.linclass", "--format",
                          "json"], capsys)
    assert code == 2 and "unrecognized arguments: --format" in err


# ------------------------------------------------------------------------ every missing column
def test_every_missing_column_in_one_error(wine, tmp_path, capsys):
    model = tmp_path / "m.linclass"
    code, out, err = cli(["fit", "-m", "lda", "-d", wine["csv"], "-t", "cultivar", "-o", model],
                         capsys)
    assert code == 0, err
    part = tmp_path / "part.csv"
    wine["frame"][["alcohol", "hue", "cultivar"]].to_csv(part, index=False)
    code, out, err = cli(["predict", "--model-file", model, "-d", part], capsys)
    line = one_error_line(code, err, out)
    for name in ("malic_acid", "ash", "magnesium", "proline"):
        assert repr(name) in line.split("; its columns")[0]
    code, out, err = cli(["fit", "-m", "lda", "-d", wine["csv"], "-t", "cultivar", "--features",
                          "alcohol", "colour", "acidity", "-o", model], capsys)
    assert "--features 'colour', 'acidity' are neither" in one_error_line(code, err, out)
    code, out, err = cli(["fit", "-m", "lda", "-d", part, "-t", "kind", "--features", "alcohol",
                          "tannin", "-o", model], capsys)
    assert "has no columns 'kind', 'tannin'" in one_error_line(code, err, out)


# ---------------------------------------------------------------------------------- warnings
def test_a_warning_once_without_numpy_reprs(wine, tmp_path, capsys):
    """categorical-nb on measurements: the fit and the training accuracy's prediction both warn
    that the values are not integer codes; the command says it once, with the value as written."""
    code, out, err = cli(["fit", "-m", "categorical-nb", "-d", wine["csv"], "-t", "cultivar", "-o",
                          tmp_path / "m.linclass"], capsys)
    assert code == 0, err
    lines = [line for line in err.splitlines() if line.startswith("linclass: warning:")]
    assert len(lines) == 1, err
    assert "np.float64" not in err and "= 14.23 is not an integer" in lines[0]


# ------------------------------------------------------------------------------ progress bars
class _Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture
def bars(monkeypatch):
    """A terminal on stderr, bars from the start, and the bars made (their counts kept)."""
    tqdm = pytest.importorskip("tqdm").tqdm
    made = []

    class Recorded(tqdm):
        def close(self):
            self.final = self.n
            super().close()

    def recording(*args, **kwargs):
        bar = Recorded(*args, **kwargs)
        made.append(bar)
        return bar

    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "_tqdm", lambda: None if progress._silent else recording)

    def terminal():  # in the test itself: pytest sets its own sys.stderr after the fixtures
        screen = _Terminal()
        monkeypatch.setattr(sys, "stderr", screen)
        return screen
    return made, terminal


def test_a_fit_in_memory_counts_its_iterations(wine, tmp_path, bars):
    made, terminal = bars
    terminal = terminal()
    model = tmp_path / "m.linclass"
    assert main(["fit", "-m", "logistic", "-d", str(wine["csv"]), "-t", "cultivar", "-o",
                 str(model)]) == 0
    fits = [bar for bar in made if bar.desc.startswith("fitting logistic")]
    assert len(fits) == 1
    assert fits[0].final == int(np.max(linclass.load(model).n_iter_)) > 0
    assert "fitting logistic:" in terminal.getvalue() and "iterations" in terminal.getvalue()


def test_a_cross_validated_fit_counts_its_iterations(wine, tmp_path, bars):
    """LogisticRegressionCV (a 24 s fit printed nothing): the folds' paths count their
    iterations."""
    made, terminal = bars
    terminal = terminal()
    assert main(["fit", "-m", "logistic-cv", "--param", "Cs=4", "--param", "cv=3", "-d",
                 str(wine["csv"]), "-t", "cultivar", "-o", str(tmp_path / "m.linclass")]) == 0
    fits = [bar for bar in made if bar.desc == "fitting logistic-cv"]
    folds = int(np.sum(linclass.load(tmp_path / "m.linclass").n_iter_))  # the folds' paths
    assert len(fits) == 1 and fits[0].final >= folds > 0  # and the refit's path after them


def test_a_fit_without_steps_shows_its_seconds(wine, tmp_path, bars):
    made, terminal = bars
    terminal = terminal()
    assert main(["fit", "-m", "kfda", "-d", str(wine["csv"]), "-t", "cultivar", "-o",
                 str(tmp_path / "m.linclass")]) == 0
    assert [bar.desc for bar in made] == ["fitting kfda"]
    assert "iterations" not in terminal.getvalue()


def test_no_bar_when_quiet_or_piped(wine, tmp_path, bars, monkeypatch):
    made, terminal = bars
    terminal = terminal()
    args = ["fit", "-m", "logistic", "-d", str(wine["csv"]), "-t", "cultivar", "-o",
            str(tmp_path / "m.linclass")]
    assert main(["-q", *args]) == 0
    assert made == [] and terminal.getvalue() == ""
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # a pipe
    assert main(args) == 0
    assert all(bar.disable for bar in made)


def test_no_bar_without_tqdm(wine, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setattr(progress, "DELAY", 0.0)
    code, out, err = cli(["fit", "-m", "logistic", "-d", wine["csv"], "-t", "cultivar", "-o",
                          tmp_path / "m.linclass"], capsys)
    assert code == 0 and err == ""


def test_iteration_ticks_count_a_fits_iterations(monkeypatch):
    pytest.importorskip("sklearn.callback")
    from linclass.datasets import load_dataset

    X, y, _, _ = load_dataset("wine")
    counted = []
    monkeypatch.setattr(progress, "tick", lambda n=1: counted.append(n))
    model = linclass.LogisticRegression(max_iter=200).set_callbacks(progress.IterationTicks())
    model.fit(X, y)
    assert sum(counted) == int(np.max(model.n_iter_)) > 0
