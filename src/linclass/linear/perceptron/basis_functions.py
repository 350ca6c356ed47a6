"""Basis functions :math:`\\phi(x)` for linear models in fixed features (Bishop 2006 sec. 4.1.7: the
perceptron is linear in :math:`\\phi`, not in x): X itself, all monomials up to a degree, or the
user's callable, checked.
"""

from __future__ import annotations

from math import comb

import numpy as np

__all__ = ["basis_features", "poly_features", "poly_powers"]


def _poly_counts(last: np.ndarray, n_features: int) -> np.ndarray:
    """How many monomials of the previous degree have their largest variable index <= j, per j."""
    return np.searchsorted(last, np.arange(n_features), side="right")


def poly_powers(n_features: int, degree: int) -> np.ndarray:
    """Exponents of the monomials :func:`poly_features` computes, in its column order.

    Returns
    -------
    ndarray of shape (n_output, n_features), int
        Row r holds the power of each input in output column r; the rows list every monomial of total
        degree 1 to ``degree`` once (the constant is left out), lowest degree first.
        ``n_output = C(n_features + degree, degree) - 1``.
    """
    block = np.eye(n_features, dtype=np.int64)
    last = np.arange(n_features)
    blocks = [block]
    for _ in range(2, degree + 1):
        counts = _poly_counts(last, n_features)
        block = np.vstack([block[:c] + np.eye(n_features, dtype=np.int64)[j] for j, c in enumerate(counts)])
        last = np.repeat(np.arange(n_features), counts)
        blocks.append(block)
    return np.vstack(blocks)


def poly_features(X: np.ndarray, degree: int) -> np.ndarray:
    """All monomials of the columns of X of total degree 1 to ``degree`` (no constant column).

    Each monomial of degree k is one of degree k - 1 (whose variables have indices <= j) times
    :math:`x_j`, so a degree costs one multiplication per output column.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    degree : int >= 1

    Returns
    -------
    ndarray of shape (n_samples, C(n_features + degree, degree) - 1)
        Columns in the order of :func:`poly_powers`; the first n_features columns are X itself.
    """
    n, d = X.shape
    out = np.empty((n, comb(d + degree, degree) - 1), dtype=np.float64)
    out[:, :d] = X
    start, width, last = 0, d, np.arange(d)
    for _ in range(2, degree + 1):
        counts = _poly_counts(last, d)
        col = start + width
        for j, c in enumerate(counts):
            np.multiply(out[:, start : start + c], X[:, j : j + 1], out=out[:, col : col + c])
            col += c
        start, width = start + width, int(counts.sum())
        last = np.repeat(np.arange(d), counts)
    return out


def basis_features(X: np.ndarray, basis=None, degree: int = 2, n_output: int | None = None) -> np.ndarray:
    """The feature matrix :math:`\\Phi` of shape (n_samples, n_basis), without :math:`\\phi_0 = 1`.

    ``basis`` None: X itself (no copy); 'poly': :func:`poly_features` of ``degree``; a callable
    ``phi(X)`` must return a numeric 2-D array with one finite row per sample (and ``n_output``
    columns, the number it gave at fit time, when that is given).
    """
    if basis is None:
        return X
    if isinstance(basis, str):
        if basis != "poly":
            raise ValueError(f"Unknown basis {basis!r}; use None, 'poly' or a callable phi(X).")
        with np.errstate(over="ignore", invalid="ignore"):
            Phi = poly_features(X, degree)
            finite = np.isfinite(np.add.reduce(Phi, axis=None))
        if not finite:
            raise ValueError(
                f"The degree-{degree} polynomial features of X overflow float64 (largest |x| is "
                f"{np.max(np.abs(X)):.3g}). Rescale the features (for example with "
                "sklearn.preprocessing.StandardScaler) or lower `degree`."
            )
        return Phi
    return _check_basis_output(basis, basis(X), X.shape[0], n_output)


def _check_basis_output(basis, out, n_samples: int, n_output: int | None) -> np.ndarray:
    name = getattr(basis, "__name__", None) or repr(basis)
    arr = out.toarray() if hasattr(out, "toarray") else np.asarray(out)  # scipy.sparse: densify
    shape = arr.shape
    if arr.ndim != 2 or arr.shape[0] != n_samples or arr.shape[1] == 0:
        raise ValueError(
            f"The basis function {name} returned an array of shape {shape}; it must return a 2-D array "
            f"with one row per sample and at least one column, here of shape ({n_samples}, n_basis)."
        )
    if arr.dtype.kind not in "biuf":
        raise ValueError(
            f"The basis function {name} returned values of dtype {arr.dtype}; it must return numbers."
        )
    if n_output is not None and arr.shape[1] != n_output:
        raise ValueError(
            f"The basis function {name} returned {arr.shape[1]} features, but it returned {n_output} "
            "when the model was fitted; phi(X) must always give the same number of columns."
        )
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    bad = ~np.isfinite(arr)
    if bad.any():
        rows, cols = np.nonzero(bad)
        raise ValueError(
            f"The basis function {name} returned NaN or infinity in {rows.size} entr"
            f"{'y' if rows.size == 1 else 'ies'} (first at row {rows[0]}, column {cols[0]}); "
            "it must return finite features."
        )
    return arr
