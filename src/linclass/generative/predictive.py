"""The two other posteriors of MASS's ``predict.lda`` / ``predict.qda``: the Bayesian predictive
density and the debiased plug-in, for the shared ('tied', LDA) and per-class ('full', QDA)
Gaussian models.  Both are functions of the class statistics alone (the unregularised estimates).

Write :math:`A_k = S_k` (QDA) or :math:`A = S_W` (LDA) for the scatter, :math:`n_k` for the class
weight, :math:`N` for the total, :math:`K` for the classes, :math:`p` for the features and
:math:`q_k(x) = (x-\\bar x_k)^TA^{-1}(x-\\bar x_k)`.

**Predictive** (non-informative prior :math:`p(\\mu, \\Sigma) \\propto |\\Sigma|^{-(p+1)/2}`; Geisser
1964, Ripley 1996 sec. 2.4): the class density of a new x is a multivariate t,

.. math::

    \\text{QDA: } t_{n_k-p}\\Big(\\bar x_k, \\tfrac{n_k+1}{n_k(n_k-p)}A_k\\Big), \\quad
    \\ln p(x \\mid k) = \\ln\\Gamma(\\tfrac{n_k}{2}) - \\ln\\Gamma(\\tfrac{n_k-p}{2})
        - \\tfrac p2\\ln\\pi + \\tfrac p2\\ln\\tfrac{n_k}{n_k+1} - \\tfrac12\\ln|A_k|
        - \\tfrac{n_k}{2}\\ln\\big(1 + \\tfrac{n_k}{n_k+1}q_k\\big)

    \\text{LDA: } t_{N-K-p+1}\\Big(\\bar x_k, \\tfrac{n_k+1}{n_k(N-K-p+1)}A\\Big), \\quad
    \\ln p(x \\mid k) = \\tfrac p2\\ln\\tfrac{n_k}{n_k+1}
        - \\tfrac{N-K+1}{2}\\ln\\big(1 + \\tfrac{n_k}{n_k+1}q_k\\big) + \\text{(shared)}

**Debiased** (Ripley 1996 sec. 2.4; Moran & Murphy 1979): unbiased estimates of
:math:`\\Delta_k^2 = (x-\\mu_k)^T\\Sigma^{-1}(x-\\mu_k)` and :math:`\\ln|\\Sigma_k|` under Wishart
sampling, :math:`E[W^{-1}] = \\Sigma^{-1}/(m-p-1)` for :math:`W \\sim W_p(\\Sigma, m)`:

.. math::

    \\text{LDA: } \\hat\\Delta_k^2 = (N-K-p-1)\\,q_k - \\tfrac{p}{n_k}, \\qquad
    \\text{QDA: } \\hat\\Delta_k^2 = (n_k-p-2)\\,q_k - \\tfrac{p}{n_k}, \\quad
    \\widehat{\\ln|\\Sigma_k|} = \\ln\\Big|\\tfrac{A_k}{n_k-1}\\Big| + p\\ln\\tfrac{n_k-1}{2}
        - \\sum_{j=1}^{p}\\psi\\big(\\tfrac{n_k-j}{2}\\big)

and :math:`\\ln p(x, C_k) = \\ln\\pi_k - \\tfrac12\\hat\\Delta_k^2 - \\tfrac12\\widehat{\\ln|\\Sigma_k|}`.

Where MASS 7.3 differs (its code read, not its documentation):

* predictive QDA leaves out the :math:`\\Gamma(\\tfrac{n_k}{2})/\\Gamma(\\tfrac{n_k-p}{2})` factor, and uses
  the fitted covariance of its ``method`` for :math:`A_k/(n_k\\cdot)`: it equals the above for
  ``qda(method="mle")`` with equal class sizes;
* predictive LDA rescales the points by :math:`\\sqrt{N/(N-K)}` but not the class centres, and works
  in the :math:`\\min(p, K-1)` discriminant directions only: it equals the above in no case we found;
* debiased LDA adds :math:`p/n_k` to the distance where the unbiased estimate subtracts
  :math:`p/(2n_k)` from it, and uses the discriminant dimension for p: equal for equal class sizes
  and :math:`p \\le K-1`;
* debiased QDA multiplies :math:`q_k` by :math:`(n_k-p)` instead of :math:`(n_k-p-2)` and sums the
  digamma terms over the K classes instead of the p features.
"""

from __future__ import annotations

import numpy as np
from scipy.special import digamma, gammaln

from linclass.generative.class_stats import ClassStats
from linclass.generative.precision import feature_scale, precision_root

__all__ = ["POSTERIORS", "check_defined", "scores"]

POSTERIORS = ("plug-in", "predictive", "debiased")


def check_defined(stats: ClassStats, covariance_type: str, posterior: str) -> None:
    """Refuse data too small for the posterior's degrees of freedom (a clear error, not NaN)."""
    p, K, N = stats.n_features, stats.n_classes, stats.total
    if covariance_type == "tied":
        need = N - K - p + 1 if posterior == "predictive" else N - K - p - 1
        if need <= 0:
            raise ValueError(
                f"posterior={posterior!r} needs more rows than classes + features "
                f"({'N - K - p + 1' if posterior == 'predictive' else 'N - K - p - 1'} = {need:g} "
                "degrees of freedom); use posterior='plug-in'."
            )
        return
    extra = 0 if posterior == "predictive" else 2
    small = stats.counts <= p + extra
    if np.any(small):
        raise ValueError(
            f"posterior={posterior!r} needs every class to have more than {p + extra} rows "
            f"(p{' + 2' if extra else ''}); class(es) {stats.classes[small].tolist()} have fewer. "
            "Use posterior='plug-in'."
        )


def _distances(stats: ClassStats, X: np.ndarray, covariance_type: str) -> tuple:
    """:math:`q_k(x) = (x-\\bar x_k)^TA^{-1}(x-\\bar x_k)`, shape (n, K), and :math:`\\ln|A_k|`,
    shape (K,) (the same for every class for 'tied')."""
    c = stats.grand_mean()
    units = feature_scale(stats)
    if covariance_type == "tied":
        A = stats.pooled_scatter()
        H, _ = precision_root(A, 0.0, units)
        Z, M = (X - c) @ H, (stats.means - c) @ H
        q = np.einsum("ij,ij->i", Z, Z)[:, None] - 2 * Z @ M.T + np.einsum("kj,kj->k", M, M)
        log_det = np.full(stats.n_classes, np.linalg.slogdet(A)[1])
        return np.maximum(q, 0.0), log_det
    q = np.empty((X.shape[0], stats.n_classes))
    log_det = np.empty(stats.n_classes)
    for k in range(stats.n_classes):
        H, _ = precision_root(stats.scatter[k], 0.0, units)
        Z = (X - c) @ H - (stats.means[k] - c) @ H
        q[:, k] = np.einsum("ij,ij->i", Z, Z)
        log_det[k] = np.linalg.slogdet(stats.scatter[k])[1]
    return q, log_det


def scores(stats: ClassStats, X: np.ndarray, covariance_type: str, posterior: str,
           log_priors: np.ndarray) -> np.ndarray:
    """Class scores :math:`\\ln p(x \\mid C_k) + \\ln\\pi_k` (up to a term shared by all classes) of the
    'predictive' or 'debiased' posterior, shape (n_samples, n_classes).

    Parameters
    ----------
    stats : ClassStats ('tied' statistics, or 'full' for either structure)
    X : ndarray of shape (n_samples, n_features)
    covariance_type : {'tied', 'full'}
    posterior : {'predictive', 'debiased'}
    log_priors : ndarray of shape (n_classes,)
    """
    p, K, N = stats.n_features, stats.n_classes, stats.total
    n_k = stats.counts
    q, log_det = _distances(stats, X, covariance_type)
    if not np.all(np.isfinite(log_det)):
        raise ValueError(
            f"posterior={posterior!r} needs non-singular scatter matrices; some features are constant "
            "or collinear (within a class). Drop them, or use posterior='plug-in' with shrinkage."
        )
    if posterior == "predictive":
        if covariance_type == "tied":
            dens = (0.5 * p * np.log(n_k / (n_k + 1))
                    - 0.5 * (N - K + 1) * np.log1p(q * (n_k / (n_k + 1))))
        else:
            dens = (gammaln(n_k / 2) - gammaln((n_k - p) / 2) - 0.5 * p * np.log(np.pi)
                    + 0.5 * p * np.log(n_k / (n_k + 1)) - 0.5 * log_det
                    - 0.5 * n_k * np.log1p(q * (n_k / (n_k + 1))))
        return dens + log_priors
    if covariance_type == "tied":
        delta2 = (N - K - p - 1) * q - p / n_k
        return -0.5 * delta2 + log_priors
    delta2 = (n_k - p - 2) * q - p / n_k
    j = np.arange(1, p + 1)
    log_det_u = (log_det - p * np.log(n_k - 1) + p * np.log((n_k - 1) / 2)
                 - np.array([digamma((n - j) / 2).sum() for n in n_k]))
    return -0.5 * (delta2 + log_det_u + p * np.log(2 * np.pi)) + log_priors
