"""A formula's encoding of a data frame, kept as plain data: :class:`FormulaEncoding`.

formulaic learns an encoding from the training frame: the levels of each factor, and the state of
stateful transforms (the mean that ``center(lwt)`` subtracts, the knots of ``bs(age, df=3)``).
:func:`learn` records them, with the expanded formula (``.`` resolved), as strings, numbers and
lists; :func:`model_spec` rebuilds formulaic's ``ModelSpec`` from that record alone (its
``encoder_state`` holds the levels of each categorical factor, the codings come from the formula's
own terms), and :func:`encode` turns a frame into the model's columns with it, after checking the
frame (:mod:`linclass.formula.frames`): every column the formula reads present, no missing values,
no factor level the model has not seen.  The training rows are encoded by the same rebuilt spec as every later frame, so prediction
encodes exactly as the fit did and a model file holds everything the encoding needs.
"""

from __future__ import annotations

import ast
import copy
import keyword
import warnings
import weakref
from dataclasses import dataclass, field

import numpy as np

from linclass.formula.frames import as_frame, check_complete, check_levels
from linclass.formula.offsets import split_offsets
from linclass.formula.safety import check_expression, check_formula, check_names

__all__ = ["FormulaEncoding", "as_frame", "encode", "learn", "model_spec", "parse_formula",
           "require_formulaic"]

#: formulaic's kinds of factor
KINDS = ("numerical", "categorical", "constant")
#: formulaic's contrast classes by the name a record gives them
_CODINGS = {"TreatmentContrasts": "treatment", "SASContrasts": "SAS", "SumContrasts": "sum",
            "HelmertContrasts": "helmert", "PolyContrasts": "poly", "DiffContrasts": "diff",
            "CustomContrasts": "custom"}
_LEVEL_TYPES = (str, int, float, bool)


@dataclass(frozen=True, eq=False)
class FormulaEncoding:
    """Everything a fitted formula model needs to encode new rows as it encoded its training rows.

    Attributes
    ----------
    formula : str
        The right-hand side as formulaic expands it (``.`` resolved, terms ordered by degree), e.g.
        ``"1 + age + C(race, Treatment('white')) + smoke + age:smoke"``.
    response : str or None
        The left-hand side (an expression of the class labels), or None when ``y`` was passed apart.
    intercept : bool
        Whether the formula has an intercept (it becomes the estimator's ``fit_intercept``).
    columns : tuple of str
        The model's columns, in order (formulaic's names, the intercept left out).
    terms : tuple of (str, tuple of str, tuple of str)
        Each term (the intercept left out): its name, its factors' expressions, its columns.
    variables : tuple of str
        The columns of the data that the right-hand side reads.
    factors : dict of str to dict
        For each factor expression: ``kind`` ('numerical', 'categorical' or 'constant') and, for a
        categorical factor, its ``levels`` (a list of strings, numbers or booleans, in coding
        order), its ``coding`` ('treatment', 'sum', 'helmert', 'poly', 'diff', 'SAS', 'custom')
        and its ``reference`` level (treatment codings: the level the others are compared with
        where the factor is coded with reduced rank; None otherwise).  The codings are informative:
        they are re-read from the formula's terms.
    transforms : dict of str to dict
        The state of each stateful transform (``center(lwt)``: ``{'center': 129.8, ...}``), as
        numbers, strings and lists.
    offsets : tuple of str
        The expressions of the formula's ``offset(...)`` terms (:mod:`linclass.formula.offsets`),
        whose sum is the known part of the linear predictor; their columns are among
        ``variables``.

    Building one checks it (every factor expression against :mod:`linclass.formula.safety`, every
    name it reads among ``variables``, levels and states plain data): what a model file holds is
    checked before formulaic evaluates any of it.
    """

    formula: str
    response: str | None
    intercept: bool
    columns: tuple
    terms: tuple
    variables: tuple
    factors: dict = field(default_factory=dict)
    transforms: dict = field(default_factory=dict)
    offsets: tuple = ()

    def __post_init__(self):
        _check_record(self)

    @property
    def levels(self) -> dict:
        """``{factor expression: list of levels}`` of the categorical factors (R's ``xlevels``)."""
        return {e: list(f["levels"]) for e, f in self.factors.items() if f.get("levels") is not None}

    @property
    def full_formula(self) -> str:
        """``response ~ right-hand side`` (or ``~ right-hand side``), offsets included."""
        rhs = " + ".join([self.formula, *(f"offset({e})" for e in self.offsets)])
        return f"{self.response} ~ {rhs}" if self.response else f"~ {rhs}"


# ------------------------------------------------------------------------------------ the record
def _is_plain(value, depth: int = 0) -> bool:
    """Strings, numbers, booleans, None, and lists / dicts (str or int keys) of those."""
    if depth > 8:
        return False
    if value is None or type(value) in (str, int, float, bool):
        return True
    if type(value) in (list, tuple):
        return all(_is_plain(v, depth + 1) for v in value)
    if type(value) is dict:
        return all(type(k) in (str, int) and _is_plain(v, depth + 1) for k, v in value.items())
    return False


def _strings(value, name: str) -> tuple:
    if type(value) not in (tuple, list) or not all(type(v) is str for v in value):
        raise TypeError(f"FormulaEncoding.{name} must be a tuple of strings.")
    return tuple(value)


def require_formulaic() -> None:
    """formulaic is an optional dependency: say how to install it."""
    try:
        import formulaic  # noqa: F401
    except ImportError as exc:
        raise ImportError("Formulas need the formulaic package: pip install 'linclass[formula]'."
                          ) from exc


def _check_record(record: FormulaEncoding) -> None:
    require_formulaic()
    from formulaic import Formula

    if type(record.formula) is not str or not record.formula.strip():
        raise TypeError("FormulaEncoding.formula must be a non-empty string.")
    if record.response is not None and type(record.response) is not str:
        raise TypeError("FormulaEncoding.response must be a string or None.")
    if type(record.intercept) is not bool:
        raise TypeError("FormulaEncoding.intercept must be a bool.")
    columns = _strings(record.columns, "columns")
    variables = _strings(record.variables, "variables")
    if type(record.terms) not in (tuple, list) or not all(
            type(t) in (tuple, list) and len(t) == 3 and type(t[0]) is str for t in record.terms):
        raise TypeError("FormulaEncoding.terms must hold (name, factors, columns) triples.")
    owned = [c for t in record.terms for c in _strings(t[2], "terms' columns")]
    for t in record.terms:
        _strings(t[1], "terms' factors")
    if owned != list(columns):
        raise ValueError("FormulaEncoding.terms do not own exactly the columns, in order.")
    if type(record.factors) is not dict or type(record.transforms) is not dict:
        raise TypeError("FormulaEncoding.factors and .transforms must be dicts.")
    for expr, spec in record.factors.items():
        if type(expr) is not str or type(spec) is not dict or spec.get("kind") not in KINDS:
            raise TypeError(f"FormulaEncoding.factors[{expr!r}] must be a dict with a 'kind' of "
                            f"{KINDS}.")
        levels = spec.get("levels")
        if levels is not None and (type(levels) not in (list, tuple) or not all(
                type(v) in _LEVEL_TYPES and v == v for v in levels) or len(set(levels)) != len(levels)):
            raise TypeError(f"FormulaEncoding.factors[{expr!r}]['levels'] must be distinct strings, "
                            "numbers or booleans.")
        if not _is_plain(spec):
            raise TypeError(f"FormulaEncoding.factors[{expr!r}] must hold plain values only.")
    for expr, state in record.transforms.items():
        if type(expr) is not str or type(state) is not dict or not _is_plain(state):
            raise TypeError(f"FormulaEncoding.transforms[{expr!r}] must be a dict of numbers, "
                            "strings and lists.")
    from formulaic.formula import SimpleFormula

    try:  # (formulaic's parser only reads the text; any failure of it is a bad record)
        parsed = Formula(record.formula)
    except Exception as exc:  # noqa: BLE001
        raise ValueError(f"FormulaEncoding.formula {record.formula!r} is not a formula "
                         f"({type(exc).__name__}: {exc}).") from None
    if not isinstance(parsed, SimpleFormula):
        raise ValueError(f"FormulaEncoding.formula {record.formula!r} must be one right-hand side.")
    if any(str(term) == "1" for term in parsed) != record.intercept:
        raise ValueError(f"FormulaEncoding.formula {record.formula!r} and intercept="
                         f"{record.intercept} disagree.")
    check_formula(parsed, variables)
    if record.response is not None:  # (cbind(successes, failures): each of its two parts)
        from linclass.formula.response import grouped_parts

        for expr in grouped_parts(record.response) or (record.response,):
            check_expression(expr)
    for expr in {*record.factors, *record.transforms} - set(variables):  # (a column: looked up)
        check_names(check_expression(expr), variables, expr)
    for expr in _strings(record.offsets, "offsets"):
        check_names(check_expression(expr), variables, expr)


def _plain(value, where: str):
    """A transform's state as plain data (numpy scalars and arrays become numbers and lists)."""
    if value is None or type(value) in (str, int, float, bool):
        return value
    if isinstance(value, (np.bool_, np.integer, np.floating)):
        return value.item()
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v, where) for v in value]
    if isinstance(value, dict) and all(isinstance(k, (str, int, np.integer)) for k in value):
        return {(k.item() if isinstance(k, np.generic) else k): _plain(v, where)
                for k, v in value.items()}
    raise TypeError(f"The state of the formula term {where!r} holds a {type(value).__name__}, "
                    "which a formula model does not keep; use another transform.")


def _level(value, expr: str):
    if isinstance(value, np.generic):
        value = value.item()
    if type(value) not in _LEVEL_TYPES or value != value:
        raise TypeError(
            f"The factor {expr!r} has a level {value!r} of type {type(value).__name__}: linclass "
            "keeps the levels of factors as strings, numbers or booleans. Convert the column "
            "first (for example with .astype(str))."
        )
    return value


def _factor(expr: str, kind, state: dict) -> dict:
    out = {"kind": kind.value}
    if "categories" in state:
        levels = [_level(v, expr) for v in state["categories"]]
        out["levels"] = levels
        contrasts = getattr(state.get("contrasts"), "contrasts", None)
        name = _CODINGS.get(type(contrasts).__name__)
        out["coding"] = name
        reference = None
        if name in ("treatment", "SAS") and levels:
            reference = _level(contrasts.get_drop_field(levels, reduced_rank=False), expr)
        out["reference"] = reference
    return out


# --------------------------------------------------------------------------------- the formula
def parse_formula(text: str, columns):
    """``(response expression or None, right-hand side)`` of a formula, by formulaic's parser
    (``.`` stands for every column that the left-hand side does not use, as in R)."""
    require_formulaic()
    from formulaic import Formula
    from formulaic.formula import SimpleFormula
    from formulaic.parser.types import Factor

    if not isinstance(text, str):
        raise TypeError(f"formula must be a string such as 'low ~ age + C(race)'; got "
                        f"{type(text).__name__}.")
    try:
        parsed = Formula(text, _context={"__formulaic_variables_available__": list(map(str, columns))})
    except SyntaxError as exc:  # (formulaic's own errors say where; Python's say less)
        raise ValueError(f"The formula {text!r} is not valid: {exc}.") from None
    if isinstance(parsed, SimpleFormula):
        return None, parsed
    rhs = getattr(parsed, "rhs", None)
    lhs = list(getattr(parsed, "lhs", ()))
    if not isinstance(rhs, SimpleFormula):
        raise ValueError(f"The formula {text!r} has several right-hand sides; a classifier's "
                         "formula has one: 'y ~ x1 + x2'.")
    if len(lhs) != 1 or len(lhs[0].factors) != 1 or (
            lhs[0].factors[0].eval_method is Factor.EvalMethod.LITERAL):
        raise ValueError(f"The formula {text!r} must have one response on its left-hand side (the "
                         "column of class labels, or an expression of it such as "
                         "'I(bwt < 2500)').")
    return _written_factor(lhs[0].factors[0]), rhs


# --------------------------------------------------------------------------------- learn, rebuild
def learn(rhs, data, response: str | None) -> FormulaEncoding:
    """Learn the encoding of the right-hand side ``rhs`` (a parsed formula) from the frame."""
    from formulaic import ModelSpec

    rhs, offsets = split_offsets(rhs)
    names = [str(c) for c in data.columns]
    offset_columns = set()
    for expr in offsets:
        read = check_expression(expr)
        check_names(read, names, expr)
        offset_columns |= read
    check_formula(rhs, names)
    check_complete(data, [str(v) for v in rhs.required_variables if v in data.columns], "fit on")
    from formulaic.errors import DataMismatchWarning

    spec = ModelSpec(formula=rhs, ensure_full_rank=True, na_action="ignore", output="pandas")
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataMismatchWarning)
        try:
            spec = spec.get_model_matrix(data).model_spec
        except DataMismatchWarning as exc:  # C(x, levels=[...]) without some of x's values
            raise ValueError(f"The data hold values of a factor outside the levels its term names "
                             f"({exc}); add them to levels=, or drop those rows.") from None
    columns, terms = [], []
    for part in spec.structure:
        names = list(part.columns)
        if str(part.term) == "1":
            continue
        terms.append((str(part.term), tuple(f.expr for f in part.term.factors), tuple(names)))
        columns += names
    variables = sorted({str(v.root) for v in spec.variables_by_source.get("data", ())}
                       | offset_columns)
    intercept = "Intercept" in spec.column_names
    return FormulaEncoding(
        formula=_written(spec.formula, intercept),
        response=response,
        intercept=intercept,
        columns=tuple(columns),
        terms=tuple(terms),
        variables=tuple(variables),
        factors={expr: _factor(expr, kind, state) for expr, (kind, state) in spec.encoder_state.items()},
        transforms={expr: _plain(state, expr) for expr, state in spec.transform_state.items()},
        offsets=offsets,
    )


def _written_factor(factor) -> str:
    """A factor as formula text that parses back to it: a column whose name is not a Python name in
    backticks, an expression that is not one call (``x + 1``, written ``{x + 1}``) in braces."""
    from formulaic.parser.types import Factor
    from formulaic.utils.code import sanitize_variable_names

    expr = factor.expr
    if factor.eval_method is Factor.EvalMethod.LOOKUP:
        return expr if expr.isidentifier() and not keyword.iskeyword(expr) else f"`{expr}`"
    if factor.eval_method is Factor.EvalMethod.PYTHON:
        node = ast.parse(sanitize_variable_names(expr, {}, {}), mode="eval").body
        return expr if isinstance(node, (ast.Call, ast.Name, ast.Attribute)) else f"{{{expr}}}"
    return expr


def _written(formula, intercept: bool) -> str:
    """The right-hand side as text that formulaic parses back to the same terms (its own ``str``
    drops backticks and braces, and the ``0 +`` of a formula without intercept)."""
    terms = [":".join(_written_factor(f) for f in term.factors) for term in formula]
    return " + ".join(terms if intercept else ["0", *terms])


_SPECS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def model_spec(encoding: FormulaEncoding):
    """formulaic's ``ModelSpec`` rebuilt from the record (cached per record)."""
    spec = _SPECS.get(encoding)
    if spec is None:
        from formulaic import ModelSpec
        from formulaic.parser.types import Factor

        encoder_state = {
            expr: (Factor.Kind(f["kind"]),
                   {} if f.get("levels") is None else {"categories": list(f["levels"])})
            for expr, f in encoding.factors.items()
        }
        spec = ModelSpec(formula=encoding.formula, ensure_full_rank=True, na_action="ignore",
                         output="pandas", encoder_state=encoder_state,
                         transform_state=copy.deepcopy(encoding.transforms))
        _SPECS[encoding] = spec
    return spec


# ------------------------------------------------------------------------------------- encoding
def encode(encoding: FormulaEncoding, data, verb: str = "predict"):
    """The model's columns for the rows of ``data`` (a DataFrame of float64 with ``data``'s index
    and the columns ``encoding.columns``), after the checks of the module docstring."""
    from formulaic.errors import DataMismatchWarning

    data = as_frame(data)
    columns = set(map(str, data.columns))
    absent = [v for v in encoding.variables if v not in columns]
    if absent:
        raise ValueError(f"The data lack the column(s) {absent} that the formula "
                         f"{encoding.full_formula!r} reads.")
    check_complete(data, list(encoding.variables), verb)
    check_levels(encoding, data)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataMismatchWarning)
        try:
            matrix = model_spec(encoding).get_model_matrix(data)
        except DataMismatchWarning as exc:  # a level outside those seen, in a derived factor
            raise ValueError(f"The rows hold values of a factor that the model did not see when it "
                             f"was fitted ({exc}); drop or recode those rows.") from None
    expected = (["Intercept"] if encoding.intercept else []) + list(encoding.columns)
    if list(matrix.columns) != expected:
        raise ValueError(f"The formula {encoding.full_formula!r} encodes these rows to the columns "
                         f"{list(matrix.columns)}, but the model was fitted on {expected}: a column "
                         "of another type than in the training data?")
    out = matrix.drop(columns="Intercept") if encoding.intercept else matrix
    return out.astype(np.float64)
