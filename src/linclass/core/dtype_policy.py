"""float32 input: which dtype a fit computes in, and which dtype its fitted attributes and outputs
take.

scikit-learn keeps a float32 X in float32 for some of its estimators and converts it to float64 for
others; linclass's estimators that share a scikit-learn name follow scikit-learn 1.9, attribute by
attribute (each such estimator lists its attributes in ``_float32_attributes``; the table of every
class and case is ``tests/test_float32.py``).  The rules:

* Validation (:mod:`linclass.core.validation`, ``dtype=FLOAT32_KEPT``) keeps a float32 X, dense or
  sparse, as it is; any other dtype (integers, float16, ...) becomes float64, as before.  This is the
  one decision: what follows reads X's dtype.
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
"""

from __future__ import annotations

import numpy as np

__all__ = ["FLOAT32_KEPT", "LOW", "LOW_PRECISION_MIN", "cast_fitted", "float64_data", "is_low",
           "output_dtype"]

LOW = np.dtype(np.float32)
#: validation's ``dtype`` (scikit-learn's ``validate_data`` argument) for an estimator that keeps a
#: float32 X as scikit-learn does: float64 and float32 stay, any other dtype becomes float64
FLOAT32_KEPT = (np.float64, np.float32)
#: entries of X from which products over X may be float32 (below, float64 products cost little)
LOW_PRECISION_MIN = 2_000_000


def is_low(X) -> bool:
    """Whether X (an array, a scipy.sparse matrix) holds float32 values."""
    return getattr(X, "dtype", None) == LOW


def float64_data(data):
    """Validated data (:class:`linclass.core.validation.FitData`) with X as float64: for the fits
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
