"""The folds of :class:`~linclass.LogisticRegressionCV`: each fold's path on its training rows, every
C scored on its held-out rows (minus the mean held-out log-loss, or a scikit-learn scorer), the
relaxed fits' scores, and the warning when the chosen C lies on an edge of the grid.  Glue, no
mathematics.
"""

from __future__ import annotations

import warnings

import numpy as np

from linclass.estimators.logistic_regression import LogisticRegression
from linclass.exceptions import GridEdgeWarning
from linclass.linear.fitting.fit import LogisticProblem, path_fits
from linclass.linear.fitting.relax import Relaxer

__all__ = ["fold_path", "fold_relaxer", "held_out_score", "relaxed_scores", "warn_on_edge"]


def warn_on_edge(grid, c, coefs, l1_ratio, glmnet: bool) -> None:
    """A :class:`~linclass.GridEdgeWarning` when the chosen index ``c`` is the first or the last of
    ``grid`` (increasing).  Not at the strongest penalty when it has an L1 part and zeroes every
    coefficient of every fold (``coefs``): a smaller C gives the same intercept-only model.
    ``glmnet``: the grid is glmnet's (its weak end moves with ``min_ratio``)."""
    if grid.size < 2 or 0 < c < grid.size - 1:
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


def held_out_score(model, objective, data, test, scorer):
    """The score of ``(coef, intercept)`` on the rows ``test``: ``scorer``'s, or minus the mean
    held-out log-loss (without scikit-learn's validation per C)."""
    from linclass.linear.penalties.penalised import PenalisedObjective

    X = data.X
    if scorer is None:
        held_out = PenalisedObjective(X[test], data.y[test], data.classes.size, objective.sw[test],
                                      objective.penalty, fit_intercept=model.fit_intercept)
        total = max(held_out.total, np.finfo(float).tiny)

        def score(coef, intercept):
            W, b = held_out.internal(coef, intercept)
            return -held_out.loss(held_out.scores(W, b)) / total
        return score
    scored = LogisticRegression(fit_intercept=model.fit_intercept)  # carries each C's coefficients
    scored.classes_ = data.classes
    scored.n_features_in_ = X.shape[1]
    if hasattr(model, "feature_names_in_"):
        scored.feature_names_in_ = model.feature_names_in_
    Xt, yt = X[test], data.classes[data.y[test]]
    weight = {} if data.sample_weight is None else {"sample_weight": data.sample_weight[test]}

    def score(coef, intercept):
        scored.coef_, scored.intercept_ = coef, intercept
        return scorer(scored, Xt, yt, **weight)
    return score


def fold_path(model, objective, data, train, test, grid, rho, scorer):
    """One fold at one l1_ratio: the path on the training rows, each C scored on the test rows.
    Returns (scores, n_iter, coefs, intercepts, converged, violation), one entry per C."""
    from linclass.linear.penalties.penalised import PenalisedObjective

    fold = PenalisedObjective(data.X[train], data.y[train], data.classes.size, objective.sw[train],
                              objective.penalty, fit_intercept=model.fit_intercept)
    score = held_out_score(model, objective, data, test, scorer)
    scores, n_iter, coefs, intercepts, converged, violation = [], [], [], [], [], []
    for _, fit in path_fits(fold, grid, rho, data.classes, tol=model.tol, max_iter=model.max_iter):
        scores.append(score(fit.coef, fit.intercept))
        n_iter.append(fit.n_iter)
        coefs.append(fit.coef)
        intercepts.append(fit.intercept)
        converged.append(fit.converged)
        violation.append(fit.violation)
    return (np.array(scores), np.array(n_iter), np.array(coefs), np.array(intercepts),
            np.array(converged), np.array(violation))


def fold_relaxer(model, objective, data, folds, f, r, relaxers) -> Relaxer:
    """The :class:`~linclass.linear.fitting.relax.Relaxer` of fold ``f`` at ratio index ``r`` (made
    once: it keeps the refit of each support)."""
    if (f, r) not in relaxers:
        train = folds[f][0]
        problem = LogisticProblem(X=data.X[train], y=data.y[train], classes=data.classes,
                                  weight=objective.sw[train], fit_intercept=model.fit_intercept)
        relaxers[(f, r)] = Relaxer(problem, tol=model.tol, max_iter=model.max_iter,
                                   penalty=objective.penalty)
    return relaxers[(f, r)]


def relaxed_scores(model, objective, data, folds, scores, coefs, intercepts, relaxes, scorer,
                    relaxers) -> np.ndarray:
    """Held-out scores of shape (n_folds, n_l1_ratios, n_Cs, n_relax): ``scores`` (the penalised
    fits') at relax 1, the relaxed fits' below (in this thread: the refits' warnings are caught)."""
    out = np.empty(scores.shape + (relaxes.size,))
    for i, relax in enumerate(relaxes):
        if relax == 1.0:
            out[..., i] = scores
            continue
        for f, (_, test) in enumerate(folds):
            score = held_out_score(model, objective, data, test, scorer)
            for r in range(scores.shape[1]):
                relaxer = fold_relaxer(model, objective, data, folds, f, r, relaxers)
                for c in range(scores.shape[2]):
                    out[f, r, c, i] = score(*relaxer.coefficients(coefs[f, r, c],
                                                                  intercepts[f, r, c], relax))
    return out
