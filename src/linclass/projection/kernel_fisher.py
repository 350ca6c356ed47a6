"""Kernel Fisher discriminant analysis (Mika et al. 1999; Baudat and Anouar 2000): centring, the three
solvers, Nystroem.

With the centring matrix :math:`H = I - \\tfrac1n 11^T`, class indicators :math:`E` (n x c) and
:math:`\\Pi`, Fisher's problem :math:`\\hat S_b\\hat A = \\hat S_t\\hat A\\Lambda` in the feature space,
with :math:`\\hat A = \\Phi^TH\\Psi`, becomes

.. math::  C E \\Pi^{-1} E^T C \\Psi = C C \\Psi \\Lambda, \\qquad C = HKH

(derived in docs/math/kernel_fisher.md#kernel-fisher-discriminant-in-dual-form).

Note on :math:`\\Pi`: with the class proportions, :math:`\\Pi = \\mathrm{diag}(\\pi_1..\\pi_c)`,
:math:`\\hat S_b = \\Phi^THE\\Pi^{-1}E^TH\\Phi = n\\sum_k n_k(\\bar\\phi_k - \\bar\\phi)(\\cdot)^T`, n times the
between-class scatter, so its eigenvalues are n times the ratio of between- to total variance.  We use
:math:`\\Pi = \\mathrm{diag}(n_1..n_c)`: the same directions, and eigenvalues in [0, 1] (the squared
canonical correlations in the feature space).

Exact solvers (all O(n^3) time; memory is checked before the fit starts, see :func:`exact_memory`):

``'ridge'``  :math:`(CC + \\sigma I_n)^{-1}CE\\Pi^{-1}E^TC\\Psi = \\Psi\\Lambda` (ridge).  With
             :math:`B = CE\\Pi^{-1/2}` and :math:`Z = (CC+\\sigma I)^{-1}B` (one Cholesky factorisation),
             :math:`\\Psi = ZV` where :math:`B^TZ = V\\Lambda V^T` (c x c).  :math:`\\sigma` is
             ``sigma`` times :math:`(\\mathrm{tr}\\,C)^2`, so the condition number of
             :math:`CC+\\sigma I` is at most :math:`1 + 1/\\text{sigma}` whatever the kernel's scale.
``'pinv'``   :math:`(CC)^\\dagger CE\\Pi^{-1}E^TC\\Psi = \\Psi\\Lambda` (pseudo-inverse).  Since
             :math:`(CC)^\\dagger C = C^\\dagger`, with :math:`C = U_rS_rU_r^T` (eigenvalues above
             ``tol`` times the largest) and :math:`A = U_r^TE\\Pi^{-1/2} = P\\,\\mathrm{diag}(g)Q^T`:
             :math:`\\Psi = U_rS_r^{-1}P\\,\\mathrm{diag}(g)`, :math:`\\Lambda = g^2`.
``'gsvd'``   the generalized SVD of the pair :math:`(\\Pi^{-1/2}E^TC,\\; C)` (Park and Park 2005), via the
             SVD of the stacked :math:`(c+n) \\times n` matrix (Howland and Park); never forms :math:`CC`.

A new point is projected by :math:`\\Psi^TH(k(X, x_0) - \\tfrac1nK1)` (the new point centred in the feature
space), i.e. :math:`z = \\alpha^Tk(X,x_0) - \\alpha^T\\bar k` with dual coefficients :math:`\\alpha = H\\Psi`
and :math:`\\bar k = K1/n`.

Nystroem: with landmarks :math:`L` (m rows) and :math:`W = k(L, L) = U S U^T`, the explicit features
:math:`\\phi(x) = k(x, L)U_rS_r^{-1/2}` satisfy :math:`\\phi(x)^T\\phi(y) \\approx k(x,y)`.  The same three
solvers then run on the r x r primal problem with :math:`G = H\\Phi`, :math:`S = G^TG`: by
:math:`(GSG^T+\\sigma I)^{-1}G = G(S^2+\\sigma I)^{-1}`, ridge is
:math:`S_ba = \\lambda(S + \\sigma S^{-1})a`, pinv is :math:`S_ba = \\lambda Sa`, gsvd is Howland-Park on
:math:`(\\Pi^{-1/2}E^TG, G)`; each equals the exact solver applied to the approximated kernel
:math:`\\Phi\\Phi^T`.  Time O(n m^2), memory O(m^2 + block).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

import numpy as np
import scipy.linalg as sla
from scipy.linalg import blas

from linclass.projection import fisher
from linclass.core.progress import progress
from linclass.projection.kernels import Kernel, row_blocks
from linclass.generative.class_stats import ClassStats

__all__ = [
    "KernelFisherModel",
    "auto_sigma",
    "available_memory",
    "exact_memory",
    "fit_exact",
    "fit_nystroem",
    "landmark_stats",
    "project",
    "solve_nystroem",
]

SOLVERS = ("ridge", "pinv", "gsvd")
SIGMA_FULL_RANK = 1e-6  # the 'auto' ridge when there are as many kernel parameters as rows
_MATRICES = {"ridge": 2, "pinv": 2, "gsvd": 5}  # n x n float64 arrays alive at the peak
_OVERFLOW = (
    "The kernel values overflowed (X holds values too large for this kernel's arithmetic); rescale "
    "the features (for example with sklearn.preprocessing.StandardScaler) or lower gamma / degree."
)
_ZERO = (
    "The centred kernel matrix is zero: every training point has the same feature vector under this "
    "kernel (constant X, or a gamma so large or small that k(x, y) is constant), so no direction "
    "separates the classes. Check X and the kernel parameters."
)


@dataclass(frozen=True, eq=False)
class KernelFisherModel:
    """A fitted kernel Fisher projection.

    Attributes
    ----------
    kernel : Kernel
    eigenvalues : ndarray of shape (q,), between- over total variance along each direction
    train : ndarray (n, d), the training X (exact) or the landmarks (Nystroem)
    coef : ndarray (n, q) dual coefficients :math:`\\alpha = H\\Psi` (exact), or (m, q)
        :math:`U_rS_r^{-1/2}A` mapping :math:`k(x, L)` to the projection (Nystroem)
    offset : ndarray (q,), subtracted after the product
    projected_stats : ClassStats of the training projections (kind 'tied')
    """

    kernel: Kernel
    eigenvalues: np.ndarray
    train: np.ndarray
    coef: np.ndarray
    offset: np.ndarray
    projected_stats: ClassStats


# ---------------------------------------------------------------------------------------------- memory
def available_memory() -> int:
    """Bytes of memory available to a new allocation (Linux ``MemAvailable``; else physical memory)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - exotic platforms
        return 2**63


def exact_memory(n: int, solver: str) -> int:
    """Peak bytes of an exact fit on n samples (the n x n float64 matrices alive at once)."""
    return _MATRICES[solver] * 8 * n * n


def _format_bytes(b: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if b < 1024 or unit == "TB":
            return f"{b:.1f} {unit}" if unit != "B" else f"{int(b)} B"
        b /= 1024
    return f"{b:.1f} TB"  # pragma: no cover


def check_memory(n: int, solver: str, who: str) -> None:
    """Refuse an exact fit whose n x n matrices would not fit in the available memory."""
    need, have = exact_memory(n, solver), available_memory()
    if need > 0.9 * have:
        raise MemoryError(
            f"{who}: an exact kernel Fisher fit on n = {n} samples with solver='{solver}' needs about "
            f"{_format_bytes(need)} ({_MATRICES[solver]} matrices of n x n float64), but only "
            f"{_format_bytes(have)} of memory is available. Use approximation='nystroem' (time "
            "O(n * n_landmarks^2), memory O(n_landmarks^2)), or fit on a subsample."
        )


# ---------------------------------------------------------------------------------------------- ridge
def auto_sigma(n_samples: int, n_parameters: int) -> float:
    """The default relative ridge of solver='ridge': :math:`10^{-6}\\,(r/n)^2`.

    ``n_parameters`` r is the number of kernel coefficients per direction: n for an exact fit, the
    number of landmarks for Nystroem.  The ridge shrinks the directions whose total variance is below
    :math:`\\sqrt{\\text{sigma}}\\,\\mathrm{tr}\\,C` (its relative effect
    :math:`\\text{sigma}(\\mathrm{tr}\\,C/s)^2` on an eigenvalue s does not depend on n), so a fixed
    sigma regularises a model with n / r samples per coefficient as much as one with a single sample
    per coefficient.  Scaling :math:`\\sqrt{\\text{sigma}}` with r / n keeps the shrinkage in step
    with the estimation noise.  Measured on three concentric shells in 10 dimensions (5% label noise;
    ``benchmarks/bench_kernel_fisher.py``): exact fits are best at sigma 1e-6 for n = 2,000 and
    5,000 (test accuracy 0.809 and 0.851; 1e-5 gives 0.802 and 0.838), Nystroem with 1,000
    landmarks at n = 50,000 and 100,000 from 1e-10 down (0.896 and 0.904; 1e-5 gives 0.868 and
    0.877).  With fewer landmarks the weakly regularised fit is less accurate: at n = 20,000 with 400
    landmarks 1e-6 is best (0.875) and 'auto' (4e-10) gives 0.860, below 1e-5 (0.866), so
    cross-validate sigma where the last percent matters.
    """
    ratio = min(1.0, n_parameters / max(n_samples, 1))
    return SIGMA_FULL_RANK * ratio * ratio


# ---------------------------------------------------------------------------------------------- exact
def centre_gram(K: np.ndarray) -> np.ndarray:
    """Turn K into :math:`C = HKH` in place; return the row means :math:`\\bar k = K1/n`."""
    row = K.mean(axis=1)
    grand = row.mean()
    K -= row[:, None]
    K -= row[None, :]
    K += grand
    return row


def _indicator(y: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """:math:`E\\Pi^{-1/2}` with :math:`\\Pi = \\mathrm{diag}(n_k)`, shape (n, c)."""
    E = np.zeros((y.size, counts.size))
    E[np.arange(y.size), y] = 1.0
    return E / np.sqrt(counts)


def _ridge(C, En, sigma):
    B = C @ En
    shift = sigma * float(np.trace(C)) ** 2
    CC = blas.dsyrk(1.0, C.T, lower=0)  # C^T C = C C (C symmetric), upper triangle, no copy of C
    CC[np.diag_indices_from(CC)] += shift
    try:
        factor = sla.cho_factor(CC, lower=False, overwrite_a=True, check_finite=False)
    except np.linalg.LinAlgError:
        raise ValueError(
            f"CC + sigma I is not numerically positive definite with sigma={sigma:g} (relative to "
            "tr(C)^2); use a larger sigma (1e-10 or more)."
        ) from None
    Z = sla.cho_solve(factor, B, check_finite=False)
    del CC, factor
    lam, V = np.linalg.eigh((B.T @ Z + Z.T @ B) / 2)
    order = np.argsort(lam)[::-1]
    Psi = Z @ V[:, order]
    return lam[order], Psi, C @ Psi


def _pinv(C, En, tol):
    s, U = sla.eigh(C, overwrite_a=True, check_finite=False, driver="evr")
    top = np.max(np.abs(s))
    keep = np.abs(s) > tol * top
    Ur, sr = U[:, keep], s[keep]
    P, g, _ = np.linalg.svd(Ur.T @ En, full_matrices=False)
    Psi = Ur @ (P * (g / sr[:, None]))
    return g**2, Psi, Ur @ (P * g)


def _gsvd(C, En, tol):
    c = En.shape[1]
    stacked = np.vstack([En.T @ C, C])
    P, sig, Qt = np.linalg.svd(stacked, full_matrices=False)
    del stacked
    t = int(np.sum(sig > tol * sig[0]))
    _, alpha, Wt = np.linalg.svd(P[:c, :t], full_matrices=False)
    Psi = (Qt[:t].T / sig[:t]) @ Wt.T
    alpha2 = np.minimum(alpha**2, 0.5)
    return alpha2 / (1.0 - alpha2), Psi, C @ Psi


def _n_kept(lam: np.ndarray, n_present: int, n_components: int | None) -> int:
    """Directions kept: at most c - 1 and ``n_components``, and only those with a non-trivial
    eigenvalue (at least one)."""
    nontrivial = int(np.sum(lam > 1e-10 * max(float(np.max(lam, initial=0.0)), 1e-300)))
    return min(n_present - 1, max(nontrivial, 1), n_components or lam.size)


def _finish(lam, scores_dir, y, classes, n_components):
    """Keep the non-trivial directions, scale to unit total variance on the training data, orient.

    Returns (eigenvalues, column scale, training projections)."""
    c = classes.size
    q = _n_kept(lam, c, n_components)
    Z = scores_dir[:, :q]
    scale = np.sqrt(np.mean(Z**2, axis=0))
    scale[scale == 0] = 1.0
    means = np.zeros((c, q))
    np.add.at(means, y, Z)
    means /= np.bincount(y, minlength=c)[:, None]
    scale = fisher.orientation(means, np.ones(c, dtype=bool)) / scale
    return np.maximum(lam[:q], 0.0), scale, Z * scale


def fit_exact(
    X: np.ndarray, y: np.ndarray, classes: np.ndarray, kernel: Kernel, *, solver: str, sigma: float,
    tol: float, n_components: int | None, gram: np.ndarray | None = None,
) -> KernelFisherModel:
    """Exact kernel FDA on n samples: Gram matrix (row blocks), :math:`C = HKH` in place, solver.

    ``gram``: the precomputed (n, n) kernel matrix (copied; the input is left untouched).
    """
    K = kernel.gram(X, desc="Gram matrix") if gram is None else np.array(gram, dtype=np.float64)
    if not np.all(np.isfinite(K)):
        raise ValueError(_OVERFLOW)
    row_means = centre_gram(K)
    if not np.any(K):
        raise ValueError(_ZERO)
    counts = np.bincount(y, minlength=classes.size).astype(float)
    En = _indicator(y, counts)
    if solver == "ridge":
        lam, Psi, Z = _ridge(K, En, sigma)
    elif solver == "pinv":
        lam, Psi, Z = _pinv(K, En, tol)
    else:
        lam, Psi, Z = _gsvd(K, En, tol)
    del K
    lam, scale, Z = _finish(lam, Z, y, classes, n_components)
    alpha = Psi[:, : lam.size] * scale
    alpha -= alpha.mean(axis=0)  # alpha = H Psi
    zstats = ClassStats.from_batch(Z, y, classes, kind="tied")
    return KernelFisherModel(
        kernel=kernel, eigenvalues=lam, train=X, coef=alpha, offset=row_means @ alpha,
        projected_stats=zstats,
    )


# ---------------------------------------------------------------------------------------------- Nystroem
def nystroem_map(kernel: Kernel, landmarks: np.ndarray, tol: float) -> np.ndarray:
    """:math:`U_rS_r^{-1/2}` from :math:`k(L, L) = USU^T` (eigenvalues above ``tol`` times the largest;
    negative ones, from indefinite kernels such as the sigmoid, are dropped)."""
    W = kernel.gram(landmarks)
    s, U = np.linalg.eigh((W + W.T) / 2)
    keep = s > tol * max(float(s[-1]), 0.0)
    return U[:, keep] / np.sqrt(s[keep])


def _primal_directions(stats: ClassStats, solver: str, sigma: float, tol: float):
    """Directions :math:`a` in the explicit feature space (columns), with between- over total
    variance ratios, from the class statistics of the features (see the module docstring)."""
    present = stats.counts > 0
    mbar = stats.grand_mean()
    Hb = np.sqrt(stats.counts[present])[:, None] * (stats.means[present] - mbar)  # Pi^-1/2 E^T G
    St = stats.pooled_scatter() + Hb.T @ Hb  # S = G^T G
    s, V = np.linalg.eigh(St)
    keep = s > tol * max(float(s[-1]), 0.0)
    if not np.any(keep) or float(s[-1]) <= 0:
        raise ValueError(_ZERO)
    s, V = s[keep], V[:, keep]
    if solver == "gsvd":
        # Howland-Park on the pair (Pi^-1/2 E^T G, G), restricted to the range of S = G^T G (where
        # G's factor is diag(sqrt(s)) V^T): alpha^2 / beta^2 = a'S_b a / a'S a
        lam, Y = fisher._solve_gsvd(Hb @ V, np.diag(s), tol)
        return np.minimum(np.where(np.isfinite(lam), lam, 1.0), 1.0), V @ Y
    D = s + sigma * float(np.sum(s)) ** 2 / s if solver == "ridge" else s
    W = V / np.sqrt(D)
    _, g, Yt = np.linalg.svd(Hb @ W, full_matrices=False)
    return g**2, W @ Yt.T


def fit_nystroem(
    X: np.ndarray, y: np.ndarray, classes: np.ndarray, kernel: Kernel, landmark_idx: np.ndarray, *,
    solver: str, sigma: float, tol: float, n_components: int | None,
) -> KernelFisherModel:
    """Nystroem kernel FDA: one pass over X in row blocks, mapping each block to its explicit features
    and merging their class statistics; then the primal problem (r x r)."""
    landmarks = X[landmark_idx]
    stats = landmark_stats(X, y, classes, kernel, landmarks)
    return solve_nystroem(stats, kernel, landmarks, solver=solver, sigma=sigma, tol=tol,
                          n_components=n_components)


def landmark_stats(X: np.ndarray, y: np.ndarray, classes: np.ndarray, kernel: Kernel,
                   landmarks: np.ndarray) -> ClassStats:
    """Class statistics (kind 'tied') of the kernel values :math:`k(x, L)` of the rows of X, computed
    in row blocks of bounded memory.  They merge: a chunked fit maps each chunk to them and reduces
    with ``ClassStats.merge`` (:mod:`linclass.projection.kernel_fisher_chunks`)."""
    stats = None
    blocks = list(row_blocks(X.shape[0], landmarks.shape[0], budget=128 * 2**20))
    for start, stop in progress(blocks, desc="Nystroem features", enabled=X.shape[0] > 50_000):
        part = ClassStats.from_batch(kernel(X[start:stop], landmarks), y[start:stop], classes, kind="tied")
        stats = part if stats is None else stats.merge(part)
    return stats


def solve_nystroem(
    stats: ClassStats, kernel: Kernel, landmarks: np.ndarray, *, solver: str, sigma: float, tol: float,
    n_components: int | None,
) -> KernelFisherModel:
    """The Nystroem fit from the merged :func:`landmark_stats` of every training row: the map
    :math:`U_rS_r^{-1/2}`, the feature statistics, the primal problem (r x r), scaling and orientation."""
    T = nystroem_map(kernel, landmarks, tol)
    if not all(np.all(np.isfinite(a)) for a in stats.arrays()):
        raise ValueError(_OVERFLOW)
    # statistics of k(x, L) -> statistics of the features k(x, L) T (a linear map: means T, T^T S T)
    stats = replace(stats, means=stats.means @ T, scatter=T.T @ stats.scatter @ T)
    lam, A = _primal_directions(stats, solver, sigma, tol)
    mbar = stats.grand_mean()
    # the projected class statistics follow from the feature statistics: no second pass over X
    proj = replace(stats, means=(stats.means - mbar) @ A, scatter=A.T @ stats.pooled_scatter() @ A)
    present = proj.counts > 0
    q = _n_kept(lam, int(present.sum()), n_components)
    lam, A = lam[:q], A[:, :q]
    total_var = (np.diag(proj.scatter)[:q] + proj.counts @ proj.means[:, :q] ** 2) / proj.total
    scale = 1.0 / np.sqrt(np.where(total_var > 0, total_var, 1.0))
    scale = scale * fisher.orientation(proj.means[:, :q], present)
    A = A * scale
    proj = replace(proj, means=proj.means[:, :q] * scale, scatter=proj.scatter[:q, :q] * np.outer(scale, scale))
    coef = T @ A
    return KernelFisherModel(
        kernel=kernel, eigenvalues=np.maximum(lam, 0.0), train=landmarks, coef=coef,
        offset=mbar @ A, projected_stats=proj,
    )


# ---------------------------------------------------------------------------------------------- projection
def project(model: KernelFisherModel, X: np.ndarray, *, precomputed: bool = False) -> np.ndarray:
    """:math:`z = \\alpha^Tk(X_{train}, x) - \\text{offset}` for each row of X, in row blocks."""
    q = model.coef.shape[1]
    out = np.empty((X.shape[0], q))
    if precomputed:
        np.matmul(X, model.coef, out=out)
    else:
        buf = None
        for start, stop in row_blocks(X.shape[0], model.train.shape[0]):
            buf = np.empty((stop - start, model.train.shape[0])) if buf is None or buf.shape[0] != stop - start else buf
            model.kernel(X[start:stop], model.train, out=buf)
            np.matmul(buf, model.coef, out=out[start:stop])
    out -= model.offset
    return out
