"""What the documentation says of the command's chunked fits (docs/guide/command_line.md) and of
the perceptron against scikit-learn (docs/migration/scikit_learn.md), checked: ``fit --chunksize`` fits Firth and L1 models (as the fit in memory) and refuses what needs
every row at once; the perceptron's weights equal scikit-learn's for two classes in a fixed order
only while no row of the second class meets an activation of exactly 0, which mlbench's Sonar
(``tests/data/r/cli/sonar.R``), whose rows start with class R, does on its first row."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.linear_model import Perceptron as SklearnPerceptron

from linclass import Perceptron, load
from linclass.cli import main

ROOT = Path(__file__).resolve().parents[1]
SONAR = ROOT / "tests" / "data" / "r" / "cli" / "sonar.csv"


def _page(path: str) -> str:
    return " ".join((ROOT / "docs" / path).read_text(encoding="utf-8").split())


def _bullet(title: str) -> str:
    text = _page("guide/command_line.md")
    start = text.index(f"- **{title}.**")
    return text[start:text.index(" - **", start + 1)]


def _sonar():
    rows = np.genfromtxt(SONAR, delimiter=",", skip_header=1, dtype=str)
    return rows[:, :-1].astype(float), rows[:, -1]


# ------------------------------------------------------------------------------ big files
def _fit(tmp_path, name, *args):
    out = tmp_path / f"{name}.linclass"
    assert main(["fit", "--model", "logistic", "--data", str(SONAR), "--target", "Class",
                 "--features", *[f"V{j}" for j in range(1, 11)], *args, "--out", str(out)]) == 0
    return load(out)


@pytest.mark.parametrize("params, tol, close", [
    (["--param", "penalty=firth"], [], 1e-5),
    (["--param", "penalty=l1", "--param", "C=0.5"], [], 1e-5),
    (["--param", "penalty=l1", "--param", "C=0.5"], ["--param", "tol=1e-10"], 1e-10)])
def test_chunked_firth_and_l1_fits_are_the_fits_in_memory(tmp_path, capsys, params, tol, close):
    """The same optimum, to the solvers' tolerance (both stop at their own tol)."""
    memory = _fit(tmp_path, "memory", *params, *tol)
    chunked = _fit(tmp_path, "chunked", *params, *tol, "--chunksize", "50")
    capsys.readouterr()
    np.testing.assert_allclose(chunked.coef_, memory.coef_, rtol=close, atol=close)
    np.testing.assert_allclose(chunked.intercept_, memory.intercept_, rtol=close, atol=close)


def test_readme_big_files_says_what_chunksize_refuses(tmp_path, capsys):
    bullet = _bullet("Big files")
    # Firth and L1 are fitted (above), not refused
    assert re.search(r"Firth's \(`--param penalty=firth`\) and an L1 penalty's included", bullet)
    assert "is refused with `--chunksize`" in bullet
    refused = bullet[bullet.index("need every row at once"):]
    assert "firth" not in refused and "L1" not in refused
    assert "`lda --param method=t`" in refused
    code = main(["fit", "--model", "lda", "--param", "method=t", "--data", str(SONAR), "--target",
                 "Class", "--chunksize", "50", "--out", str(tmp_path / "t.linclass")])
    _, err = capsys.readouterr()
    assert code == 2 and "Leave out --chunksize" in err


# ------------------------------------------------------------------------------ perceptron
def _bishop_rule(X, t, epochs):
    """Rosenblatt's rule with Bishop's step f(a) = +1 for a >= 0 (eq. 4.52): update on a pattern
    the step misclassifies, w += t x, b += t."""
    w, b = np.zeros(X.shape[1]), 0.0
    for _ in range(epochs):
        for x, target in zip(X, t):
            a = x @ w + b
            if (target > 0) != (a >= 0):
                w, b = w + target * x, b + target
    return w, b


def _both(X, y, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning of the short runs
        ours = Perceptron(shuffle=False, **params).fit(X, y)
        theirs = SklearnPerceptron(shuffle=False, **params).fit(X, y)
    return ours, theirs


def test_perceptron_on_sonar_in_file_order_follows_the_step_at_zero():
    X, y = _sonar()
    assert y[0] == "R" and list(np.unique(y)) == ["M", "R"]  # the first row is of classes_[1]
    ours, theirs = _both(X, y, max_iter=1, tol=None)
    # scikit-learn updates on the first row (activation 0, y * 0 <= 0); linclass predicts it +1
    assert np.abs(ours.coef_ - theirs.coef_).max() > 0.5
    w, b = _bishop_rule(X, np.where(y == "R", 1.0, -1.0), epochs=1)
    np.testing.assert_array_equal(ours.coef_.ravel(), w)
    assert ours.intercept_[0] == b


@pytest.mark.parametrize("penalty", [None, "l2", "l1", "elasticnet"])
@pytest.mark.parametrize("tol", [None, 1e-3])
def test_perceptron_on_sonar_with_the_first_class_first_is_scikit_learns(penalty, tol):
    X, y = _sonar()
    order = np.r_[np.flatnonzero(y == "M"), np.flatnonzero(y == "R")]
    ours, theirs = _both(X[order], y[order], penalty=penalty, alpha=1e-3, max_iter=20, tol=tol)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, rtol=0, atol=1e-12)
    assert ours.n_iter_ == theirs.n_iter_ and ours.t_ == theirs.t_


def test_readme_states_the_perceptron_condition():
    text = _page("migration/scikit_learn.md")
    assert ("the perceptron's weights equal scikit-learn's for two classes visited in a fixed order "
            "whose first row is of the first class") in text
    assert "mlbench's Sonar, whose rows start with class R" in text
