"""liblinear's formulation of the intercept: the weight of a constant feature, penalised like the
others.

scikit-learn's ``solver='liblinear'`` appends a synthetic feature of constant value :math:`s`
(``intercept_scaling``) and fits without a separate intercept, so it minimises

.. math:: \\sum_i w_i\\,\\ell(x_i, y_i) + \\frac{1}{2C}\\big(\\lVert\\theta\\rVert^2 + \\beta^2\\big),
          \\qquad b = s\\,\\beta,

i.e. the intercept is penalised by :math:`b^2/(2Cs^2)`.  That optimum differs from the usual one
(unpenalised intercept) and tends to it as :math:`s \\to \\infty`.  Fitting the augmented design
:math:`[X, s\\mathbf 1]` without intercept reaches exactly liblinear's optimum; these functions build
that design and read the intercept and its inference back.  With the L1 penalty the constant
feature's weight is penalised by the lasso too, :math:`|\\beta|/C`, and the fit is proximal Newton's
on the same design (:mod:`linclass.linear.logistic.intercept_proximal`).
"""

from __future__ import annotations

import numpy as np

import scipy.sparse as sp

from linclass.linear.fitting.fit import finish_of, objective_of, start_of
from linclass.linear.inference.wald import LogisticInference
from linclass.linear.logistic.losses import null_log_likelihood
from linclass.linear.logistic.objective import LinearObjective
from linclass.linear.penalties.elastic_net import SMOOTH_SOLVERS, ElasticNet

__all__ = ["PenalisedIntercept", "augment", "reported_inference", "split",
           "with_penalised_intercept"]


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
    null = null_log_likelihood(class_totals, float(np.sum(class_totals)), True)
    return LogisticInference(
        log_likelihood=inference.log_likelihood, null_log_likelihood=null, n_obs=inference.n_obs,
        covariance=covariance, reason=inference.reason, notes=inference.notes,
    )


class PenalisedIntercept:
    """liblinear's objective (scikit-learn's ``solver='liblinear'``), which brings its own stages of
    a fit (:mod:`linclass.linear.fitting.fit`; :func:`with_penalised_intercept` makes it): the L2
    or the L1 penalty ``base`` with the intercept the weight of a penalised constant feature of
    value ``scaling`` (None: no intercept, the plain penalised fit).  Two classes, rows in memory; the smooth solvers for L2,
    proximal Newton ('cd') for L1."""

    certifiable = False  # its gap would be the augmented design's; the gradient test stands
    score = "gradient"

    def __init__(self, base, scaling: float | None):
        self.base, self.scaling = base, None if scaling is None else float(scaling)
        self.in_memory = self.scaling is not None  # the augmented design is formed in memory
        self.name = self.kind = base.kind
        self.C, self.l1_ratio, self.l1, self.l2 = base.C, base.l1_ratio, base.l1, base.l2
        self.sparse = base.sparse
        self.smooth = not base.sparse
        self.solvers = ("cd",) if base.sparse else SMOOTH_SOLVERS

    def __repr__(self) -> str:
        return f"PenalisedIntercept({self.base!r}, scaling={self.scaling!r})"

    def value(self, W) -> float:
        return self.base.value(W)

    def check(self, problem) -> None:
        if problem.n_classes > 2:
            raise ValueError(
                f"The 'liblinear' solver does not support multiclass classification: "
                f"solver='liblinear' fits two classes only (y has {problem.n_classes}), as in "
                "scikit-learn; use another solver for softmax regression, or wrap the model in "
                "linclass.OneVsRestClassifier."
            )
        X = problem.X
        if (X.max() if sp.issparse(X) else np.max(X)) > 1e30:  # scikit-learn's refusal
            raise ValueError("Using the 'liblinear' solver while X contains a maximum value > 1e30 "
                             "results in a frozen fit. Please choose another solver or rescale the "
                             "input X: solver='liblinear' takes X whose largest value is at most "
                             "1e30 (scikit-learn's liblinear does not return otherwise).")

    def objective(self, problem, *, proximal: bool = False):
        if self.scaling is None:
            return objective_of(self.base, problem, proximal=proximal)
        X = problem.X
        if sp.issparse(X):  # the constant column appended to the stored entries
            column = sp.csr_matrix(np.full((X.shape[0], 1), self.scaling))
            X = sp.hstack([X, column], format="csr")
        else:
            X = augment(X, self.scaling)
        if proximal:
            from linclass.linear.logistic.intercept_proximal import AugmentedObjective

            return AugmentedObjective(X, problem.y, problem.n_classes, problem.weight, self.base,
                                      scaling=self.scaling, score_offset=problem.offset)
        return LinearObjective(X, problem.y, problem.n_classes, problem.weight, l2=self.l2,
                               fit_intercept=False, score_offset=problem.offset)

    def coefficients(self, objective, theta):
        coef, intercept = objective.coefficients(theta)
        return (coef, intercept) if self.scaling is None else split(coef, self.scaling)

    final_step = True

    def start(self, objective, warm, max_iter: int):
        if warm is None:
            return start_of(self.base, objective, None, max_iter)
        coef, intercept = warm
        if self.scaling is not None:
            coef, intercept = np.hstack([coef, np.reshape(intercept, (-1, 1)) / self.scaling]), np.zeros(1)
        return objective.from_coefficients(coef, intercept)

    def finish(self, objective, result, problem, hessian=None):
        separation, record, log_likelihood = finish_of(self.base, objective, result, problem,
                                                       hessian)
        if self.scaling is not None:
            record = reported_inference(record, self.scaling, objective.class_weight)
        return separation, record, log_likelihood


def with_penalised_intercept(penalty, scaling: float | None):
    """scikit-learn's ``solver='liblinear'``: ``penalty`` (L2 or L1) with the intercept the weight
    of a penalised constant feature of value ``scaling`` (None without an intercept).  The other
    penalties are refused as scikit-learn refuses them: liblinear has neither the elastic net nor
    an unpenalised fit."""
    kind = getattr(penalty, "kind", penalty.name)
    if not isinstance(penalty, ElasticNet) or kind not in ("l1", "l2"):
        theirs = ""  # scikit-learn's words, first
        if kind == "elasticnet":
            theirs = "Only 'saga' solver supports elasticnet penalty, got solver=liblinear. "
            what = f"the elastic net (l1_ratio={penalty.l1_ratio:g})"
            instead = "solver='saga' (or 'cd', 'auto')"
        elif kind is None:
            theirs = "penalty=None is not supported for the liblinear solver. "
            what = "no penalty (penalty=None or C=np.inf)"
            instead = "a finite C, or another solver (liblinear penalises the intercept)"
        else:
            what = f"penalty={penalty.name!r}"
            instead = "another solver"
        raise ValueError(f"{theirs}solver='liblinear' takes the penalty 'l2' (l1_ratio=0) or 'l1' "
                         f"(l1_ratio=1) with a finite C, not {what}; use {instead}.")
    return PenalisedIntercept(penalty, scaling)
