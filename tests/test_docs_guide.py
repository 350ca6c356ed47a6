"""Every ```python block of the user guide (docs/guide/*.md) and of the migration pages
(docs/migration/*.md) runs, and every ``linclass`` line of their ```sh blocks.

Each page's blocks run in order in one namespace, as a reader would type them into one session, in
a temporary working directory (the pages save models, write CSV files and figures there). A block
written as a complete script (with an ``if __name__ == "__main__":`` guard, as a Dask cluster's
must be, which one namespace would skip) runs as ``python script.py`` in that directory instead.
The ``linclass ...`` lines of a ```sh block run in-process and must succeed, in a directory that
also holds the files the README's examples name (``train.csv``, ``new.parquet``, ``big.parquet``,
``events/*.parquet``: ``tests/test_readme.make_files``). A failure names the page and the block's
number (from 1) and shows the block. Blocks fenced as ```bash or ```text are for reading only and
are not run.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import traceback
import warnings
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
GUIDE = DOCS / "guide"
PAGES = sorted(GUIDE.glob("*.md")) + sorted((DOCS / "migration").glob("*.md"))
SCRIPT = re.compile(r"^if __name__ == .__main__.:", re.M)  # a block to run as a script

# a fence of three or more backticks, optionally indented, with the language right after it
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<ticks>`{3,})(?P<info>[^`\n]*)$")


def fenced_blocks(text: str) -> list[tuple[str, int, str]]:
    """The fenced blocks of a Markdown page, as (language, line number of the fence, code)."""
    blocks: list[tuple[str, int, str]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        ticks, info = match["ticks"], match["info"].strip()
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines) and not re.match(rf"^[ \t]*{ticks}[ \t]*$", lines[i]):
            body.append(lines[i])
            i += 1
        i += 1  # the closing fence
        language = info.split()[0] if info else ""
        indent = len(match["indent"])
        blocks.append((language, start + 1, "\n".join(line[indent:] for line in body) + "\n"))
    return blocks


def python_blocks(text: str) -> list[tuple[int, str]]:
    """The ```python blocks of a Markdown page, as (line number of the fence, code)."""
    return [(line, code) for language, line, code in fenced_blocks(text) if language == "python"]


def run_shell_lines(code: str, where: str, capsys) -> None:
    """Run every ``linclass ...`` line of a shell block in-process; each must exit 0."""
    from linclass.cli import main

    for line in code.splitlines():
        line = line.split("  #")[0].strip()
        if not line.startswith("linclass "):
            continue
        status = main(shlex.split(line)[1:])
        _, err = capsys.readouterr()
        assert status == 0, f"{where}: '{line}' exited {status}: {err}"


def run_script(code: str, root: Path, where: str) -> None:
    """Run a block written as a complete script as ``python script.py`` in ``root``."""
    script = root / "docs_script.py"
    script.write_text(code, encoding="utf-8")
    done = subprocess.run([sys.executable, script.name], cwd=root, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, f"{where}: the script exited {done.returncode}:\n{done.stderr}"


def test_the_guide_has_pages_with_code():
    assert PAGES, f"no pages in {GUIDE}"
    assert sum(len(python_blocks(page.read_text(encoding="utf-8"))) for page in PAGES) > 10


@pytest.mark.parametrize("page", PAGES, ids=[f"{page.parent.name}/{page.stem}" for page in PAGES])
def test_python_blocks_run(page, tmp_path, monkeypatch, capsys):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace: dict = {"__name__": f"docs_guide_{page.stem}"}
    blocks = [b for b in fenced_blocks(page.read_text(encoding="utf-8")) if b[0] in ("python", "sh")]
    if any(language == "sh" for language, _, _ in blocks):
        sys.path.insert(0, str(Path(__file__).parent))
        try:
            from test_readme import make_files
        finally:
            sys.path.pop(0)
        make_files(tmp_path)
    name = f"docs/{page.parent.name}/{page.name}"
    for number, (language, line, code) in enumerate(blocks, start=1):
        where = f"{name}: {language} block {number} (line {line})"
        try:
            if language == "sh":
                run_shell_lines(code, where, capsys)
            elif SCRIPT.search(code):
                run_script(code, tmp_path, where)
            else:
                compiled = compile(code, f"{page.name}, block {number} (line {line})", "exec")
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    exec(compiled, namespace)
        except Exception:  # noqa: BLE001 - report any failure with its page and block
            pytest.fail(f"{where} failed:\n{code}\n{traceback.format_exc()}", pytrace=False)
        finally:
            try:
                import matplotlib.pyplot as plt

                plt.close("all")
            except ImportError:  # pragma: no cover
                pass
    assert os.getcwd() == str(tmp_path)
