"""The README's examples of leave-one-out, regularised discriminant analysis, MASS's posteriors,
robust LDA and Firth's logistic regression run as written (each section's python blocks, in order,
in a fresh namespace)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
SECTIONS = [
    "### Firth's penalised likelihood: separation, small samples",
    "## Leave-one-out without refitting",
    "## Regularised discriminant analysis",
    "## MASS's posteriors and robust LDA",
]


def blocks(title: str) -> list[str]:
    text = README.read_text()
    start = text.index(title + "\n")
    rest = text[start + len(title):]
    end = re.search(r"\n#{2,3} ", rest)
    body = rest if end is None else rest[: end.start()]
    return re.findall(r"```python\n(.*?)```", body, re.S)


@pytest.mark.parametrize("title", SECTIONS)
def test_section_runs(title):
    code = blocks(title)
    assert code, f"no python block under {title!r}"
    namespace: dict = {}
    for i, block in enumerate(code):
        exec(compile(block, f"README {title} block {i}", "exec"), namespace)
