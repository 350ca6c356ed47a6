"""What the multi-class estimators share: the summary record, the scores read from a fitted binary
estimator, and the base class (validation and fit, sample-weight pass-through, tags, predict
from class scores).  The schemes themselves are :mod:`linclass.estimators.multiclass`; their mathematics
:mod:`linclass.strategies.voting`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from linclass.core.validation import validate_fit, validate_predict
from linclass.estimators.wrapped import check_weight_passthrough, fit_clone

__all__ = [
    "MulticlassBase",
    "MulticlassSummary",
    "binary_score",
    "check_scoring",
    "class_scores",
    "has_method",
    "log_proba",
]

_TINY = np.finfo(np.float64).tiny  # smallest positive normal float: floor that keeps log(p) finite


@dataclass(frozen=True)
class MulticlassSummary:
    """How a multi-class scheme treats a data set: how many points fall in an ambiguous region.

    Attributes
    ----------
    strategy : str
        The scheme's name.
    n_classes, n_estimators : int
        Classes, and estimators fitted.
    n_samples, n_ambiguous : int
        Rows summarised, and how many of them lie in an ambiguous region.
    fraction_ambiguous : float
        ``n_ambiguous / n_samples``.
    """

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


def has_method(attr: str):
    """available_if test: the (fitted, else unfitted) base estimator has ``attr``."""

    def check(self) -> bool:
        base = self.estimators_[0] if hasattr(self, "estimators_") else self.estimator
        return hasattr(base, attr)

    return check


def log_proba(est, X: np.ndarray) -> np.ndarray:
    """``est.predict_log_proba(X)``, or the log of ``predict_proba`` floored so that it is finite."""
    if hasattr(est, "predict_log_proba"):
        return est.predict_log_proba(X)
    return np.log(np.maximum(est.predict_proba(X), _TINY))


def binary_score(est, X: np.ndarray) -> np.ndarray:
    """Decision value of a fitted binary estimator, positive towards its ``classes_[1]``: its
    ``decision_function``, else the log-odds from its probabilities.  Shape (n_samples,)."""
    if hasattr(est, "decision_function"):
        return np.asarray(est.decision_function(X)).reshape(X.shape[0])
    logp = log_proba(est, X)
    return logp[:, 1] - logp[:, 0]


def class_scores(est, X: np.ndarray) -> np.ndarray:
    """Class scores of shape (n_samples, n_classes) of a fitted estimator: ``decision_function``
    (two-class log-odds :math:`s` become :math:`(0, s)`), else log posteriors."""
    S = np.asarray(est.decision_function(X)) if hasattr(est, "decision_function") else log_proba(est, X)
    if S.ndim == 1:
        S = np.column_stack([np.zeros_like(S), S])
    return S


def check_scoring(estimator) -> None:
    """Refuse a base estimator that gives no score (no decision function, no probabilities)."""
    if not any(hasattr(estimator, a) for a in ("decision_function", "predict_proba", "predict_log_proba")):
        raise TypeError(
            f"{type(estimator).__name__} has neither decision_function nor predict_proba: the "
            "multi-class schemes need a score from each binary classifier."
        )


class MulticlassBase(ClassifierMixin, BaseEstimator):
    """Shared glue: validation and fit, sample-weight pass-through, tags, predict from class scores."""

    _strategy = ""

    def __init__(self, estimator: BaseEstimator) -> None:
        self.estimator = estimator

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit the scheme's estimators (see the class docstring): clones of ``estimator``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Passed through to the estimators' ``fit``.

        Returns
        -------
        self
        """
        check_scoring(self.estimator)
        data = validate_fit(
            self, X, y, sample_weight, accept_sparse=get_tags(self.estimator).input_tags.sparse
        )
        check_weight_passthrough(self, data.sample_weight)
        self._fit_estimators(data)
        self.classes_ = data.classes
        return self

    def _fit_estimators(self, data) -> None:
        """Set the fitted estimators' attributes from the validated ``data``."""
        raise NotImplementedError

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(self.estimator)
        tags.input_tags.sparse = inner.input_tags.sparse
        tags.input_tags.positive_only = inner.input_tags.positive_only
        tags.classifier_tags.poor_score = inner.classifier_tags.poor_score
        return tags

    def _fit_clone(self, X, y, sample_weight):
        return fit_clone(self.estimator, X, y, sample_weight)

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

    def predict(self, X: ArrayLike) -> np.ndarray:
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

    @available_if(has_method("predict_proba"))
    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Class probabilities of shape (n_samples, n_classes); rows sum to one (see the class
        docstring for how they are formed)."""
        return np.exp(self.predict_log_proba(X))
