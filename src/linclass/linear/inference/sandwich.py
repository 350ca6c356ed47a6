"""Heteroscedasticity- and cluster-robust (sandwich) covariances of an unpenalised logistic /
softmax fit, in the parameters the summary reports (statsmodels' ``Logit`` / ``MNLogit`` ones).

The reported parameters :math:`\\beta` are, per equation :math:`k = 1..m` (:math:`m = 1` for two
classes, :math:`K-1` contrasts against the first class for :math:`K`), the intercept and the
coefficients: with :math:`\\tilde x = (1, x)` and :math:`\\eta_{ik} = \\beta_k^T\\tilde x_i`
(:math:`\\eta_{i0} = 0`), :math:`\\mu_{ik} = e^{\\eta_{ik}}/\\sum_l e^{\\eta_{il}}`.  The score of
row :math:`i` and the information are

.. math::

    s_i = (e_{y_i} - \\mu_i)_{1..m} \\otimes \\tilde x_i, \\qquad
    H = \\sum_i w_i\\,\\big(\\mathrm{diag}(\\mu_i) - \\mu_i\\mu_i^T\\big)_{1..m} \\otimes
        \\tilde x_i\\tilde x_i^T,

and the sandwich (Huber 1967; White 1980; statsmodels' ``cov_type`` of
``statsmodels.stats.sandwich_covariance``) is

.. math::

    V = H^{-1} M H^{-1}, \\qquad
    M_{HC} = \\sum_i w_i\\,s_is_i^T, \\qquad
    M_{cl} = \\sum_g \\Big(\\sum_{i\\in g} w_is_i\\Big)\\Big(\\sum_{i\\in g} w_is_i\\Big)^T,

========== ================================================ =====================================
cov_type   covariance                                       small-sample factor
========== ================================================ =====================================
nonrobust  :math:`H^{-1}` (the summary's default)           none
HC0        :math:`H^{-1}M_{HC}H^{-1}`                       none
HC1        :math:`H^{-1}M_{HC}H^{-1}`                       :math:`N/(N-k)` (MacKinnon and White
                                                            1985; R's ``vcovHC(type = "HC1")``)
HC2        :math:`H^{-1}M_{HC2}H^{-1}`                      none (MacKinnon and White 1985;
                                                            R's ``vcovHC(type = "HC2")``)
HC3        :math:`H^{-1}M_{HC3}H^{-1}`                      none (R's ``vcovHC(type = "HC3")``)
cluster    :math:`H^{-1}M_{cl}H^{-1}`                       ``cluster_correction``, below
========== ================================================ =====================================

with :math:`N = \\sum_i w_i`, :math:`k` the number of reported parameters and :math:`G` the number
of clusters.  The weights are frequency weights: a row of weight 2 counts as two identical rows (in
one cluster), which is why :math:`M_{HC}` has :math:`w_i` and not :math:`w_i^2`.  statsmodels 0.15's
discrete models (``Logit``, ``MNLogit``) return HC0 under the name 'HC1' (their ``cov_type='HC1'``
falls back to ``cov_white_simple(use_correction=False)``); here HC1 carries its factor
:math:`N/(N-k)`, as for statsmodels' linear models, Stata's ``regress,
vce(robust)`` and R's ``vcovHC``.

The cluster covariance's factor (:data:`CLUSTER_CORRECTIONS`):

=========== ============================================ ===========================================
correction  factor                                       whose
=========== ============================================ ===========================================
stata       :math:`G/(G-1)` (the default)                Stata's ``logit, vce(cluster g)`` (the
                                                         factor of its ML models, ``[P] _robust``);
                                                         R's ``sandwich::vcovCL(m, cluster = g)``
                                                         on a glm (type "HC0", ``cadjust = TRUE``)
statsmodels :math:`\\frac{G}{G-1}\\frac{N-1}{N-k}`          statsmodels' ``cov_type='cluster'``
                                                         (``use_correction=True``), Stata's
                                                         ``regress``; R's ``vcovCL(..., type =
                                                         "HC1")``
none        1                                            statsmodels' ``use_correction=False``;
                                                         R's ``vcovCL(..., type = "HC0", cadjust =
                                                         FALSE)``
=========== ============================================ ===========================================

Stata's ``vce(robust)`` of an ML model is HC0 times :math:`N/(N-1)`: the cluster covariance with
every row its own cluster and the default factor (``groups=np.arange(n)``; R's ``vcovCL(m, type =
"HC0")`` without a cluster).

HC2 and HC3 (two classes) scale each row's squared score by its leverage :math:`h_i`, the
diagonal of the hat matrix :math:`W^{1/2}\\tilde X H^{-1}\\tilde X^TW^{1/2}` of the last IRLS step
(:math:`W_i = \\mu_i(1-\\mu_i)`, times :math:`w_i` for variance weights):
:math:`M_{HC2} = \\sum_i w_is_is_i^T/(1-h_i)`, :math:`M_{HC3} = \\sum_i w_is_is_i^T/(1-h_i)^2`,
as R's ``sandwich::vcovHC`` computes them for a glm (Zeileis 2004, "Econometric computing with
HC and HAC covariance matrix estimators", *Journal of Statistical Software* 11(10)).  A row of
frequency weight :math:`w_i` is :math:`w_i` identical rows, each of leverage
:math:`W_i\\tilde x_i^TH^{-1}\\tilde x_i` (so :math:`h_i` counts one copy); with variance weights
:math:`h_i` is R's ``hatvalues`` and the meat has :math:`w_i^2`.  The leverages need :math:`H`
first: a second pass over rows in memory (a chunk source is refused).

Multi-way clustering (``groups`` of shape (n, p), p >= 2; Cameron, Gelbach and Miller 2011,
"Robust inference with multiway clustering", *Journal of Business & Economic Statistics* 29,
238-249) sums the cluster meats of every non-empty set S of the p dimensions, the rows of a
set's cluster sharing every label of S, with sign :math:`(-1)^{|S|+1}`: for two,
:math:`M = M_1 + M_2 - M_{12}`.  Each term carries its own factor :math:`G_S/(G_S-1)` (and the
whole 'statsmodels' factor :math:`(N-1)/(N-k)`): R's ``sandwich::vcovCL(m, cluster = ~ g1 +
g2)`` with its defaults (``cadjust = TRUE``, ``multi0 = FALSE``; ``type = "HC1"``: the
'statsmodels' correction, which is also statsmodels' ``cov_type='cluster'`` with two columns of
groups; ``cadjust = FALSE``: 'none').  The sum need not be positive semi-definite (R does not fix
it by default, nor is it fixed here).

Everything is one pass of sums over rows (:class:`ScoreSums`, in row blocks by BLAS products: the
scores of a block as one (rows, k) matrix, the cluster sums as a product with a sparse indicator),
so a chunked source (a Dask collection, a file read in blocks: :mod:`linclass.core.chunks`) merges
the sums of its chunks (:mod:`linclass.linear.inference.sandwich_chunks`).
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from linclass.linear.solvers import SymmetricSolver

__all__ = ["CLUSTER_CORRECTIONS", "COV_TYPES", "DESCRIPTIONS", "LEVERAGE_POWERS", "ClusterWay",
           "ScoreSums",
           "check_cluster_correction", "check_cov_type", "describe", "reported_probabilities",
           "robust_covariance", "score_sums", "validate_groups"]

COV_TYPES = ("nonrobust", "HC0", "HC1", "HC2", "HC3", "cluster")

#: The power of :math:`1/(1-h_i)` in the meat of the leverage-adjusted covariances.
LEVERAGE_POWERS = {"HC2": 1, "HC3": 2}

#: The small-sample factors of the cluster covariance: the name, the factor as the header prints it
#: and whose convention it is (the module docstring).
CLUSTER_CORRECTIONS = {
    "stata": ("G/(G-1)", "Stata's logit, vce(cluster) and R's sandwich::vcovCL on a glm"),
    "statsmodels": ("G/(G-1)(N-1)/(N-k)", "statsmodels' default and R's vcovCL(type = 'HC1')"),
    "none": ("none", "no small-sample factor"),
}

#: What the summary's note says of each covariance (statsmodels' wording).
DESCRIPTIONS = {
    "HC0": "Standard Errors are heteroscedasticity robust (HC0)",
    "HC1": "Standard Errors are heteroscedasticity robust (HC1: HC0 times N/(N-k))",
    "HC2": "Standard Errors are heteroscedasticity robust (HC2: squared scores over 1 - leverage)",
    "HC3": "Standard Errors are heteroscedasticity robust (HC3: squared scores over "
           "(1 - leverage)^2)",
    "cluster": "Standard Errors are robust to cluster correlation",
}

_BLOCK_ENTRIES = 1 << 21  # entries of a block's (rows, k) score matrix (16 MiB)
_DRIFT = 0.05  # a Newton step of more standard errors than this: not the data of the fit


def check_cov_type(cov_type: str, groups) -> str:
    """``cov_type`` as spelled in :data:`COV_TYPES` (case-insensitive), with ``groups`` given
    exactly for 'cluster'.

    Raises
    ------
    ValueError
        For another value, for 'cluster' without groups, and for groups without 'cluster'.
    """
    names = {c.lower(): c for c in COV_TYPES}
    if not isinstance(cov_type, str) or cov_type.lower() not in names:
        raise ValueError(f"cov_type must be one of {', '.join(map(repr, COV_TYPES))}; got "
                         f"{cov_type!r}.")
    cov_type = names[cov_type.lower()]
    if cov_type == "cluster" and groups is None:
        raise ValueError("cov_type='cluster' needs groups=: one cluster label per row of X (the "
                         "rows of a cluster may be correlated; different clusters are independent).")
    if cov_type != "cluster" and groups is not None:
        raise ValueError(f"groups= is used by cov_type='cluster' only; got cov_type={cov_type!r}.")
    return cov_type


def check_cluster_correction(cluster_correction, cov_type: str) -> str | None:
    """The cluster covariance's small-sample factor, by its name in :data:`CLUSTER_CORRECTIONS`
    (None: 'stata', the default), for ``cov_type='cluster'``; None for the other covariances.

    Raises
    ------
    ValueError
        For another name, and for a correction given with another ``cov_type``.
    """
    if cov_type != "cluster":
        if cluster_correction is not None:
            raise ValueError(f"cluster_correction= applies to cov_type='cluster' only; got "
                             f"cov_type={cov_type!r}.")
        return None
    if cluster_correction is None:
        return "stata"
    if not isinstance(cluster_correction, str) or cluster_correction.lower() not in CLUSTER_CORRECTIONS:
        raise ValueError(f"cluster_correction must be one of "
                         f"{', '.join(map(repr, CLUSTER_CORRECTIONS))}; got {cluster_correction!r}.")
    return cluster_correction.lower()


def describe(cov_type: str, cluster_correction: str | None = None,
             n_clusters: int | tuple = 0) -> str:
    """The summary's note on a robust covariance: what it is robust to, and for clusters their
    number (a tuple: per dimension of multi-way clusters) and whose small-sample factor."""
    if cov_type != "cluster":
        return DESCRIPTIONS[cov_type] + "."
    factor, whose = CLUSTER_CORRECTIONS[cluster_correction or "stata"]
    scale = "no small-sample factor" if factor == "none" else f"factor {factor}, as {whose}"
    if isinstance(n_clusters, tuple) and len(n_clusters) > 1:
        counts = " x ".join(map(str, n_clusters))
        scale = scale if factor == "none" else f"each term's {scale}"
        return (f"{DESCRIPTIONS['cluster']} in {len(n_clusters)} dimensions ({counts} clusters, "
                f"Cameron, Gelbach and Miller; {scale}).")
    if isinstance(n_clusters, tuple):
        n_clusters = n_clusters[0]
    return f"{DESCRIPTIONS['cluster']} ({n_clusters} clusters; {scale})."


def validate_groups(groups, n_samples: int | None) -> np.ndarray:
    """The cluster labels as a 1-D array of ``n_samples`` (None: any length) labels, or for
    multi-way clusters a 2-D array of one column per dimension, none missing.

    Raises
    ------
    ValueError
        For another shape or length, and for a missing label (None, NaN).
    """
    values = groups.to_numpy() if hasattr(groups, "to_numpy") else np.asarray(groups)
    if values.ndim == 2 and values.shape[1] == 1:
        values = values[:, 0]
    if values.ndim not in (1, 2) or (values.ndim == 2 and values.shape[1] == 0):
        raise ValueError(f"groups must be one cluster label per row (1-D), or one column per "
                         f"dimension of multi-way clusters (2-D); got an array of shape "
                         f"{values.shape}.")
    if n_samples is not None and values.shape[0] != n_samples:
        raise ValueError(f"groups has {values.shape[0]} labels, but X has {n_samples} rows: one "
                         "cluster label per row.")
    if values.dtype.kind == "f":
        missing = ~np.isfinite(values)
    elif values.dtype.kind == "O":
        missing = np.array([v is None or (isinstance(v, float) and not np.isfinite(v))
                            for v in values.reshape(-1)], dtype=bool).reshape(values.shape)
    else:
        missing = np.zeros(values.shape, dtype=bool)
    if missing.ndim == 2:
        missing = missing.any(axis=1)
    if np.any(missing):
        raise ValueError(f"groups has {int(missing.sum())} missing label(s) (NaN or None), the first "
                         f"at row {int(np.argmax(missing))}: every row needs a cluster.")
    return values


# ------------------------------------------------------------------------------------ the sums
@dataclass(frozen=True)
class ClusterWay:
    """The score sums of one further set of cluster dimensions of multi-way clusters.

    Attributes
    ----------
    dims : tuple of int
        The dimensions (columns of ``groups``) whose labels a cluster shares.
    sign : int
        :math:`(-1)^{|S|+1}`, the term's sign in the meat.
    clusters : ndarray of shape (G,)
        The sorted labels (tuples of labels for two or more dimensions).
    sums, weight : ndarray of shapes (G, k) and (G,)
        :math:`\\sum_{i\\in g} w_is_i` and :math:`\\sum_{i\\in g} w_i` per cluster.
    """

    dims: tuple
    sign: int
    clusters: np.ndarray
    sums: np.ndarray
    weight: np.ndarray

    def merge(self, other: ClusterWay) -> ClusterWay:
        clusters, sums, weight = _merge_clusters(self.clusters, self.sums, self.weight,
                                                 other.clusters, other.sums, other.weight)
        return ClusterWay(self.dims, self.sign, clusters, sums, weight)


def _merge_clusters(labels_a, sums_a, weight_a, labels_b, sums_b, weight_b):
    """The per-cluster sums of two sets of rows (the same label: one cluster)."""
    try:
        clusters, where = np.unique(_objects(np.concatenate([labels_a, labels_b])),
                                    return_inverse=True)
    except TypeError:
        raise ValueError("groups holds labels of different types (e.g. numbers and "
                         "strings) that cannot be compared; use one type.") from None
    where = where.reshape(-1)
    sums = np.zeros((clusters.size, sums_a.shape[1]))
    np.add.at(sums, where, np.vstack([sums_a, sums_b]))
    weight = np.bincount(where, np.concatenate([weight_a, weight_b]), minlength=clusters.size)
    return clusters, sums, weight


def _objects(values: np.ndarray) -> np.ndarray:
    """``values`` as they are, or a 1-D object array when they are tuples (numpy would otherwise
    read a list of tuples as a 2-D array)."""
    if values.dtype.kind != "O" or values.ndim != 1 or not values.size \
            or not isinstance(values[0], tuple):
        return values
    out = np.empty(values.size, dtype=object)
    out[:] = list(values)
    return out


@dataclass(frozen=True)
class ScoreSums:
    """Sums over rows at the reported parameters: all a covariance of :data:`COV_TYPES` needs.

    Attributes
    ----------
    hessian : ndarray of shape (k, k)
        :math:`H` (the information, equation-major: per equation the intercept, then the features).
    meat : ndarray of shape (k, k)
        :math:`\\sum_i w_is_is_i^T`.
    score : ndarray of shape (k,)
        :math:`\\sum_i w_is_i` (zero at the maximum-likelihood estimate of these rows).
    total : float
        :math:`N = \\sum_i w_i`.
    rows : int
        The number of rows summed.
    clusters : ndarray of shape (G,) or None
        The sorted cluster labels seen.
    cluster_sums : ndarray of shape (G, k) or None
        :math:`\\sum_{i\\in g} w_is_i` per cluster.
    cluster_weight : ndarray of shape (G,) or None
        :math:`\\sum_{i\\in g} w_i` per cluster (a cluster of rows of weight zero is no cluster).
        For multi-way clusters these three are the first dimension's.
    ways : tuple of ClusterWay
        Multi-way clusters: the other sets of dimensions, in R's order (the single dimensions,
        then the pairs, ...).
    leverage_meat : ndarray of shape (k, k) or None
        :math:`M_{HC2}` or :math:`M_{HC3}` (module docstring), when asked for.
    """

    hessian: np.ndarray
    meat: np.ndarray
    score: np.ndarray
    total: float
    rows: int
    clusters: np.ndarray | None = None
    cluster_sums: np.ndarray | None = None
    cluster_weight: np.ndarray | None = None
    ways: tuple = ()
    leverage_meat: np.ndarray | None = None

    def merge(self, other: ScoreSums) -> ScoreSums:
        """The sums of both sets of rows (clusters with the same label are one cluster).  The
        leverage-adjusted meat is not merged: its leverages need the information of all rows."""
        clusters, sums, weight = self.clusters, self.cluster_sums, self.cluster_weight
        if clusters is not None:
            clusters, sums, weight = _merge_clusters(clusters, sums, weight, other.clusters,
                                                     other.cluster_sums, other.cluster_weight)
        ways = tuple(a.merge(b) for a, b in zip(self.ways, other.ways))
        return ScoreSums(self.hessian + other.hessian, self.meat + other.meat,
                         self.score + other.score, self.total + other.total,
                         self.rows + other.rows, clusters, sums, weight, ways)

    @property
    def cluster_counts(self) -> tuple:
        """The number of clusters (of positive weight) of each dimension: one entry for one-way
        clusters, p for p-way ones; () without clusters."""
        if self.clusters is None:
            return ()
        counts = [int(np.sum(self.cluster_weight > 0))]
        counts += [int(np.sum(way.weight > 0)) for way in self.ways if len(way.dims) == 1]
        return tuple(counts)


def reported_probabilities(X, coef: np.ndarray, intercept: np.ndarray,
                           offset: np.ndarray | None = None) -> np.ndarray:
    """:math:`\\mu` of shape (n, m+1) from the reported parameters ``coef`` (m, d) and
    ``intercept`` (m,) (contrasts against class 0; m = 1 for two classes), in log space;
    ``offset`` of shape (n, m) in the same parametrisation
    (:func:`linclass.linear.logistic.offsets.reported_offset`)."""
    eta = np.asarray(X @ coef.T) + intercept
    if offset is not None:
        eta = eta + offset
    top = np.maximum(eta.max(axis=1, keepdims=True), 0.0)
    mu = np.hstack([np.exp(-top), np.exp(eta - top)])
    return mu / mu.sum(axis=1, keepdims=True)


def _kron_rows(A: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Rows :math:`a_i \\otimes x_i`: shape (n, m*p), block k = ``A[:, k] * X``."""
    return (A[:, :, None] * X[:, None, :]).reshape(X.shape[0], -1)


def _design(X, fit_intercept: bool) -> np.ndarray:
    X = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
    return np.hstack([np.ones((X.shape[0], 1)), X]) if fit_intercept else X


def score_sums(X, y: np.ndarray, weight, coef: np.ndarray, intercept: np.ndarray,
               fit_intercept: bool, groups=None, offset=None,
               variance_weights: bool = False, leverage_power: int = 0) -> ScoreSums:
    """:class:`ScoreSums` of rows in memory, in blocks of rows (BLAS products, no loop over rows).

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, d)
    y : ndarray of shape (n,), int
        Class index of each row (0 is the reference class).
    weight : ndarray of shape (n,) or None
        Frequency weights (None: ones).
    coef, intercept : ndarray of shapes (m, d) and (m,)
        The reported parameters (contrasts against class 0).
    fit_intercept : bool
    groups : ndarray of shape (n,) or (n, p), or None
        Cluster labels (any sortable type), for cov_type='cluster'; one column per dimension of
        multi-way clusters.
    offset : ndarray of shape (n, m) or None
        The fit's offset in the reported parametrisation.
    variance_weights : bool
        Whether the weights are variance (analytic) weights, as R's glm prior weights and
        statsmodels' ``var_weights``: row i's score is then :math:`w_is_i`, one observation, so the
        meat is :math:`\\sum_i w_i^2s_is_i^T` and N counts the rows of positive weight (frequency
        weights: :math:`w_i` observations with score :math:`s_i` each, :math:`\\sum_i w_is_is_i^T`,
        :math:`N = \\sum_i w_i`).
    leverage_power : int
        1 or 2: also the meat of HC2 or HC3 (module docstring; two classes), by a second pass;
        0: not.

    Raises
    ------
    ValueError
        For leverages of more than two classes, a singular information matrix, and a row of
        leverage 1 (HC2 and HC3 are undefined there).
    """
    n = X.shape[0]
    m, d = coef.shape
    k = m * (d + int(fit_intercept))
    w = np.ones(n) if weight is None else np.asarray(weight, dtype=np.float64)
    if leverage_power and m > 1:
        raise ValueError("HC2 and HC3 are defined here for two classes (R's vcovHC on a binomial "
                         "glm); for a softmax fit use cov_type='HC0', 'HC1' or 'cluster'.")
    ways = []  # (dims, sign, labels, codes, sums) per set of cluster dimensions
    if groups is not None:
        values = np.asarray(groups)
        for dims in _cluster_sets(1 if values.ndim == 1 else values.shape[1]):
            labels, codes_s = _encode_groups(values if values.ndim == 1 else
                                             values[:, dims[0]] if len(dims) == 1 else
                                             values[:, list(dims)])
            ways.append((dims, (-1) ** (len(dims) + 1), labels, codes_s,
                         np.zeros((labels.size, k))))
    hessian, meat, score = np.zeros((k, k)), np.zeros((k, k)), np.zeros(k)
    rows = max(1, _BLOCK_ENTRIES // max(k, 1))
    for start in range(0, n, rows):
        block = slice(start, min(n, start + rows))
        Xt = _design(X[block], fit_intercept)
        wb = w[block]
        mu = reported_probabilities(Xt[:, int(fit_intercept):], coef, intercept,
                                    None if offset is None else offset[block])[:, 1:]
        onehot = (y[block, None] == np.arange(1, m + 1)).astype(np.float64)
        S = _kron_rows(onehot - mu, Xt)
        Sw = S * wb[:, None]
        meat += Sw.T @ (Sw if variance_weights else S)
        score += Sw.sum(axis=0)
        U = _kron_rows(mu, Xt)
        hessian -= (U * wb[:, None]).T @ U
        for j in range(m):  # the block diagonal: diag(mu) part
            part = slice(j * Xt.shape[1], (j + 1) * Xt.shape[1])
            hessian[part, part] += (Xt * (wb * mu[:, j])[:, None]).T @ Xt
        for _, _, labels, codes_s, sums in ways:
            cb = codes_s[block]
            indicator = sp.csr_matrix((np.ones(cb.size), (cb, np.arange(cb.size))),
                                      shape=(labels.size, cb.size))
            sums += indicator @ Sw
    hessian = (hessian + hessian.T) / 2
    total = float(np.sum(w > 0)) if variance_weights else float(w.sum())
    clusters = cluster_sums = cluster_weight = None
    extra = []
    for j, (dims, sign, labels, codes_s, sums) in enumerate(ways):
        weight_s = np.bincount(codes_s, w, minlength=labels.size)
        if j == 0:
            clusters, cluster_sums, cluster_weight = labels, sums, weight_s
        else:
            extra.append(ClusterWay(dims, sign, labels, sums, weight_s))
    leverage_meat = None
    if leverage_power:
        leverage_meat = _leverage_meat(X, y, w, coef, intercept, fit_intercept, offset,
                                       variance_weights, hessian, leverage_power)
    return ScoreSums(hessian, (meat + meat.T) / 2, score, total, int(n), clusters,
                     cluster_sums, cluster_weight, tuple(extra), leverage_meat)


def _leverage_meat(X, y, w, coef, intercept, fit_intercept, offset, variance_weights, hessian,
                   power: int) -> np.ndarray:
    """:math:`\\sum_i c_i w_is_is_i^T/(1-h_i)^{power}` of a two-class fit, in row blocks
    (module docstring): :math:`c_i = 1` and :math:`h_i` one copy's leverage for frequency
    weights, :math:`c_i = w_i` and R's ``hatvalues`` for variance weights."""
    try:
        factor = np.linalg.cholesky(hessian)
    except np.linalg.LinAlgError:
        raise ValueError("The information matrix of these rows is singular (constant or collinear "
                         "features): no leverages, so no HC2 / HC3 covariance.") from None
    k = hessian.shape[0]
    meat = np.zeros((k, k))
    rows = max(1, _BLOCK_ENTRIES // max(k, 1))
    for start in range(0, X.shape[0], rows):
        block = slice(start, min(X.shape[0], start + rows))
        Xt = _design(X[block], fit_intercept)
        wb = w[block]
        mu = reported_probabilities(Xt[:, int(fit_intercept):], coef, intercept,
                                    None if offset is None else offset[block])
        working = mu[:, 0] * mu[:, 1] * (wb if variance_weights else 1.0)
        Z = scipy.linalg.solve_triangular(factor, Xt.T, lower=True)  # L^{-1} x_i, column-wise
        leverage = working * np.einsum("ij,ij->j", Z, Z)
        if np.any((leverage >= 1.0) & (wb > 0)):
            at = start + int(np.argmax((leverage >= 1.0) & (wb > 0)))
            raise ValueError(f"Row {at} has leverage 1 (it is fitted exactly): HC2 and HC3 divide "
                             "by 1 - leverage and are undefined; use cov_type='HC0' or 'HC1'.")
        residual = (y[block] == 1) - mu[:, 1]
        scale = wb * (wb if variance_weights else 1.0) / (1.0 - leverage) ** power
        S = Xt * residual[:, None]
        meat += (S * scale[:, None]).T @ S
    return (meat + meat.T) / 2


def _cluster_sets(p: int) -> list[tuple]:
    """The sets of the ``p`` cluster dimensions whose meats enter the covariance, in R's vcovCL
    order: the single dimensions, then the pairs, ..., all p."""
    return [dims for size in range(1, p + 1) for dims in itertools.combinations(range(p), size)]


def _encode_groups(groups) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct labels (rows of a 2-D ``groups``: tuples) and each row's index."""
    values = np.asarray(groups)
    try:
        if values.ndim == 1:
            clusters, codes = np.unique(values, return_inverse=True)
            return clusters, codes.reshape(-1)
        columns = [np.unique(values[:, j], return_inverse=True)[1].reshape(-1)
                   for j in range(values.shape[1])]
    except TypeError:
        raise ValueError("groups holds labels of different types (e.g. numbers and strings) that "
                         "cannot be compared; use one type.") from None
    # the rows of per-column codes sort as the tuples of labels do
    _, first, codes = np.unique(np.column_stack(columns), axis=0, return_index=True,
                                return_inverse=True)
    clusters = np.empty(first.size, dtype=object)
    clusters[:] = [tuple(v.item() if isinstance(v, np.generic) else v for v in values[i])
                   for i in first]
    return clusters, codes.reshape(-1)


# ---------------------------------------------------------------------------------- covariance
def _label(value) -> str:
    """A label as the user wrote it: 'a', 3 (not np.str_('a'))."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def robust_covariance(sums: ScoreSums, cov_type: str,
                      cluster_correction: str = "stata") -> np.ndarray:
    """:math:`V` of ``cov_type`` (module docstring) from one pass's :class:`ScoreSums`, the cluster
    covariance with the small-sample factor ``cluster_correction`` (:data:`CLUSTER_CORRECTIONS`).

    Raises
    ------
    ValueError
        When the information matrix is singular, when :math:`N \\le k` (HC1, cluster), when there
        are fewer than two clusters (in any dimension), for HC2 / HC3 sums without their meat
        (``score_sums(leverage_power=)``) and for an unknown ``cluster_correction``.

    Warns
    -----
    UserWarning
        When the score is far from zero at these parameters (a Newton step would move some
        parameter by more than 0.05 standard errors): the rows are not those of the fit (or the fit
        stopped far from the optimum), and the sandwich, which assumes the optimum, is off.
    """
    k = sums.hessian.shape[0]
    system = SymmetricSolver(sums.hessian)
    if system.singular:
        raise ValueError("The information matrix of these rows is singular (constant or collinear "
                         "features): no robust covariance. Drop the redundant features.")
    bread = system.solve(np.eye(k))
    bread = (bread + bread.T) / 2
    se = np.sqrt(np.clip(np.diag(bread), 0.0, None))
    drift = np.max(np.abs(bread @ sums.score) / np.where(se > 0, se, 1.0))
    if drift > _DRIFT:
        warnings.warn(f"The score of these rows is not zero at the fitted coefficients (a Newton step "
                      f"would move one by {drift:.3g} standard errors): are they the rows the model "
                      "was fitted on (X, y, sample_weight)? The sandwich assumes the optimum.",
                      UserWarning, stacklevel=4)
    if cov_type == "nonrobust":
        return bread
    N = sums.total
    if cov_type in ("HC1", "cluster") and N <= k:
        raise ValueError(f"cov_type={cov_type!r} needs more observations than parameters: "
                         f"N={N:g}, k={k}.")
    if cov_type == "cluster":
        correction = check_cluster_correction(cluster_correction, cov_type)
        first = ClusterWay((0,), 1, sums.clusters, sums.cluster_sums, sums.cluster_weight)
        meat = np.zeros((k, k))
        for way in (first, *sums.ways):
            present = way.weight > 0
            G = int(np.sum(present))
            if G < 2 and len(way.dims) == 1:
                which = "" if not sums.ways else f" in dimension {way.dims[0]}"
                raise ValueError(f"cov_type='cluster' needs at least two clusters{which}; groups "
                                 f"holds one ({_label(way.clusters[present][0])}) among the rows "
                                 "of positive weight.")
            # every term its own G/(G-1), as R's vcovCL (cadjust = TRUE); an intersection of one
            # cluster (G = 1) has no such factor and is dropped by none of R's defaults
            adjust = 1.0 if correction == "none" or G < 2 else G / (G - 1.0)
            meat += way.sign * adjust * (way.sums.T @ way.sums)
        factor = (N - 1.0) / (N - k) if correction == "statsmodels" else 1.0
    elif cov_type in LEVERAGE_POWERS:
        if sums.leverage_meat is None:
            raise ValueError(f"cov_type={cov_type!r} needs the leverages of the rows in memory "
                             "(score_sums(..., leverage_power=...)); a chunk source has none.")
        meat, factor = sums.leverage_meat, 1.0
    else:
        meat = sums.meat
        factor = N / (N - k) if cov_type == "HC1" else 1.0
    V = factor * (bread @ meat @ bread)
    return (V + V.T) / 2
