"""The discriminant axes of linear discriminant analysis as scikit-learn and MASS report them:
``scalings_`` per solver (:func:`svd_axes`, :func:`eigen_axes`) and MASS's ``scaling`` and ``svd``
(:func:`mass_scaling`).

Every one is a set of Fisher directions, :math:`S_Bv = \\lambda\\Sigma v` (Bishop 2006 sec. 4.1.6),
with :math:`S_B = \\sum_k \\pi_k(\\mu_k - \\bar\\mu)(\\mu_k - \\bar\\mu)^T`,
:math:`\\bar\\mu = \\sum_k \\pi_k\\mu_k` (:func:`linclass.projection.fisher.between_class_covariance`)
and :math:`\\Sigma` the shared within-class covariance.  They differ in the normalisation, in how many
columns are kept and in the sign of each column, which the libraries leave to their arithmetic.
This module follows that arithmetic where it decides a sign, so that the numbers agree, signs
included.

The 'svd' route (scikit-learn's ``solver='svd'``, MASS's ``lda``)
    1. Whiten :math:`\\Sigma`: with :math:`D = \\mathrm{diag}(\\Sigma)^{1/2}` and the correlation form
       :math:`D^{-1}\\Sigma D^{-1} = U\\Lambda U^T` (eigenvalues decreasing, those at or below
       ``rank_tol`` times the largest dropped), :math:`W = D^{-1}U_r\\Lambda_r^{-1/2}`, so
       :math:`W^T\\Sigma W = I`.
    2. The thin SVD of the whitened, weighted class means
       :math:`A = \\mathrm{diag}(\\sqrt{\\pi_k})(M - 1\\bar\\mu^T)W = PSQ^T` (K x r), by LAPACK's
       ``gesdd`` (:func:`scipy.linalg.svd`, as scikit-learn calls it).
    3. Keep the columns with :math:`s_j > \\mathrm{tol}\\cdot s_1`: :math:`V = WQ`,
       :math:`\\lambda_j = s_j^2`, :math:`V^T\\Sigma V = I`.

    The signs.  scikit-learn and MASS take the same SVD of the same matrix, up to a positive factor
    (:math:`\\sqrt{n/(K-1)}`) and the signs of the columns of :math:`W`, which they get from an SVD
    of the centred rows (here: an eigendecomposition).  ``gesdd`` returns the same left singular
    vectors :math:`P` when columns of its argument change sign (observed for every matrix of two
    or more columns; for a single column it returns :math:`Q = 1`), so :math:`AQ = PS` fixes
    :math:`V = WQ` whatever the signs of :math:`W`: the directions point as scikit-learn's
    ``scalings_`` and MASS's ``scaling`` do (tests/test_lda_axes.py, tests/test_lda_summary.py).
    Equivalently: the projected class means :math:`\\sqrt{\\pi_k}(\\mu_k - \\bar\\mu)^Tv_j` are
    :math:`s_jP_{kj}`, signed as ``gesdd`` signs :math:`P`.  Where :math:`\\Sigma` has (nearly) equal
    eigenvalues in correlation form, :math:`W` is not unique beyond signs and the signs may differ.

The 'eigen' route (scikit-learn's ``solver='eigen'``)
    :func:`scipy.linalg.eigh` of the pair :math:`(S_B, \\Sigma)` (LAPACK's ``sygvd``: Cholesky
    :math:`\\Sigma = LL^T` and a symmetric eigenproblem of :math:`L^{-1}S_BL^{-T}`), as scikit-learn
    calls it: all d directions, :math:`V^T\\Sigma V = I`, by decreasing eigenvalue; the columns
    after the first :math:`K-1` span the null space of :math:`S_B` (eigenvalue 0: any basis, which
    rounding chooses).  A :math:`\\Sigma` with eigenvalues at the rank threshold has no Cholesky
    factor (scikit-learn fails there); the problem is then solved on its range, as the 'svd' route
    whitens, with the r directions :func:`numpy.linalg.eigh` gives.

MASS's ``scaling`` and ``svd``
    The 'svd' route on :math:`\\Sigma_{n-K} = S_W/(n-K)` (``lda(method="moment")``): the scores
    have pooled within-class covariance :math:`I` with the divisor :math:`n-K`, and
    ``svd`` :math:`= \\sqrt{n\\lambda_j/(K-1)}` are the singular values of MASS's matrix
    :math:`\\sqrt{n\\pi_k/(K-1)}(\\mu_k - \\bar\\mu)^TW`, the ratios of between- to within-group
    standard deviations on the discriminants; the proportion of trace is
    :math:`\\mathrm{svd}_j^2 / \\sum_i \\mathrm{svd}_i^2`.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

__all__ = ["eigen_axes", "mass_scaling", "proportion_of_trace", "svd_axes"]


def _whitener(covariance: np.ndarray, rank_tol: float) -> np.ndarray:
    """:math:`W = D^{-1}U_r\\Lambda_r^{-1/2}` of shape (d, r), with :math:`W^T\\Sigma W = I` on the
    range of :math:`\\Sigma`; columns by decreasing eigenvalue of the correlation form (the order of
    the singular values of the standardized centred rows).

    Parameters
    ----------
    covariance : ndarray of shape (d, d)
    rank_tol : float
        Eigenvalues of the correlation form at or below ``rank_tol`` times the largest are dropped
        (a feature with zero variance is left unscaled and dropped with them).
    """
    scale = np.sqrt(np.maximum(np.diag(covariance), 0.0))
    scale = np.where(scale > 0, scale, 1.0)
    evals, U = np.linalg.eigh(covariance / scale[:, None] / scale[None, :])
    evals, U = evals[::-1], U[:, ::-1]
    keep = evals > rank_tol * max(float(evals[0]), 0.0)
    return U[:, keep] / np.sqrt(evals[keep]) / scale[:, None]


def _weighted_centred_means(means: np.ndarray, priors: np.ndarray) -> np.ndarray:
    """Rows :math:`\\sqrt{\\pi_k}(\\mu_k - \\bar\\mu)`, :math:`\\bar\\mu = \\sum_k\\pi_k\\mu_k`."""
    return np.sqrt(priors)[:, None] * (means - priors @ means)


def svd_axes(means: np.ndarray, priors: np.ndarray, covariance: np.ndarray, *, rank_tol: float,
             tol: float = 1e-4) -> tuple[np.ndarray, np.ndarray]:
    """The 'svd' route (module docstring): scikit-learn's ``scalings_`` of ``solver='svd'``.

    Parameters
    ----------
    means : ndarray of shape (K, d)
        Class means (classes with training weight only).
    priors : ndarray of shape (K,)
    covariance : ndarray of shape (d, d)
        The shared within-class covariance :math:`\\Sigma`.
    rank_tol : float
        Rank threshold of :math:`\\Sigma`: eigenvalues of its correlation form at or below
        ``rank_tol`` times the largest are dropped.
    tol : float
        Directions with singular value at or below ``tol`` times the largest are dropped
        (scikit-learn's and MASS's second threshold).

    Returns
    -------
    eigenvalues : ndarray of shape (min(K, r),)
        :math:`s_j^2 = \\lambda_j`, decreasing, every one the SVD gives (for scikit-learn's
        ``explained_variance_ratio_``), the dropped ones included.
    directions : ndarray of shape (d, n_kept)
        :math:`V = WQ`, :math:`V^T\\Sigma V = I`, signed as the module docstring says.
    """
    W = _whitener(covariance, rank_tol)
    if W.shape[1] == 0 or means.shape[0] == 0:
        return np.zeros(0), np.zeros((covariance.shape[0], 0))
    _, s, Qt = sla.svd(_weighted_centred_means(means, priors) @ W, full_matrices=False)
    kept = int(np.sum(s > tol * s[0])) if s[0] > 0 else 0
    return s**2, W @ Qt[:kept].T


def eigen_axes(means: np.ndarray, priors: np.ndarray, covariance: np.ndarray, *,
               rank_tol: float) -> tuple[np.ndarray, np.ndarray]:
    """The 'eigen' route (module docstring): scikit-learn's ``scalings_`` of ``solver='eigen'``.

    Parameters are those of :func:`svd_axes`.

    Returns
    -------
    eigenvalues : ndarray of shape (d,), or (r,) where :math:`\\Sigma` has rank r < d; decreasing
    directions : ndarray of shape (d, d) or (d, r), :math:`V^T\\Sigma V = I`
    """
    centred = means - priors @ means
    between = (centred.T * priors) @ centred  # S_B
    W = _whitener(covariance, rank_tol)
    evals = None
    if W.shape[1] == covariance.shape[0]:
        try:
            evals, V = sla.eigh(between, covariance)
        except np.linalg.LinAlgError:  # full rank by the threshold, yet no Cholesky factor
            pass
    if evals is None:  # the symmetric problem on the range of Sigma
        M = W.T @ between @ W
        evals, Y = np.linalg.eigh((M + M.T) / 2)
        V = W @ Y
    order = np.argsort(evals)[::-1]
    return evals[order], V[:, order]


def mass_scaling(means: np.ndarray, priors: np.ndarray, covariance: np.ndarray, n_obs: float, *,
                 divisor: str = "n", rank_tol: float, tol: float = 1e-4) -> tuple[np.ndarray, np.ndarray]:
    """MASS's ``lda(...)$scaling`` and ``$svd`` (``method="moment"``; module docstring).

    Parameters
    ----------
    means, priors, rank_tol, tol
        As :func:`svd_axes`.
    covariance : ndarray of shape (d, d)
        The shared within-class covariance, with the divisor ``divisor``.
    n_obs : float
        :math:`n`, the number (total weight) of training rows.
    divisor : {'n', 'n-K'}
        ``covariance`` is :math:`S_W/n` (the maximum-likelihood scale) or :math:`S_W/(n-K)`.

    Returns
    -------
    scaling : ndarray of shape (d, n_kept)
        Directions with :math:`v^T\\Sigma_{n-K}v = 1`, signed as MASS's (and scikit-learn's).
    svd : ndarray of shape (n_kept,)
        :math:`\\sqrt{n\\lambda_j/(K-1)}`, :math:`\\lambda_j` against :math:`\\Sigma_{n-K}`.
    """
    K = means.shape[0]
    if divisor not in ("n", "n-K"):
        raise ValueError(f"divisor must be 'n' or 'n-K'; got {divisor!r}.")
    if not n_obs > K:
        raise ValueError(f"MASS's scaling divides by n - K; it needs more training rows (total weight "
                         f"{n_obs:g}) than classes ({K}).")
    within = covariance * (n_obs / (n_obs - K)) if divisor == "n" else covariance
    lam, V = svd_axes(means, priors, within, rank_tol=rank_tol, tol=tol)
    return V, np.sqrt(n_obs * lam[: V.shape[1]] / max(K - 1, 1))


def proportion_of_trace(svd: np.ndarray) -> np.ndarray:
    """MASS's proportion of trace, :math:`\\mathrm{svd}_j^2 / \\sum_i \\mathrm{svd}_i^2` (zeros when
    every one is zero)."""
    squares = np.asarray(svd, dtype=float) ** 2
    total = squares.sum()
    return squares / total if total > 0 else np.zeros_like(squares)
