"""Standardised features: each feature centred on its mean and divided by its standard deviation.

.. math::

    z_{ij} = \\frac{x_{ij} - m_j}{s_j},\\qquad
    m_j = \\frac{\\sum_i w_i x_{ij}}{\\sum_i w_i},\\qquad
    s_j^2 = \\frac{\\sum_i w_i (x_{ij} - m_j)^2}{\\sum_i w_i}

with frequency weights :math:`w_i` (1 without weights): the maximum-likelihood spread, as
scikit-learn's ``StandardScaler``.  A feature whose spread is zero, or no more than the rounding
error of its mean (:math:`s_j \\le n\\,\\varepsilon\\,|m_j|`), is constant on the training rows: it is
centred and left undivided (:math:`s_j = 1`), so that it stays constant instead of becoming noise.
The spread is computed in units of each feature's largest deviation from its mean, then scaled back,
so features of any magnitude (1e-300 to 1e300) are standardised without overflow or underflow.

Gaussian discriminant analysis, Fisher's discriminant and unpenalised logistic regression give the
same predictions on standardised features (they are affine-equivariant); penalised logistic
regression, the perceptron and kernel methods do not, and usually do better on them.
"""

from __future__ import annotations

import numpy as np

__all__ = ["standardization", "standardize"]


def standardization(X: np.ndarray, sample_weight: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The mean :math:`m` and the standard deviation :math:`s` of each feature (module docstring).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), float64, finite
    sample_weight : ndarray of shape (n_samples,) or None
        Non-negative frequency weights, not all zero.

    Returns
    -------
    mean : ndarray of shape (n_features,)
    scale : ndarray of shape (n_features,)
        Positive; 1 for a constant feature.
    """
    n = X.shape[0]
    w = np.full(n, 1.0 / n) if sample_weight is None else sample_weight / sample_weight.sum()
    mean = w @ X  # normalised weights: no sum of n values can overflow
    centred = X - mean
    # in units of each feature's largest deviation, so that squares neither overflow (features of
    # 1e300) nor underflow (features of 1e-300): |u| <= 1
    peak = np.abs(centred).max(axis=0)
    u = centred / np.where(peak > 0, peak, 1.0)
    first = w @ u  # the first pass's rounding error, removed (corrected two-pass algorithm)
    variance = np.maximum(w @ (u * u) - first**2, 0.0)
    mean = mean + peak * first
    scale = peak * np.sqrt(variance)
    constant = (scale <= n * np.finfo(np.float64).eps * np.abs(mean)) | (scale == 0.0)
    return mean, np.where(constant, 1.0, scale)


def standardize(X: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """:math:`z = (x - m) / s` row by row; a new array of X's shape."""
    return (X - mean) / scale
