"""From class scores to posteriors, in log space.

:math:`\\ln p(C_k \\mid x) = a_k(x) - \\ln\\sum_j e^{a_j(x)}` where :math:`a_k(x) = \\ln p(x, C_k)` up to a
term common to all classes (Bishop 2006 eqs. 4.62-4.63).  Probabilities are ``exp`` of this, never the
other way round.
"""

from __future__ import annotations

import numpy as np

__all__ = ["log_posterior", "posterior"]


def _shifted(scores: np.ndarray) -> np.ndarray:
    """Scores minus each row's maximum (so the largest is 0 and ``exp`` cannot overflow).

    A row whose largest score is not finite means X held values so large that the scores overflowed;
    that is an error, never NaN output.
    """
    top = scores.max(axis=1, keepdims=True)
    if not np.all(np.isfinite(top)):
        rows = np.flatnonzero(~np.isfinite(top[:, 0]))
        raise ValueError(
            f"Class scores overflowed for {rows.size} sample(s) (first: row {rows[0]}): X holds values "
            "too large for this model's arithmetic. Rescale the features (for example with "
            "sklearn.preprocessing.StandardScaler) before fitting and predicting."
        )
    return scores - top


def log_posterior(scores: np.ndarray) -> np.ndarray:
    """Normalise scores of shape (n_samples, n_classes) to log posteriors (max-shifted log-sum-exp)."""
    shifted = _shifted(scores)
    return shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))


def posterior(scores: np.ndarray) -> np.ndarray:
    """Posteriors :math:`e^{a_k - m} / \\sum_j e^{a_j - m}` (one exponential per entry); equal to
    ``exp(log_posterior(scores))`` to rounding."""
    e = np.exp(_shifted(scores))
    e /= e.sum(axis=1, keepdims=True)
    return e
