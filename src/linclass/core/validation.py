"""The one place where user input is checked, converted and label-encoded.

Every estimator calls :func:`validate_fit` / :func:`validate_predict`; nothing else in the package
inspects raw user input.  Errors are :class:`ValueError` (or :class:`TypeError` for the wrong kind of
object) whose message says what was wrong and how to fix it.

Dtype policy: X is converted to C-contiguous float64 (no copy when it already is).

Finiteness: a NaN or infinity in X makes every product over X non-finite, so the estimators check the
(small) results they compute anyway, the class statistics at fit and the scores at predict, and only
when those are not finite is X scanned to say where the bad value is (:func:`explain_non_finite`).
Callers that compute nothing from X first use ``validate_*(..., check_finite=True)``, which sums X once.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import column_or_1d, validate_data

__all__ = [
    "FitData",
    "check_finite",
    "check_label_type",
    "check_magnitude",
    "explain_underflow",
    "encode_labels",
    "explain_non_finite",
    "validate_fit",
    "validate_classes",
    "validate_predict",
    "validate_priors",
    "validate_sample_weight",
]


@dataclass(frozen=True)
class FitData:
    """Validated training data.

    Attributes
    ----------
    X : ndarray of shape (n_samples, n_features), float64, C-contiguous (or scipy.sparse CSR / CSC
        when the estimator accepts it)
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


def _describe_position(X: np.ndarray, bad: np.ndarray, feature_names) -> str:
    rows, cols = np.nonzero(bad)
    col = cols[0]
    name = repr(str(feature_names[col])) if feature_names is not None else str(col)
    return f"{rows.size} entr{'y' if rows.size == 1 else 'ies'} (first at row {rows[0]}, column {name})"


def check_finite(X, *, name: str = "X", feature_names=None) -> None:
    """Raise a ValueError naming where X holds NaN or infinity.

    One summation decides the common case; the element-wise scan runs only when the sum is not finite
    (which also happens, harmlessly, when finite values are so large that their sum overflows).
    For scipy.sparse X the stored values are checked.
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
                f"{'y' if bad.sum() == 1 else 'ies'} (first at row {X.row[first]}, column "
                f"{X.col[first]}). Drop, impute or replace those values first."
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
            f"Input {name} contains NaN in {_describe_position(X, nan, feature_names)}. "
            "Drop or impute the missing values first (for example with sklearn.impute.SimpleImputer)."
        )
    inf = np.isinf(X)
    if inf.any():
        raise ValueError(
            f"Input {name} contains infinity in {_describe_position(X, inf, feature_names)}. "
            "Replace or drop the infinite values first."
        )
    # finite but the sum overflowed: values near the float64 limit; squares will overflow too
    raise ValueError(
        f"Input {name} contains values too large for float64 arithmetic (largest magnitude "
        f"{np.max(np.abs(X)):.3g}). Rescale the features (for example with "
        "sklearn.preprocessing.StandardScaler)."
    )


def _label(value) -> str:
    """A label as the user wrote it: 'a', 3, True (not np.str_('a'))."""
    return repr(value.item() if isinstance(value, np.generic) else value)


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


def explain_non_finite(estimator, X: np.ndarray, *results: np.ndarray) -> None:
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
    check_finite(X, feature_names=getattr(estimator, "feature_names_in_", None))
    largest = abs(X).max()
    raise ValueError(
        f"Input X holds values too large for {type(estimator).__name__}'s arithmetic (largest "
        f"magnitude {largest:.3g}: their squares overflow float64). Rescale the features "
        "(for example with sklearn.preprocessing.StandardScaler)."
    )


def _refuse_dask(X, estimator) -> None:
    if type(X).__module__.split(".")[0] == "dask" and hasattr(X, "__dask_graph__"):
        raise TypeError(
            f"{type(estimator).__name__} does not work on Dask collections. The Gaussian models, "
            "naive Bayes, FisherDiscriminantAnalysis and LogisticRegression (newton / bohning / "
            "lbfgs) do; for this estimator call X.compute() first if the data fit in memory."
        )


_SQRT_TINY = float(np.sqrt(np.finfo(np.float64).tiny))  # ~1.5e-154: smaller values square to subnormals


def _too_small(estimator, columns: np.ndarray, magnitude: np.ndarray) -> ValueError:
    names = getattr(estimator, "feature_names_in_", None)
    shown = [str(names[j]) if names is not None else int(j) for j in columns[:5]]
    return ValueError(
        f"Input X holds values too small for {type(estimator).__name__}'s arithmetic: feature(s) "
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


def check_magnitude(estimator, X: np.ndarray) -> None:
    """Refuse finite X whose arithmetic by squares (Gram matrices, kernels, Hessians, perceptron
    activations) would overflow or underflow float64, naming the features.

    For estimators that do not compute class statistics first (those have :func:`explain_non_finite`
    and :func:`explain_underflow`); two passes over X (its column maxima and minima).
    """
    if X.size == 0:
        return
    magnitude = np.maximum(np.abs(X.max(axis=0)), np.abs(X.min(axis=0)))
    if not np.all(np.isfinite(magnitude)):
        check_finite(X, feature_names=getattr(estimator, "feature_names_in_", None))
    limit = np.sqrt(np.finfo(np.float64).max / X.size)
    if np.any(magnitude > limit):
        raise ValueError(
            f"Input X holds values too large for {type(estimator).__name__}'s arithmetic (largest "
            f"magnitude {float(magnitude.max()):.3g}: sums of their squares overflow float64). Rescale "
            "the features (for example with sklearn.preprocessing.StandardScaler)."
        )
    bad = (magnitude > 0) & (magnitude < _SQRT_TINY)
    if np.any(bad):
        raise _too_small(estimator, np.flatnonzero(bad), magnitude)


def _as_matrix(estimator, X, *, reset: bool, finite: bool = True, accept_sparse: bool = False):
    _refuse_dask(X, estimator)
    _check_2d(X, estimator)
    X = validate_data(
        estimator,
        X,
        reset=reset,
        dtype=np.float64,
        order="C",
        accept_sparse=("csr", "csc") if accept_sparse else False,
        ensure_all_finite=False,
        ensure_min_samples=1,
    )
    if finite:
        check_finite(X, feature_names=getattr(estimator, "feature_names_in_", None))
    return X


def encode_labels(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(classes, y_index)`` with ``classes`` sorted and ``classes[y_index] == y``.

    Integer and boolean labels take an O(n) counting path; other labels use ``np.unique``.
    """
    if y.dtype.kind in "iub" and y.size:
        yi = y.astype(np.int64, copy=False)
        lo, hi = int(yi.min()), int(yi.max())
        if hi - lo <= 4 * y.size + 1024:
            present = np.bincount(yi - lo, minlength=hi - lo + 1) > 0
            lookup = np.cumsum(present, dtype=np.intp) - 1
            classes = (np.flatnonzero(present) + lo).astype(y.dtype)
            return classes, lookup[yi - lo]
    classes, index = np.unique(y, return_inverse=True)
    return classes, index.reshape(-1).astype(np.intp, copy=False)


def _as_labels(y, n_samples: int, estimator) -> np.ndarray:
    if y is None:
        raise ValueError(
            f"{type(estimator).__name__} requires y to be passed, but the target y is None. "
            "Pass the class labels as the second argument of fit."
        )
    y = column_or_1d(y, warn=True)
    if y.shape[0] != n_samples:
        raise ValueError(
            f"X and y have inconsistent numbers of samples: X has {n_samples} rows but y has "
            f"{y.shape[0]} labels."
        )
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError("Input y contains NaN or infinity: every sample needs a class label.")
    if y.dtype.kind == "O":
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


def _label_type(labels: np.ndarray) -> str:
    if labels.dtype.kind in "US" or (
        labels.dtype.kind == "O" and all(isinstance(v, (str, np.str_)) for v in labels[:1000])
    ):
        return "str"
    kind = labels.dtype.kind
    if kind == "O" and labels.size:
        return type(labels[0]).__name__
    return {"i": "int", "u": "int", "f": "float", "b": "bool"}.get(kind, str(labels.dtype))


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
    """
    X = _as_matrix(estimator, X, reset=reset, finite=check_finite, accept_sparse=accept_sparse)
    y = _as_labels(y, X.shape[0], estimator)
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
                f"y contains label(s) {unknown[:5].tolist()} that are not in classes="
                f"{classes.tolist()} given on the first call to partial_fit. Pass every label that "
                "will ever appear in `classes` on the first call."
            )
    return FitData(X=X, y=y_idx.astype(np.intp, copy=False), classes=classes, sample_weight=w)


def validate_classes(classes) -> np.ndarray:
    """Check the ``classes`` argument of ``partial_fit``: distinct, sortable, at least two."""
    classes = column_or_1d(np.asarray(classes))
    unique = np.unique(classes)
    if unique.size != classes.size:
        raise ValueError(f"classes={classes.tolist()} contains duplicate labels.")
    if unique.size < 2:
        raise ValueError(
            f"classes={classes.tolist()} must list at least two class labels; a classifier cannot be "
            "trained on a single class."
        )
    return unique


def validate_predict(estimator, X, *, check_finite: bool = True, accept_sparse: bool = False):
    """Check X at predict / transform time: same number (and names) of features as at fit.

    With ``check_finite=False`` the caller must pass its results through :func:`explain_non_finite`.
    """
    return _as_matrix(estimator, X, reset=False, finite=check_finite, accept_sparse=accept_sparse)


def validate_priors(priors, n_classes: int) -> np.ndarray | None:
    """Return the user's class priors as a float64 vector summing to one, or None.

    Priors that do not sum to one are an error unless they are off only by rounding (1e-6), in which
    case they are renormalised.
    """
    if priors is None:
        return None
    p = np.asarray(priors, dtype=np.float64).reshape(-1)
    if p.size != n_classes:
        raise ValueError(f"priors has {p.size} entries but there are {n_classes} classes.")
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError("priors must be finite and non-negative.")
    if abs(p.sum() - 1.0) > 1e-6:
        raise ValueError(f"priors must sum to 1; they sum to {p.sum():.6g}.")
    return p / p.sum()


# ---------------------------------------------------------------------------------- chunked sources
def _chunk_matrix(X, n_features: int, check: bool = True) -> np.ndarray:
    if hasattr(X, "dtypes") and hasattr(X, "columns"):  # a pandas DataFrame (a Dask partition)
        bad = [str(c) for c, t in zip(X.columns, X.dtypes) if getattr(t, "kind", "O") not in "biuf"]
        if bad:
            raise ValueError(f"X must be numeric, but column {bad[0]!r} has dtype "
                             f"{X.dtypes.iloc[list(map(str, X.columns)).index(bad[0])]}.")
        X = X.to_numpy(dtype=np.float64)
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"Expected a 2D array X of shape (n_samples, n_features), got {X.ndim}D "
                         f"(shape {X.shape}).")
    if X.dtype.kind not in "biuf":
        try:
            X = X.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"X must be numeric; got dtype {X.dtype} that does not convert to "
                             "float64.") from None
    if X.shape[1] != n_features:
        raise ValueError(f"X has {X.shape[1]} features, but {n_features} were expected.")
    X = np.ascontiguousarray(X, dtype=np.float64)
    if check:
        check_finite(X)
    return X


def validate_chunk(chunk, n_features: int, *, again: bool = False):
    """Check and convert one chunk of a chunked source (:mod:`linclass.chunks`).

    Returns ``(X, y, w)``: X float64 C-contiguous of shape (rows, n_features) and finite, y labels
    (or None), w float64 non-negative weights or None.  Unlike :func:`validate_sample_weight`, a chunk
    whose weights are all zero is accepted (the whole source is checked after the reduction).
    Errors name the chunk (and its first row when known).  ``again=True`` (a later pass over data
    that a first pass validated: the iterations of logistic regression) skips the scans for NaN /
    infinity and of the labels' type.
    """
    try:
        X = _chunk_matrix(chunk.X, n_features, check=not again)
        n = X.shape[0]
        y = None
        if chunk.y is not None:
            y = chunk.y.to_numpy() if hasattr(chunk.y, "to_numpy") else chunk.y
            y = np.asarray(y).reshape(-1) if again or not n else _as_labels(np.asarray(y), n, None)
        w = chunk.sample_weight
        if w is not None:
            w = w.to_numpy() if hasattr(w, "to_numpy") else w
            arr = np.asarray(w)
            if arr.shape == (n,) and arr.dtype.kind in "iufb" and n and not np.any(arr):
                w = np.zeros(n)
            else:
                w = validate_sample_weight(w, n)
    except ValueError as exc:
        raise ValueError(f"{chunk.where()}: {exc}") from None
    return X, y, w


def validate_chunk_labels(labels: np.ndarray) -> np.ndarray:
    """Check the distinct labels gathered from every chunk (sorted), as :func:`validate_fit` checks
    y: discrete, finite, of one type."""
    return _as_labels(labels, labels.shape[0], None)
