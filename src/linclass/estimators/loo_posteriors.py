"""Leave-one-out posteriors without refitting: :func:`loo_predict_proba` and :func:`loo_score`.

validate -> :class:`~linclass.generative.class_stats.ClassStats` (one fit of a clone) ->
:func:`linclass.selection.leave_one_out.loo_joint_log_likelihood` (rank-one downdates) ->
:mod:`linclass.core.posterior`.  On Dask collections the fit is the chunked one (one pass, the
statistics merged) and the downdates run block by block with the global statistics
(:mod:`linclass.selection.chunked`).  No mathematics lives here.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import clone

from linclass.selection import chunked
from linclass.selection import scoring as scoring_
from linclass.sources.dask import is_dask_collection
from linclass.core.posterior import log_posterior
from linclass.core.validation import validate_fit
from linclass.exceptions import SingularCovarianceWarning

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from sklearn.base import BaseEstimator

__all__ = ["loo_predict_proba", "loo_score"]



def _gaussian(estimator) -> bool:
    from linclass.estimators.gaussian_base import _GaussianBase

    return isinstance(estimator, _GaussianBase)


def _model(estimator):
    """An unfitted clone of a Gaussian ``estimator``, its parameters checked."""
    if not _gaussian(estimator):
        raise TypeError(
            f"loo_predict_proba needs a Gaussian model fitted from class statistics "
            f"(LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis, GaussianNB, "
            f"GaussianDiscriminantAnalysis, RegularizedDiscriminantAnalysis); got "
            f"{type(estimator).__name__}. Use sklearn.model_selection.cross_val_predict with "
            "LeaveOneOut for other models."
        )
    model = clone(estimator)
    model._validate_params()
    return model


def _check_weights(classes, totals) -> None:
    if np.any(totals <= 0):
        raise ValueError(
            f"Class(es) {classes[totals <= 0].tolist()} have no weight (every row's "
            "sample_weight is 0): leave-one-out has nothing to leave out of them. Drop those "
            "rows."
        )


def _fit_non_singular(model, fit) -> None:
    """``fit()`` (the model's fit on all rows), a singular covariance being an error."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SingularCovarianceWarning)
        fit()
    for w in caught:
        if issubclass(w.category, SingularCovarianceWarning):
            raise ValueError(
                f"The fitted {type(model).__name__} has a singular covariance ({w.message}) The "
                "closed-form leave-one-out needs non-singular covariances: regularise the model "
                "(shrinkage, reg_param or var_smoothing)."
            )
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def _loo_scores(estimator, X, y, sample_weight):
    """Leave-one-out class scores :math:`\\ln p^{(-i)}(x_i, C_j)` and the validated data."""
    model = _model(estimator)
    data = validate_fit(model, X, y, sample_weight)
    if data.sample_weight is not None:
        _check_weights(data.classes, np.bincount(data.y, data.sample_weight, data.classes.size))
    _fit_non_singular(model, lambda: model._absorb(data))
    return model._loo_scores(data), data


def _is_source(X) -> bool:
    """Whether X is a chunk source (:class:`~linclass.core.chunks.ChunkSource`: a
    :class:`~linclass.datasets.FileSource`, ...) that carries its own labels."""
    return hasattr(X, "map_reduce") and hasattr(X, "n_features") and not hasattr(X, "shape")


def _fitted_on_chunks(estimator, X, y, sample_weight):
    """The model fitted on the Dask collections, or on a chunk source X (one pass: the chunked
    fit), and their source."""
    from linclass.sources.dask import DaskSource

    model = _model(estimator)
    if _is_source(X):
        if y is not None or sample_weight is not None:
            raise ValueError("A chunk source (FileSource, ...) carries its own labels and weights: "
                             "pass y=None and sample_weight=None.")
        source = X
    else:
        source = DaskSource(X, y, sample_weight)

    def fit():
        model._start_fit()
        model._fit_source(source)

    _fit_non_singular(model, fit)
    _check_weights(model.stats_.classes, model.stats_.counts)
    return model, source


def _as_list(fn):
    """``fn``'s result of one chunk, as a one-item list (concatenated in the source's order)."""
    def one(chunk, *args):
        return [fn(chunk, *args)]
    return one


def loo_predict_proba(estimator: BaseEstimator, X: ArrayLike, y: ArrayLike | None = None,
                      sample_weight: ArrayLike | None = None) -> np.ndarray:
    """Leave-one-out posteriors in closed form: for each training row, the posterior of the model
    fitted without it.

    One fit on all rows, then rank-one downdates of its class statistics for every row at once
    (:mod:`linclass.selection.leave_one_out`); never n refits.  The result equals
    ``cross_val_predict(estimator, X, y, cv=LeaveOneOut(), method="predict_proba")`` (learned priors
    are re-learned without the row, as a refit does; pass ``priors`` to hold them fixed, as MASS's
    ``lda(CV=TRUE)`` and ``qda(CV=TRUE)`` do).  Shrinkage 'ledoit-wolf' and 'oas' recompute their
    intensity without the row, in closed form as well.

    Parameters
    ----------
    estimator : a Gaussian model (LDA, QDA, GaussianNB, GaussianDiscriminantAnalysis of any
        ``covariance_type``, RegularizedDiscriminantAnalysis); fitted or not, it is not modified
    X : array-like of shape (n_samples, n_features), a Dask array or data frame, or a chunk source
        (a :class:`~linclass.datasets.FileSource`: a CSV or Parquet file read in blocks,
        two passes, with its own labels and weights; then y and sample_weight stay None)
    y : array-like of shape (n_samples,) (a Dask array or series with Dask X); None for a source
    sample_weight : array-like of shape (n_samples,), default=None
        Frequency weights: leaving a row out removes all of its weight.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
        Columns in the order of the sorted labels (the ``classes_`` of a fit on all rows).  For
        Dask collections X (y and sample_weight as the estimators' ``fit`` takes them): a lazy
        ``dask.array.Array`` whose row chunks are X's partitions (of unknown sizes for a data
        frame); the statistics are computed here (one pass over the data, as the chunked fit),
        the downdates when the result is computed (a second pass), block by block.  For a chunk
        source: an ndarray in the source's row order (the second pass made here).

    Raises
    ------
    ValueError
        When a class has a single row, or when a covariance (of the full data, or without some
        row) is singular, so that no downdate reproduces a refit.  On Dask collections the
        errors of the second pass are raised when the result is computed.

    See Also
    --------
    linclass.loo_score : The leave-one-out score from the same downdates.
    linclass.RegularizedDiscriminantAnalysisCV : Cross-validation of the regularisation.
    sklearn.model_selection.cross_val_predict : scikit-learn's ``cross_val_predict(model, X, y,
        cv=LeaveOneOut(), method='predict_proba')`` gives the same numbers by n refits.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> import linclass
    >>> X, y = load_iris(return_X_y=True)
    >>> import numpy as np
    >>> proba = linclass.loo_predict_proba(linclass.LinearDiscriminantAnalysis(), X, y)
    >>> proba.shape
    (150, 3)
    >>> bool(np.allclose(proba.sum(axis=1), 1.0))
    True
    """
    if _is_source(X):  # a file read in blocks: the rows' posteriors, in the file's order
        model, source = _fitted_on_chunks(estimator, X, y, sample_weight)
        parts = source.map_reduce(_as_list(chunked.loo_proba), list.__add__, model)
        return np.concatenate(parts) if parts else np.empty((0, model.classes_.size))
    if is_dask_collection(X, y, sample_weight):
        model, source = _fitted_on_chunks(estimator, X, y, sample_weight)
        return source.map_rows(chunked.loo_proba, model.classes_.size, np.float64, model)
    return np.exp(log_posterior(_loo_scores(estimator, X, y, sample_weight)[0]))


def loo_score(estimator: BaseEstimator, X: ArrayLike, y: ArrayLike | None = None,
              sample_weight: ArrayLike | None = None, *, scoring: str = "accuracy") -> float:
    """The leave-one-out estimate of a Gaussian model's performance, from the same downdates as
    :func:`loo_predict_proba`.

    Parameters
    ----------
    estimator, X, y, sample_weight : as in :func:`loo_predict_proba`
    scoring : {'accuracy', 'neg_log_loss', 'log_likelihood'}, default='accuracy'
        'accuracy': the (weighted) share of rows whose leave-one-out prediction is their label
        (ties go to the first class, as ``predict`` does); 'neg_log_loss': the (weighted) mean of
        :math:`\\ln p^{(-i)}(y_i \\mid x_i)`; 'log_likelihood': the mean of the joint
        :math:`\\ln p^{(-i)}(x_i, y_i)` (:mod:`linclass.selection.scoring`).

    Returns
    -------
    float (higher is better)
        On Dask collections: computed in two passes over the data (the statistics, then each
        block's sums of the criterion).

    See Also
    --------
    linclass.loo_predict_proba : The leave-one-out posteriors themselves.
    sklearn.model_selection.cross_val_score : scikit-learn's ``cross_val_score(model, X, y,
        cv=LeaveOneOut())`` gives the accuracy by n refits.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> import linclass
    >>> X, y = load_iris(return_X_y=True)
    >>> round(linclass.loo_score(linclass.LinearDiscriminantAnalysis(), X, y), 2)
    0.98
    >>> round(linclass.loo_score(linclass.QuadraticDiscriminantAnalysis(), X, y), 2)
    0.97
    """
    scoring_.check_scoring(scoring)
    if _is_source(X) or is_dask_collection(X, y, sample_weight):
        model, source = _fitted_on_chunks(estimator, X, y, sample_weight)
        total, weight = source.map_reduce(chunked.loo_criterion_sums, chunked.add_sums, model,
                                          scoring)
        return total / weight
    scores, data = _loo_scores(estimator, X, y, sample_weight)
    return scoring_.weighted_mean(scoring_.row_values(scores, data.y, scoring), data.sample_weight)
