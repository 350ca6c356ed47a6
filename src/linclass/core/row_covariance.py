"""Per-class covariances that need the rows themselves, not only the class statistics.

Two estimates of scikit-learn's discriminant analysis are defined on the rows of each class:

* ``shrinkage='auto'``: each class is standardized by its own per-feature standard deviations
  :math:`D_k` (maximum likelihood, a constant feature keeps scale 1), the Ledoit-Wolf intensity
  :math:`\\alpha_k` is computed on the standardized residuals :math:`z_i = D_k^{-1}(x_i - \\mu_k)`, and
  the shrunk correlation is scaled back:

  .. math:: \\Sigma_k = D_k\\big((1-\\alpha_k)R_k + \\alpha_k\\tfrac{\\mathrm{tr}R_k}{d}I\\big)D_k,
            \\qquad R_k = D_k^{-1}\\hat\\Sigma_kD_k^{-1}

  so the covariance is shrunk towards its own diagonal.  Only
  :math:`\\sum_i w_i\\lVert z_i\\rVert^4` needs the rows; it depends on :math:`D_k`, which is known only
  once the class is complete, so this estimate does not stream.
* a covariance estimator object (anything with ``fit(X)`` and a ``covariance_`` attribute after it,
  e.g. :class:`sklearn.covariance.OAS` or :class:`~sklearn.covariance.MinCovDet`), fitted on the rows
  of each class: a fresh clone per class when it is a scikit-learn estimator (has ``get_params``; the
  object passed in stays unfitted), else the object itself, refitted for each class, as
  scikit-learn uses it.

The shared (LDA) covariance built from them is the pooled :math:`\\sum_k \\frac{n_k}{n}\\Sigma_k`
(:func:`linclass.generative.gaussian.estimate`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import clone

from linclass.core import covariance as cov_
from linclass.core.class_stats import ClassStats

__all__ = ["RowCovariances", "estimator_covariances", "standardized_ledoit_wolf"]


@dataclass(frozen=True, eq=False)
class RowCovariances:
    """Per-class covariances estimated from the rows.

    Attributes
    ----------
    covariances : ndarray of shape (n_classes, d, d)
        Zero for a class without weight.
    intensity : ndarray of shape (n_classes,) or None
        The Ledoit-Wolf intensity per class (``'auto'``); None for an estimator object.
    """

    covariances: np.ndarray
    intensity: np.ndarray | None = None


def _scale(variances: np.ndarray, means: np.ndarray) -> np.ndarray:
    """Per-feature standard deviations, 1 for a feature that is constant in the class (exactly, or
    at the rounding level of its mean), as a standard scaler does."""
    constant = variances <= (10 * np.finfo(float).eps * np.maximum(np.abs(means), 1.0)) ** 2
    return np.where(constant, 1.0, np.sqrt(np.maximum(variances, 0.0)))


def standardized_ledoit_wolf(X: np.ndarray, y: np.ndarray, stats: ClassStats,
                             sample_weight: np.ndarray | None = None) -> RowCovariances:
    """scikit-learn's ``shrinkage='auto'``: Ledoit-Wolf on each class's standardized residuals.

    Parameters
    ----------
    X : ndarray of shape (n_samples, d)
    y : ndarray of shape (n_samples,), int
        Class index of each row.
    stats : ClassStats of kind 'full' of the same rows (means and per-class scatter).
    sample_weight : ndarray of shape (n_samples,) or None
        Frequency weights (the weighted residuals count as repeated rows).

    Returns
    -------
    RowCovariances with per-class intensities.
    """
    K, d = stats.n_classes, stats.n_features
    present = stats.counts > 0
    mle = cov_.class_covariances(stats)
    scales = np.ones((K, d))
    for k in np.flatnonzero(present):
        scales[k] = _scale(np.diag(mle[k]), stats.means[k])
    # sum_i w_i ||z_i||^4 per class, all classes in one pass over an (n, d) temporary
    Z = (X - stats.means[y]) / scales[y]
    q = np.einsum("ij,ij->i", Z, Z)
    fourth = np.bincount(y, weights=q * q if sample_weight is None else sample_weight * q * q,
                         minlength=K)
    out = np.zeros((K, d, d))
    alpha = np.zeros(K)
    for k in np.flatnonzero(present):
        outer = np.outer(scales[k], scales[k])
        R = mle[k] / outer
        alpha[k] = cov_.ledoit_wolf_intensity(R, float(fourth[k]), float(stats.counts[k]))
        out[k] = cov_.shrink(R, alpha[k]) * outer
    return RowCovariances(out, alpha)


def estimator_covariances(estimator, X: np.ndarray, y: np.ndarray, n_classes: int,
                          sample_weight: np.ndarray | None = None) -> RowCovariances:
    """Fit ``estimator`` on the rows of each class and collect ``covariance_``: a fresh clone per class
    when it has ``get_params`` (a scikit-learn estimator), else the object itself, which cannot be
    cloned (scikit-learn's LDA and QDA fit the object they are given).

    Parameters
    ----------
    estimator : object with ``fit(X)`` and, after it, ``covariance_`` of shape (d, d)
    X : ndarray of shape (n_samples, d)
    y : ndarray of shape (n_samples,), int
    n_classes : int
    sample_weight : ndarray or None
        Covariance estimators take no weights: only None or equal weights are accepted.

    Returns
    -------
    RowCovariances (no intensities).
    """
    name = type(estimator).__name__
    positive = None if sample_weight is None else sample_weight[sample_weight > 0]
    if positive is not None and positive.size and np.ptp(positive) > 0:
        raise ValueError(
            f"covariance_estimator={name} takes no sample weights, so it cannot honour unequal "
            "sample_weight; fit without sample_weight (or repeat rows), or use shrinkage instead."
        )
    keep = None if sample_weight is None else sample_weight > 0
    d = X.shape[1]
    out = np.zeros((n_classes, d, d))
    order = np.argsort(y, kind="stable")
    if keep is not None:
        order = order[keep[order]]
    bounds = np.searchsorted(y[order], np.arange(n_classes + 1))
    for k in range(n_classes):
        rows = order[bounds[k]:bounds[k + 1]]
        if rows.size == 0:
            continue
        fresh = clone(estimator) if hasattr(estimator, "get_params") else estimator
        fresh.fit(X[rows])  # (fit's return value is not used: scikit-learn's does not need self)
        cov = getattr(fresh, "covariance_", None)
        if cov is None:
            raise ValueError(f"covariance_estimator={name} has no covariance_ attribute after fit: "
                             "it must follow scikit-learn's covariance API (fit, then covariance_).")
        cov = np.asarray(cov, dtype=np.float64)
        if cov.shape != (d, d) or not np.all(np.isfinite(cov)):
            raise ValueError(f"covariance_estimator={name} gave a covariance_ of shape {cov.shape}"
                             f"{'' if cov.shape != (d, d) else ' with non-finite entries'}; a "
                             f"finite ({d}, {d}) matrix is needed.")
        out[k] = 0.5 * (cov + cov.T)
    return RowCovariances(out)
