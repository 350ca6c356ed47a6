"""The data a figure draws: two features checked, labels placed among the model's classes, grid
points handed to the model as it expects them, and the names of the axes."""

from __future__ import annotations

import numpy as np

__all__ = ["as_two_features", "axis_names", "class_positions", "model_input"]


def as_two_features(X, what: str, name: str = "X") -> np.ndarray:
    """``X`` as a finite float array of shape (n, 2) with n > 0, or a ValueError saying how to get
    one (``what`` names the figure)."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(
            f"{what} draws two features, but {name} has shape {X.shape}. Pick two columns "
            "(X[:, [i, j]]) or project first, e.g. with "
            "LinearDiscriminantAnalysis(n_components=2).fit_transform(X, y)."
        )
    if len(X) == 0:
        raise ValueError(f"{name} has no rows; {what} needs data to draw.")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains NaN or infinite values; drop or impute those rows first.")
    return X


def class_positions(classes: np.ndarray, labels: np.ndarray, what: str) -> np.ndarray:
    """Position of each label in ``classes`` (which need not be sorted); ``what`` names the labels
    in the error for one the model does not know."""
    order = np.argsort(classes, kind="stable")
    pos = np.clip(np.searchsorted(classes[order], labels), 0, len(classes) - 1)
    idx = order[pos]
    unknown = classes[idx] != labels
    if np.any(unknown):
        raise ValueError(
            f"{what} contains labels the model does not know: {np.unique(labels[unknown]).tolist()}; "
            f"the model's classes are {classes.tolist()}."
        )
    return idx


def model_input(model, Z: np.ndarray):
    """Grid points as the model expects them: a DataFrame when it was fitted on named columns (so
    scikit-learn does not warn about missing feature names)."""
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        return Z
    import pandas as pd

    return pd.DataFrame(Z, columns=list(names))


def axis_names(feature_names, model, X) -> list[str]:
    """Two axis labels: ``feature_names``, else the model's ``feature_names_in_``, X's columns, or
    x1, x2."""
    if feature_names is None:
        feature_names = getattr(model, "feature_names_in_", None)
    if feature_names is None and hasattr(X, "columns"):
        feature_names = X.columns
    names = ["x1", "x2"] if feature_names is None else [str(f) for f in feature_names]
    if len(names) != 2:
        raise ValueError(f"feature_names needs two names, one per axis; got {names}.")
    return names
