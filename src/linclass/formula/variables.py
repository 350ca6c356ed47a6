"""The model's columns as functions of the data's variables: what a formula model's marginal
effects per variable need (Stata's ``margins, dydx()``, R's ``marginaleffects``).

A formula builds several columns from one variable: ``age`` gives ``age``, ``I(age ** 2)`` and
``age:smoke``; a factor ``race`` gives one column per level but the reference, and its
interactions.  The effect of a variable is taken through all of them, by re-encoding the frame
with the variable changed (:func:`linclass.formula.encoding.encode`, so every transform keeps its
training state):

- a number: the derivatives of the columns with respect to it, :math:`\\partial x/\\partial v`.
  Exact where the variable enters only as itself (alone or in products: the columns are linear
  in it, and their derivative is the encoding at 1 minus the encoding at 0); otherwise central
  differences with Richardson's extrapolation (error :math:`O(h^4)`, with
  :math:`h = 10^{-4}\\max(|v|, \\overline{|v|})`), one-sided near the bounds of a spline's
  knots (Fornberg 1988, *Math. Comp.* 51, 699);
- a factor: the columns with every row at the reference level and at each other level (the other
  levels' columns set accordingly);
- a 0/1 number taken as a dummy: every row at 0 and at 1; a count: every row at :math:`v - 1`
  and :math:`v + 1`.

``at='overall'`` takes the effects at every row and averages them (Stata's default, average
marginal effects); ``at='mean'`` at one point, the numbers at their (weighted) means and each
factor at the proportions of its levels (Stata's ``atmeans``: a factor's columns and their
interactions are the means of its indicators times the other variables' values), as the
weighted sum of the encodings of one row per combination of levels.  ``atexog`` sets variables
in every row first (Stata's ``at()``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from linclass.formula.encoding import FormulaEncoding, encode
from linclass.formula.frames import _factor_column, as_frame
from linclass.formula.safety import check_expression

__all__ = ["Variable", "derivative", "effect_designs", "model_variables"]

#: the relative step of the central differences
STEP = 1e-4
#: the most rows a point at the means may take (one per combination of the factors' levels)
MAX_COMBINATIONS = 100_000


@dataclass(frozen=True)
class Variable:
    """A variable of the data as the formula reads it.

    Attributes
    ----------
    name : str
        The column of the data.
    kind : {'number', 'factor'}
    levels : tuple
        A factor's levels, in coding order.
    reference : str, number or bool or None
        A factor's reference level (the treatment coding's; else its first level).
    linear : bool
        A number read only as itself (``age``, ``age:smoke``): every column is linear in it.
    bounds : (float, float)
        The interval in which the formula's transforms can evaluate it (a spline's boundary
        knots), else (-inf, inf).
    """

    name: str
    kind: str
    levels: tuple = ()
    reference: object = None
    linear: bool = False
    bounds: tuple = (-np.inf, np.inf)


def _reads(expr: str, variables) -> set:
    """The data's columns a factor expression reads: its names, and the columns that ``Q('...')``
    quotes."""
    import ast

    from formulaic.utils.code import sanitize_variable_names

    if expr in variables:
        return {expr}
    names = check_expression(expr)
    tree = ast.parse(sanitize_variable_names(expr, {}, {}), mode="eval")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Q"
                and node.args and isinstance(node.args[0], ast.Constant)):
            names.add(node.args[0].value)
    return names & set(variables)


def model_variables(encoding: FormulaEncoding) -> list[Variable]:
    """The variables the right-hand side reads, in the order the formula first names them.

    Raises
    ------
    ValueError
        For a variable that a factor reads through an expression (``C(age > 30)``): its effect
        is not defined here.
    """
    data = set(encoding.variables)
    order, factors = [], {}
    for _, exprs, _ in encoding.terms:
        for expr in exprs:
            for name in sorted(_reads(expr, data)):
                if name not in factors:
                    order.append(name)
                    factors[name] = []
                factors[name].append(expr)
    offsets = set().union(*[_reads(e, data) for e in encoding.offsets]) if encoding.offsets else set()
    unread = sorted(data - set(order) - offsets)
    if unread:  # (a term that reads a column in a way not recognised here: refuse, never drop)
        raise ValueError(f"The formula {encoding.full_formula!r} reads {unread} in a way whose "
                         "effect linclass cannot trace; write the column by its name in the "
                         "formula (`my column` in backticks for a name with spaces).")
    out = []
    for name in order:
        exprs = list(dict.fromkeys(factors[name]))
        categorical = [e for e in exprs if encoding.factors.get(e, {}).get("kind") == "categorical"]
        if categorical:
            direct = [e for e in categorical if _factor_column(e, data) == name]
            if len(direct) < len(categorical):
                odd = [e for e in categorical if e not in direct]
                raise ValueError(
                    f"The effect of {name!r} is not defined here: it enters the formula through "
                    f"the factor {odd[0]!r}, a factor of an expression. Make that factor a column "
                    "of the data (for example data.assign(older=data.age > 30)) and name the "
                    "column in the formula.")
            spec = encoding.factors[direct[0]]
            levels = tuple(spec["levels"])
            reference = spec.get("reference")
            out.append(Variable(name, "factor", levels,
                                levels[0] if reference is None else reference))
            continue
        lo, hi = -np.inf, np.inf
        for expr in exprs:
            state = encoding.transforms.get(expr, {})
            if isinstance(state.get("lower_bound"), (int, float)):
                lo = max(lo, float(state["lower_bound"]))
            if isinstance(state.get("upper_bound"), (int, float)):
                hi = min(hi, float(state["upper_bound"]))
        itself = {name, f"Q('{name}')", f'Q("{name}")'}
        out.append(Variable(name, "number", linear=all(e in itself for e in exprs), bounds=(lo, hi)))
    return out


# ------------------------------------------------------------------------------- the frames
def _with(frame, name: str, values):
    """A copy of ``frame`` with the column ``name`` set to ``values`` (a value or one per row);
    a categorical column stays categorical with its categories."""
    import pandas as pd

    out = frame.copy()
    column = frame[name]
    if isinstance(column.dtype, pd.CategoricalDtype):
        values = np.broadcast_to(np.asarray(values, dtype=object), len(frame))
        out[name] = pd.Categorical(values, categories=column.cat.categories,
                                   ordered=column.cat.ordered)
    else:
        out[name] = np.broadcast_to(values, len(frame)) if np.ndim(values) == 0 else values
    return out


#: the most cells (rows x columns) encoded in one call of formulaic
BATCH_CELLS = 4_000_000


def _columns_many(encoding: FormulaEncoding, frames: list) -> list:
    """The model's columns of each frame, encoded in as few calls as the batch size allows (one
    call of formulaic costs about as much for 200 rows as for 4,000)."""
    import pandas as pd

    width = max(len(encoding.columns), 1)
    out, batch, rows = [], [], 0

    def flush():
        if batch:
            matrix = encode(encoding, pd.concat(batch, ignore_index=True), "use").to_numpy(
                dtype=np.float64)
            out.extend(np.split(matrix, np.cumsum([len(f) for f in batch])[:-1]))
            batch.clear()

    for frame in frames:
        if batch and (rows + len(frame)) * width > BATCH_CELLS:
            flush()
            rows = 0
        batch.append(frame)
        rows += len(frame)
    flush()
    return out


def _derivative_steps(frame, variable: Variable):
    """The frames whose encodings give :math:`\\partial x/\\partial v` at the rows of ``frame``,
    and the function that combines their encodings into it (see the module docstring)."""
    name = variable.name
    if variable.linear:  # exact: the columns are linear in the variable
        return [_with(frame, name, 1.0), _with(frame, name, 0.0)], lambda f: f[0] - f[1]
    x = frame[name].to_numpy(dtype=np.float64)
    scale = float(np.mean(np.abs(x))) or 1.0
    h = STEP * np.maximum(np.abs(x), scale)
    lo, hi = variable.bounds
    side = np.where(x - h < lo, 1.0, np.where(x + h > hi, -1.0, 0.0))  # one-sided near a bound
    central = side == 0
    steps = np.where(central, np.array([[1.0], [-1.0], [0.5], [-0.5]]),
                     np.array([[0.5], [1.0], [2.0], [0.0]]) * side)
    frames = [_with(frame, name, x + s * h) for s in steps]

    def combine(f):
        H = h[:, None]
        out = (4 * (f[2] - f[3]) / H - (f[0] - f[1]) / (2 * H)) / 3  # central: h and h/2
        if not central.all():  # one-sided: f(s h/2), f(s h), f(2 s h) and f(x) = f[3]
            s = side[:, None]
            E1 = s * (-3 * f[3] + 4 * f[1] - f[2]) / (2 * H)
            E2 = s * (-3 * f[3] + 4 * f[0] - f[1]) / H
            out = np.where(central[:, None], out, (4 * E2 - E1) / 3)
        return out

    return frames, combine


def derivative(encoding: FormulaEncoding, frame, variable: Variable) -> np.ndarray:
    """:math:`\\partial x/\\partial v` of the model's columns at the rows of ``frame``, shape
    (n_rows, n_columns) (see the module docstring)."""
    frames, combine = _derivative_steps(frame, variable)
    try:
        return combine(_columns_many(encoding, frames))
    except ValueError as exc:
        raise ValueError(f"The derivative of the model's columns with respect to "
                         f"{variable.name!r} could not be taken at the rows' values ({exc})."
                         ) from None


def _weighted_rows(frame, weight, variables: list[Variable]):
    """One row per combination of the factors' levels (of positive proportion), the numbers at
    their weighted means: ``(rows, weights)`` whose weighted sum of encodings is the point at
    the means (Stata's ``atmeans``)."""
    import pandas as pd

    w = weight / weight.sum()
    base = {}
    choices = []
    for v in variables:
        if v.kind == "number":
            base[v.name] = float(w @ frame[v.name].to_numpy(dtype=np.float64))
        else:
            column = frame[v.name]
            shares = [(level, float(w @ (column == level).to_numpy())) for level in v.levels]
            choices.append((v.name, [(lv, p) for lv, p in shares if p > 0]))
    count = int(np.prod([len(c) for _, c in choices])) if choices else 1
    if count > MAX_COMBINATIONS:
        raise ValueError(f"at='mean' would take {count} rows (one per combination of the "
                         "factors' levels); set the factors with atexog={...} instead.")
    rows, weights = [], []
    for combo in itertools.product(*[c for _, c in choices]):
        row = dict(base)
        p = 1.0
        for (name, _), (level, share) in zip(choices, combo):
            row[name] = level
            p *= share
        rows.append(row)
        weights.append(p)
    others = [c for c in frame.columns if c not in {v.name for v in variables}]
    out = pd.DataFrame(rows, columns=[v.name for v in variables])
    for c in others:  # (columns the formula reads in offsets only; their first value)
        out[c] = frame[c].iloc[0]
    for v in variables:
        if v.kind == "factor" and isinstance(frame[v.name].dtype, pd.CategoricalDtype):
            out[v.name] = pd.Categorical(out[v.name], categories=frame[v.name].cat.categories)
    return out, np.asarray(weights)


def _set(frame, atexog, variables: list[Variable]):
    """The frame with the variables ``atexog`` names set in every row, and the note saying so."""
    if atexog is None:
        return frame, []
    if not isinstance(atexog, dict):
        raise TypeError(f"atexog must be a dict from a variable of the data to a value, such as "
                        f"{{{variables[0].name!r}: ...}}; got {type(atexog).__name__}.")
    known = {v.name: v for v in variables}
    shown = []
    for key, value in atexog.items():
        if key not in known:
            raise ValueError(
                f"atexog: {key!r} is not a variable of the formula; the effects are taken at "
                f"values of the data's variables {list(known)} (a column built from one, such as "
                "I(age ** 2), follows its variable).")
        v = known[key]
        if v.kind == "factor":
            if np.ndim(value) != 0 or value not in v.levels:
                raise ValueError(f"atexog[{key!r}] must be one of the levels {list(v.levels)}; "
                                 f"got {value!r}.")
        else:
            array = np.asarray(value, dtype=np.float64)
            if array.ndim > 1 or (array.ndim == 1 and array.size != len(frame)):
                raise ValueError(f"atexog[{key!r}] must be a number or one number per row "
                                 f"({len(frame)}); got shape {array.shape}.")
            if not np.all(np.isfinite(array)):
                raise ValueError(f"atexog[{key!r}] holds values that are not finite numbers.")
            value = array
        frame = _with(frame, key, value)
        shown.append(f"{key} = {value:g}" if np.ndim(value) == 0 and v.kind == "number" else
                     f"{key} = {value}" if np.ndim(value) == 0 else f"{key} = the values given")
    return frame, [f"at {', '.join(shown)} (atexog), in every row."]


def _discrete(frame, variables: list[Variable], dummy, count) -> tuple[list[str], list[str]]:
    """The numbers taken as dummies (values all 0 or 1) and as counts (non-negative integers that
    vary, not dummies) when ``dummy`` / ``count`` is True, or the ones each names; each number's
    values are read once."""
    numbers = [v.name for v in variables if v.kind == "number"]
    found = {"dummy": [], "count": []}
    flags = {"dummy": dummy, "count": count}
    if any(isinstance(f, (bool, np.bool_)) and f for f in flags.values()):
        for name in numbers:
            x = frame[name].to_numpy(dtype=np.float64)
            if np.all(x % 1.0 == 0) and x.min() >= 0:
                if x.max() <= 1:
                    found["dummy"].append(name)
                elif x.max() > x.min():
                    found["count"].append(name)
    out = {}
    for kind, flag in flags.items():
        if flag is None or isinstance(flag, (bool, np.bool_)):
            out[kind] = found[kind] if flag else []
            continue
        out[kind] = [flag] if isinstance(flag, str) else list(flag)
        for name in out[kind]:
            if name not in numbers:
                raise ValueError(f"{kind}: {name!r} is not a numeric variable of the formula "
                                 f"({sorted(numbers)}); a factor's effect is always its levels' "
                                 "changes.")
    return out["dummy"], [c for c in out["count"] if c not in out["dummy"]]


def effect_designs(encoding: FormulaEncoding, data, weight=None, *, at: str = "overall",
                   atexog=None, dummy=False, count=False, method: str = "dydx"):
    """``(points, weights, designs, notes)`` of :func:`linclass.linear.inference.margins.
    variable_effects` for the variables of a formula model over the rows of ``data``.

    ``points`` (r, d): the model's columns where the effects are taken (every row, or the one
    point at the means); ``weights`` (r,) summing to 1; ``designs``: per number a
    ``('slope', name, J, value)``, per 0/1 number taken as a dummy a ``('change', name, at 0,
    at 1, 1.0)``, per count ``('change', name, at v - 1, at v + 1, 0.5)`` and per factor level
    but the reference ``('change', 'race[black]', at the reference, at the level, 1.0)``.
    """
    if at not in ("overall", "mean"):
        raise ValueError(f"A formula model's effects per variable are taken at='overall' (the "
                         f"average of the rows' effects) or at='mean' (at the variables' means, "
                         f"Stata's atmeans); got at={at!r}. Set chosen values with "
                         "atexog={'age': 30} (Stata's at()).")
    frame = as_frame(data)[list(encoding.variables)]  # (the copies below hold these only)
    variables = model_variables(encoding)
    if not variables:
        raise ValueError("The formula reads no variable: there is no marginal effect to take.")
    n = len(frame)
    weight = np.ones(n) if weight is None else np.asarray(weight, dtype=np.float64)
    dummies, counts = _discrete(frame, variables, dummy, count)
    frame, notes = _set(frame, atexog, variables)
    if at == "overall":
        rows, share = frame, None
        point_weight = weight / weight.sum()
    else:
        rows, share = _weighted_rows(frame, weight, variables)
        point_weight = np.ones(1)

    def point(columns):
        return columns if share is None else (share @ columns)[None, :]

    elastic = "ex" in method
    frames, plans, left_out = [rows], [], []  # plans: (kind, name, frame indices, extra)

    def add(*new):
        frames.extend(new)
        return list(range(len(frames) - len(new), len(frames)))

    for v in variables:
        if v.kind == "factor":
            if elastic:
                left_out.append(v.name)
                continue
            (reference,) = add(_with(rows, v.name, v.reference))
            for level in v.levels:
                if level != v.reference:
                    plans.append(("change", f"{v.name}[{level}]",
                                  [reference, *add(_with(rows, v.name, level))], 1.0))
            notes.append(f"{v.name}[level]: the change from {v.name} = {v.reference} (the "
                         "reference level) to the level, every row switched.")
        elif v.name in dummies:
            plans.append(("change", v.name, add(_with(rows, v.name, 0.0),
                                                _with(rows, v.name, 1.0)), 1.0))
        elif v.name in counts:
            x = rows[v.name].to_numpy(dtype=np.float64)
            plans.append(("change", v.name, add(_with(rows, v.name, x - 1),
                                                _with(rows, v.name, x + 1)), 0.5))
        else:
            x = rows[v.name].to_numpy(dtype=np.float64)
            steps, combine = _derivative_steps(rows, v)
            value = x if share is None else np.atleast_1d(share @ x)
            plans.append(("slope", v.name, add(*steps), (combine, value)))
    try:
        encoded = _columns_many(encoding, frames)
    except ValueError as exc:
        raise ValueError(f"The effects need the model's columns at rows whose variables are moved "
                         f"a little (derivatives) or set to other values (changes); formulaic "
                         f"could not encode them: {exc}") from None
    if not plans:
        raise ValueError(f"No variable of the formula has a {method!r} effect (a factor has no "
                         "elasticity): ask for method='dydx' or 'eydx'.")
    designs = []
    for kind, name, index, extra in plans:
        if kind == "change":
            designs.append(("change", name, point(encoded[index[0]]), point(encoded[index[1]]),
                            extra))
        else:
            combine, value = extra
            designs.append(("slope", name, point(combine([encoded[i] for i in index])), value))
    if dummies:
        notes.append(f"discrete change from 0 to 1: {', '.join(dummies)}.")
    if counts:
        notes.append(f"change from x - 1 to x + 1, halved: {', '.join(counts)}.")
    if left_out:
        notes.append(f"a factor has no elasticity: {', '.join(left_out)} left out.")
    if at == "mean":
        notes.append("at the means of the numbers and the proportions of the factors' levels "
                     "(Stata's atmeans).")
    notes.insert(0, "effects per variable of the data, through every column built from it "
                    "(Stata's margins).")
    return point(encoded[0]), point_weight, designs, notes
