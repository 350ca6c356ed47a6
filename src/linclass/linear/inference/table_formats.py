"""An inference table for a notebook or a paper, as statsmodels' ``Summary`` offers it: HTML
(``_repr_html_``, which Jupyter displays) and a LaTeX ``tabular`` (``as_latex``), from the same
parts as the printed table (:mod:`linclass.linear.inference.table_layout`): the title, the
header's (label, value) pairs in two columns, one block of rows per equation with the column
names, and the lines below (deviances, notes).  The cells are the printed strings, so the three
forms show the same numbers."""

from __future__ import annotations

import html

__all__ = ["TableOutput", "html_table", "latex_escape", "latex_table"]

_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
                  "|": r"\textbar{}"}


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped."""
    return "".join(_LATEX_SPECIAL.get(c, c) for c in str(text))


def _pairs(left: list, right: list) -> list:
    left = left + [("", "")] * (len(right) - len(left))
    right = right + [("", "")] * (len(left) - len(right))
    return [(*a, *b) for a, b in zip(left, right)]


def html_table(title: str, left: list, right: list, columns: list, blocks: list,
               footer: list) -> str:
    """The table as HTML: a header table (title as its caption, the facts in four columns), the
    coefficient table (per block: a row naming the equation and the column names, then the rows
    ``(name, cells)``), and the ``footer`` lines as paragraphs.

    ``blocks`` is a list of ``(equation, rows)``, ``rows`` a list of ``(name, cells)``.
    """
    e = html.escape
    out = ['<table class="simpletable">', f"<caption>{e(title)}</caption>"]
    for a, b, c, d in _pairs(left, right):
        out.append(f"<tr>\n  <th>{e(a)}</th> <td>{e(b)}</td> <th>{e(c)}</th> <td>{e(d)}</td>\n</tr>")
    out.append("</table>")
    out.append('<table class="simpletable">')
    for equation, rows in blocks:
        heads = "".join(f"<th>{e(c)}</th>" for c in columns)
        out.append(f"<tr>\n  <th>{e(equation)}</th>{heads}\n</tr>")
        for name, cells in rows:
            body = "".join(f"<td>{e(c)}</td>" for c in cells)
            out.append(f"<tr>\n  <th>{e(name)}</th>{body}\n</tr>")
    out.append("</table>")
    out += [f"<p>{e(line)}</p>" for line in footer]
    return "\n".join(out)


def latex_table(title: str, left: list, right: list, columns: list, blocks: list,
                footer: list) -> str:
    """The table as LaTeX: two ``tabular`` environments in a ``center`` (the facts in four
    columns ``lclc``, the coefficients ``l`` then one ``r`` per column) under the title, the
    ``footer`` lines after, every string escaped (``booktabs``-free: ``\\hline`` rules)."""
    x = latex_escape
    out = [r"\begin{center}", f"\\textbf{{{x(title)}}}\\\\[0.5ex]", r"\begin{tabular}{lclc}",
           r"\hline"]
    for a, b, c, d in _pairs(left, right):
        out.append(f"\\textbf{{{x(a)}}} & {x(b)} & \\textbf{{{x(c)}}} & {x(d)} \\\\")
    out += [r"\hline", r"\end{tabular}", r"\begin{tabular}{l" + "r" * len(columns) + "}",
            r"\hline"]
    for k, (equation, rows) in enumerate(blocks):
        if k:
            out.append(r"\hline")
        out.append(" & ".join([x(equation)] + [f"\\textbf{{{x(c)}}}" for c in columns]) + r" \\")
        out.append(r"\hline")
        for name, cells in rows:
            out.append(" & ".join([x(name)] + [x(c) for c in cells]) + r" \\")
    out += [r"\hline", r"\end{tabular}"]
    if footer:
        out.append(r"\\[0.5ex]")
        out += [f"{x(line)}\\\\" for line in footer]
    out.append(r"\end{center}")
    return "\n".join(out)


class TableOutput:
    """``as_text``, ``as_html`` / ``_repr_html_`` and ``as_latex`` of a table that prints itself
    (``str``) from ``title`` and the parts ``_header()`` (the left and right (label, value)
    pairs), ``_columns()``, ``_blocks()`` (``(equation, [(name, cells)])``) and ``_footer()``
    (the lines below)."""

    def as_text(self) -> str:
        """The table as text: ``str(summary)`` (statsmodels' ``Summary.as_text``)."""
        return str(self)

    def as_html(self) -> str:
        """The table as HTML, the numbers as printed (statsmodels' ``Summary.as_html``)."""
        left, right = self._header()
        return html_table(self.title, left, right, self._columns(), self._blocks(),
                          self._footer())

    def _repr_html_(self) -> str:
        """What Jupyter displays: :meth:`as_html`."""
        return self.as_html()

    def as_latex(self) -> str:
        """The table as LaTeX ``tabular`` environments in a ``center`` (statsmodels'
        ``Summary.as_latex``), the numbers as printed, every string escaped; no LaTeX package
        beyond the standard ones."""
        left, right = self._header()
        return latex_table(self.title, left, right, self._columns(), self._blocks(),
                           self._footer())
