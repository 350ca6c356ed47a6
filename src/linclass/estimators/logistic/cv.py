"""scikit-learn glue for cross-validated penalised logistic regression (``LogisticRegressionCV``).

Each fold runs the whole regularisation path (warm starts and strong rules), relaxes it when asked,
scores each C on the held-out rows, and the best C (and l1_ratio, and relax), or the most penalised
within one standard error of it, is refitted on all rows, as ``cv.glmnet`` does.  The folds' paths,
their scores, the choice and the refit are :mod:`linclass.linear.cv` (in memory and chunked);
cv.glmnet's statistics and the choice rules :mod:`linclass.selection.cv_rule`.  This module holds
what is scikit-learn's: how scikit-learn 1.9 reads the parameters (the deprecation of ``penalty``,
the penalty derived from ``l1_ratios``, the solver / penalty / ``dual`` refusals with its
messages), ``score`` and metadata routing, and scorers other than accuracy and the log-loss (on a
carrier estimator).  The fitted attributes in either of scikit-learn 1.9's layouts
(``use_legacy_attributes``) are :mod:`linclass.estimators.logistic.cv_attributes`'s.
No mathematics here.
"""

from __future__ import annotations

from collections.abc import Callable
import inspect
import numbers
import warnings
from dataclasses import dataclass
from numbers import Integral
from typing import Any, Self

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model._base import SparseCoefMixin
from sklearn.metrics import get_scorer, get_scorer_names
from sklearn.model_selection import check_cv
from sklearn.utils import metadata_routing
from sklearn.utils._param_validation import Hidden, Interval, StrOptions
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    _raise_for_params,
    _routing_enabled,
    process_routing,
)
from sklearn.utils.validation import _deprecate_positional_args

from linclass.estimators.logistic.cv_attributes import NoneArray, fitted_layout
from linclass.estimators.logistic.path import path_penalty, penalised_objective
from linclass.estimators.logistic.regression import (
    PARAMETER_CONSTRAINTS,
    LogisticPredictions,
    LogisticRegression,
)
from linclass.exceptions import GridEdgeWarning
from linclass.linear.cv import (GRIDS, SCORINGS, CVRun, FoldDesign, Folds, check_settings,
                                cross_validate_chunks, resolve_grid)
from linclass.linear.fitting.choice import SKLEARN_SMOOTH, SKLEARN_SOLVERS, make_penalty
from linclass.linear.fitting.fit import warn_unconverged
from linclass.linear.fitting.relax import relax_values, warn_refits
from linclass.sources.chunks import record_features
from linclass.sources.dask import is_dask_collection

__all__ = ["LogisticRegressionCV"]


@dataclass(frozen=True)
class CVSettings:
    """The settings of one cross-validation.

    Attributes
    ----------
    penalty : {'l2', 'l1', 'elasticnet'}
        Given, or derived from ``l1_ratios`` (all 0: 'l2', all 1: 'l1', else 'elasticnet').
    ratios : list of float
        The l1_ratio of each candidate (the penalty's own for 'l1' and 'l2').
    given : ndarray or None
        ``l1_ratios`` as given (None when not given): ``l1_ratios_``, and whether the fitted
        attributes have an l1_ratios axis.
    scoring : str, callable or None
        The scoring of the held-out rows (None: accuracy, scikit-learn 1.9's default).
    legacy : bool
        scikit-learn's legacy layout of the fitted attributes.
    """

    penalty: str
    ratios: list
    given: object
    scoring: object
    legacy: bool


def check_solver(solver: str, penalty: str, dual: bool) -> None:
    """scikit-learn's refusals of solver / penalty / ``dual`` combinations (``ValueError``).
    linclass's own solvers ('auto', 'cd') fit every penalty."""
    if solver in SKLEARN_SMOOTH and penalty not in ("l2", None):
        raise ValueError(f"Solver {solver} supports only 'l2' or None penalties, got {penalty} "
                         "penalty (use solver='saga', or linclass's 'cd' / 'auto', for an L1 part).")
    if solver != "liblinear" and dual:
        raise ValueError(f"Solver {solver} supports only dual=False, got dual={dual} (the dual "
                         "formulation is liblinear's, for the L2 penalty).")
    if penalty == "elasticnet" and solver not in ("saga", "auto", "cd"):
        raise ValueError(f"Only 'saga' solver supports elasticnet penalty, got solver={solver} "
                         "(linclass's 'cd' and 'auto' fit it too).")
    if solver == "liblinear" and dual and penalty != "l2":
        raise ValueError(f"solver='liblinear' with dual=True takes the L2 penalty only, got "
                         f"{penalty} penalty (liblinear's dual problem is that of the L2 penalty).")


def _derived_penalty(l1_ratios) -> str:
    """scikit-learn's penalty of ``l1_ratios`` when ``penalty`` is left alone."""
    if l1_ratios is None:
        return "l2"
    try:
        values = np.asarray(l1_ratios, dtype=np.float64)
    except (TypeError, ValueError):
        return "elasticnet"  # refused below, naming l1_ratios
    if np.all(values == 0):
        return "l2"
    if np.all(values == 1):
        return "l1"
    return "elasticnet"


def _check_ratios(l1_ratios) -> None:
    if l1_ratios is None or len(l1_ratios) == 0 or any(
            not isinstance(r, numbers.Number) or isinstance(r, bool) or not 0 <= r <= 1
            for r in l1_ratios):
        raise ValueError("l1_ratios must be an array-like of numbers between 0 and 1; got "
                         f"(l1_ratios={l1_ratios!r}).")


def _unless_warn(value, default):
    """``value``, or ``default`` for scikit-learn's placeholder 'warn'."""
    return default if isinstance(value, str) and value == "warn" else value


def resolve(model) -> CVSettings:
    """The :class:`CVSettings` of ``model``'s parameters, with scikit-learn 1.9's warnings and
    refusals, in its order."""
    # linclass's defaults are scikit-learn 1.9's meanings, given as values (l1_ratios=None,
    # scoring=None, use_legacy_attributes=True) and kept: no FutureWarning for scikit-learn's
    # schedule of changes.  'warn', scikit-learn's placeholder (and that of models saved before),
    # is read as the same value, silently
    l1_ratios = _unless_warn(model.l1_ratios, None)
    if model.penalty == "deprecated":
        penalty = _derived_penalty(l1_ratios)
    else:
        penalty = model.penalty
        warnings.warn("'penalty' was deprecated in scikit-learn 1.8 and will be removed in 1.10. "
                      "To avoid this warning, leave 'penalty' at its default and use 'l1_ratios' "
                      "and 'Cs' instead: l1_ratios=(0,) for penalty='l2', l1_ratios=(1,) for "
                      "penalty='l1', l1_ratios of floats between 0 and 1 for "
                      "penalty='elasticnet'.", FutureWarning, stacklevel=3)
    scoring = _unless_warn(model.scoring, None)
    legacy = _unless_warn(model.use_legacy_attributes, True)
    check_solver(model.solver, penalty, model.dual)
    if penalty == "elasticnet":
        _check_ratios(l1_ratios)
        ratios = [float(r) for r in l1_ratios]
    else:
        if l1_ratios is not None and model.penalty != "deprecated":
            warnings.warn(f"l1_ratios parameter is only used when penalty is 'elasticnet'. Got "
                          f"(penalty={penalty}).", UserWarning, stacklevel=3)
        if l1_ratios is not None and len(l1_ratios) == 0:
            raise ValueError("l1_ratios must be an array-like of numbers between 0 and 1; got "
                             "an empty one.")
        own = 1.0 if penalty == "l1" else 0.0
        ratios = [own] * (1 if l1_ratios is None else len(l1_ratios))
    given = None if l1_ratios is None else np.asarray(l1_ratios)
    return CVSettings(penalty=penalty, ratios=ratios, given=given, scoring=scoring,
                      legacy=bool(legacy))


def warn_min_ratio(model) -> None:
    """A UserWarning when ``min_ratio`` is given but no glmnet grid is laid out."""
    if model.min_ratio is not None and (model.grid != "glmnet"
                                        or not isinstance(model.Cs, numbers.Integral)):
        warnings.warn(f"min_ratio={model.min_ratio!r} is ignored: it sets the range of glmnet's "
                      "grid (grid='glmnet' with an int Cs).", UserWarning, stacklevel=3)


#: scikit-learn 1.9's constraints of LogisticRegressionCV's parameters, with linclass's additions
CV_PARAMETER_CONSTRAINTS: dict = {
    **{k: PARAMETER_CONSTRAINTS[k]
       for k in ("dual", "fit_intercept", "intercept_scaling", "class_weight", "random_state",
                 "max_iter", "verbose", "n_jobs")},
    "tol": [Interval(numbers.Real, 0, None, closed="left")],
    "penalty": [StrOptions({"l2", "l1", "elasticnet"}), Hidden(StrOptions({"deprecated"}))],
    "Cs": [Interval(numbers.Integral, 1, None, closed="left"), "array-like"],
    "l1_ratios": ["array-like", None, Hidden(StrOptions({"warn"}))],
    "cv": ["cv_object"],
    "scoring": [StrOptions(set(get_scorer_names())), callable, None,
                Hidden(StrOptions({"warn"}))],
    "solver": [StrOptions({"auto", "cd", *SKLEARN_SOLVERS})],
    "refit": ["boolean"],
    "use_legacy_attributes": ["boolean", Hidden(StrOptions({"warn"}))],
    "grid": [StrOptions(set(GRIDS))],
    "min_ratio": [Interval(numbers.Real, 0, 1, closed="neither"), None],
    "store_paths": ["boolean"],
    "refit_rule": [StrOptions({"min", "1se"})],
    "relax": [Interval(numbers.Real, 0, 1, closed="both"), "array-like"],
    "fold_penalty": [StrOptions({"C", "lambda"})],
    **{k: PARAMETER_CONSTRAINTS[k]
       for k in ("penalty_factor", "lower_bounds", "upper_bounds", "multinomial_penalty")},
}


class CVScoring:
    """``score``, ``get_metadata_routing`` and the routing of ``fit``'s metadata."""

    def _get_scorer(self):
        """The scorer of ``scoring`` (None, the default, and scikit-learn's placeholder 'warn':
        accuracy)."""
        scoring = self.scoring
        if scoring is None or (isinstance(scoring, str) and scoring == "warn"):
            scoring = "accuracy"
        return get_scorer(scoring)

    def _fit_metadata(self, sample_weight, params: dict) -> tuple[dict, dict]:
        """``(splitter's split params, scorer's score params)`` of ``fit``'s metadata (full
        length; the scorer's are indexed by each fold's held-out rows)."""
        _raise_for_params(params, self, "fit")
        if _routing_enabled():
            routed = process_routing(self, "fit", sample_weight=sample_weight, **params)
            return dict(routed.splitter.split), dict(routed.scorer.score)
        return {}, ({} if sample_weight is None else {"sample_weight": sample_weight})

    @_deprecate_positional_args(version="1.11")
    def score(self, X, y, *, sample_weight=None, **score_params) -> float:
        """The ``scoring`` of the fitted model on ``(X, y)`` (accuracy when it is None).

        Parameters
        ----------
        X : {array-like, scipy.sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Keyword only, as scikit-learn 1.9 announces (positional: a FutureWarning).
        **score_params : dict
            Passed to the scorer (with metadata routing enabled).

        Returns
        -------
        float
        """
        _raise_for_params(score_params, self, "score")
        if sample_weight is not None:
            score_params["sample_weight"] = sample_weight
        if _routing_enabled():
            params = dict(process_routing(self, "score", **score_params).scorer.score)
        else:
            weight = score_params.get("sample_weight")
            params = {} if weight is None else {"sample_weight": weight}
        return self._get_scorer()(self, X, y, **params)

    def get_metadata_routing(self):
        """The metadata routing of ``fit`` (to the splitter's ``split`` and the scorer) and of
        ``score`` (to the scorer), as scikit-learn's.

        Returns
        -------
        sklearn.utils.metadata_routing.MetadataRouter
        """
        return (MetadataRouter(owner=self)
                .add_self_request(self)
                .add(splitter=self.cv,
                     method_mapping=MethodMapping().add(caller="fit", callee="split"))
                .add(scorer=self._get_scorer(),
                     method_mapping=MethodMapping().add(caller="score", callee="score")
                     .add(caller="fit", callee="score")))


def fold_design(model, n_classes: int) -> FoldDesign:
    """The folds' design of ``model``: liblinear's penalised intercept for ``solver='liblinear'``
    (two classes, none of linclass's column penalties, no relaxation), as scikit-learn's."""
    if model.solver != "liblinear":
        return FoldDesign(model.fit_intercept)
    if n_classes > 2:
        raise ValueError(f"The 'liblinear' solver does not support multiclass classification "
                         f"(n_classes >= 3; y has {n_classes}), as in scikit-learn: use another "
                         "solver, or wrap the model in linclass.OneVsRestClassifier.")
    if not (model.penalty_factor is None and model.lower_bounds is None
            and model.upper_bounds is None and np.all(np.asarray(model.relax) == 1)):
        raise ValueError("solver='liblinear' takes no penalty_factor, lower_bounds, upper_bounds "
                         "or relax below 1; use solver='cd' (or 'auto').")
    return FoldDesign(model.fit_intercept,
                      float(model.intercept_scaling) if model.fit_intercept else None)


def report_folds(scores, n_iter, ratios) -> None:
    """``verbose``: one line per fold and l1_ratio (the results in their order, fold-major)."""
    for k, (s, it) in enumerate(zip(scores, n_iter)):
        f, r = divmod(k, len(ratios))
        print(f"LogisticRegressionCV fold {f + 1}, l1_ratio={ratios[r]:g}: {s.size} values of C, "
              f"{int(np.sum(it))} iterations, best held-out score {np.max(s):.6g}")


def report_refit(fit, C, rho) -> None:
    """``verbose``: the refit's line."""
    print(f"LogisticRegressionCV refit at C={C:.6g}, l1_ratio={rho:g}: {fit.n_iter} "
          f"iterations, violation {fit.violation:.3g}")


def warn_on_edge(grid, c, coefs, l1_ratio, glmnet: bool, profile=None) -> None:
    """A :class:`~linclass.GridEdgeWarning` when the chosen index ``c`` is the first or the last of
    ``grid`` (increasing).  Not at the strongest penalty when it has an L1 part and zeroes every
    coefficient of every fold (``coefs``): a smaller C gives the same intercept-only model.  Not
    when the score at the edge (``profile``, one per C) ties the next C inwards (a plateau, as
    accuracy makes: nothing says that the best lies beyond).  ``glmnet``: the grid is glmnet's
    (its weak end moves with ``min_ratio``)."""
    if grid.size < 2 or 0 < c < grid.size - 1:
        return
    if profile is not None and not profile[c] > profile[1 if c == 0 else grid.size - 2]:
        return
    low, high = np.log10(grid[0]), np.log10(grid[-1])
    if c == grid.size - 1:
        edge, way, high = "largest C of the grid (Cs_[-1], the weakest penalty tried)", "above", high + 2
        also = ", or a smaller min_ratio with grid='glmnet'," if glmnet else ""
    elif l1_ratio > 0 and not np.any(coefs):
        return
    else:
        edge, way, low = "smallest C of the grid (Cs_[0], the strongest penalty tried)", "below", low - 2
        also = ""
    # one sentence: the command shows a warning's first sentence
    warnings.warn(
        f"cross-validation chose C_={grid[c]:.3g}, the {edge}, and the best C may lie {way} it: "
        f"extend Cs {way} {grid[c]:.3g} (such as Cs=np.logspace({low:.3g}, {high:.3g}, "
        f"{grid.size + 2})){also} and fit again.", GridEdgeWarning, stacklevel=3)


def _with_labels(scorer, classes):
    """``scorer`` told every class (a fold's held-out rows may miss some), as scikit-learn's
    LogisticRegressionCV rebuilds a scorer whose metric takes ``labels``."""
    from sklearn.metrics import make_scorer

    func = getattr(scorer, "_score_func", None)
    if func is None or "labels" not in inspect.signature(func).parameters:
        return scorer
    extra = {"pos_label": classes[-1]} if (classes.size <= 2 and "pos_label" in
                                           inspect.signature(func).parameters) else {}
    return make_scorer(func, greater_is_better=scorer._sign == 1,
                       response_method=scorer._response_method, labels=classes, **extra,
                       **getattr(scorer, "_kwargs", {}))


def held_out_score(model, folds: Folds, test, scoring, score_params):
    """The score of ``(coef, intercept)`` on the rows ``test`` (scikit-learn's value):
    ``scoring`` None or 'accuracy', 'neg_log_loss' from the held-out scores
    (:meth:`~linclass.linear.cv.Folds.direct_score`), weighted by the held-out ``sample_weight``
    (``score_params``); any other scorer on a carrier :class:`LogisticRegression` with the
    held-out rows' ``score_params``."""
    from sklearn.metrics import get_scorer
    from sklearn.utils.validation import _check_method_params

    X, data = folds.data.X, folds.data
    name = "accuracy" if scoring is None else scoring
    params = _check_method_params(X, params=score_params, indices=test)
    if isinstance(name, str) and name in SCORINGS and set(params) <= {"sample_weight"}:
        return folds.direct_score(test, name, params.get("sample_weight"))
    scorer = _with_labels(get_scorer(name), data.classes)
    scored = LogisticRegression(fit_intercept=model.fit_intercept)  # carries each C's coefficients
    scored.classes_ = data.classes
    scored.n_features_in_ = X.shape[1]
    if hasattr(model, "feature_names_in_"):
        scored.feature_names_in_ = model.feature_names_in_
    Xt, yt = X[test], data.classes[data.y[test]]

    def score(coef, intercept):
        scored.coef_, scored.intercept_ = coef, intercept
        return scorer(scored, Xt, yt, **params)
    return score


def choose_and_set(model, settings, run: CVRun):
    """Choose the candidate, refit (or average) and set every fitted attribute of ``model``."""
    order, grid, ratios, relaxes = run.order, run.grid, run.ratios, run.relaxes
    rank = run.rank
    relaxed, coefs, intercepts = run.relaxed, run.coefs, run.intercepts
    mean, se = run.statistics()
    sklearn_rule = model.fold_penalty == "C" and relaxes.size == 1
    (r, c, g), (c1, g1) = run.choose(summed=sklearn_rule)
    model.C_1se_, model.relax_1se_ = float(grid[c1]), float(relaxes[g1])
    warn_on_edge(grid, c, coefs[:, r, c], ratios[r],
                 model.grid == "glmnet" and isinstance(model.Cs, Integral),
                 relaxed[:, r, :, g].sum(axis=0))
    model.C_min_, model.relax_min_ = float(grid[c]), float(relaxes[g])
    if model.refit_rule == "1se":
        c, g = c1, g1
    C, ratio, model.relax_ = float(grid[c]), ratios[r], float(relaxes[g])
    C_ = run.Cs[order[c]]  # the value as given (scikit-learn keeps an int C an int)
    if model.relax_ < 1.0 and run.warn_relaxed is not None:
        run.warn_relaxed(r, c, C)
    model._ratio = ratios[r]
    model.classes_ = run.classes
    model.solver_ = "cd"
    if model.refit:
        run.refit(c, r, C)
    elif sklearn_rule and model.refit_rule == "min":  # scikit-learn's: each fold's own best
        model.coef_, model.intercept_, C_, ratio = run.fold_bests_average()
    else:  # the folds' (relaxed) coefficients at the chosen candidate, averaged
        model.coef_, model.intercept_ = run.average(r, c)
    # every attribute along Cs as given
    model.Cs_ = run.Cs
    model.relax_grid_, model.relax_scores_ = relaxes, np.take(relaxed, rank, axis=2)
    model.cv_mean_, model.cv_se_ = (np.take(a[..., g], rank, axis=1) for a in (mean, se))
    coefs, intercepts = (np.take(a, rank, axis=2) for a in (coefs, intercepts))
    if model.store_paths:
        model.intercepts_paths_ = intercepts
    layout = fitted_layout(scores=model.relax_scores_[..., g],
                           n_iter=np.take(run.n_iter, rank, axis=2),
                           coefs=coefs, intercepts=intercepts, classes=run.classes,
                           fit_intercept=model.fit_intercept, given=settings.given,
                           legacy=settings.legacy, C=C_, r=r, l1_ratio=ratio,
                           penalty=model.penalty, refit=model.refit,
                           store_paths=model.store_paths)
    for name, value in layout.items():
        setattr(model, name, value)
    return model


def set_fit(model, fit) -> None:
    """The refit's attributes of ``fit``."""
    model.converged_, model.violation_ = fit.converged, fit.violation
    model.loss_curve_, model.log_likelihood_ = fit.history, fit.log_likelihood


def _refuse(model, settings) -> None:
    scoring = "accuracy" if settings.scoring is None else settings.scoring
    if not (isinstance(scoring, str) and scoring in SCORINGS):
        raise ValueError(f"LogisticRegressionCV on Dask or file input scores the held-out rows "
                         f"with 'accuracy' (None) or 'neg_log_loss', counted in the passes; got "
                         f"scoring={settings.scoring!r}, which needs the rows in memory.")
    if model.solver == "liblinear":
        raise ValueError("solver='liblinear' (a penalised intercept) needs the rows in memory; on "
                         "Dask or file input use solver='auto' or 'cd'.")


def cross_validate_source(model, source, settings) -> CVRun:
    """Every fold's path (each ``l1_ratio``) and the path on every row, advanced together over
    the passes of ``source`` (:func:`linclass.linear.cv.cross_validate_chunks`); the
    :class:`~linclass.linear.cv.CVRun` of their held-out scores, whose refit is the path on
    every row at the chosen C.  Sets ``n_features_in_`` (``feature_names_in_``) and
    ``n_passes_``."""
    owner = "LogisticRegressionCV"
    _refuse(model, settings)
    ratios = settings.ratios
    model._ratio = ratios[0]
    template = path_penalty(model)
    check_settings(template, model.relax, owner)
    record_features(model, source)
    warn_min_ratio(model)
    cv = cross_validate_chunks(source, template, ratios, Cs=model.Cs, grid=model.grid,
                               min_ratio=model.min_ratio, cv=model.cv,
                               class_weight=model.class_weight,
                               fit_intercept=model.fit_intercept, fold_penalty=model.fold_penalty,
                               scoring=settings.scoring, tol=model.tol, max_iter=model.max_iter,
                               owner=owner)
    model.n_passes_ = cv.passes
    F, R = len(cv.weights), len(ratios)
    Cs = cv.values if isinstance(model.Cs, Integral) else np.asarray(model.Cs).reshape(-1)
    warn_unconverged("LogisticRegressionCV (the folds' paths)",
                     np.broadcast_to(cv.grid, cv.converged.shape), cv.converged, cv.violation,
                     cv.n_iter, model.max_iter, model.tol)
    if model.verbose:
        report_folds(cv.scores.reshape(F * R, -1), cv.n_iter.reshape(F * R, -1), ratios)

    def refit(c, r, C):
        fit = cv.refits[r][c]
        warn_unconverged("LogisticRegressionCV (the refit)", [C], [fit.converged],
                         [fit.violation], [fit.n_iter], model.max_iter, model.tol, stacklevel=4)
        if model.verbose:
            report_refit(fit, C, ratios[r])
        set_fit(model, fit)
        model.coef_, model.intercept_ = fit.coef, fit.intercept

    return CVRun(values=cv.values, Cs=Cs, ratios=ratios, relaxes=np.array([1.0]),
                 relaxed=cv.scores[..., None], n_iter=cv.n_iter, coefs=cv.coefs,
                 intercepts=cv.intercepts, weights=cv.weights, classes=cv.classes, refit=refit,
                 average=lambda r, c: (cv.coefs[:, r, c].mean(axis=0),
                                       cv.intercepts[:, r, c].mean(axis=0)))


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
    :func:`resolve`.

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
        refit (:mod:`linclass.linear.fitting.liblinear`).  Other solvers never penalise it.
    random_state : ignored (present for scikit-learn compatibility)
    use_legacy_attributes : bool, default=True
        The layout of ``coefs_paths_``, ``scores_``, ``n_iter_``, ``C_`` and ``l1_ratio_``
        (:mod:`linclass.estimators.logistic.cv_attributes`' table): True (the default, as scikit-learn
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
        :mod:`linclass.linear.cv`); absent after a fit on rows in memory.

    See Also
    --------
    linclass.LogisticRegression : The model at a given C.
    linclass.logistic_path : The path of fits that each fold computes.
    linclass.plot.cv_curve : The cross-validation curve of a fitted model.
    sklearn.linear_model.LogisticRegressionCV : scikit-learn's version, the same interface; R's
        counterpart is ``glmnet::cv.glmnet(family="binomial")``.

    Notes
    -----
    On Dask collections (``fit``) and chunk sources (:meth:`fit_source`: a
    :class:`~linclass.sources.files.FileSource` of CSV or Parquet files) the rows are read in
    passes and the result is the in-memory fit's with the same folds: ``cv`` None, an int,
    ``KFold`` or ``StratifiedKFold`` without shuffling (each row's fold follows from its place in
    the data, :mod:`linclass.selection.fold_rules`) or a ``PredefinedSplit``; scoring 'accuracy'
    (None) or 'neg_log_loss'; ``relax=1``; not 'liblinear', ``penalty_factor``, bounds or the
    grouped penalty.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import scale
    >>> import linclass
    >>> X, y = load_breast_cancer(return_X_y=True)  # 569 tumours, 357 of them benign (y = 1)
    >>> model = linclass.LogisticRegressionCV(Cs=5, cv=3).fit(scale(X), y)
    >>> model.Cs_
    array([1.e-04, 1.e-02, 1.e+00, 1.e+02, 1.e+04])
    >>> model.cv_mean_.round(3)  # held-out accuracy per C; the smallest calls nearly all benign
    array([[0.638, 0.946, 0.975, 0.958, 0.944]])
    >>> model.C_  # the best, with which the model is refitted on all rows
    array([1.])
    """

    __metadata_request__score = {"sample_weight": metadata_routing.UNUSED}
    l1_ratios_ = NoneArray()  # [None] without l1_ratios, as scikit-learn's
    l1_ratio_ = NoneArray()
    _parameter_constraints: dict = CV_PARAMETER_CONSTRAINTS

    def __init__(self, *, Cs: int | ArrayLike = 10, l1_ratios: ArrayLike | None = None,
                 fit_intercept: bool = True, cv: int | Any | None = None, dual: bool = False,
                 penalty: str | None = "deprecated",
                 scoring: str | Callable[..., float] | None = None, solver: str = "auto",
                 tol: float = 1e-6, max_iter: int = 100, class_weight: dict | str | None = None,
                 n_jobs: int | None = None, verbose: int = 0, refit: bool = True,
                 intercept_scaling: float = 1.0,
                 random_state: int | np.random.RandomState | None = None,
                 use_legacy_attributes: bool = True, grid: str = "logspace",
                 min_ratio: float | None = None, store_paths: bool = True, refit_rule: str = "min",
                 relax: float = 1.0, fold_penalty: str = "C",
                 penalty_factor: float | ArrayLike | None = None,
                 lower_bounds: float | ArrayLike | None = None,
                 upper_bounds: float | ArrayLike | None = None,
                 multinomial_penalty: str = "ungrouped") -> None:
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

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None,
            **params: Any) -> Self:
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
        splits = list(check_cv(self.cv, labels, classifier=True).split(data.X, labels,
                                                                       **split_params))
        folds = Folds(objective, data, splits, design, tol=self.tol, max_iter=self.max_iter)

        def score_of(test):
            return held_out_score(self, folds, test, settings.scoring, score_params)

        paths = folds.paths(grid, ratios, score_of, fold_penalty=self.fold_penalty,
                            n_jobs=self.n_jobs)
        warn_unconverged("LogisticRegressionCV (the folds' paths)",
                         np.broadcast_to(grid, paths.converged.shape), paths.converged,
                         paths.violation, paths.n_iter, self.max_iter, self.tol)
        if self.verbose:
            report_folds(paths.scores.reshape(-1, grid.size), paths.n_iter.reshape(-1, grid.size),
                         ratios)
        relaxed = folds.relaxed_scores(paths, relaxes, score_of)

        # the folds' refits of the chosen candidate (the others score poorly)
        def warn_relaxed(r, c, C):
            warn_refits(f"LogisticRegressionCV at the chosen C_={C:.3g}, relax_="
                        f"{self.relax_:g} (the folds' refits)", folds.relaxed_fits(paths, r, c))

        def refit(c, r, C):  # the path on all rows up to the chosen C, relaxed at relax_
            fit = folds.refit(grid[: c + 1], ratios[r])
            warn_unconverged("LogisticRegressionCV (the refit)", [C], [fit.converged],
                             [fit.violation], [fit.n_iter], self.max_iter, self.tol)
            if self.verbose:
                report_refit(fit, C, ratios[r])
            set_fit(self, fit)
            if self.relax_ < 1.0:
                fit = folds.relax(fit, self.relax_, "LogisticRegressionCV's refit")
                set_fit(self, fit)
                self.solver_ = fit.solver
            self.coef_, self.intercept_ = design.coefficients(fit.coef, fit.intercept)

        run = CVRun(values=values, Cs=Cs, ratios=ratios, relaxes=relaxes, relaxed=relaxed,
                    n_iter=paths.n_iter, coefs=paths.coefs, intercepts=paths.intercepts,
                    weights=folds.weights, classes=data.classes, refit=refit,
                    average=lambda r, c: folds.average(paths, r, c, self.relax_),
                    warn_relaxed=warn_relaxed)
        return choose_and_set(self, settings, run)

    def fit_source(self, source):
        """Cross-validate and refit from a chunk source (a
        :class:`~linclass.sources.files.FileSource`, a :class:`~linclass.sources.dask.DaskSource`,
        ...), reading the rows in passes: the attributes of ``fit`` on all rows at once with the
        same folds (to the solver's tolerance), and ``n_passes_``
        (:mod:`linclass.linear.cv`).  An earlier fit is forgotten first.
        Returns the fitted estimator."""
        from linclass.estimators.fitted_state import clear_fitted_state

        self._validate_params()
        clear_fitted_state(self)
        return self._fit_chunks(source, resolve(self))

    def _fit_chunks(self, source, settings):
        return choose_and_set(self, settings, cross_validate_source(self, source, settings))
