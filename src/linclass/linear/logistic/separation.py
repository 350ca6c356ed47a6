"""Detecting (quasi-)complete separation, where the logistic / softmax maximum-likelihood estimate does
not exist.

Albert & Anderson (1984): the MLE fails to exist exactly when some non-zero coefficient direction
:math:`V` (a p x K matrix on :math:`\\tilde x = [x, 1]`) orders every training row's own class first,

.. math::  \\tilde x_i^T (V_{y_i} - V_j) \\ge 0 \\quad \\text{for all rows } i \\text{ and classes } j,

with at least one strict inequality: moving the coefficients along :math:`V` then lowers the
negative log-likelihood for ever.  That is a linear programme (Konis 2007): maximise
:math:`\\sum_{i,j} \\tilde x_i^T(V_{y_i} - V_j)` subject to those constraints and :math:`|V| \\le 1`; the
optimum is positive exactly when the data are separated.  Complete separation additionally makes every
inequality strict; otherwise it is quasi-complete.

:func:`check_separation` is the check a fit runs at its end: the cheap symptom first (rows fitted with
probability one), the linear programme only then, and a :class:`~linclass.SeparationWarning`.

**A certificate of overlap** (:func:`overlap_certified`, two classes).  By Stiemke's lemma (the
alternative to the system above) the classes are not separated exactly when some strictly positive
weights :math:`\\lambda` balance the signed rows, :math:`\\sum_i \\lambda_i s_i\\tilde x_i = 0` with
:math:`s_i = \\pm1` for class 1 / 0.  At the maximum-likelihood estimate the score equation gives them,
:math:`\\lambda_i = w_i|y_i - \\mu_i|`; near it (at Firth's estimate, whose bias is :math:`O(1/n)`) they
leave a small remainder :math:`g = \\sum_i\\lambda_is_i\\tilde x_i` (the plain score), which the
correction :math:`\\delta_i = -\\lambda_i s_i\\tilde x_i^Tu`, :math:`u = M^{-1}g`,
:math:`M = \\sum_i\\lambda_i\\tilde x_i\\tilde x_i^T`, removes exactly.  When every
:math:`|\\tilde x_i^Tu| \\le 1/2` the corrected weights stay at least half of :math:`\\lambda`: overlap is
proved at the cost of one weighted Gram product, where the linear programme over a large X takes
minutes (35 of a 40 s Firth fit at n = 200,000).  When the test fails the programme decides.

**K classes** (:func:`overlap_proved`). The rows of the system are
:math:`a_{ij} = \\tilde x_i \\otimes (e_{y_i} - e_j)`, one per row i and class :math:`j \\ne y_i`;
the weights :math:`\\lambda_{ij} = w_i\\mu_{ij}` balance them exactly at the maximum-likelihood
estimate (:math:`\\sum_{ij}\\lambda_{ij}a_{ij}` is the score), and near it the same correction,
:math:`\\delta_{ij} = -\\lambda_{ij}a_{ij}^Tu` with
:math:`M = \\sum_{ij}\\lambda_{ij}a_{ij}a_{ij}^T` (in the parameters of classes 1..K-1 against
class 0, where M is non-singular), proves overlap when every :math:`|a_{ij}^Tu| \\le 1/2`. The
weights are computed from the scores (a log-sum-exp), not as :math:`1 - \\mu_{i y_i}`, so that a
row fitted with probability one to double precision still has its positive weight. An unpenalised
fit runs the test at its estimate whenever some row is fitted with probability one
(:func:`check_separation`): on mlbench's Satellite (6,435 rows, 36 features, 6 classes, not
separated, some rows within 1e-10 of probability one) it replaces a linear programme that took
3.1 of the fit's 3.2 s.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.linalg import LinAlgError, cho_factor, cho_solve
from scipy.optimize import linprog

from linclass.exceptions import SeparationWarning

__all__ = ["SURE", "check_separation", "overlap_certified", "overlap_proved", "separation",
           "suspicious_rows"]

SURE = 1e-10  # own-class probability within this of 1: the row is fitted "perfectly"
_LP_MAX_NONZEROS = 20_000_000  # larger linear programmes are not attempted


def suspicious_rows(proba_own: np.ndarray) -> int:
    """Number of rows whose own-class probability is numerically one (a symptom of separation)."""
    return int(np.sum(proba_own > 1.0 - SURE))


_OVERLAP_MARGIN = 0.5  # the corrected weights keep at least this share of lambda


def _scaled_design(X, fit_intercept: bool) -> np.ndarray:
    """:math:`[X, 1]` (or X) with every column divided by its largest magnitude: the same cone of
    directions, with the programmes' and the certificate's tolerances on one scale."""
    Xt = np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else np.asarray(X, dtype=float)
    return Xt / np.maximum(np.abs(Xt).max(axis=0), np.finfo(float).tiny)


def overlap_certified(X: np.ndarray, y: np.ndarray, mu: np.ndarray, sample_weight=None,
                      fit_intercept: bool = True) -> bool:
    """Whether two classes are proved not separated (the maximum-likelihood estimate exists) by
    Stiemke's weights at the probabilities ``mu`` of class 1 (module docstring).  False means
    "not proved" (the linear programme of :func:`separation` decides then).  The two-class case of
    :func:`overlap_proved`, which takes the scores instead (log-space weights).

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), class indices in {0, 1}
    mu : ndarray of shape (n_samples,)
        Probabilities of class 1 at some parameters (best near the maximum-likelihood estimate).
    sample_weight : ndarray or None
        Rows with zero weight do not take part.
    """
    mu = np.asarray(mu, dtype=np.float64)
    # a probability of 0 or 1 gives an infinite score (not proved), one outside [0, 1] a NaN
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = np.log(mu) - np.log1p(-mu)
    return overlap_proved(X, y, scores, 2, sample_weight, fit_intercept)


def overlap_proved(X, y: np.ndarray, scores: np.ndarray, n_classes: int, sample_weight=None,
                   fit_intercept: bool = True) -> bool:
    """Whether the classes are proved not separated (the maximum-likelihood estimate exists) by
    Stiemke's weights at the scores ``scores`` (module docstring, "K classes").  False means "not
    proved": the linear programme of :func:`separation` decides then.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        Read in blocks of rows (at most 16 MB of them dense at a time).
    y : ndarray of shape (n_samples,), class indices in 0..n_classes-1
    scores : ndarray of shape (n_samples,) (two classes: the log-odds of class 1) or
        (n_samples, n_classes), at some parameters (best near the maximum-likelihood estimate)
    n_classes : int
    sample_weight : ndarray or None
        Rows with zero weight do not take part.
    """
    K, n = int(n_classes), np.shape(y)[0]
    p = X.shape[1] + (1 if fit_intercept else 0)
    if n == 0 or p * (K - 1) > _PROOF_MAX_PARAMS:
        return False
    if sp.issparse(X) and X.format != "csr":  # read by rows
        X = sp.csr_matrix(X)
    S = np.asarray(scores, dtype=np.float64)
    if S.ndim == 1:
        S = np.column_stack([np.zeros_like(S), S])
    y = np.asarray(y, dtype=np.int64)
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if S.shape != (n, K):
        return False
    size = max(1, min(_PROOF_ROWS, _PROOF_ENTRIES // p))  # rows per block
    blocks = [slice(start, min(start + size, n)) for start in range(0, n, size)]
    scale = np.zeros(p)  # the scaled design's column scales (_scaled_design), over kept rows
    for rows in blocks:
        keep = w[rows] > 0
        if keep.any():
            block = _design_rows(X, rows, keep, fit_intercept)
            scale = np.maximum(scale, np.abs(block).max(axis=0))
    if not scale.any():
        return False
    scale = np.maximum(scale, np.finfo(float).tiny)
    m = K - 1
    g, M = np.zeros((p, m)), np.zeros((p * m, p * m))
    for rows in blocks:  # the score g and M, block by block of rows (no copy of X)
        weights = _stiemke_weights(S[rows], y[rows], w[rows], K)
        if weights is None:
            return False
        keep, yb, lam, total, C = weights
        Xt = _design_rows(X, rows, keep, fit_intercept) / scale
        g += Xt.T @ C[:, 1:]
        for k in range(1, K):
            for l in range(k, K):
                # row i's weight on the (k, l) block: sum_j lambda_ij (e_y - e_j)_k (e_y - e_j)_l
                if k == l:
                    d = np.where(yb == k, total, lam[:, k])
                else:
                    d = np.where(yb == k, -lam[:, l], np.where(yb == l, -lam[:, k], 0.0))
                M[(k - 1) * p:k * p, (l - 1) * p:l * p] += Xt.T @ (Xt * d[:, None])
    upper = np.triu_indices(p * m, 1)
    M[upper[1], upper[0]] = M[upper]  # blocks (l, k) = (k, l)^T
    try:
        factor = cho_factor(M, lower=True, check_finite=False)
    except LinAlgError:
        return False
    if np.min(np.diag(factor[0])) ** 2 <= 1e-10 * np.max(np.diag(M)):  # not decided here
        return False
    u = cho_solve(factor, g.ravel(order="F"), check_finite=False).reshape(m, p).T
    for rows in blocks:  # every |a_ij^T u| within the margin
        keep = w[rows] > 0
        if not keep.any():
            continue
        yb = y[rows][keep]
        T = np.column_stack([np.zeros(yb.size),
                             (_design_rows(X, rows, keep, fit_intercept) / scale) @ u])
        margins = T[np.arange(yb.size), yb][:, None] - T  # a_ij^T u; zero at j = y_i
        if np.max(np.abs(margins)) > _OVERLAP_MARGIN:
            return False
    return True


_PROOF_ROWS = 65_536       # rows per block of the proof's passes, at most
_PROOF_ENTRIES = 2 ** 21   # and at most this many entries of the design per block (16 MB)
_PROOF_MAX_PARAMS = 4_000  # larger systems are left to the linear programme (or its refusal)


def _design_rows(X, rows: slice, keep: np.ndarray, fit_intercept: bool) -> np.ndarray:
    """The kept rows of ``rows`` of :math:`[X, 1]` (or X), dense, in float64."""
    Xb = X[rows]
    Xb = (Xb.toarray() if sp.issparse(Xb) else np.asarray(Xb)).astype(np.float64, copy=False)[keep]
    return np.column_stack([Xb, np.ones(Xb.shape[0])]) if fit_intercept else Xb


def _stiemke_weights(S: np.ndarray, y: np.ndarray, w: np.ndarray, K: int):
    """``(keep, y, lambda, total, C)`` of a block of rows with scores S (rows of zero weight left
    out): :math:`\\lambda_{ij} = w_i\\mu_{ij}` (0 at :math:`j = y_i`), their row sums
    :math:`w_i(1 - \\mu_{iy_i})` without the cancellation, and C, whose product with the rows is
    the score; None when a score is not finite or a weight underflowed to zero (not proved)."""
    keep = w > 0
    S, y, w = S[keep], y[keep], w[keep]
    if not np.all(np.isfinite(S)):
        return None
    index = np.arange(y.size)
    S = S - S.max(axis=1, keepdims=True)
    lam = w[:, None] * np.exp(S - np.log(np.exp(S).sum(axis=1, keepdims=True)))
    lam[index, y] = 0.0
    if not np.all(np.count_nonzero(lam > 0, axis=1) == K - 1):
        return None
    total = lam.sum(axis=1)
    C = -lam
    C[index, y] = total
    return keep, y, lam, total, C


def separation(X: np.ndarray, y: np.ndarray, n_classes: int, sample_weight=None,
               fit_intercept: bool = True) -> str | None:
    """'complete', 'quasi' or None (the MLE exists); raises ``ValueError`` if the programme is too
    large to attempt (the caller then reports the symptom only).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), int class indices
    n_classes : int
    sample_weight : ndarray or None
        Rows with zero weight do not take part.
    """
    if sample_weight is not None:
        keep = sample_weight > 0
        X, y = X[keep], y[keep]
    n, d = X.shape
    Xt = _scaled_design(X, fit_intercept)
    p, K = Xt.shape[1], n_classes
    if n * (K - 1) * 2 * p > _LP_MAX_NONZEROS:
        raise ValueError("separation check too large")
    # one constraint row per (i, j != y_i):  x_i^T V_{y_i} - x_i^T V_j >= 0;  V stored class-major
    rows_i = np.repeat(np.arange(n), K - 1)
    others = np.array([[j for j in range(K) if j != k] for k in range(K)])[y].reshape(-1)
    own = y[rows_i]
    r = np.arange(rows_i.size)
    cols = np.arange(p)
    row_idx = np.repeat(r, 2 * p)
    col_idx = np.concatenate([own[:, None] * p + cols, others[:, None] * p + cols], axis=1).reshape(-1)
    vals = np.concatenate([Xt[rows_i], -Xt[rows_i]], axis=1).reshape(-1)
    A = sp.csr_matrix((vals, (row_idx, col_idx)), shape=(r.size, p * K))
    gain = np.asarray(A.sum(axis=0)).reshape(-1)
    result = linprog(-gain, A_ub=-A, b_ub=np.zeros(r.size), bounds=(-1, 1), method="highs")
    # the solver's feasibility tolerance (1e-7 per constraint) bounds the noise in the optimum
    if result.status != 0 or -result.fun <= 1e-6 * r.size:
        return None
    # complete separation: some direction puts every row strictly first (maximise the least margin)
    ones = sp.csr_matrix(np.ones((r.size, 1)))
    strict = linprog(np.r_[np.zeros(p * K), -1.0], A_ub=sp.hstack([-A, ones]), b_ub=np.zeros(r.size),
                     bounds=[(-1, 1)] * (p * K) + [(0, 1)], method="highs")
    return "complete" if strict.status == 0 and -strict.fun > 1e-6 else "quasi"


def check_separation(objective, theta, X=None, y=None, sample_weight=None, *,
                     converged: bool = True) -> str | None:
    """'complete', 'quasi', 'suspected' or None, warning with :class:`~linclass.SeparationWarning`
    when not None.

    Looks further when some row is fitted with probability 1 (``objective.count_perfect``), and
    also when the solver stopped early (a slow solver on separated data may not have reached such
    rows yet): first for a proof of overlap at ``theta`` (:func:`overlap_proved`, a few weighted
    Gram products), then, without one, by the linear programme of :func:`separation`.  Without
    the rows (``X`` None: chunked data, where the programme would need every row at once) or when
    the programme is too large, the symptom alone gives 'suspected'.

    Parameters
    ----------
    objective : LinearObjective or ChunkedObjective
    theta : ndarray of shape objective.shape
        The fitted parameters.
    X, y, sample_weight : the rows in memory (y class indices; the weights the objective used), or None
    converged : bool
        Whether the solver met its stopping rule.
    """
    perfect = objective.count_perfect(theta)
    if perfect == 0 and (converged or X is None):
        return None
    if X is None:
        kind = "suspected"
    elif overlap_proved(X, y, objective.scores(theta), objective.n_classes, sample_weight,
                        objective.fit_intercept):
        return None
    else:
        try:
            kind = separation(X, y, objective.n_classes, sample_weight, objective.fit_intercept)
        except ValueError:
            kind = "suspected"
    if kind is None:
        return None
    if kind == "suspected":  # the symptom only: the linear programme that decides was not run
        warnings.warn(
            "The classes are apparently separated: "
            + (f"{perfect} training row(s) are fitted with probability 1" if perfect else
               "the solver stopped before it reached the boundary")
            + ". Whether a hyperplane separates them was not checked (that linear programme needs "
            "the rows in memory, at most a few million entries); rows far from the boundary give "
            "the same symptom on data that is not separated. If the classes are separated, the "
            "maximum-likelihood estimate does not exist and the coefficients, standard errors and "
            "p-values are meaningless; to decide, fit the rows in memory, or compare with a fit "
            "with a larger max_iter (diverging coefficients grow), or use a finite C.",
            SeparationWarning, stacklevel=5,  # the caller of fit
        )
        return kind
    what = {"complete": "completely separated by a hyperplane",
            "quasi": "quasi-completely separated (a hyperplane separates them with some rows on it)",
            }[kind]
    warnings.warn(
        f"The classes are {what}: "
        + (f"{perfect} training row(s) are fitted with probability 1" if perfect else
           "the solver stopped before it reached the boundary")
        + ", and the "
        "maximum-likelihood estimate does not exist (the unpenalised coefficients diverge). The "
        "returned coefficients are finite only because the iteration stopped; their size, standard "
        "errors and p-values are meaningless. Use a finite C (for example C=1.0) for a penalised "
        "estimate, which always exists.",
        SeparationWarning, stacklevel=5,  # the caller of fit
    )
    return kind
