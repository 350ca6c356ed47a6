"""Class priors, in log space."""

from __future__ import annotations

import warnings

import numpy as np

from linclass.generative.class_stats import ClassStats

__all__ = ["class_log_priors"]


def class_log_priors(stats: ClassStats, priors: np.ndarray | None) -> np.ndarray:
    """MLE priors :math:`\\phi_k = n_k / n` (docs/math/gaussian.md#maximum-likelihood-class-statistics) or the
    user's, in log space; classes without training weight get :math:`-\\infty`."""
    present = stats.counts > 0
    p = stats.counts / stats.total if priors is None else priors
    missing = ~present & (p > 0)
    if np.any(missing):
        warnings.warn(
            f"Class(es) {stats.classes[missing].tolist()} have no training samples yet; they get "
            "zero posterior probability until samples of them are seen.",
            UserWarning,
            stacklevel=4,
        )
    usable = present & (p > 0)
    out = np.full(p.shape, -np.inf)
    out[usable] = np.log(p[usable])
    return out
