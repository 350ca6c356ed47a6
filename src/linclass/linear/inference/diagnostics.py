"""Case diagnostics of an unpenalised binary logistic fit: fitted probabilities, deviance and
Pearson residuals, leverages (hat values), Cook's distances and standardised deviance residuals, as
R's ``fitted``, ``residuals``, ``hatvalues``, ``cooks.distance`` and ``rstandard`` define them for a
``glm(..., family = binomial, weights = w)``.

Notation: row :math:`i` has the label :math:`y_i \\in \\{0, 1\\}`, the prior (frequency) weight
:math:`w_i > 0` (R's ``weights``), the design row :math:`\\tilde x_i` (with a leading 1 when the model
has an intercept), the linear predictor :math:`\\eta_i = \\tilde x_i^\\top \\hat\\beta` and the fitted
probability :math:`\\mu_i = 1 / (1 + e^{-\\eta_i})`; :math:`p` is the number of coefficients, the
intercept included.

* Unit deviance :math:`d_i = -2[y_i \\log\\mu_i + (1-y_i)\\log(1-\\mu_i)]`
  (:math:`= 2\\log(1 + e^{-s_i\\eta_i})` with :math:`s_i = 2y_i - 1`, computed in that form), and the
  deviance residual :math:`r^D_i = \\mathrm{sign}(y_i - \\mu_i)\\sqrt{w_i d_i}`
  (McCullagh and Nelder 1989, *Generalized Linear Models*, 2nd ed., sec. 2.4.3).
* Pearson residual :math:`r^P_i = (y_i - \\mu_i)\\sqrt{w_i} / \\sqrt{\\mu_i(1-\\mu_i)}`
  (:math:`= s_i\\sqrt{w_i}\\, e^{-s_i\\eta_i/2}` for a 0/1 label, computed in that form).
* Working weights :math:`W_i = w_i\\mu_i(1-\\mu_i)`; the leverages are the diagonal of
  :math:`H = W^{1/2}\\tilde X(\\tilde X^\\top W\\tilde X)^{-1}\\tilde X^\\top W^{1/2}`, the hat matrix
  of the last iteratively reweighted least-squares step (Pregibon 1981, "Logistic regression
  diagnostics", *Annals of Statistics* 9, 705-724, sec. 3).  With the Cholesky factor
  :math:`\\tilde X^\\top W\\tilde X = LL^\\top`, :math:`h_i = W_i\\,\\lVert L^{-1}\\tilde x_i\\rVert^2`:
  one triangular solve for all rows and a row-wise sum of squares.
* Standardised deviance residual (R's ``rstandard``, its default type) with the binomial
  dispersion :math:`\\phi = 1`: :math:`r^D_i / \\sqrt{1 - h_i}`.
* Cook's distance as R's ``cooks.distance.glm`` (its documentation: ``influence.measures``)
  defines it, from the Pearson residual with :math:`\\phi = 1`:
  :math:`D_i = (r^P_i / (1 - h_i))^2\\, h_i / p` (Pregibon's one-step approximation to the change in
  the estimate when row :math:`i` is left out, sec. 5; Williams 1987, "Generalized linear model
  diagnostics using the deviance and single case deletions", *Applied Statistics* 36, 181-191).

The influence measures (studentized residuals, DFBETAS, DFFITS, response and working residuals)
are in :mod:`linclass.linear.inference.influence`; the Hosmer-Lemeshow test
(:meth:`Diagnostics.hosmer_lemeshow`) in :mod:`linclass.linear.inference.goodness_of_fit`.

R drops the rows of zero prior weight from ``hatvalues``, ``cooks.distance`` and ``rstandard``;
those rows do not change the fit, so callers pass the weighted rows only.

A grouped binomial response (:math:`s_i` successes in :math:`m_i` trials) enters as R's
``binomial()`` takes it: the proportion :math:`y_i = s_i/m_i` with the prior weight
:math:`w_im_i`, in every formula above (the unit deviance is then
:math:`2[y_i\\log(y_i/\\mu_i) + (1-y_i)\\log((1-y_i)/(1-\\mu_i))]`, :func:`binomial_residuals`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.special import expit, xlogy

from linclass.linear.inference.goodness_of_fit import HosmerLemeshowTest, hosmer_lemeshow
from linclass.linear.inference.influence import influence_measures

__all__ = ["Diagnostics", "binomial_residuals", "logistic_diagnostics"]


@dataclass(frozen=True)
class Diagnostics:
    """Case diagnostics, one entry per row (see the module's formulas).

    Attributes
    ----------
    fitted : ndarray of shape (n,)
        :math:`\\mu_i`, the probability of ``classes_[1]`` (R's ``fitted``).
    deviance_residuals, pearson_residuals : ndarray of shape (n,)
        R's ``residuals(type = "deviance")`` and ``residuals(type = "pearson")``.
    hat : ndarray of shape (n,)
        Leverages (R's ``hatvalues``).
    cooks_distance : ndarray of shape (n,)
        R's ``cooks.distance``.
    standardized_residuals : ndarray of shape (n,)
        Deviance residuals over :math:`\\sqrt{1 - h_i}` (R's ``rstandard``).
    studentized_residuals : ndarray of shape (n,)
        R's ``rstudent`` (:mod:`linclass.linear.inference.influence`).
    dfbetas : ndarray of shape (n, p)
        R's ``dfbetas``: one column per coefficient, the intercept's first.
    dffits : ndarray of shape (n,)
        R's ``dffits``.
    response_residuals, working_residuals : ndarray of shape (n,)
        R's ``residuals(type = "response")`` (:math:`y_i - \\mu_i`) and
        ``residuals(type = "working")`` (:math:`(y_i - \\mu_i)/(\\mu_i(1-\\mu_i))`).
    prior_weights : ndarray of shape (n,) or None
        The rows' prior weights (the trials of grouped counts), which
        :meth:`hosmer_lemeshow` reads as frequencies.
    parameter_names : sequence of str or None
        The coefficients' names, for the DFBETAS columns of :meth:`to_frame`.
    index : sequence or None
        Row labels for :meth:`to_frame` (a pandas X's index), else 0..n-1.
    """

    fitted: np.ndarray
    deviance_residuals: np.ndarray
    pearson_residuals: np.ndarray
    hat: np.ndarray
    cooks_distance: np.ndarray
    standardized_residuals: np.ndarray
    index: object = None
    studentized_residuals: np.ndarray | None = None
    dfbetas: np.ndarray | None = None
    dffits: np.ndarray | None = None
    response_residuals: np.ndarray | None = None
    working_residuals: np.ndarray | None = None
    prior_weights: np.ndarray | None = None
    parameter_names: tuple | None = None

    def to_frame(self):
        """A pandas DataFrame, one row per observation, one column per measure (DFBETAS: one
        column ``dfb_<name>`` per coefficient, as R's ``influence.measures`` names them
        ``dfb.<name>``)."""
        import pandas as pd

        names = ["fitted", "deviance_residuals", "pearson_residuals", "hat", "cooks_distance",
                 "standardized_residuals", "studentized_residuals", "dffits",
                 "response_residuals", "working_residuals"]
        columns = {name: getattr(self, name) for name in names if getattr(self, name) is not None}
        if self.dfbetas is not None:
            labels = self.parameter_names or [f"b{j}" for j in range(self.dfbetas.shape[1])]
            columns.update({f"dfb_{label}": self.dfbetas[:, j] for j, label in enumerate(labels)})
        return pd.DataFrame(columns, index=self.index)

    def hosmer_lemeshow(self, groups: int = 10) -> HosmerLemeshowTest:
        """The Hosmer-Lemeshow goodness-of-fit test with Stata's grouping (``estat gof,
        group(#)``: quantile groups of the fitted probability, equal probabilities in one group;
        :mod:`linclass.linear.inference.goodness_of_fit`), the prior weights read as frequency
        weights (Stata's fweights).

        Parameters
        ----------
        groups : int, default=10
            The number of quantile groups asked for; ties may leave fewer.

        Returns
        -------
        :class:`~linclass.linear.inference.goodness_of_fit.HosmerLemeshowTest`
            ``statistic``, ``df``, ``pvalue`` and the groups' ``table``.
        """
        if self.response_residuals is None:
            raise ValueError("These diagnostics do not hold the responses; compute them with "
                             "linclass.diagnostics(model, X, y).")
        y = self.fitted + self.response_residuals
        return hosmer_lemeshow(self.fitted, y, self.prior_weights, groups)


def logistic_diagnostics(X, y01, weight, coef, intercept, fit_intercept: bool,
                         offset=None) -> Diagnostics:
    """The diagnostics of the binary logistic fit ``coef`` (shape (d,) or (1, d)) and
    ``intercept`` (scalar or shape (1,)) over the rows ``X`` (dense or sparse, (n, d)) with 0/1
    labels ``y01`` (or the proportions of a grouped response, whose weights hold the trials),
    positive prior weights ``weight`` (None: ones) and the fit's ``offset``
    (shape (n,) or (n, 1); None: none; it enters :math:`\\eta` only).

    Raises
    ------
    ValueError
        When :math:`\\tilde X^\\top W\\tilde X` is not positive definite (collinear columns, or
        fitted probabilities of exactly 0 or 1), or a row has leverage 1 (R reports NaN there).
    """
    n = X.shape[0]
    w = np.ones(n) if weight is None else np.asarray(weight, dtype=np.float64)
    y01 = np.asarray(y01, dtype=np.float64)
    beta = np.asarray(coef, dtype=np.float64).reshape(-1)
    b0 = float(np.asarray(intercept, dtype=np.float64).reshape(-1)[0]) if fit_intercept else 0.0
    eta = np.asarray(X @ beta).reshape(-1) + b0
    if offset is not None:
        eta = eta + np.asarray(offset, dtype=np.float64).reshape(-1)
    mu = expit(eta)
    variance = mu * expit(-eta)  # mu (1 - mu), without cancellation
    deviance, pearson = binomial_residuals(y01, eta, w)

    W = w * variance
    p = X.shape[1] + int(fit_intercept)
    gram = np.empty((p, p))
    WX = X.multiply(W[:, None]).tocsc() if sp.issparse(X) else X * W[:, None]
    k = int(fit_intercept)
    gram[k:, k:] = _dense(X.T @ WX)
    if fit_intercept:
        gram[0, 0] = W.sum()
        gram[0, 1:] = gram[1:, 0] = np.asarray(WX.sum(axis=0)).reshape(-1)
    try:
        L = scipy.linalg.cholesky(gram, lower=True)
    except np.linalg.LinAlgError:
        L = None
    # L_jj^2 / G_jj is 1 - R^2 of column j on the columns before it (in the weighted metric)
    if L is None or np.any(np.diag(L) <= 1e-7 * np.sqrt(np.maximum(np.diag(gram), 0.0))) \
            or np.any(np.diag(gram) <= 0):
        raise ValueError("diagnostics: the weighted information matrix X^T W X is singular "
                         "(collinear columns, or fitted probabilities of exactly 0 or 1), so the "
                         "hat values are not defined; R's glm would drop aliased columns.")
    # row i of Z is (L^{-1} x~_i)^T: Z = X~ L^{-T}, the intercept's column of X~ split off
    Linv = scipy.linalg.solve_triangular(L, np.eye(p), lower=True)  # p x p, small
    Z = _dense(X @ Linv[:, k:].T)
    if fit_intercept:
        Z = Z + Linv[:, 0][None, :]
    hat = W * np.einsum("ij,ij->i", Z, Z)
    if np.any(hat >= 1.0):
        raise ValueError(f"diagnostics: rows {np.flatnonzero(hat >= 1.0).tolist()[:10]} have leverage "
                         "1 (they are fitted exactly); their standardised residuals and Cook's "
                         "distances are undefined (R reports NaN).")
    return Diagnostics(fitted=mu, deviance_residuals=deviance, pearson_residuals=pearson, hat=hat,
                       cooks_distance=(pearson / (1.0 - hat)) ** 2 * hat / p,
                       standardized_residuals=deviance / np.sqrt(1.0 - hat), prior_weights=w,
                       **influence_measures(Z, Linv, W, hat, deviance, pearson, y01, mu, variance))


def binomial_residuals(y, eta, w) -> tuple[np.ndarray, np.ndarray]:
    """The deviance and Pearson residuals of responses ``y`` (0/1 labels, or proportions
    :math:`s_i/m_i` of a grouped response with prior weights :math:`w_i m_i`) at the log-odds
    ``eta`` with prior weights ``w``.  For a proportion the unit deviance is
    :math:`2[y\\log(y/\\mu) + (1-y)\\log((1-y)/(1-\\mu))]` and the Pearson residual
    :math:`(y-\\mu)\\sqrt{w}/\\sqrt{\\mu(1-\\mu)}` (R's ``binomial()``); for 0/1 labels the forms of
    the module docstring, which do not cancel."""
    if np.all((y == 0) | (y == 1)):
        s = 2.0 * y - 1.0
        return (s * np.sqrt(w * 2.0 * np.logaddexp(0.0, -s * eta)),
                s * np.sqrt(w) * np.exp(-0.5 * s * eta))
    # -log(mu) = log(1 + e^-eta), -log(1 - mu) = log(1 + e^eta)
    unit = 2.0 * (xlogy(y, y) + xlogy(1.0 - y, 1.0 - y) + y * np.logaddexp(0.0, -eta)
                  + (1.0 - y) * np.logaddexp(0.0, eta))
    mu = expit(eta)
    sign = np.sign(y - mu)
    return (sign * np.sqrt(w * np.maximum(unit, 0.0)),
            (y - mu) * np.sqrt(w) / np.sqrt(mu * expit(-eta)))


def _dense(a) -> np.ndarray:
    return a.toarray() if sp.issparse(a) else np.asarray(a)
