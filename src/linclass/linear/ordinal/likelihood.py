"""The likelihood of the proportional odds model and its first two derivatives, in the
parameters :math:`\\theta = (\\beta, \\zeta)` of MASS's ``polr`` (no intercept in :math:`\\beta`;
thresholds :math:`\\zeta_1 < \\dots < \\zeta_{K-1}`).

A row of class :math:`k` (0-based) with linear predictor :math:`\\eta = x^T\\beta` has the
probability

.. math::

    p = F(a) - F(b), \\qquad a = \\zeta_{k+1} - \\eta, \\quad b = \\zeta_k - \\eta,

with :math:`\\zeta_0 = -\\infty` and :math:`\\zeta_K = +\\infty` (thresholds counted from 1).
With :math:`u = f(a)/p`, :math:`l = f(b)/p`, :math:`u' = f'(a)/p`, :math:`l' = f'(b)/p` (each 0 at an
infinite limit), the row's log-likelihood :math:`\\log p` has the gradient

.. math::

    \\partial_\\beta = -(u - l)\\,x, \\qquad \\partial_{\\zeta_{k+1}} = u, \\qquad
    \\partial_{\\zeta_k} = -l,

and the Hessian (the second derivatives of :math:`p` over :math:`p`, less the gradient's outer
product)

.. math::

    \\partial^2_{\\beta\\beta} = \\big(u' - l' - (u - l)^2\\big)\\, x x^T, \\quad
    \\partial^2_{\\beta\\,\\zeta_{k+1}} = \\big((u - l)\\,u - u'\\big)\\, x, \\quad
    \\partial^2_{\\beta\\,\\zeta_k} = \\big(l' - (u - l)\\,l\\big)\\, x,

    \\partial^2_{\\zeta_{k+1}\\zeta_{k+1}} = u' - u^2, \\quad
    \\partial^2_{\\zeta_k\\zeta_k} = -l' - l^2, \\quad
    \\partial^2_{\\zeta_k\\zeta_{k+1}} = u\\,l.

The sums over rows (weighted by the frequency weights) are the log-likelihood's; they add over
chunks of rows.  For the logistic and normal links the log-likelihood is concave in
:math:`\\theta` (Pratt, 1981, *JASA* 76, 103-106), so Newton's method with a line search
converges from any ordered start.

Numerics: :math:`p` is taken from the side of the interval where it does not cancel (by the
symmetry :math:`1 - F(x) = F(-x)`, the interval :math:`(b, a)` is reflected to :math:`(-a, -b)`
when it lies mostly above 0), as :math:`\\log F(a) + \\log(1 - e^{\\log F(b) - \\log F(a)})`, so
that no probability underflows to 0 and no log to -inf in the tails; the ratios :math:`u, l` are
:math:`\\exp(\\log f - \\log p)`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from linclass.linear.ordinal.links import Link

__all__ = ["Derivatives", "class_log_proba", "derivatives", "interval_log_probability",
           "log_likelihood", "null_log_likelihood", "null_thresholds"]

_LN2 = np.log(2.0)


def _log1mexp(x):
    """:math:`\\log(1 - e^x)` for :math:`x \\le 0` (Maechler's two branches)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    near = x > -_LN2
    with np.errstate(divide="ignore"):  # x = 0: log 0 = -inf, an empty interval
        out[near] = np.log(-np.expm1(x[near]))
    out[~near] = np.log1p(-np.exp(x[~near]))
    return out


def interval_log_probability(upper, lower, link: Link) -> np.ndarray:
    """:math:`\\log(F(a) - F(b))` for ``upper`` :math:`a` > ``lower`` :math:`b` (either may be
    infinite, not both), without cancellation in either tail.

    Parameters
    ----------
    upper, lower : ndarray of the same shape
    link : Link

    Returns
    -------
    ndarray of that shape
    """
    upper, lower = np.broadcast_arrays(np.asarray(upper, np.float64), np.asarray(lower, np.float64))
    with np.errstate(invalid="ignore"):  # (inf - inf never occurs: one limit is finite)
        flip = (upper + lower) > 0
    a = np.where(flip, -lower, upper)  # finite: an infinite upper limit is always reflected
    b = np.where(flip, -upper, lower)
    log_a = link.log_cdf(a)
    log_b = link.log_cdf(b)
    # log F(a) = -inf (the normal's far tail, a < -1e154 or so): the whole interval underflows
    empty = np.isneginf(log_a)
    gap = np.where(empty, -np.inf, log_b - np.where(empty, 0.0, log_a))
    return np.where(empty, -np.inf, log_a + _log1mexp(gap))


def _limits(eta, y, zeta):
    """The upper and lower limits :math:`a, b` of each row's interval."""
    edges = np.concatenate([[-np.inf], zeta, [np.inf]])
    return edges[y + 1] - eta, edges[y] - eta


def log_likelihood(X, y, w, coef, thresholds, link: Link) -> float:
    """:math:`\\sum_i w_i \\log p_i` (``w`` None: unit weights)."""
    a, b = _limits(X @ coef, y, thresholds)
    log_p = interval_log_probability(a, b, link)
    return float(np.sum(log_p) if w is None else w @ log_p)


@dataclass(frozen=True)
class Derivatives:
    """The log-likelihood of some rows at one point, with its gradient and Hessian over
    :math:`\\theta = (\\beta, \\zeta)`; derivatives of disjoint rows add (:meth:`__add__`)."""

    value: float
    gradient: np.ndarray
    hessian: np.ndarray

    def __add__(self, other: Derivatives) -> Derivatives:
        return Derivatives(self.value + other.value, self.gradient + other.gradient,
                           self.hessian + other.hessian)


def _ratio(log_density, log_p, limit):
    """:math:`f(\\cdot)/p` at a limit, 0 at an infinite one."""
    finite = np.isfinite(limit)
    with np.errstate(under="ignore"):
        return np.where(finite, np.exp(np.where(finite, log_density, 0.0) - log_p), 0.0)


def derivatives(X, y, w, coef, thresholds, link: Link) -> Derivatives:
    """The weighted log-likelihood of the rows ``X``, ``y`` (class indices 0..K-1) and its
    gradient and Hessian over :math:`(\\beta, \\zeta)` (see the module's formulas).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), intp
    w : ndarray of shape (n_samples,) or None
    coef : ndarray of shape (n_features,)
    thresholds : ndarray of shape (n_classes - 1,)
    link : Link

    Returns
    -------
    Derivatives
        ``gradient`` of shape (n_features + n_classes - 1,), ``hessian`` of shape (that, that).
    """
    d, q = coef.shape[0], thresholds.shape[0]
    K = q + 1
    a, b = _limits(X @ coef, y, thresholds)
    log_p = interval_log_probability(a, b, link)
    fa, fb = np.where(np.isfinite(a), a, 0.0), np.where(np.isfinite(b), b, 0.0)
    u = _ratio(link.log_pdf(fa), log_p, a)
    l = _ratio(link.log_pdf(fb), log_p, b)  # noqa: E741 (the lower limit's ratio)
    du = u * link.pdf_slope(fa)
    dl = l * link.pdf_slope(fb)
    w = np.ones_like(u) if w is None else w
    diff = u - l
    value = float(w @ log_p)

    gradient = np.empty(d + q)
    gradient[:d] = -(X.T @ (w * diff))
    upper = np.bincount(y, w * u, K)  # rows whose upper threshold is zeta_{k+1}: class k
    lower = np.bincount(y, w * l, K)
    gradient[d:] = upper[:q] - lower[1:]

    hessian = np.empty((d + q, d + q))
    block = (X.T * (w * (du - dl - diff * diff))) @ X
    hessian[:d, :d] = 0.5 * (block + block.T)  # (the product is symmetric only to rounding)
    # the beta-zeta block: the rows of class j feed threshold j by their upper limit, those of
    # class j + 1 by their lower limit
    column = np.zeros((y.shape[0], q))
    rows = np.arange(y.shape[0])
    has_upper, has_lower = y < q, y > 0
    column[rows[has_upper], y[has_upper]] = (w * (diff * u - du))[has_upper]
    column[rows[has_lower], y[has_lower] - 1] += (w * (dl - diff * l))[has_lower]
    hessian[:d, d:] = X.T @ column
    hessian[d:, :d] = hessian[:d, d:].T
    zz = np.diag(np.bincount(y, w * (du - u * u), K)[:q] + np.bincount(y, w * (-dl - l * l), K)[1:])
    cross = np.bincount(y, w * u * l, K)[1:q]  # class k couples thresholds k and k + 1
    zz[np.arange(q - 1), np.arange(1, q)] = cross
    zz[np.arange(1, q), np.arange(q - 1)] = cross
    hessian[d:, d:] = zz
    return Derivatives(value, gradient, hessian)


def class_log_proba(eta, thresholds, link: Link) -> np.ndarray:
    """:math:`\\log P(y = k \\mid x)` for every class, from the linear predictors ``eta`` of shape
    (n_samples,); shape (n_samples, n_classes)."""
    edges = np.concatenate([[-np.inf], thresholds, [np.inf]])
    eta = np.asarray(eta, dtype=np.float64)[:, None]
    return interval_log_probability(edges[None, 1:] - eta, edges[None, :-1] - eta, link)


def null_log_likelihood(class_weights) -> float:
    """The log-likelihood of the model without features at its maximum,
    :math:`\\sum_k W_k \\log(W_k / W)` (every class with positive weight :math:`W_k`)."""
    class_weights = np.asarray(class_weights, dtype=np.float64)
    return float(class_weights @ np.log(class_weights / class_weights.sum()))


def null_thresholds(class_weights, link: Link) -> np.ndarray:
    """The thresholds of the model without features, :math:`\\zeta_k = F^{-1}(\\text{share of the
    weight in classes} \\le k)`, its maximum-likelihood estimate (every class with positive
    weight)."""
    share = np.cumsum(class_weights)[:-1] / np.sum(class_weights)
    return link.ppf(share)
