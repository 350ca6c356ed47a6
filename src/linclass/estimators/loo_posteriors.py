"""Leave-one-out posteriors without refitting: :func:`loo_predict_proba` and :func:`loo_score`.

validate -> :class:`~linclass.core.class_stats.ClassStats` (one fit of a clone) ->
:func:`linclass.selection.leave_one_out.loo_joint_log_likelihood` (rank-one downdates) ->
:mod:`linclass.core.posterior`.  No mathematics lives here.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import clone

from linclass.selection import scoring as scoring_
from linclass.core.posterior import log_posterior
from linclass.core.validation import validate_fit
from linclass.exceptions import SingularCovarianceWarning

__all__ = ["loo_predict_proba", "loo_score"]



def _gaussian(estimator) -> bool:
    from linclass.estimators.gaussian_base import _GaussianBase

    return isinstance(estimator, _GaussianBase)


def _loo_scores(estimator, X, y, sample_weight):
    """Leave-one-out class scores :math:`\\ln p^{(-i)}(x_i, C_j)` and the validated data."""
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
    data = validate_fit(model, X, y, sample_weight)
    if data.sample_weight is not None:
        totals = np.bincount(data.y, data.sample_weight, data.classes.size)
        if np.any(totals <= 0):
            raise ValueError(
                f"Class(es) {data.classes[totals <= 0].tolist()} have no weight (every row's "
                "sample_weight is 0): leave-one-out has nothing to leave out of them. Drop those "
                "rows."
            )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SingularCovarianceWarning)
        model._absorb(data)
    for w in caught:
        if issubclass(w.category, SingularCovarianceWarning):
            raise ValueError(
                f"The fitted {type(model).__name__} has a singular covariance ({w.message}) The "
                "closed-form leave-one-out needs non-singular covariances: regularise the model "
                "(shrinkage, reg_param or var_smoothing)."
            )
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return model._loo_scores(data), data


def loo_predict_proba(estimator, X, y, sample_weight=None) -> np.ndarray:
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
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    sample_weight : array-like of shape (n_samples,), default=None
        Frequency weights: leaving a row out removes all of its weight.

    Returns
    -------
    ndarray of shape (n_samples, n_classes)
        Columns in the order of the sorted labels (the ``classes_`` of a fit on all rows).

    Raises
    ------
    ValueError
        When a class has a single row, or when a covariance (of the full data, or without some
        row) is singular, so that no downdate reproduces a refit.
    """
    return np.exp(log_posterior(_loo_scores(estimator, X, y, sample_weight)[0]))


def loo_score(estimator, X, y, sample_weight=None, *, scoring: str = "accuracy") -> float:
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
    """
    scoring_.check_scoring(scoring)
    scores, data = _loo_scores(estimator, X, y, sample_weight)
    return scoring_.weighted_mean(scoring_.row_values(scores, data.y, scoring), data.sample_weight)
