"""Class-conditional Gaussian densities of a fitted :class:`~linclass.generative.gaussian.GaussianModel`.

The scores of :func:`linclass.generative.gaussian_scores.joint_log_likelihood` are what classification
needs (for the linear structures, only up to a term shared by all classes).  The functions here
give the densities themselves, for every covariance structure:

.. math:: \\ln\\mathcal N(x \\mid \\mu_k, \\Sigma_k) = -\\tfrac12 (x-\\mu_k)^T\\Sigma_k^{-1}(x-\\mu_k)
          - \\tfrac12\\ln|\\Sigma_k| - \\tfrac d2\\ln 2\\pi

(Bishop 2006 sec. 4.2.1), with :math:`\\Sigma_k = LL^T` factored by Cholesky, so that the quadratic
form is :math:`\\lVert L^{-1}(x-\\mu_k)\\rVert^2` and :math:`\\ln|\\Sigma_k| = 2\\sum_j\\ln L_{jj}`.  The
figures of :mod:`linclass.plot` (ellipses, density surfaces) draw these.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import LinAlgError, cholesky, solve_triangular

from linclass.generative.gaussian import COVARIANCE_TYPES, GaussianModel

__all__ = ["class_log_density", "covariance_matrices"]

_LOG_2PI = np.log(2 * np.pi)


def covariance_matrices(model: GaussianModel) -> np.ndarray:
    """Every class's covariance as a full matrix.

    Parameters
    ----------
    model : GaussianModel
        The fitted record (an estimator's ``model_``), whatever its ``covariance_type``: the stored
        ``covariance`` is (d, d) 'tied', (K, d, d) 'full', (K, d) 'diag', (d,) 'tied_diag' or (K,)
        'spherical'.

    Returns
    -------
    ndarray of shape (n_classes, n_features, n_features)
        :math:`\\Sigma_k` (a new array; the shared matrix repeated for the tied structures).
    """
    kind = model.covariance_type
    if kind not in COVARIANCE_TYPES:
        raise ValueError(f"unknown covariance_type {kind!r}; known: {', '.join(COVARIANCE_TYPES)}")
    cov = np.asarray(model.covariance, dtype=float)
    K, d = np.shape(model.means)
    expected = {"tied": (d, d), "full": (K, d, d), "diag": (K, d), "tied_diag": (d,),
                "spherical": (K,)}[kind]
    if cov.shape != expected:
        raise ValueError(f"a {kind!r} covariance for {K} classes in {d} features has shape "
                         f"{expected}; this record holds {cov.shape}")
    if kind == "tied":
        return np.repeat(cov[None], K, axis=0)
    if kind == "full":
        return cov.copy()
    if kind == "diag":
        return cov[:, :, None] * np.eye(d)
    if kind == "tied_diag":
        return np.repeat(np.diag(cov)[None], K, axis=0)
    return cov[:, None, None] * np.eye(d)  # spherical


def class_log_density(model: GaussianModel, X, classes=None) -> np.ndarray:
    """:math:`\\ln\\mathcal N(x \\mid \\mu_k, \\Sigma_k)` of every row of X under each class's density.

    Parameters
    ----------
    model : GaussianModel
        The fitted record (an estimator's ``model_``).
    X : array-like of shape (n_samples, n_features)
    classes : sequence of int, default=None
        Positions (in the model's classes) of the densities wanted; None: every class.

    Returns
    -------
    ndarray of shape (n_samples, n_classes), or (n_samples, len(classes))
        The log densities themselves (no prior, nothing left out): each column integrates to one
        after exponentiation.

    Raises
    ------
    ValueError
        When a class's covariance is singular (by the model's own rank rule: the tied structures fell
        back to a pseudo-inverse, a 'full' class had eigenvalues floored, or a class had no training
        weight), so that it has no density; or when X has the wrong number of features.
    """
    means = np.asarray(model.means, dtype=float)
    K, d = means.shape
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != d:
        raise ValueError(f"X must have shape (n_samples, {d}); got {X.shape}")
    wanted = list(range(K)) if classes is None else [int(k) for k in classes]
    if any(not 0 <= k < K for k in wanted):
        raise ValueError(f"classes must be positions in [0, {K}); got {wanted}")
    _check_invertible(model, wanted, d)
    covs = covariance_matrices(model)
    out = np.empty((X.shape[0], len(wanted)))
    if model.covariance_type in ("diag", "tied_diag", "spherical"):
        for j, k in enumerate(wanted):
            var = np.diag(covs[k])
            if not np.all(var > 0):
                raise _singular(k)
            z2 = ((X - means[k]) ** 2) @ (1.0 / var)
            out[:, j] = -0.5 * (z2 + np.sum(np.log(var)) + d * _LOG_2PI)
        return out
    factors = {}  # one Cholesky factor per distinct matrix (one in all for 'tied')
    for j, k in enumerate(wanted):
        key = 0 if model.covariance_type == "tied" else k
        if key not in factors:
            factors[key] = _cholesky(covs[k], k)
        L = factors[key]
        Z = solve_triangular(L, (X - means[k]).T, lower=True, check_finite=False)
        out[:, j] = -0.5 * (np.einsum("ij,ij->j", Z, Z) + d * _LOG_2PI) - np.sum(np.log(np.diag(L)))
    return out


def _singular(k) -> ValueError:
    return ValueError(
        f"the covariance of class {k} is singular, so the class has no density; regularise the model "
        "(reg_param, shrinkage or var_smoothing)."
    )


def _check_invertible(model: GaussianModel, wanted: list, d: int) -> None:
    """Refuse the classes whose covariance the fit found singular (its ``rank`` below d)."""
    if model.rank is None:  # diagonal structures: variances were floored above zero
        return
    ranks = np.broadcast_to(np.asarray(model.rank), (len(model.means),))
    for k in wanted:
        if ranks[k] < d:
            raise _singular(k)


def _cholesky(sigma: np.ndarray, k) -> np.ndarray:
    try:
        L = cholesky((sigma + sigma.T) / 2, lower=True, check_finite=True)
    except (LinAlgError, ValueError):
        raise _singular(k) from None
    if not np.all(np.diag(L) > 0):
        raise _singular(k)
    return L
