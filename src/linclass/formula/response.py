"""The class labels and the weights of a formula fit, read from the data frame: the left-hand side
of ``low ~ age + C(race)`` (a column, or an expression of columns such as ``I(bwt < 2500)``,
evaluated by formulaic after the checks of :mod:`linclass.formula.safety`), and ``sample_weight``
given as a column name (R's ``weights = freq``).

The order of the classes: R takes a factor response's levels in their order (the first is the
reference of ``glm`` and ``multinom``, and the order of ``lda``'s group means, whose singular
vectors fix the signs of LD1, LD2, ...), where scikit-learn sorts the labels.  A formula model
follows R: a pandas Categorical response whose levels (those present) are not in sorted order is
coded :class:`LevelCoding` (0, 1, ... in the levels' order) for the wrapped estimator, whose sorted
``classes_`` are then the levels' order; the plain estimators keep scikit-learn's sorted
``classes_``."""

from __future__ import annotations

import numpy as np

from linclass.formula.safety import check_expression, check_names

__all__ = ["LevelCoding", "evaluate", "level_coding", "named_classes", "response_labels",
           "response_values", "weight_values"]


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
    return _plain(evaluate(expression, data))


def response_labels(expression: str, data) -> tuple[np.ndarray, LevelCoding | None]:
    """The labels of :func:`response_values` and the :class:`LevelCoding` of a Categorical
    response whose levels are not in sorted order (None otherwise)."""
    values = evaluate(expression, data)
    return _plain(values), level_coding(values)


def _plain(values) -> np.ndarray:
    import pandas as pd

    if isinstance(values.dtype, pd.CategoricalDtype):
        values = values.astype(values.cat.categories.dtype)
    array = values.to_numpy()
    if array.dtype.kind == "O" and all(isinstance(v, str) for v in array[:1000]):
        array = array.astype(str)
    return array


class LevelCoding:
    """The classes of a factor response in its levels' order (R's), as codes 0, 1, ...

    Parameters
    ----------
    levels : ndarray of shape (n_classes,)
        The levels present in the training rows, in the factor's order.
    """

    def __init__(self, levels):
        self.levels = np.asarray(levels)

    def encode(self, labels) -> np.ndarray:
        """The code of each label (its level's position).

        Raises
        ------
        ValueError
            For a label that is not one of the levels.
        """
        values = _plain(labels) if hasattr(labels, "dtype") and hasattr(labels, "cat") else (
            np.asarray(labels))
        where = {level: k for k, level in enumerate(self.levels.tolist())}
        codes = np.array([where.get(v, -1) for v in values.tolist()], dtype=np.intp)
        if np.any(codes < 0):
            unknown = list(dict.fromkeys(np.asarray(values)[codes < 0].tolist()))[:5]
            raise ValueError(f"y holds label(s) {unknown} that are not levels of the response the "
                             f"model was fitted on (levels: {self.levels.tolist()}).")
        return codes

    def decode(self, codes) -> np.ndarray:
        """The levels of the codes."""
        return self.levels[np.asarray(codes, dtype=np.intp)]


def level_coding(values) -> LevelCoding | None:
    """The :class:`LevelCoding` of a pandas Categorical ``values`` whose levels present in the rows
    are not in sorted order (R's order differs from scikit-learn's), else None."""
    import pandas as pd

    if not isinstance(getattr(values, "dtype", None), pd.CategoricalDtype):
        return None
    codes = np.asarray(values.cat.codes if hasattr(values, "cat") else values.codes)
    categories = values.cat.categories if hasattr(values, "cat") else values.categories
    levels = np.asarray(categories)[np.unique(codes[codes >= 0])]
    try:
        in_order = bool(np.all(np.unique(levels) == levels))
    except TypeError:  # levels of several types: no sorted order to keep
        in_order = False
    return None if in_order else LevelCoding(levels)


def named_classes(table, levels, reference: int = 0):
    """A summary of the wrapped estimator fitted on level codes (:class:`LevelCoding`) with the
    classes named by their levels: MASS's ``lda`` table's ``classes``, a logistic table's title and
    equations (``reference``: the code of a softmax table's reference class), the marginal effects'
    classes (:class:`~linclass.linear.inference.margins.MarginalEffects`)."""
    from dataclasses import fields, replace

    from linclass.linear.inference.summary import (Summary, binary_title, level_name,
                                                   softmax_names)

    levels = list(np.asarray(levels).tolist())
    names = {f.name for f in fields(table)}
    if "group_means" in names:
        return replace(table, classes=levels)
    if "margeff" in names:  # the marginal effects' table: one column per class (softmax)
        if len(table.classes) != len(levels):
            return table
        return replace(table, classes=[level_name(table.dep_variable, c) for c in levels])
    if "equations" not in names:
        return table
    if len(table.equations) == 1:
        old, new = binary_title(list(range(len(levels)))), binary_title(levels)
        return replace(table, title=table.title.replace(old, new))
    if isinstance(table, Summary):
        order = [levels[reference]] + [c for k, c in enumerate(levels) if k != reference]
        title, equations = softmax_names(order, table.dep_variable)
        return replace(table, title=title, equations=equations)
    return replace(table, equations=[level_name(table.dep_variable, c) for c in levels])


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
