"""The rank rule: how a (possibly singular) covariance is inverted, in units where the decision does
not depend on the features' units.

A covariance :math:`\\Sigma` is written :math:`\\Sigma = DRD` with :math:`D = \\mathrm{diag}(s)`, s each
feature's total standard deviation (all classes together, :func:`feature_scale`; or the model's own
standard deviation where regularisation made that larger, :func:`rank_scale`).  The eigenvalues of
the standardized form :math:`R = U\\Lambda U^T` at or below ``tol`` times the largest count as zero.
Standardising by the total rather than the within-class variance keeps a feature that is constant
within the classes (but not between them) at a near-zero eigenvalue whether its within-class variance
is exactly zero or at rounding level, so both cases get the same treatment.

The tied Gaussian models drop those directions (a generalized inverse on the range of
:math:`\\Sigma`, :func:`precision_root`); the per-class models floor them (with
:func:`scaled_eigh`).  :func:`precision_times` applies the same generalized inverse to a vector, so
that quantities derived later from a fitted model (its logistic form, in
:mod:`linclass.geometry`) equal the model's own coefficients, also for a singular
:math:`\\Sigma`.
"""

from __future__ import annotations

import numpy as np

from linclass.generative.class_stats import ClassStats

__all__ = ["constant_features", "feature_scale", "gaussian_discriminants", "precision_root", "precision_times",
           "rank_scale", "scaled_eigh", "whitening"]


def constant_features(stats: ClassStats) -> np.ndarray:
    """Boolean mask of shape (d,): features whose total variance is zero or at the rounding level of
    their mean (numerically constant)."""
    var = stats.total_variance()
    return (var <= (100 * np.finfo(float).eps * np.abs(stats.grand_mean())) ** 2) | (var <= 0)


def feature_scale(stats: ClassStats) -> np.ndarray:
    """Each feature's total standard deviation (all classes together), the unit in which rank and
    floor decisions are made (Gaussian models, Fisher's directions); 1 for a feature that is
    constant (:func:`constant_features`)."""
    var = stats.total_variance()
    return np.where(constant_features(stats), 1.0, np.sqrt(np.maximum(var, 0.0)))


def rank_scale(variances: np.ndarray, feature_scale: np.ndarray) -> np.ndarray:
    """The unit D of each feature for rank decisions: its total standard deviation, or the model's own
    standard deviation where regularisation (shrinkage, ``reg_param``) made that larger."""
    return np.maximum(np.sqrt(np.maximum(variances, 0.0)), feature_scale)


def scaled_eigh(sigma: np.ndarray, scale: np.ndarray, *, vectors: bool = True):
    """Eigendecomposition of :math:`R = D^{-1}\\Sigma D^{-1}` with :math:`D` from :func:`rank_scale`
    of :math:`\\Sigma`'s diagonal and the features' total standard deviations ``scale``.

    Returns ``(D, eigenvalues, U)``: D of shape (d,), eigenvalues ascending, U of shape (d, d)
    (None with ``vectors=False``, which costs about a third).
    """
    scale = rank_scale(np.diag(sigma), scale)
    R = sigma / scale[:, None] / scale[None, :]
    if not vectors:
        return scale, np.linalg.eigvalsh(R), None
    evals, U = np.linalg.eigh(R)
    return scale, evals, U


def precision_root(sigma: np.ndarray, tol: float, units: np.ndarray) -> tuple[np.ndarray, int]:
    """A root H of the generalized inverse, :math:`\\Sigma^{+} = HH^T`, under the rank rule.

    Full :math:`\\Sigma` (shape (d, d)): :math:`H = D^{-1}U_r\\Lambda_r^{-1/2}` of shape (d, r), from
    the eigenvalues of :math:`R` above ``tol`` times the largest.  Diagonal :math:`\\Sigma` (shape (d,),
    the variances): :math:`H = \\mathrm{diag}(h)`, returned as h of shape (d,), with
    :math:`h_j = \\Sigma_{jj}^{-1/2}` and 0 for features whose variance is at most ``tol`` in the
    units of :func:`rank_scale` (there :math:`R = I` on the features that vary).

    Parameters
    ----------
    sigma : ndarray of shape (d, d) or (d,)
    tol : float
    units : ndarray of shape (d,)
        The features' total standard deviations (:func:`feature_scale`).

    Returns
    -------
    root : ndarray of shape (d, rank) or (d,)
    rank : int
    """
    if sigma.ndim == 1:
        keep = sigma > tol * rank_scale(sigma, units) ** 2
        root = np.where(keep, 1.0 / np.sqrt(np.where(keep, sigma, 1.0)), 0.0)
        return root, int(keep.sum())
    scale, evals, U = scaled_eigh(sigma, units)
    keep = evals > tol * max(float(evals[-1]), 0.0)
    return U[:, keep] / np.sqrt(evals[keep]) / scale[:, None], int(keep.sum())


def precision_times(sigma: np.ndarray, v: np.ndarray, tol: float, units: np.ndarray) -> np.ndarray:
    """:math:`\\Sigma^{+}v = H(H^Tv)` with the root of :func:`precision_root` (the pseudo-inverse on the
    range of :math:`\\Sigma` under the rank rule; :math:`\\Sigma^{-1}v` when :math:`\\Sigma` has full
    rank).

    Parameters
    ----------
    sigma : ndarray of shape (d, d), or (d,) for a diagonal covariance
    v : ndarray of shape (d,) or (d, m)
    tol : float
    units : ndarray of shape (d,)

    Returns
    -------
    ndarray of the shape of v
    """
    root, _ = precision_root(sigma, tol, units)
    if root.ndim == 1:
        h = root if v.ndim == 1 else root[:, None]
        return h * (h * v)
    return root @ (root.T @ v)


def whitening(root: np.ndarray):
    """``(whiten, unwhiten)`` for a precision root :math:`H` (:math:`\\Sigma^{-1} = HH^T`; 1-D for a
    diagonal one): ``whiten(A) = A H`` and ``unwhiten(Z) = Z H^T`` on rows, so that
    ``unwhiten(whiten(A))`` applies :math:`\\Sigma^{-1}` to the rows of A."""
    if root.ndim == 1:
        return (lambda A: A * root), (lambda Z: Z * root)
    return (lambda A: A @ root), (lambda Z: Z @ root.T)


def gaussian_discriminants(means: np.ndarray, log_priors: np.ndarray, whiten, unwhiten,
                           center=0.0) -> tuple[np.ndarray, np.ndarray]:
    """The one map from Gaussian classes with a shared covariance to linear scores (Bishop 2006
    eqs. 4.69-4.70), about a centre :math:`c`:

    .. math::  w_k = \\Sigma^{-1}(\\mu_k - c), \\qquad
               w_{k0} = -\\tfrac12 \\lVert H^T(\\mu_k - c)\\rVert^2 + \\ln p(C_k),

    the scores :math:`w_k^T(x - c) + w_{k0}`; two classes give the logistic form
    :math:`\\theta = w_1 - w_0` (docs/math/gaussian.md#two-class-gaussian-model-in-logistic-form).
    ``whiten`` / ``unwhiten`` (:func:`whitening`) carry the caller's rule for a singular
    :math:`\\Sigma`: the pseudo-inverse on its range for the fitted models
    (:func:`precision_root`), none for a solver's starting point, which refuses a singular one.
    Returns ``(coef, intercept)`` of shapes (K, d) and (K,)."""
    Z = whiten(np.asarray(means, dtype=np.float64) - center)
    return unwhiten(Z), -0.5 * np.einsum("kj,kj->k", Z, Z) + log_priors
