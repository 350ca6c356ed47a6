"""Every dotted ``linclass.…`` path written in the sources and the README names something that exists.

Each ``.py`` file under ``src/linclass``, ``README.md``, the documentation's Markdown pages and
``benchmarks/README.md`` is read as text, and every dotted reference
``linclass.a.b.c`` in it (docstrings, comments, Sphinx roles, code) is resolved the way a reader
would: the longest prefix that imports as a module is imported, and the rest is looked up with
``getattr`` (a module attribute, a class, a function, a class attribute or method; a dataclass field or
an annotated class attribute counts too).

Strings that are not code paths are left out: the record names written inside model files
(the keys of :data:`linclass.io.persistence.allowlist.RECORDS`, in that table or quoted anywhere).

One test per file; a failure lists every unresolved reference of that file as ``file:line: path``.
"""

from __future__ import annotations

import ast
import importlib
import re
from functools import cache
from pathlib import Path

import pytest

from linclass.io.persistence.allowlist import RECORDS

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "linclass"
# the README and the pages its long sections moved to (the site's own pages, the speed ledger)
DOCS = [*sorted((ROOT / "docs").glob("*.md")),
        *(page for part in ("guide", "migration", "math") for page in sorted((ROOT / "docs" / part).glob("*.md")))]
FILES = sorted(SRC.rglob("*.py")) + [ROOT / "README.md", *DOCS, ROOT / "benchmarks" / "README.md"]

REFERENCE = re.compile(r"(?<![\w.])linclass(?:\.\w+)+")
QUOTES = "\"'"


def _table_lines(path: Path, name: str) -> range:
    """The lines of the module-level assignment to ``name`` in ``path``."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return range(node.lineno, node.end_lineno + 1)
    raise AssertionError(f"no {name} table in {path}")


#: (file, lines) whose references are table entries, not code paths
TABLES = {
    SRC / "io" / "persistence" / "allowlist.py": _table_lines(
        SRC / "io" / "persistence" / "allowlist.py", "RECORDS"),
}


def _has(obj, name: str) -> tuple[bool, object]:
    if hasattr(obj, name):
        return True, getattr(obj, name)
    if isinstance(obj, type) and any(name in vars(k).get("__annotations__", {}) for k in obj.__mro__):
        return True, None  # a dataclass field / annotated attribute: nothing to look inside
    return False, None


@cache
def problem(ref: str) -> str | None:
    """Why ``ref`` does not resolve, or None."""
    parts = ref.split(".")
    for i in range(len(parts), 0, -1):
        name = ".".join(parts[:i])
        try:
            obj = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and (name == exc.name or name.startswith(exc.name + ".")):
                continue  # not a module: try a shorter prefix
            return f"importing {name}: {exc!r}"
        except Exception as exc:  # any other failure to import is the finding
            return f"importing {name}: {exc!r}"
        for k, attr in enumerate(parts[i:], start=i):
            found, obj = _has(obj, attr)
            if not found:
                return f"{'.'.join(parts[:k])} has no {attr!r}"
            if obj is None and k + 1 < len(parts):
                return f"cannot look inside {'.'.join(parts[:k + 1])}"
        return None
    return "nothing imports"


def _excluded(path: Path, line_no: int, line: str, match: re.Match) -> bool:
    if line_no in TABLES.get(path, ()):
        return True
    start, end = match.span()
    quoted = (start > 0 and end < len(line) and line[start - 1] in QUOTES
              and line[end] == line[start - 1])
    return quoted and match.group(0) in RECORDS


def unresolved(path: Path) -> list[str]:
    found = []
    rel = path.relative_to(ROOT).as_posix()
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        for match in REFERENCE.finditer(line):
            if _excluded(path, line_no, line, match):
                continue
            why = problem(match.group(0))
            if why is not None:
                found.append(f"{rel}:{line_no}: {match.group(0)} ({why})")
    return found


def _id(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_files_found():
    assert len(FILES) > 100 and (SRC / "__init__.py") in FILES


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_references_resolve(path):
    bad = unresolved(path)
    if bad:
        pytest.fail(f"{len(bad)} unresolved reference(s):\n" + "\n".join(bad), pytrace=False)
