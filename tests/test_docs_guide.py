"""Every ```python block of the user guide (docs/guide/*.md) runs.

Each page's blocks run in order in one namespace, as a reader would type them into one session, in
a temporary working directory (the pages save models, write CSV files and figures there). A failure
names the page and the block's number (from 1) and shows the block. Blocks fenced as ```bash,
```text or ```sh are for reading only and are not run.
"""

from __future__ import annotations

import os
import re
import traceback
import warnings
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "guide"
PAGES = sorted(GUIDE.glob("*.md"))

# a fence of three or more backticks, optionally indented, with the language right after it
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<ticks>`{3,})(?P<info>[^`\n]*)$")


def python_blocks(text: str) -> list[tuple[int, str]]:
    """The ```python blocks of a Markdown page, as (line number of the fence, code)."""
    blocks: list[tuple[int, str]] = []
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
        if language == "python":
            indent = len(match["indent"])
            blocks.append((start + 1, "\n".join(line[indent:] for line in body) + "\n"))
    return blocks


def test_the_guide_has_pages_with_code():
    assert PAGES, f"no pages in {GUIDE}"
    assert sum(len(python_blocks(page.read_text(encoding="utf-8"))) for page in PAGES) > 10


@pytest.mark.parametrize("page", PAGES, ids=[page.stem for page in PAGES])
def test_python_blocks_run(page, tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace: dict = {"__name__": f"docs_guide_{page.stem}"}
    blocks = python_blocks(page.read_text(encoding="utf-8"))
    for number, (line, code) in enumerate(blocks, start=1):
        try:
            compiled = compile(code, f"{page.name}, block {number} (line {line})", "exec")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exec(compiled, namespace)
        except Exception:  # noqa: BLE001 - report any failure with its page and block
            pytest.fail(f"docs/guide/{page.name}: python block {number} (line {line}) failed:\n"
                        f"{code}\n{traceback.format_exc()}", pytrace=False)
        finally:
            try:
                import matplotlib.pyplot as plt

                plt.close("all")
            except ImportError:  # pragma: no cover
                pass
    assert os.getcwd() == str(tmp_path)
