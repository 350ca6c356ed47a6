"""Input refused before it is converted, each with a message that names the problem and the way
out: Dask collections where a function needs the rows in memory, and pandas columns of strings or
categories (factors, which a formula codes).  Called by :mod:`linclass.core.validation`.
"""

from __future__ import annotations

__all__ = ["refuse_dask", "refuse_factors"]


def refuse_dask(X, estimator) -> None:
    """A Dask collection where the rows must be in memory: refuse it, naming the function that is
    the limit (:func:`_called_as`)."""
    if type(X).__module__.split(".")[0] == "dask" and hasattr(X, "__dask_graph__"):
        where = _called_as() or f"{type(estimator).__name__}.fit"
        chunked = getattr(type(estimator), "fit_source", None) is not None
        raise TypeError(
            f"{where} does not work on Dask collections"
            + (f" (it needs the rows in memory, although {type(estimator).__name__}.fit takes "
               "Dask collections)" if chunked and not where.endswith(".fit") else
               ": the Gaussian models, naive Bayes, FisherDiscriminantAnalysis, "
               "LogisticRegression and kernel Fisher with approximation='nystroem' fit on them")
            + ". Call X.compute() first if the data fit in memory."
        )


def _called_as() -> str | None:
    """The linclass function or method the user called (the outermost linclass frame of the
    stack), as ``name`` or ``Class.method``, to name the function that refuses the input."""
    import sys

    frame, found = sys._getframe(2), None
    while frame is not None:
        if frame.f_globals.get("__name__", "").split(".")[0] == "linclass":
            owner = frame.f_locals.get("self")
            found = (f"{type(owner).__name__}.{frame.f_code.co_name}" if owner is not None
                     else frame.f_code.co_name)
        elif found is not None:
            return found
        frame = frame.f_back
    return found


def _non_numeric_columns(X) -> dict:
    """``{column: 'categories' | 'strings'}`` for the columns of a pandas DataFrame that hold a
    factor rather than numbers (a 'category' column whose categories are integers is listed as
    'codes')."""
    import pandas as pd

    numeric = ("integer", "floating", "mixed-integer-float", "decimal", "boolean", "empty")
    out = {}
    for name, dtype in X.dtypes.items():
        if isinstance(dtype, pd.CategoricalDtype):
            out[name] = "codes" if dtype.categories.dtype.kind in "iub" else "categories"
        elif pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
            continue
        elif dtype.kind == "O" and pd.api.types.infer_dtype(X[name], skipna=True) in numeric:
            continue
        elif dtype.kind == "O" or pd.api.types.is_string_dtype(dtype):
            out[name] = "strings"
    return out


def refuse_factors(X, estimator) -> None:
    """A pandas column of categories or strings is a factor: refuse it, naming the column and the
    formula that would code it (an estimator of category codes, such as CategoricalNB, takes a
    'category' column whose categories are integers)."""
    if type(X).__module__.split(".")[0] != "pandas" or not hasattr(X, "dtypes") or X.ndim != 2:
        return
    found = _non_numeric_columns(X)
    if not found:
        return
    from sklearn.utils import get_tags

    name = type(estimator).__name__
    if get_tags(estimator).input_tags.categorical:  # category codes
        bad = [c for c, kind in found.items() if kind != "codes"]
        if bad:
            raise ValueError(
                f"{name} takes each category as an integer code; the column(s) {bad[:5]} hold "
                f"strings or categories that are not integers. Pass integer codes, e.g. "
                f"X[{str(bad[0])!r}].cat.codes or X[{str(bad[0])!r}].astype('category').cat.codes."
            )
        return
    columns = [str(c) for c in list(found)[:5]]
    categories = [str(c) for c, kind in found.items() if kind != "strings"]
    what = ("categories (pandas 'category' dtype)" if not any(k == "strings" for k in found.values())
            else "strings" if not categories else "strings or categories")
    codes = (f"; or pass X[{categories[0]!r}].cat.codes if the codes are meant as a number"
             if categories else "")
    raise ValueError(
        f"The column(s) {columns} hold {what}: {name} takes every column as a number"
        + (", and would fit a category's integer code as a single slope" if categories else "")
        + ". Code the factor with a formula: "
        + (f"{name}('y ~ C({columns[0]}) + ...')" if "formula" in estimator.get_params(deep=False)
           else f"linclass.from_formula('y ~ C({columns[0]}) + ...', data, model={name}())")
        + f", which makes one column per level and codes new frames the same way{codes}."
    )
