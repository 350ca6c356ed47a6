"""scikit-learn glue for logistic (two classes) and softmax (K classes) regression.

validate -> a :class:`~linclass.linear.fitting.fit.LogisticProblem` and the penalty object of
``penalty`` / ``C`` / ``l1_ratio`` (:mod:`linclass.linear.fitting.choice`) ->
:func:`~linclass.linear.fitting.fit.fit_logistic` -> the fitted attributes, set once from its
:class:`~linclass.linear.fitting.fit.LogisticFit`.  Also here: what the parameters make (the
parameter constraints, scikit-learn's declarative validation; the penalty object and its column
settings; the fit options; scikit-learn's deprecation warnings), what the fit records of its
input for the summary's header (the name of y, the method, the weights; a two-column y is grouped
counts, :mod:`linclass.linear.logistic.grouped`), and the predictions of a fitted linear logistic /
softmax model, shared with :class:`~linclass.LogisticRegressionCV` (scores ->
:mod:`linclass.core.posterior`).  The summary and the other inference methods are
:mod:`linclass.estimators.logistic.summary`.  No mathematics here.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import replace
from numbers import Integral, Real
from typing import Self

import numpy as np
from numpy.typing import ArrayLike
import scipy.sparse as sp
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model._base import SparseCoefMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from linclass.core.validation import (
    FLOAT32_KEPT, cast_fitted, explain_non_finite, validate_fit, validate_predict,
)
from linclass.core.posterior import log_posterior, posterior
from linclass.estimators.fitted_state import clear_fitted_state
from linclass.estimators.logistic.callbacks import CallbackSupport, fit_task, with_callbacks
from linclass.estimators.logistic.summary import METHODS, LogisticInferenceMethods, penalty_kind
from linclass.estimators.score_predictions import ScorePredictions
from linclass.linear.fitting.choice import (
    LINCLASS_SOLVERS,
    PENALTIES,
    SKLEARN_SOLVERS,
    check_chunked,
    grouped,
    make_penalty,
    subtask_bound,
    with_columns,
)
from linclass.linear.fitting.fit import FitOptions, LogisticProblem, fit_logistic
from linclass.linear.fitting.liblinear import with_penalised_intercept
from linclass.linear.fitting.records import inference_record
from linclass.linear.fitting.relax import check_relax, relax_fit
from linclass.linear.logistic.class_weights import weight_by_class
from linclass.linear.logistic.grouped import (
    check_counts,
    constants,
    count_columns,
    counts_name,
    expand,
)
from linclass.linear.logistic.offsets import check_offset, fingerprint, offset_scores
from linclass.sources.chunks import record_features
from linclass.sources.dask import is_dask_collection, lazy_on_dask
from linclass.sources.pass_report import PassReport

__all__ = ["LogisticPredictions", "LogisticRegression", "PARAMETER_CONSTRAINTS", "fit_options",
           "fit_record", "logistic_penalty", "set_fitted", "warn_deprecated", "weights_record"]


PARAMETER_CONSTRAINTS: dict = {
    "penalty": [StrOptions({"auto", "deprecated", *(k for k in PENALTIES if k)}), None],
    "C": [Interval(Real, 0, None, closed="right")],  # (0, inf]: inf = no penalty
    "l1_ratio": [Interval(Real, 0, 1, closed="both"), None],
    "gamma": [Interval(Real, 1, None, closed="neither"), None],
    "dual": ["boolean"],
    "tol": [Interval(Real, 0, None, closed="left")],
    "fit_intercept": ["boolean"],
    "intercept_scaling": [Interval(Real, 0, None, closed="neither")],
    "class_weight": [dict, StrOptions({"balanced"}), None],
    "random_state": ["random_state"],
    "solver": [StrOptions(set(LINCLASS_SOLVERS) | set(SKLEARN_SOLVERS))],
    "max_iter": [Interval(Integral, 0, None, closed="left")],
    "verbose": ["verbose"],
    "warm_start": ["boolean"],
    "n_jobs": [None, Integral],
    "batch_size": [Interval(Integral, 1, None, closed="left")],
    "eta0": [Interval(Real, 0, None, closed="neither")],
    "relax": [Interval(Real, 0, 1, closed="both")],
    "penalty_factor": [Real, "array-like", None],
    "lower_bounds": [Real, "array-like", None],
    "upper_bounds": [Real, "array-like", None],
    "multinomial_penalty": [StrOptions({"ungrouped", "grouped"})],
    "weight_type": [StrOptions({"frequency", "variance"})],
}


def logistic_penalty(model):
    """The penalty object of ``penalty`` / ``C`` / ``l1_ratio`` (and, for solver='liblinear',
    liblinear's penalised intercept)."""
    warn_deprecated(model)
    penalty = make_penalty(model.penalty, model.C, model.l1_ratio, model.gamma)
    if not (model.penalty_factor is None and model.lower_bounds is None
            and model.upper_bounds is None):
        if model.solver == "liblinear":
            raise ValueError("solver='liblinear' takes no penalty_factor, lower_bounds or "
                             "upper_bounds; use solver='cd' (or 'auto').")
        penalty = with_columns(penalty, model.penalty_factor, model.lower_bounds,
                               model.upper_bounds)
    if model.multinomial_penalty == "grouped":
        penalty = grouped(penalty)
    if isinstance(model.relax, bool) or model.relax != 1.0:  # 1: the penalised fit itself
        check_relax(model.relax, penalty)
    if model.dual and not (model.solver == "liblinear" and penalty.l2 > 0):
        theirs = ("" if model.solver == "liblinear" else
                  f"Solver {model.solver} supports only dual=False, got dual=True: ")
        raise ValueError(
            theirs + "dual=True is defined only for solver='liblinear' with the L2 penalty (as in "
            "scikit-learn), where its optimum is the primal one; use dual=False."
        )
    if model.solver == "liblinear":
        penalty = with_penalised_intercept(
            penalty, float(model.intercept_scaling) if model.fit_intercept else None)
    return penalty


def warn_deprecated(model) -> None:
    """scikit-learn 1.8's deprecations that linclass follows, with its FutureWarning:
    ``l1_ratio=None`` under the default penalty, and ``n_jobs`` (no effect).  ``penalty``
    itself, deprecated there, stays (for 'firth', and the named penalties with it)."""
    if model.penalty in ("auto", "deprecated") and model.l1_ratio is None:
        warnings.warn("'l1_ratio=None' was deprecated in version 1.8 (scikit-learn's; an error "
                      "from 1.10): give l1_ratio, a number in [0, 1]; 0, the L2 penalty, is "
                      "what None meant.", FutureWarning, stacklevel=6)  # the caller of fit
    if model.n_jobs is not None:
        warnings.warn(f"'n_jobs' has no effect and is deprecated (as in scikit-learn 1.8, which "
                      f"removes it in 1.10); you gave n_jobs={model.n_jobs!r}: leave it "
                      "unspecified.", FutureWarning, stacklevel=6)  # the caller of fit


def fit_options(model, penalty) -> FitOptions:
    warm = None
    if model.warm_start and hasattr(model, "coef_"):
        coef = model.coef_.toarray() if sp.issparse(model.coef_) else model.coef_
        warm = (model.classes_, coef, model.intercept_)
    return FitOptions(penalty=penalty, solver=model.solver, tol=model.tol, max_iter=model.max_iter,
                      random_state=model.random_state, batch_size=model.batch_size,
                      eta0=model.eta0, warm=warm, name=type(model).__name__)


def fit_record(model, target, penalty=None) -> dict:
    """What the summary's header says about a fit, recorded when it is made: the name of y
    (``target``: y itself, a pandas Series' name, or a source's target column; 'y' without one),
    the estimation method (:data:`~linclass.estimators.logistic.summary.METHODS`) by the kind of
    ``penalty``, the fit's penalty object (None: the one the parameters make), and the time.
    Stored as the estimator's ``_fit_record``."""
    name = target if isinstance(target, str) else getattr(target, "name", None)
    kind = penalty_kind(model) if penalty is None else penalty.kind
    return {"target": "y" if name is None else str(name), "method": METHODS[kind],
            "time": time.time()}


def weights_record(sample_weight, weight) -> dict:
    """What the summary says about a fit's weights, recorded by ``fit`` (in memory): the rows of
    positive weight ``n_rows`` (the observations of variance weights) and whether the sample
    weights were given, whole numbers or not (``weights``: 'none', 'integer', 'non-integer')."""
    n_rows = None if weight is None else int(np.sum(np.asarray(weight) > 0))
    if sample_weight is None:
        kind = "none"
    else:
        sw = np.asarray(sample_weight, dtype=np.float64)
        kind = "integer" if np.all(sw == np.round(sw)) else "non-integer"
    return {"n_rows": n_rows, "weights": kind}


def is_grouped(y) -> bool:
    """Whether ``y`` is a grouped binomial response: a two-column array or data frame of counts
    (R's ``cbind(successes, failures)``; :mod:`linclass.linear.logistic.grouped` fits it), told
    by its shape where the fit takes y."""
    if y is None or isinstance(y, (str, bytes)):
        return False
    shape = getattr(y, "shape", None)
    if shape is None:
        try:
            shape = np.shape(y)
        except (TypeError, ValueError):
            return False
    return len(shape) == 2 and shape[1] == 2


def set_fitted(model, fit, task, dtype=np.float64):
    """The fitted attributes, set once from the
    :class:`~linclass.linear.fitting.fit.LogisticFit`
    (``coef_`` and ``intercept_`` float32 after a fit on float32 X, ``dtype`` the fitted X's, as
    scikit-learn's)."""
    model.classes_ = fit.classes
    model.coef_, model.intercept_ = fit.coef, fit.intercept
    cast_fitted(model, ("coef_", "intercept_"), dtype)
    model.n_iter_ = np.array([fit.n_iter], dtype=np.int32)
    model.converged_ = fit.converged
    model.violation_ = fit.violation
    model.loss_curve_ = fit.history
    model.solver_ = fit.solver
    model.separation_ = fit.separation
    model.log_likelihood_ = fit.log_likelihood
    model.aliased_ = (np.zeros(model.coef_.shape[1], dtype=bool) if fit.aliased is None
                     else fit.aliased)
    model._inference = fit.inference  # a record of linclass.linear.fitting.records
    if fit.passes is not None:  # a fit on a chunk source
        model.n_passes_ = fit.passes
    elif hasattr(model, "n_passes_"):
        del model.n_passes_
    if task is not None:
        task.end()
    if model.verbose:
        for i, value in enumerate(fit.history):
            print(f"LogisticRegression ({fit.solver}) iteration {i}: objective {value:.10g}")
    return model


class LogisticPredictions(ScorePredictions):
    """``decision_function``, ``predict_proba``, ``predict_log_proba`` and ``predict`` from
    ``coef_`` (shape (1, d) for two classes, else (K, d)) and ``intercept_``; X dense or sparse.
    Each takes the rows' ``offset`` (shape (n_samples,) for two classes, (n_samples, n_classes)
    for K: the known terms of the scores, as ``fit(..., offset=)``; None is zero).  The outputs
    are float32 when X and the coefficients are (``_keeps_float32``: a float32 X is not converted;
    :mod:`linclass.core.validation`)."""

    _keeps_float32 = False

    def _scores(self, X, offset=None) -> np.ndarray:
        check_is_fitted(self)
        X = validate_predict(self, X, check_finite=False, accept_sparse=True,
                             dtype=FLOAT32_KEPT if self._keeps_float32 else np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            # float32 X and coefficients: a float32 product (numpy's promotion, scikit-learn's dtype)
            S = X @ self.coef_.T  # coef_ may be scipy.sparse after sparsify(), X as well
            S = (S.toarray() if sp.issparse(S) else np.asarray(S)) + self.intercept_
        explain_non_finite(self, X, S)
        S = offset_scores(S, check_offset(offset, X.shape[0], len(self.classes_), self.classes_))
        return np.column_stack([np.zeros(S.shape[0], S.dtype), S[:, 0]]) if S.shape[1] == 1 else S

    @lazy_on_dask
    def decision_function(self, X: ArrayLike, offset: ArrayLike | None = None) -> np.ndarray:
        """Raw scores: shape (n_samples,) for two classes (the log-odds :math:`\\theta^Tx + b` of
        ``classes_[1]``, plus the offset), else (n_samples, n_classes)."""
        S = self._scores(X, offset)
        return S[:, 1] if S.shape[1] == 2 else S

    @lazy_on_dask
    def predict_log_proba(self, X: ArrayLike, offset: ArrayLike | None = None) -> np.ndarray:
        """Log posterior :math:`\\ln p(C_k \\mid x)`, shape (n_samples, n_classes)."""
        return log_posterior(self._scores(X, offset))

    @lazy_on_dask
    def predict_proba(self, X: ArrayLike, offset: ArrayLike | None = None) -> np.ndarray:
        """Posterior :math:`p(C_k \\mid x)`, shape (n_samples, n_classes); rows sum to one."""
        return posterior(self._scores(X, offset))

    def _predict_proba_lr(self, X: ArrayLike) -> np.ndarray:
        """One-vs-rest probabilities: each class's logistic function of its score, the row then
        divided by its sum (two classes: the fitted probabilities).  Not the model's probabilities
        for more than two classes; scikit-learn's private helper of the same name, kept for code
        that calls it."""
        S = self.decision_function(X)
        if S.ndim == 1:
            return self.predict_proba(X)
        P = expit(S)
        return P / P.sum(axis=1, keepdims=True)

    @lazy_on_dask
    def predict(self, X: ArrayLike, offset: ArrayLike | None = None) -> np.ndarray:
        """Most probable class."""
        scores = self._scores(X, offset)  # checks that the model is fitted
        return self.classes_[np.argmax(scores, axis=1)]


class LogisticRegression(CallbackSupport, LogisticInferenceMethods, LogisticPredictions,
                         SparseCoefMixin, ClassifierMixin,
                         BaseEstimator):
    """Logistic regression (two classes, sigmoid) and softmax regression (K > 2 classes), with L2,
    L1, elastic-net and Firth penalties, sparse X and a statsmodels-grade :meth:`summary`.

    Fits :math:`p(y=1|x) = \\sigma(\\theta^Tx + b)` (Bishop 2006 sec. 4.3.2) or
    :math:`p(y=k|x) = e^{\\theta_k^Tx + b_k}/\\sum_j e^{\\theta_j^Tx + b_j}` (sec. 4.3.4) by minimising

    .. math::  \\sum_i w_i\\,\\ell(x_i, y_i) + \\frac1C\\Big(\\rho\\lVert\\theta\\rVert_1
               + \\frac{1-\\rho}{2}\\lVert\\theta\\rVert_2^2\\Big)

    on scikit-learn's scale (:math:`\\rho` is ``l1_ratio``: 0 for 'l2', 1 for 'l1'; the intercept is
    not penalised).  ``C=np.inf`` (or ``penalty=None``) is the plain maximum-likelihood estimate,
    the one statistical inference is about.  With an L1 part the fit is glmnet's (proximal
    Newton with coordinate descent, :mod:`linclass.linear.solvers.prox_newton`) and softmax uses one
    row of coefficients per class, as glmnet and scikit-learn do under a penalty.

    With ``penalty='firth'`` it maximises Firth's penalised likelihood
    :math:`\\ell(\\theta) + \\tfrac12\\ln|I(\\theta)|` instead (:mod:`linclass.linear.firth.objective`,
    :mod:`linclass.linear.firth.multinomial` for K > 2): the bias-reduced estimate of R's
    logistf and brglm2 (``brmultinom`` for K classes), finite under complete and quasi-complete
    separation, with :meth:`summary` as logistf reports it (two classes) or brglm2 (K classes).

    Parameters
    ----------
    penalty : {'auto', 'l2', 'l1', 'elasticnet', 'mcp', 'scad', 'firth', None}, default='auto'
        As in scikit-learn 1.9 (whose default 'deprecated' is accepted as 'auto'): 'auto' takes the
        penalty from ``l1_ratio`` and ``C`` (0: L2, 1: L1, in between the elastic net; ``C=np.inf``:
        none); 'l2' the ridge penalty :math:`\\frac{1}{2C}\\lVert\\theta\\rVert^2`; 'l1' the lasso;
        'elasticnet' the mixture by ``l1_ratio``; None no penalty, whatever ``C``.  'firth': Firth's penalised likelihood (two or more classes; solver 'auto' or 'newton'; ``C`` is not
        used): IRLS with the hat-matrix adjustment, standard errors from the Fisher information at
        the penalised estimate (as brglm2 and logistf report them), profile penalised-likelihood
        intervals and likelihood-ratio tests with ``summary(ci='profile')`` (two classes, rows in
        memory).  On Dask collections and chunk sources too, about one pass per iteration
        (:mod:`linclass.linear.firth.chunked`), with the Wald table.
        'mcp' and 'scad': the folded concave penalties of Zhang (2010) and Fan and Li (2001), which
        select as the lasso does near zero but do not shrink large coefficients, with
        :math:`\\lambda = 1/(C\\,n)` (n the total sample weight) and concavity ``gamma``, as ncvreg
        and skglm parametrise them (two classes, solver 'cd'; the problem is not convex, and the fit
        is the lower of the local minima proximal Newton reaches from zero and from the ridge
        solution at the same C).
        scikit-learn 1.8 deprecates ``penalty`` (to be removed in 1.10) and warns FutureWarning
        whenever it is set; linclass keeps it, for 'firth' and with it the named penalties, and
        does not warn.
    C : float, default=1.0
        Inverse penalty strength, on the same scale as scikit-learn's (so the same C gives the same
        model).  The default is scikit-learn's: a mild penalty keeps the estimate defined on separable
        or collinear data, where the maximum-likelihood estimate does not exist.  Use ``C=np.inf`` (or
        ``penalty=None``) for the unpenalised fit (and valid p-values).
    l1_ratio : float in [0, 1] or None, default=0.0
        The elastic-net mixing :math:`\\rho` (used by 'auto' and 'elasticnet'; 'l1' and 'l2' fix it;
        with the other penalties a value strictly between 0 and 1 is ignored with a UserWarning).
        None under the default penalty is deprecated as in scikit-learn 1.8 (FutureWarning); it
        means 0.
    dual : bool, default=False
        scikit-learn's dual formulation exists for liblinear with the L2 penalty only, where its
        optimum is the primal one: ``dual=True`` is accepted there (the primal is solved) and refused
        with any other solver, as scikit-learn does.
    tol : float, default=1e-6
        Stop when the largest entry of the gradient of the mean objective is at most ``tol`` ('cd':
        the largest violation of the optimality conditions, the subgradient's distance from zero,
        per unit of sample weight; 'sgd': when an epoch lowers the mean objective by less than
        ``tol``, 5 times in a row).
        scikit-learn's default is 1e-4 in each solver's own criterion; linclass's stricter default
        reaches the optimum to about 1e-8 in the log-loss.
    fit_intercept : bool, default=True
    intercept_scaling : float > 0, default=1.0
        solver='liblinear' only, as in scikit-learn: the intercept is the weight of a constant
        feature of this value and is penalised like the coefficients, by the L2 or the L1 penalty
        (:mod:`linclass.linear.fitting.liblinear`).  Other solvers never penalise the intercept.
    class_weight : dict, 'balanced' or None, default=None
        Multiplies each sample's weight by its class's weight; 'balanced' uses
        ``n_samples / (n_classes * count)``, with the counts (and n_samples) summing ``sample_weight``
        when it is given, as in scikit-learn.
    random_state : int, Generator or None, default=None
        Seeds the shuffling of 'sgd' (the other solvers are deterministic).
    solver : str, default='auto'
        linclass's solvers: 'cd' (proximal Newton with coordinate descent, glmnet's method: every
        penalty, never forms a d x d matrix; the only one for an L1 part), 'newton' (Newton-Raphson /
        IRLS with line search, quadratic convergence, a dense Hessian per iteration), 'bohning' (the bounded-Hessian iteration: one factorisation,
        then cheap linear steps), 'lbfgs' (limited-memory BFGS in the metric of the Hessian at the start; its diagonal bound for many features), 'sgd'
        (the stochastic gradient rule on mini-batches), 'auto' ('cd' for an L1 part, and for
        a penalised sparse X with more than 1000 parameters for two classes or 200 for softmax;
        other sparse X: 'newton' up to those limits, else 'lbfgs'; dense X: 'newton' or 'lbfgs',
        whichever a count of the work predicts to be faster, :mod:`linclass.linear.fitting.choice`;
        an 'lbfgs' run of 'auto' that stops at ``max_iter`` unconverged, or whose progress
        predicts more work than a few Newton iterations (an ill-conditioned problem, such as raw
        pixel counts), continues with 'newton' when the model has at most 2000 parameters:
        ``solver_`` is then 'lbfgs+newton').  Smooth
        fits on dense X start at the shared-covariance Gaussian model (:mod:`linclass.linear.logistic.start`)
        and every converged smooth fit ends with exact Newton steps, its covariance from the
        Hessian at the estimate (:mod:`linclass.linear.solvers.final_step`).  scikit-learn's names are accepted and run the linclass solver that
        reaches the same optimum (``solver_`` records it):

        =================  ==========  ====================================================
        scikit-learn       linclass    why
        =================  ==========  ====================================================
        'lbfgs'            'lbfgs'     the same method
        'newton-cg'        'newton'    Newton steps; a direct inner solve instead of CG
        'newton-cholesky'  'newton'    the same method
        'sag', 'saga'      'auto'      stochastic average gradients converge to the same
                                       optimum; a deterministic solver reaches it ('cd'
                                       for L1 and elastic net)
        'liblinear'        'newton'    on liblinear's objective (penalised intercept, see
                           ('cd')      ``intercept_scaling``), two classes, L2 or L1 (with
                                       L1 the intercept's lasso penalty: proximal Newton)
        =================  ==========  ====================================================

        Each reaches the optimum of the same objective, so the probabilities agree with
        scikit-learn's to its tolerance (tested at 1e-6 with a tight scikit-learn ``tol``).
    max_iter : int >= 0, default=100
        Iterations (epochs for 'sgd').  0 returns the starting point: the intercept-only fit (or the
        previous coefficients under ``warm_start``), with a ConvergenceWarning unless it is optimal.
    verbose : int, default=0
        > 0 prints the objective after each iteration once the fit ends; on a Dask collection
        or a file source, also a line on stderr for each pass over the data as it ends
        (:class:`linclass.sources.pass_report.PassReport`: its number, the rows or partitions
        read, whether from the files or from the cache of decoded blocks, and the seconds).
    warm_start : bool, default=False
        Start from the previous fit's coefficients when the classes and features match.
    n_jobs : int or None, default=None
        No effect, as in scikit-learn 1.9 (the products use all BLAS threads); deprecated as there:
        a value other than None warns (FutureWarning).
    batch_size : int, default=256
        Mini-batch size of 'sgd'.
    eta0 : float, default=0.5
        Initial step of 'sgd', in units of the bounded-Hessian step (1 = a full Böhning step).
    penalty_factor : float, array-like of shape (n_features,) or None, default=None
        glmnet's ``penalty.factor``: feature j's penalty is :math:`f_j` times the rest, on the L1
        and the L2 part (:math:`\\frac{f_j}{C}(\\rho|\\theta_j| + \\frac{1-\\rho}2\\theta_j^2)`); 0
        never penalises a feature (it is always in the model), 1 everywhere is the plain penalty.
        The factors are used as given: glmnet rescales them to sum to n_features, which changes what
        its lambda means; linclass does not, so C keeps its meaning for the features with factor 1
        (to reproduce glmnet at a given lambda, pass ``f * n_features / f.sum()``).  Fitted by
        solver 'cd'.
    lower_bounds, upper_bounds : float, array-like of shape (n_features,) or None, default=None
        Box constraints on the coefficients (not the intercepts), as glum names them and glmnet's
        ``lower.limits`` / ``upper.limits``: e.g. ``lower_bounds=0`` for a model whose
        coefficients cannot be negative.  With every penalty but Firth's, including none; fitted by
        solver 'cd' (proximal Newton, whose coordinate steps are clipped to the box).  A bounded
        fit's :meth:`summary` reports the estimates without standard errors (at an active bound
        the Wald theory does not hold).
    multinomial_penalty : {'ungrouped', 'grouped'}, default='ungrouped'
        How an L1 part treats the K rows of a softmax fit (glmnet's ``type.multinomial``):
        'ungrouped' penalises each coefficient on its own; 'grouped' penalises each feature's K
        coefficients by their Euclidean norm, :math:`\\frac\\rho C\\lVert\\theta_{\\cdot j}\\rVert_2`
        (the group lasso), so a feature leaves the model for every class at once
        (:mod:`linclass.linear.penalties.grouped`).  Two classes, or no L1 part: the same model
        either way.  Fitted by solver 'cd'.
    relax : float in [0, 1], default=1.0
        The relaxed lasso (glmnet's ``relax=TRUE`` with ``gamma=relax``): 1 is the penalised fit
        itself; below 1, its coefficients and intercepts are blended with those of the unpenalised
        fit on the features it selected, ``relax * penalised + (1 - relax) * refit`` (0: the
        refit alone).  Needs a penalty with an L1 part.  A :class:`~linclass.SeparationWarning`
        says when that refit does not exist (classes separated on the selected features).
        :mod:`linclass.linear.fitting.relax`.
    gamma : float or None, default=None
        The concavity of penalty 'mcp' (> 1; None: 3) or 'scad' (> 2; None: 3.7): the smaller,
        the sooner a large coefficient is left unshrunk; ``gamma -> inf`` is the lasso.  Ignored,
        with a UserWarning, by the other penalties.
    weight_type : {'frequency', 'variance'}, default='frequency'
        What ``sample_weight`` means to :meth:`summary` (the fit and its standard errors are the
        same either way): 'frequency', row i stands for :math:`w_i` observations (the fit on the
        rows repeated; statsmodels' ``freq_weights``), so the observations, residual degrees of
        freedom and BIC count :math:`\\sum_i w_i`; 'variance', analytic weights (R's ``glm``
        prior weights, statsmodels' ``var_weights``): one observation per row of positive
        weight, whose log-likelihood is weighted, so those count rows, and a robust
        covariance's meat is :math:`\\sum_i w_i^2s_is_i^T` instead of :math:`\\sum_i w_is_is_i^T`.
        Proportions with their numbers of trials as weights, or survey weights, are variance
        weights; counts of identical rows are frequency weights.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Two classes: the log-odds coefficients of ``classes_[1]``.  K classes: one row per class,
        summing to zero over the classes (the sum-to-zero constraint).
    intercept_ : ndarray of shape (1,) or (n_classes,)
    n_iter_ : ndarray of shape (1,), int32
        Iterations performed (scikit-learn's shape; both runs of 'lbfgs+newton', and of an
        unpenalised fit refitted without its aliased columns).
    solver_ : str
        The linclass solver that ran ('auto' resolved; 'lbfgs+newton', see ``solver``).
    converged_ : bool
    violation_ : float
        How far from the optimum the fit stopped: the largest entry of the mean objective's gradient
        ('cd': of its distance from the subdifferential), the number ``tol`` bounds.
    loss_curve_ : ndarray
        Mean objective at the start and after each iteration (epoch).
    log_likelihood_ : float
        Log-likelihood of the training data at the fitted parameters (without the penalty); for
        grouped counts, that of the individual trials (``summary().llf`` adds the log binomial
        coefficients, as R's ``logLik``).
    n_passes_ : int
        Passes over the data of a fit on Dask collections or a chunk source (the first, for the
        labels, class totals and centring, included); absent after a fit on rows in memory.
    aliased_ : ndarray of shape (n_features,), bool
        The features an unpenalised fit left out because they are linear combinations of the
        features before them (R's aliased coefficients, NA in its summary and in :meth:`summary`;
        their ``coef_`` is 0, which leaves every probability unchanged): e.g. the last of a full
        set of dummy columns beside the intercept, said by a
        :class:`~linclass.SingularCovarianceWarning` (with ``solver='newton-cholesky'`` its
        subclass :class:`~linclass.AliasedColumnsWarning`, a :class:`scipy.linalg.LinAlgWarning`
        as scikit-learn's newton-cholesky warns on such data before it falls back to L-BFGS, whose
        coefficients then depend on its path; the probabilities are the same optimum's).  All
        False for penalised fits, whose estimate is unique.
    separation_ : {'complete', 'quasi', 'suspected'} or None
        Set on unpenalised fits whose maximum-likelihood estimate does not exist, and on Firth fits
        whose data are separated (where the Firth estimate exists all the same).
    n_features_in_, feature_names_in_ : as in scikit-learn

    See Also
    --------
    linclass.LogisticRegressionCV : C (and the elastic-net mixing) chosen by cross-validation.
    linclass.logistic_path : The fits along a path of C.
    linclass.from_formula : Fit by a formula on a data frame, as R's ``glm``.
    linclass.Perceptron : A linear classifier without probabilities.
    sklearn.linear_model.LogisticRegression : scikit-learn's logistic regression, the same
        interface; statsmodels' ``Logit`` / ``MNLogit`` and R's ``glm(family=binomial)`` give the
        unpenalised fit's inference, as :meth:`summary` does.

    Notes
    -----
    With scikit-learn >= 1.9, ``set_callbacks(...)`` takes scikit-learn's callbacks, with every
    solver (scikit-learn 1.9 reports 'lbfgs' only): each solver iteration is a subtask of the fit,
    followed by one empty subtask, as scikit-learn's L-BFGS reports them, and a subtask's
    ``fitted_estimator`` is the fit with ``max_iter`` equal to the iterations done
    (:mod:`linclass.estimators.logistic.callbacks`).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> import linclass
    >>> X, y = load_iris(return_X_y=True)
    >>> model = linclass.LogisticRegression().fit(X, y)  # 3 classes: the softmax model
    >>> model.coef_.shape  # a weight vector per class
    (3, 4)
    >>> model.predict_proba(X[[0, 70]]).round(2)  # a clear setosa; a versicolor near virginica
    array([[0.98, 0.02, 0.  ],
           [0.  , 0.44, 0.56]])
    """

    _parameter_constraints: dict = PARAMETER_CONSTRAINTS

    def __init__(self, penalty: str | None = "auto", *, C: float = 1.0,
                 l1_ratio: float | None = 0.0, dual: bool = False, tol: float = 1e-6,
                 fit_intercept: bool = True, intercept_scaling: float = 1.0,
                 class_weight: dict | str | None = None,
                 random_state: int | np.random.RandomState | None = None, solver: str = "auto",
                 max_iter: int = 100, verbose: int = 0, warm_start: bool = False,
                 n_jobs: int | None = None, batch_size: int = 256, eta0: float = 0.5,
                 relax: float = 1.0, penalty_factor: float | ArrayLike | None = None,
                 lower_bounds: float | ArrayLike | None = None,
                 upper_bounds: float | ArrayLike | None = None,
                 multinomial_penalty: str = "ungrouped", weight_type: str = "frequency",
                 gamma: float | None = None) -> None:
        self.penalty = penalty
        self.C = C
        self.l1_ratio = l1_ratio
        self.dual = dual
        self.tol = tol
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.random_state = random_state
        self.solver = solver
        self.max_iter = max_iter
        self.verbose = verbose
        self.warm_start = warm_start
        self.n_jobs = n_jobs
        self.batch_size = batch_size
        self.eta0 = eta0
        self.relax = relax
        self.penalty_factor = penalty_factor
        self.lower_bounds = lower_bounds
        self.upper_bounds = upper_bounds
        self.multinomial_penalty = multinomial_penalty
        self.weight_type = weight_type
        self.gamma = gamma

    _keeps_float32 = True  # float32 X: float32 coef_, intercept_ and outputs (but with 'liblinear')

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # ------------------------------------------------------------------ fitting
    @with_callbacks
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None,
            offset: ArrayLike | None = None) -> Self:
        """Fit the model.

        Parameters
        ----------
        X : {array-like, scipy.sparse matrix} of shape (n_samples, n_features)
            Sparse X (CSR or CSC) is never densified.
        y : array-like of shape (n_samples,), or of shape (n_samples, 2) for grouped counts
            The class labels; or a grouped binomial response: per row the numbers of successes
            and failures (two columns of non-negative counts, R's ``cbind(successes,
            failures)``, statsmodels' two-column ``endog`` of ``GLM(family=Binomial())``).  The
            classes are then 0 (failure) and 1 (success), the fit is the binomial likelihood
            of the counts, and :meth:`summary`, ``linclass.diagnostics``, ``linclass.drop1`` and
            ``linclass.lr_test`` treat each row as one observation of the grouped model, as R's
            glm does: deviance against the saturated model, residual degrees of freedom rows
            minus parameters, log-likelihood and AIC with the binomial coefficients
            (:mod:`linclass.linear.logistic.grouped`).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative frequency weights (with grouped counts, R's prior ``weights``: each
            row's counts are multiplied by its weight).
        offset : array-like of shape (n_samples,) or (n_samples, n_classes), default=None
            Known terms added to the linear predictor with coefficient one, as R's
            ``glm(..., offset=)`` and statsmodels' ``Logit(..., offset=)``: the log-odds are
            :math:`o_i + \\theta^Tx_i + b` (two classes; shape (n_samples,)); for K classes one
            column per class in the order of ``classes_`` (a term shared by every class would
            cancel).  The null model of the summary is then the intercept-only fit with the offset,
            as R's null deviance.  Pass the new rows' offsets to ``predict_proba(X, offset=)`` and
            the other prediction methods (no offset there means zero).  Rows in memory; not with
            ``penalty='firth'`` (:mod:`linclass.linear.logistic.offsets`).

        Returns
        -------
        self
        """
        counts, target = None, y  # target: what names y in the summary's header
        if is_grouped(y):  # (successes, failures): the fit runs on their Bernoulli rows
            successes, failures = check_counts(y)
            if self.class_weight is not None:
                raise ValueError("class_weight reweights the classes of labelled rows; with "
                                 "grouped counts (successes, failures) scale the counts, or "
                                 "pass sample_weight (R's prior weights), instead.")
            counts = dict(constants(successes, failures, sample_weight),
                           weights=weights_record(sample_weight, None)["weights"],
                           columns=list(count_columns(y)))
            target = counts_name(y) or y
            X, y, sample_weight, offset = expand(X, successes, failures, sample_weight, offset)
        if is_dask_collection(X, y, sample_weight, offset):
            if offset is not None:
                raise ValueError("offset= is taken for rows in memory; call .compute() on the "
                                 "Dask collections first.")
            from linclass.sources.dask import DaskSource

            self._fit_record = fit_record(self, target)
            return self._fit_source(DaskSource(X, y, sample_weight))
        self._validate_params()
        penalty = self._penalty()
        self._fit_record = fit_record(self, target, penalty)
        options = self._options(penalty)
        # with an intercept, the data's mean is computed first and is finite exactly when X is
        data = validate_fit(self, X, y, sample_weight, check_finite=not self.fit_intercept,
                            accept_sparse=penalty.name != "firth",
                            dtype=FLOAT32_KEPT if self.solver != "liblinear" else np.float64)
        weight = data.sample_weight  # class_weight=None: the sample weights as they are
        if self.class_weight is not None:
            weight = weight_by_class(data.y, data.classes, data.sample_weight, self.class_weight)
        score_offset = None  # checked only when given: a fit without one never reads offsets
        if offset is not None:
            score_offset = check_offset(offset, data.X.shape[0], data.classes.size, data.classes)
        self._fit_record.update(offset=None if score_offset is None else fingerprint(score_offset),
                                **weights_record(data.sample_weight, weight))
        if counts is not None:  # the groups are the observations, their weights the user's
            self._fit_record.update(grouped=counts, n_rows=counts["n_groups"],
                                    weights=counts.pop("weights"))
        problem = LogisticProblem(X=data.X, y=data.y, classes=data.classes, weight=weight,
                                  fit_intercept=self.fit_intercept, offset=score_offset)
        task = None  # a fit task only where scikit-learn's callbacks are set on the model
        if getattr(self, "_skl_callbacks", None):
            task = fit_task(self, data.X, y, data.sample_weight,
                            subtask_bound(self.solver, self.max_iter, options.penalty))
        options = replace(options, feature_names=getattr(self, "feature_names_in_", None),
                          task=task)
        fit = fit_logistic(problem, options)
        if float(self.relax) != 1.0:  # the blend with the refit on the selected features
            fit = relax_fit(fit, problem, float(self.relax), tol=self.tol, max_iter=self.max_iter,
                            penalty=options.penalty)
        return self._set_fitted(fit, options.task, data.X.dtype)

    @with_callbacks
    def fit_source(self, source):
        """Fit from a chunk source (:class:`linclass.sources.chunks.ChunkFittable`); the result
        equals ``fit`` on all rows at once (to the solver's tolerance).

        ``source`` is any :class:`linclass.core.chunks.ChunkSource` (a
        :class:`~linclass.sources.files.FileSource`, a :class:`~linclass.sources.dask.DaskSource`,
        ...).  One pass for the labels, class totals, centring and Gram matrix, then one pass per
        solver iteration (an L1 part, or 'cd': proximal Newton on the model's Hessian, up to
        ``MAX_PARAMS`` parameters; Firth's penalty: one or two per iteration,
        :mod:`linclass.linear.firth.chunked`); the solvers and penalties that need the
        rows at once ('sgd', liblinear's intercept, per-feature factors or bounds, the grouped
        penalty, ``relax``) are refused
        (:data:`linclass.linear.fitting.choice.SOLVER_DESIGNS`).  An earlier fit is forgotten first
        (``warm_start`` does not apply).  Returns the fitted estimator.
        """
        self._validate_params()
        clear_fitted_state(self)
        self._fit_record = fit_record(self, getattr(source, "target", None))
        return self._fit_source(source)

    def _fit_source(self, source):
        """``fit`` from a chunk source, keeping the fitted state (``fit`` on Dask collections, where
        ``warm_start`` applies as in memory)."""
        self._validate_params()
        options = self._options(self._penalty())
        check_chunked(self.solver, options.penalty)  # before the source is read
        if float(self.relax) != 1.0:
            raise ValueError("relax needs the rows in memory (its refits read the selected "
                             "columns); fit on arrays, or leave relax=1.0 on Dask or file input.")
        record_features(self, source)
        if self.verbose:  # a line on stderr for each pass over the data, as it ends
            source = PassReport(source, verbose=True, who=type(self).__name__)
        problem = LogisticProblem(source=source, class_weight=self.class_weight,
                                  fit_intercept=self.fit_intercept)
        options = replace(options, task=fit_task(self, None, None, None,
                                                 subtask_bound(self.solver, self.max_iter,
                                                               options.penalty)))
        return self._set_fitted(fit_logistic(problem, options), options.task)

    def score(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> float:
        """Mean accuracy on ``X`` and ``y`` (scikit-learn's); for grouped counts (``y`` of shape
        (n_samples, 2), successes and failures), the accuracy over the trials: the share of the
        successes in the rows predicted 1 and of the failures in the rows predicted 0."""
        if not is_grouped(y):
            return super().score(X, y, sample_weight=sample_weight)
        from sklearn.metrics import accuracy_score

        successes, failures = check_counts(y, X.shape[0] if hasattr(X, "shape") else len(X))
        rows, labels, weight, _ = expand(X, successes, failures, sample_weight)
        return float(accuracy_score(labels, self.predict(rows), sample_weight=weight))

    def _penalty(self):
        """The penalty object (:func:`logistic_penalty`)."""
        return logistic_penalty(self)

    def _options(self, penalty) -> FitOptions:
        return fit_options(self, penalty)

    def _after_load(self):
        """A model file holds the inference record in format version 1's dict form
        (:data:`linclass.io.persistence.allowlist.STATE_FORMS`): the typed record again, or the
        dict as it is when damaged (``summary`` then says what is wrong)."""
        state = getattr(self, "_inference", None)
        if isinstance(state, dict) and hasattr(self, "log_likelihood_"):
            try:
                self._inference = inference_record(state, self.log_likelihood_)
            except (TypeError, KeyError, ValueError, AttributeError):
                pass

    def _set_fitted(self, fit, task, dtype=np.float64):
        """The fitted attributes, set once (:func:`set_fitted`)."""
        return set_fitted(self, fit, task, dtype)
