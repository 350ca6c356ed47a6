"""K classes from two-class discriminants: one-versus-rest, one-versus-one, and the single K-class
discriminant (Bishop 2006 sec. 4.1.2).

Bishop shows why the first two are awkward: combining two-class discriminants leaves *ambiguous
regions* (his Figure 4.2).  One-versus-rest: a point that no classifier claims ("class k", not "the
rest"), or that several claim.  One-versus-one: a point where the majority vote is tied.  The single
K-class discriminant :math:`y_k(x) = w_k^Tx + w_{k0}`, assigning :math:`x` to :math:`\\arg\\max_k y_k(x)`,
has none: its decision regions are singly connected and convex, and only the boundaries themselves
(exact ties) are undecided.  Each estimator here can say which points are ambiguous
(:meth:`ambiguous`) and how many (:meth:`summary`).

The mathematics (votes, scores, ambiguity, pairwise coupling) is :mod:`linclass.strategies.voting`; the
estimator classes validate, fit clones of the base estimator, and call it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import logsumexp
from sklearn.utils.metaestimators import available_if

from linclass.strategies.voting import (
    couple_pairwise,
    ovo_ambiguous,
    ovo_scores,
    ovo_votes,
    ovr_ambiguous,
    top_tied,
)
from linclass.estimators.multiclass_base import (
    MulticlassBase,
    binary_score,
    class_scores,
    has_method,
    log_proba,
)

__all__ = ["KClassDiscriminant", "OneVsOneClassifier", "OneVsRestClassifier"]


# ============================================================================= one-versus-rest


class OneVsRestClassifier(MulticlassBase):
    """One-versus-the-rest: a binary classifier per class, "class k" against every other class.

    Bishop (2006 sec. 4.1.2) builds K-1 such classifiers; here there are K, one per class, so that every
    class has a score :math:`y_k(x)` (the binary model's log-odds of "class k"), and x is predicted as
    :math:`\\arg\\max_k y_k(x)`.  Points that no classifier, or more than one, claims
    (:math:`y_k(x) > 0`) form the ambiguous region (:meth:`ambiguous`).  With two classes the
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

    See Also
    --------
    linclass.OneVsOneClassifier : One binary model per pair of classes.
    linclass.KClassDiscriminant : One K-class discriminant over a multi-class estimator.
    sklearn.multiclass.OneVsRestClassifier : scikit-learn's version, the same interface.

    Examples
    --------
    >>> import linclass
    >>> X, y, *_ = linclass.datasets.load_dataset('iris')
    >>> ovr = linclass.OneVsRestClassifier(linclass.LogisticRegression())
    >>> len(ovr.fit(X, y).estimators_)
    3
    >>> ovr.predict(X[[0, 50, 100]]), ovr.predict_proba(X[:2]).shape
    (array([0, 1, 2]), (2, 3))
    >>> int(ovr.ambiguous(X).sum())  # flowers that no binary model, or more than one, claims
    39
    """

    _strategy = "one-vs-rest"

    def _fit_estimators(self, data) -> None:
        """Fit one binary classifier per class."""
        self._check_weighted_classes(data)
        K = data.classes.size
        targets = [1] if K == 2 else range(K)
        self.estimators_ = [
            self._fit_clone(data.X, (data.y == k).astype(np.intp), data.sample_weight) for k in targets
        ]

    def _scores(self, X) -> np.ndarray:
        S = np.column_stack([binary_score(est, X) for est in self.estimators_])
        return np.column_stack([-S[:, 0], S[:, 0]]) if self.classes_.size == 2 else S

    def _ambiguous_from(self, X) -> np.ndarray:
        return ovr_ambiguous(self._scores(X))

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """:math:`y_k(x)`: shape (n_samples, n_classes), or (n_samples,) for two classes (positive
        towards ``classes_[1]``)."""
        S = self._scores(self._X(X))
        return S[:, 1] if S.shape[1] == 2 else S

    @available_if(has_method("predict_proba"))
    def predict_log_proba(self, X: ArrayLike) -> np.ndarray:
        """:math:`\\ln P_k(k\\mid x) - \\ln\\sum_j P_j(j\\mid x)`, shape (n_samples, n_classes); finite."""
        X = self._X(X)
        if self.classes_.size == 2:
            return log_proba(self.estimators_[0], X)
        logp = np.column_stack([log_proba(est, X)[:, 1] for est in self.estimators_])
        return logp - logsumexp(logp, axis=1, keepdims=True)


# ============================================================================= one-versus-one


class OneVsOneClassifier(MulticlassBase):
    """One-versus-one: a binary classifier for every pair of classes, and a majority vote.

    The K(K-1)/2 classifiers (Bishop 2006 sec. 4.1.2) each vote for one class of their pair; x goes to the
    class with the most votes.  Tie rule: among classes tied for the most votes, the one with the
    largest summed pairwise confidence (the decision values :math:`y_{ij}(x)`, counted for the class
    they favour and against the other); then the lowest class index (see
    :func:`~linclass.strategies.voting.ovo_scores`; the same rule as scikit-learn).  Points where the vote is
    tied at the top are the ambiguous region (:meth:`ambiguous`).

    ``predict_proba`` couples the pairwise probabilities :math:`P(j \\mid \\{i, j\\}, x)` by Wu, Lin &
    Weng's least-squares method (:func:`~linclass.strategies.voting.couple_pairwise`): a genuine probability
    estimate, which sums to one and is never NaN.  Like LIBSVM's, its arg max is the vote's winner
    except, possibly, near the pairwise boundaries, where the coupled probabilities weigh confidences
    that the vote counts as whole votes.  With two classes it is the single binary model's
    probability.

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

    See Also
    --------
    linclass.OneVsRestClassifier : One binary model per class against the rest.
    linclass.KClassDiscriminant : One K-class discriminant over a multi-class estimator.
    sklearn.multiclass.OneVsOneClassifier : scikit-learn's version, the same interface.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> import linclass
    >>> X, y = load_digits(return_X_y=True)  # 8 x 8 images of the digits 0 to 9
    >>> ovo = linclass.OneVsOneClassifier(linclass.GaussianNB()).fit(X, y)
    >>> len(ovo.estimators_), ovo.pairs_[:3].tolist()  # 10 digits: 45 pairs, each its own model
    (45, [[0, 1], [0, 2], [0, 3]])
    >>> ovo.predict(X[:5])  # by the pairwise votes: the 2 is read as an 8
    array([0, 1, 8, 3, 4])
    """

    _strategy = "one-vs-one"

    def _fit_estimators(self, data) -> None:
        """Fit one binary classifier per pair of classes."""
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

    def _votes_and_confidence(self, X):
        positive = np.column_stack([est.predict(X) == 1 for est in self.estimators_])
        confidence = np.column_stack([binary_score(est, X) for est in self.estimators_])
        return ovo_votes(positive, self.pairs_, self.classes_.size), confidence

    def _scores(self, X) -> np.ndarray:
        votes, confidence = self._votes_and_confidence(X)
        return ovo_scores(votes, confidence, self.pairs_)

    def _ambiguous_from(self, X) -> np.ndarray:
        return ovo_ambiguous(self._votes_and_confidence(X)[0])

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Vote-based scores :math:`s_k(x)` of :func:`~linclass.strategies.voting.ovo_scores`, shape
        (n_samples, n_classes); for two classes, :math:`s_1 - s_0` of shape (n_samples,) (positive
        towards ``classes_[1]``)."""
        S = self._scores(self._X(X))
        return S[:, 1] - S[:, 0] if S.shape[1] == 2 else S

    @available_if(has_method("predict_proba"))
    def predict_log_proba(self, X: ArrayLike) -> np.ndarray:
        """Log of the coupled probabilities, shape (n_samples, n_classes); finite."""
        X = self._X(X)
        if self.classes_.size == 2:
            return log_proba(self.estimators_[0], X)
        r = np.column_stack([np.exp(log_proba(est, X)[:, 1]) for est in self.estimators_])
        return np.log(couple_pairwise(r, self.pairs_, self.classes_.size))


# ============================================================================= single K-class discriminant


class KClassDiscriminant(MulticlassBase):
    """The single K-class discriminant (Bishop 2006 sec. 4.1.2, eq. 4.9), one linear score per class
    and the largest wins.

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

    See Also
    --------
    linclass.OneVsRestClassifier : One binary model per class against the rest.
    linclass.OneVsOneClassifier : One binary model per pair of classes.
    sklearn.multiclass.OneVsRestClassifier : scikit-learn has no K-class discriminant wrapper;
        its one-vs-rest scheme is the nearest.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> import linclass
    >>> X, y = load_iris(return_X_y=True)
    >>> logistic = linclass.LogisticRegression()
    >>> model = linclass.KClassDiscriminant(logistic).fit(X, y)
    >>> model.decision_function(X[[0, 50, 100]]).argmax(axis=1)  # the largest of 3 scores wins
    array([0, 1, 2])
    >>> ovr = linclass.OneVsRestClassifier(logistic).fit(X, y)
    >>> int(model.ambiguous(X).sum()), int(ovr.ambiguous(X).sum())  # convex regions: none undecided
    (0, 39)
    """

    _strategy = "K-class discriminant"

    def _fit_estimators(self, data) -> None:
        """Fit the estimator on all classes."""
        self.estimator_ = self._fit_clone(data.X, data.classes[data.y], data.sample_weight)
        self.estimators_ = [self.estimator_]

    def _scores(self, X) -> np.ndarray:
        return class_scores(self.estimator_, X)

    def _ambiguous_from(self, X) -> np.ndarray:
        return top_tied(self._scores(X))

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """:math:`y_k(x)`: shape (n_samples, n_classes), or the log-odds (n_samples,) for two classes."""
        S = self._scores(self._X(X))
        return S[:, 1] - S[:, 0] if S.shape[1] == 2 else S

    @available_if(has_method("predict_proba"))
    def predict_log_proba(self, X: ArrayLike) -> np.ndarray:
        """The estimator's log posteriors, shape (n_samples, n_classes)."""
        X = self._X(X)
        return log_proba(self.estimator_, X)
