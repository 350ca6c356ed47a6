"""Pointwise losses in raw-score space: the negative log-likelihoods of logistic and softmax regression.

A raw score is :math:`s = x^T\\theta + b` (binary) or one score per class :math:`s_{ij}` (softmax).
Everything here is a function of the scores alone; :mod:`linclass.linear.logistic.objective` owns the coefficient
layout, the intercept and the penalty.

Binary (Bishop 2006 sec. 4.3.2), labels :math:`y \\in \\{0, 1\\}`, :math:`\\mu = \\sigma(s)`:

.. math::

    \\ell(s, y) = -y\\ln\\mu - (1-y)\\ln(1-\\mu) = \\ln(1 + e^{s}) - y s, \\qquad
    \\frac{\\partial\\ell}{\\partial s} = \\mu - y, \\qquad
    \\frac{\\partial^2\\ell}{\\partial s^2} = \\mu(1-\\mu) \\le \\tfrac14

(The estimate maximises the log-likelihood, i.e. minimises the *negative* log-likelihood, as here;
an argmin of the log-likelihood itself, without the minus sign, would be wrong.)

Softmax (Bishop 2006 sec. 4.3.4), one class index :math:`y_i` per row,
:math:`\\mu_{ij} = e^{s_{ij}} / \\sum_k e^{s_{ik}}`:

.. math::

    \\ell(s_i, y_i) = \\ln\\sum_k e^{s_{ik}} - s_{i y_i}, \\qquad
    \\nabla_{s_i}\\ell = \\mu_i - e_{y_i}, \\qquad
    \\nabla^2_{s_i}\\ell = \\mathrm{diag}(\\mu_i) - \\mu_i\\mu_i^T
    \\preceq \\tfrac12\\left(I - \\tfrac1K \\mathbf{1}\\mathbf{1}^T\\right)

the last inequality being Böhning's (1992) bound.  All values are computed in log space
(``logaddexp``, max-shifted log-sum-exp), so margins of 1e3 neither overflow nor lose the loss.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

__all__ = ["binary", "binary_loss", "null_log_likelihood", "row_logsumexp", "softmax",
           "softmax_loss", "softmax_probabilities"]


def binary(s: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-sample loss :math:`\\ln(1+e^s) - ys` and probability :math:`\\mu = \\sigma(s)`.

    Parameters
    ----------
    s : ndarray of shape (n_samples,)
        Raw scores (log-odds of class 1).
    y : ndarray of shape (n_samples,)
        Targets in {0, 1} (float).

    Returns
    -------
    loss : ndarray of shape (n_samples,)
    mu : ndarray of shape (n_samples,)
        :math:`\\sigma(s)`; the gradient with respect to s is ``mu - y`` and the second derivative
        ``mu * (1 - mu)``.
    """
    return binary_loss(s, y), expit(s)


def binary_loss(s: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The per-sample loss of :func:`binary` alone, :math:`\\ln(1+e^s) - ys`."""
    return np.logaddexp(0.0, s) - y * s


def row_logsumexp(S: np.ndarray) -> np.ndarray:
    """:math:`\\log\\sum_k e^{S_{ik}}` per row of S (n, K), shape (n, 1) (scipy's, without its
    per-call overhead: a pass of a cross-validation calls it once per fit and chunk)."""
    top = S.max(axis=1, keepdims=True)
    return top + np.log(np.exp(S - top).sum(axis=1, keepdims=True))


def softmax_loss(S: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The per-sample loss of :func:`softmax` alone, :math:`\\ln\\sum_k e^{s_{ik}} - s_{iy_i}`."""
    return row_logsumexp(S)[:, 0] - S[np.arange(S.shape[0]), y]


def softmax_probabilities(S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise log-sum-exp and softmax of scores S of shape (n_samples, n_classes).

    Returns ``(lse, mu)`` with ``lse`` of shape (n_samples,) and ``mu`` of shape (n_samples, n_classes).
    """
    top = S.max(axis=1, keepdims=True)
    mu = np.exp(S - top)
    total = mu.sum(axis=1, keepdims=True)
    mu /= total
    return (np.log(total) + top)[:, 0], mu


def softmax(S: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-sample loss :math:`\\ln\\sum_k e^{s_{ik}} - s_{iy_i}` and probabilities :math:`\\mu_{ik}`.

    Parameters
    ----------
    S : ndarray of shape (n_samples, n_classes)
    y : ndarray of shape (n_samples,), int
        Class index of each row.

    Returns
    -------
    loss : ndarray of shape (n_samples,)
    mu : ndarray of shape (n_samples, n_classes)
        Softmax probabilities; the gradient with respect to the scores is ``mu - onehot(y)``.
    """
    lse, mu = softmax_probabilities(S)
    return lse - S[np.arange(S.shape[0]), y], mu


def null_log_likelihood(class_totals: np.ndarray, total: float, fit_intercept: bool) -> float:
    """The log-likelihood of the best constant model (the null model of the likelihood-ratio test
    and of McFadden's pseudo R²).

    .. math::

        \\ell_0 = \\sum_k N_k\\ln(N_k/N) \\;\\text{with an intercept (the class frequencies), else}
        \\; -N\\ln K \\;\\text{(uniform probabilities, all scores zero)}.

    Parameters
    ----------
    class_totals : ndarray of shape (n_classes,)
        Weighted count :math:`N_k` of each class.
    total : float
        Total weight :math:`N`.
    fit_intercept : bool

    Returns
    -------
    float
    """
    counts = np.asarray(class_totals, dtype=np.float64)
    if fit_intercept:
        counts = counts[counts > 0]
        return float(counts @ np.log(counts / counts.sum()))
    return -float(total) * float(np.log(counts.size))
