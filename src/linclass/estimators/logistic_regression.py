"""scikit-learn glue for logistic (two classes) and softmax (K classes) regression.

validate -> :class:`~linclass.linear.objective.LinearObjective` -> a solver of
:mod:`linclass.linear.solvers` -> ``coef_`` / ``intercept_`` -> scores -> :mod:`linclass.core.posterior`;
the separation check from :mod:`linclass.linear.separation`, the inference state from
:func:`linclass.linear.inference.logistic_inference`.  No mathematics here.
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model._base import SparseCoefMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from linclass.core.finiteness import check_magnitude, explain_non_finite
from linclass.core.validation import validate_fit, validate_predict
from linclass.sources.dask import is_dask_collection, lazy_on_dask
from linclass.linear.inference import MAX_PARAMS, LogisticInference, inference_hessian, logistic_inference
from linclass.linear.class_weights import weight_by_class
from linclass.linear.objective import LinearObjective
from linclass.core.posterior import log_posterior, posterior
from linclass.estimators.fitted_state import clear_fitted_state
from linclass.estimators.logistic_options import LINCLASS_SOLVERS, SKLEARN_SOLVERS, resolve_penalty
from linclass.linear import intercept_penalty
from linclass.linear.firth import FirthObjective
from linclass.linear.firth_inference import firth_notes, firth_state, firth_summary
from linclass.linear.separation import check_separation, separation
from linclass.linear.solvers import SOLVERS
from linclass.linear.solvers.choice import auto_solver
from linclass.linear.solvers.final_step import final_newton_step
from linclass.linear.start import gaussian_start

__all__ = ["LogisticRegression"]


class LogisticRegression(SparseCoefMixin, ClassifierMixin, BaseEstimator):
    """Logistic regression (two classes, sigmoid) and softmax regression (K > 2 classes), with four
    solvers and a statsmodels-grade :meth:`summary`.

    Fits :math:`p(y=1|x) = \\sigma(\\theta^Tx + b)` (seed 000 sec. 2.1) or
    :math:`p(y=k|x) = e^{\\theta_k^Tx + b_k}/\\sum_j e^{\\theta_j^Tx + b_j}` (sec. 2.4) by minimising

    .. math::  \\sum_i w_i\\,\\ell(x_i, y_i) + \\frac{1}{2C}\\lVert\\theta\\rVert^2

    (the intercept is not penalised).  ``C=np.inf`` is the plain maximum-likelihood estimate of the
    seed, the one statistical inference is about.

    With ``penalty='firth'`` (two classes) it maximises Firth's penalised likelihood
    :math:`\\ell(\\theta) + \\tfrac12\\ln|X^TWX|` instead (:mod:`linclass.linear.firth`): the
    bias-reduced estimate of R's logistf and brglm2, finite under complete and quasi-complete
    separation, with :meth:`summary` as logistf reports it.

    Parameters
    ----------
    penalty : {'auto', 'l2', 'firth', None}, default='auto'
        As in scikit-learn 1.9 (whose default 'deprecated' is accepted as 'auto'): 'auto' takes the
        penalty from ``l1_ratio`` and ``C`` (``l1_ratio=0``: L2; ``C=np.inf``: none); 'l2' the ridge
        penalty :math:`\\frac{1}{2C}\\lVert\\theta\\rVert^2` above; None no penalty, whatever ``C``.
        'firth': Firth's penalised likelihood (two classes; solver 'auto' or 'newton'; ``C`` is not
        used): IRLS with the hat-matrix adjustment, standard errors from the Fisher information at
        the penalised estimate (as brglm2 and logistf report them), profile penalised-likelihood
        intervals and likelihood-ratio tests with ``summary(ci='profile')``.  'l1' and 'elasticnet'
        (and ``l1_ratio > 0``) raise a ValueError that says so: they come with the
        coordinate-descent solver.
    C : float, default=1.0
        Inverse penalty strength, on the same scale as scikit-learn's (so the same C gives the same
        model).  The default is scikit-learn's: a mild penalty keeps the estimate defined on separable
        or collinear data, where the maximum-likelihood estimate does not exist.  Use ``C=np.inf`` (or
        ``penalty=None``) for the unpenalised fit (and valid p-values).
    l1_ratio : float in [0, 1], default=0.0
        scikit-learn's elastic-net mixing; only 0 (pure L2) is available in this release.
    dual : bool, default=False
        scikit-learn's dual formulation exists for liblinear with the L2 penalty only, where its
        optimum is the primal one: ``dual=True`` is accepted there (the primal is solved) and refused
        with any other solver, as scikit-learn does.
    tol : float, default=1e-6
        Stop when the largest entry of the gradient of the mean objective is at most ``tol``
        ('sgd': when an epoch lowers the mean objective by less than ``tol``, 5 times in a row).
        scikit-learn's default is 1e-4 in each solver's own criterion; linclass's stricter default
        reaches the optimum to about 1e-8 in the log-loss.
    fit_intercept : bool, default=True
    intercept_scaling : float > 0, default=1.0
        solver='liblinear' only, as in scikit-learn: the intercept is the weight of a constant
        feature of this value and is penalised like the coefficients
        (:mod:`linclass.linear.intercept_penalty`).  Other solvers never penalise the intercept.
    class_weight : dict, 'balanced' or None, default=None
        Multiplies each sample's weight by its class's weight; 'balanced' uses
        ``n_samples / (n_classes * count)``, with the counts (and n_samples) summing ``sample_weight``
        when it is given, as in scikit-learn.
    random_state : int, Generator or None, default=None
        Seeds the shuffling of 'sgd' (the other solvers are deterministic).
    solver : str, default='auto'
        linclass's solvers: 'newton' (Newton-Raphson / IRLS with line search, quadratic convergence,
        a dense Hessian per iteration), 'bohning' (the bounded-Hessian iteration: one factorisation,
        then cheap linear steps), 'lbfgs' (limited-memory BFGS in the metric of the Hessian at the
        start), 'sgd' (the seed's stochastic gradient rule on mini-batches), 'auto' ('newton' or
        'lbfgs', whichever a count of the work predicts to be faster,
        :mod:`linclass.linear.solvers.choice`: 'newton' for a handful of features; an 'lbfgs' run of
        'auto' that stops at ``max_iter`` unconverged continues with 'newton' when the model has at
        most 2000 parameters: ``solver_`` is then 'lbfgs+newton').  Fits start at the
        shared-covariance Gaussian model (:mod:`linclass.linear.start`) and every converged fit ends
        with one exact Newton step (:mod:`linclass.linear.solvers.final_step`), so all solvers give
        the same coefficients to about ``tol**2``.  scikit-learn's names are accepted and run the
        linclass solver that reaches the same optimum (``solver_`` records it):

        =================  ==========  ====================================================
        scikit-learn       linclass    why
        =================  ==========  ====================================================
        'lbfgs'            'lbfgs'     the same method
        'newton-cg'        'newton'    Newton steps; a direct inner solve instead of CG
        'newton-cholesky'  'newton'    the same method
        'sag', 'saga'      'auto'      stochastic average gradients converge to the same
                                       optimum; a deterministic solver reaches it
        'liblinear'        'newton'    on liblinear's objective (penalised intercept, see
                                       ``intercept_scaling``); two classes only, as there
        =================  ==========  ====================================================

        Each reaches the optimum of the same objective, so the probabilities agree with
        scikit-learn's to its tolerance (tested at 1e-6 with a tight scikit-learn ``tol``).
    max_iter : int >= 0, default=100
        Iterations (epochs for 'sgd').  0 returns the starting point: the intercept-only fit (or the
        previous coefficients under ``warm_start``), with a ConvergenceWarning unless it is optimal.
    verbose : int, default=0
        > 0 prints the objective after each iteration once the fit ends.
    warm_start : bool, default=False
        Start from the previous fit's coefficients when the classes and features match.
    n_jobs : int or None, default=None
        No effect, as in scikit-learn 1.9 (the products use all BLAS threads).
    batch_size : int, default=256
        Mini-batch size of 'sgd'.
    eta0 : float, default=0.5
        Initial step of 'sgd', in units of the bounded-Hessian step (1 = a full Böhning step).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Two classes: the log-odds coefficients of ``classes_[1]``.  K classes: one row per class,
        summing to zero over the classes (seed 000's constraint).
    intercept_ : ndarray of shape (1,) or (n_classes,)
    n_iter_ : ndarray of shape (1,), int32
        Iterations performed (scikit-learn's shape; both runs of 'lbfgs+newton').
    solver_ : str
        The linclass solver that ran ('auto' resolved; 'lbfgs+newton', see ``solver``).
    converged_ : bool
    loss_curve_ : ndarray
        Mean objective at the start and after each iteration (epoch).
    log_likelihood_ : float
        Log-likelihood of the training data at the fitted parameters (without the penalty).
    separation_ : {'complete', 'quasi', 'suspected'} or None
        Set on unpenalised fits whose maximum-likelihood estimate does not exist, and on Firth fits
        whose data are separated (where the Firth estimate exists all the same).
    n_features_in_, feature_names_in_ : as in scikit-learn
    """

    _parameter_constraints: dict = {
        "penalty": [StrOptions({"auto", "deprecated", "l2", "l1", "elasticnet", "firth"}), None],
        "C": [Interval(Real, 0, None, closed="right")],  # (0, inf]: inf = no penalty
        "l1_ratio": [Interval(Real, 0, 1, closed="both"), None],
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
    }

    def __init__(self, penalty="auto", *, C=1.0, l1_ratio=0.0, dual=False, tol=1e-6,
                 fit_intercept=True, intercept_scaling=1.0, class_weight=None, random_state=None,
                 solver="auto", max_iter=100, verbose=0, warm_start=False, n_jobs=None,
                 batch_size=256, eta0=0.5):
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

    # ------------------------------------------------------------------ fitting
    def fit(self, X, y, sample_weight=None):
        """Fit the model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative frequency weights.

        Returns
        -------
        self
        """
        if is_dask_collection(X, y, sample_weight):
            from linclass.sources.dask import DaskSource

            return self._fit_source(DaskSource(X, y, sample_weight))
        self._validate_params()
        l2 = self._l2()
        liblinear = self._liblinear(l2)
        previous = self._warm_coefficients()
        # with an intercept, the data's mean is computed first and is finite exactly when X is
        data = validate_fit(self, X, y, sample_weight, check_finite=not self.fit_intercept)
        weight = weight_by_class(data.y, data.classes, data.sample_weight, self.class_weight)
        X_fit, fit_intercept, scaling = data.X, self.fit_intercept, None
        if liblinear:
            if data.classes.size > 2:
                raise ValueError(
                    f"solver='liblinear' fits two classes only (y has {data.classes.size}), as in "
                    "scikit-learn; use another solver for softmax regression, or wrap the model in "
                    "linclass.OneVsRestClassifier."
                )
            if self.fit_intercept:  # liblinear's intercept: a penalised constant feature
                scaling = float(self.intercept_scaling)
                X_fit, fit_intercept = intercept_penalty.augment(data.X, scaling), False
                if previous is not None:
                    previous = (previous[0], np.hstack([previous[1], previous[2][:, None] / scaling]),
                                np.zeros(1))
        with np.errstate(invalid="ignore", over="ignore"):
            if self.penalty == "firth":
                self._check_firth(data.classes.size)
                objective = FirthObjective(data.X, data.y, weight, fit_intercept=self.fit_intercept)
            else:
                objective = LinearObjective(X_fit, data.y, data.classes.size, weight, l2=l2,
                                            fit_intercept=fit_intercept)
        explain_non_finite(self, data.X, objective.offset)
        check_magnitude(self, data.X)  # the Gram matrix and Hessians square X
        if self.penalty == "firth":
            objective.check_identifiable(objective.null_start())
        return self._solve(objective, data.classes, self._resolve_solver(objective, data.X.shape[0]),
                           previous, data, weight, scaling=scaling)

    def fit_source(self, source):
        """Fit from a chunk source (:class:`linclass.sources.chunks.ChunkFittable`); the result
        equals ``fit`` on all rows at once (to the solver's tolerance).

        One pass for the labels, class totals, centring and Gram matrix, then one pass per solver
        iteration; 'sgd' needs the rows in memory and is refused.  An earlier fit is forgotten first
        (``warm_start`` does not apply).

        Parameters
        ----------
        source : a chunk source (:class:`linclass.sources.chunks.ChunkSource`: a
            :class:`~linclass.io.datasets.FileSource`, a :class:`~linclass.sources.dask.DaskSource`, ...)

        Returns
        -------
        self
        """
        self._validate_params()
        clear_fitted_state(self)
        return self._fit_source(source)

    def _fit_source(self, source):
        """``fit`` from a chunk source, keeping the fitted state (``fit`` on Dask collections, where
        ``warm_start`` applies as in memory)."""
        from linclass.sources.chunks import ChunkedObjective, record_features, require_two_classes

        self._validate_params()
        if self.penalty == "firth":
            raise ValueError("penalty='firth' needs the rows in memory (its hat matrix); fit on "
                             "arrays, or use penalty='l2' on Dask or file input.")
        if self.solver == "sgd":
            raise ValueError("solver='sgd' needs the rows in memory; on Dask or file input use "
                             "solver='newton', 'bohning' or 'lbfgs' (each pass reads the data once).")
        if self._liblinear(self._l2()) and self.fit_intercept:
            raise ValueError("solver='liblinear' (a penalised intercept) needs the rows in memory; on "
                             "Dask or file input use solver='newton', 'bohning' or 'lbfgs'.")
        previous = self._warm_coefficients()
        record_features(self, source)
        objective = ChunkedObjective(source, class_weight=self.class_weight, l2=self._l2(),
                                     fit_intercept=self.fit_intercept)
        require_two_classes(self, objective.stats)
        solver = self._resolve_solver(objective, int(objective.stats.n_rows.sum()))
        objective.with_hessian = solver == "newton"
        return self._solve(objective, objective.classes, solver, previous, None, None)

    def _l2(self) -> float:
        if self.penalty == "firth":
            return 0.0
        return resolve_penalty(self.penalty, self.C, self.l1_ratio)

    def _check_firth(self, n_classes: int) -> None:
        if n_classes != 2:
            raise ValueError(f"penalty='firth' is implemented for two classes; y has {n_classes}. "
                             "Use one-vs-rest (OneVsRestClassifier) for a Firth fit per class.")
        if SKLEARN_SOLVERS.get(self.solver, self.solver) not in ("auto", "newton"):
            raise ValueError(f"penalty='firth' is fitted by Newton's method (IRLS with the "
                             f"hat-matrix adjustment); use solver='newton' or 'auto', not "
                             f"{self.solver!r}.")

    def _liblinear(self, l2: float) -> bool:
        """Whether this is liblinear's objective (a penalised intercept); checks ``dual``."""
        if self.dual and not (self.solver == "liblinear" and l2 > 0):
            raise ValueError(
                "dual=True is defined only for solver='liblinear' with the L2 penalty (as in "
                "scikit-learn), where its optimum is the primal one; use dual=False."
            )
        return self.solver == "liblinear" and l2 > 0

    def _resolve_solver(self, objective, n_rows) -> str:
        if self.max_iter == 0 or self.penalty == "firth":
            return "newton"  # no iteration: any solver returns its starting point
        solver = SKLEARN_SOLVERS.get(self.solver, self.solver)
        return auto_solver(objective, n_rows) if solver == "auto" else solver

    def _solve(self, objective, classes, solver, previous, data, weight, scaling=None):
        """Run ``solver`` on ``objective`` and set the fitted attributes (``data`` / ``weight``:
        the in-memory rows, for the exact separation check; None for chunked data; ``scaling``: the
        constant feature of liblinear's objective, whose weight times it is the intercept)."""
        K = classes.size
        if previous is not None and np.array_equal(previous[0], classes) and (
            previous[1].shape == (1 if K == 2 else K, objective.n_features)
        ):
            theta0 = objective.from_coefficients(previous[1], previous[2])
        elif self.max_iter == 0 or self.penalty == "firth":
            theta0 = objective.null_start()  # max_iter=0 returns scikit-learn's starting point
        else:
            theta0 = gaussian_start(objective)
        options = {"tol": self.tol, "max_iter": self.max_iter}
        if solver == "sgd":
            options.update(random_state=self.random_state, batch_size=self.batch_size, eta0=self.eta0)
        result = SOLVERS[solver](objective, theta0, **options)
        if SKLEARN_SOLVERS.get(self.solver, self.solver) == "auto" and solver == "lbfgs" and not result.converged \
                and objective.n_params <= MAX_PARAMS:
            result, solver = self._finish_with_newton(objective, result), "lbfgs+newton"
        hessian = None  # the exact one inference needs (None above MAX_PARAMS); max_iter=0: the start
        if self.penalty != "firth" and self.max_iter > 0:
            hessian = inference_hessian(objective, result.theta)
            result = final_newton_step(objective, result, hessian)
        if not np.all(np.isfinite(result.theta)):  # cannot happen with finite X; never return NaN
            raise FloatingPointError(
                "The fit produced non-finite coefficients; rescale the features or use a finite C."
            )
        self.classes_ = classes
        self.coef_, self.intercept_ = objective.coefficients(result.theta)
        if scaling is not None:
            self.coef_, self.intercept_ = intercept_penalty.split(self.coef_, scaling)
        self.n_iter_ = np.array([result.n_iter], dtype=np.int32)
        self.converged_ = bool(result.converged)
        self.loss_curve_ = result.history
        self.solver_ = solver
        self._finish(objective, result, data, weight, scaling, hessian)
        if self.verbose:
            for i, value in enumerate(result.history):
                print(f"LogisticRegression ({solver}) iteration {i}: objective {value:.10g}")
        return self

    def _finish_with_newton(self, objective, result):
        """'auto': an L-BFGS run that stopped at ``max_iter`` (an ill-conditioned problem, such as
        unscaled pixel counts) goes on with Newton from where it stopped, when the Hessian is one
        that the inference table forms anyway (at most ``MAX_PARAMS`` parameters).  The iterations
        and the training curve are those of both runs."""
        if hasattr(objective, "with_hessian"):  # a chunked objective forms it only when asked
            objective.with_hessian = True
        more = SOLVERS["newton"](objective, result.theta, tol=self.tol, max_iter=self.max_iter)
        return replace(more, n_iter=result.n_iter + more.n_iter,
                                   history=np.concatenate([result.history, more.history[1:]]))

    def _warm_coefficients(self):
        if self.warm_start and hasattr(self, "coef_"):
            coef = self.coef_.toarray() if sp.issparse(self.coef_) else self.coef_
            return self.classes_, coef, self.intercept_
        return None

    def _finish(self, objective, result, data, weight, scaling=None, hessian=None) -> None:
        """Separation check, inference state and warnings."""
        self.separation_ = None
        if self.penalty == "firth":
            return self._finish_firth(objective, result, data, weight)
        if objective.l2 == 0.0:
            X, y = (None, None) if data is None else (data.X, data.y)
            self.separation_ = check_separation(objective, result.theta, X, y, weight,
                                                converged=result.converged)
        if not result.converged:
            warnings.warn(
                f"LogisticRegression (solver={self.solver_!r}) did not converge in max_iter="
                f"{self.max_iter} iterations: the largest gradient entry is {result.gradient_norm:.3g} "
                f"> tol={self.tol:g}. Increase max_iter, or use solver='newton'.",
                ConvergenceWarning, stacklevel=4,
            )
        inference = logistic_inference(objective, result, separation=self.separation_,
                                       hessian=hessian)
        if scaling is not None:
            inference = intercept_penalty.reported_inference(inference, scaling, objective.class_weight)
        self.log_likelihood_ = inference.log_likelihood
        # stored as model files of format version 1 hold it (a dict), read by summary()
        self._inference = inference.as_state()

    def _finish_firth(self, objective, result, data, weight) -> None:
        """Firth's fit: the separation check without a warning (the estimate exists), the inference
        state with logistf's profile quantities (:mod:`linclass.linear.firth_inference`)."""
        try:
            self.separation_ = separation(data.X, data.y, 2, weight, self.fit_intercept)
        except ValueError:  # too large a linear programme to attempt
            self.separation_ = None
        if not result.converged:
            warnings.warn(
                f"LogisticRegression (penalty='firth') did not converge in max_iter={self.max_iter} "
                f"iterations: the largest entry of the modified score is {result.gradient_norm:.3g} "
                f"> tol={self.tol:g}. Increase max_iter.", ConvergenceWarning, stacklevel=4,
            )
        inference = logistic_inference(objective, result)
        self.log_likelihood_ = objective.log_likelihood(result.theta)
        state = inference.as_state()
        se = np.sqrt(np.clip(np.diag(inference.covariance), 0.0, None)) if (
            inference.covariance is not None) else np.full(objective.n_params, np.nan)
        state["firth"] = firth_state(data.X, data.y, weight, self.fit_intercept, self.coef_,
                                     self.intercept_, se, self.separation_)
        state["notes"] = firth_notes(state["firth"], result.converged, result.n_iter)
        self._inference = state

    # ------------------------------------------------------------------ inference
    def summary(self, alpha: float = 0.05, ci: str = "wald"):
        """Coefficients with standard errors, z statistics, p-values and confidence intervals, and the
        model's log-likelihood, LR test against the intercept-only model, pseudo R², AIC and BIC.

        Parameters
        ----------
        alpha : float, default=0.05
            The intervals are :math:`1-\\alpha` confidence intervals.
        ci : {'wald', 'profile'}, default='wald'
            'profile' (``penalty='firth'`` fits): profile penalised-likelihood intervals and
            penalised likelihood-ratio p-values, as R's logistf reports them (computed at the fit,
            for ``alpha=0.05``).  Standard errors and z are Wald's either way.

        Returns
        -------
        :class:`linclass.inference.Summary` (prints as a table; ``.to_frame()`` for pandas)
        """
        check_is_fitted(self)
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be in (0, 1); got {alpha!r}.")
        if ci not in ("wald", "profile"):
            raise ValueError(f"ci must be 'wald' or 'profile'; got {ci!r}.")
        firth = self._inference.get("firth") if isinstance(self._inference, dict) else None
        if ci == "profile" and firth is None:
            raise ValueError("Profile intervals are computed for Firth fits (penalty='firth'); "
                             "this model was fitted with penalty='l2'.")
        inference = LogisticInference.from_state(self._inference, self.log_likelihood_)
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            names = [f"x{j}" for j in range(self.n_features_in_)]
        if firth is not None:
            inference = replace(inference, log_likelihood=firth["penalised"],
                                null_log_likelihood=firth["null_penalised"])
        coef = self.coef_.toarray() if sp.issparse(self.coef_) else self.coef_
        table = inference.summary(
            coef=coef, intercept=self.intercept_, classes=self.classes_, feature_names=names,
            fit_intercept=self.fit_intercept, alpha=alpha,
        )
        return table if firth is None else firth_summary(table, firth, ci)

    # ------------------------------------------------------------------ prediction
    def _class_scores(self, X) -> np.ndarray:
        check_is_fitted(self)
        X = validate_predict(self, X, check_finite=False)
        with np.errstate(invalid="ignore", over="ignore"):
            # coef_ may be scipy.sparse after sparsify(): the product is then sparse times dense
            S = np.asarray(self.coef_ @ X.T).T if sp.issparse(self.coef_) else X @ self.coef_.T
            S = S + self.intercept_
        explain_non_finite(self, X, S)
        return np.column_stack([np.zeros(S.shape[0]), S[:, 0]]) if S.shape[1] == 1 else S

    @lazy_on_dask
    def decision_function(self, X):
        """Raw scores: shape (n_samples,) for two classes (the log-odds :math:`\\theta^Tx + b` of
        ``classes_[1]``), else (n_samples, n_classes)."""
        S = self._class_scores(X)
        return S[:, 1] if S.shape[1] == 2 else S

    @lazy_on_dask
    def predict_log_proba(self, X):
        """Log posterior probabilities, shape (n_samples, n_classes), computed in log space."""
        return log_posterior(self._class_scores(X))

    @lazy_on_dask
    def predict_proba(self, X):
        """Posterior probabilities, shape (n_samples, n_classes); rows sum to one."""
        return posterior(self._class_scores(X))

    @lazy_on_dask
    def predict(self, X):
        """The most probable class."""
        scores = self._class_scores(X)
        return self.classes_[np.argmax(scores, axis=1)]
