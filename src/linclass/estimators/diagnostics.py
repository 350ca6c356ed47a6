"""Case diagnostics of a fitted unpenalised binary :class:`~linclass.LogisticRegression`: fitted
probabilities, deviance and Pearson residuals, hat values, Cook's distances and standardised
residuals, as R reports them for ``glm(..., family = binomial, weights = w)``.  This module checks
the model and the rows; the formulas are in :mod:`linclass.linear.inference.diagnostics`."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from sklearn.utils.validation import check_is_fitted

from linclass.estimators.logistic.regression import LogisticRegression
from linclass.estimators.logistic.summary import (
    estimable,
    grouped_record,
    reported_parameters,
    training_rows,
)
from linclass.linear.inference.diagnostics import Diagnostics, logistic_diagnostics

__all__ = ["Diagnostics", "diagnostics"]


def diagnostics(model, X, y, sample_weight=None, offset=None) -> Diagnostics:
    """Regression diagnostics of the fitted model ``model`` over its training rows.

    Parameters
    ----------
    model : LogisticRegression
        Fitted with ``penalty=None`` (or ``C=np.inf``) on two classes.
    X : array-like or sparse matrix of shape (n_samples, n_features)
        The rows the model was fitted on (the model does not keep them).
    y : array-like of shape (n_samples,), or (n_samples, 2)
        Their labels, from ``model.classes_``; for a model fitted on grouped counts, the
        (successes, failures) of the fit, and the diagnostics are per row (group), as R's for
        ``glm(cbind(s, f) ~ ..., family = binomial)``.
    sample_weight : array-like of shape (n_samples,), optional
        The fit's sample weights (R's prior ``weights``); multiplied by the class weights of a
        ``class_weight`` fit, as in the fit.  Every weight must be positive.
    offset : array-like of shape (n_samples,), optional
        The fit's offset (``fit(..., offset=)``), for a model fitted with one.

    Returns
    -------
    Diagnostics
        A frozen record of arrays (``fitted``, ``deviance_residuals``, ``pearson_residuals``,
        ``hat``, ``cooks_distance``, ``standardized_residuals``, and the influence measures
        ``studentized_residuals``, ``dfbetas``, ``dffits``, ``response_residuals``,
        ``working_residuals`` as R's ``rstudent``, ``dfbetas``, ``dffits`` and ``residuals`` of
        a binomial glm); ``to_frame()`` gives a DataFrame with one row per observation, and
        ``hosmer_lemeshow(groups=10)`` the Hosmer-Lemeshow test with Stata's grouping.

    Raises
    ------
    ValueError
        For a model that is not a fitted unpenalised binary LogisticRegression, for rows that do
        not match it, and for rows of zero weight.
    """
    if not isinstance(model, LogisticRegression):
        raise ValueError("diagnostics: model must be a linclass.LogisticRegression; got "
                         f"{type(model).__name__}.")
    check_is_fitted(model)
    if np.asarray(model.classes_).size != 2:
        raise ValueError(f"diagnostics: the model has {np.asarray(model.classes_).size} classes; the "
                         "hat values, Cook's distances and residuals here are those of a binary "
                         "logistic fit (R's glm with family=binomial). Fit one class against the "
                         "rest to diagnose a multiclass problem.")
    _check_unpenalised(model)
    if X is None or y is None:
        raise ValueError("diagnostics needs the rows the model was fitted on, X and y (and "
                         "sample_weight as in the fit); the model does not keep its training data.")
    index = getattr(X, "index", None)
    rows = training_rows(model, X, y, sample_weight, purpose="diagnostics", in_memory=True,
                         offset=offset)
    weight = np.ones(rows.X.shape[0]) if rows.weight is None else np.asarray(rows.weight)
    labels, X_rows, row_offset = rows.y, rows.X, rows.offset
    if grouped_record(model) is not None:  # the Bernoulli rows folded back into the groups
        n = X_rows.shape[0] // 2
        trials = weight[:n] + weight[n:]
        labels = np.divide(weight[:n], trials, out=np.zeros(n), where=trials > 0)
        X_rows, weight = X_rows[:n], trials
        row_offset = None if row_offset is None else row_offset[:n]
    zero = np.flatnonzero(weight == 0)
    if zero.size:
        raise ValueError(f"diagnostics: {zero.size} rows have weight 0 (the first: "
                         f"{zero[:5].tolist()}). R's hatvalues, cooks.distance and rstandard leave "
                         "such rows out; they do not change the fit, so pass the rows with positive "
                         "weight only.")
    coef, intercept = reported_parameters(model)
    keep = estimable(model)  # aliased columns (R's NA) take no part in the hat matrix
    result = logistic_diagnostics(X_rows if keep.all() else X_rows[:, keep], labels, weight,
                                  coef[0, keep], intercept[0], model.fit_intercept, row_offset)
    names = getattr(model, "feature_names_in_", None)
    names = [str(v) for v in names] if names is not None else \
        [f"x{j}" for j in range(model.n_features_in_)]
    names = (["const"] if model.fit_intercept else []) + [v for v, k in zip(names, keep) if k]
    result = replace(result, parameter_names=tuple(names))
    if index is not None:
        result = replace(result, index=index)
    return result


def _check_unpenalised(model) -> None:
    """Refuse a fit that is not the plain maximum-likelihood estimate, saying why."""
    record = getattr(model, "_fit_record", None)
    method = record.get("method") if isinstance(record, dict) else None
    if method is None:
        method = "MLE" if model._penalty().kind is None else "penalised ML"
    if method != "MLE":
        raise ValueError("diagnostics are defined for unpenalised fits (penalty=None or C=np.inf); "
                         f"this model was fitted by {method}. Its estimate is shrunk, so it does "
                         "not solve the likelihood equations on which the hat matrix, Cook's "
                         "distance and the standardised residuals rest. Refit with penalty=None.")
    if model.lower_bounds is not None or model.upper_bounds is not None:
        raise ValueError("diagnostics are defined for the unconstrained maximum-likelihood fit; "
                         "this model was fitted with lower_bounds / upper_bounds. Refit without "
                         "them.")
