"""Which Python a formula's terms may hold: the factor expressions a model file may carry.

formulaic evaluates each factor of a formula (``C(race, Treatment('white'))``, ``np.log(lwt)``,
``I(age ** 2)``) with Python's ``eval``.  A formula read from a model file is data, so before any of
its factors is evaluated every expression is parsed (:mod:`ast`, which runs nothing) and checked
against a short allowlist: column names, literals, arithmetic, comparisons and boolean operators,
and calls of formulaic's own transforms.  No attribute access other than ``np.<ufunc>`` (and a few
numpy functions) and ``contr.<coding>``, no subscripts, no lambdas, no comprehensions, no names of
the ``__dunder__`` kind.  :func:`check_formula` is applied to every formula linclass fits, so every
fitted formula model can be saved, and to every formula a model file holds, so that loading a file
never runs code from it.
"""

from __future__ import annotations

import ast

import numpy as np

__all__ = ["CALLABLE", "CODINGS", "NUMPY", "UnsafeFormulaError", "check_expression", "check_formula",
           "check_names"]

#: the transforms a term may call by name: formulaic's, less ``lag`` (a row's value would depend on
#: the row before it in whatever frame is predicted)
CALLABLE = frozenset({
    "C", "I", "Q", "log", "log10", "log2", "exp", "exp10", "exp2", "center", "scale", "standardize",
    "poly", "bs", "cr", "cs", "cc", "hashed", "Treatment", "Sum", "Helmert", "Poly", "Diff",
})
#: ``contr.<name>``: the codings of categorical factors
CODINGS = frozenset({"treatment", "sum", "helmert", "poly", "diff", "SAS", "custom"})
#: ``np.<name>`` beyond numpy's ufuncs (which compute element by element and nothing else)
NUMPY = frozenset({"where", "clip", "round", "around"})

_OPERATORS = (
    ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.USub, ast.UAdd,
    ast.Not, ast.Invert, ast.BitAnd, ast.BitOr, ast.BitXor, ast.And, ast.Or, ast.Eq, ast.NotEq,
    ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn, ast.Load,
)
_NODES = (
    ast.Expression, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Constant, ast.List,
    ast.Tuple, ast.Dict, ast.keyword, ast.Call, ast.Name, ast.Attribute, *_OPERATORS,
)


class UnsafeFormulaError(ValueError):
    """A formula term holds Python that linclass does not evaluate (see the module docstring)."""


def _numpy_name(name: str) -> bool:
    return name in NUMPY or isinstance(getattr(np, name, None), np.ufunc)


def _is_coding(node) -> bool:
    return (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "contr" and node.attr in CODINGS)


def _refuse(expression: str, what: str) -> UnsafeFormulaError:
    return UnsafeFormulaError(
        f"The formula term {expression!r} {what}. linclass formulas hold column names, numbers and "
        "strings, arithmetic and comparisons, and calls of the formula transforms "
        f"({', '.join(sorted(CALLABLE))}, np.<ufunc> such as np.log, contr.<coding>), so that a "
        "saved model can be loaded without running code from the file. Compute the column in "
        "the DataFrame first and use its name in the formula."
    )


def _check_call(node: ast.Call, expression: str) -> None:
    func = node.func
    if isinstance(func, ast.Name):
        if func.id not in CALLABLE:
            raise _refuse(expression, f"calls {func.id!r}, which is not a formula transform")
        return
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        owner, name = func.value.id, func.attr
        if (owner == "np" and _numpy_name(name)) or (owner == "contr" and name in CODINGS):
            return
        raise _refuse(expression, f"calls {owner}.{name}")
    raise _refuse(expression, "calls something other than a formula transform by its name")


def check_expression(expression: str) -> set[str]:
    """Refuse a factor expression outside the allowlist (:class:`UnsafeFormulaError`); return the
    names it reads (which must be columns of the data: see :func:`check_names`).

    Backtick-quoted names (```my col```) are column names and allowed.
    """
    from formulaic.utils.code import sanitize_variable_names

    if not isinstance(expression, str):
        raise UnsafeFormulaError(f"A formula term must be a string; got {type(expression).__name__}.")
    try:
        aliases: dict = {}
        tree = ast.parse(sanitize_variable_names(expression, {}, aliases), mode="eval")
    except (SyntaxError, ValueError) as exc:
        raise UnsafeFormulaError(f"The formula term {expression!r} is not a Python expression "
                                 f"({exc}).") from None
    # the function of every call: checked by _check_call, with the ``np`` / ``contr`` it names
    functions = {id(n) for c in ast.walk(tree) if isinstance(c, ast.Call) for n in ast.walk(c.func)}
    # a coding passed by name, ``C(race, contr.sum)``
    functions |= {id(n) for a in ast.walk(tree) if _is_coding(a) for n in ast.walk(a)}
    names = set()
    for node in ast.walk(tree):
        if not isinstance(node, _NODES):
            raise _refuse(expression, f"uses Python's {type(node).__name__}")
        if isinstance(node, ast.Call):
            _check_call(node, expression)
        elif id(node) in functions:
            continue
        elif isinstance(node, ast.Attribute):
            raise _refuse(expression, f"reads the attribute .{node.attr}")
        elif isinstance(node, ast.Name):
            if node.id.startswith("__") or node.id in ("np", "contr"):
                raise _refuse(expression, f"uses the name {node.id!r}")
            names.add(aliases.get(node.id, node.id))
        elif isinstance(node, ast.keyword) and (node.arg is None or node.arg.startswith("_")):
            raise _refuse(expression, "passes a keyword argument that is not a plain name")
        elif isinstance(node, ast.Constant) and not isinstance(node.value, (int, float, str, bool,
                                                                            type(None))):
            raise _refuse(expression, f"holds a constant of type {type(node.value).__name__}")
    return names


def check_names(names, columns, expression: str) -> None:
    """The names an expression reads are columns of the data (``columns``): a name that is not
    would be looked up among Python's built-in functions."""
    missing = sorted(set(names) - set(columns))
    if missing:
        raise UnsafeFormulaError(
            f"The formula term {expression!r} reads {missing}, which "
            f"{'is not a column' if len(missing) == 1 else 'are not columns'} of the data. A "
            "term's names must be columns (and the formula transforms)."
        )


def check_formula(formula, columns) -> None:
    """Check every factor of a parsed formulaic formula (the evaluated ones; column look-ups and
    literals are never evaluated as Python) against the allowlist and the data's ``columns``."""
    from formulaic.parser.types import Factor

    for term in formula:
        for factor in term.factors:
            if factor.eval_method is Factor.EvalMethod.PYTHON:
                check_names(check_expression(factor.expr), columns, factor.expr)
