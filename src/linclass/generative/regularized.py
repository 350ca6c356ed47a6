"""Regularised discriminant analysis (Friedman 1989): per-class covariances pulled towards the pooled
covariance and towards a multiple of the identity.

With the per-class scatter :math:`S_k`, the pooled :math:`S_W = \\sum_k S_k`, the class weight
:math:`n_k` and the total :math:`n`:

.. math::

    \\Sigma_k(\\lambda) = \\frac{(1-\\lambda) S_k + \\lambda S_W}{(1-\\lambda) n_k + \\lambda n},
    \\qquad
    \\Sigma_k(\\lambda, \\gamma) = (1-\\gamma)\\,\\Sigma_k(\\lambda)
        + \\gamma\\,\\frac{\\mathrm{tr}\\,\\Sigma_k(\\lambda)}{d}\\, I

(Friedman, "Regularized discriminant analysis", JASA 84, 1989, eqs. 16 and 18, with the
maximum-likelihood divisors).  :math:`\\lambda = 1, \\gamma = 0` is LDA's :math:`S_W / n` for every
class, :math:`\\lambda = 0, \\gamma = 0` is QDA's :math:`S_k / n_k`; the classifier is QDA's
(:mod:`linclass.generative.gaussian`, structure 'full') with these covariances.
"""

from __future__ import annotations

import numpy as np

from linclass.generative import covariance as cov_
from linclass.generative.class_stats import ClassStats
from linclass.generative.gaussian import GaussianModel, full_model

__all__ = ["covariances", "estimate", "pooled_parts"]


def pooled_parts(stats: ClassStats, pooling: float) -> tuple[np.ndarray, np.ndarray]:
    """Friedman's :math:`S_k(\\lambda) = (1-\\lambda)S_k + \\lambda S_W` and
    :math:`W_k(\\lambda) = (1-\\lambda)n_k + \\lambda n`, shapes (K, d, d) and (K,)."""
    lam = float(pooling)
    A = (1.0 - lam) * stats.scatter + lam * stats.pooled_scatter()[None, :, :]
    return A, (1.0 - lam) * stats.counts + lam * stats.total


def covariances(stats: ClassStats, pooling: float, shrinkage: float) -> np.ndarray:
    """:math:`\\Sigma_k(\\lambda, \\gamma)` of every class, shape (K, d, d) (see the module docstring).

    Parameters
    ----------
    stats : ClassStats of kind 'full'
    pooling : float in [0, 1]
        :math:`\\lambda`.
    shrinkage : float in [0, 1]
        :math:`\\gamma`.
    """
    A, D = pooled_parts(stats, pooling)
    present = D > 0
    sigmas = np.zeros_like(A)
    for k in np.flatnonzero(present):
        sigmas[k] = cov_.shrink(A[k] / D[k], float(shrinkage))
    return sigmas


def estimate(stats: ClassStats, pooling: float, shrinkage: float, *, priors=None,
             tol: float = 1e-10) -> GaussianModel:
    """The regularised model: QDA's scores with :func:`covariances`.

    Parameters
    ----------
    stats : ClassStats of kind 'full'
    pooling, shrinkage : float in [0, 1]
    priors : ndarray of shape (n_classes,) or None
    tol : float
        The rank rule of :func:`linclass.generative.gaussian.estimate` (a singular
        :math:`\\Sigma_k(\\lambda,\\gamma)`, possible only with :math:`\\gamma = 0`, is floored with a
        warning).
    """
    return full_model(stats, covariances(stats, pooling, shrinkage), priors=priors, tol=tol)
