"""Influence measures of an unpenalised binary logistic fit, as R defines them for a binomial glm
(``rstudent``, ``dfbetas``, ``dffits``, ``residuals(type = "response" / "working")``; R's
``influence.measures`` documentation and ``stats:::rstudent.glm``, ``lm.influence``).

In the notation of :mod:`linclass.linear.inference.diagnostics` (deviance residual :math:`r^D_i`,
Pearson residual :math:`r^P_i`, working weight :math:`W_i = w_i\\mu_i(1-\\mu_i)`, leverage
:math:`h_i`, :math:`p` coefficients and :math:`n` rows of positive weight):

* response residual :math:`y_i - \\mu_i`; working residual :math:`(y_i - \\mu_i)/(\\mu_i(1-\\mu_i))`
  (the IRLS residual, R's ``residuals(type = "working")``);
* studentized residual (R's ``rstudent`` of a binomial glm, no dispersion):
  :math:`\\mathrm{sign}(r^D_i)\\sqrt{(r^D_i)^2 + h_i(r^P_i)^2/(1-h_i)}` (Williams 1987,
  "Generalized linear model diagnostics using the deviance and single case deletions", *Applied
  Statistics* 36, 181-191: the likelihood residual);
* leave-one-out scale :math:`\\sigma_{(i)} = \\sqrt{(\\sum_j (r^D_j)^2 - (r^D_i)^2/(1-h_i))/(n-p-1)}`,
  which R's ``lm.influence`` computes from the deviance residuals of a glm;
* DFBETA, the one-step approximation to the change in :math:`\\hat\\beta` when row :math:`i` is
  left out (Pregibon 1981, "Logistic regression diagnostics", *Annals of Statistics* 9, 705-724),
  as R's ``lm.influence`` forms it from the weighted least-squares problem of the last IRLS step
  with the deviance residuals: :math:`(\\tilde X^TW\\tilde X)^{-1}\\tilde x_i\\sqrt{W_i}\\,
  r^D_i/(1-h_i)`; DFBETAS divides column :math:`j` by
  :math:`\\sigma_{(i)}\\sqrt{[(\\tilde X^TW\\tilde X)^{-1}]_{jj}}` (R's ``dfbetas``);
* DFFITS :math:`r^D_i\\sqrt{h_i}/(\\sigma_{(i)}(1-h_i))` (R's ``dffits``).

R's glm versions are these one-step approximations, not refits without the row (Belsley, Kuh and
Welsch 1980, *Regression Diagnostics*, for the linear-model originals).
"""

from __future__ import annotations

import numpy as np

__all__ = ["influence_measures"]


def influence_measures(Z: np.ndarray, L_inv: np.ndarray, W: np.ndarray, hat: np.ndarray,
                       deviance: np.ndarray, pearson: np.ndarray, y: np.ndarray,
                       mu: np.ndarray, variance: np.ndarray) -> dict:
    """The measures of the module docstring, as a dict of arrays.

    Parameters
    ----------
    Z : ndarray of shape (n, p)
        Rows :math:`(L^{-1}\\tilde x_i)^T`, with :math:`LL^T = \\tilde X^TW\\tilde X`.
    L_inv : ndarray of shape (p, p)
        :math:`L^{-1}`.
    W, hat, deviance, pearson : ndarray of shape (n,)
        Working weights, leverages, deviance and Pearson residuals.
    y, mu, variance : ndarray of shape (n,)
        Responses (0/1, or the proportions of grouped counts), fitted probabilities and
        :math:`\\mu_i(1-\\mu_i)`.

    Returns
    -------
    dict
        ``studentized_residuals``, ``dffits``, ``response_residuals``, ``working_residuals`` of
        shape (n,) and ``dfbetas`` of shape (n, p) (the intercept's column first); DFBETAS and
        DFFITS are NaN when there are no more rows than coefficients plus one (no leave-one-out
        scale).
    """
    n, p = Z.shape
    response = y - mu
    squares = deviance ** 2
    if n > p + 1:
        sigma = np.sqrt(np.maximum(squares.sum() - squares / (1.0 - hat), 0.0) / (n - p - 1))
    else:
        sigma = np.full(n, np.nan)
    studentized = np.sign(deviance) * np.sqrt(squares + hat * pearson ** 2 / (1.0 - hat))
    scale = np.sqrt(W) * deviance / (1.0 - hat)
    # (X~'WX~)^{-1} x~_i = L^{-T} z_i, so row i of DFBETA is scale_i z_i^T L^{-1}
    dfbeta = (Z * scale[:, None]) @ L_inv
    se_unit = np.sqrt(np.einsum("kj,kj->j", L_inv, L_inv))  # sqrt diag (X~'WX~)^{-1}
    return {"studentized_residuals": studentized,
            "dfbetas": dfbeta / np.outer(sigma, se_unit),
            "dffits": deviance * np.sqrt(hat) / (sigma * (1.0 - hat)),
            "response_residuals": response,
            "working_residuals": response / variance}
