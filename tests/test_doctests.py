"""The Examples of the public API's docstrings run, and every public estimator and function has an
Examples and a See Also section (numpydoc), as the API pages show them.

The public objects are the names of ``linclass.__all__`` and of the public modules' ``__all__``
(``linclass.plot``, ``linclass.datasets``, ``linclass.chunks``, ``linclass.geometry``).  Each one's
own ``__doc__`` is run as a doctest (its methods' are not collected here), with NumPy's repr of
arrays; the examples fit small bundled data sets (iris, wine, breast cancer, digits) and show
shapes, labels and rounded numbers, so their output does not depend on the platform.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import re

import pytest

import linclass
from linclass import registry

PUBLIC_MODULES = ("plot", "datasets", "chunks", "geometry")
#: optional packages some examples need (their extras), by object
NEEDS = {
    "linclass.to_onnx": ("skl2onnx", "onnxruntime"),
    "linclass.from_formula": ("pandas", "formulaic"),
    "linclass.FormulaClassifier": ("pandas", "formulaic"),
    "linclass.diagnostics": ("pandas", "formulaic"),
    "linclass.drop1": ("pandas", "formulaic"),
    "linclass.lr_test": ("pandas", "formulaic"),
    **{f"linclass.plot.{name}": ("matplotlib",) for name in (
        "coefficient_path", "cv_curve", "decision_regions", "fisher_figure", "gaussian_contours",
        "gaussian_surface", "training_curve")},
}


def public_names() -> list[str]:
    names = [f"linclass.{name}" for name in linclass.__all__ if name != "__version__"]
    for module in PUBLIC_MODULES:
        mod = importlib.import_module(f"linclass.{module}")
        names += [f"linclass.{module}.{name}" for name in mod.__all__]
    return names


def resolve(name: str):
    module, _, attr = name.rpartition(".")
    return getattr(importlib.import_module(module), attr)


def _section(doc: str, title: str) -> bool:
    return re.search(rf"^[ \t]*{title}\n[ \t]*-{{3,}}[ \t]*$", doc, re.MULTILINE) is not None


def needs_sections() -> list[str]:
    """The estimators of the registry and the public functions."""
    names = [f"linclass.{entry.name}" for entry in registry.ENTRIES]
    names += [name for name in public_names() if inspect.isfunction(inspect.unwrap(resolve(name)))]
    return sorted(set(names))


def with_examples() -> list[str]:
    return sorted(name for name in public_names()
                  if isinstance(resolve(name).__doc__, str) and ">>>" in resolve(name).__doc__)


def test_the_lists_are_not_empty():
    assert len(needs_sections()) >= 45
    assert len(with_examples()) >= 45


@pytest.mark.parametrize("name", needs_sections())
def test_examples_and_see_also(name):
    doc = resolve(name).__doc__ or ""
    missing = [title for title in ("Examples", "See Also") if not _section(doc, title)]
    assert not missing, f"{name}'s docstring has no {' or '.join(missing)} section"
    see_also = doc.split("See Also", 1)[1]
    assert "linclass." in see_also.split("Examples", 1)[0], f"{name}: See Also names no linclass object"


@pytest.mark.parametrize("name", with_examples())
def test_docstring_examples_run(name):
    for package in NEEDS.get(name, ()):
        pytest.importorskip(package)
    obj = resolve(name)
    finder = doctest.DocTestFinder(recurse=False)
    tests = finder.find(obj, name, globs={})
    assert tests and tests[0].examples, f"{name}: no examples found"
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    failures = []
    for test in tests:
        runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)
