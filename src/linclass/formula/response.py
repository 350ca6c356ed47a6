"""The class labels and the weights of a formula fit, read from the data frame: the left-hand side
of ``low ~ age + C(race)`` (a column, or an expression of columns such as ``I(bwt < 2500)``,
evaluated by formulaic after the checks of :mod:`linclass.formula.safety`), and ``sample_weight``
given as a column name (R's ``weights = freq``)."""

from __future__ import annotations

import numpy as np

from linclass.formula.safety import check_expression, check_names

__all__ = ["evaluate", "response_values", "weight_values"]


def _missing(values, what: str) -> None:
    import pandas as pd

    n = int(pd.isna(values).sum())
    if n:
        raise ValueError(f"The {what} is missing in {n} row(s). R's glm drops such rows by default "
                         "(na.action = na.omit); linclass does not drop rows silently: drop them "
                         "from the data first (data.dropna(subset=[...])).")


def evaluate(expression: str, data, what: str = "response"):
    """The values ``expression`` gives on the rows of ``data`` (a column as it is, or the values of
    an expression checked by :mod:`linclass.formula.safety` first), as a pandas Series, one per
    row, none missing (``what`` names it in the messages)."""
    import pandas as pd

    columns = [str(c) for c in data.columns]
    if expression[:1] == "`" and expression[-1:] == "`" and expression[1:-1] in columns:
        expression = expression[1:-1]  # (a column whose name is not a Python name)
    if expression in columns:
        values = data[expression]
    else:
        check_names(check_expression(expression), columns, expression)
        from formulaic.materializers import FormulaMaterializer
        from formulaic.utils.stateful_transforms import stateful_eval

        context = FormulaMaterializer.for_data(data)(data).layered_context
        values = stateful_eval(expression, context, {}, {}, None)
        values = getattr(values, "__wrapped__", values)  # C(...) marks its values
    if np.ndim(values) == 0:  # a constant: the same for every row
        values = np.full(len(data), values)
    values = pd.Series(values) if not isinstance(values, pd.Series) else values
    if len(values) != len(data):
        raise ValueError(f"The {what} {expression!r} gives {len(values)} values for "
                         f"{len(data)} rows.")
    _missing(values, f"{what} {expression!r}")
    return values


def response_values(expression: str, data) -> np.ndarray:
    """The labels ``expression`` gives on the rows of ``data`` (a column as it is, or the values of
    an expression), as a 1-D array."""
    import pandas as pd

    values = evaluate(expression, data)
    if isinstance(values.dtype, pd.CategoricalDtype):
        values = values.astype(values.cat.categories.dtype)
    array = values.to_numpy()
    if array.dtype.kind == "O" and all(isinstance(v, str) for v in array[:1000]):
        array = array.astype(str)
    return array


def weight_values(sample_weight, data):
    """``sample_weight`` as given, or the column it names."""
    if not isinstance(sample_weight, str):
        return sample_weight
    if sample_weight not in data.columns:
        raise ValueError(f"sample_weight={sample_weight!r} names no column of the data (columns: "
                         f"{[str(c) for c in data.columns][:20]}).")
    values = data[sample_weight]
    _missing(values, f"weight column {sample_weight!r}")
    return values.to_numpy(dtype=np.float64)
