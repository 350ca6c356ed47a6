"""Naive Bayes for binary and count features: Bernoulli, multinomial and Poisson event models.

Each is fitted from per-class weighted counts :math:`n_k` and feature totals
:math:`S_{kj} = \\sum_{i \\in k} w_i x_{ij}` (:class:`~linclass.stats.ClassStats` of kind 'mean'), and
each has a posterior of logistic form: the class scores are linear in x (seed 002, naive Bayes and
"other exponential-family class-conditionals give a logistic posterior"),

.. math:: a_k(x) = \\ln p(x \\mid C_k) + \\ln p(C_k) = w_k^T x + w_{k0} + g(x)

where :math:`g(x)` is shared by all classes (so posteriors are exact without it).

Bernoulli (x in {0, 1}), Laplace smoothing :math:`\\alpha`:
    :math:`\\phi_{kj} = \\frac{S_{kj} + \\alpha}{n_k + 2\\alpha}`,
    :math:`w_{kj} = \\ln\\phi_{kj} - \\ln(1-\\phi_{kj})`, :math:`w_{k0} = \\sum_j \\ln(1-\\phi_{kj}) + \\ln\\pi_k`.
Multinomial (x counts):
    :math:`\\theta_{kj} = \\frac{S_{kj} + \\alpha}{\\sum_l S_{kl} + \\alpha d}`,
    :math:`w_{kj} = \\ln\\theta_{kj}`, :math:`w_{k0} = \\ln\\pi_k`, :math:`g(x) = \\ln\\frac{(\\sum_j x_j)!}{\\prod_j x_j!}`.
Poisson (x counts), :math:`\\alpha` pseudo-samples in which every feature counts 1:
    :math:`\\lambda_{kj} = \\frac{S_{kj} + \\alpha}{n_k + \\alpha}` (the MLE :math:`S_{kj}/n_k` at
    :math:`\\alpha = 0`), :math:`w_{kj} = \\ln\\lambda_{kj}`, :math:`w_{k0} = -\\sum_j\\lambda_{kj} + \\ln\\pi_k`,
    :math:`g(x) = -\\sum_j \\ln x_j!`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from linclass.core.class_stats import ClassStats

__all__ = ["EVENT_MODELS", "DiscreteModel", "estimate", "joint_log_likelihood"]

EVENT_MODELS = ("bernoulli", "multinomial", "poisson")
_ALPHA_MIN = 1e-10


@dataclass(frozen=True, eq=False)
class DiscreteModel:
    """A fitted discrete naive Bayes model.

    Attributes
    ----------
    event_model : {'bernoulli', 'multinomial', 'poisson'}
    log_priors : ndarray of shape (n_classes,)
    params : ndarray of shape (n_classes, n_features)
        :math:`\\phi_{kj}` (Bernoulli), :math:`\\theta_{kj}` (multinomial) or :math:`\\lambda_{kj}` (Poisson).
    log_params : ndarray of shape (n_classes, n_features)
        Their logarithms.
    coef : ndarray of shape (n_classes, n_features)
        :math:`w_k`.
    intercept : ndarray of shape (n_classes,)
        :math:`w_{k0}` (includes :math:`\\ln\\pi_k`; ``-inf`` for classes that cannot be predicted).
    alpha : float
        The smoothing actually used.
    """

    event_model: str
    log_priors: np.ndarray
    params: np.ndarray
    log_params: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    alpha: float


def _alpha(alpha: float) -> float:
    if alpha < _ALPHA_MIN:
        warnings.warn(
            f"alpha={alpha} is too small: log(0) would make scores infinite for unseen features; "
            f"using alpha={_ALPHA_MIN}.",
            UserWarning,
            stacklevel=4,
        )
        return _ALPHA_MIN
    return float(alpha)


def estimate(stats: ClassStats, event_model: str, log_priors: np.ndarray, alpha: float = 1.0) -> DiscreteModel:
    """Smoothed maximum-likelihood parameters and the linear form of the class scores.

    Parameters
    ----------
    stats : ClassStats (any kind; only counts and means are used)
    event_model : {'bernoulli', 'multinomial', 'poisson'}
    log_priors : ndarray of shape (n_classes,)
    alpha : float
        Additive smoothing (values below 1e-10 are raised to 1e-10 with a warning).
    """
    if event_model not in EVENT_MODELS:
        raise ValueError(f"event_model must be one of {EVENT_MODELS}; got {event_model!r}.")
    alpha = _alpha(alpha)
    S = stats.sums()
    n = stats.counts[:, None]
    d = S.shape[1]
    if event_model == "bernoulli":
        params = (S + alpha) / (n + 2 * alpha)
        log_params = np.log(params)
        log_not = np.log1p(-params)
        coef = log_params - log_not
        intercept = log_not.sum(axis=1) + log_priors
    elif event_model == "multinomial":
        params = (S + alpha) / (S.sum(axis=1, keepdims=True) + alpha * d)
        log_params = coef = np.log(params)
        intercept = log_priors.copy()
    else:
        params = (S + alpha) / (n + alpha)
        log_params = coef = np.log(params)
        intercept = -params.sum(axis=1) + log_priors
    return DiscreteModel(event_model, log_priors, params, log_params, coef, intercept, alpha)


def joint_log_likelihood(model: DiscreteModel, X) -> np.ndarray:
    """Class scores :math:`w_k^Tx + w_{k0}` of shape (n_samples, n_classes): one (sparse) product."""
    return np.asarray(X @ model.coef.T) + model.intercept
