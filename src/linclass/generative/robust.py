"""Robust class means and shared scatter: the multivariate-t fit of MASS's ``lda(method = "t")``
(and ``cov.trob``), by the EM algorithm (Lange, Little & Taylor 1989).

Bishop 2006 (sec. 4.1.3 on least squares, sec. 4.2.2 on the Gaussian maximum-likelihood fit) warns that a few
points far from their class pull the means and inflate the covariance; a multivariate t with
:math:`\\nu` degrees of freedom downweights them.  Each class is :math:`t_\\nu(\\mu_k, \\Psi)` with one
shared scale :math:`\\Psi`; with :math:`r_i = x_i - \\mu_{y_i}` and frequency weights :math:`w_i`,

.. math::

    \\text{E-step: } u_i = \\frac{\\nu + p}{\\nu + r_i^T\\Psi^{-1}r_i}, \\qquad
    \\text{M-step: } \\mu_k = \\frac{\\sum_{i \\in k} w_iu_ix_i}{\\sum_{i \\in k} w_iu_i}, \\quad
    \\Psi = \\frac{\\sum_i w_iu_i r_ir_i^T}{\\sum_i w_i}

from :math:`u_i = 1` (the Gaussian fit).  The classifier then uses the t's covariance
:math:`\\Sigma = \\frac{\\nu}{\\nu-2}\\Psi` in LDA's rule, as MASS does.  MASS stops when no case weight
:math:`w_i = u_i\\nu/(\\nu+p)` changes by 0.01 or more, which can be far from the fixed point; here
the iteration runs until the largest relative change of the case weights is below ``tol``
(1e-10 by default), i.e. to the maximum-likelihood estimate of the t model.
"""

from __future__ import annotations

import numpy as np

from linclass.generative.class_stats import ClassStats

__all__ = ["t_statistics"]


def t_statistics(X: np.ndarray, y: np.ndarray, classes: np.ndarray, sample_weight=None, *,
                 nu: float = 5.0, tol: float = 1e-10, max_iter: int = 1000):
    """The multivariate-t fit, as class statistics that give it back.

    Returns
    -------
    stats : ClassStats of kind 'tied'
        Counts and row numbers as for the Gaussian fit; ``means`` the t locations
        :math:`\\mu_k`; ``scatter`` :math:`N\\Sigma = N\\frac{\\nu}{\\nu-2}\\Psi`, so that the
        maximum-likelihood pooled covariance :math:`S_W/N` of
        :func:`linclass.generative.covariance.pooled_covariance` is the t's covariance.  (These are not
        mergeable statistics of the rows.)
    case_weights : ndarray of shape (n_samples,)
        The final :math:`u_i` (1 for typical rows, small for outliers).
    n_iter : int
    converged : bool
    """
    if nu <= 2:
        raise ValueError(f"nu must exceed 2 (the t's covariance is nu/(nu-2) times its scale); got {nu}.")
    n, p = X.shape
    K = classes.size
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    total = float(w.sum())
    counts = np.bincount(y, weights=w, minlength=K).astype(np.float64)
    u = np.ones(n)
    converged, it = False, 0
    for it in range(1, max_iter + 1):
        wu = w * u
        sums = np.zeros((K, p))
        np.add.at(sums, y, X * wu[:, None])
        mass = np.bincount(y, weights=wu, minlength=K)
        means = sums / np.where(mass > 0, mass, 1.0)[:, None]
        R = X - means[y]
        Rw = R * np.sqrt(wu)[:, None]
        psi = (Rw.T @ Rw) / total
        try:
            L = np.linalg.cholesky(psi)
        except np.linalg.LinAlgError:
            raise ValueError(
                "method='t' needs a non-singular within-class scatter: some features are constant or "
                "collinear. Drop them, or use method='gaussian' (which has a pseudo-inverse)."
            ) from None
        Z = np.linalg.solve(L, R.T)
        delta = np.einsum("ji,ji->i", Z, Z)
        u_new = (nu + p) / (nu + delta)
        change = np.max(np.abs(u_new - u) / u_new)
        u = u_new
        if change <= tol:
            converged = True
            break
    # the location and scale at the final weights
    wu = w * u
    sums = np.zeros((K, p))
    np.add.at(sums, y, X * wu[:, None])
    mass = np.bincount(y, weights=wu, minlength=K)
    means = sums / np.where(mass > 0, mass, 1.0)[:, None]
    R = (X - means[y]) * np.sqrt(wu)[:, None]
    sigma = nu / (nu - 2.0) * (R.T @ R) / total
    stats = ClassStats(classes, counts, np.bincount(y, minlength=K), means,
                       (sigma + sigma.T) / 2 * total, "tied")
    return stats, u, it, converged
