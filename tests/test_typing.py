"""Type checkers see linclass's public API.

``import linclass`` imports its names lazily (a module ``__getattr__``), which a type checker cannot
follow; ``src/linclass/__init__.py`` therefore imports every public name under ``if TYPE_CHECKING:``
and hides the ``__getattr__`` from type checkers, and the package ships ``py.typed`` (PEP 561).  These
tests check that the static list equals ``__all__`` (so the two cannot drift apart), and run mypy on a
small user script: a misspelt class is an error, and ``fit`` returns the estimator's own class.

mypy is in the ``test`` extra; without it the mypy test is skipped.  It follows linclass's imports
silently (``--follow-imports=silent``: their bodies are analysed for types, their errors not
reported), which keeps the run to a few seconds of CPU.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import linclass

ROOT = Path(__file__).resolve().parents[1]
INIT = ROOT / "src" / "linclass" / "__init__.py"


def _type_checking_imports(path: Path = INIT) -> dict[str, str]:
    """name -> module of every ``from M import name`` under ``if TYPE_CHECKING:`` in ``path``."""
    names: dict[str, str] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom):
                    for alias in stmt.names:
                        names[alias.asname or alias.name] = stmt.module
    return names


def test_py_typed_is_shipped():
    assert (ROOT / "src" / "linclass" / "py.typed").is_file()


def test_static_names_equal_all():
    static = _type_checking_imports()
    public = set(linclass.__all__) - {"__version__"}
    assert set(static) == public, (
        f"missing under TYPE_CHECKING: {sorted(public - set(static))} (add 'from <its _HOME module> "
        f"import <name>' to the TYPE_CHECKING block of src/linclass/__init__.py); "
        f"not public: {sorted(set(static) - public)}")
    # each imported from the module that the lazy loader imports it from
    wrong = {name: (module, linclass._HOME[name]) for name, module in static.items()
             if module != linclass._HOME[name]}
    assert not wrong, f"TYPE_CHECKING imports from another module than _HOME: {wrong}"


@pytest.mark.parametrize("module", ["plot", "datasets", "chunks"])
def test_public_modules_static_names(module):
    """The public modules that import their names lazily list them for type checkers too."""
    mod = importlib.import_module(f"linclass.{module}")
    path = Path(mod.__file__)
    static = _type_checking_imports(path)
    assert set(static) == set(mod._HOME), (
        f"linclass.{module}: under TYPE_CHECKING {sorted(static)}, lazily imported {sorted(mod._HOME)}")
    for name, home in static.items():
        assert getattr(importlib.import_module(home), name) is getattr(mod, name)


USER_SCRIPT = """\
import numpy as np
import linclass

X = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 2.0], [2.0, 0.5]])
y = np.array([0, 1, 0, 1])
linclass.LogisticRegresion()
reveal_type(linclass.LogisticRegression().fit(X, y))
reveal_type(linclass.GaussianNB().fit(X, y))
reveal_type(linclass.LogisticRegression().fit(X, y).predict_proba(X))

import linclass.plot
linclass.plot.coefficient_pathh
"""


@pytest.mark.slow
def test_mypy_sees_the_api(tmp_path):
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install linclass[test])")
    script = tmp_path / "user.py"
    script.write_text(USER_SCRIPT, encoding="utf-8")
    env = {**os.environ, "MYPY_CACHE_DIR": str(tmp_path / "cache")}
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--follow-imports=silent", "--ignore-missing-imports",
         "--no-error-summary", "--hide-error-context", "--no-pretty", str(script)],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    out = result.stdout + result.stderr
    lines = out.splitlines()
    errors = [line for line in lines if ": error:" in line]
    assert len(errors) == 2, out
    assert "user.py:6:" in errors[0] and 'has no attribute "LogisticRegresion"' in errors[0], out
    assert 'has no attribute "coefficient_pathh"' in errors[1], out
    revealed = [line.split("Revealed type is ", 1)[1].strip('"') for line in lines
                if "Revealed type is" in line]
    assert revealed[:2] == [
        "linclass.estimators.logistic.regression.LogisticRegression",
        "linclass.estimators.naive_bayes.GaussianNB",
    ], textwrap.indent(out, "  ")
    assert revealed[2].startswith("numpy.ndarray"), out
