"""Standardised features: each feature centred on its mean and divided by its standard deviation.

.. math::

    z_{ij} = \\frac{x_{ij} - m_j}{s_j},\\qquad
    m_j = \\frac{\\sum_i w_i x_{ij}}{\\sum_i w_i},\\qquad
    s_j^2 = \\frac{\\sum_i w_i (x_{ij} - m_j)^2}{\\sum_i w_i}

with frequency weights :math:`w_i` (1 without weights): the maximum-likelihood spread, as
scikit-learn's ``StandardScaler``.  A feature whose spread is zero, or no more than the rounding
error of its mean (:math:`s_j \\le n\\,\\varepsilon\\,|m_j|`), is constant on the training rows: it is
centred and left undivided (:math:`s_j = 1`), so that it stays constant instead of becoming noise.

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
    if sample_weight is None:
        mean = X.mean(axis=0)
        centred = X - mean
        variance = np.einsum("ij,ij->j", centred, centred) / n
    else:
        w = sample_weight / sample_weight.sum()
        mean = w @ X
        centred = X - mean
        variance = w @ (centred * centred)
    # a second pass on the centred values: the first moment's rounding error is removed, so that
    # features far from the origin keep their spread (the naive E[x^2] - E[x]^2 would cancel)
    correction = (w @ centred) if sample_weight is not None else centred.mean(axis=0)
    mean = mean + correction
    variance = np.maximum(variance - correction**2, 0.0)
    scale = np.sqrt(variance)
    constant = scale <= n * np.finfo(np.float64).eps * np.abs(mean)
    constant |= scale == 0.0
    return mean, np.where(constant, 1.0, scale)


def standardize(X: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """:math:`z = (x - m) / s` row by row; a new array of X's shape."""
    return (X - mean) / scale
