"""Offset terms of a formula, R's ``low ~ age + smoke + offset(log(lwt))``: known parts of the
linear predictor, with coefficient one (:mod:`linclass.linear.logistic.offsets`).

formulaic reads ``offset(expr)`` as one more factor; here such terms are taken out of the
right-hand side before it is encoded, and their expressions are kept (checked by
:mod:`linclass.formula.safety`, as every term is) to be evaluated on each frame the model is given,
training rows and new rows alike.  Several offset terms add up, as in R.
"""

from __future__ import annotations

import numpy as np

__all__ = ["offset_values", "split_offsets"]

_CALL = "offset("


def _inner(expr: str) -> str | None:
    """``expr`` of a factor ``offset(expr)``, else None."""
    text = expr.strip()
    if text.startswith(_CALL) and text.endswith(")"):
        return text[len(_CALL):-1].strip()
    return None


def split_offsets(rhs):
    """``(rhs without its offset terms, the offsets' expressions)`` of a parsed right-hand side
    (formulaic's ``SimpleFormula``).

    Raises
    ------
    ValueError
        For an offset inside an interaction (``offset(x):z``), which R does not allow either, and
        for an empty ``offset()``.
    """
    from formulaic.formula import SimpleFormula

    kept, offsets = [], []
    for term in rhs:
        inner = [_inner(f.expr) for f in term.factors]
        if not any(e is not None for e in inner):
            kept.append(term)
            continue
        if len(inner) != 1:
            raise ValueError(f"The formula term {str(term)!r} interacts an offset with another "
                             "factor; an offset is a term of its own: '+ offset(x)'.")
        if not inner[0]:
            raise ValueError("offset() needs an expression of the data, such as offset(np.log(n)).")
        offsets.append(inner[0])
    if not offsets:
        return rhs, ()
    return SimpleFormula(kept), tuple(offsets)


def offset_values(expressions, data) -> np.ndarray | None:
    """The sum of the offsets' values on the rows of ``data``, shape (n,) float64, or None without
    offset terms.

    Raises
    ------
    ValueError
        For values that are missing, not numbers, or not finite.
    """
    if not expressions:
        return None
    from linclass.formula.response import evaluate

    total = np.zeros(len(data))
    for expression in expressions:
        with np.errstate(all="ignore"):  # (log(0) and the like: said below, by row count)
            values = evaluate(expression, data, what="offset")
        try:
            values = values.to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"The offset {expression!r} must give numbers; got "
                             f"{values.dtype}.") from None
        if not np.all(np.isfinite(values)):
            raise ValueError(f"The offset {expression!r} is not finite in "
                             f"{int(np.sum(~np.isfinite(values)))} row(s) (log of 0?).")
        total += values
    return total
