"""How well class scores predict held-out labels: the criteria of leave-one-out and
cross-validation (:func:`linclass.loo_score`, the cross-validated estimators).

Each criterion is a weighted mean over rows of a per-row value computed from the row's class scores
:math:`a_j(x_i) = \\ln p(x_i, C_j)` (up to a constant per row for the linear models), higher is
better:

``'neg_log_loss'``    :math:`\\ln p(y_i \\mid x_i)`, the log posterior of the true class
``'accuracy'``        1 where the most probable class is the true one (ties: the first class)
``'log_likelihood'``  :math:`\\ln p(x_i, y_i)`, the generative model's joint log-likelihood (exact
                      scores only)
"""

from __future__ import annotations

import numpy as np

from linclass.core.posterior import log_posterior

__all__ = ["SCORINGS", "check_scoring", "held_out_value", "row_values", "weighted_mean",
           "weighted_sum"]

SCORINGS = ("neg_log_loss", "accuracy", "log_likelihood")


def check_scoring(scoring: str, allowed=SCORINGS) -> str:
    if scoring not in allowed:
        raise ValueError(f"scoring must be one of {allowed}; got {scoring!r}.")
    return scoring


def row_values(scores: np.ndarray, y: np.ndarray, scoring: str) -> np.ndarray:
    """Per-row values of ``scoring``, shape (n_samples,), from class scores of shape
    (n_samples, n_classes) and class indices y."""
    idx = np.arange(y.size)
    if scoring == "accuracy":
        return (np.argmax(scores, axis=1) == y).astype(float)
    if scoring == "log_likelihood":
        return scores[idx, y]
    return log_posterior(scores)[idx, y]


def weighted_mean(values: np.ndarray, sample_weight: np.ndarray | None) -> float:
    return float(np.average(values, weights=sample_weight))


def weighted_sum(values: np.ndarray, sample_weight: np.ndarray | None) -> tuple:
    """``(sum of w_i v_i, sum of w_i)`` of per-row values of shape (n_samples,) (w = 1 without
    weights): the two sums of :func:`weighted_mean` (the same products, summed the same way), to
    add over row blocks: their ratio is the mean over all the rows."""
    if sample_weight is None:
        return float(values.sum()), float(values.shape[0])
    w = np.asarray(sample_weight, dtype=np.float64)
    return float((values * w).sum()), float(w.sum())


def held_out_value(scores: np.ndarray, y: np.ndarray, scoring: str,
                   sample_weight: np.ndarray | None) -> float:
    """scikit-learn's ``'accuracy'`` or ``'neg_log_loss'`` scorer's value from class scores of
    shape (n_samples, n_classes) (two classes: ``[0, s]``, s the log-odds) and class indices y.

    Accuracy takes the first most probable class (for two classes class 1 exactly when s > 0, as
    ``predict``).  Minus the log-loss is computed in log space, clipped where scikit-learn clips
    the probabilities (to :math:`[\\epsilon, 1 - \\epsilon]`, :math:`\\epsilon` float64's machine
    epsilon):

    .. math:: \\frac{1}{\\sum_i w_i}\\sum_i w_i\\,\\mathrm{clip}\\big(\\ln p(y_i\\mid x_i),
              \\ln\\epsilon, \\ln(1-\\epsilon)\\big)
    """
    values = row_values(scores, y, scoring)
    if scoring == "neg_log_loss":
        eps = np.finfo(np.float64).eps
        values = np.clip(values, np.log(eps), np.log1p(-eps))
    return weighted_mean(values, sample_weight)
