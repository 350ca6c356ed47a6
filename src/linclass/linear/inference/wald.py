"""Statistical inference for fitted logistic / softmax regression: standard errors, Wald tests,
confidence intervals, the likelihood-ratio test against the null model, pseudo R², AIC and BIC.

For the maximum-likelihood estimate :math:`\\hat\\theta` the asymptotic covariance is the inverse of
the observed information, :math:`\\widehat{\\mathrm{Cov}}(\\hat\\theta) = H(\\hat\\theta)^{-1}` with
:math:`H = X^TWX` (Bishop 2006 sec. 4.3.3; for logistic regression, a canonical-link GLM, the observed and
expected information coincide: McCullagh and Nelder 1989 ch. 2).  A reported parameter
:math:`\\beta = J\\theta` (coefficients on the original features, softmax contrasts against the reference
class) has covariance :math:`J H^{-1} J^T`.  Then

.. math::

    z_j = \\hat\\beta_j / \\mathrm{se}_j, \\qquad p_j = 2\\,\\Phi(-|z_j|), \\qquad
    \\hat\\beta_j \\pm \\Phi^{-1}(1-\\alpha/2)\\,\\mathrm{se}_j,

    LR = 2(\\ell - \\ell_0) \\sim \\chi^2_{df}, \\quad R^2_{McF} = 1 - \\ell/\\ell_0, \\quad
    AIC = -2\\ell + 2k, \\quad BIC = -2\\ell + k\\ln N.

Softmax parameters are reported as statsmodels' ``MNLogit`` reports them: for each class
:math:`k \\ge 1`, the contrast :math:`\\theta_k - \\theta_0` against the first class, which is
identifiable (the sum-to-zero coefficients themselves are not separately estimable without the
constraint).  Penalised fits use the penalised Hessian (the covariance of the Gaussian-prior posterior
approximation); their estimates are shrunk towards zero, so the tests and intervals are not valid
frequentist inference, and the summary says so.

:func:`logistic_inference` computes, once at the end of a fit, everything the table needs besides the
coefficients: the log-likelihood, the null log-likelihood, :math:`J H^{-1} J^T` and the caveats, in a
:class:`LogisticInference` record; :meth:`LogisticInference.summary` turns it into the table, a
:class:`~linclass.linear.inference.summary.Summary` (built by :func:`~linclass.linear.inference.summary.summarize`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from linclass.exceptions import SingularCovarianceWarning
from linclass.linear.solvers import SymmetricSolver
from linclass.linear.inference.summary import Summary, summarize

__all__ = [
    "MAX_PARAMS",
    "SINGULAR",
    "LogisticInference",
    "expand_covariance",
    "Summary",
    "inference_hessian",
    "logistic_inference",
    "reporting_map",
    "summarize",
]

MAX_PARAMS = 2000  # the covariance of larger models is not formed
SINGULAR = "the information matrix is singular (collinear features)"  # a record's reason


# ----------------------------------------------------------------------------- at the end of a fit


@dataclass(frozen=True, eq=False)
class LogisticInference:
    """What a fitted logistic / softmax regression needs for its :class:`Summary`, besides its
    coefficients.

    Attributes
    ----------
    log_likelihood : float
        :math:`\\ell` at the fitted parameters (without the penalty).
    null_log_likelihood : float
        :math:`\\ell_0` of the intercept-only model (with no intercept: uniform probabilities).
    n_obs : float
        Number of observations (sum of the frequency weights).
    covariance : ndarray of shape (n_params, n_params) or None
        :math:`J H^{-1} J^T` of the reported parameters (:func:`reporting_map`); None when it is not
        formed (``reason`` says why).
    reason : str or None
    notes : tuple of str
        Caveats (penalised fit, separation, non-convergence).
    """

    log_likelihood: float
    null_log_likelihood: float
    n_obs: float
    covariance: np.ndarray | None = None
    reason: str | None = None
    notes: tuple = ()

    def as_state(self) -> dict:
        """The record as model files of format version 1 store it (the estimator's ``_inference``):
        a dict of ``notes``, ``covariance``, ``reason``, ``null`` and ``n_obs``; the log-likelihood
        is the estimator's ``log_likelihood_``."""
        return {"notes": list(self.notes), "covariance": self.covariance, "reason": self.reason,
                "null": self.null_log_likelihood, "n_obs": self.n_obs}

    @classmethod
    def from_state(cls, state, log_likelihood: float) -> LogisticInference:
        """The inverse of :meth:`as_state` (also for files written before this record existed).

        Raises
        ------
        TypeError
            When ``state`` is not such a dict (a damaged or hand-edited model file).
        KeyError
            When one of its entries is missing.
        """
        if not isinstance(state, dict):
            raise TypeError(f"the inference state is a {type(state).__name__}, not a dict of "
                            "'notes', 'covariance', 'reason', 'null' and 'n_obs'")
        covariance = state["covariance"]
        return cls(
            log_likelihood=float(log_likelihood), null_log_likelihood=float(state["null"]),
            n_obs=float(state["n_obs"]),
            covariance=None if covariance is None else np.asarray(covariance, dtype=np.float64),
            reason=state["reason"], notes=tuple(state["notes"]),
        )

    def table(self, *, coef, intercept, classes, feature_names, fit_intercept,
              alpha: float = 0.05, ci: str = "wald", reference: int = 0) -> Summary:
        """The :class:`Summary` of the fitted ``coef`` / ``intercept`` (shapes (1, d) and (1,) for two
        classes, else (K, d) and (K,)): the log-odds for two classes, each class's contrast against
        the first for K.  Raises ``ValueError`` when there are no standard errors (``reason``), and
        for ``ci='profile'`` (profile intervals are a Firth fit's, or computed from the training
        rows by :func:`linclass.estimators.logistic.summary.summary_table`)."""
        if ci not in ("wald", "profile"):
            raise ValueError(f"ci must be 'wald' or 'profile'; got {ci!r}.")
        if ci == "profile":
            raise ValueError("Profile intervals are computed for Firth fits (penalty='firth'; at "
                             "the first summary that asks for them), and for unpenalised fits from "
                             "their training rows "
                             "(LogisticRegression.summary(ci='profile', X=X, y=y)).")
        if self.covariance is None:
            raise ValueError(f"No standard errors for this fit: {self.reason}.")
        coef, intercept = np.asarray(coef), np.asarray(intercept)
        covariance = self.covariance
        if coef.shape[0] > 1:
            order = [reference] + [k for k in range(coef.shape[0]) if k != reference]
            coef, intercept = coef[order[1:]] - coef[reference], intercept[order[1:]] - intercept[reference]
            if reference:
                T = reference_change(coef.shape[0] + 1, reference, covariance.shape[0] // coef.shape[0])
                covariance = T @ covariance @ T.T
            classes = np.asarray(classes)[order]
        return summarize(
            coef=coef, intercept=intercept, covariance=covariance,
            log_likelihood=self.log_likelihood, null_log_likelihood=self.null_log_likelihood,
            n_obs=self.n_obs, classes=classes, feature_names=feature_names,
            fit_intercept=fit_intercept, alpha=alpha, notes=self.notes,
        )


def expand_covariance(covariance: np.ndarray, keep: np.ndarray, m: int,
                      fit_intercept: bool) -> np.ndarray:
    """The covariance of the reported parameters of a fit on the columns ``keep`` (bool, (d,)),
    laid out for every column: NaN in the rows and columns of the others (aliased, R's NA).
    ``m`` equations, each (intercept,) coef_1, ..., coef_d."""
    k = int(fit_intercept)
    block = np.r_[np.ones(k, dtype=bool), keep]
    where = np.flatnonzero(np.tile(block, m))
    full = np.full((m * block.size,) * 2, np.nan)
    full[np.ix_(where, where)] = covariance
    return full


def reference_change(K: int, reference: int, p: int) -> np.ndarray:
    """The linear map from the contrasts against class 0 (K - 1 blocks of p parameters, as the
    covariance is laid out) to those against class ``reference``: :math:`\\theta_k - \\theta_r =
    (\\theta_k - \\theta_0) - (\\theta_r - \\theta_0)`, for the classes other than r in order."""
    old = np.zeros((K, K - 1))  # class k's contrast in terms of the old ones (class 0: none)
    old[1:] = np.eye(K - 1)
    rows = [old[k] - old[reference] for k in range(K) if k != reference]
    return np.kron(np.array(rows), np.eye(p))


def reporting_map(layout) -> np.ndarray:
    """Matrix J with (reported parameters) = J @ theta.ravel(): per equation the intercept (when
    fitted) and the coefficients; softmax equations are contrasts against class 0.

    ``layout`` is the fit's :class:`~linclass.linear.logistic.layout.ObjectiveLayout`.  Returns an
    array of shape (n_reported, n_params).
    """
    columns = []
    for j in range(layout.n_params):
        e = np.zeros(layout.n_params)
        e[j] = 1.0
        coef, intercept = layout.coefficients(e)
        if coef.shape[0] > 1:
            coef, intercept = coef[1:] - coef[0], intercept[1:] - intercept[0]
        block = np.hstack([intercept[:, None], coef]) if layout.fit_intercept else coef
        columns.append(block.ravel())
    return np.array(columns).T


def inference_hessian(objective, theta, *, max_params: int | None = None) -> np.ndarray | None:
    """The exact (float64) Hessian of the mean objective at ``theta``, of shape (n_params, n_params),
    or None for a model with more than ``max_params`` (None: :data:`MAX_PARAMS`) parameters, whose
    covariance is not formed.  A fit forms it at the solver's last iterate, for the final Newton
    steps (:func:`linclass.linear.solvers.final_step.final_newton_step`), and once more at the
    returned estimate, for :func:`logistic_inference`."""
    max_params = MAX_PARAMS if max_params is None else max_params
    if objective.n_params > max_params:
        return None
    return objective.hessian(theta)


def logistic_inference(objective, result, *, separation: str | None = None,
                       max_params: int | None = None, hessian: np.ndarray | None = None
                       ) -> LogisticInference:
    """Inference state at the end of a fit: log-likelihoods, :math:`J H^{-1} J^T` and caveats.

    .. math::  \\ell = -(N f(\\hat\\theta) - \\tfrac{\\lambda}{2}\\lVert\\hat W\\rVert^2), \\qquad
               \\ell_0 = \\sum_k N_k \\ln\\frac{N_k}{N} \\;\\text{(with an intercept; else } -N\\ln K),

    (with a score offset, :math:`\\ell_0` is the intercept-only fit with the offset,
    :mod:`linclass.linear.logistic.offsets`),

    and the covariance :math:`J H^{-1} J^T` with the (penalised) Hessian of the summed objective
    :math:`H = N\\nabla^2 f` (Bishop 2006 sec. 4.3.3) at the optimum and :math:`J` of
    :func:`reporting_map`.  A singular :math:`H` of an unpenalised, unseparated fit warns with
    :class:`~linclass.SingularCovarianceWarning` and leaves the covariance out; so does a model with
    more than ``max_params`` parameters.

    Parameters
    ----------
    objective : LinearObjective or ChunkedObjective
        The objective the solver minimised.
    result : SolverResult
        Its outcome.
    separation : {'complete', 'quasi', 'suspected'} or None
        What :func:`linclass.linear.logistic.separation.check_separation` found (unpenalised fits).
    max_params : int or None
        None: :data:`MAX_PARAMS`.
    hessian : ndarray of shape (n_params, n_params) or None
        :func:`inference_hessian` at ``result.theta``, when the caller formed it already (the
        fit's final Newton steps end with it: :mod:`linclass.linear.solvers.final_step`); None
        forms it at ``result.theta``.

    Returns
    -------
    LogisticInference
    """
    theta = result.theta
    W = theta.reshape(objective.shape)[: objective.n_features]
    log_likelihood = -(result.value * objective.total - 0.5 * objective.l2 * float(np.sum(W**2)))
    null = -objective.null_value() * objective.total  # with a score offset: its null fit
    notes = []
    if objective.l2 == 0.0:
        if separation is not None:
            notes.append(f"{separation} separation: the maximum-likelihood estimate does not exist; "
                         "coefficients, standard errors and p-values are meaningless.")
    else:
        notes.append(f"penalised fit (C={1.0 / objective.l2:g}): estimates are shrunk towards zero "
                     "and the standard errors come from the penalised Hessian; tests and intervals "
                     "are not valid frequentist inference. Refit with C=np.inf for those.")
    if not result.converged:
        notes.append(f"the solver did not converge in {result.n_iter} iterations.")
    covariance, reason = None, None
    max_params = MAX_PARAMS if max_params is None else max_params
    if objective.n_params > max_params:
        reason = (f"the model has {objective.n_params} parameters; standard errors are formed for at "
                  f"most {max_params}")
    else:
        if hessian is None:
            hessian = objective.hessian(theta)
        system = SymmetricSolver(hessian * objective.total)
        if system.singular and objective.l2 == 0.0 and separation is None:
            warnings.warn(
                "The information matrix X^T W X is singular: some features are constant or "
                "collinear, so their coefficients are not identifiable (the minimum-norm solution "
                "is returned and standard errors are undefined). Drop the redundant features or "
                "use a finite C.",
                SingularCovarianceWarning, stacklevel=5,  # the caller of fit
            )
            reason = SINGULAR
        else:
            J = reporting_map(objective)
            covariance = J @ system.solve(J.T)
    return LogisticInference(log_likelihood=float(log_likelihood), null_log_likelihood=float(null),
                             n_obs=float(objective.total), covariance=covariance, reason=reason,
                             notes=tuple(notes))
