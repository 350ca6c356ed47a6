"""A classifier on standardised features: the scaling is part of the model, so that a saved model
predicts on raw data (``linclass fit --scale``)."""

from __future__ import annotations

import dataclasses
from typing import Self

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from linclass.strategies.standardize import standardization, standardize
from linclass.core.validation import validate_fit, validate_predict
from linclass.estimators.linear_discriminant import LinearDiscriminantAnalysis
from linclass.estimators.wrapped import check_weight_passthrough, fit_clone

__all__ = ["StandardizedClassifier"]


def _inner_has(attr: str):
    """available_if test: the (fitted, else unfitted) wrapped estimator has ``attr``."""

    def check(self) -> bool:
        return hasattr(getattr(self, "estimator_", self.estimator), attr)

    return check


def _inner_has_coefficient_table(self) -> bool:
    """available_if test: the wrapped estimator's ``summary`` is a table of coefficients (a logistic
    model's), which :meth:`StandardizedClassifier.summary` names and notes per standard deviation;
    LinearDiscriminantAnalysis's MASS-style summary is not such a table."""
    inner = getattr(self, "estimator_", self.estimator)
    return hasattr(inner, "summary") and not isinstance(inner, LinearDiscriminantAnalysis)


def _on_z(method: str, doc: str):
    """The wrapped estimator's ``method`` on the standardised X (when the estimator has it)."""

    def call(self, X):
        Z = self._z(X)  # checks that the model is fitted first
        return getattr(self.estimator_, method)(Z)

    call.__name__ = method
    call.__qualname__ = f"StandardizedClassifier.{method}"
    call.__doc__ = doc
    return available_if(_inner_has(method))(call)


class StandardizedClassifier(ClassifierMixin, BaseEstimator):
    """Standardise every feature on the training rows, then fit ``estimator`` on the result.

    .. math::  z = (x - m) / s, \\qquad \\hat y(x) = \\text{estimator}(z)

    with :math:`m` and :math:`s` the (weighted) mean and standard deviation of each feature
    (:mod:`linclass.strategies.standardize`; a constant feature is centred only).  Every prediction
    method standardises its input with the same :math:`m, s` and calls the fitted estimator's, so
    the model takes raw features.  Worth it for the models that depend on the units of the features:
    penalised logistic regression, the perceptron, kernel Fisher discriminants, shrinkage towards a
    multiple of the identity.  Gaussian and Fisher discriminants are unchanged by it.

    Parameters
    ----------
    estimator : classifier
        Fitted (a clone of it) on the standardised features; ``sample_weight`` is passed through.

    Attributes
    ----------
    mean_ : ndarray of shape (n_features,)
    scale_ : ndarray of shape (n_features,)
    estimator_ : the fitted estimator (on standardised features)
    classes_ : ndarray of shape (n_classes,)
    n_features_in_, feature_names_in_ : as in scikit-learn

    See Also
    --------
    linclass.LogisticRegression : Its penalty depends on the features' units.
    linclass.Perceptron : Its steps depend on the features' units.
    sklearn.pipeline.make_pipeline : scikit-learn's ``make_pipeline(StandardScaler(), model)``
        standardises the same way; this wrapper also reports coefficients in the raw units.

    Examples
    --------
    >>> from sklearn.datasets import load_wine
    >>> import linclass
    >>> X, y = load_wine(return_X_y=True)
    >>> model = linclass.StandardizedClassifier(linclass.Perceptron(random_state=0)).fit(X, y)
    >>> model.scale_[[0, 12]].round(1)  # alcohol's and proline's standard deviations
    array([  0.8, 314. ])
    >>> round(model.score(X, y), 2)  # the perceptron on the raw units scores 0.27
    1.0
    """

    def __init__(self, estimator: BaseEstimator) -> None:
        self.estimator = estimator

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(self.estimator)
        tags.input_tags.sparse = False  # centring would make sparse features dense
        tags.classifier_tags.poor_score = inner.classifier_tags.poor_score
        return tags

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Standardise X and fit a clone of the estimator on it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The raw features (their mean and spread are taken here).
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Frequency weights, for the mean and spread and for the estimator.

        Returns
        -------
        self
        """
        for name in ("estimator_", "mean_", "scale_", "classes_"):
            self.__dict__.pop(name, None)
        data = validate_fit(self, X, y, sample_weight)
        check_weight_passthrough(self, data.sample_weight)
        mean, scale = standardization(data.X, data.sample_weight)
        Z = standardize(data.X, mean, scale)
        labels = data.classes[data.y]
        name = getattr(y, "name", None)
        if name is not None:  # a pandas Series' name: the Dep. Variable of the estimator's summary
            import pandas as pd

            labels = pd.Series(labels, name=name)
        estimator = fit_clone(self.estimator, Z, labels, data.sample_weight)
        self.mean_, self.scale_, self.estimator_ = mean, scale, estimator
        self.classes_ = estimator.classes_
        return self

    def _z(self, X) -> np.ndarray:
        check_is_fitted(self)
        return standardize(validate_predict(self, X), self.mean_, self.scale_)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """The estimator's prediction on the standardised X, shape (n_samples,)."""
        Z = self._z(X)
        return self.estimator_.predict(Z)

    predict_proba = _on_z("predict_proba", "The estimator's class probabilities on the standardised X, "
                          "shape (n_samples, n_classes).")
    predict_log_proba = _on_z("predict_log_proba", "The estimator's log posteriors on the standardised "
                              "X, shape (n_samples, n_classes).")
    decision_function = _on_z("decision_function", "The estimator's decision function on the standardised X.")
    transform = _on_z("transform", "The estimator's projection of the standardised X.")

    @available_if(_inner_has_coefficient_table)
    def summary(self, *args, **kwargs):
        """The estimator's :meth:`summary`, its parameters named by the features and noted as
        per standard deviation of each feature (the coefficients of z).  Training rows passed for
        robust covariances or profile intervals (``X=``) are standardised as the fit's were."""
        check_is_fitted(self)
        if kwargs.get("X") is not None:
            kwargs["X"] = self._z(kwargs["X"])
        table = self.estimator_.summary(*args, **kwargs)
        if not dataclasses.is_dataclass(table):
            return table
        names = getattr(self, "feature_names_in_", None)
        if names is not None:
            renamed = dict(zip([f"x{j}" for j in range(self.n_features_in_)], map(str, names)))
            table = (table.renamed(renamed) if hasattr(table, "renamed")  # a penalised fit's table
                     else dataclasses.replace(table, names=[renamed.get(n, n) for n in table.names]))
        note = ("the features are standardised (z = (x - mean_) / scale_): each coefficient is the "
                "change in log-odds per standard deviation of its feature.")
        return dataclasses.replace(table, notes=[*table.notes, note])
