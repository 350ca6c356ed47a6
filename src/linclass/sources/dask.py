"""Dask collections as input: fits by a map over chunks and a tree reduction, lazy predictions.

Dask is an optional dependency (``pip install linclass[dask]``); this module imports it only when a
Dask collection is actually passed, so ``import linclass`` never needs it.

Fitting (see :mod:`linclass.core.chunks` for the summaries): :class:`DaskSource` turns X (a
``dask.array.Array`` or ``dask.dataframe.DataFrame``), y (a Dask array or series, or NumPy) and
sample_weight into row blocks aligned by construction (see its docstring); every pass builds one task per block, combines the results in
a tree of fan-in 8 and computes the root with whatever scheduler is active: the local threaded
scheduler by default, or a ``distributed`` cluster when a ``Client`` exists.  Only the summaries travel
(class statistics; d x d or dK x dK matrices for logistic regression), never rows.

Iterative fits (logistic regression) read X once per iteration: ``X = X.persist()`` first keeps the
blocks in (cluster) memory; without it each iteration recomputes X from its source (for example
rereads the Parquet files), which bounds memory at the cost of time.

A partition that cannot be read (a damaged Parquet page, say) stops the fit with a
:class:`~linclass.exceptions.DataError` naming the partition and the files it reads
(:mod:`linclass.sources.dask_read_errors`).

Prediction: ``predict`` / ``predict_proba`` / ``predict_log_proba`` / ``decision_function`` /
``transform`` on a Dask collection return a lazy ``dask.array.Array`` computed block by block.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from linclass.core.chunks import Chunk, combine_all
from linclass.core.validation import is_dask_collection
from linclass.sources.dask_read_errors import is_read_error, read_error_named

__all__ = ["DaskSource", "is_dask_collection", "lazy_on_dask", "predict_blockwise"]

_FAN_IN = 8


def _is_frame(obj) -> bool:
    return is_dask_collection(obj) and hasattr(obj, "to_dask_array") and obj.ndim == 2


def _is_series(obj) -> bool:
    return is_dask_collection(obj) and hasattr(obj, "to_dask_array") and obj.ndim == 1


_Method = TypeVar("_Method", bound=Callable[..., Any])


def lazy_on_dask(method: _Method) -> _Method:
    """Decorate a prediction method ``method(self, X)`` so that a Dask collection X gives a lazy
    Dask array computed block by block by the same method."""
    name = method.__name__

    @functools.wraps(method)
    def wrapper(self, X, *args, **kwargs):
        if is_dask_collection(X):
            given = [k for k, v in kwargs.items() if v is not None] + ["argument"] * any(
                a is not None for a in args)
            if given:
                raise ValueError(f"{name} on a Dask collection takes X alone; {given[0]}= is "
                                 "taken for rows in memory (call .compute() first).")
            return predict_blockwise(self, name, X)
        return method(self, X, *args, **kwargs)

    return wrapper


def _feature_names(columns):
    names = list(columns)
    if names and all(isinstance(c, str) for c in names):
        return np.asarray(names, dtype=object)
    return None


class DaskSource:
    """Aligned row blocks of X, y and sample_weight held by Dask (a chunk source of
    :mod:`linclass.core.chunks`).

    X, y and sample_weight are aligned by position, by construction, whatever their source
    (``read_parquet``, ``read_csv``, ``from_pandas``, ``from_array``, persisted or not, divisions
    known or unknown):

    * y and sample_weight taken from the same frame as X (``frame.drop(columns="label")`` and
      ``frame["label"]``: the same sources, row-wise operations) are put back into that frame (one
      graph), and each task splits its partition into X, y and the weights.  (Dask optimises each
      collection on its own: the two halves of one frame need not split into the same partitions,
      so their partitions are never paired one by one.)
    * Otherwise (persisted separately, read twice, built from other arrays) the rows of X's
      partitions are counted (one pass over X) and y and the weights are cut at the same rows.

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features) or dask.dataframe.DataFrame
    y : dask array / series, NumPy array or None
    sample_weight : dask array / series, NumPy array, scalar or None
    """

    def __init__(self, X, y=None, sample_weight=None):
        import dask.array as da

        self.feature_names = None
        if _is_frame(X):
            self.feature_names = _feature_names(X.columns)
            self.n_features = len(X.columns)
            joined = _one_frame(X, y, sample_weight)
            if joined is not None:  # one graph: each partition holds its own y and weights
                frame, split = joined
                self._blocks = [(part, None, None, None, split) for part in frame.to_delayed()]
                self._rows = (math.nan,) * len(self._blocks)  # not counted: no pass needed
                return
            parts, rows = _counted_partitions(X)
            ys = _aligned(y, rows, "y")
            ws = _aligned(sample_weight, rows, "sample_weight")
            starts = np.concatenate([[0], np.cumsum(rows)[:-1]]).astype(int).tolist()
            self._blocks = [(x, ys[i], ws[i], starts[i], None) for i, x in enumerate(parts)]
            self._rows = rows
            return
        if not isinstance(X, da.Array):
            X = da.from_array(np.asarray(X), chunks=(max(1, len(X) // 8 or 1), -1))
        if X.ndim != 2:
            raise ValueError(f"Expected a 2D array X of shape (n_samples, n_features), got a {X.ndim}D "
                             f"Dask array of shape {X.shape}.")
        if any(math.isnan(c) for c in X.chunks[0]):
            X = X.compute_chunk_sizes()
        X = X.rechunk({1: -1})
        rows = X.chunks[0]
        self.n_features = int(X.shape[1])
        ys = _aligned(y, rows, "y")
        ws = _aligned(sample_weight, rows, "sample_weight")
        starts = np.concatenate([[0], np.cumsum(rows)[:-1]]).astype(int).tolist()
        self._blocks = [(x, ys[i], ws[i], starts[i], None) for i, x in enumerate(X.to_delayed().ravel())]
        self._rows = tuple(int(r) for r in rows)

    def map_reduce(self, fn, combine, *args):
        """``combine`` over ``fn(Chunk, *args)`` for every block, as one Dask computation."""
        import dask
        from dask import delayed

        shared = delayed(args, traverse=False)
        parts = [delayed(_apply, pure=True)(fn, x, y, w, i, start, split, shared)
                 for i, (x, y, w, start, split) in enumerate(self._blocks)]
        group = delayed(_combine_group, pure=True)
        while len(parts) > 1:
            parts = [group(combine, *parts[i:i + _FAN_IN]) for i in range(0, len(parts), _FAN_IN)]
        try:
            (result,) = dask.compute(parts[0])
        except Exception as exc:
            if not is_read_error(exc):
                raise
            raise read_error_named(self._blocks, exc) from exc
        return result


    def map_rows(self, fn, n_columns: int, dtype, *args):
        """``fn(Chunk, *args)`` (an array of shape (rows, n_columns) for the chunk's rows) for every
        block, as one lazy ``dask.array.Array`` whose row chunks are X's blocks (of unknown sizes
        where X is a data frame whose rows were not counted).  ``args`` travel once, shared by
        every task: the global statistics a per-row computation needs."""
        import dask.array as da
        from dask import delayed

        shared = delayed(args, traverse=False)
        blocks = [da.from_delayed(delayed(_apply, pure=True)(fn, x, y, w, i, start, split, shared),
                                  shape=(self._rows[i], n_columns), dtype=dtype)
                  for i, (x, y, w, start, split) in enumerate(self._blocks)]
        return da.concatenate(blocks, axis=0)


def _same_frame(frame, *series) -> bool:
    """Whether the Dask ``series`` were taken from ``frame``'s own graph by row-wise operations (a
    column of the frame they share, say): the same source expressions at the leaves of their
    graphs (a second ``read_parquet`` of the same files is another source: Dask may split it
    otherwise), and co-aligned as Dask's ``assign`` understands it.  False where that cannot be
    told (a Dask without query planning): the rows are then counted instead."""
    try:
        from dask.dataframe.dask_expr._expr import are_co_aligned

        leaves = _leaves(frame.expr)
        return all(_leaves(s.expr) == leaves for s in series) and bool(
            are_co_aligned(frame.expr, *(s.expr for s in series)))
    except (ImportError, AttributeError):  # pragma: no cover - older Dask
        return False


def _leaves(expr) -> frozenset:
    """The names of the expressions at the leaves of a Dask expression's graph (its sources)."""
    seen, stack, leaves = set(), [expr], set()
    while stack:
        e = stack.pop()
        if e._name in seen:
            continue
        seen.add(e._name)
        dependencies = e.dependencies()
        if not dependencies:
            leaves.add(e._name)
        stack.extend(dependencies)
    return frozenset(leaves)


def _one_frame(X, y, sample_weight):
    """``(frame, split)``: X with y and the weights as extra columns, when every one of them that
    is not None or a scalar is a Dask series of X's own graph (None otherwise, or when there is
    none); ``split`` is ``(feature columns, y column or None, weight column or None, y, weight)``,
    the last two the values (None or a scalar) of those not in the frame."""
    named = {"y": y, "w": sample_weight}
    series = {k: v for k, v in named.items() if _is_series(v)}
    others = [v for k, v in named.items() if k not in series]
    if not series or any(v is not None and not np.isscalar(v) for v in others):
        return None
    if not _same_frame(X, *series.values()):
        return None
    columns = list(X.columns)
    taken = set(map(str, columns))
    names = {}
    for key in series:
        name = f"__linclass_{key}__"
        while name in taken:
            name += "_"
        names[key] = name
        taken.add(name)
    frame = X.assign(**{names[k]: v for k, v in series.items()})
    split = (columns, names.get("y"), names.get("w"), None if "y" in series else y,
             None if "w" in series else sample_weight)
    return frame, split


def _counted_partitions(collection):
    """The delayed partitions of a Dask frame or series and their row counts (one pass).  The
    counts are of these very partitions: Dask may split the same collection otherwise when it
    optimises another graph (``len`` of each partition, ``to_dask_array(lengths=True)``)."""
    import dask
    from dask import delayed

    parts = list(collection.to_delayed())
    rows = dask.compute(*[delayed(len, pure=True)(p) for p in parts])
    return parts, tuple(int(r) for r in rows)


def _aligned(value, rows, name):
    """Per-block pieces of y / sample_weight matching X's row blocks ``rows``."""
    import dask.array as da
    from dask import delayed

    if value is None or np.isscalar(value):
        return [value] * len(rows)
    if _is_series(value):  # a series of another graph: cut at X's rows
        parts, counts = _counted_partitions(value)
        dtype = value.dtype if getattr(value.dtype, "kind", "O") in "biufc" else object
        value = da.concatenate([da.from_delayed(delayed(_values, pure=True)(p), shape=(n,), dtype=dtype)
                                for p, n in zip(parts, counts)])
    elif _is_frame(value):
        raise ValueError(f"{name} must be one column (a Dask series or 1-D array), not a data frame.")
    if not isinstance(value, da.Array):
        value = np.asarray(value)
        if value.ndim == 2 and value.shape[1] == 1:
            value = value[:, 0]
        if value.ndim != 1 or value.shape[0] != sum(rows):
            raise ValueError(f"X and {name} have inconsistent numbers of samples: X has {sum(rows)} "
                             f"rows but {name} has shape {value.shape}.")
        bounds = np.cumsum((0,) + tuple(rows))
        return [value[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    if value.ndim == 2 and value.shape[1] == 1:
        value = value[:, 0]
    if any(math.isnan(c) for c in value.chunks[0]):
        value = value.compute_chunk_sizes()
    if value.ndim != 1 or value.shape[0] != sum(rows):
        raise ValueError(f"X and {name} have inconsistent numbers of samples: X has {sum(rows)} rows "
                         f"but {name} has shape {value.shape}.")
    return list(value.rechunk((rows,)).to_delayed().ravel())


def _values(part) -> np.ndarray:
    """A pandas series partition as a NumPy array."""
    return part.to_numpy() if hasattr(part, "to_numpy") else np.asarray(part)


def _apply(fn, X, y, w, index, start, split, args):
    if split is not None:  # a partition of X with y and the weights as extra columns
        columns, y_column, w_column, y_value, w_value = split
        y = X[y_column] if y_column is not None else y_value
        w = X[w_column] if w_column is not None else w_value
        X = X[columns]
    return fn(Chunk(X, y, w, index, start), *args)


def _combine_group(combine, *parts):
    return combine_all(combine, parts)


# ---------------------------------------------------------------------------------- prediction
def _call(block, estimator, method):
    with warnings.catch_warnings():  # columns were matched on the client
        warnings.filterwarnings("ignore", message=".*feature names.*", category=UserWarning)
        return getattr(estimator, method)(block)


def predict_blockwise(estimator, method: str, X):
    """``getattr(estimator, method)`` on every row block of the Dask collection X, as a lazy
    ``dask.array.Array`` (rows of unknown count when X is a data frame)."""
    import dask.array as da
    from dask import delayed
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(estimator)
    d = estimator.n_features_in_
    names = getattr(estimator, "feature_names_in_", None)
    if _is_frame(X):
        columns = [str(c) for c in X.columns]
        if names is not None and columns != [str(n) for n in names]:
            missing = [n for n in names if n not in columns]
            detail = (f"missing column(s) {missing[:5]}" if missing
                      else "the same columns in another order")
            raise ValueError(f"The feature names should match those that were passed during fit: X "
                             f"has {detail}; expected {list(names)}.")
        if len(columns) != d:
            raise ValueError(f"X has {len(columns)} features, but {type(estimator).__name__} is "
                             f"expecting {d} features as input.")
        import pandas as pd

        probe = _call(pd.DataFrame(np.zeros((1, d)), columns=X.columns), estimator, method)
        blocks = [da.from_delayed(delayed(_call, pure=True)(part, estimator, method),
                                  shape=(np.nan,) + probe.shape[1:], dtype=probe.dtype)
                  for part in X.to_delayed()]
        return da.concatenate(blocks, axis=0)
    if X.ndim != 2:
        raise ValueError(f"Expected a 2D array X of shape (n_samples, n_features), got a {X.ndim}D "
                         f"Dask array of shape {X.shape}.")
    if X.shape[1] != d:
        raise ValueError(f"X has {X.shape[1]} features, but {type(estimator).__name__} is expecting "
                         f"{d} features as input.")
    X = X.rechunk({1: -1})
    probe = _call(np.zeros((1, d)), estimator, method)
    if probe.ndim == 1:
        return X.map_blocks(_call, estimator, method, dtype=probe.dtype, drop_axis=1,
                            chunks=(X.chunks[0],))
    return X.map_blocks(_call, estimator, method, dtype=probe.dtype,
                        chunks=(X.chunks[0], probe.shape[1:]))
