"""The checks of a data frame before a formula encodes it, each refusal saying what to do: the frame
is a pandas DataFrame, the columns the formula reads have no missing values (R's glm would drop
those rows silently), and every factor's values are among the levels the model was fitted with (a
level it did not see has no coefficient: formulaic would code it as all zeros, the reference
level's coding, with a warning)."""

from __future__ import annotations

import ast

import numpy as np

__all__ = ["as_frame", "check_complete", "check_levels"]


def as_frame(data, what: str = "data"):
    """``data`` as a pandas DataFrame (a DataFrame, or a mapping of column names to columns)."""
    import pandas as pd

    if isinstance(data, pd.DataFrame):
        return data
    if isinstance(data, dict):
        return pd.DataFrame(data)
    raise TypeError(f"A formula model takes its {what} as a pandas DataFrame whose columns the "
                    f"formula names; got {type(data).__name__}. Build one with "
                    "pandas.DataFrame(...).")


def check_complete(data, columns, verb: str = "predict") -> None:
    """No missing values in ``columns`` of the frame (R's glm would drop such rows)."""
    counts = {c: int(data[c].isna().sum()) for c in columns}
    missing = {c: n for c, n in counts.items() if n}
    if missing:
        listed = ", ".join(f"{c!r} ({n} row{'s' if n > 1 else ''})" for c, n in missing.items())
        raise ValueError(
            f"Missing values in the column(s) the formula reads: {listed}. R's glm drops such rows "
            "by default (na.action = na.omit); linclass does not drop rows silently: pass "
            f"data.dropna(subset={sorted(missing)}) to {verb} the complete rows."
        )


def _factor_column(expr: str, columns) -> str | None:
    """The data column a categorical factor codes: ``race``, ```my col```, ``C(race, ...)``."""
    if expr in columns:
        return expr
    from formulaic.utils.code import sanitize_variable_names

    aliases: dict = {}
    try:
        node = ast.parse(sanitize_variable_names(expr, {}, aliases), mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "C" and (
            node.args and isinstance(node.args[0], ast.Name)):
        node = node.args[0]
    if isinstance(node, ast.Name):
        name = aliases.get(node.id, node.id)
        return name if name in columns else None
    return None


def check_levels(encoding, data) -> None:
    """No level of a factor that the model did not see (it has no coefficient for it)."""
    import pandas as pd

    columns = set(map(str, data.columns))
    for expr, f in encoding.factors.items():
        levels = f.get("levels")
        name = _factor_column(expr, columns) if levels is not None else None
        if name is None:
            continue
        values = data[name]
        unseen = pd.unique(values[~values.isin(levels)])
        if len(unseen):
            shown = [v.item() if isinstance(v, np.generic) else v for v in unseen[:10]]
            raise ValueError(
                f"The column {name!r} holds {len(unseen)} level(s) the model did not see when it "
                f"was fitted: {shown} (factor {expr}; known levels: {list(levels)}). The model has "
                "no coefficient for an unseen level: drop those rows, or map them to a known level."
            )
