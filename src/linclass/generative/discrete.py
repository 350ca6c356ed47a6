"""Naive Bayes for binary and count features: Bernoulli, multinomial, Poisson and complement event
models.

Each is fitted from per-class weighted counts :math:`n_k` and feature totals
:math:`S_{kj} = \\sum_{i \\in k} w_i x_{ij}` (:class:`~linclass.generative.class_stats.ClassStats` of kind 'mean'), and
each has a posterior of logistic form: the class scores are linear in x (Bishop 2006 sec. 4.2.3-4.2.4:
naive Bayes with discrete features, and exponential-family class-conditionals in general),

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
Complement (Rennie, Shih, Teevan & Karger 2003, scikit-learn's ComplementNB), counts: each class is
    described by the counts of every *other* class, :math:`\\bar\\theta_{kj} = \\frac{\\bar S_{kj} +
    \\alpha_j}{\\sum_l (\\bar S_{kl} + \\alpha_l)}` with :math:`\\bar S_{kj} = \\sum_{c \\ne k} S_{cj}`, and scored
    by :math:`w_{kj} = -\\ln\\bar\\theta_{kj}` (or, with ``norm``, :math:`\\ln\\bar\\theta_{kj} / \\sum_l
    \\ln\\bar\\theta_{kl}`), :math:`w_{k0} = 0`: the class prior is not used (the paper's rule) unless
    there is a single class.  Not a generative model of x, so its scores are not log-likelihoods.

``alpha`` is a number or one value per feature (:math:`\\alpha_j`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from linclass.generative.class_stats import ClassStats

__all__ = ["EVENT_MODELS", "DiscreteModel", "estimate", "joint_log_likelihood"]

EVENT_MODELS = ("bernoulli", "multinomial", "poisson", "complement")
_ALPHA_MIN = 1e-10


@dataclass(frozen=True, eq=False)
class DiscreteModel:
    """A fitted discrete naive Bayes model.

    Attributes
    ----------
    event_model : {'bernoulli', 'multinomial', 'poisson', 'complement'}
    log_params : ndarray of shape (n_classes, n_features)
        Their logarithms (complement: the weights :math:`w_{kj}`, scikit-learn's ``feature_log_prob_``).
    log_priors : ndarray of shape (n_classes,)
    params : ndarray of shape (n_classes, n_features)
        :math:`\\phi_{kj}` (Bernoulli), :math:`\\theta_{kj}` (multinomial), :math:`\\lambda_{kj}` (Poisson)
        or :math:`\\bar\\theta_{kj}` (complement).
    coef : ndarray of shape (n_classes, n_features)
        :math:`w_k`.
    intercept : ndarray of shape (n_classes,)
        :math:`w_{k0}` (includes :math:`\\ln\\pi_k`; ``-inf`` for classes that cannot be predicted).
    alpha : float or ndarray of shape (n_features,)
        The smoothing actually used.
    """

    event_model: str
    log_priors: np.ndarray
    params: np.ndarray
    log_params: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    alpha: float | np.ndarray


def smoothing(alpha, n_features: int):
    """``alpha`` as a float or an array of shape (n_features,), raised to 1e-10 where smaller (with a
    warning): a zero would make log-probabilities :math:`-\\infty` and the posterior of rows that
    hold an unseen feature 0/0."""
    a = np.asarray(alpha, dtype=np.float64)
    if a.ndim > 1 or (a.ndim == 1 and a.size != n_features):
        raise ValueError(f"alpha must be a number or an array of shape (n_features,) = ({n_features},); "
                         f"got shape {a.shape}. When alpha is an array, it should contains "
                         "`n_features` elements, one per feature.")
    if not np.all(np.isfinite(a)) or np.any(a < 0):
        raise ValueError("All values in alpha must be greater than 0 or equal to 0, and finite: "
                         f"alpha must hold finite values >= 0; got alpha={a.tolist()}.")
    if np.any(a < _ALPHA_MIN):
        warnings.warn(
            f"alpha={alpha} is too small: alpha too small will result in numeric errors, setting "
            f"alpha = {_ALPHA_MIN:.1e} where it is smaller (log(0) would make scores infinite for "
            "unseen features).",
            UserWarning,
            stacklevel=4,
        )
        a = np.maximum(a, _ALPHA_MIN)
    return float(a) if a.ndim == 0 else a


def estimate(stats: ClassStats, event_model: str, log_priors: np.ndarray, alpha=1.0,
             *, norm: bool = False) -> DiscreteModel:
    """Smoothed maximum-likelihood parameters and the linear form of the class scores.

    Parameters
    ----------
    stats : ClassStats (any kind; only counts and means are used)
    event_model : {'bernoulli', 'multinomial', 'poisson', 'complement'}
    log_priors : ndarray of shape (n_classes,)
    alpha : float or ndarray of shape (n_features,)
        Additive smoothing (values below 1e-10 are raised to 1e-10 with a warning).
    norm : bool
        Complement model only: normalise each class's weights by their sum.
    """
    if event_model not in EVENT_MODELS:
        raise ValueError(f"event_model must be one of {EVENT_MODELS}; got {event_model!r}.")
    S = stats.sums()
    n = stats.counts[:, None]
    d = S.shape[1]
    alpha = smoothing(alpha, d)
    total_alpha = float(np.sum(np.broadcast_to(alpha, (d,))))
    if event_model == "bernoulli":
        params = (S + alpha) / (n + 2 * alpha)
        log_params = np.log(params)
        log_not = np.log1p(-params)
        coef = log_params - log_not
        intercept = log_not.sum(axis=1) + log_priors
    elif event_model == "multinomial":
        params = (S + alpha) / (S.sum(axis=1, keepdims=True) + total_alpha)
        log_params = coef = np.log(params)
        intercept = log_priors.copy()
    elif event_model == "complement":
        complement = S.sum(axis=0) + alpha - S  # counts of every other class, smoothed
        params = complement / complement.sum(axis=1, keepdims=True)
        logged = np.log(params)
        log_params = coef = logged / logged.sum(axis=1, keepdims=True) if norm else -logged
        # the paper's rule (and scikit-learn's): the prior enters only when there is one class; a
        # class without training weight cannot be predicted (as in every linclass model)
        intercept = log_priors.copy() if S.shape[0] == 1 else np.where(stats.counts > 0, 0.0, -np.inf)
    else:
        params = (S + alpha) / (n + alpha)
        log_params = coef = np.log(params)
        intercept = -params.sum(axis=1) + log_priors
    return DiscreteModel(event_model, log_priors, params, log_params, coef, intercept, alpha)


def joint_log_likelihood(model: DiscreteModel, X) -> np.ndarray:
    """Class scores :math:`w_k^Tx + w_{k0}` of shape (n_samples, n_classes): one (sparse) product."""
    return np.asarray(X @ model.coef.T) + model.intercept
