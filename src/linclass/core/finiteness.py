"""Whether X's values fit float64 arithmetic: NaN, infinity, overflow and underflow, with errors
that name the row, the column or the features.

A NaN or infinity in X makes every product over X non-finite, so the estimators check the (small)
results they compute anyway, the class statistics at fit and the scores at predict, and only when
those are not finite is X scanned to say where the bad value is (:func:`explain_non_finite`).
Callers that compute nothing from X first use :func:`check_finite` (one summation of X).  Estimators
that square X without computing class statistics first (Gram matrices, kernels, Hessians, perceptron
activations) call :func:`check_magnitude`; the statistics models learn of underflow from their
statistics (:func:`explain_underflow`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["check_column_magnitude", "check_finite", "check_magnitude", "explain_non_finite",
           "explain_underflow"]


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


_SQRT_TINY = float(np.sqrt(np.finfo(np.float64).tiny))  # ~1.5e-154: smaller values square to subnormals


def _who(estimator) -> str:
    """How a message names ``estimator`` (an estimator, or its name)."""
    return estimator if isinstance(estimator, str) else type(estimator).__name__


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
    (:func:`linclass.core.magnitude_kernel.column_magnitude`) or over the stored entries of a CSR /
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

