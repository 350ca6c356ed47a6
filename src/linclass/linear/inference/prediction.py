"""Predictions of a two-class logistic fit with their standard errors and confidence intervals:
:func:`predict_with_se` and its result :class:`PredictionResults`, with the names of statsmodels'
``GLMResults.get_prediction(exog).summary_frame(alpha)`` and of R's
``predict(glm, newdata, type = "link", se.fit = TRUE)``.

For a row :math:`x` with :math:`z = (1, x)` (``z = x`` without an intercept), the parameters
:math:`\\hat\\beta` (intercept first) and their covariance :math:`V`:

.. math::

    \\hat\\eta = z^T\\hat\\beta, \\qquad
    \\operatorname{se}(\\hat\\eta) = \\sqrt{z^T V z}, \\qquad
    \\hat\\mu = \\sigma(\\hat\\eta), \\qquad
    \\operatorname{se}(\\hat\\mu) = \\hat\\mu(1-\\hat\\mu)\\,\\operatorname{se}(\\hat\\eta)

(the delta method: :math:`d\\sigma/d\\eta = \\sigma(1-\\sigma)`; McCullagh & Nelder 1989,
*Generalized Linear Models*, sec. 2.5 and 4.4; R's ``predict.glm`` returns :math:`\\hat\\eta` and
:math:`\\operatorname{se}(\\hat\\eta)` as ``$fit`` and ``$se.fit``, and the response-scale
``$se.fit`` as the second line).  The :math:`1-\\alpha` interval of the probability is the
link-scale Wald interval mapped through the inverse link, as statsmodels' GLM computes it,

.. math::  \\big[\\sigma(\\hat\\eta - z_{1-\\alpha/2}\\operatorname{se}(\\hat\\eta)),\\;
           \\sigma(\\hat\\eta + z_{1-\\alpha/2}\\operatorname{se}(\\hat\\eta))\\big],

which stays inside (0, 1), unlike :math:`\\hat\\mu \\pm z\\operatorname{se}(\\hat\\mu)`.
All rows at once: :math:`\\operatorname{se}(\\hat\\eta)^2 = \\operatorname{rowsum}((ZV)\\circ Z)`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from scipy.stats import norm

__all__ = ["PredictionResults", "predict_with_se"]


def _check_alpha(alpha: float) -> float:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1); got {alpha!r}.")
    return float(alpha)


@dataclass(frozen=True)
class PredictionResults:
    """Predicted probabilities of ``classes_[1]`` and linear predictors with standard errors.

    Attributes (statsmodels' names; R's in brackets)
    ------------------------------------------------
    predicted, predicted_mean : ndarray of shape (n_samples,)
        The probabilities :math:`\\hat\\mu` (R's ``predict(type = "response")$fit``).
    se_mean : ndarray of shape (n_samples,)
        Their delta-method standard errors (``type = "response"``'s ``$se.fit``).
    linpred : ndarray of shape (n_samples,)
        The linear predictors (log-odds) :math:`\\hat\\eta` (``type = "link"``'s ``$fit``).
    se_linpred : ndarray of shape (n_samples,)
        Their standard errors :math:`\\sqrt{z^TVz}` (``type = "link"``'s ``$se.fit``).
    row_labels : list or None
        The index of the frames (the rows' index when X was a pandas DataFrame).
    """

    linpred: np.ndarray
    se_linpred: np.ndarray
    row_labels: list | None = field(default=None, repr=False)

    @property
    def predicted(self) -> np.ndarray:
        return expit(self.linpred)

    predicted_mean = predicted

    @property
    def se_mean(self) -> np.ndarray:
        mu = self.predicted
        return mu * (1.0 - mu) * self.se_linpred

    def conf_int(self, alpha: float = 0.05, which: str = "mean") -> np.ndarray:
        """The :math:`1-\\alpha` intervals, of shape (n_samples, 2): of the probability
        (``which='mean'``, the link-scale interval mapped through the sigmoid) or of the linear
        predictor (``which='linear'``)."""
        q = norm.ppf(1.0 - _check_alpha(alpha) / 2.0)
        lower, upper = self.linpred - q * self.se_linpred, self.linpred + q * self.se_linpred
        if which == "mean":
            return np.column_stack([expit(lower), expit(upper)])
        if which == "linear":
            return np.column_stack([lower, upper])
        raise ValueError(f"which must be 'mean' or 'linear'; got {which!r}.")

    def summary_frame(self, alpha: float = 0.05, which: str = "both"):
        """A pandas DataFrame, one row per sample.

        ``which='mean'``: statsmodels GLM's columns ``mean``, ``mean_se``, ``mean_ci_lower``,
        ``mean_ci_upper``; ``which='linear'``: those of its ``get_prediction(which='linear')``,
        ``predicted``, ``se``, ``ci_lower``, ``ci_upper`` (on the log-odds scale);
        ``which='both'`` (the default): the four of 'mean' followed by ``linpred``, ``linpred_se``,
        ``linpred_ci_lower``, ``linpred_ci_upper``.
        """
        import pandas as pd

        if which not in ("mean", "linear", "both"):
            raise ValueError(f"which must be 'mean', 'linear' or 'both'; got {which!r}.")
        mean_ci, lin_ci = self.conf_int(alpha, "mean"), self.conf_int(alpha, "linear")
        columns = {}
        if which in ("mean", "both"):
            columns.update(mean=self.predicted, mean_se=self.se_mean, mean_ci_lower=mean_ci[:, 0],
                           mean_ci_upper=mean_ci[:, 1])
        if which == "linear":
            columns.update(predicted=self.linpred, se=self.se_linpred, ci_lower=lin_ci[:, 0],
                           ci_upper=lin_ci[:, 1])
        if which == "both":
            columns.update(linpred=self.linpred, linpred_se=self.se_linpred,
                           linpred_ci_lower=lin_ci[:, 0], linpred_ci_upper=lin_ci[:, 1])
        return pd.DataFrame(columns, index=self.row_labels)


def predict_with_se(X, coef: np.ndarray, intercept: float, covariance: np.ndarray, *,
                    fit_intercept: bool, row_labels=None, offset=None) -> PredictionResults:
    """Linear predictors and their standard errors for the rows ``X``.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n_samples, n_features)
    coef : ndarray of shape (n_features,)
        The log-odds coefficients.
    intercept : float
    covariance : ndarray of shape (n_params, n_params)
        The covariance of the parameters in the order intercept (when ``fit_intercept``),
        coef_1, ..., coef_d: the summary's ``cov_params()``.
    fit_intercept : bool
    offset : ndarray of shape (n_samples,) or (n_samples, 1), or None
        Known terms of the rows' log-odds: added to :math:`\\hat\\eta`, with no variance (R's
        ``predict.glm`` with an offset).

    Returns
    -------
    PredictionResults
    """
    V = np.asarray(covariance, dtype=np.float64)
    coef = np.asarray(coef, dtype=np.float64).reshape(-1)
    k = int(fit_intercept)
    Vxx = V[k:, k:]
    XV = np.asarray(X @ Vxx)
    quad = (np.asarray(X.multiply(XV).sum(axis=1)).reshape(-1) if sp.issparse(X)
            else np.einsum("ij,ij->i", XV, X))
    eta = np.asarray(X @ coef).reshape(-1)
    if fit_intercept:
        # z = (1, x): z'Vz = V00 + 2 x'V[1:, 0] + x'Vxx x
        quad = quad + 2.0 * np.asarray(X @ V[k:, 0]).reshape(-1) + V[0, 0]
        eta = eta + float(intercept)
    if offset is not None:
        eta = eta + np.asarray(offset, dtype=np.float64).reshape(-1)
    se = np.sqrt(np.clip(quad, 0.0, None))
    return PredictionResults(linpred=eta, se_linpred=se,
                             row_labels=None if row_labels is None else list(row_labels))
