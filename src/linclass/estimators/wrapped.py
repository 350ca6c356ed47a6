"""What the estimators that wrap another (the ``estimator`` parameter) share: fitting a clone of it
with ``sample_weight`` passed through.  Used by :mod:`linclass.estimators.multiclass_base` and
:mod:`linclass.estimators.standardized`.
"""

from __future__ import annotations

from sklearn.base import clone
from sklearn.utils.validation import has_fit_parameter

__all__ = ["check_weight_passthrough", "fit_clone"]


def check_weight_passthrough(wrapper, sample_weight) -> None:
    """Refuse ``sample_weight`` when the wrapped estimator's ``fit`` does not take it."""
    if sample_weight is not None and not has_fit_parameter(wrapper.estimator, "sample_weight"):
        raise TypeError(
            f"{type(wrapper.estimator).__name__}.fit does not accept sample_weight; fit "
            f"{type(wrapper).__name__} without sample_weight or use another estimator."
        )


def fit_clone(estimator, X, y, sample_weight):
    """A clone of ``estimator`` fitted on (X, y), with ``sample_weight`` when it is not None."""
    est = clone(estimator)
    if sample_weight is None:
        est.fit(X, y)
    else:
        est.fit(X, y, sample_weight=sample_weight)
    return est
