"""The class labels and the weights of a formula fit, read from the data frame: the left-hand side
of ``low ~ age + C(race)`` (a column, or an expression of columns such as ``I(bwt < 2500)``,
evaluated by formulaic after the checks of :mod:`linclass.formula.safety`), and ``sample_weight``
given as a column name (R's ``weights = freq``).  A grouped binomial response is written as R
writes it, ``cbind(successes, failures) ~ ...`` (:func:`grouped_counts`): two columns (or
expressions) of counts per row, fitted as :mod:`linclass.linear.logistic.grouped` says.

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

__all__ = ["LevelCoding", "evaluate", "grouped_counts", "grouped_parts", "level_coding",
           "named_classes", "response_labels", "response_values", "weight_values"]


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


def response_values(expression: str, data):
    """The labels ``expression`` gives on the rows of ``data`` (a column as it is, or the values of
    an expression), as a 1-D array; for ``cbind(successes, failures)`` the counts
    (:func:`grouped_counts`)."""
    if grouped_parts(expression) is not None:
        return grouped_counts(expression, data)
    return _plain(evaluate(expression, data))


def response_labels(expression: str, data) -> tuple[object, LevelCoding | None]:
    """The labels of :func:`response_values` and the :class:`LevelCoding` of a Categorical
    response whose levels are not in sorted order (None otherwise)."""
    if grouped_parts(expression) is not None:
        return grouped_counts(expression, data), None
    values = evaluate(expression, data)
    return _plain(values), level_coding(values)


def grouped_parts(expression: str) -> tuple[str, str] | None:
    """The two arguments of a grouped binomial response ``cbind(successes, failures)`` (R's), as
    written, or None for any other response."""
    text = expression.strip()
    if not (text.startswith("cbind(") and text.endswith(")")):
        return None
    inner, depth, cut = text[len("cbind("):-1], 0, []
    quote = None
    for k, char in enumerate(inner):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"`":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth < 0:  # 'cbind(a) + f(b)': the call does not span the response
                return None
        elif char == "," and depth == 0:
            cut.append(k)
    if len(cut) != 1:
        raise ValueError(f"The response {expression!r}: cbind takes two columns, the successes "
                         "and the failures (R's cbind(successes, failures); write the failures "
                         "as I(trials - successes) when the data hold the trials).")
    first, second = inner[:cut[0]].strip(), inner[cut[0] + 1:].strip()
    if not first or not second:
        raise ValueError(f"The response {expression!r}: cbind needs two columns.")
    return first, second


def grouped_counts(expression: str, data):
    """The counts of a ``cbind(successes, failures)`` response on the rows of ``data``: a pandas
    DataFrame of two columns named as written (each a column, or an expression of columns
    checked as any response is, :func:`evaluate`)."""
    import pandas as pd

    parts = grouped_parts(expression)
    columns = {}
    for part, what in zip(parts, ("successes", "failures")):
        values = evaluate(part, data, what=f"{what} of the response")
        try:
            columns[part.strip("`")] = values.to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"The {what} {part!r} of the response {expression!r} are not "
                             "numbers (counts).") from None
    if len(columns) != 2:
        raise ValueError(f"The response {expression!r} names the same column twice; cbind takes "
                         "the successes and the failures.")
    return pd.DataFrame(columns, index=data.index)


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
    if "threshold_names" in names:  # an ordinal model's table: thresholds named 'Low|Medium'
        return table.with_levels(levels)
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
