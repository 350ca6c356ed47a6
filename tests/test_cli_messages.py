"""What the ``linclass`` command says: one clean error for every output file, argparse's exit codes
(2 usage, 1 data or runtime), plain numbers, command-line spelling in hints, a capped confusion
matrix, and help that lists only what applies to each command.

In-process through ``main(argv)``; see test_cli.py for the end-to-end runs.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from conftest import cli, one_error_line
from linclass.cli import main
from linclass.cli.formatting import command_line, plain
from linclass.cli.models import MODELS, parameter_names
from linclass.io.atomic import atomic_write




def write_labels_csv(path, labels, n_features=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(len(labels), n_features)) + np.asarray(labels, dtype=float)[:, None]
    names = [f"f{j}" for j in range(n_features)]
    lines = [",".join([*names, "label"])]
    lines += [",".join([*(repr(float(v)) for v in row), str(label)]) for row, label in zip(X, labels)]
    path.write_text("\n".join(lines) + "\n")
    return path


# ------------------------------------------------------------------------------ output files
def _out_args(command, out, model_file):
    return {
        "fit": ["fit", "--model", "gnb", "--dataset", "iris", "--out", out],
        "predict": ["predict", "--model-file", model_file, "--dataset", "iris", "--out", out],
        "plot": ["plot", "--model", "lda", "--dataset", "iris", "--kind", "regions", "--out", out],
    }[command]


@pytest.fixture(scope="module")
def iris_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "gnb.linclass"
    assert main(["fit", "--model", "gnb", "--dataset", "iris", "--out", str(path)]) == 0
    return path


@pytest.mark.parametrize("command", ["fit", "predict", "plot"])
@pytest.mark.parametrize("where", ["a directory", "under a file", "missing directory"])
def test_every_output_file_has_one_clean_error(command, where, iris_model, tmp_path, capsys):
    """Finding 4: fit and plot printed the temporary file's name ('.m.linclass.8d37...tmp')."""
    pytest.importorskip("matplotlib") if command == "plot" else None
    suffix = {"fit": ".linclass", "predict": ".csv", "plot": ".png"}[command]
    if where == "a directory":
        out = tmp_path / f"taken{suffix}"
        out.mkdir()
        expected = "it is a directory"
    elif where == "under a file":
        (tmp_path / "plain").write_text("")
        out = tmp_path / "plain" / f"x{suffix}"
        expected = "is a file, not a directory"
    else:
        out = tmp_path / "absent" / f"x{suffix}"
        expected = "does not exist"
    before = sorted(p.name for p in tmp_path.iterdir())
    code, stdout, err = cli(_out_args(command, out, iris_model), capsys)
    line = one_error_line(code, err, stdout)
    assert code == 1
    assert f"cannot write {str(out)!r}" in line and expected in line
    assert ".tmp" not in line
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing left behind


def test_atomic_write_names_the_target_when_the_system_refuses(tmp_path, monkeypatch):
    import os

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(args[0]))

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(PermissionError) as caught:
        atomic_write(tmp_path / "m.bin", lambda handle: handle.write(b"x"))
    assert str(caught.value) == f"cannot write {str(tmp_path / 'm.bin')!r}: permission denied"
    assert caught.value.errno == 13


def test_atomic_write_reports_a_failed_rename_by_the_target(tmp_path, monkeypatch):
    import os

    def refuse(src, dst):
        raise OSError(18, "Invalid cross-device link", str(src), None, str(dst))

    monkeypatch.setattr(os, "replace", refuse)
    target = tmp_path / "m.bin"
    with pytest.raises(OSError, match=r"cannot write '.*m\.bin': invalid cross-device link$"):
        atomic_write(target, lambda handle: handle.write(b"x"))
    assert list(tmp_path.iterdir()) == []


def test_an_error_of_the_writer_itself_is_left_as_it_is(tmp_path):
    def write(handle):
        raise ValueError("not storable")

    with pytest.raises(ValueError, match="^not storable$"):
        atomic_write(tmp_path / "m.bin", write)
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------------------- exit codes
@pytest.mark.parametrize("args, fragment", [
    (["evaluate", "--model", "logistic", "--param", "C=-1", "--dataset", "iris"], "'C' parameter"),
    (["evaluate", "--model", "logistic", "--param", "foo=1", "--dataset", "iris"], "unknown parameter"),
    (["fit", "--model", "kfda", "--param", "kernel=banana", "--dataset", "iris", "--out", "m.linclass"],
     "'kernel' parameter"),
    (["compare", "--dataset", "iris", "--models", "perceptron", "--param", "x=1"], "unrecognized"),
])
def test_bad_parameters_are_usage_errors(args, fragment, tmp_path, monkeypatch, capsys):
    """Finding 6: an unknown --param name exited 2 but a bad value exited 1."""
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(args, capsys)
    one_error_line(code, err, out)
    assert code == 2 and fragment in err
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------- numbers and spelling
def test_a_class_label_in_a_warning_is_a_plain_number(tmp_path, capsys):
    """Finding 6: 'class np.float64(1.0) has 3 samples'."""
    labels = [0.0] * 20 + [1.0] * 3
    data = write_labels_csv(tmp_path / "d.csv", labels)
    code, out, err = cli(["evaluate", "--model", "gnb", "--data", data, "--target", "label", "--cv", "4"],
                         capsys)
    assert code == 0, err
    assert "class 1.0 has 3 samples, fewer than the 4 folds" in err
    assert "np." not in err + out


@pytest.mark.parametrize("value, shown", [
    (np.float64(1.0), "1.0"), (np.int64(3), "3"), (np.str_("a"), "'a'"), ("b", "'b'"), (True, "True"),
])
def test_plain(value, shown):
    assert plain(value) == shown


@pytest.mark.parametrize("text, spelled", [
    ("Refit with C=np.inf for those.", "Refit with --param C=inf for those."),
    ("Increase max_iter, or use solver='newton'.", "Increase --param max_iter, or use --param solver=newton."),
    ("Use approximation='nystroem' (time", "Use --param approximation=nystroem (time"),
    ("or try tol=1e-8.", "or try --param tol=1e-8."),
    ("did not converge in max_iter=100 iterations", "did not converge in max_iter=100 iterations"),
    ("collected only with kind='full'.", "collected only with kind='full'."),  # not a model parameter
    ("two-class Firth fits only; use ci='wald'.", "two-class Firth fits only; use --ci wald."),
])
def test_hints_are_spelled_for_the_command_line(text, spelled):
    assert command_line(text, parameter_names()) == spelled


def test_parameter_names_come_from_every_model():
    names = parameter_names()
    assert {"C", "solver", "shrinkage", "kernel", "approximation", "max_iter", "alpha"} <= names
    for entry in MODELS.values():
        direct = {k for k in entry.make().get_params(deep=False) if k != "estimator"}
        assert direct <= names


def test_a_penalised_summary_tells_the_command_line_spelling(tmp_path, capsys):
    """Finding 6: the penalised-fit note told a command-line user to 'refit with C=np.inf'."""
    model = tmp_path / "m.linclass"
    assert main(["fit", "--model", "logistic", "--dataset", "iris", "--out", str(model)]) == 0
    capsys.readouterr()
    code, out, err = cli(["summary", "--model-file", model], capsys)
    assert code == 0, err
    assert "--param C=inf" in out
    assert "np.inf" not in out


def test_a_warning_uses_command_line_spelling(tmp_path, capsys):
    code, out, err = cli(["fit", "--model", "logistic", "--param", "max_iter=2", "--param",
                          "solver=lbfgs", "--dataset", "iris", "--out", tmp_path / "m.linclass"], capsys)
    assert code == 0, err
    assert "ConvergenceWarning" in err
    assert "Increase --param max_iter, or use --param solver=newton" in err


# --------------------------------------------------------------------------- confusion matrix
def test_a_huge_confusion_matrix_is_capped_with_a_note(tmp_path, capsys):
    """Finding 6: evaluate on 71 classes printed a 71 x 71 matrix."""
    labels = np.repeat(np.arange(25), 6)
    data = write_labels_csv(tmp_path / "many.csv", labels, seed=1)
    code, out, err = cli(["evaluate", "--model", "gnb", "--data", data, "--target", "label", "--cv", "3"],
                         capsys)
    assert code == 0, err
    assert "25 classes, too many for a 25 x 25 table (at most 20 are printed)" in out
    confusions = re.findall(r"^(\d+)\s+(\d+)\s+(\d+)$", out.split("most frequent confusions")[1], re.M)
    assert 0 < len(confusions) <= 15
    counts = [int(c[2]) for c in confusions]
    assert counts == sorted(counts, reverse=True) and all(t != p for t, p, _ in confusions)
    assert max(len(line) for line in out.split("confusion matrix")[1].splitlines()) < 100


def test_a_small_confusion_matrix_is_printed_whole(capsys):
    code, out, err = cli(["evaluate", "--model", "lda", "--dataset", "wine", "--cv", "3"], capsys)
    assert code == 0, err
    assert "confusion matrix, summed over folds" in out
    rows = re.findall(r"^class_\d\s+\d+\s+\d+\s+\d+$", out, re.M)
    assert len(rows) == 3


# --------------------------------------------------------------------------------------- help
def _help(command, capsys):
    code, out, _ = cli([command, "--help"], capsys)
    assert code == 0
    return out


@pytest.mark.parametrize("command", ["predict", "summary"])
def test_help_of_commands_without_a_model_lists_no_models(command, capsys):
    """Finding 6: predict --help and summary --help listed every model."""
    out = _help(command, capsys)
    assert "models (--model)" not in out
    assert "ovo-logistic" not in out
    assert ("data sets (--dataset)" in out) == (command == "predict")


@pytest.mark.parametrize("command", ["fit", "evaluate", "compare", "plot"])
def test_help_of_commands_with_a_model_names_the_models_once(command, capsys):
    """Issue 44: the models' list was repeated in four commands' help; it is in 'linclass --help'
    only, and a command's help names the models (its --model values) and points there."""
    out = _help(command, capsys)
    assert "ovo-logistic" in out
    assert "models (--model)" not in out
    assert "Gaussian classes, shared covariance" not in out  # lda's description
    assert "'linclass --help'" in one_line_text(out)


def test_top_level_help_describes_each_model_once(capsys):
    code = main(["--help"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.count("models (--model):") == 1
    assert out.count("Gaussian classes, shared covariance") == 1


def one_line_text(text):
    return " ".join(text.split())


@pytest.mark.parametrize("command, option", [
    ("predict", "--model-file"), ("summary", "--model-file"), ("compare", "--format"),
    ("plot", "--kind"), ("fit", "--features"), ("fit", "--drop"), ("fit", "--scale"),
    ("predict", "--chunksize"),
])
def test_every_option_has_help_text(command, option, capsys):
    """Finding 6: --model-file, --format and --kind had no help text."""
    out = _help(command, capsys)
    entry = re.search(rf"^  {re.escape(option)}\b.*?(?=^  -|\Z)", out, flags=re.M | re.S).group(0)
    words = entry.split()
    assert len(words) > 4, entry  # more than the option and its metavar


def test_plot_help_says_which_kinds_need_a_model(capsys):
    """Finding 6: plot --model showed as optional but is required for three kinds."""
    out = " ".join(_help("plot", capsys).split())
    assert "needed for --kind regions, contours and curve" in out


# ------------------------------------------------------------ summary --ci (issue 24, finding 8)
@pytest.fixture(scope="module")
def firth_file(tmp_path_factory):
    """A Firth fit of a completely separated two-feature problem (30 rows), saved."""
    root = tmp_path_factory.mktemp("firth")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    lines = ["x1,x2,y"] + [f"{float(a)!r},{float(b)!r},{int(a > 0)}" for a, b in X]
    (root / "sep.csv").write_text("\n".join(lines) + "\n")
    model = root / "firth.linclass"
    assert main(["fit", "--model", "logistic", "--param", "penalty=firth", "--data",
                 str(root / "sep.csv"), "--target", "y", "--out", str(model)]) == 0
    return model


def _interval(out, name):
    row = re.search(rf"^{name}\s+(\S+\s+){{4}}(?P<lo>\S+)\s+(?P<hi>\S+)$", out, re.M)
    return float(row.group("lo")), float(row.group("hi"))


def test_a_firth_summary_hints_at_the_command_line_spelling(firth_file, capsys):
    """Finding 8: the separation note advised summary(ci='profile'), which the command cannot do."""
    code, out, err = cli(["summary", "--model-file", firth_file], capsys)
    assert code == 0, err
    assert "separation is present" in out
    assert "--ci profile" in out
    assert "summary(" not in out and "ci='profile'" not in out


def test_summary_ci_profile_prints_the_profile_intervals(firth_file, capsys):
    import pandas as pd

    import linclass

    code, wald, err = cli(["summary", "--model-file", firth_file], capsys)
    assert code == 0, err
    code, same, err = cli(["summary", "--model-file", firth_file, "--ci", "wald"], capsys)
    assert code == 0 and same == wald
    code, out, err = cli(["summary", "--model-file", firth_file, "--ci", "profile"], capsys)
    assert code == 2 and "--data FILE --target COL" in err  # saving computes no profile
    data = str(firth_file.parent / "sep.csv")
    code, out, err = cli(["summary", "--model-file", firth_file, "--ci", "profile", "--data", data,
                          "--target", "y"], capsys)
    assert code == 0, err
    assert "intervals: profile penalised likelihood" in out
    table = pd.read_csv(data)
    expected = linclass.load(firth_file).summary(
        ci="profile", X=table[["x1", "x2"]], y=table["y"]).to_frame()
    for name in ("x1", "x2"):
        lo, hi = _interval(out, name)
        assert _interval(wald, name) != (lo, hi)
        np.testing.assert_allclose([lo, hi], expected.loc[name].iloc[-2:].to_numpy(dtype=float),
                                   rtol=1e-3)


def test_summary_ci_profile_of_a_model_without_profile_intervals(tmp_path, capsys):
    """--ci profile where it does not apply is one error line that says what does."""
    logistic, lda = tmp_path / "l.linclass", tmp_path / "lda.linclass"
    assert main(["fit", "--model", "logistic", "--dataset", "breast_cancer", "--scale",
                 "--out", str(logistic)]) == 0
    assert main(["fit", "--model", "lda", "--dataset", "iris", "--out", str(lda)]) == 0
    capsys.readouterr()
    code, out, err = cli(["summary", "--model-file", logistic, "--ci", "profile"], capsys)
    line = one_error_line(code, err, out)
    assert code == 2 and "--ci profile" in line and "--param penalty=firth" in line
    assert "this model was fitted with penalty='auto'" in line
    code, out, err = cli(["summary", "--model-file", lda, "--ci", "profile"], capsys)
    line = one_error_line(code, err, out)
    assert code == 2 and "--ci profile" in line and "LinearDiscriminantAnalysis" in line
    code, out, err = cli(["summary", "--model-file", lda, "--ci", "exact"], capsys)
    assert code == 2 and "invalid choice" in err


@pytest.mark.parametrize("params", [[], ["--param", "penalty=l1"], ["--param", "C=inf", "--param",
                                                                    "max_iter=3"], "firth"])
def test_no_summary_note_is_spelled_in_python(params, firth_file, tmp_path, capsys):
    """What the summary command prints is said as the command would do it: no Python calls or
    np.inf, whatever the fit."""
    model = firth_file if params == "firth" else tmp_path / "m.linclass"
    if params != "firth":
        data = ["--dataset", "breast_cancer", "--features", "0", "1", "2", "--scale"]
        assert main(["fit", "--model", "logistic", *params, *data, "--out", str(model)]) == 0
        capsys.readouterr()
    rows = ["--data", str(firth_file.parent / "sep.csv"), "--target", "y"]
    for ci in ("wald", "profile") if params == "firth" else ("wald",):
        code, out, err = cli(["summary", "--model-file", model, "--ci", ci,
                              *(rows if ci == "profile" else [])], capsys)
        assert code == 0, err
        notes = "\n".join(line for line in out.splitlines() if line.startswith("Note"))
        assert notes
        assert not re.search(r"\w\((\w+=|\))|np\.|=np", notes), notes


@pytest.mark.parametrize("model, params", [("logistic", ["solver=sgd"]),
                                           ("logistic", ["penalty=l1", "relax=0.5"]),
                                           ("lda", ["method=t"])])
def test_a_model_that_needs_the_rows_in_memory_says_to_leave_out_chunksize(model, params, tmp_path,
                                                                          capsys):
    """fit --chunksize with a model that needs every row at once told a command-line user to 'fit
    on arrays'; the command says which option to leave out."""
    data = write_labels_csv(tmp_path / "d.csv", [0, 1] * 20)
    argv = ["fit", "--model", model, *[a for p in params for a in ("--param", p)], "--data", data,
            "--target", "label", "--chunksize", "8", "--out", tmp_path / "m.linclass"]
    code, out, err = cli(argv, capsys)
    line = one_error_line(code, err, out)
    assert code == 2
    assert line.startswith("linclass: error: --chunksize: ")
    assert "Leave out --chunksize to fit on the whole file in memory" in line
