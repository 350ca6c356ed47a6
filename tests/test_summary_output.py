"""A summary in a notebook or a paper, as statsmodels' results offer it: ``as_text()`` is
``str(summary)``, ``_repr_html_()`` / ``as_html()`` an HTML table with the printed numbers,
``as_latex()`` LaTeX tabulars with the same numbers and every special character escaped (the
structure is checked here; no TeX run)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import linclass
from linclass.linear.inference.table_formats import latex_escape

DATA = Path(__file__).parent / "data" / "r"


@pytest.fixture(scope="module")
def birthwt():
    d = pd.read_csv(DATA / "profile_confint_data.csv")
    return linclass.LogisticRegression(penalty=None).fit(d[["age", "lwt", "smoke"]], d["low"])


class Cells(HTMLParser):
    """The text of every <th> / <td> and the tags' nesting, checked balanced."""

    def __init__(self):
        super().__init__()
        self.cells, self.stack, self.text = [], [], None

    def handle_starttag(self, tag, attrs):
        self.stack.append(tag)
        if tag in ("th", "td"):
            self.text = ""

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()
        if tag in ("th", "td"):
            self.cells.append(self.text)
            self.text = None

    def handle_data(self, data):
        if self.text is not None:
            self.text += data


def printed_numbers(summary) -> list[str]:
    """The coefficient table's cells as str(summary) prints them."""
    return [cell for _, rows in summary._blocks() for _, cells in rows for cell in cells]


def test_as_text_is_str(birthwt):
    summary = birthwt.summary()
    assert summary.as_text() == str(summary)


def test_html_holds_the_printed_numbers(birthwt):
    summary = birthwt.summary()
    page = summary._repr_html_()
    assert page == summary.as_html()
    parser = Cells()
    parser.feed(page)
    assert parser.stack == []  # every tag closed
    assert page.count("<table") == 2
    numbers = printed_numbers(summary)
    assert all(n in parser.cells for n in numbers)
    assert all(n in str(summary) for n in numbers)
    assert "P&gt;|z|" in page and "Df Residuals:" in parser.cells
    assert f"Residual deviance: {summary.deviance:.2f}" in page


def test_latex_is_a_tabular_with_the_numbers(birthwt):
    summary = birthwt.summary(ci="profile", X=pd.read_csv(DATA / "profile_confint_data.csv")[
        ["age", "lwt", "smoke"]], y=pd.read_csv(DATA / "profile_confint_data.csv")["low"])
    tex = summary.as_latex()
    assert tex.startswith(r"\begin{center}") and tex.endswith(r"\end{center}")
    assert tex.count(r"\begin{tabular}") == tex.count(r"\end{tabular}") == 2
    assert r"\begin{tabular}{lrrrrrr}" in tex  # name + 6 columns
    rows = [line for line in tex.splitlines() if line.startswith(("const", "age", "lwt", "smoke"))]
    assert len(rows) == 4
    assert all(line.count("&") == 6 and line.endswith(r"\\") for line in rows)
    for number in printed_numbers(summary):
        assert latex_escape(number) in tex
    assert r"P\textgreater{}chi2" in tex
    # braces balance once the escaped ones are left out
    bare = tex.replace(r"\{", "").replace(r"\}", "")
    assert bare.count("{") == bare.count("}")
    # no special character unescaped once the column separators are left out
    assert not re.search(r"(?<!\\)[_%#&$]", tex.replace(" & ", " "))


def test_latex_escapes_names_and_softmax_blocks():
    d = pd.read_csv(DATA / "profile_confint_data.csv")
    X = d[["age", "lwt"]].rename(columns={"age": "age_%", "lwt": "lwt&#"})
    summary = linclass.LogisticRegression(penalty=None).fit(X, d["race"]).summary()
    tex = summary.as_latex()
    assert r"age\_\%" in tex and r"lwt\&\#" in tex
    assert tex.count(r"\textbf{coef}") == len(summary.equations) == 2
    page = summary.as_html()
    assert "lwt&amp;#" in page
    assert page.count("<th>coef</th>") == 2


def test_grouped_table_in_html():
    d = pd.read_csv(DATA / "star98.csv")
    model = linclass.from_formula("cbind(NABOVE, NBELOW) ~ LOWINC + PERASIAN", d)
    summary = model.summary()
    page = summary._repr_html_()
    assert "cbind(NABOVE, NBELOW)" in page
    assert f"on {summary.df_resid:g} degrees of freedom" in page
    assert np.isfinite(summary.deviance)


def test_penalised_selection_has_the_same_outputs():
    d = pd.read_csv(DATA / "profile_confint_data.csv")
    model = linclass.LogisticRegression(penalty="l1", C=0.05).fit(
        d[["age", "lwt", "smoke", "ht", "ui"]], d["low"])
    summary = model.summary()
    assert type(summary).__name__ == "PenalisedSummary"
    assert summary.as_text() == str(summary)
    page = summary._repr_html_()
    parser = Cells()
    parser.feed(page)
    assert parser.stack == [] and "Selected features:" in parser.cells
    assert all(cells[0] in parser.cells for _, rows in summary._blocks() for _, cells in rows)
    tex = summary.as_latex()
    assert r"\begin{tabular}{lr}" in tex and tex.count(r"\end{tabular}") == 2
