"""cv.glmnet's statistics of cross-validated scores and its choice of penalty (the best mean, and
the one-standard-error rule), for :class:`~linclass.LogisticRegressionCV` (Friedman, Hastie and
Tibshirani 2010, sec. 6; Hastie, Tibshirani and Friedman 2009, sec. 7.10), and scikit-learn's
choice (the best sum of the folds' scores)."""

from __future__ import annotations

import numpy as np

__all__ = ["choose", "cv_statistics", "fold_bests", "summed_best"]


def cv_statistics(scores: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """cv.glmnet's ``cvm`` and ``cvsd`` of the folds' scores (axis 0) with the folds' weights.

    With :math:`s_k` fold k's score (a weighted mean over its held-out rows) and :math:`w_k` the
    weight of those rows, K folds,

    .. math::

        \\bar s = \\frac{\\sum_k w_k s_k}{\\sum_k w_k}, \\qquad
        \\mathrm{se} = \\sqrt{\\frac{\\sum_k w_k (s_k - \\bar s)^2}{(K - 1)\\sum_k w_k}}

    (glmnet's ``cvstats`` of the grouped fold scores of ``cvcompute``; equal weights give the
    plain mean and the standard deviation with divisor K - 1 over :math:`\\sqrt K`).  One fold: a
    standard error of 0.

    Parameters
    ----------
    scores : ndarray of shape (n_folds, ...)
    weights : ndarray of shape (n_folds,)

    Returns
    -------
    mean, se : ndarrays of shape scores.shape[1:]
    """
    w = np.asarray(weights, dtype=np.float64)
    w = w / w.sum()
    mean = np.tensordot(w, scores, axes=(0, 0))
    if scores.shape[0] < 2:
        return mean, np.zeros_like(mean)
    spread = np.tensordot(w, (scores - mean) ** 2, axes=(0, 0))
    return mean, np.sqrt(spread / (scores.shape[0] - 1))


def choose(mean: np.ndarray, se: np.ndarray) -> tuple[tuple[int, int, int], tuple[int, int]]:
    """cv.glmnet's choice on mean scores of shape (n_l1_ratios, n_Cs, n_relax), higher better, C
    and relax increasing: ``((r, c, g), (c1, g1))``.

    The best ``(r, c, g)`` is the largest mean (``lambda.min``; ties: the first ratio, then the
    smallest C, then the largest relax, as glmnet's largest lambda, then largest gamma).  At its
    ratio, ``c1`` is the smallest C at which some relax has a mean of at least the best's mean
    minus the best's standard error, and ``g1`` the largest such relax there (``lambda.1se``,
    ``gamma.1se``: glmnet's ``cvm <= cvm[min] + cvsd[min]`` on its loss scale).
    """
    if not np.any(np.isfinite(mean)):
        raise ValueError("Every mean held-out score is NaN or infinite: the scoring cannot compare "
                         "the candidates (check the scoring function on these data).")
    best = np.nanmax(mean)
    ties = np.argwhere(mean == best)  # rows (r, c, g), lexicographic
    r = int(ties[0, 0])
    c = int(ties[ties[:, 0] == r, 1].min())
    g = int(ties[(ties[:, 0] == r) & (ties[:, 1] == c), 2].max())
    within = mean[r] >= best - se[r, c, g]  # (n_Cs, n_relax)
    c1 = int(np.flatnonzero(within.any(axis=1)).min())
    g1 = int(np.flatnonzero(within[c1]).max())
    return (r, c, g), (c1, g1)


def summed_best(scores: np.ndarray) -> tuple[int, int]:
    """scikit-learn's choice on the folds' scores of shape (n_folds, n_l1_ratios, n_Cs), higher
    better: ``(r, c)`` of the largest sum over the folds (every fold counts the same, whatever its
    size); ties go to the smallest C, then the first ratio (``argmax`` over the C-major
    (n_Cs, n_l1_ratios) table).  ``cv.glmnet`` weighs the folds instead (:func:`choose`)."""
    total = np.asarray(scores).sum(axis=0).T  # (n_Cs, n_l1_ratios)
    if not np.any(np.isfinite(total)):
        raise ValueError("Every held-out score is NaN or infinite: the scoring cannot compare "
                         "the candidates (check the scoring function on these data).")
    c, r = np.unravel_index(np.argmax(total), total.shape)
    return int(r), int(c)


def fold_bests(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's choice of each fold without a refit: for each fold of the scores of shape
    (n_folds, n_l1_ratios, n_Cs), the ``(r, c)`` of its own best score (ties as in
    :func:`summed_best`); returns the arrays ``(r, c)`` of shape (n_folds,)."""
    table = np.swapaxes(np.asarray(scores), 1, 2).reshape(len(scores), -1)  # (folds, Cs * ratios)
    c, r = np.unravel_index(np.argmax(table, axis=1), np.shape(scores)[2:0:-1])
    return r, c
