"""Fisher's linear discriminant from class statistics: directions, eigenvalues, and the classifier in
the projected space.

Fisher's criterion :math:`J(w) = \\frac{w^T S_B w}{w^T S_W w}` (Bishop 2006 sec. 4.1.4, eq. 4.26) is
maximised by the generalized symmetric eigenproblem :math:`S_B v = \\lambda S_W v` (sec. 4.1.6); for
two classes the single direction is :math:`w \\propto S_W^{-1}(m_2 - m_1)` (eq. 4.30).  With K classes at
most K-1 eigenvalues are non-zero (:math:`S_B` has rank K-1).  The same problem can be written with the
total scatter, :math:`S_b A = S_t A \\Lambda`; since :math:`S_t = S_b + S_W` the directions are the same
and its eigenvalues are :math:`\\lambda / (1 + \\lambda)`, the squared canonical correlations
(docs/math/fisher.md#fisher-directions-with-the-total-scatter).

Here :math:`S_W` is the pooled within-class covariance (scatter / n, the MLE) and
:math:`S_B = \\sum_k (n_k/n)(m_k - \\bar m)(m_k - \\bar m)^T`, both computed from
:class:`~linclass.generative.class_stats.ClassStats`: no pass over X.  Three solvers:

``'eigen'``  Cholesky of :math:`S_W` and a symmetric eigenproblem (two classes: the closed form of
             eq. 4.30).  Needs :math:`S_W` positive definite.
``'svd'``    whitening on the range of :math:`S_W` (eigenvalues above ``tol`` times the largest), then
             the SVD of the whitened, weighted class means: never forms :math:`S_B`.  Directions in the
             null space of :math:`S_W` are lost.
``'gsvd'``   Howland, Jeon and Park's LDA/GSVD: the generalized SVD of the pair
             :math:`(H_b, H_w)` with :math:`H_b^TH_b = S_B`, :math:`H_w^TH_w = S_W`, through the SVD of
             the stacked matrix :math:`[H_b; H_w]`.  Handles singular :math:`S_W` and d > n without a
             ridge; a direction in the null space of :math:`S_W` that separates the classes gets
             :math:`\\lambda = \\infty` and comes first.

Directions are normalised to :math:`v^T S_W v = 1` (where :math:`v^T S_W v = 0`, to
:math:`v^T (S_B + S_W) v = 1`), so the projected classes have unit pooled within-class variance.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
from scipy import stats as sps

from linclass.exceptions import SingularCovarianceWarning
from linclass.generative.priors import class_log_priors
from linclass.generative.class_stats import ClassStats
from linclass.generative.precision import constant_features, feature_scale

__all__ = [
    "FisherModel",
    "WilksTest",
    "between_class_covariance",
    "estimate",
    "explained_variance_ratio",
    "scores",
    "solve",
    "wilks_test",
]

SOLVERS = ("eigen", "svd", "gsvd")
THRESHOLDS = ("gaussian", "midpoint")


def between_class_covariance(stats: ClassStats, priors: np.ndarray) -> np.ndarray:
    """:math:`S_B = \\sum_k \\pi_k (\\mu_k - \\bar\\mu)(\\mu_k - \\bar\\mu)^T` with
    :math:`\\bar\\mu = \\sum_k \\pi_k \\mu_k`, shape (d, d)."""
    centred = stats.means - priors @ stats.means
    return (centred.T * priors) @ centred


def orientation(projected_means: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Signs (one per direction) that make a projection deterministic: with two classes, the second
    projects above the first (:math:`w \\propto S_W^{-1}(m_2 - m_1)`, eq. 4.30); with more, the class
    mean farthest from the centre projects on the positive side.  Classes not ``present`` are ignored."""
    M = projected_means
    if present.sum() == 2:
        first, second = np.flatnonzero(present)
        signs = np.sign(M[second] - M[first])
    else:
        far = np.argmax(np.where(present[:, None], np.abs(M), -1.0), axis=0)
        signs = np.sign(M[far, np.arange(M.shape[1])])
    signs[signs == 0] = 1.0
    return signs


def _range_whitener(within: np.ndarray, tol: float, rescale: bool = True) -> np.ndarray:
    """:math:`W = D^{-1}U_r\\Lambda_r^{-1/2}` with :math:`D^{-1}S_WD^{-1} = U\\Lambda U^T` (correlation
    form, :math:`D = \\mathrm{diag}(S_W)^{1/2}`, or :math:`D = I` when ``rescale`` is False because the
    caller has standardized already), eigenvalues above ``tol`` times the largest; so that
    :math:`W^TS_WW = I` on the range of :math:`S_W`."""
    scale = np.sqrt(np.maximum(np.diag(within), 0.0)) if rescale else np.ones(within.shape[0])
    scale = np.where(scale > 0, scale, 1.0)
    evals, U = np.linalg.eigh(within / scale[:, None] / scale[None, :])
    keep = evals > tol * max(float(evals[-1]), 0.0)
    return U[:, keep] / np.sqrt(evals[keep]) / scale[:, None]


# ---------------------------------------------------------------------------------------------- solvers
def _between_factor(stats: ClassStats) -> np.ndarray:
    """:math:`H_b` of shape (K, d), rows :math:`\\sqrt{n_k/n}\\,(m_k - \\bar m)`: :math:`H_b^TH_b = S_B`."""
    w = stats.counts / stats.total
    return np.sqrt(w)[:, None] * (stats.means - w @ stats.means)


def _solve_eigen(Hb: np.ndarray, Sw: np.ndarray, tol: float):
    """Cholesky :math:`S_W = LL^T`, then :math:`L^{-1}S_BL^{-T}y = \\lambda y`, :math:`v = L^{-T}y`.
    Two classes: :math:`v \\propto S_W^{-1}(m_2 - m_1)` directly (eq. 4.30)."""
    evals = np.linalg.eigvalsh(Sw)  # Sw is standardized by the total variance (see solve)
    if not evals[0] > tol * evals[-1]:
        warnings.warn(
            "The within-class covariance S_W is singular (constant or collinear features, or fewer "
            "samples than features), so solver='eigen' cannot invert it; solved on its range instead "
            "(solver='svd'). solver='gsvd' also uses the directions in its null space.",
            SingularCovarianceWarning,
            stacklevel=5,
        )
        return _solve_svd(Hb, Sw, tol, warn=False)
    L = sla.cholesky(Sw, lower=True)
    if Hb.shape[0] == 2:
        # rows of H_b are sqrt(n_k/n)(m_k - mbar); for two classes both are multiples of m_2 - m_1 and
        # H_b[1] - H_b[0] is a positive one
        v = sla.cho_solve((L, True), Hb[1] - Hb[0])
        v /= np.sqrt(v @ Sw @ v)
        lam = float(np.sum((Hb @ v) ** 2))
        return np.array([lam]), v[:, None]
    A = sla.solve_triangular(L, Hb.T, lower=True)  # L^{-1} H_b^T, shape (d, K)
    U, s, _ = np.linalg.svd(A, full_matrices=False)
    V = sla.solve_triangular(L, U, lower=True, trans="T")
    return s**2, V


def _solve_svd(Hb: np.ndarray, Sw: np.ndarray, tol: float, warn: bool = True):
    """Whitening on the range of :math:`S_W`, then the SVD of :math:`H_bW`: right singular vectors
    :math:`y`, :math:`v = Wy`, :math:`\\lambda = s^2`."""
    W = _range_whitener(Sw, tol, rescale=False)
    if warn and W.shape[1] < Sw.shape[0]:
        warnings.warn(
            f"The within-class covariance S_W is singular (rank {W.shape[1]} of {Sw.shape[0]}): "
            "solver='svd' finds the directions on its range only. solver='gsvd' also uses its null "
            "space, where the classes may separate perfectly.",
            SingularCovarianceWarning,
            stacklevel=5,
        )
    _, s, Yt = np.linalg.svd(Hb @ W, full_matrices=False)
    return s**2, W @ Yt.T


def _solve_gsvd(Hb: np.ndarray, Sw: np.ndarray, tol: float):
    """Howland-Jeon-Park LDA/GSVD (SIAM J. Matrix Anal. Appl. 25, 2003, Algorithm 2).

    :math:`H_w` (r x d) with :math:`H_w^TH_w = S_W` comes from the eigendecomposition of :math:`S_W`.
    With the thin SVD :math:`[H_b; H_w] = P\\Sigma Q^T` (rank t) and the SVD of the top block
    :math:`P_{1:K,1:t} = U\\,\\mathrm{diag}(\\alpha)W^T`, the generalized singular vectors are
    :math:`X = Q\\Sigma^{-1}W`, with :math:`X^TS_BX = \\mathrm{diag}(\\alpha^2)`,
    :math:`X^TS_WX = \\mathrm{diag}(\\beta^2)`, :math:`\\alpha^2 + \\beta^2 = 1`, so
    :math:`\\lambda = \\alpha^2/\\beta^2` (infinite where :math:`\\beta = 0`).
    """
    evals, U = np.linalg.eigh(Sw)
    keep = evals > tol * max(float(evals[-1]), 0.0)
    Hw = (U[:, keep] * np.sqrt(evals[keep])).T
    P, sig, Qt = np.linalg.svd(np.vstack([Hb, Hw]), full_matrices=False)
    t = int(np.sum(sig > max(Hb.shape[0] + Hw.shape[0], Hb.shape[1]) * np.finfo(float).eps * sig[0]))
    Ua, alpha, Wt = np.linalg.svd(P[: Hb.shape[0], :t], full_matrices=False)
    alpha = np.minimum(alpha, 1.0)
    X = (Qt[:t].T / sig[:t]) @ Wt.T
    beta2 = np.maximum(1.0 - alpha**2, 0.0)
    finite = beta2 > 1e3 * np.finfo(float).eps
    lam = np.where(finite, alpha**2 / np.where(finite, beta2, 1.0), np.inf)
    X[:, finite] /= np.sqrt(beta2[finite])  # v^T S_W v = 1; infinite ones keep v^T S_T v = 1
    return lam, X


def solve(stats: ClassStats, solver: str = "svd", tol: float = 1e-10) -> tuple[np.ndarray, np.ndarray]:
    """Fisher directions of the data summarised by ``stats``.

    Returns
    -------
    eigenvalues : ndarray of shape (r,), descending, :math:`\\lambda` of :math:`S_Bv = \\lambda S_Wv`
        (``inf`` for 'gsvd' directions in the null space of :math:`S_W`); only the
        :math:`\\min(K-1, \\cdot)` non-zero ones are returned
    directions : ndarray of shape (d, r), :math:`v^TS_Wv = 1` (see the module docstring)
    """
    if solver not in SOLVERS:
        raise ValueError(f"solver must be one of {SOLVERS}; got {solver!r}.")
    Sw = stats.pooled_scatter() / stats.total
    Hb = _between_factor(stats)  # classes without weight give zero rows
    Hb = Hb[stats.counts > 0]
    # Solve in standardized units (each feature divided by its total standard deviation): every
    # solver's rank decisions are then independent of feature units, and a feature that is constant
    # within the classes but not between them keeps its near-zero within-class variance.  A feature
    # whose total variance is at rounding level (numerically constant) is removed.
    constant = constant_features(stats)
    scale = feature_scale(stats)
    Sw = Sw / scale[:, None] / scale[None, :]
    Hb = Hb / scale
    Sw[constant, :] = 0.0
    Sw[:, constant] = 0.0
    Hb[:, constant] = 0.0
    lam, V = {"eigen": _solve_eigen, "svd": _solve_svd, "gsvd": _solve_gsvd}[solver](Hb, Sw, tol)
    V = V / scale[:, None]
    top = lam[np.isfinite(lam)].max(initial=0.0) if np.any(np.isfinite(lam)) else 1.0
    keep = (lam > 1e-12 * max(top, 1e-300)) | np.isinf(lam)
    keep[min(Hb.shape[0] - 1, lam.size):] = False
    if not np.any(keep) and Hb.shape[0] >= 2:  # (one class so far, in partial_fit: no direction yet)
        raise ValueError(
            "The class means coincide (the between-class scatter S_B is zero, e.g. constant features), "
            "so Fisher's criterion has no discriminant direction."
        )
    return lam[keep], V[:, keep]


# ---------------------------------------------------------------------------------------------- model
@dataclass(frozen=True, eq=False)
class FisherModel:
    """A fitted Fisher discriminant.

    Attributes
    ----------
    eigenvalues : ndarray of shape (r,)
    directions : ndarray of shape (d, r), all directions found (``transform`` keeps the first
        ``n_components``)
    n_components : int
    center : ndarray of shape (d,), the weighted training mean :math:`\\bar x`
    projected_means : ndarray of shape (K, n_components), :math:`(m_k - \\bar x)^T V`
    log_priors : ndarray of shape (K,), :math:`\\ln p(C_k)` (``-inf`` for classes never seen)
    threshold : {'gaussian', 'midpoint'}
    coef, intercept : ndarray of shape (K, d) and (K,): the class scores as linear functions of x
    """

    eigenvalues: np.ndarray
    directions: np.ndarray
    n_components: int
    center: np.ndarray
    projected_means: np.ndarray
    log_priors: np.ndarray
    threshold: str
    coef: np.ndarray
    intercept: np.ndarray


def estimate(
    stats: ClassStats,
    *,
    priors: np.ndarray | None = None,
    solver: str = "svd",
    n_components: int | None = None,
    threshold: str = "gaussian",
    tol: float = 1e-10,
) -> FisherModel:
    """Fisher's directions and the classifier on the projection.

    Classification (Bishop 2006 sec. 4.1.4 leaves the threshold open and names two choices):

    ``'gaussian'``  Gaussian class densities on the projection with the pooled within-class
                    covariance and the priors.  The directions make that covariance the identity, so
                    the class score is :math:`-\\tfrac12\\lVert z - \\bar z_k\\rVert^2 + \\ln p(C_k)`;
                    with all K-1 components and non-singular :math:`S_W` this is exactly LDA's rule.
    ``'midpoint'``  the nearest projected class mean, :math:`-\\tfrac12\\lVert z - \\bar z_k\\rVert^2`
                    (for two classes: the midpoint of the projected means is the threshold).

    ``predict_proba`` is the softmax of these scores (the Gaussian posterior; with 'midpoint', under
    equal priors).
    """
    if threshold not in THRESHOLDS:
        raise ValueError(f"threshold must be one of {THRESHOLDS}; got {threshold!r}.")
    lam, V = solve(stats, solver, tol)
    center = stats.grand_mean()
    M = (stats.means - center) @ V
    signs = orientation(M, stats.counts > 0)
    V, M = V * signs, M * signs
    q = V.shape[1] if n_components is None else min(n_components, V.shape[1])
    log_priors = class_log_priors(stats, priors)
    if threshold == "midpoint":  # equal priors over the classes that can be predicted
        usable = np.isfinite(log_priors)
        log_priors = np.where(usable, -np.log(usable.sum()), -np.inf)
    Mq = M[:, :q]
    # -1/2 ||z - zbar_k||^2 = zbar_k^T z - 1/2 ||zbar_k||^2 - 1/2 ||z||^2 (the last term is common)
    coef = Mq @ V[:, :q].T
    intercept = -coef @ center - 0.5 * np.sum(Mq**2, axis=1) + log_priors
    return FisherModel(
        eigenvalues=lam, directions=V, n_components=q, center=center, projected_means=Mq,
        log_priors=log_priors, threshold=threshold, coef=coef, intercept=intercept,
    )


def project(model: FisherModel, X: np.ndarray) -> np.ndarray:
    """:math:`z = V_q^T(x - \\bar x)`, shape (n_samples, n_components)."""
    return (X - model.center) @ model.directions[:, : model.n_components]


def scores(model: FisherModel, X: np.ndarray) -> np.ndarray:
    """Class scores :math:`\\bar z_k^Tz - \\tfrac12\\lVert\\bar z_k\\rVert^2 + \\ln p(C_k)` (the
    Gaussian log density on the projection up to a term shared by all classes), computed on the
    centred projection so that data far from the origin do not cancel."""
    Z = project(model, X)
    M = model.projected_means
    return Z @ M.T - 0.5 * np.sum(M**2, axis=1) + model.log_priors


# ---------------------------------------------------------------------------------------------- tests
@dataclass(frozen=True)
class WilksTest:
    """Wilks' :math:`\\Lambda = \\prod_i (1 + \\lambda_i)^{-1} = |S_W| / |S_T|` and Bartlett's
    :math:`\\chi^2 = -(n - 1 - (d + K)/2)\\ln\\Lambda` on :math:`d(K-1)` degrees of freedom, for the
    null hypothesis that all class means are equal."""

    wilks_lambda: float
    statistic: float
    df: int
    pvalue: float


def explained_variance_ratio(eigenvalues: np.ndarray, n_components: int | None = None) -> np.ndarray:
    """Each kept direction's share of the discriminant's total, :math:`\\lambda_i / \\sum_j \\lambda_j`.

    The one rule of every Fisher projection (LDA's ``transform``, Fisher's discriminant, kernel
    Fisher).  The sum runs over all ``eigenvalues``; the first ``n_components`` shares (None: all) are
    returned.  Infinite eigenvalues (directions in the null space of :math:`S_W` that separate the
    classes, from 'gsvd') share the ratio equally and the finite ones get 0; a zero total gives
    zeros.

    Parameters
    ----------
    eigenvalues : ndarray of shape (n_directions,), by decreasing value
    n_components : int or None

    Returns
    -------
    ndarray of shape (n_components,)
    """
    lam = np.asarray(eigenvalues, dtype=float)
    kept = lam[:n_components]
    infinite = np.isinf(lam)
    if np.any(infinite):
        return np.isinf(kept) / np.sum(infinite)
    total = lam.sum()
    return kept / total if total > 0 else np.zeros_like(kept)


def canonical_correlations(eigenvalues: np.ndarray) -> np.ndarray:
    """:math:`r_i = \\sqrt{\\lambda_i / (1 + \\lambda_i)}` (1 for infinite :math:`\\lambda_i`)."""
    lam = np.asarray(eigenvalues, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(lam), 1.0, np.sqrt(lam / (1.0 + np.where(np.isinf(lam), 0.0, lam))))


def wilks_lambda(eigenvalues: np.ndarray) -> float:
    lam = np.asarray(eigenvalues, dtype=float)
    if np.any(np.isinf(lam)):
        return 0.0
    return float(np.exp(-np.sum(np.log1p(lam))))


def wilks_test(eigenvalues: np.ndarray, n: float, n_features: int, n_classes: int) -> WilksTest:
    """Bartlett's chi-square approximation to Wilks' lambda; needs :math:`n - 1 - (d+K)/2 > 0`."""
    factor = n - 1.0 - (n_features + n_classes) / 2.0
    if factor <= 0:
        raise ValueError(
            f"Bartlett's approximation to Wilks' lambda needs n - 1 - (n_features + n_classes)/2 > 0; "
            f"here n = {n:g}, n_features = {n_features}, n_classes = {n_classes}."
        )
    lam = wilks_lambda(eigenvalues)
    df = n_features * (n_classes - 1)
    stat = np.inf if lam == 0.0 else -factor * np.log(lam)
    return WilksTest(wilks_lambda=lam, statistic=float(stat), df=df, pvalue=float(sps.chi2.sf(stat, df)))
