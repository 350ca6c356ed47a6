"""Naive Bayes for categorical features: each feature takes one of :math:`m_j` categories per class
with probabilities :math:`\\theta_{kjc}` (scikit-learn's CategoricalNB).

The counts of each category per class are class statistics like any other: with the one-hot
indicator matrix :math:`Z` of X (one column per (feature, category); :func:`one_hot`), the
per-class sums of :class:`~linclass.generative.class_stats.ClassStats` of kind 'mean' on Z are the counts
:math:`N_{kjc}`, so the fit is one sparse product and the statistics merge (``partial_fit``, chunks).
Then, with additive smoothing :math:`\\alpha`,

.. math:: \\theta_{kjc} = \\frac{N_{kjc} + \\alpha}{n_k + \\alpha m_j}, \\qquad
          \\ln p(x, C_k) = \\ln\\pi_k + \\sum_j \\ln\\theta_{k j x_j} = z^T\\ln\\theta_k + \\ln\\pi_k

(:math:`\\sum_c N_{kjc} = n_k`): linear in the indicators, so the posterior is a softmax of z.  A
category at or above :math:`m_j` (never seen in training) has count zero in every class:
:math:`\\theta = \\alpha / (n_k + \\alpha m_j)`.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
import scipy.sparse as sp

from linclass.generative.class_stats import ClassStats
from linclass.generative.discrete import DiscreteModel, smoothing

__all__ = ["check_categories", "estimate", "joint_log_likelihood", "offsets", "one_hot", "regroup",
           "unseen_log_params", "widen"]


_MAX_CODE = 2**31 - 1


def check_categories(X: np.ndarray, estimator_name: str, known: np.ndarray | None = None) -> np.ndarray:
    """X as an integer array of category codes.  Negative values are refused by name; non-integer
    values are truncated towards zero, as scikit-learn's CategoricalNB does, with a warning.

    ``known`` (the fitted numbers of categories, at predict time): codes at or above them are all
    unseen categories, so they are capped there (any size is fine); without it (fitting) codes of
    2**31 or more are refused, since every category up to the largest gets a count."""
    if sp.issparse(X):
        raise TypeError(f"{estimator_name} takes dense X (one category code per feature); got a "
                        "scipy.sparse matrix.")
    if np.any(X < 0):
        i, j = np.argwhere(X < 0)[0]
        raise ValueError(
            f"Negative values in data passed to {estimator_name} (input X): category codes are "
            "integers >= 0 (encode categories with sklearn.preprocessing.OrdinalEncoder); "
            f"X[{i}, {j}] = {X[i, j].item()!r}."
        )
    if known is not None:
        X = np.minimum(X, known)
    elif X.size and X.max() >= _MAX_CODE:
        i, j = np.unravel_index(np.argmax(X), X.shape)
        raise ValueError(f"X[{i}, {j}] = {X[i, j]!r} is too large to be a category code of "
                         f"{estimator_name} (codes count categories from 0: at most {_MAX_CODE - 1}).")
    codes = X.astype(np.intp)
    if np.any(codes != X):
        i, j = np.argwhere(codes != X)[0]
        warnings.warn(
            f"{estimator_name} reads X as integer category codes, but X[{i}, {j}] = {X[i, j]!r} is not "
            "an integer: non-integer values are truncated towards zero (as scikit-learn does). Encode "
            "categories with sklearn.preprocessing.OrdinalEncoder.", UserWarning, stacklevel=5,
        )
    return codes


def offsets(n_categories: np.ndarray) -> np.ndarray:
    """Column where each feature's block of indicators starts, shape (n_features + 1,)."""
    return np.concatenate([[0], np.cumsum(n_categories)]).astype(np.intp)


def one_hot(codes: np.ndarray, n_categories: np.ndarray) -> sp.csr_matrix:
    """The indicator matrix Z of shape (n_samples, sum(n_categories)) in CSR form; codes at or above
    a feature's ``n_categories`` get no indicator (see :func:`joint_log_likelihood`)."""
    n, d = codes.shape
    start = offsets(n_categories)
    seen = codes < n_categories
    columns = (codes + start[:-1])[seen]
    rows = np.broadcast_to(np.arange(n)[:, None], (n, d))[seen]
    return sp.csr_matrix((np.ones(columns.size), (rows, columns)), shape=(n, int(start[-1])))


def widen(stats: ClassStats, old: np.ndarray, new: np.ndarray) -> ClassStats:
    """Statistics of indicators laid out for ``old`` category counts, re-laid for ``new`` (>= old):
    the new categories start with count zero."""
    if np.array_equal(old, new):
        return stats
    start_old, start_new = offsets(old), offsets(new)
    means = np.zeros((stats.n_classes, int(start_new[-1])))
    for j in range(old.size):
        means[:, start_new[j]:start_new[j] + old[j]] = stats.means[:, start_old[j]:start_old[j + 1]]
    return replace(stats, means=means)


def estimate(stats: ClassStats, n_categories: np.ndarray, log_priors: np.ndarray,
             alpha: float = 1.0) -> DiscreteModel:
    """:math:`\\theta_{kjc}` from the indicator statistics; the model's ``coef`` is
    :math:`\\ln\\theta` of shape (n_classes, sum(n_categories)), ``intercept`` the log priors."""
    alpha = smoothing(alpha, n_categories.size)
    counts = stats.sums()
    per_feature = np.repeat(np.broadcast_to(alpha, n_categories.shape), n_categories)
    width = np.repeat(np.broadcast_to(alpha, n_categories.shape) * n_categories, n_categories)
    params = (counts + per_feature) / (stats.counts[:, None] + width)
    log_params = np.log(params)
    return DiscreteModel("categorical", log_priors, params, log_params, log_params, log_priors.copy(),
                         alpha)


def joint_log_likelihood(model: DiscreteModel, codes: np.ndarray, n_categories: np.ndarray,
                         class_counts: np.ndarray) -> np.ndarray:
    """:math:`\\ln p(x, C_k)` of shape (n_samples, n_classes): one sparse product, plus the
    zero-count term of categories never seen in training."""
    scores = np.asarray(one_hot(codes, n_categories) @ model.coef.T) + model.intercept
    unseen = codes >= n_categories
    if np.any(unseen):
        scores += unseen.astype(np.float64) @ unseen_log_params(model, n_categories, class_counts).T
    return scores


def unseen_log_params(model: DiscreteModel, n_categories: np.ndarray,
                      class_counts: np.ndarray) -> np.ndarray:
    """:math:`\\ln\\theta` of a category never seen in training (count zero in every class),
    :math:`\\ln\\alpha - \\ln(n_k + \\alpha m_j)`, of shape (n_classes, n_features)."""
    alpha = np.broadcast_to(model.alpha, n_categories.shape)
    return np.log(alpha)[None, :] - np.log(class_counts[:, None] + alpha * n_categories)


def regroup(values: np.ndarray, n_categories: np.ndarray) -> list:
    """Split columns laid out by :func:`one_hot` into one (n_classes, m_j) array per feature."""
    start = offsets(n_categories)
    return [values[:, start[j]:start[j + 1]] for j in range(n_categories.size)]
