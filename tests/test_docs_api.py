"""The API reference covers the public API, without building it (tests/test_docs_build.py builds it).

``docs/api/index.rst`` lists the public names in ``autosummary`` tables under ``currentmodule``
directives; each name gets a page generated from its docstring.  These tests read that file as text and
check, in well under a second:

* every name of ``linclass.__all__`` (but ``__version__``) and of ``linclass.plot.__all__``, the records
  that the inference methods return, and every estimator of the registry has an entry;
* every entry imports (a stale name would make the build fail later, and less clearly);
* the capabilities extension (``docs/_ext/linclass_capabilities.py``) has a phrase for every capability
  of :data:`linclass.registry.CAPABILITIES`, and no phrase for an unknown one;
* no docstring under ``src/linclass`` cites the course notes the first derivations came from, or
  ``docs/derivations.md`` (the derivations are the documentation's mathematics pages now);
* each documented class and function has a docstring, with a ``Parameters`` section when it takes
  parameters (a record, a dataclass or an exception, documents its fields under ``Attributes``).
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import re
import sys
from pathlib import Path

import pytest

import linclass
import linclass.plot
from linclass import registry

ROOT = Path(__file__).resolve().parents[1]
INDEX = ROOT / "docs" / "api" / "index.rst"
EXTENSIONS = ROOT / "docs" / "_ext"
SRC = ROOT / "src" / "linclass"

#: the records the inference methods return, documented by their modules' paths
RECORDS = (
    "linclass.linear.inference.summary.Summary",
    "linclass.linear.inference.prediction.PredictionResults",
    "linclass.linear.inference.diagnostics.Diagnostics",
    "linclass.projection.lda_summary.LDASummary",
)

_CURRENTMODULE = re.compile(r"^\.\. (?:current)?module:: (\S+)\s*$")
_AUTOSUMMARY = re.compile(r"^\.\. autosummary::\s*$")


def documented_names(text: str) -> list[str]:
    """The full dotted names of the entries of the autosummary tables of ``text``, each prefixed by
    the module of the ``currentmodule`` directive in force (as autosummary resolves them)."""
    names, module, in_table = [], None, False
    for line in text.splitlines():
        if match := _CURRENTMODULE.match(line):
            module, in_table = match.group(1), False
        elif _AUTOSUMMARY.match(line):
            in_table = True
        elif in_table:
            if not line.strip() or line.lstrip().startswith(":"):
                continue  # the options, and the blank line before the entries
            if not line.startswith("   "):
                in_table = False  # the table ends at the first unindented line
                continue
            entry = line.strip().lstrip("~")
            names.append(entry if module is None else f"{module}.{entry}")
    return names


@pytest.fixture(scope="module")
def documented() -> list[str]:
    return documented_names(INDEX.read_text(encoding="utf-8"))


def _resolve(name: str):
    module, _, attr = name.rpartition(".")
    return getattr(importlib.import_module(module), attr)


def test_reader_of_the_index():
    text = ("Intro\n\n.. currentmodule:: linclass\n\n.. autosummary::\n   :toctree: generated\n\n"
            "   LogisticRegression\n   save\n\nSection\n-------\n\n.. currentmodule:: linclass.plot\n\n"
            ".. autosummary::\n   :nosignatures:\n\n   decision_regions\n")
    assert documented_names(text) == ["linclass.LogisticRegression", "linclass.save",
                                      "linclass.plot.decision_regions"]


def test_every_public_name_is_documented(documented):
    public = [f"linclass.{name}" for name in linclass.__all__ if name != "__version__"]
    public += [f"linclass.plot.{name}" for name in linclass.plot.__all__]
    public += list(RECORDS)
    missing = sorted(set(public) - set(documented))
    assert not missing, f"not in docs/api/index.rst's autosummary tables: {missing}"


def test_every_registry_estimator_is_documented(documented):
    missing = [entry.cls.__name__ for entry in registry.ENTRIES
               if f"linclass.{entry.cls.__name__}" not in documented]
    assert not missing, f"registry estimators without an API page: {missing}"
    for entry in registry.ENTRIES:
        assert getattr(linclass, entry.cls.__name__) is entry.cls


def test_entries_import_and_are_listed_once(documented):
    assert len(documented) == len(set(documented)), "an entry is listed twice"
    unresolved = []
    for name in documented:
        try:
            _resolve(name)
        except (ImportError, AttributeError):
            unresolved.append(name)
    assert not unresolved, f"entries that do not import: {unresolved}"


def test_capability_phrases_cover_the_registry():
    sys.path.insert(0, str(EXTENSIONS))
    try:
        extension = importlib.import_module("linclass_capabilities")
    finally:
        sys.path.remove(str(EXTENSIONS))
    assert set(extension.MEANING) == set(registry.CAPABILITIES)
    assert all(phrase.strip() for phrase in extension.MEANING.values())
    for entry in registry.ENTRIES:  # every entry's section can be written
        lines = extension.capability_lines(entry, found_docs=set())
        assert any(line.startswith(".. rubric:: Capabilities") for line in lines)
        assert sum(line.startswith("- ``") for line in lines) == len(entry.capabilities)


def _docstrings(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield getattr(node, "name", path.stem), getattr(node, "lineno", 1), doc


_SEED_NOTES = re.compile(r"lecture notes|\bthe notes\b|cs\s?229|derivations\.md", re.IGNORECASE)


def test_no_docstring_cites_the_course_notes():
    hits = [f"{path.relative_to(ROOT)}:{line} ({name}): {match.group(0)!r}"
            for path in sorted(SRC.rglob("*.py"))
            for name, line, doc in _docstrings(path)
            for match in [_SEED_NOTES.search(doc)] if match]
    assert not hits, "docstrings that cite the course notes:\n" + "\n".join(hits)


_SECTION = re.compile(r"^\s*(?P<title>Parameters|Attributes[^\n]*)\n\s*-{3,}\s*$", re.MULTILINE)


def _takes_parameters(obj) -> bool:
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):  # a built-in constructor (the warning classes)
        return False
    return any(name != "self" for name in signature.parameters)


def _documented_objects():
    names = [f"linclass.{name}" for name in linclass.__all__ if name != "__version__"]
    names += [f"linclass.plot.{name}" for name in linclass.plot.__all__]
    names += documented_names(INDEX.read_text(encoding="utf-8"))
    return sorted(set(names))


@pytest.mark.parametrize("name", _documented_objects())
def test_docstring_documents_the_parameters(name):
    obj = _resolve(name)
    doc = inspect.getdoc(obj)
    assert doc and doc.strip(), f"{name} has no docstring"
    if inspect.isclass(obj) and not obj.__doc__:
        pytest.fail(f"{name} only inherits its base class's docstring")
    if not _takes_parameters(obj):
        return
    sections = [match.group("title") for match in _SECTION.finditer(doc)]
    record = inspect.isclass(obj) and (dataclasses.is_dataclass(obj) or issubclass(obj, BaseException))
    wanted = ("Parameters", "Attributes") if record else ("Parameters",)
    assert any(section.startswith(wanted) for section in sections), (
        f"{name} takes parameters but its docstring has no {' or '.join(wanted)} section")
