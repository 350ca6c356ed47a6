"""Clearing an estimator's fitted state: the one rule for "start this fit from nothing"."""

from __future__ import annotations

__all__ = ["clear_fitted_state"]


def clear_fitted_state(estimator) -> None:
    """Delete every fitted attribute of ``estimator``: each instance attribute whose name ends with
    an underscore (scikit-learn's convention: ``coef_``, ``classes_``, ``n_features_in_``, ...),
    dunders excepted.

    A refit with other settings must not keep attributes that only the earlier fit set (for example
    ``shrinkage_`` or ``landmark_indices_``).  Parameters and private state (``_rng``,
    ``_partial_classes``) are left alone.
    """
    for name in [k for k in vars(estimator) if k.endswith("_") and not k.startswith("__")]:
        delattr(estimator, name)
