"""Fisher's discriminant directions from class statistics.

Fisher's criterion :math:`J(w) = \\frac{w^T S_B w}{w^T S_W w}` (seed 003 sec. 4.1.4, eq. 4.30) is maximised
by the generalized symmetric eigenproblem :math:`S_B v = \\lambda S_W v`; for two classes the single
direction is :math:`w \\propto S_W^{-1}(m_2 - m_1)` (eq. 4.30).  With K classes at most K-1 eigenvalues
are non-zero (:math:`S_B` has rank K-1).

When :math:`S_W` is singular the problem is solved on its range: with :math:`S_W = U\\Lambda U^T` and
:math:`H = D^{-1}U_r\\Lambda_r^{-1/2}` (:math:`D^{-1}S_WD^{-1} = U\\Lambda U^T` in correlation form,
:math:`D = \\mathrm{diag}(S_W)^{1/2}`, eigenvalues above ``tol`` times the largest), the directions are
:math:`H V` where :math:`H^T S_B H = V M V^T`.  They satisfy :math:`v^T S_W v = 1`.
"""

from __future__ import annotations

import numpy as np

from .stats import ClassStats

__all__ = ["between_class_covariance", "discriminant_directions"]


def between_class_covariance(stats: ClassStats, priors: np.ndarray) -> np.ndarray:
    """:math:`S_B = \\sum_k \\pi_k (\\mu_k - \\bar\\mu)(\\mu_k - \\bar\\mu)^T` with
    :math:`\\bar\\mu = \\sum_k \\pi_k \\mu_k`, shape (d, d)."""
    centred = stats.means - priors @ stats.means
    return (centred.T * priors) @ centred


def discriminant_directions(
    between: np.ndarray, within: np.ndarray, tol: float = 1e-10
) -> tuple[np.ndarray, np.ndarray]:
    """Solve :math:`S_B v = \\lambda S_W v` on the range of :math:`S_W`.

    Returns
    -------
    eigenvalues : ndarray of shape (r,), descending
    directions : ndarray of shape (d, r), columns normalised so that :math:`v^T S_W v = 1`, each
        signed so that its largest-magnitude entry is positive
    """
    scale = np.sqrt(np.maximum(np.diag(within), 0.0))
    scale = np.where(scale > 0, scale, 1.0)
    evals, U = np.linalg.eigh(within / scale[:, None] / scale[None, :])
    keep = evals > tol * max(float(evals[-1]), 0.0)
    H = U[:, keep] / np.sqrt(evals[keep]) / scale[:, None]
    M = H.T @ between @ H
    mu, V = np.linalg.eigh((M + M.T) / 2)
    order = np.argsort(mu)[::-1]
    directions = H @ V[:, order]
    # deterministic signs: the largest-magnitude entry of each direction is positive
    top = np.argmax(np.abs(directions), axis=0)
    directions *= np.sign(directions[top, np.arange(directions.shape[1])])
    return np.maximum(mu[order], 0.0), directions
