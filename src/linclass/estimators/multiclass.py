"""K classes from two-class discriminants: one-versus-rest, one-versus-one, and the single K-class
discriminant (seed 003 sec. 6.1.2, after Bishop sec. 4.1.2).

Seed 003 shows why the first two are awkward: combining two-class discriminants leaves *ambiguous
regions* (its Figure 6.2).  One-versus-rest: a point that no classifier claims ("class k", not "the
rest"), or that several claim.  One-versus-one: a point where the majority vote is tied.  The single
K-class discriminant :math:`y_k(x) = w_k^Tx + w_{k0}`, assigning :math:`x` to :math:`\\arg\\max_k y_k(x)`,
has none: its decision regions are singly connected and convex, and only the boundaries themselves
(exact ties) are undecided.  Each estimator here can say which points are ambiguous
(:meth:`ambiguous`) and how many (:meth:`summary`).

The pure functions (:func:`ovr_ambiguous`, :func:`ovo_votes`, :func:`ovo_scores`,
:func:`ovo_ambiguous`, :func:`top_tied`, :func:`couple_pairwise`) hold the mathematics; the estimator
classes validate, fit clones of the base estimator, and call them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, has_fit_parameter

from linclass.core.validation import validate_fit, validate_predict

__all__ = [
    "KClassDiscriminant",
    "MulticlassSummary",
    "OneVsOneClassifier",
    "OneVsRestClassifier",
    "couple_pairwise",
    "ovo_ambiguous",
    "ovo_scores",
    "ovo_votes",
    "ovr_ambiguous",
    "top_tied",
]

_TINY = np.finfo(np.float64).tiny  # smallest positive normal float: floor that keeps log(p) finite


# ============================================================================= pure functions


def ovr_ambiguous(scores: np.ndarray) -> np.ndarray:
    """One-versus-rest ambiguity (seed 003 sec. 6.1.2, Figure 6.2 left).

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
    """One-versus-one ambiguity (seed 003 sec. 6.1.2, Figure 6.2 right): the majority vote is tied
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


# ============================================================================= summary record


@dataclass(frozen=True)
class MulticlassSummary:
    """How a multi-class scheme treats a data set: how many points fall in an ambiguous region."""

    strategy: str
    n_classes: int
    n_estimators: int
    n_samples: int
    n_ambiguous: int
    fraction_ambiguous: float

    def __str__(self) -> str:
        return (
            f"{self.strategy}: {self.n_classes} classes, {self.n_estimators} fitted "
            f"estimator{'s' if self.n_estimators != 1 else ''}; {self.n_ambiguous} of "
            f"{self.n_samples} samples ({100 * self.fraction_ambiguous:.1f}%) in an ambiguous region"
        )


# ============================================================================= helpers over estimators


def _has(attr: str):
    """available_if test: the (fitted, else unfitted) base estimator has ``attr``."""

    def check(self) -> bool:
        base = self.estimators_[0] if hasattr(self, "estimators_") else self.estimator
        return hasattr(base, attr)

    return check


def _log_proba(est, X: np.ndarray) -> np.ndarray:
    """``est.predict_log_proba(X)``, or the log of ``predict_proba`` floored so that it is finite."""
    if hasattr(est, "predict_log_proba"):
        return est.predict_log_proba(X)
    return np.log(np.maximum(est.predict_proba(X), _TINY))


def _binary_score(est, X: np.ndarray) -> np.ndarray:
    """Decision value of a fitted binary estimator, positive towards its ``classes_[1]``: its
    ``decision_function``, else the log-odds from its probabilities.  Shape (n_samples,)."""
    if hasattr(est, "decision_function"):
        return np.asarray(est.decision_function(X)).reshape(X.shape[0])
    logp = _log_proba(est, X)
    return logp[:, 1] - logp[:, 0]


def _class_scores(est, X: np.ndarray) -> np.ndarray:
    """Class scores of shape (n_samples, n_classes) of a fitted estimator: ``decision_function``
    (two-class log-odds :math:`s` become :math:`(0, s)`), else log posteriors."""
    S = np.asarray(est.decision_function(X)) if hasattr(est, "decision_function") else _log_proba(est, X)
    if S.ndim == 1:
        S = np.column_stack([np.zeros_like(S), S])
    return S


def _check_scoring(estimator) -> None:
    if not any(hasattr(estimator, a) for a in ("decision_function", "predict_proba", "predict_log_proba")):
        raise TypeError(
            f"{type(estimator).__name__} has neither decision_function nor predict_proba: the "
            "multi-class schemes need a score from each binary classifier."
        )


class _MulticlassBase(ClassifierMixin, BaseEstimator):
    """Shared glue: validation, sample-weight pass-through, tags, predict from class scores."""

    _strategy = ""

    def __init__(self, estimator):
        self.estimator = estimator

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(self.estimator)
        tags.input_tags.sparse = inner.input_tags.sparse
        tags.input_tags.positive_only = inner.input_tags.positive_only
        tags.classifier_tags.poor_score = inner.classifier_tags.poor_score
        return tags

    def _validate(self, X, y, sample_weight):
        """validate_fit, plus the checks the binary sub-problems need."""
        _check_scoring(self.estimator)
        data = validate_fit(
            self, X, y, sample_weight, accept_sparse=get_tags(self.estimator).input_tags.sparse
        )
        if data.sample_weight is not None:
            if not has_fit_parameter(self.estimator, "sample_weight"):
                raise TypeError(
                    f"{type(self.estimator).__name__}.fit does not accept sample_weight; fit "
                    f"{type(self).__name__} without sample_weight or use another base estimator."
                )
        return data

    def _fit_clone(self, X, y, sample_weight):
        est = clone(self.estimator)
        if sample_weight is None:
            return est.fit(X, y)
        return est.fit(X, y, sample_weight=sample_weight)

    def _check_weighted_classes(self, data) -> None:
        """Every class needs positive weight: each binary problem needs two classes."""
        if data.sample_weight is None:
            return
        totals = np.bincount(data.y, weights=data.sample_weight, minlength=data.classes.size)
        if np.any(totals <= 0):
            empty = data.classes[totals <= 0].tolist()
            raise ValueError(
                f"{type(self).__name__}: class(es) {empty} have zero total sample_weight, so their "
                "binary problems hold a single class. Drop those samples or give them positive weight."
            )

    def _X(self, X):
        check_is_fitted(self)
        return validate_predict(self, X, accept_sparse=get_tags(self.estimator).input_tags.sparse)

    def _scores(self, X) -> np.ndarray:
        """Class scores of shape (n_samples, n_classes); predict is their arg max."""
        raise NotImplementedError

    def _ambiguous_from(self, X) -> np.ndarray:
        raise NotImplementedError

    def predict(self, X):
        """The class with the largest score (see the class docstring for the scheme's rule).

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        scores = self._scores(self._X(X))
        return self.classes_[np.argmax(scores, axis=1)]

    def ambiguous(self, X) -> np.ndarray:
        """Boolean mask of shape (n_samples,): the points in the scheme's ambiguous region."""
        return self._ambiguous_from(self._X(X))

    def summary(self, X) -> MulticlassSummary:
        """How many points of X the scheme leaves ambiguous, as a :class:`MulticlassSummary`."""
        mask = self.ambiguous(X)
        return MulticlassSummary(
            strategy=self._strategy, n_classes=int(self.classes_.size),
            n_estimators=len(self.estimators_), n_samples=int(mask.size),
            n_ambiguous=int(mask.sum()), fraction_ambiguous=float(mask.mean()),
        )

    @available_if(_has("predict_proba"))
    def predict_proba(self, X):
        """Class probabilities of shape (n_samples, n_classes); rows sum to one (see the class
        docstring for how they are formed)."""
        return np.exp(self.predict_log_proba(X))


# ============================================================================= one-versus-rest


class OneVsRestClassifier(_MulticlassBase):
    """One-versus-the-rest: a binary classifier per class, "class k" against every other class.

    Seed 003 (sec. 6.1.2) builds K-1 such classifiers; here there are K, one per class, so that every
    class has a score :math:`y_k(x)` (the binary model's log-odds of "class k"), and x is predicted as
    :math:`\\arg\\max_k y_k(x)`.  Points that no classifier, or more than one, claims
    (:math:`y_k(x) > 0`) form the seed's ambiguous region (:meth:`ambiguous`).  With two classes the
    two problems are one, so a single binary classifier is fitted (as scikit-learn does).

    ``predict_proba`` normalises the binary probabilities of "class k":
    :math:`p_k(x) = P_k(k \\mid x) / \\sum_j P_j(j \\mid x)`, computed in log space (log-sum-exp), so it
    sums to one and its log is finite.  It is a heuristic (the K binary models are fitted separately
    and need not be coherent), the same as scikit-learn's OneVsRestClassifier.

    Parameters
    ----------
    estimator : classifier
        Cloned once per class, fitted on ``y == k`` (labels 0 / 1); needs ``decision_function`` or
        ``predict_proba``.  ``sample_weight`` is passed through.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    estimators_ : list of K fitted binary estimators (one for two classes)
    n_features_in_, feature_names_in_ : as in scikit-learn
    """

    _strategy = "one-vs-rest"

    def fit(self, X, y, sample_weight=None):
        """Fit one binary classifier per class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        data = self._validate(X, y, sample_weight)
        self._check_weighted_classes(data)
        K = data.classes.size
        targets = [1] if K == 2 else range(K)
        self.estimators_ = [
            self._fit_clone(data.X, (data.y == k).astype(np.intp), data.sample_weight) for k in targets
        ]
        self.classes_ = data.classes
        return self

    def _scores(self, X) -> np.ndarray:
        S = np.column_stack([_binary_score(est, X) for est in self.estimators_])
        return np.column_stack([-S[:, 0], S[:, 0]]) if self.classes_.size == 2 else S

    def _ambiguous_from(self, X) -> np.ndarray:
        return ovr_ambiguous(self._scores(X))

    def decision_function(self, X):
        """:math:`y_k(x)`: shape (n_samples, n_classes), or (n_samples,) for two classes (positive
        towards ``classes_[1]``)."""
        S = self._scores(self._X(X))
        return S[:, 1] if S.shape[1] == 2 else S

    @available_if(_has("predict_proba"))
    def predict_log_proba(self, X):
        """:math:`\\ln P_k(k\\mid x) - \\ln\\sum_j P_j(j\\mid x)`, shape (n_samples, n_classes); finite."""
        X = self._X(X)
        if self.classes_.size == 2:
            return _log_proba(self.estimators_[0], X)
        logp = np.column_stack([_log_proba(est, X)[:, 1] for est in self.estimators_])
        return logp - logsumexp(logp, axis=1, keepdims=True)


# ============================================================================= one-versus-one


class OneVsOneClassifier(_MulticlassBase):
    """One-versus-one: a binary classifier for every pair of classes, and a majority vote.

    The K(K-1)/2 classifiers (seed 003 sec. 6.1.2) each vote for one class of their pair; x goes to the
    class with the most votes.  Tie rule: among classes tied for the most votes, the one with the
    largest summed pairwise confidence (the decision values :math:`y_{ij}(x)`, counted for the class
    they favour and against the other); then the lowest class index (see :func:`ovo_scores`; the same
    rule as scikit-learn).  Points where the vote is tied at the top are the seed's ambiguous region
    (:meth:`ambiguous`).

    ``predict_proba`` couples the pairwise probabilities :math:`P(j \\mid \\{i, j\\}, x)` by Wu, Lin &
    Weng's least-squares method (:func:`couple_pairwise`): a genuine probability estimate, which sums to
    one and is never NaN.  Like LIBSVM's, its arg max is the vote's winner except, possibly, near the
    pairwise boundaries, where the coupled probabilities weigh confidences that the vote counts as
    whole votes.  With two classes it is the single binary model's probability.

    Parameters
    ----------
    estimator : classifier
        Cloned once per pair :math:`(i, j)`, fitted on the samples of the two classes with label 1 for
        j; needs ``decision_function`` or ``predict_proba``.  ``sample_weight`` is passed through.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    estimators_ : list of K(K-1)/2 fitted binary estimators, in the order of ``pairs_``
    pairs_ : ndarray of shape (K(K-1)/2, 2)
        Class indices :math:`(i, j)`, :math:`i < j`, of each estimator.
    n_features_in_, feature_names_in_ : as in scikit-learn
    """

    _strategy = "one-vs-one"

    def fit(self, X, y, sample_weight=None):
        """Fit one binary classifier per pair of classes.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        data = self._validate(X, y, sample_weight)
        self._check_weighted_classes(data)
        K = data.classes.size
        pairs = np.array([(i, j) for i in range(K) for j in range(i + 1, K)], dtype=np.intp)
        estimators = []
        for i, j in pairs:
            rows = np.flatnonzero((data.y == i) | (data.y == j))
            w = None if data.sample_weight is None else data.sample_weight[rows]
            estimators.append(self._fit_clone(data.X[rows], (data.y[rows] == j).astype(np.intp), w))
        self.estimators_ = estimators
        self.pairs_ = pairs
        self.classes_ = data.classes
        return self

    def _votes_and_confidence(self, X):
        positive = np.column_stack([est.predict(X) == 1 for est in self.estimators_])
        confidence = np.column_stack([_binary_score(est, X) for est in self.estimators_])
        return ovo_votes(positive, self.pairs_, self.classes_.size), confidence

    def _scores(self, X) -> np.ndarray:
        votes, confidence = self._votes_and_confidence(X)
        return ovo_scores(votes, confidence, self.pairs_)

    def _ambiguous_from(self, X) -> np.ndarray:
        return ovo_ambiguous(self._votes_and_confidence(X)[0])

    def decision_function(self, X):
        """Vote-based scores :math:`s_k(x)` of :func:`ovo_scores`, shape (n_samples, n_classes); for two
        classes, :math:`s_1 - s_0` of shape (n_samples,) (positive towards ``classes_[1]``)."""
        S = self._scores(self._X(X))
        return S[:, 1] - S[:, 0] if S.shape[1] == 2 else S

    @available_if(_has("predict_proba"))
    def predict_log_proba(self, X):
        """Log of the coupled probabilities, shape (n_samples, n_classes); finite."""
        X = self._X(X)
        if self.classes_.size == 2:
            return _log_proba(self.estimators_[0], X)
        r = np.column_stack([np.exp(_log_proba(est, X)[:, 1]) for est in self.estimators_])
        return np.log(couple_pairwise(r, self.pairs_, self.classes_.size))


# ============================================================================= single K-class discriminant


class KClassDiscriminant(_MulticlassBase):
    """The single K-class discriminant of seed 003 (sec. 6.1.2, Bishop eq. 4.9):

    .. math::  y_k(x) = w_k^Tx + w_{k0},\\qquad x \\mapsto \\arg\\max_k y_k(x)

    One estimator whose ``decision_function`` gives K class scores (or, for two classes, the log-odds
    :math:`s`, read as the scores :math:`(0, s)`) is fitted on all classes at once.  The boundary
    between classes k and j is the hyperplane :math:`(w_k - w_j)^Tx + (w_{k0} - w_{j0}) = 0`, the
    regions are convex, and nothing is ambiguous: :meth:`ambiguous` is True only at exact ties of
    the largest score (points on a boundary).  Ties go to the lowest class index.

    ``predict_proba`` / ``predict_log_proba`` are the estimator's own (for a linear model, the softmax
    of the scores).

    Parameters
    ----------
    estimator : classifier
        Fitted on the original labels; needs ``decision_function`` (or probabilities, whose logs
        serve as scores).  ``sample_weight`` is passed through.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    estimator_ : the fitted estimator
    estimators_ : list holding ``estimator_``
    n_features_in_, feature_names_in_ : as in scikit-learn
    """

    _strategy = "K-class discriminant"

    def fit(self, X, y, sample_weight=None):
        """Fit the estimator on all classes.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        data = self._validate(X, y, sample_weight)
        self.estimator_ = self._fit_clone(data.X, data.classes[data.y], data.sample_weight)
        self.estimators_ = [self.estimator_]
        self.classes_ = data.classes
        return self

    def _scores(self, X) -> np.ndarray:
        return _class_scores(self.estimator_, X)

    def _ambiguous_from(self, X) -> np.ndarray:
        return top_tied(self._scores(X))

    def decision_function(self, X):
        """:math:`y_k(x)`: shape (n_samples, n_classes), or the log-odds (n_samples,) for two classes."""
        S = self._scores(self._X(X))
        return S[:, 1] - S[:, 0] if S.shape[1] == 2 else S

    @available_if(_has("predict_proba"))
    def predict_log_proba(self, X):
        """The estimator's log posteriors, shape (n_samples, n_classes)."""
        X = self._X(X)
        return _log_proba(self.estimator_, X)
