"""Regularised discriminant analysis (Friedman 1989), and its cross-validated choice of the two
regularisation parameters.

validate -> :class:`~linclass.generative.class_stats.ClassStats` -> (the grid's scores,
:mod:`linclass.selection.regularized_cv`) -> :func:`linclass.generative.regularized.estimate` ->
QDA's scores -> :mod:`linclass.core.posterior`.  No mathematics lives here.
"""

from __future__ import annotations

from typing import Any
import functools
from numbers import Integral, Real

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.metaestimators import available_if

from linclass.generative.class_stats import ClassStats
from linclass.core.validation import explain_non_finite, explain_underflow, validate_priors
from linclass.selection.scoring import SCORINGS
from linclass.estimators.gaussian_base import _GaussianBase
from linclass.estimators.stats_classifier import StatsClassifier
from linclass.generative import gaussian_scores, regularized
from linclass.selection import chunked, fold_rules, regularized_cv
from linclass.selection.downdate import without
from linclass.selection import regularized_loo

__all__ = ["RegularizedDiscriminantAnalysis", "RegularizedDiscriminantAnalysisCV"]


class RegularizedDiscriminantAnalysis(_GaussianBase):
    """Friedman's regularised discriminant analysis: between QDA and LDA, and towards the identity.

    Each class's covariance is

    .. math::

        \\Sigma_k(\\lambda) = \\frac{(1-\\lambda) S_k + \\lambda S_W}{(1-\\lambda) n_k + \\lambda n},
        \\qquad
        \\Sigma_k(\\lambda, \\gamma) = (1-\\gamma)\\,\\Sigma_k(\\lambda)
            + \\gamma\\,\\frac{\\mathrm{tr}\\,\\Sigma_k(\\lambda)}{d}\\, I

    (:mod:`linclass.generative.regularized`), and classes are scored as in QDA.  ``pooling=1,
    shrinkage=0`` is LDA (every class gets :math:`S_W/n`), ``pooling=0, shrinkage=0`` is QDA (the
    maximum-likelihood :math:`S_k/n_k`).  To choose both parameters by cross-validation use
    :class:`RegularizedDiscriminantAnalysisCV`.

    Parameters
    ----------
    pooling : float in [0, 1], default=0.5
        :math:`\\lambda`: weight of the pooled covariance.
    shrinkage : float in [0, 1], default=0.1
        :math:`\\gamma`: shrinkage towards :math:`(\\mathrm{tr}\\,\\Sigma_k(\\lambda)/d)\\,I`, in the
        units of X (standardize features of very different scales first).
    priors : array-like of shape (n_classes,), default=None
    tol : float, default=1e-10
        A singular :math:`\\Sigma_k(\\lambda,\\gamma)` (possible only with ``shrinkage=0``) has its
        eigenvalues floored at ``tol`` times the largest, with a
        :class:`~linclass.SingularCovarianceWarning`.

    Attributes
    ----------
    classes_, class_count_, priors_, means_, stats_, model_ : see GaussianDiscriminantAnalysis
    covariance_ : ndarray of shape (n_classes, d, d)
        :math:`\\Sigma_k(\\lambda, \\gamma)`.
    rank_ : ndarray of shape (n_classes,)
    quadratic_, linear_, constant_ : ndarrays of shape (K, d, d), (K, d), (K,)
        The quadratic form :math:`\\ln p(x, C_k) = x^TQ_kx + l_k^Tx + c_k`.

    See Also
    --------
    linclass.RegularizedDiscriminantAnalysisCV : Chooses ``pooling`` and ``shrinkage`` by
        cross-validation.
    linclass.LinearDiscriminantAnalysis : ``pooling=1, shrinkage=0``.
    linclass.QuadraticDiscriminantAnalysis : ``pooling=0, shrinkage=0``.
    sklearn.discriminant_analysis.QuadraticDiscriminantAnalysis : scikit-learn's ``reg_param``
        shrinks towards the identity only; R's counterpart is ``klaR::rda``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> import linclass
    >>> X, y = load_iris(return_X_y=True)
    >>> for pooling in (0.0, 0.5, 1.0):  # QDA's covariances, halfway, LDA's pooled one
    ...     rda = linclass.RegularizedDiscriminantAnalysis(pooling=pooling, shrinkage=0.0)
    ...     print(pooling, rda.fit(X, y).covariance_[:, 0, 0].round(3))  # sepal length's variance
    0.0 [0.122 0.261 0.396]
    0.5 [0.225 0.26  0.294]
    1.0 [0.26 0.26 0.26]
    """

    _fixed_covariance_type = "full"
    _parameter_constraints = {
        "pooling": [Interval(Real, 0, 1, closed="both")],
        "shrinkage": [Interval(Real, 0, 1, closed="both")],
        "priors": ["array-like", None],
        "tol": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, pooling: float = 0.5, shrinkage: float = 0.1, *,
                 priors: ArrayLike | None = None, tol: float = 1e-10) -> None:
        self.pooling = pooling
        self.shrinkage = shrinkage
        self.priors = priors
        self.tol = tol

    def _regularisation(self) -> tuple[float, float]:
        return float(self.pooling), float(self.shrinkage)

    def _stats_request(self) -> tuple[str, bool]:
        return "full", False

    def _estimate(self, stats, priors):
        pooling, shrinkage = self._regularisation()
        return regularized.estimate(stats, pooling, shrinkage, priors=priors, tol=self.tol)

    def _loo_scores(self, data):
        """Leave-one-out class scores (:func:`linclass.loo_predict_proba`)."""
        pooling, shrinkage = self._regularisation()
        priors = validate_priors(self.priors, self.stats_.n_classes)
        (scores,) = regularized_loo.loo_scores(self.stats_, data.X, data.y, data.sample_weight,
                                               pooling, [shrinkage], priors=priors)
        if scores is None:
            raise ValueError(
                "Leaving out some rows makes a class covariance singular: the closed-form "
                "leave-one-out needs non-singular covariances. Set shrinkage > 0."
            )
        return scores

    def _describe(self, model) -> None:
        super()._describe(model)
        self.rank_ = model.rank
        self.quadratic_, self.linear_, self.constant_ = gaussian_scores.quadratic_form(model)


def _search_only(self) -> bool:
    """partial_fit: a search over the grid needs the statistics of all rows before it scores
    any row, so there is no running model to update (a fit on Dask collections makes two passes)."""
    return False


class RegularizedDiscriminantAnalysisCV(RegularizedDiscriminantAnalysis):
    """Regularised discriminant analysis with :math:`(\\lambda, \\gamma)` chosen on a grid by
    cross-validation, then refitted on all rows.

    The whole grid comes from one set of class statistics: closed-form leave-one-out (``cv=None``;
    rank-one downdates, :mod:`linclass.selection.regularized_loo`) or K-fold, each training fold's
    statistics being the full statistics minus the fold's (:mod:`linclass.selection.regularized_cv`).
    Both are exact: the score of a grid point equals refitting the model for every left-out part.
    The refitted model has every attribute of :class:`RegularizedDiscriminantAnalysis` too.

    Parameters
    ----------
    poolings : int or array-like, default=10
        Grid of :math:`\\lambda` in [0, 1] (an int: that many equally spaced values from 0 to 1).
    shrinkages : int or array-like, default=10
        Grid of :math:`\\gamma` in [0, 1].
    cv : None, int, a scikit-learn splitter or an iterable of (train, test) indices, default=None
        None: leave-one-out in closed form; an int: that many stratified folds (in row order);
        a splitter or given splits: those folds (a training part that is the complement of its
        test part is obtained by subtracting statistics, any other by its own pass).  On Dask
        collections ``fit`` takes None (two passes over the data) or an int (three; two for
        'log_likelihood'), with the in-memory result.
    scoring : {'neg_log_loss', 'accuracy', 'log_likelihood'}, default='neg_log_loss'
        The criterion maximised (:mod:`linclass.selection.scoring`): the held-out log posterior of the
        true class (a proper score, smooth in the parameters), the share classified correctly
        (Friedman's criterion; coarse, with ties broken towards the first grid point), or the
        held-out joint log-likelihood :math:`\\ln p(x, y)` of the Gaussian model.
    priors : array-like of shape (n_classes,), default=None
    tol : float, default=1e-10

    Attributes
    ----------
    pooling_, shrinkage_ : float
        The chosen :math:`\\lambda, \\gamma` (the first best grid point, poolings first).
    poolings_, shrinkages_ : ndarray
        The grids.
    cv_scores_ : ndarray of shape (n_poolings, n_shrinkages)
        The criterion at every grid point (``-inf`` where a left-out fit is singular).
    best_score_ : float
        The criterion at the chosen grid point.

    See Also
    --------
    linclass.RegularizedDiscriminantAnalysis : The model at given ``pooling`` and ``shrinkage``.
    linclass.LogisticRegressionCV : Cross-validated penalised logistic regression.
    sklearn.model_selection.GridSearchCV : scikit-learn would search the grid by refitting each
        fold; here the class statistics are computed once per fold.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> import linclass
    >>> X, y = load_iris(return_X_y=True)
    >>> model = linclass.RegularizedDiscriminantAnalysisCV(poolings=3, shrinkages=[0.0, 0.1])
    >>> model = model.fit(X, y)  # leave-one-out, in closed form: no refit per left-out row
    >>> model.cv_scores_.round(3)  # held-out log posterior; rows: pooling 0, 0.5, 1
    array([[-0.058, -0.054],
           [-0.051, -0.052],
           [-0.054, -0.053]])
    >>> model.pooling_, model.shrinkage_  # halfway between QDA and LDA, no shrinkage
    (0.5, 0.0)
    """

    _parameter_constraints = {
        "poolings": [Interval(Integral, 1, None, closed="left"), "array-like"],
        "shrinkages": [Interval(Integral, 1, None, closed="left"), "array-like"],
        "cv": [Interval(Integral, 2, None, closed="left"), "cv_object", None],
        "scoring": [StrOptions(set(SCORINGS))],
        "priors": ["array-like", None],
        "tol": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, poolings: int | ArrayLike = 10, shrinkages: int | ArrayLike = 10, *,
                 cv: int | Any | None = None, scoring: str = "neg_log_loss",
                 priors: ArrayLike | None = None, tol: float = 1e-10) -> None:
        self.poolings = poolings
        self.shrinkages = shrinkages
        self.cv = cv
        self.scoring = scoring
        self.priors = priors
        self.tol = tol

    partial_fit = available_if(_search_only)(StatsClassifier.partial_fit)
    _reads_once = False  # the search reads the data two or three times

    def _chunks_refusal(self) -> str | None:
        """Why these settings cannot fit from chunks (files, Dask), or None: a splitter for ``cv``
        needs the rows (:func:`linclass.sources.chunks.chunks_refusal`)."""
        if self.cv is None or isinstance(self.cv, (int, np.integer)):
            return None
        return (f"{type(self).__name__}.fit with cv={self.cv!r} needs the rows in memory: from chunks "
                "(files, Dask) cv=None (the closed-form leave-one-out) and an int (stratified folds "
                "in row order) are implemented.")

    def _regularisation(self) -> tuple[float, float]:
        return self.pooling_, self.shrinkage_

    def _fit_source(self, source, *, first: bool = True):
        """``fit`` on Dask collections or files, from class statistics and per-block sums
        (:mod:`linclass.selection.chunked`): the closed-form leave-one-out (``cv=None``) in two
        passes, the statistics then each block's criterion at every grid point; ``cv`` an int
        (stratified folds in row order) in three, the label counts, every fold's statistics, the
        held-out rows' sums (two for ``'log_likelihood'``).  Other splitters need the rows."""
        from linclass.core.chunks import require_two_classes
        from linclass.sources.chunks import record_features

        refusal = self._chunks_refusal()
        if refusal is not None:
            raise ValueError(f"{refusal} Use one of those, or call .compute() first if the rows fit "
                             "in memory.")
        record_features(self, source)
        if self.cv is not None:
            return self._fit_folds(source, int(self.cv))
        kind, _ = self._stats_request()
        stats = ClassStats.from_source(source, None, kind=kind, owner=self)
        require_two_classes(self, stats)
        explain_underflow(self, stats.means[stats.counts > 0], stats.total_variance())
        poolings, shrinkages, priors = self._grid(stats)
        totals = source.map_reduce(chunked.loo_grid_sums, chunked.add_sums, stats, poolings,
                                   shrinkages, self.scoring, priors)
        return self._choose(stats, poolings, shrinkages, regularized_cv.loo_grid_mean(*totals))

    def _fit_folds(self, source, n_splits: int):
        from linclass.core.chunk_validation import validate_chunk_labels
        from linclass.core.chunks import combine_with_scan, refuse_non_finite, require_two_classes

        layout, scan = source.map_reduce(fold_rules.scanned_label_counts,
                                         functools.partial(combine_with_scan, fold_rules.merge_lists),
                                         source.n_features)
        classes = validate_chunk_labels(np.unique(np.concatenate([e[1] for e in layout])))
        rule = fold_rules.stratified_folds(layout, classes, n_splits)
        regularized_cv.check_folds(n_splits, rule.totals)
        with np.errstate(over="ignore", invalid="ignore"):  # values too large: refused below
            parts = source.map_reduce(chunked.fold_stats, chunked.merge_folds, source.n_features,
                                      classes, rule)
            stats = functools.reduce(ClassStats.merge, parts)
        refuse_non_finite(self, stats, scan)
        require_two_classes(self, stats)
        explain_underflow(self, stats.means[stats.counts > 0], stats.total_variance())
        poolings, shrinkages, priors = self._grid(stats)
        folds = [regularized_cv.fold_model(without(stats, part), poolings, shrinkages, priors)
                 for part in parts]
        if self.scoring == "log_likelihood":
            total = sum(regularized_cv.fold_log_likelihood(f, p) for f, p in zip(folds, parts))
        else:
            total = source.map_reduce(chunked.fold_sums, np.add, source.n_features, classes, rule,
                                      folds, self.scoring)
        total = np.where(np.any([f.singular for f in folds], axis=0), -np.inf, total)
        held_out = float(sum(part.total for part in parts))
        return self._choose(stats, poolings, shrinkages, total / held_out)

    def _grid(self, stats):
        poolings = regularized_cv.grid(self.poolings, "poolings")
        shrinkages = regularized_cv.grid(self.shrinkages, "shrinkages")
        return poolings, shrinkages, validate_priors(self.priors, stats.n_classes)

    def _absorb(self, data):
        kind, _ = self._stats_request()
        with np.errstate(invalid="ignore", over="ignore"):  # non-finite X: explained below
            stats = ClassStats.from_batch(data.X, data.y, data.classes, data.sample_weight, kind=kind)
        explain_non_finite(self, data.X, *stats.arrays())
        explain_underflow(self, stats.means[stats.counts > 0], stats.total_variance())
        poolings, shrinkages, priors = self._grid(stats)
        scores = regularized_cv.grid_scores(
            stats, data.X, data.y, data.sample_weight, poolings, shrinkages, cv=self.cv,
            scoring=self.scoring, priors=priors,
        )
        return self._choose(stats, poolings, shrinkages, scores)

    def _choose(self, stats, poolings, shrinkages, scores):
        """The first best grid point, then the refit on all rows' statistics."""
        if not np.any(np.isfinite(scores)):
            raise ValueError(
                "Every grid point has a singular covariance once rows are left out; include "
                "shrinkages above 0."
            )
        best = np.unravel_index(np.argmax(scores), scores.shape)
        self.poolings_, self.shrinkages_, self.cv_scores_ = poolings, shrinkages, scores
        self.pooling_, self.shrinkage_ = float(poolings[best[0]]), float(shrinkages[best[1]])
        self.best_score_ = float(scores[best])
        return self._install(stats)
