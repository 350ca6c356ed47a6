"""Class weights: per-class multipliers of the sample weights (``class_weight`` of the linear models).
"""

from __future__ import annotations

import numpy as np

__all__ = ["class_weights", "weight_by_class"]


def class_weights(classes: np.ndarray, totals: np.ndarray, class_weight) -> np.ndarray | None:
    """Per-class multipliers of the sample weights, shape (K,), or None for ``class_weight=None``.

    'balanced' is :math:`N / (K N_k)` with :math:`N_k` the class totals of the (frequency) sample
    weights, as scikit-learn (weight 2 == a repeated row); a dict maps labels to multipliers
    (default 1).
    """
    if class_weight is None:
        return None
    K = classes.size
    if isinstance(class_weight, str) and class_weight == "balanced":
        counts = np.asarray(totals, dtype=np.float64)
        return np.where(counts > 0, counts.sum() / (K * np.where(counts > 0, counts, 1.0)), 0.0)
    unknown = [c for c in class_weight if c not in set(classes.tolist())]
    if unknown:
        raise ValueError(f"class_weight names label(s) {unknown} that are not in y; the classes "
                         f"are {classes.tolist()}.")
    per_class = np.array([float(class_weight.get(c, 1.0)) for c in classes.tolist()])
    if not np.all(np.isfinite(per_class)) or np.any(per_class < 0):
        raise ValueError("class_weight values must be finite and non-negative.")
    return per_class


def weight_by_class(y: np.ndarray, classes: np.ndarray, sample_weight, class_weight):
    """The sample weights times their class's weight: :math:`w_i c_{y_i}`.

    Parameters
    ----------
    y : ndarray of shape (n_samples,), intp
        Class index of each row.
    classes : ndarray of shape (n_classes,)
    sample_weight : ndarray of shape (n_samples,) or None
    class_weight : dict, 'balanced' or None
        See :func:`class_weights` ('balanced' uses the class totals of ``sample_weight``).

    Returns
    -------
    ndarray of shape (n_samples,), or ``sample_weight`` itself when ``class_weight`` is None.
    """
    totals = np.bincount(y, weights=sample_weight, minlength=classes.size)
    per_class = class_weights(classes, totals, class_weight)
    if per_class is None:
        return sample_weight
    weight = per_class[y]
    if sample_weight is not None:
        weight = weight * sample_weight
    if not np.any(weight > 0):
        raise ValueError("Every sample has zero weight after applying class_weight.")
    return weight
