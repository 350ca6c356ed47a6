"""liblinear's formulation of the intercept: the weight of a constant feature, penalised like the
others.

scikit-learn's ``solver='liblinear'`` appends a synthetic feature of constant value :math:`s`
(``intercept_scaling``) and fits without a separate intercept, so it minimises

.. math:: \\sum_i w_i\\,\\ell(x_i, y_i) + \\frac{1}{2C}\\big(\\lVert\\theta\\rVert^2 + \\beta^2\\big),
          \\qquad b = s\\,\\beta,

i.e. the intercept is penalised by :math:`b^2/(2Cs^2)`.  That optimum differs from the usual one
(unpenalised intercept) and tends to it as :math:`s \\to \\infty`.  Fitting the augmented design
:math:`[X, s\\mathbf 1]` without intercept reaches exactly liblinear's optimum; these functions build
that design and read the intercept and its inference back.
"""

from __future__ import annotations

import numpy as np

from linclass.linear.inference.wald import LogisticInference

__all__ = ["augment", "split", "reported_inference"]


def augment(X: np.ndarray, scaling: float) -> np.ndarray:
    """:math:`[X, s\\mathbf 1]` of shape (n_samples, n_features + 1)."""
    out = np.empty((X.shape[0], X.shape[1] + 1))
    out[:, :-1] = X
    out[:, -1] = scaling
    return out


def split(coef: np.ndarray, scaling: float) -> tuple[np.ndarray, np.ndarray]:
    """``(coef, intercept)`` from the augmented coefficients of shape (m, d + 1): the last column
    times :math:`s` is the intercept."""
    return coef[:, :-1].copy(), scaling * coef[:, -1]


def reported_inference(inference: LogisticInference, scaling: float,
                       class_totals: np.ndarray) -> LogisticInference:
    """The inference record of the augmented fit, in the usual reporting order (intercept first,
    :math:`b = s\\beta`, so its variance is :math:`s^2\\mathrm{Var}(\\beta)`), with the null model that
    has an intercept: :math:`\\ell_0 = \\sum_k n_k\\ln(n_k/N)`.

    Parameters
    ----------
    inference : LogisticInference of the fit without intercept on :func:`augment`'s design
        (binary: one equation of d + 1 parameters, the constant feature's last).
    scaling : float
    class_totals : ndarray of shape (n_classes,)
        Weighted class totals :math:`n_k`.
    """
    covariance = inference.covariance
    if covariance is not None:
        p = covariance.shape[0]
        order = np.r_[p - 1, np.arange(p - 1)]
        scale = np.ones(p)
        scale[0] = scaling
        covariance = covariance[np.ix_(order, order)] * np.outer(scale, scale)
    n = class_totals[class_totals > 0]
    null = float(np.sum(n * np.log(n / n.sum())))
    return LogisticInference(
        log_likelihood=inference.log_likelihood, null_log_likelihood=null, n_obs=inference.n_obs,
        covariance=covariance, reason=inference.reason, notes=inference.notes,
    )
