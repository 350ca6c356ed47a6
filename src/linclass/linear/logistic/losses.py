"""The datafits of logistic and softmax regression: their negative log-likelihoods in raw-score
space, :class:`Binomial` and :class:`Multinomial`, and the log-likelihood of the best constant
model (:func:`null_log_likelihood`).

A raw score is :math:`s = x^T\\theta + b` (binary) or one score per class :math:`s_{ij}` (softmax).
Every datafit method is a function of the scores alone; :mod:`linclass.linear.logistic.objective` owns the
coefficient layout, the intercept and the penalty.

Binary (Bishop 2006 sec. 4.3.2), labels :math:`y \\in \\{0, 1\\}`, :math:`\\mu = \\sigma(s)`:

.. math::

    \\ell(s, y) = -y\\ln\\mu - (1-y)\\ln(1-\\mu) = \\ln(1 + e^{s}) - y s, \\qquad
    \\frac{\\partial\\ell}{\\partial s} = \\mu - y, \\qquad
    \\frac{\\partial^2\\ell}{\\partial s^2} = \\mu(1-\\mu) \\le \\tfrac14

(The estimate maximises the log-likelihood, i.e. minimises the *negative* log-likelihood, as here;
an argmin of the log-likelihood itself, without the minus sign, would be wrong.)

Softmax (Bishop 2006 sec. 4.3.4), one class index :math:`y_i` per row,
:math:`\\mu_{ij} = e^{s_{ij}} / \\sum_k e^{s_{ik}}`:

.. math::

    \\ell(s_i, y_i) = \\ln\\sum_k e^{s_{ik}} - s_{i y_i}, \\qquad
    \\nabla_{s_i}\\ell = \\mu_i - e_{y_i}, \\qquad
    \\nabla^2_{s_i}\\ell = \\mathrm{diag}(\\mu_i) - \\mu_i\\mu_i^T
    \\preceq \\tfrac12\\left(I - \\tfrac1K \\mathbf{1}\\mathbf{1}^T\\right)

the last inequality being Böhning's (1992) bound.  All values are computed in log space
(``logaddexp``, max-shifted log-sum-exp), so margins of 1e3 neither overflow nor lose the loss.

:class:`Binomial` and :class:`Multinomial` hold these two losses as skglm's datafits and
scikit-learn's ``_loss`` hold theirs: per-sample value, gradient and curvature on the raw scores,
unweighted unless a weight is given, and the same from probabilities already formed (an objective
forms them once per pass and reuses them for the gradient and the curvature).  The coefficient
layout, the intercept and the penalty are the objectives' (:mod:`linclass.linear.logistic.objective`,
:mod:`linclass.linear.logistic.penalised`, :mod:`linclass.linear.logistic.penalised_chunked`).

This module is the loss's NumPy form; :mod:`linclass.linear.compiled.sample_terms` is its compiled
form (fused weighted loops over the scores, on the penalised solvers' hot path), with the same
formulas: the two agree to 1e-12 relative, at scores up to :math:`\\pm 700`.

The two-class functions the penalised solvers call (:func:`binary_terms`, :func:`binary_loss`,
:func:`binary_loss_change`, :func:`binary_best_intercept`, :func:`binary_gap_residuals`,
:func:`binary_dual_entropy`) are here in NumPy too, under the compiled loops' names and
signatures: a small problem's fit calls these instead (a few array passes over a few hundred
scores cost microseconds), and loads none of numba's compiled code
(:data:`linclass.core.lazy.COMPILED_MIN`; the objective picks its module,
the ``terms`` of :class:`~linclass.linear.logistic.penalised.PenalisedObjective`).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, xlogy

__all__ = ["Binomial", "Multinomial", "binary_best_intercept", "binary_dual_entropy",
           "binary_gap_residuals", "binary_loss", "binary_loss_change", "binary_terms",
           "null_log_likelihood", "row_logsumexp"]


def row_logsumexp(S: np.ndarray) -> np.ndarray:
    """:math:`\\log\\sum_k e^{S_{ik}}` per row of S (n, K), shape (n, 1) (scipy's, without its
    per-call overhead: a pass of a cross-validation calls it once per fit and chunk)."""
    top = S.max(axis=1, keepdims=True)
    return top + np.log(np.exp(S - top).sum(axis=1, keepdims=True))


class Binomial:
    """The binomial datafit: two classes, one raw score per sample (the log-odds of class 1).

    Scores ``s`` of shape (n_samples,), labels ``y`` in {0, 1} (float), probabilities
    :math:`\\mu = \\sigma(s)`; every method is per sample (module docstring's formulas).
    """

    @staticmethod
    def value(s: np.ndarray, y: np.ndarray) -> np.ndarray:
        """:math:`\\ell(s, y) = \\ln(1 + e^s) - ys`, shape (n_samples,)."""
        return np.logaddexp(0.0, s) - y * s

    @staticmethod
    def probabilities(s: np.ndarray) -> np.ndarray:
        """:math:`\\mu = \\sigma(s)`, shape (n_samples,)."""
        return expit(s)

    @staticmethod
    def value_and_probabilities(s: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(value(s, y), probabilities(s))``: what an objective's pass needs first."""
        return Binomial.value(s, y), expit(s)

    @staticmethod
    def gradient(s: np.ndarray, y: np.ndarray) -> np.ndarray:
        """:math:`\\partial\\ell/\\partial s = \\mu - y`, shape (n_samples,)."""
        return Binomial.gradient_at(expit(s), y)

    @staticmethod
    def curvature(s: np.ndarray) -> np.ndarray:
        """:math:`\\partial^2\\ell/\\partial s^2 = \\mu(1 - \\mu)`, shape (n_samples,)."""
        return Binomial.curvature_at(expit(s))

    @staticmethod
    def gradient_at(mu: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
        """The gradient from the probabilities ``mu``: :math:`\\mu - y`, times the sample weights
        ``w`` when given."""
        g = mu - y
        return g if w is None else g * w

    @staticmethod
    def curvature_at(mu: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
        """The curvature from the probabilities ``mu``: :math:`\\mu(1 - \\mu)`, or
        :math:`w\\mu(1 - \\mu)` with the sample weights ``w`` (in the compiled form's order)."""
        return mu * (1.0 - mu) if w is None else w * mu * (1.0 - mu)


class Multinomial:
    """The multinomial datafit: K classes, one raw score per sample and class.

    Scores ``S`` of shape (n_samples, K), class indices ``y`` of shape (n_samples,) (int),
    probabilities :math:`\\mu_i = \\mathrm{softmax}(s_i)`; every method is per sample (module
    docstring's formulas).  The curvature is the full K x K Hessian in the scores; an objective in
    another basis of the scores projects it (:func:`linclass.linear.logistic.curvature.curvature_weights`).
    """

    @staticmethod
    def value(S: np.ndarray, y: np.ndarray) -> np.ndarray:
        """:math:`\\ell(s_i, y_i) = \\ln\\sum_k e^{s_{ik}} - s_{iy_i}`, shape (n_samples,)."""
        return row_logsumexp(S)[:, 0] - S[np.arange(S.shape[0]), y]

    @staticmethod
    def probabilities(S: np.ndarray) -> np.ndarray:
        """:math:`\\mu_{ik} = e^{s_{ik}} / \\sum_l e^{s_{il}}`, shape (n_samples, K)."""
        return Multinomial._normalised(S)[1]

    @staticmethod
    def value_and_probabilities(S: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(value(S, y), probabilities(S))`` from one log-sum-exp."""
        lse, mu = Multinomial._normalised(S)
        return lse - S[np.arange(S.shape[0]), y], mu

    @staticmethod
    def _normalised(S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(lse, mu)``: the rows' log-sum-exp, shape (n_samples,), and the probabilities, each
        row's exponentials shifted by its largest score and divided by their sum."""
        top = S.max(axis=1, keepdims=True)
        mu = np.exp(S - top)
        total = mu.sum(axis=1, keepdims=True)
        mu /= total
        return (np.log(total) + top)[:, 0], mu

    @staticmethod
    def gradient(S: np.ndarray, y: np.ndarray) -> np.ndarray:
        """:math:`\\nabla_{s_i}\\ell = \\mu_i - e_{y_i}`, shape (n_samples, K)."""
        return Multinomial.gradient_at(Multinomial.probabilities(S), y)

    @staticmethod
    def curvature(S: np.ndarray) -> np.ndarray:
        """:math:`\\nabla^2_{s_i}\\ell = \\mathrm{diag}(\\mu_i) - \\mu_i\\mu_i^T`, shape
        (n_samples, K, K)."""
        mu = Multinomial.probabilities(S)
        return mu[:, :, None] * (np.eye(mu.shape[1]) - mu[:, None, :])

    @staticmethod
    def gradient_at(mu: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
        """The gradient from the probabilities ``mu`` (n_samples, K): :math:`\\mu_i - e_{y_i}`, each
        row times its sample weight when ``w`` is given (a new array)."""
        g = mu.copy()
        g[np.arange(y.size), y] -= 1.0
        if w is not None:
            g *= w[:, None]
        return g

    @staticmethod
    def curvature_at(mu: np.ndarray, k: int, l: int, w: np.ndarray | None = None) -> np.ndarray:
        """Entry (k, l) of every sample's curvature from the probabilities ``mu`` (n_samples, K):
        :math:`\\mu_{ik}([k = l] - \\mu_{il})`, shape (n_samples,), or :math:`w_i` times it with the
        sample weights ``w``.  One entry at a time: an objective contracts each with the rows
        without holding the n x K x K array."""
        own = mu[:, k] if w is None else w * mu[:, k]
        return own * ((1.0 if k == l else 0.0) - mu[:, l])


def null_log_likelihood(class_totals: np.ndarray, total: float, fit_intercept: bool) -> float:
    """The log-likelihood of the best constant model (the null model of the likelihood-ratio test
    and of McFadden's pseudo R²).

    .. math::

        \\ell_0 = \\sum_k N_k\\ln(N_k/N) \\;\\text{with an intercept (the class frequencies), else}
        \\; -N\\ln K \\;\\text{(uniform probabilities, all scores zero)}.

    Parameters
    ----------
    class_totals : ndarray of shape (n_classes,)
        Weighted count :math:`N_k` of each class.
    total : float
        Total weight :math:`N`.
    fit_intercept : bool

    Returns
    -------
    float
    """
    counts = np.asarray(class_totals, dtype=np.float64)
    if fit_intercept:
        counts = counts[counts > 0]
        return float(counts @ np.log(counts / counts.sum()))
    return -float(total) * float(np.log(counts.size))


# ------------------------------------- the two-class terms under the compiled loops' signatures
def _log1pexp(s: np.ndarray, sigmoid: bool = False):
    """:math:`\\ln(1 + e^s)` without overflow, as the compiled loops form it (:math:`\\max(s, 0) +
    \\ln(1 + e^{-|s|})`; ``numpy.logaddexp`` took four times as long), and with ``sigmoid`` also
    :math:`\\sigma(s)` from the same exponential."""
    e = np.exp(-np.abs(s))
    loss = np.maximum(s, 0.0) + np.log1p(e)
    if not sigmoid:
        return loss
    return loss, np.where(s > 0.0, 1.0, e) / (1.0 + e)


def binary_terms(s, y, sw, g, h) -> float:
    """Summed weighted log-loss at scores s (labels y in {0, 1}, weights sw), and into g and h the
    score gradients :math:`w_i(\\mu_i - y_i)` and curvatures :math:`w_i\\mu_i(1-\\mu_i)`."""
    loss, mu = _log1pexp(s, sigmoid=True)
    np.multiply(sw, mu - y, out=g)
    np.multiply(sw * mu, 1.0 - mu, out=h)
    return float(sw @ (loss - y * s))


def binary_residuals(s, y, sw, sure: float, mu, r) -> tuple[float, int]:
    """Into mu the probabilities :math:`\\mu_i = \\sigma(s_i)` and into r the residuals
    :math:`w_i(\\mu_i - y_i)` (weights sw, or an empty array for unit weights, as the compiled loop
    takes them); returns the summed weighted log-loss and the number of rows of positive weight
    whose own-class probability exceeds ``1 - sure``."""
    loss, m = _log1pexp(s, sigmoid=True)
    w = sw if sw.size else 1.0
    mu[:] = m
    np.multiply(w, m - y, out=r)
    own = np.where(y == 1.0, m, 1.0 - m) > 1.0 - sure
    perfect = int(np.count_nonzero(own & (sw > 0.0) if sw.size else own))
    return float(np.sum(w * (loss - y * s))), perfect


def binary_loss(s, z, t: float, y, sw) -> float:
    """Summed weighted log-loss at scores :math:`s + tz`."""
    st = s + t * z
    return float(sw @ (_log1pexp(st) - y * st))


def binary_loss_change(s, z, t: float, y, sw) -> float:
    """:math:`\\sum_i w_i(\\ell(s_i + tz_i) - \\ell(s_i))`, each term formed as a difference: for
    :math:`|d| < 1`, :math:`d = tz_i`, as :math:`\\ln(1 + \\mu_i(e^d - 1)) - y_id`, free of the
    cancellation of two nearly equal losses (a line search's decrease far below the rounding of the
    summed loss is still resolved); a term with :math:`d = 0` is 0."""
    with np.errstate(over="ignore", invalid="ignore"):  # a step of inf gives inf or NaN, silently
        d = t * z
        near = np.abs(d) < 1.0
        change = np.log1p(expit(s) * np.expm1(np.where(near, d, 0.0)))
        if not near.all():
            far = ~near
            change[far] = _log1pexp(s[far] + d[far]) - _log1pexp(s[far])
        change -= y * d
        return float(sw @ change)


def binary_best_intercept(s0, y, sw, b: float, total: float, max_iter: int) -> float:
    """The intercept b minimising :math:`\\sum_i w_i\\,\\ell(s_{0i} + b, y_i)`, by Newton's method
    from ``b``: stops when :math:`|\\sum_i w_i(\\mu_i - y_i)| \\le 10^{-13}` ``total``, or where the
    gradient is not finite or the curvature vanishes (:math:`\\mu_i` and :math:`1 - \\mu_i` each
    from its own exponential)."""
    for _ in range(max_iter):
        s = s0 + b
        p, q = expit(s), expit(-s)
        g, h = float(sw @ (p - y)), float(sw @ (p * q))
        if not np.isfinite(g) or abs(g) <= 1e-13 * total or not h > 0.0:
            break
        b -= g / h
    return b


def binary_gap_residuals(s0, b: float, y, sw, p, q, r) -> None:
    """At scores ``s0 + b``: into p and q the probabilities :math:`\\mu_i` and :math:`1 - \\mu_i`
    (each from its own exponential), into r the residuals :math:`w_i(\\mu_i - y_i)`."""
    s = s0 + b
    expit(s, out=p)
    expit(-s, out=q)
    np.multiply(sw, p - y, out=r)


def binary_dual_entropy(p, q, y, sw, alpha: float) -> float:
    """:math:`\\sum_i w_iH(\\alpha\\mu_i + (1 - \\alpha)y_i)` with :math:`H(u) = -u\\ln u - (1-u)
    \\ln(1-u)`, the second probability formed as
    :math:`\\alpha(1 - \\mu_i) + (1-\\alpha)(1 - y_i)`."""
    one = alpha * p + (1.0 - alpha) * y
    zero = alpha * q + (1.0 - alpha) * (1.0 - y)
    return -float(sw @ (xlogy(one, one) + xlogy(zero, zero)))
