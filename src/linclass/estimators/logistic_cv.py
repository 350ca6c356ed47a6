"""scikit-learn glue for cross-validated penalised logistic regression: each fold runs the whole
regularisation path (:func:`linclass.linear.fitting.path.path_steps`, warm starts and strong rules),
relaxes it when asked (:mod:`linclass.linear.fitting.relax`), scores each C on the held-out rows,
and the best C (and l1_ratio, and relax), or the most penalised within one standard error of it, is
refitted on all rows, as ``cv.glmnet`` does.  The estimator is glue: the folds' paths and scores
are :mod:`linclass.estimators.logistic_cv_folds`, cv.glmnet's statistics and choice rule
:mod:`linclass.selection.cv_rule`.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.metrics import check_scoring
from sklearn.model_selection import check_cv
from sklearn.utils._param_validation import Interval, StrOptions

from linclass.linear.fitting.choice import SKLEARN_SOLVERS
from linclass.linear.fitting.fit import LogisticProblem, path_fits, warn_unconverged
from linclass.linear.fitting.relax import relax_fit, relax_values, warn_refits
from linclass.linear.penalties.table import make_penalty
from linclass.estimators.logistic_path import GRIDS, penalised_objective, resolve_grid
from linclass.estimators.logistic_predictions import LogisticPredictions
from linclass.estimators.logistic_regression import LogisticRegression
from linclass.estimators.logistic_cv_folds import (
    fold_path,
    fold_relaxer,
    relaxed_scores,
    warn_on_edge,
)
from linclass.selection.cv_rule import choose, cv_statistics

__all__ = ["LogisticRegressionCV"]


class LogisticRegressionCV(LogisticPredictions, ClassifierMixin, BaseEstimator):
    """Penalised logistic / softmax regression with C (and ``l1_ratio``) chosen by cross-validation.

    For each fold and each ``l1_ratio``, the whole path of C is fitted on the training rows
    (warm-started from the strongest penalty down, with strong-rule screening: each fold costs about
    one path, as in glmnet's ``cv.glmnet``), and every C is scored on the held-out rows.  The C with
    the best mean score (glmnet's ``lambda.min``) is refitted on all rows, or with
    ``refit_rule='1se'`` the most penalised C whose mean score is within one standard error of the
    best (glmnet's ``lambda.1se``, Hastie, Tibshirani and Friedman 2009, *The Elements of
    Statistical Learning*, sec. 7.10); the latter is reported as ``C_1se_`` either way.  With
    ``relax`` below 1 (or a list of values) each fit of the path is the relaxed lasso, and the
    relaxation is chosen along with C, as glmnet's ``cv.glmnet(relax=TRUE, gamma=...)`` does.

    Parameters
    ----------
    Cs : int or array-like, default=10
        An int: that many values laid out by ``grid``; by default scikit-learn's grid,
        ``np.logspace(-4, 4, Cs)``.  An array: these values.
    l1_ratios : array-like of float in [0, 1] or None, default=None
        Mixings to try with penalty='elasticnet' (None: the penalty's own, 1 for 'l1', 0 for 'l2').
    fit_intercept : bool, default=True
    cv : int, cross-validation generator or iterable, default=None
        As in scikit-learn (None: 5-fold stratified).
    penalty : {'l2', 'l1', 'elasticnet'}, default='l2'
    scoring : str, callable or None, default=None
        A scikit-learn scorer; None is minus the held-out mean log-loss (glmnet's deviance, computed
        in log space without scikit-learn's clipping of probabilities; scikit-learn's default is
        accuracy until its 1.11, then 'neg_log_loss').
    solver : str, default='auto'
        The path is always fitted by proximal Newton with coordinate descent ('cd'); scikit-learn's
        solver names are accepted (each reaches the same optima).
    tol : float, default=1e-6
        Each fit stops when the largest optimality violation per unit of sample weight is at most
        ``tol``.
    max_iter : int, default=100
        Outer iterations per fit.
    class_weight : dict, 'balanced' or None, default=None
    n_jobs : int or None, default=None
        Folds fitted in parallel threads (the compiled loops release the GIL).
    refit : bool, default=True
        Refit at the best C on all rows; False: average the folds' coefficients at the best C.
    grid : {'logspace', 'glmnet'}, default='logspace'
        How an int ``Cs`` is laid out, for every penalty.

        - 'logspace': scikit-learn's ``np.logspace(-4, 4, Cs)``, so that the same folds choose the
          same C as scikit-learn's ``LogisticRegressionCV``.
        - 'glmnet': glmnet's data-driven grid (``cv.glmnet``'s), from the largest C at which every
          coefficient is zero (computed on all rows; for penalty='l2', glmnet's stand-in with
          ``l1_ratio=1e-3``) up by the factor ``1 / min_ratio``.

        The default is scikit-learn's for L1 and elastic net too, deliberately.  glmnet's grid
        spends no value on all-zero models and is finer where the coefficients enter, which helps
        on standardised features (L1 on standardised breast cancer: held-out log-loss 0.079
        against 0.086 on scikit-learn's grid), but its weak end is only ``1/min_ratio`` past the
        all-zero C, which the feature of largest gradient sets: on raw features of very different
        units, and on TF-IDF text with more features than rows (``min_ratio`` 1e-2), the best C
        lies beyond it and cross-validation picks its last value (L1 on raw breast cancer: 0.118
        against 0.100 on scikit-learn's grid; on a 12-class text problem: 0.72 against 0.47).  For
        L2, glmnet's stand-in start makes its grid end far below the useful range.  A C chosen on
        either edge of either grid raises a :class:`~linclass.GridEdgeWarning`.
    min_ratio : float in (0, 1) or None, default=None
        The range of glmnet's grid (glmnet's ``lambda.min.ratio``; only with ``grid='glmnet'`` and
        an int ``Cs``); None: 1e-4 when n_samples > n_features, else 1e-2.
    store_paths : bool, default=True
        Keep every fold's coefficients at every C in ``coefs_paths_`` (memory: folds x ratios x Cs x
        rows x features floats).
    refit_rule : {'min', '1se'}, default='min'
        Which C is refitted (and set as ``C_``): 'min' the best mean score (glmnet's
        ``lambda.min``); '1se' the most penalised C (and, among relaxations, the largest ``relax``)
        whose mean score is within one standard error of the best (glmnet's ``lambda.1se``),
        ``cv_mean_ >= max(cv_mean_) - cv_se_`` at the best.  ``l1_ratio_`` is the best's either way.
    relax : float in [0, 1] or array-like of them, default=1.0
        The relaxed lasso (:class:`LogisticRegression`'s ``relax``; glmnet's ``gamma``): every fit
        of the path is blended with the unpenalised refit on its support before it is scored.
        Several values: each is scored and the best (with C) is refitted (``relax_``), as
        ``cv.glmnet(relax=TRUE, gamma=...)`` chooses; ties go to the larger value.  Below 1 it
        needs an L1 part (penalty='l1', or 'elasticnet' with every l1_ratio > 0).  Where the classes
        are separated on a support, its refit does not exist (its coefficients stop at some large
        finite values, as glmnet's do) and such a candidate scores poorly; a
        :class:`~linclass.SeparationWarning` is raised only when the chosen candidate is one.
    fold_penalty : {'C', 'lambda'}, default='C'
        How strongly each fold is penalised at a candidate C.  'C' (scikit-learn's): at that C,
        added to the summed loss of the fold's training rows.  'lambda' (``cv.glmnet``'s): at the
        same glmnet :math:`\\lambda = 1/(CW)` per unit of weight (W the total weight of all rows),
        that is at :math:`C\\,W/W_k` for a fold whose training rows weigh :math:`W_k`, so that the
        penalty per row is the same in every fold and in the refit; with the same folds and
        :math:`\\lambda` grid, ``cv_mean_``, ``cv_se_``, ``C_`` and ``C_1se_`` are cv.glmnet's
        ``cvm``, ``cvsd``, ``lambda.min`` and ``lambda.1se`` (to their convergence).
        With folds of equal training weight the two agree up to the scale of the grid.
    random_state : ignored (present for scikit-learn compatibility)
    penalty_factor, lower_bounds, upper_bounds, multinomial_penalty
        As :class:`LogisticRegression`'s (glmnet's ``penalty.factor``, ``lower.limits``,
        ``upper.limits``, ``type.multinomial``, which ``cv.glmnet`` passes to every fold), in every
        fold and in the refit; with unpenalised features (factor 0) glmnet's grid starts where
        every penalised coefficient vanishes, the unpenalised ones fitted.

    Attributes
    ----------
    Cs_ : ndarray of shape (n_Cs,)
    l1_ratios_ : ndarray of shape (n_l1_ratios,)
    scores_ : ndarray of shape (n_folds, n_l1_ratios, n_Cs)
        Held-out score of each fold at each ratio and C (scikit-learn's layout without its legacy
        dictionaries), at ``relax_``.
    cv_mean_, cv_se_ : ndarrays of shape (n_l1_ratios, n_Cs)
        glmnet's ``cvm`` and ``cvsd`` at ``relax_``, on the scale of the score (higher is better):
        the folds' scores averaged with the folds' held-out weights :math:`w_k` (sample weight
        times class weight; the row counts without weights) as weights, and its standard error
        :math:`\\sqrt{\\sum_k w_k(s_k - \\bar s)^2 / \\sum_k w_k / (K - 1)}` over the K folds
        (:func:`linclass.selection.cv_rule.cv_statistics`).  With the default scoring (minus the held-out mean log-loss),
        glmnet's deviance ``cvm`` is ``-2 * cv_mean_`` and its ``cvsd`` is ``2 * cv_se_`` (the
        deviance of a row is twice its log-loss; the choice of C is the same on either scale).
        glmnet floors held-out probabilities at 1e-5 in its deviance; linclass does not.
    relax_grid_ : ndarray of shape (n_relax,)
        The values of ``relax`` tried, increasing.
    relax_scores_ : ndarray of shape (n_folds, n_l1_ratios, n_Cs, n_relax)
        Held-out scores at every value of ``relax`` (``scores_`` is its slice at ``relax_``).
    n_iter_ : ndarray of shape (n_folds, n_l1_ratios, n_Cs)
    coefs_paths_ : ndarray of shape (n_folds, n_l1_ratios, n_Cs, n_rows, n_features)
    intercepts_paths_ : ndarray of shape (n_folds, n_l1_ratios, n_Cs, n_rows)
        The penalised (not relaxed) fits; with ``fold_penalty='lambda'`` fold k's are at
        :math:`C\\,W/W_k`.
    C_, l1_ratio_, relax_ : float
        The chosen values (``C_`` and ``relax_`` by ``refit_rule``).
    C_1se_, relax_1se_ : float
        The smallest C (strongest penalty) at ``l1_ratio_`` whose mean score is within one standard
        error of the best, and the largest ``relax`` at that C within it (glmnet's ``lambda.1se``
        and ``gamma.1se``), whatever ``refit_rule``.
    classes_, coef_, intercept_ : as in :class:`LogisticRegression`
    violation_, converged_, loss_curve_, log_likelihood_ : of the refit (with ``refit=True``)
    """

    _parameter_constraints: dict = {
        **{k: LogisticRegression._parameter_constraints[k]
           for k in ("fit_intercept", "tol", "class_weight", "random_state")},
        "penalty": [StrOptions({"l2", "l1", "elasticnet"}), None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "Cs": [Interval(Integral, 1, None, closed="left"), "array-like"],
        "l1_ratios": ["array-like", None],
        "cv": ["cv_object"],
        "scoring": [StrOptions(set()), callable, str, None],
        "solver": [StrOptions({"auto", "cd", *SKLEARN_SOLVERS})],
        "n_jobs": [Integral, None],
        "refit": ["boolean"],
        "grid": [StrOptions(set(GRIDS))],
        "min_ratio": [Interval(Real, 0, 1, closed="neither"), None],
        "store_paths": ["boolean"],
        "refit_rule": [StrOptions({"min", "1se"})],
        "relax": [Interval(Real, 0, 1, closed="both"), "array-like"],
        "fold_penalty": [StrOptions({"C", "lambda"})],
        **{k: LogisticRegression._parameter_constraints[k]
           for k in ("penalty_factor", "lower_bounds", "upper_bounds", "multinomial_penalty")},
    }

    def __init__(self, *, Cs=10, l1_ratios=None, fit_intercept=True, cv=None, penalty="l2",
                 scoring=None, solver="auto", tol=1e-6, max_iter=100, class_weight=None,
                 n_jobs=None, refit=True, grid="logspace", min_ratio=None, store_paths=True,
                 refit_rule="min", relax=1.0, fold_penalty="C", random_state=None,
                 penalty_factor=None, lower_bounds=None, upper_bounds=None,
                 multinomial_penalty="ungrouped"):
        self.Cs = Cs
        self.l1_ratios = l1_ratios
        self.fit_intercept = fit_intercept
        self.cv = cv
        self.penalty = penalty
        self.scoring = scoring
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.class_weight = class_weight
        self.n_jobs = n_jobs
        self.refit = refit
        self.grid = grid
        self.min_ratio = min_ratio
        self.store_paths = store_paths
        self.refit_rule = refit_rule
        self.relax = relax
        self.fold_penalty = fold_penalty
        self.random_state = random_state
        self.penalty_factor = penalty_factor
        self.lower_bounds = lower_bounds
        self.upper_bounds = upper_bounds
        self.multinomial_penalty = multinomial_penalty

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    @property
    def l1_ratio(self):
        """The ratio the objective is built with (the candidate being fitted)."""
        return getattr(self, "_ratio", None)

    def _ratios(self) -> list:
        if self.l1_ratios is None:
            return [{"l1": 1.0, "l2": 0.0}.get(self.penalty)] if self.penalty != "elasticnet" else []
        ratios = [float(r) for r in np.asarray(self.l1_ratios, dtype=np.float64).reshape(-1)]
        if not ratios or any(not 0.0 <= r <= 1.0 for r in ratios):
            raise ValueError(f"l1_ratios must be numbers in [0, 1]; got {self.l1_ratios!r}.")
        if self.penalty != "elasticnet" and any(r != ratios[0] for r in ratios):
            raise ValueError(f"Several l1_ratios need penalty='elasticnet'; got penalty="
                             f"{self.penalty!r}.")
        return ratios

    def fit(self, X, y, sample_weight=None):
        """Cross-validate the path of C (and each l1_ratio and relax), then refit at the chosen.

        Parameters
        ----------
        X : {array-like, scipy.sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        from joblib import Parallel, delayed

        self._validate_params()
        if self.penalty is None:
            raise ValueError("LogisticRegressionCV chooses a penalty's strength; penalty=None has "
                             "none. Use LogisticRegression(penalty=None).")
        ratios = self._ratios()
        if not ratios:
            raise ValueError("penalty='elasticnet' needs l1_ratios, e.g. l1_ratios=[0.1, 0.5, 0.9].")
        relaxes = relax_values(self.relax, make_penalty("elasticnet", 1.0, min(ratios)))
        self._ratio = ratios[0] if self.penalty == "elasticnet" else None
        objective, data = penalised_objective(self, X, y, sample_weight)
        if self.min_ratio is not None and (self.grid != "glmnet" or not isinstance(self.Cs, Integral)):
            warnings.warn(f"min_ratio={self.min_ratio!r} is ignored: it sets the range of glmnet's "
                          "grid (grid='glmnet' with an int Cs).", UserWarning, stacklevel=2)
        grid = np.sort(resolve_grid(self.Cs, objective, ratios, self.min_ratio, self.grid))
        folds = list(check_cv(self.cv, data.classes[data.y], classifier=True).split(
            np.zeros((data.y.size, 1)), data.y))
        # glmnet's lambda per unit of weight: fold k at C W / W_k (fold_penalty='lambda')
        scale = [objective.total / max(objective.sw[train].sum(), np.finfo(float).tiny)
                 if self.fold_penalty == "lambda" else 1.0 for train, _ in folds]
        scorer = None if self.scoring is None else check_scoring(self, self.scoring)
        jobs = (delayed(fold_path)(self, objective, data, train, test, grid * k, rho, scorer)
                for (train, test), k in zip(folds, scale) for rho in ratios)
        results = Parallel(n_jobs=self.n_jobs, prefer="threads")(jobs)
        shape = (len(folds), len(ratios), grid.size)
        scores, n_iter, coefs, intercepts, converged, violation = (
            np.array([r[i] for r in results]) for i in range(6))
        warn_unconverged("LogisticRegressionCV (the folds' paths)",
                         np.broadcast_to(grid, converged.shape), converged, violation, n_iter,
                         self.max_iter, self.tol)
        self.Cs_, self.l1_ratios_, self.relax_grid_ = grid, np.asarray(ratios), relaxes
        self.n_iter_ = n_iter.reshape(shape)
        coefs = coefs.reshape(shape + (objective.m, objective.d))
        intercepts = intercepts.reshape(shape + (objective.m,))
        if self.store_paths:
            self.coefs_paths_, self.intercepts_paths_ = coefs, intercepts
        relaxers = {}  # (fold, ratio) -> the refits of that fold's supports
        self.relax_scores_ = relaxed_scores(self, objective, data, folds, scores.reshape(shape),
                                             coefs, intercepts, relaxes, scorer, relaxers)
        weights = np.array([objective.sw[test].sum() for _, test in folds])
        mean, se = cv_statistics(self.relax_scores_, weights)
        (r, c, g), (c1, g1) = choose(mean, se)
        self.C_1se_, self.relax_1se_ = float(grid[c1]), float(relaxes[g1])
        self.l1_ratio_ = float(ratios[r])
        warn_on_edge(grid, c, coefs[:, r, c], self.l1_ratio_,
                      self.grid == "glmnet" and isinstance(self.Cs, Integral))
        if self.refit_rule == "1se":
            c, g = c1, g1
        self.C_, self.relax_ = float(grid[c]), float(relaxes[g])
        if self.relax_ < 1.0:  # the folds' refits of the chosen candidate (others score poorly)
            warn_refits(f"LogisticRegressionCV at the chosen C_={self.C_:.3g}, relax_="
                        f"{self.relax_:g} (the folds' refits)",
                        [fold_relaxer(self, objective, data, folds, f, r, relaxers).only(coefs[f, r, c])
                         for f in range(len(folds))])
        self.scores_ = self.relax_scores_[..., g]
        self.cv_mean_, self.cv_se_ = mean[..., g], se[..., g]
        self._ratio = self.l1_ratio_ if self.penalty == "elasticnet" else None
        self.classes_ = data.classes
        self.solver_ = "cd"
        if self.refit:
            fit = self._refit(objective, grid[: c + 1], self.l1_ratio_, data.classes)
            warn_unconverged("LogisticRegressionCV (the refit)", [self.C_], [fit.converged],
                             [fit.violation], [fit.n_iter], self.max_iter, self.tol)
            problem = LogisticProblem(X=data.X, y=data.y, classes=data.classes,
                                      weight=objective.sw, fit_intercept=self.fit_intercept)
            fit = relax_fit(fit, problem, self.relax_, tol=self.tol, max_iter=self.max_iter,
                            what="LogisticRegressionCV's refit", penalty=objective.penalty)
            self.coef_, self.intercept_ = fit.coef, fit.intercept
            self.converged_, self.violation_ = fit.converged, fit.violation
            self.loss_curve_ = fit.history
            self.log_likelihood_ = fit.log_likelihood
            if self.relax_ < 1.0:
                self.solver_ = fit.solver
        elif self.relax_ == 1.0:  # scikit-learn's rule: the folds' coefficients at the C, averaged
            self.coef_ = coefs[:, r, c].mean(axis=0)
            self.intercept_ = intercepts[:, r, c].mean(axis=0)
        else:  # the same with the folds' relaxed coefficients (their refits are kept)
            relaxed = [fold_relaxer(self, objective, data, folds, f, r, relaxers).coefficients(
                coefs[f, r, c], intercepts[f, r, c], self.relax_) for f in range(len(folds))]
            self.coef_ = np.mean([a for a, _ in relaxed], axis=0)
            self.intercept_ = np.mean([b for _, b in relaxed], axis=0)
        return self

    def _refit(self, objective, grid, rho, classes):
        """The path on all rows up to the chosen C (warm starts make it cost about one fit)."""
        fit = None
        for _, fit in path_fits(objective, grid, rho, classes, tol=self.tol, max_iter=self.max_iter):
            pass
        return fit
