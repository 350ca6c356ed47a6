"""The terms of a fitted formula and the columns each owns: what R's ``drop1`` drops together.

A term such as ``C(race)`` owns all of its columns (one per coded level); ``drop1`` refits the
model without all of them at once.  As R's ``drop.scope``, a term is offered for dropping only
when no other term contains it (marginality): with ``age * smoke`` only ``age:smoke`` can go, since
a model with an interaction but without one of its main effects depends on how the variables are
coded.
"""

from __future__ import annotations

from linclass.formula.encoding import FormulaEncoding

__all__ = ["droppable", "term_columns"]


def term_columns(encoding: FormulaEncoding) -> dict[str, list[int]]:
    """``{term: indices of its columns in encoding.columns}``, in formula order."""
    out, start = {}, 0
    for name, _, columns in encoding.terms:
        out[name] = list(range(start, start + len(columns)))
        start += len(columns)
    return out


def droppable(encoding: FormulaEncoding) -> list[str]:
    """The terms that no other term contains (R's ``drop.scope``), in formula order."""
    factors = {name: set(exprs) for name, exprs, _ in encoding.terms}
    return [name for name, own in factors.items()
            if not any(own < other for n, other in factors.items() if n != name)]
