"""scikit-learn glue for cross-validated penalised logistic regression: each fold runs the whole
regularisation path (:func:`linclass.linear.fitting.path.path_steps`, warm starts and strong rules),
relaxes it when asked (:mod:`linclass.linear.fitting.relax`), scores each C on the held-out rows,
and the best C (and l1_ratio, and relax), or the most penalised within one standard error of it, is
refitted on all rows, as ``cv.glmnet`` does.  The estimator is glue: scikit-learn 1.9's reading of
the parameters is :mod:`linclass.estimators.logistic_cv_params`, the folds' paths and scores
:mod:`linclass.estimators.logistic_cv_folds`, ``score`` and metadata routing
:mod:`linclass.estimators.logistic_cv_scoring`, the fitted attributes' two layouts
:mod:`linclass.estimators.logistic_cv_layout`, cv.glmnet's statistics and the choice rules
:mod:`linclass.selection.cv_rule`.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model._base import SparseCoefMixin
from sklearn.model_selection import check_cv
from sklearn.utils import metadata_routing

from linclass.linear.fitting.fit import warn_unconverged
from linclass.linear.fitting.relax import relax_values, warn_refits
from linclass.linear.penalties.table import make_penalty
from linclass.estimators.logistic_path_setup import penalised_objective, resolve_grid
from linclass.estimators.logistic_predictions import LogisticPredictions
from linclass.estimators.logistic_cv_folds import (
    fold_average,
    fold_design,
    fold_path,
    fold_relaxer,
    relaxed_scores,
    report_folds,
)
from linclass.estimators.logistic_cv_choice import CVRun, choose_and_set
from linclass.estimators.logistic_cv_layout import NoneArray
from linclass.estimators.logistic_cv_refit import set_refit
from linclass.estimators.logistic_cv_params import CV_PARAMETER_CONSTRAINTS, resolve, warn_min_ratio
from linclass.estimators.logistic_cv_scoring import CVScoring
from linclass.sources.dask import is_dask_collection

__all__ = ["LogisticRegressionCV"]


class LogisticRegressionCV(CVScoring, LogisticPredictions, SparseCoefMixin, ClassifierMixin,
                           BaseEstimator):
    """Penalised logistic / softmax regression with C (and ``l1_ratio``) chosen by cross-validation.

    For each fold and each ``l1_ratio``, the whole path of C is fitted on the training rows
    (warm-started from the strongest penalty down, with strong-rule screening: each fold costs about
    one path, as in glmnet's ``cv.glmnet``), and every C is scored on the held-out rows.  The C with
    the best score (scikit-learn's: the largest sum over the folds; glmnet's ``lambda.min`` with
    ``fold_penalty='lambda'``) is refitted on all rows, or with ``refit_rule='1se'`` the most
    penalised C whose mean score is within one standard error of the best (glmnet's
    ``lambda.1se``, Hastie, Tibshirani and Friedman 2009, *The Elements of Statistical Learning*,
    sec. 7.10); the latter is reported as ``C_1se_`` either way.  With ``relax`` below 1 (or a
    list of values) each fit of the path is the relaxed lasso, and the relaxation is chosen along
    with C, as glmnet's ``cv.glmnet(relax=TRUE, gamma=...)`` does.

    The parameters up to ``use_legacy_attributes`` are scikit-learn 1.9's, in its order and with
    what its defaults mean but ``solver`` and ``tol``.  scikit-learn 1.9 leaves ``l1_ratios``,
    ``scoring`` and ``use_legacy_attributes`` at a placeholder, ``'warn'``, and warns
    (``FutureWarning``) on every fit that their meaning changes in 1.10 and 1.11; linclass's
    defaults are those meanings as values, ``l1_ratios=None``, ``scoring=None`` (accuracy),
    ``use_legacy_attributes=True``, and they do not change, so a fit at the defaults warns
    nothing (``'warn'`` is still accepted, as the same values).  ``penalty`` keeps scikit-learn's
    ``FutureWarning`` (deprecated: ``l1_ratios`` says it); see
    :mod:`linclass.estimators.logistic_cv_params`.

    Parameters
    ----------
    Cs : int or array-like, default=10
        An int: that many values laid out by ``grid``; by default scikit-learn's grid,
        ``np.logspace(-4, 4, Cs)``.  An array: these values.
    l1_ratios : array-like of float in [0, 1] or None, default=None
        The mixings tried (0: L2, 1: L1, between: the elastic net); the penalty follows from them
        when ``penalty`` is left alone (all 0: L2, all 1: L1, else the elastic net).  None (the
        default) means L2 without an l1_ratios axis in the legacy attributes, as scikit-learn
        1.9's default; scikit-learn 1.10 will default to ``(0.0,)`` and refuse None.
    fit_intercept : bool, default=True
    cv : int, cross-validation generator or iterable, default=None
        As in scikit-learn (None: 5-fold stratified).
    dual : bool, default=False
        liblinear's dual formulation: accepted with ``solver='liblinear'`` and the L2 penalty, whose
        optimum is the primal one (the primal is solved); refused elsewhere, as scikit-learn does.
    penalty : {'l2', 'l1', 'elasticnet'}, default='deprecated'
        Deprecated in scikit-learn 1.8 (a ``FutureWarning``): ``l1_ratios=(0,)`` is 'l2',
        ``(1,)`` 'l1', values in between 'elasticnet'.  Given, it fixes the penalty and an
        ``l1_ratios`` of 'l1' or 'l2' is ignored with a warning (its length still counts).
    scoring : str, callable or None, default=None
        A scikit-learn scorer for the held-out rows and :meth:`score`; None (the default) is
        accuracy, as scikit-learn 1.9's default (scikit-learn 1.11 changes its default to
        'neg_log_loss').  'accuracy' and 'neg_log_loss' are computed from the held-out scores
        (the same values as scikit-learn's scorers, without a prediction per C); with
        'neg_log_loss', ``-2 * cv_mean_`` is glmnet's binomial / multinomial deviance.
    solver : str, default='auto'
        The path is always fitted by proximal Newton with coordinate descent ('cd', linclass's,
        as 'auto'), which reaches the optimum of every penalty.  scikit-learn's names are accepted
        with scikit-learn's refusals: 'lbfgs', 'newton-cg', 'newton-cholesky' and 'sag' take the
        L2 penalty only, 'liblinear' L1 or L2 (two classes; its intercept is penalised, see
        ``intercept_scaling``), 'saga' every penalty.  scikit-learn's default is 'lbfgs', which
        would refuse ``l1_ratios=(1,)``.
    tol : float, default=1e-6
        Each fit stops when the largest optimality violation per unit of sample weight is at most
        ``tol`` (scikit-learn's default is 1e-4, in each solver's own criterion).
    max_iter : int >= 0, default=100
        Outer iterations per fit.
    class_weight : dict, 'balanced' or None, default=None
    n_jobs : int or None, default=None
        Folds fitted in parallel threads (the compiled loops release the GIL).
    verbose : int, default=0
        > 0: one line per fold and l1_ratio (its C values, iterations and best held-out score),
        and one for the refit.
    refit : bool, default=True
        Refit at the chosen C on all rows.  False: scikit-learn's rule, the average of each fold's
        coefficients at its own best C (and l1_ratio), with ``C_`` (and ``l1_ratio_``) the mean
        of those; with ``refit_rule='1se'``, several ``relax`` or ``fold_penalty='lambda'``, the
        average of the folds' (relaxed) coefficients at the chosen candidate.
    intercept_scaling : float > 0, default=1.0
        solver='liblinear' only, as in scikit-learn: the intercept is the weight of a constant
        feature of this value and is penalised like the coefficients, in every fold and in the
        refit (:mod:`linclass.linear.penalties.intercept`).  Other solvers never penalise it.
    random_state : ignored (present for scikit-learn compatibility)
    use_legacy_attributes : bool, default=True
        The layout of ``coefs_paths_``, ``scores_``, ``n_iter_``, ``C_`` and ``l1_ratio_``
        (:mod:`linclass.estimators.logistic_cv_layout`): True (the default, as scikit-learn
        1.9's), scikit-learn 1.9's legacy dictionaries and repeated values; False, the arrays
        scikit-learn 1.10 will default to.
    grid : {'logspace', 'glmnet'}, default='logspace'
        How an int ``Cs`` is laid out, for every penalty.

        - 'logspace': scikit-learn's ``np.logspace(-4, 4, Cs)``, so that the same folds choose the
          same C as scikit-learn's ``LogisticRegressionCV``.
        - 'glmnet': glmnet's data-driven grid (``cv.glmnet``'s), from the largest C at which every
          coefficient is zero (computed on all rows; for the L2 penalty, glmnet's stand-in with
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
        Which C is refitted (and set as ``C_``): 'min' the best score; '1se' the most penalised C
        (and, among relaxations, the largest ``relax``) whose mean score is within one standard
        error of the best mean (glmnet's ``lambda.1se``), ``cv_mean_ >= max(cv_mean_) - cv_se_``
        at the best.  ``l1_ratio_`` is the best's either way.
    relax : float in [0, 1] or array-like of them, default=1.0
        The relaxed lasso (:class:`LogisticRegression`'s ``relax``; glmnet's ``gamma``): every fit
        of the path is blended with the unpenalised refit on its support before it is scored.
        Several values: each is scored and the best (with C, by cv.glmnet's rule) is refitted
        (``relax_``), as ``cv.glmnet(relax=TRUE, gamma=...)`` chooses; ties go to the larger
        value.  Below 1 it needs an L1 part (``l1_ratios`` all above 0).  Where the classes are
        separated on a support, its refit does not exist (its coefficients stop at some large
        finite values, as glmnet's do) and such a candidate scores poorly; a
        :class:`~linclass.SeparationWarning` is raised only when the chosen candidate is one.
    fold_penalty : {'C', 'lambda'}, default='C'
        How strongly each fold is penalised at a candidate C, and how the best is chosen.  'C'
        (scikit-learn's): at that C, added to the summed loss of the fold's training rows, and the
        best C has the largest sum of the folds' scores.  'lambda' (``cv.glmnet``'s): at the same
        glmnet :math:`\\lambda = 1/(CW)` per unit of weight (W the total weight of all rows), that
        is at :math:`C\\,W/W_k` for a fold whose training rows weigh :math:`W_k`, so that the
        penalty per row is the same in every fold and in the refit, and the best C has the largest
        ``cv_mean_`` (folds weighted by their held-out weight); with the same folds and
        :math:`\\lambda` grid, ``cv_mean_``, ``cv_se_``, ``C_`` and ``C_1se_`` are cv.glmnet's
        ``cvm``, ``cvsd``, ``lambda.min`` and ``lambda.1se`` (to their convergence).  With folds of
        equal training weight the two agree up to the scale of the grid.
    penalty_factor, lower_bounds, upper_bounds, multinomial_penalty
        As :class:`LogisticRegression`'s (glmnet's ``penalty.factor``, ``lower.limits``,
        ``upper.limits``, ``type.multinomial``, which ``cv.glmnet`` passes to every fold), in every
        fold and in the refit; with unpenalised features (factor 0) glmnet's grid starts where
        every penalised coefficient vanishes, the unpenalised ones fitted.  Not with
        ``solver='liblinear'``.

    Attributes
    ----------
    Cs_ : ndarray of shape (n_Cs,)
    l1_ratios_ : ndarray of shape (n_l1_ratios,)
        ``l1_ratios`` as given; ``[None]`` without it.
    coefs_paths_ : dict or ndarray
        Every fold's coefficients at every C (n_dof = n_features, + 1 with the intercept, last),
        in the layout ``use_legacy_attributes`` selects: a dict of class -> ndarray of shape
        (n_folds, n_Cs, [n_l1_ratios,] n_dof) (two classes: one key, ``classes_[1]``), or an
        ndarray of shape (n_folds, n_l1_ratios, n_Cs, n_rows, n_dof) (n_rows = 1 for two
        classes, else n_classes).  The penalised (not relaxed) fits; with
        ``fold_penalty='lambda'`` fold k's are at :math:`C\\,W/W_k`.
    scores_ : dict or ndarray
        Held-out score of each fold at each ratio and C, at ``relax_``: a dict of class ->
        ndarray of shape (n_folds, n_Cs, [n_l1_ratios]) (the same for every class), or an ndarray
        of shape (n_folds, n_l1_ratios, n_Cs).
    n_iter_ : ndarray
        Outer iterations of each fit: shape (1, n_folds, n_Cs, [n_l1_ratios]) or (n_folds,
        n_l1_ratios, n_Cs).
    C_, l1_ratio_ : ndarray of shape (n_rows,) or float
        The chosen C (by ``refit_rule``) and l1_ratio, repeated per row (legacy) or a float.
    intercepts_paths_ : ndarray of shape (n_folds, n_l1_ratios, n_Cs, n_rows)
        The folds' intercepts (linclass's layout, whatever ``use_legacy_attributes``).
    cv_mean_, cv_se_ : ndarrays of shape (n_l1_ratios, n_Cs)
        glmnet's ``cvm`` and ``cvsd`` at ``relax_``, on the scale of the score (higher is better):
        the folds' scores averaged with the folds' held-out weights :math:`w_k` (sample weight
        times class weight; the row counts without weights) as weights, and its standard error
        :math:`\\sqrt{\\sum_k w_k(s_k - \\bar s)^2 / \\sum_k w_k / (K - 1)}` over the K folds
        (:func:`linclass.selection.cv_rule.cv_statistics`).  With ``scoring='neg_log_loss'``,
        glmnet's deviance ``cvm`` is ``-2 * cv_mean_`` and its ``cvsd`` is ``2 * cv_se_`` (the
        deviance of a row is twice its log-loss).  glmnet floors held-out probabilities at 1e-5
        in its deviance; linclass does not.
    relax_grid_ : ndarray of shape (n_relax,)
        The values of ``relax`` tried, increasing.
    relax_scores_ : ndarray of shape (n_folds, n_l1_ratios, n_Cs, n_relax)
        Held-out scores at every value of ``relax``, in linclass's layout.
    relax_ : float
        The chosen relaxation (by ``refit_rule``).
    C_min_, relax_min_ : float
        The best C and ``relax`` (glmnet's ``lambda.min`` and ``gamma.min``; with scikit-learn's
        rule, the best summed score), whatever ``refit_rule``: ``C_`` unless ``refit_rule='1se'``.
    C_1se_, relax_1se_ : float
        The smallest C (strongest penalty) at the chosen l1_ratio whose mean score is within one
        standard error of the best, and the largest ``relax`` at that C within it (glmnet's
        ``lambda.1se`` and ``gamma.1se``), whatever ``refit_rule``.
    classes_, coef_, intercept_ : as in :class:`LogisticRegression`
    violation_, converged_, loss_curve_, log_likelihood_ : of the refit (with ``refit=True``)
    n_features_in_, feature_names_in_ : as in scikit-learn
    n_passes_ : int
        Passes over the data of a fit on Dask collections or a chunk source (every fold's path
        and the path on all rows advance in the same passes,
        :mod:`linclass.estimators.logistic_cv_chunked`); absent after a fit on rows in memory.

    Notes
    -----
    On Dask collections (``fit``) and chunk sources (:meth:`fit_source`: a
    :class:`~linclass.sources.files.FileSource` of CSV or Parquet files) the rows are read in
    passes and the result is the in-memory fit's with the same folds: ``cv`` None, an int,
    ``KFold`` or ``StratifiedKFold`` without shuffling (each row's fold follows from its place in
    the data, :mod:`linclass.selection.fold_rules`) or a ``PredefinedSplit``; scoring 'accuracy'
    (None) or 'neg_log_loss'; ``relax=1``; not 'liblinear', ``penalty_factor``, bounds or the
    grouped penalty.
    """

    __metadata_request__score = {"sample_weight": metadata_routing.UNUSED}
    l1_ratios_ = NoneArray()  # [None] without l1_ratios, as scikit-learn's
    l1_ratio_ = NoneArray()
    _parameter_constraints: dict = CV_PARAMETER_CONSTRAINTS

    def __init__(self, *, Cs=10, l1_ratios=None, fit_intercept=True, cv=None, dual=False,
                 penalty="deprecated", scoring=None, solver="auto", tol=1e-6, max_iter=100,
                 class_weight=None, n_jobs=None, verbose=0, refit=True, intercept_scaling=1.0,
                 random_state=None, use_legacy_attributes=True, grid="logspace",
                 min_ratio=None, store_paths=True, refit_rule="min", relax=1.0, fold_penalty="C",
                 penalty_factor=None, lower_bounds=None, upper_bounds=None,
                 multinomial_penalty="ungrouped"):
        self.Cs = Cs
        self.l1_ratios = l1_ratios
        self.fit_intercept = fit_intercept
        self.cv = cv
        self.dual = dual
        self.penalty = penalty
        self.scoring = scoring
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.class_weight = class_weight
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.refit = refit
        self.intercept_scaling = intercept_scaling
        self.random_state = random_state
        self.use_legacy_attributes = use_legacy_attributes
        self.grid = grid
        self.min_ratio = min_ratio
        self.store_paths = store_paths
        self.refit_rule = refit_rule
        self.relax = relax
        self.fold_penalty = fold_penalty
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

    def fit(self, X, y, sample_weight=None, **params):
        """Cross-validate the path of C (and each l1_ratio and relax), then refit at the chosen.

        Parameters
        ----------
        X : {array-like, scipy.sparse matrix} of shape (n_samples, n_features) or Dask collection
            A Dask array or data frame is read in passes (class Notes; ``n_passes_``).
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
        **params : dict
            Metadata for the splitter and the scorer (with scikit-learn's metadata routing
            enabled; refused otherwise, as scikit-learn does).

        Returns
        -------
        self
        """
        from joblib import Parallel, delayed

        self._validate_params()
        settings = resolve(self)
        if is_dask_collection(X, y, sample_weight):
            if params:
                raise ValueError(f"LogisticRegressionCV.fit on Dask collections takes no metadata "
                                 f"({sorted(params)}); call .compute() first.")
            from linclass.sources.dask import DaskSource

            return self._fit_chunks(DaskSource(X, y, sample_weight), settings)
        split_params, score_params = self._fit_metadata(sample_weight, params)
        ratios = settings.ratios
        relaxes = relax_values(self.relax, make_penalty("elasticnet", 1.0, min(ratios)))
        self._ratio = ratios[0]
        objective, data = penalised_objective(self, X, y, sample_weight)
        design = fold_design(self, data.classes.size)
        if design.scaling is not None:  # liblinear's [X, s 1] without intercept
            objective = design.objective(data.X, data.y, data.classes.size, objective.sw,
                                         objective.penalty)
        warn_min_ratio(self)
        values = resolve_grid(self.Cs, objective, ratios, self.min_ratio, self.grid)
        # the paths run from the strongest penalty up; the attributes follow Cs as given
        grid = np.sort(values, kind="stable")
        Cs = values if isinstance(self.Cs, Integral) else np.asarray(self.Cs).reshape(-1)
        labels = data.classes[data.y]
        folds = list(check_cv(self.cv, labels, classifier=True).split(data.X, labels,
                                                                      **split_params))
        # glmnet's lambda per unit of weight: fold k at C W / W_k (fold_penalty='lambda')
        scale = [objective.total / max(objective.sw[train].sum(), np.finfo(float).tiny)
                 if self.fold_penalty == "lambda" else 1.0 for train, _ in folds]
        jobs = (delayed(fold_path)(self, design, objective, data, train, test, grid * k, rho,
                                   settings.scoring, score_params)
                for (train, test), k in zip(folds, scale) for rho in ratios)
        results = Parallel(n_jobs=self.n_jobs, prefer="threads")(jobs)
        shape = (len(folds), len(ratios), grid.size)
        scores, n_iter, coefs, intercepts, converged, violation = (
            np.array([r[i] for r in results]) for i in range(6))
        warn_unconverged("LogisticRegressionCV (the folds' paths)",
                         np.broadcast_to(grid, converged.shape), converged, violation, n_iter,
                         self.max_iter, self.tol)
        if self.verbose:
            report_folds(scores, n_iter, ratios)
        coefs = coefs.reshape(shape + (objective.m, data.X.shape[1]))
        intercepts = intercepts.reshape(shape + (objective.m,))
        relaxers = {}  # (fold, ratio) -> the refits of that fold's supports
        relaxed = relaxed_scores(self, objective, data, folds, scores.reshape(shape), coefs,
                                 intercepts, relaxes, settings.scoring, score_params, relaxers)

        def warn_relaxed(r, c, C):  # the folds' refits of the chosen candidate (others score poorly)
            warn_refits(f"LogisticRegressionCV at the chosen C_={C:.3g}, relax_="
                        f"{self.relax_:g} (the folds' refits)",
                        [fold_relaxer(self, objective, data, folds, f, r, relaxers).only(coefs[f, r, c])
                         for f in range(len(folds))])

        run = CVRun(
            values=values, Cs=Cs, ratios=ratios, relaxes=relaxes, relaxed=relaxed,
            n_iter=n_iter.reshape(shape), coefs=coefs, intercepts=intercepts,
            weights=np.array([objective.sw[test].sum() for _, test in folds]),
            classes=data.classes,
            refit=lambda c, r, C: set_refit(self, objective, data, design, grid[: c + 1],
                                            ratios[r], C),
            average=lambda r, c: fold_average(self, objective, data, folds, r, c, coefs,
                                              intercepts, relaxers),
            warn_relaxed=warn_relaxed)
        return choose_and_set(self, settings, run)

    def fit_source(self, source):
        """Cross-validate and refit from a chunk source (a
        :class:`~linclass.sources.files.FileSource`, a :class:`~linclass.sources.dask.DaskSource`,
        ...), reading the rows in passes: the attributes of ``fit`` on all rows at once with the
        same folds (to the solver's tolerance), and ``n_passes_``
        (:mod:`linclass.estimators.logistic_cv_chunked`).  An earlier fit is forgotten first.
        Returns the fitted estimator."""
        from linclass.estimators.fitted_state import clear_fitted_state

        self._validate_params()
        clear_fitted_state(self)
        return self._fit_chunks(source, resolve(self))

    def _fit_chunks(self, source, settings):
        from linclass.estimators.logistic_cv_chunked import cross_validate_chunks

        return choose_and_set(self, settings, cross_validate_chunks(self, source, settings))
