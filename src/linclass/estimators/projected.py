"""The ``transform`` of the Fisher projections (:mod:`linclass.estimators.fisher_discriminant`,
:mod:`linclass.estimators.kernel_discriminant`): validate X, project, and explain a result that is
not finite.  No mathematics lives here.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from linclass.core.validation import explain_non_finite, validate_predict

__all__ = ["checked_projection"]


def checked_projection(estimator, X, project, *, check_finite: bool = True) -> np.ndarray:
    """``project(X)`` for the fitted ``estimator``, X validated against the fit first; a result
    that is not finite (overflow, or non-finite values of X let through with
    ``check_finite=False``) raises the error that names its cause
    (:func:`linclass.core.validation.explain_non_finite`)."""
    check_is_fitted(estimator)
    if hasattr(estimator, "_require_model"):  # partial_fit's statistics may not determine a model yet
        estimator._require_model()
    X = validate_predict(estimator, X, check_finite=check_finite)
    with np.errstate(invalid="ignore", over="ignore"):
        Z = project(X)
    explain_non_finite(estimator, X, Z)
    return Z
