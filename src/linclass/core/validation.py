"""The door: the one place where user input is checked, converted and label-encoded (X, labels,
sample weights, priors and the ``classes`` of ``partial_fit``), where the dtype X keeps is decided,
and where X's values are checked against float64 arithmetic (NaN, infinity, overflow and
underflow), with errors that name the row, the column or the features.

Every estimator calls :func:`validate_fit` / :func:`validate_predict`; nothing else in the package
inspects raw user input.  Some input is refused before it is converted, each with a message that names the
problem and the way out: Dask collections where a function needs the rows in memory
(:func:`refuse_dask`), and pandas columns of strings or categories (factors, which a formula codes:
:func:`refuse_factors`).  Errors are :class:`ValueError` (or :class:`TypeError` for the wrong kind of
object) whose message says what was wrong and how to fix it.  Chunks of a chunked source are checked by
:mod:`linclass.core.chunk_validation`.

Dtype policy (float32 input): which dtype a fit computes in, and which dtype its fitted attributes
and outputs take.  scikit-learn keeps a float32 X in float32 for some of its estimators and converts
it to float64 for others; linclass's estimators that share a scikit-learn name follow scikit-learn
1.9, attribute by attribute (each such estimator lists its attributes in ``_float32_attributes``; the
table of every class and case is ``tests/test_float32.py``).  The rules:

* X is converted to C-contiguous float64 (no copy when it already is); an estimator that keeps
  float32 as scikit-learn does passes ``dtype=FLOAT32_KEPT`` to :func:`validate_fit` /
  :func:`validate_predict`, and a float32 X, dense or sparse, then stays as it is; any other dtype
  (integers, float16, ...) becomes float64, as before.  This is the one decision: what follows reads
  X's dtype (:func:`is_low`).
* A fit on a large float32 X (:data:`LOW_PRECISION_MIN` entries or more) computes its products over
  X in float32 (half the memory traffic, twice the BLAS throughput) and sums those products over
  row blocks in float64, so that the statistics, the gradients and the optimum stay accurate
  (:mod:`linclass.generative.scatter_float32`, :mod:`linclass.linear.logistic.objective`); where float32
  products would not be accurate enough (an ill-conditioned covariance, values out of float32's
  range for squares, or a small X, whose float64 products cost little) it computes them in
  float64.  Everything computed from those sums (covariances, factorisations, solver steps) is
  float64.
* The attributes scikit-learn keeps in float32 are cast to float32 when they are set
  (:func:`cast_fitted`); the others, and every attribute scikit-learn does not have, stay float64.
* An output (``predict_proba``, ``decision_function``, ``transform``, ...) is float32 when X is
  float32 and the fitted arrays it is computed from are float32 (numpy's promotion, which is
  scikit-learn's rule); it is then computed in float32.

A fit on a float64 X is exactly what it was.

Finiteness and magnitude: ``validate_*(..., check_finite=True)`` scans X for NaN / infinity at once
(:func:`check_finite`, one summation of X), for callers that compute nothing from X first.  A NaN or
infinity in X makes every product over X non-finite, so with ``check_finite=False`` the estimators
check the (small) results they compute anyway, the class statistics at fit and the scores at
predict, and only when those are not finite is X scanned to say where the bad value is
(:func:`explain_non_finite`).  Estimators that square X without computing class statistics first
(Gram matrices, kernels, Hessians, perceptron activations) call :func:`check_magnitude`; the
statistics models learn of underflow from their statistics (:func:`explain_underflow`).
"""

from __future__ import annotations

import warnings

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import column_or_1d, validate_data

from linclass.core.lazy import COMPILED_MIN

__all__ = [
    "FLOAT32_KEPT",
    "FitData",
    "LOW",
    "LOW_PRECISION_MIN",
    "cast_fitted",
    "check_column_magnitude",
    "check_finite",
    "check_label_type",
    "check_magnitude",
    "encode_labels",
    "explain_non_finite",
    "explain_underflow",
    "float64_data",
    "is_dask_collection",
    "is_low",
    "output_dtype",
    "refuse_dask",
    "refuse_factors",
    "validate_classes",
    "validate_fit",
    "validate_labels",
    "validate_predict",
    "validate_priors",
    "validate_sample_weight",
]


# -------------------- dtype policy: the dtypes X keeps
LOW = np.dtype(np.float32)  # the low precision: float32, kept where scikit-learn keeps it
#: the ``dtype`` of :func:`validate_fit` (scikit-learn's ``validate_data`` argument) for an
#: estimator that keeps a float32 X as scikit-learn does: float64 and float32 stay, any other
#: dtype becomes float64
FLOAT32_KEPT = (np.float64, np.float32)
#: entries of X from which products over X may be float32 (below, float64 products cost little)
LOW_PRECISION_MIN = 2_000_000


# -------------------- the door: X, y, weights
@dataclass(frozen=True)
class FitData:
    """Validated training data.

    Attributes
    ----------
    X : ndarray of shape (n_samples, n_features), float64 (or float32, see ``dtype``),
        C-contiguous (or scipy.sparse CSR / CSC when the estimator accepts it)
    y : ndarray of shape (n_samples,), intp
        Index of each sample's class in ``classes``.
    classes : ndarray of shape (n_classes,)
        Sorted distinct labels (original dtype kept: str, int, bool, ...).
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative frequency weights; None means all ones.
    """

    X: np.ndarray
    y: np.ndarray
    classes: np.ndarray
    sample_weight: np.ndarray | None


def validate_fit(
    estimator,
    X,
    y,
    sample_weight=None,
    *,
    classes=None,
    reset: bool = True,
    min_classes: int = 2,
    check_finite: bool = True,
    accept_sparse: bool = False,
    dtype=np.float64,
) -> FitData:
    """Check and convert training data.

    Parameters
    ----------
    estimator : the estimator being fitted (records ``n_features_in_`` / ``feature_names_in_``).
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    sample_weight : array-like of shape (n_samples,), scalar or None
    classes : array-like or None
        The full set of labels (``partial_fit``); labels in y outside it are an error.  When None,
        the classes are the labels present in y, and at least two of them must carry positive weight.
    reset : bool
        True on ``fit`` and the first ``partial_fit``; False afterwards (feature count is checked).
    min_classes : int
        How many classes with positive weight y must hold when ``classes`` is None (``partial_fit``
        accepts a batch of one class and checks the running total itself).
    check_finite : bool
        Scan X for NaN / infinity now.  False defers that to :func:`explain_non_finite` on the
        results computed from X.
    accept_sparse : bool
        Accept scipy.sparse X (kept sparse, CSR or CSC).
    dtype : np.float64 or :data:`FLOAT32_KEPT`
        The dtypes X keeps (scikit-learn's ``validate_data`` argument): ``FLOAT32_KEPT`` keeps a
        float32 X in float32 (dense or sparse); other dtypes become float64.
    """
    X = _as_matrix(estimator, X, reset=reset, finite=check_finite, accept_sparse=accept_sparse,
                   dtype=dtype)
    y = validate_labels(y, X.shape[0], estimator)
    w = validate_sample_weight(sample_weight, X.shape[0])
    if classes is None:
        if not reset and hasattr(estimator, "classes_"):
            check_label_type(y, estimator.classes_)
        classes, y_idx = encode_labels(y)
        active = classes if w is None else classes[np.bincount(y_idx, w, classes.size) > 0]
        if active.size < min_classes:
            which = f" ({_label(active[0])})" if active.size else ""
            raise ValueError(
                f"{type(estimator).__name__} needs samples of at least two classes, but y holds only "
                f"one class{which}"
                + (" with positive sample_weight" if w is not None and classes.size > 1 else "")
                + ". A classifier cannot be trained on a single class."
            )
    else:
        classes = np.asarray(classes)
        y_idx = np.searchsorted(classes, y)
        inside = (y_idx < classes.size) & (classes[np.minimum(y_idx, classes.size - 1)] == y)
        if not np.all(inside):
            unknown = np.unique(y[~inside])
            raise ValueError(
                f"The target labels in y do not exist in the initial classes: y contains label(s) "
                f"{unknown[:5].tolist()} that are not in classes={classes.tolist()} given on the "
                "first call to partial_fit. Pass every label that will ever appear in `classes` on "
                "the first call."
            )
    return FitData(X=X, y=y_idx.astype(np.intp, copy=False), classes=classes, sample_weight=w)


def validate_predict(estimator, X, *, check_finite: bool = True, accept_sparse: bool = False,
                     dtype=np.float64):
    """Check X at predict / transform time: same number (and names) of features as at fit.

    With ``check_finite=False`` the caller must pass its results through :func:`explain_non_finite`;
    ``dtype`` as in :func:`validate_fit`.
    """
    return _as_matrix(estimator, X, reset=False, finite=check_finite, accept_sparse=accept_sparse,
                      dtype=dtype)


def _as_matrix(estimator, X, *, reset: bool, finite: bool = True, accept_sparse: bool = False,
               dtype=np.float64):
    refuse_dask(X, estimator)
    _check_2d(X, estimator)
    refuse_factors(X, estimator)
    X = validate_data(
        estimator,
        X,
        reset=reset,
        dtype=list(dtype) if isinstance(dtype, tuple) else dtype,
        order="C",
        accept_sparse=("csr", "csc") if accept_sparse else False,
        ensure_all_finite=False,
        ensure_min_samples=1,
    )
    if finite:
        check_finite(X, feature_names=getattr(estimator, "feature_names_in_", None))
    return X


def _check_2d(X, estimator) -> None:
    shape = getattr(X, "shape", None)
    if shape is None and isinstance(X, (list, tuple)):
        shape = np.shape(X) if len(X) and not isinstance(X[0], (list, tuple, np.ndarray)) else None
    if shape is not None and len(shape) == 1:
        raise ValueError(
            f"Expected 2D array, got 1D array instead: {type(estimator).__name__} needs X of shape "
            f"(n_samples, n_features), got shape {tuple(shape)}. Reshape your data with "
            "X.reshape(-1, 1) if it has a single feature or X.reshape(1, -1) if it is a single sample."
        )


# -------------------- labels and classes
def validate_labels(y, n_samples: int, estimator) -> np.ndarray:
    """Check class labels: present, 1-D, one per sample, finite, discrete, of one sortable type.

    Returns y as a 1-D array (its dtype kept).  ``estimator`` (or None) names the caller in errors.
    """
    if y is None:
        raise ValueError(
            f"{type(estimator).__name__} requires y to be passed, but the target y is None. "
            "Pass the class labels as the second argument of fit."
        )
    y = column_or_1d(y, warn=True)
    if y.shape[0] != n_samples:
        raise ValueError(
            f"X and y have inconsistent numbers of samples: X has {n_samples} rows but y has "
            f"{y.shape[0]} labels (Found input variables with inconsistent numbers of samples: "
            f"[{n_samples}, {y.shape[0]}])."
        )
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError("Input y contains NaN or infinity: every sample needs a class label.")
    if y.dtype.kind == "O":
        _no_missing_labels(y)
        # mixed types (e.g. 1 and '1') cannot be ordered; say so instead of failing inside sort
        kinds = {type(v) for v in y}
        if len(kinds) > 1 and not all(issubclass(k, (str, np.str_)) for k in kinds):
            if not all(issubclass(k, (Integral, Real, np.number)) for k in kinds):
                raise ValueError(
                    f"Labels in y mix types {sorted(k.__name__ for k in kinds)}; use labels of one type."
                )
    if y.dtype.kind in "iubUS":  # discrete by construction: no sort needed to know it
        return y
    if y.dtype.kind == "f":
        target = "multiclass" if np.all(y == np.trunc(y)) else "continuous"
    else:
        target = type_of_target(y, input_name="y")
    if target not in ("binary", "multiclass"):
        if target == "continuous":
            raise ValueError(
                "Unknown label type: continuous. y holds non-integer floats; a classifier needs "
                "discrete class labels (for a regression problem use a regressor)."
            )
        raise ValueError(f"Unknown label type: {target}. y must be a 1-D array of class labels.")
    return y


def _no_missing_labels(y: np.ndarray) -> None:
    """Refuse an object y holding missing labels (None, NaN, pandas' NA), naming how many and
    the first rows (from 0)."""
    missing = np.fromiter((v is None or (isinstance(v, float) and v != v) or type(v).__name__ in
                           ("NAType", "NaTType") for v in y), dtype=bool, count=y.shape[0])
    if missing.any():
        rows = np.flatnonzero(missing)
        shown = ", ".join(map(str, rows[:5])) + (", ..." if rows.size > 5 else "")
        raise ValueError(f"y has {rows.size} missing label{'s' * (rows.size != 1)} (None or NaN) "
                         f"at row{'s' * (rows.size != 1)} {shown} (counting from 0): every sample "
                         "needs a class label; drop those rows or give them one.")


def encode_labels(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(classes, y_index)`` with ``classes`` sorted and ``classes[y_index] == y``.

    Integer and boolean labels take an O(n) counting path; other labels use ``np.unique``.
    """
    if y.dtype.kind in "iub" and y.size:
        yi = y.astype(np.int64, copy=False)
        lo, hi = int(yi.min()), int(yi.max())
        if hi - lo <= 4 * y.size + 1024:
            present = np.bincount(yi - lo if lo else yi, minlength=hi - lo + 1) > 0
            classes = (np.flatnonzero(present) + lo).astype(y.dtype)
            if lo == 0 and present.all():  # labels 0 .. K-1, all present: their own indices
                return classes, yi.astype(np.intp)  # (a copy: the caller's y is never shared)
            lookup = np.cumsum(present, dtype=np.intp) - 1
            return classes, lookup[yi - lo]
    classes, index = np.unique(y, return_inverse=True)
    return classes, index.reshape(-1).astype(np.intp, copy=False)


def _label(value) -> str:
    """A label as the user wrote it: 'a', 3, True (not np.str_('a'))."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def check_label_type(y: np.ndarray, seen: np.ndarray, *,
                     seen_in: str = "earlier calls to partial_fit") -> None:
    """Labels merged with labels seen before (a later ``partial_fit`` batch, another chunk) must be
    of the same kind, strings or numbers: they are sorted together, and numpy would silently turn
    the numbers into strings."""
    if not np.size(y) or not np.size(seen):
        return
    new, old = _label_type(np.asarray(y)), _label_type(np.asarray(seen))
    if (new == "str") != (old == "str"):
        raise ValueError(
            f"y holds labels of type {new}, but the classes seen in {seen_in} "
            f"({np.asarray(seen)[:5].tolist()}) are of type {old}; use labels of one type."
        )


def _label_type(labels: np.ndarray) -> str:
    if labels.dtype.kind in "US" or (
        labels.dtype.kind == "O" and all(isinstance(v, (str, np.str_)) for v in labels[:1000])
    ):
        return "str"
    kind = labels.dtype.kind
    if kind == "O" and labels.size:
        return type(labels[0]).__name__
    return {"i": "int", "u": "int", "f": "float", "b": "bool"}.get(kind, str(labels.dtype))


def validate_classes(classes, min_classes: int = 2) -> np.ndarray:
    """Check the ``classes`` argument of ``partial_fit``: distinct, sortable, at least
    ``min_classes`` (1 for the estimators whose ``fit`` accepts a single class, as
    scikit-learn's discrete naive Bayes models do)."""
    classes = column_or_1d(np.asarray(classes))
    unique = np.unique(classes)
    if unique.size != classes.size:
        raise ValueError(f"classes={classes.tolist()} contains duplicate labels.")
    if unique.size == 0:
        raise ValueError("classes is empty: list every label that will ever appear in y.")
    if unique.size < min_classes:
        raise ValueError(
            f"classes={classes.tolist()} must list at least two class labels; a classifier cannot be "
            "trained on a single class."
        )
    return unique


# -------------------- weights and priors
def validate_sample_weight(sample_weight, n_samples: int) -> np.ndarray | None:
    """Return float64 non-negative weights of shape (n_samples,), or None for unit weights."""
    if sample_weight is None:
        return None
    if np.isscalar(sample_weight):
        w = np.full(n_samples, float(sample_weight))
    else:
        w = np.asarray(sample_weight)
        if w.dtype.kind not in "iufb":
            raise ValueError(f"sample_weight must be numeric; got dtype {w.dtype}.")
        w = w.astype(np.float64)
        if w.ndim != 1:
            raise ValueError(
                f"Sample weights must be 1D array or scalar; got an array of shape {w.shape}."
            )
        if w.shape[0] != n_samples:
            raise ValueError(
                f"sample_weight.shape == ({w.shape[0]},), expected ({n_samples},): one weight per "
                "sample."
            )
    if not np.all(np.isfinite(w)):
        raise ValueError("sample_weight contains NaN or infinity.")
    if np.any(w < 0):
        raise ValueError(
            f"Negative values in sample_weight: {int(np.sum(w < 0))} weight(s) are below zero; "
            "weights are frequencies and must be >= 0."
        )
    if n_samples and not np.any(w > 0):
        raise ValueError("Every sample_weight is zero: at least one sample needs a positive weight.")
    return w


def validate_priors(priors, n_classes: int, *, renormalize: bool = False,
                    name: str = "priors") -> np.ndarray | None:
    """Return the user's class priors as a float64 vector summing to one, or None.

    Priors that do not sum to one are an error unless they are off only by rounding (1e-6), in which
    case they are renormalised; with ``renormalize=True`` (scikit-learn's discriminant analysis and
    discrete naive Bayes accept such priors) they are divided by their sum with a warning.
    """
    if priors is None:
        return None
    p = np.asarray(priors, dtype=np.float64).reshape(-1)
    if p.size != n_classes:
        raise ValueError(f"Number of priors must match number of classes: {name} has {p.size} "
                         f"entries but there are {n_classes} classes.")
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError(f"Priors must be non-negative and finite: {name} must be non-negative "
                         f"numbers that sum to 1; got {p.tolist()}.")
    if abs(p.sum() - 1.0) > 1e-6:
        if not renormalize or p.sum() <= 0:
            raise ValueError(f"{name} must sum to 1; they sum to {p.sum():.6g}. The sum of the priors "
                             "should be 1 up to rounding (1e-6).")
        warnings.warn(f"The {name} sum to {p.sum():.6g}, not 1; using them divided by their sum.",
                      UserWarning, stacklevel=5)
    return p / p.sum()


# -------------------- refused before conversion
def is_dask_collection(*objects) -> bool:
    """Whether any of ``objects`` is a Dask collection (checked at the door, without importing
    Dask: the fits route such input to their chunked path)."""
    for obj in objects:
        if obj is not None and type(obj).__module__.split(".")[0] == "dask" and hasattr(
                obj, "__dask_graph__"):
            return True
    return False


def refuse_dask(X, estimator) -> None:
    """A Dask collection where the rows must be in memory: refuse it, naming the function that is
    the limit (:func:`_called_as`)."""
    if is_dask_collection(X):
        where = _called_as() or f"{type(estimator).__name__}.fit"
        chunked = getattr(type(estimator), "fit_source", None) is not None
        raise TypeError(
            f"{where} does not work on Dask collections"
            + (f" (it needs the rows in memory, although {type(estimator).__name__}.fit takes "
               "Dask collections)" if chunked and not where.endswith(".fit") else
               ": the Gaussian models, naive Bayes, FisherDiscriminantAnalysis, "
               "LogisticRegression, OrderedLogisticRegression and kernel Fisher with "
               "approximation='nystroem' fit on them")
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


# -------------------- finiteness: NaN and infinity in X
def column_name(feature_names, j: int) -> str:
    """How a message names column ``j``: its name quoted when there are names, else its index."""
    return repr(str(feature_names[j])) if feature_names is not None else str(j)


def _row(row: int, locate) -> str:
    return locate(int(row)) if locate is not None else f"row {row}"


def _describe_position(X: np.ndarray, bad: np.ndarray, feature_names, locate=None) -> str:
    rows, cols = np.nonzero(bad)
    return (f"{rows.size} entr{'y' if rows.size == 1 else 'ies'} (first at {_row(rows[0], locate)}, "
            f"column {column_name(feature_names, cols[0])})")


def check_finite(X, *, name: str = "X", feature_names=None, locate=None) -> None:
    """Raise a ValueError naming where X holds NaN or infinity.

    One summation decides the common case; the element-wise scan runs only when the sum is not finite
    (which also happens, harmlessly, when finite values are so large that their sum overflows).
    For scipy.sparse X the stored values are checked.  ``locate`` (row -> str, such as
    :meth:`linclass.core.chunks.Chunk.locate`) names a row where X is part of a larger source.
    """
    if sp.issparse(X):
        with np.errstate(over="ignore", invalid="ignore"):
            if np.isfinite(X.data.sum()):
                return
        X = X.tocoo()
        values = X.data
        bad = ~np.isfinite(values)
        if bad.any():
            first = np.flatnonzero(bad)[0]
            kind = "NaN" if np.isnan(values[first]) else "infinity"
            raise ValueError(
                f"Input {name} contains {kind} in {int(bad.sum())} stored entr"
                f"{'y' if bad.sum() == 1 else 'ies'} (first at {_row(X.row[first], locate)}, column "
                f"{column_name(feature_names, X.col[first])}). Drop, impute or replace those values "
                "first."
            )
        raise ValueError(
            f"Input {name} contains values too large for float64 arithmetic; rescale the features."
        )
    with np.errstate(over="ignore", invalid="ignore"):
        total = float(np.add.reduce(X, axis=None)) if X.size else 0.0
    if np.isfinite(total):
        return
    nan = np.isnan(X)
    if nan.any():
        raise ValueError(
            f"Input {name} contains NaN in {_describe_position(X, nan, feature_names, locate)}. "
            "Drop or impute the missing values first (for example with sklearn.impute.SimpleImputer)."
        )
    inf = np.isinf(X)
    if inf.any():
        raise ValueError(
            f"Input {name} contains infinity in {_describe_position(X, inf, feature_names, locate)}. "
            "Replace or drop the infinite values first."
        )
    # finite but the sum overflowed: values near the float64 limit; squares will overflow too
    size = np.abs(X)
    i, j = np.unravel_index(int(np.argmax(size)), X.shape)
    raise ValueError(
        f"Input {name} contains values too large for float64 arithmetic (largest magnitude "
        f"{size[i, j]:.3g}, at {_row(i, locate)}, column {column_name(feature_names, j)}). Rescale "
        "the features (for example with sklearn.preprocessing.StandardScaler)."
    )


def explain_non_finite(estimator, X: np.ndarray, *results: np.ndarray, feature_names=None) -> None:
    """Raise the right error when a result computed from X is not finite.

    Scans X only when some result holds NaN or infinity: NaN or infinity in X is reported with its
    position; otherwise the values of X were too large for the arithmetic (squares overflow).
    In a 2-D result (class scores) ``-inf`` entries are accepted (they mark classes that cannot be
    predicted) as long as every row keeps a finite entry; a 1-D result (a mean, a moment) must be
    finite.
    """

    def fine(r):
        if r.size == 0:
            return True
        ok = np.isfinite(r)
        if r.ndim < 2:
            return bool(np.all(ok))
        if not np.all(ok | np.isneginf(r)):
            return False
        return bool(np.all(ok.any(axis=-1)))

    if all(fine(r) for r in results):
        return
    if feature_names is None:
        feature_names = getattr(estimator, "feature_names_in_", None)
    check_finite(X, feature_names=feature_names)
    largest = abs(X).max()
    raise ValueError(
        f"Input X holds values too large for {_who(estimator)}'s arithmetic (largest "
        f"magnitude {largest:.3g}: their squares overflow float64). Rescale the features "
        "(for example with sklearn.preprocessing.StandardScaler)."
    )


def _who(estimator) -> str:
    """How a message names ``estimator`` (an estimator, or its name)."""
    return estimator if isinstance(estimator, str) else type(estimator).__name__


# -------------------- magnitude: squares that overflow or underflow
_SQRT_TINY = float(np.sqrt(np.finfo(np.float64).tiny))  # ~1.5e-154: smaller values square to subnormals


def _too_small(estimator, columns: np.ndarray, magnitude: np.ndarray, names=None) -> ValueError:
    if names is None:
        names = getattr(estimator, "feature_names_in_", None)
    shown = [str(names[j]) if names is not None else int(j) for j in columns[:5]]
    return ValueError(
        f"Input X holds values too small for {_who(estimator)}'s arithmetic: feature(s) "
        f"{shown} have magnitude at most {float(np.max(magnitude[columns])):.3g}, so their squares "
        "underflow float64 and the features would be treated as constant. Rescale the features (for "
        "example with sklearn.preprocessing.StandardScaler)."
    )


def explain_underflow(estimator, means: np.ndarray, variance: np.ndarray) -> None:
    """Raise when the class statistics show features whose values are too small to square.

    ``means`` (n_classes, d) are the class means of the classes present and ``variance`` (d,) the
    total variances computed from them: a feature whose means are not all zero but below
    :math:`\\sqrt{\\text{tiny}}` and whose variance is subnormal or zero lost its spread to underflow
    (a zero feature is constant, not too small).  Costs nothing: no pass over X.
    """
    magnitude = np.max(np.abs(means), axis=0) if means.size else np.zeros(variance.shape)
    bad = (magnitude > 0) & (magnitude < _SQRT_TINY) & (variance < np.finfo(np.float64).tiny)
    if np.any(bad):
        raise _too_small(estimator, np.flatnonzero(bad), magnitude)


def check_magnitude(estimator, X: np.ndarray, *, feature_names=None) -> np.ndarray | None:
    """Refuse finite X whose arithmetic by squares (Gram matrices, kernels, Hessians, perceptron
    activations) would overflow or underflow float64, naming the features.

    For estimators that do not compute class statistics first (those have :func:`explain_non_finite`
    and :func:`explain_underflow`); one compiled pass over a dense float X
    (:func:`linclass.core.magnitude_kernel.column_magnitude`; two NumPy reductions below
    :data:`~linclass.core.lazy.COMPILED_MIN` entries, where loading the compiled pass costs more
    than the pass) or over the stored entries of a CSR /
    CSC float X, two over other sparse or integer X (its column maxima and minima).  Returns X's
    column sums (float64) when that pass formed them (dense float X), else None: a caller that
    centres X reuses them instead of another pass.  ``estimator``: the estimator or its name (then
    ``feature_names`` names the columns).
    """
    if X.size == 0:
        return None
    if feature_names is None:
        feature_names = getattr(estimator, "feature_names_in_", None)
    sums = stored = None
    if isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype in (np.float64, np.float32):
        if X.size < COMPILED_MIN:  # two NumPy reductions: no compiled pass to load for a small X
            with np.errstate(over="ignore", invalid="ignore"):
                magnitude = np.abs(X).max(axis=0).astype(np.float64)
                sums = np.add.reduce(X, axis=0, dtype=np.float64)
        else:
            from linclass.core.magnitude_kernel import column_magnitude

            magnitude, sums = column_magnitude(X)
        finite = bool(np.all(np.isfinite(sums)))
    elif sp.issparse(X):  # CSR / CSC floats: one read of the stored entries
        from linclass.core.magnitude_kernel import sparse_column_magnitude

        stored = sparse_column_magnitude(X)
    if stored is not None:
        magnitude, finite = stored[0], bool(np.all(np.isfinite(stored[1])))
    elif sums is None:
        largest, smallest = X.max(axis=0), X.min(axis=0)
        if hasattr(largest, "toarray"):  # scipy.sparse X: column extremes as arrays (zeros included)
            largest, smallest = largest.toarray().ravel(), smallest.toarray().ravel()
        magnitude = np.maximum(np.abs(largest), np.abs(smallest))
        finite = bool(np.all(np.isfinite(magnitude)))
    if not finite:
        check_finite(X, feature_names=feature_names)
    check_column_magnitude(estimator, magnitude, X.shape[0] * X.shape[1],
                           feature_names=feature_names)
    return sums


def check_column_magnitude(estimator, magnitude: np.ndarray, n_entries: int, *, feature_names=None,
                           where: str | None = None) -> None:
    """:func:`check_magnitude`'s test on the largest absolute value of each column (finite) of an X
    of ``n_entries`` entries (gathered chunk by chunk for a chunked fit: ``estimator`` may then be
    a name, ``feature_names`` the source's columns and ``where`` the place of the largest value)."""
    limit = np.sqrt(np.finfo(np.float64).max / n_entries)
    if np.any(magnitude > limit):
        at = f", at {where}" if where else ""
        raise ValueError(
            f"Input X holds values too large for {_who(estimator)}'s arithmetic (largest "
            f"magnitude {float(magnitude.max()):.3g}{at}: sums of their squares overflow float64). "
            "Rescale the features (for example with sklearn.preprocessing.StandardScaler)."
        )
    bad = (magnitude > 0) & (magnitude < _SQRT_TINY)
    if np.any(bad):
        raise _too_small(estimator, np.flatnonzero(bad), magnitude, feature_names)


# -------------------- float32 after the door: fitted attributes, outputs
def is_low(X) -> bool:
    """Whether X (an array, a scipy.sparse matrix) holds float32 values."""
    return getattr(X, "dtype", None) == LOW


def float64_data(data):
    """Validated data (:class:`FitData`) with X as float64: for the fits
    that compute in float64 whatever X is, and give float32 attributes only at the end."""
    if not is_low(data.X):
        return data
    from dataclasses import replace

    return replace(data, X=data.X.astype(np.float64))


def _cast(value, dtype):
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return value.astype(dtype, copy=False)
    if isinstance(value, (float, np.floating)):
        return dtype.type(value)
    if isinstance(value, list):
        return [_cast(v, dtype) for v in value]
    return value


def cast_fitted(estimator, names, dtype) -> None:
    """Cast the fitted attributes ``names`` of ``estimator`` (float arrays, float scalars, lists of
    arrays) to float32 when ``dtype``, the dtype of the X the fit was on, is float32; absent ones are
    skipped."""
    if np.dtype(dtype) != LOW:
        return
    for name in names:
        if name in vars(estimator):
            setattr(estimator, name, _cast(getattr(estimator, name), LOW))


def output_dtype(X, *fitted) -> np.dtype:
    """The dtype of an output computed from X and the fitted arrays ``fitted``: float32 when X and
    every one of them is float32, else float64."""
    dtypes = [getattr(X, "dtype", None)] + [getattr(a, "dtype", np.dtype(np.float64)) for a in fitted]
    return LOW if all(d == LOW for d in dtypes) else np.dtype(np.float64)
