"""Naive Bayes for categorical features (scikit-learn's CategoricalNB), on the class-statistics spine:
validate -> category codes -> one-hot indicators -> :class:`~linclass.generative.class_stats.ClassStats`
(the category counts per class) -> :func:`linclass.generative.categorical.estimate` -> scores.
No mathematics here."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils._param_validation import Interval

from linclass.generative.class_stats import ClassStats
from linclass.core.validation import check_finite, explain_non_finite
from linclass.generative.priors import class_log_priors
from linclass.estimators.naive_bayes import _DiscreteNB
from linclass.generative import categorical

__all__ = ["CategoricalNB"]


class CategoricalNB(_DiscreteNB):
    """Naive Bayes for categorical features: feature j takes a category :math:`c \\in \\{0, \\dots,
    m_j - 1\\}` with probability :math:`\\theta_{kjc} = (N_{kjc} + \\alpha) / (n_k + \\alpha m_j)` in
    class k (:mod:`linclass.generative.categorical`).  Same model as scikit-learn's CategoricalNB.

    The category counts :math:`N_{kjc}` are class statistics of the one-hot indicators of X, so the
    fit is one sparse product and ``partial_fit`` streams (new categories in later batches widen
    the model).  A category never seen in training gets count zero in every class (scikit-learn
    raises an IndexError).

    Parameters
    ----------
    alpha : float >= 0, default=1.0
        Additive smoothing (values below 1e-10 are raised to 1e-10 with a warning).
    force_alpha, fit_prior, class_prior : as in MultinomialNB
    min_categories : int, array-like of shape (n_features,) or None, default=None
        Least number of categories per feature: :math:`m_j = \\max(\\text{min\\_categories}_j,
        1 + \\max_i x_{ij})`.
    priors : array-like of shape (n_classes,), default=None
        Same as ``class_prior`` (the name of the other linclass naive Bayes models).

    Attributes
    ----------
    n_categories_ : ndarray of shape (n_features,), int
        :math:`m_j`.
    category_count_ : list of n_features ndarrays of shape (n_classes, m_j)
        :math:`N_{kjc}`, the (weighted) count of category c of feature j in class k.
    feature_log_prob_ : list of n_features ndarrays of shape (n_classes, m_j)
        :math:`\\ln\\theta_{kjc}`.
    class_log_prior_, classes_, class_count_, priors_ : per class
    stats_ : ClassStats
        The class statistics of the one-hot indicators.
    model_ : DiscreteModel
        The fitted model (``event_model='categorical'``).
    n_features_in_, feature_names_in_ : as in scikit-learn

    See Also
    --------
    linclass.BernoulliNB : Two levels per feature.
    linclass.MultinomialNB : Counts.
    sklearn.naive_bayes.CategoricalNB : scikit-learn's categorical naive Bayes, the same
        interface.

    Examples
    --------
    >>> import numpy as np
    >>> import linclass
    >>> X = np.array([[0, 1], [0, 2], [1, 0], [1, 1], [2, 0], [2, 2]])
    >>> y = np.array([0, 0, 1, 1, 1, 0])
    >>> nb = linclass.CategoricalNB().fit(X, y)
    >>> nb.predict([[0, 2], [2, 0]])
    array([0, 1])
    >>> [len(table) for table in nb.category_count_]
    [2, 2]
    """

    _event_model = "categorical"
    _accept_sparse = False
    _parameter_constraints = {
        **_DiscreteNB._parameter_constraints,
        "alpha": [Interval(Real, 0, None, closed="left")],
        "min_categories": [None, "array-like", Interval(Integral, 1, None, closed="left")],
    }
    fit_source = None  # chunked fits would need every category up front: not offered

    def __init__(self, *, alpha: float = 1.0, force_alpha: bool = True, fit_prior: bool = True,
                 class_prior: ArrayLike | None = None,
                 min_categories: int | ArrayLike | None = None,
                 priors: ArrayLike | None = None) -> None:
        super().__init__(alpha=alpha, force_alpha=force_alpha, fit_prior=fit_prior,
                         class_prior=class_prior, priors=priors)
        self.min_categories = min_categories

    def _fit_source(self, source, *, first: bool = True):
        raise ValueError("CategoricalNB needs the rows in memory (its categories are found as they "
                         "come); fit it on a NumPy array or DataFrame.")

    def _codes(self, X, known=None) -> np.ndarray:
        check_finite(X, feature_names=getattr(self, "feature_names_in_", None))
        return categorical.check_categories(X, type(self).__name__, known)

    def _least_categories(self, d: int) -> np.ndarray:
        if self.min_categories is None:
            return np.zeros(d, dtype=np.intp)
        least = np.asarray(self.min_categories)
        if least.ndim == 0:
            return np.full(d, int(least), dtype=np.intp)
        if least.shape != (d,) or not np.issubdtype(least.dtype, np.integer) or np.any(least < 1):
            raise ValueError(f"min_categories must be an integer >= 1 or {d} of them (one per "
                             f"feature): 'min_categories' should have shape ({d},) when an "
                             f"array-like is provided, with integers >= 1; got shape {least.shape}, "
                             f"{least.tolist()!r}.")
        return least.astype(np.intp)

    def _absorb(self, data, whole: bool = False):
        codes = self._codes(data.X)
        d = codes.shape[1]
        seen = codes.max(axis=0) + 1 if codes.shape[0] else np.zeros(d, dtype=np.intp)
        n_categories = np.maximum(seen, self._least_categories(d)).astype(np.intp)
        if hasattr(self, "stats_"):  # partial_fit: new categories widen the running counts
            old = self.n_categories_
            n_categories = np.maximum(n_categories, old)
            self.stats_ = categorical.widen(self.stats_, old, n_categories)
        self.n_categories_ = n_categories
        batch = ClassStats.from_batch(categorical.one_hot(codes, n_categories), data.y, data.classes,
                                      data.sample_weight, kind="mean")
        explain_non_finite(self, data.X, *batch.arrays())
        return self._install(batch)

    def _estimate(self, stats, priors):
        return categorical.estimate(stats, self.n_categories_, class_log_priors(stats, priors),
                                    self.alpha)

    def _prepare(self, X):
        return self._codes(X, self.n_categories_)

    def _joint_log_likelihood(self, model, codes):
        return categorical.joint_log_likelihood(model, codes, self.n_categories_, self.class_count_)

    def _describe(self, model) -> None:
        self.class_log_prior_ = model.log_priors

    @property
    def category_count_(self) -> list:
        """The counts :math:`N_{kjc}`, one array of shape (n_classes, m_j) per feature."""
        return categorical.regroup(self.stats_.sums(), self.n_categories_)

    @property
    def feature_log_prob_(self) -> list:
        """The log-probabilities :math:`\\ln\\theta_{kjc}`, one array of shape (n_classes, m_j) per
        feature."""
        return categorical.regroup(self.model_.log_params, self.n_categories_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        tags.input_tags.categorical = True
        tags.input_tags.positive_only = True
        return tags
