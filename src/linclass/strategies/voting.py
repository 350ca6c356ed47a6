"""Combining two-class decisions into K classes: the votes, scores, ambiguity tests and pairwise
coupling of one-versus-rest, one-versus-one and the single K-class discriminant (Bishop
2006 sec. 4.1.2).

Bishop shows why the first two are awkward: combining two-class discriminants leaves *ambiguous
regions* (his Figure 4.2).  One-versus-rest: a point that no classifier claims ("class k", not "the
rest"), or that several claim (:func:`ovr_ambiguous`).  One-versus-one: a point where the majority
vote is tied (:func:`ovo_ambiguous`).  The single K-class discriminant
:math:`y_k(x) = w_k^Tx + w_{k0}`, assigning :math:`x` to :math:`\\arg\\max_k y_k(x)`, has none: only the
boundaries themselves (exact ties, :func:`top_tied`) are undecided.  The estimators of
:mod:`linclass.estimators.multiclass` fit the binary classifiers and call these functions.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "couple_pairwise",
    "ovo_ambiguous",
    "ovo_scores",
    "ovo_votes",
    "ovr_ambiguous",
    "top_tied",
]

_TINY = np.finfo(np.float64).tiny  # smallest positive normal float: floor that keeps log(p) finite

def ovr_ambiguous(scores: np.ndarray) -> np.ndarray:
    """One-versus-rest ambiguity (Bishop 2006 sec. 4.1.2, Figure 4.2 left).

    Classifier k claims x for class k when :math:`y_k(x) > 0`; x is ambiguous when no classifier or
    more than one claims it.

    Parameters
    ----------
    scores : ndarray of shape (n_samples, n_classes)
        :math:`y_k(x)`, the log-odds of "class k" against "the rest".

    Returns
    -------
    ndarray of bool, shape (n_samples,)
    """
    return np.count_nonzero(scores > 0, axis=1) != 1


def ovo_votes(positive: np.ndarray, pairs: np.ndarray, n_classes: int) -> np.ndarray:
    """Majority-vote counts of the one-versus-one scheme.

    Parameters
    ----------
    positive : ndarray of bool, shape (n_samples, n_pairs)
        True where the classifier of pair :math:`(i, j)` chose class j (the second of the pair).
    pairs : ndarray of int, shape (n_pairs, 2)
        Class indices :math:`(i, j)`, :math:`i < j`.
    n_classes : int

    Returns
    -------
    ndarray of shape (n_samples, n_classes): the number of pairwise contests each class won.
    """
    votes = np.zeros((positive.shape[0], n_classes))
    for m, (i, j) in enumerate(pairs):
        votes[:, j] += positive[:, m]
        votes[:, i] += ~positive[:, m]
    return votes


def ovo_scores(votes: np.ndarray, confidence: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """Vote-based class scores: votes, with ties broken by the summed pairwise confidence.

    .. math::  s_k(x) = v_k(x) + \\frac{c_k(x)}{3(|c_k(x)| + 1)},\\qquad
               c_k(x) = \\sum_{j \\ne k} \\pm y_{kj}(x)

    where :math:`y_{ij}` is the decision value of pair :math:`(i, j)` (positive towards j), counted
    for j and against i.  The second term lies in :math:`(-1/3, 1/3)` and grows with :math:`c_k`, so
    :math:`\\arg\\max_k s_k` is the class with the most votes; among classes tied on votes, the one with
    the largest summed confidence; among exact ties, the lowest class index (``argmax`` takes the
    first).  This is scikit-learn's rule, so the predictions agree with its OneVsOneClassifier.

    Parameters
    ----------
    votes : ndarray of shape (n_samples, n_classes), from :func:`ovo_votes`
    confidence : ndarray of shape (n_samples, n_pairs)
        :math:`y_{ij}(x)` of each pair.
    pairs : ndarray of int, shape (n_pairs, 2)
    """
    summed = np.zeros_like(votes)
    for m, (i, j) in enumerate(pairs):
        summed[:, j] += confidence[:, m]
        summed[:, i] -= confidence[:, m]
    return votes + summed / (3.0 * (np.abs(summed) + 1.0))


def ovo_ambiguous(votes: np.ndarray) -> np.ndarray:
    """One-versus-one ambiguity (Bishop 2006 sec. 4.1.2, Figure 4.2 right): the majority vote is tied
    at the top (two or more classes share the most votes).  Returns bool of shape (n_samples,)."""
    return top_tied(votes)


def top_tied(scores: np.ndarray) -> np.ndarray:
    """True where two or more entries of a row share the row's maximum (exact equality).

    For the K-class discriminant these are the points on a decision boundary
    :math:`y_k(x) = y_j(x)`, the only undecided points of that scheme."""
    return np.count_nonzero(scores == scores.max(axis=1, keepdims=True), axis=1) > 1


def couple_pairwise(r: np.ndarray, pairs: np.ndarray, n_classes: int) -> np.ndarray:
    """Class probabilities from pairwise probabilities by pairwise coupling.

    With :math:`r_{ij} \\approx P(y = i \\mid y \\in \\{i, j\\}, x)` (so :math:`r_{ji} = 1 - r_{ij}`), solve
    Wu, Lin & Weng's (2004) second method, a least-squares form of Hastie & Tibshirani's coupling:

    .. math::  \\min_p \\sum_i\\sum_{j\\ne i}(r_{ji}p_i - r_{ij}p_j)^2
               \\quad\\text{s.t.}\\quad \\sum_k p_k = 1,

    i.e. :math:`p^TQp` with :math:`Q_{ii} = \\sum_{s\\ne i} r_{si}^2`, :math:`Q_{ij} = -r_{ji}r_{ij}`, whose
    optimum solves the bordered system :math:`\\begin{pmatrix}Q & e\\\\ e^T & 0\\end{pmatrix}
    \\begin{pmatrix}p\\\\ b\\end{pmatrix} = \\begin{pmatrix}0\\\\ 1\\end{pmatrix}`.  That system is
    non-singular whenever :math:`r_{ij} + r_{ji} = 1` (a null vector would need
    :math:`r_{ji}v_i = r_{ij}v_j` for all pairs and :math:`\\sum v = 0`, forcing :math:`v = 0`), and its
    solution is non-negative (Wu et al.); rounding is clipped.  Probabilities are floored at the
    smallest normal float and renormalised, so they sum to one, are never NaN and have a finite log.
    For two classes :math:`p = (r_{01}, r_{10})` exactly.

    Parameters
    ----------
    r : ndarray of shape (n_samples, n_pairs)
        For pair :math:`(i, j)`, the probability of the *second* class j, :math:`r_{ji}`.
    pairs : ndarray of int, shape (n_pairs, 2)
    n_classes : int

    Returns
    -------
    ndarray of shape (n_samples, n_classes), rows summing to one.
    """
    n, K = r.shape[0], n_classes
    A = np.zeros((n, K + 1, K + 1))
    for m, (i, j) in enumerate(pairs):
        r_ji, r_ij = r[:, m], 1.0 - r[:, m]
        A[:, i, i] += r_ji**2
        A[:, j, j] += r_ij**2
        A[:, i, j] -= r_ji * r_ij
        A[:, j, i] -= r_ji * r_ij
    A[:, :K, K] = 1.0
    A[:, K, :K] = 1.0
    rhs = np.zeros((n, K + 1, 1))
    rhs[:, K, 0] = 1.0
    p = np.linalg.solve(A, rhs)[:, :K, 0]
    p = np.maximum(p, _TINY)
    return p / p.sum(axis=1, keepdims=True)
