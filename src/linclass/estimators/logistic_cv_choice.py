"""What :class:`~linclass.LogisticRegressionCV` does once every fold's path is scored, whether the
rows were in memory or read in passes (:mod:`linclass.estimators.logistic_cv_chunked`): cv.glmnet's
statistics, the choice of C (and l1_ratio, and relax) by scikit-learn's or glmnet's rule, the edge
warning, the refit (or the folds' average) and the fitted attributes in either layout.  Glue, no
mathematics: the rules are :mod:`linclass.selection.cv_rule`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from linclass.estimators.logistic_cv_folds import warn_on_edge
from linclass.estimators.logistic_cv_layout import fitted_layout
from linclass.selection.cv_rule import choose, cv_statistics, fold_bests, summed_best

__all__ = ["CVRun", "choose_and_set"]


@dataclass
class CVRun:
    """The scored folds of one cross-validation, the C values in increasing order (``grid``).

    Attributes
    ----------
    values : ndarray of shape (n_Cs,)
        The C values in the order of ``Cs`` (resolved from an int).
    Cs : ndarray
        ``Cs_``: the values as given.
    ratios : list of float
    relaxes : ndarray of shape (n_relax,)
    relaxed : ndarray of shape (n_folds, n_l1_ratios, n_Cs, n_relax)
        Held-out scores (grid order).
    n_iter : ndarray of shape (n_folds, n_l1_ratios, n_Cs)
    coefs : ndarray of shape (n_folds, n_l1_ratios, n_Cs, n_rows, n_features)
    intercepts : ndarray of shape (n_folds, n_l1_ratios, n_Cs, n_rows)
    weights : ndarray of shape (n_folds,)
        The held-out weight of each fold (cv.glmnet's fold weights).
    classes : ndarray
    refit : callable ``(c, r, C) -> None``
        Sets the refit's attributes at grid index c and ratio index r.
    average : callable ``(r, c) -> (coef, intercept)``
        The folds' (relaxed) coefficients at the candidate, averaged.
    warn_relaxed : callable ``(r, c, C) -> None`` or None
        The folds' refits' warnings at a relaxed choice.
    """

    values: np.ndarray
    Cs: np.ndarray
    ratios: list
    relaxes: np.ndarray
    relaxed: np.ndarray
    n_iter: np.ndarray
    coefs: np.ndarray
    intercepts: np.ndarray
    weights: np.ndarray
    classes: np.ndarray
    refit: Callable
    average: Callable
    warn_relaxed: Callable | None = None

    @property
    def order(self) -> np.ndarray:
        return np.argsort(self.values, kind="stable")

    @property
    def grid(self) -> np.ndarray:
        return self.values[self.order]


def choose_and_set(model, settings, run: CVRun):
    """Choose the candidate, refit (or average) and set every fitted attribute of ``model``."""
    from numbers import Integral

    order, grid, ratios, relaxes = run.order, run.grid, run.ratios, run.relaxes
    rank = np.argsort(order)  # Cs[i] is grid[rank[i]]
    relaxed, coefs, intercepts = run.relaxed, run.coefs, run.intercepts
    mean, se = cv_statistics(relaxed, run.weights)
    (r, c, g), (c1, g1) = choose(mean, se)
    sklearn_rule = model.fold_penalty == "C" and relaxes.size == 1
    if sklearn_rule:  # scikit-learn's: the best summed score (ties: the first C given)
        r, i = summed_best(np.take(relaxed[..., 0], rank, axis=2))
        c = rank[i]
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
        rs, cs = fold_bests(np.take(relaxed[..., 0], rank, axis=2))
        every = np.arange(relaxed.shape[0])
        model.coef_ = coefs[every, rs, rank[cs]].mean(axis=0)
        model.intercept_ = intercepts[every, rs, rank[cs]].mean(axis=0)
        C_, ratio = float(np.mean(run.values[cs])), float(np.mean(np.asarray(ratios)[rs]))
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
