"""The folds of :class:`~linclass.LogisticRegressionCV`: each fold's path on its training rows (on
liblinear's augmented design for ``solver='liblinear'``), every C scored on its held-out rows as
scikit-learn scores them (accuracy or minus the mean log-loss computed from the scores, any other
scorer on a carrier estimator), the relaxed fits' scores, and the warning when the chosen C lies on
an edge of the grid.  Glue, no mathematics.
"""

from __future__ import annotations

import inspect
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from linclass.estimators.logistic_regression import LogisticRegression
from linclass.exceptions import GridEdgeWarning
from linclass.linear.fitting.fit import LogisticProblem, path_fits
from linclass.linear.fitting.relax import Relaxer
from linclass.linear.penalties.intercept import augment, split
from linclass.selection.scoring import held_out_value

__all__ = ["FoldDesign", "fold_average", "fold_design", "fold_path", "fold_relaxer",
           "held_out_score", "relaxed_scores", "report_folds", "warn_on_edge"]

#: scorings computed from the held-out scores without a carrier estimator
DIRECT = ("accuracy", "neg_log_loss")


@dataclass(frozen=True)
class FoldDesign:
    """How the folds' objectives see X: as it is, or, for ``solver='liblinear'`` with an intercept,
    liblinear's :math:`[X, s\\mathbf 1]` without intercept, whose last coefficient times
    :math:`s` (``scaling``) is the penalised intercept
    (:mod:`linclass.linear.penalties.intercept`)."""

    fit_intercept: bool
    scaling: float | None = None

    def objective(self, X, y, n_classes, weight, penalty):
        from linclass.linear.penalties.penalised import PenalisedObjective  # numba on first use

        if self.scaling is None:
            return PenalisedObjective(X, y, n_classes, weight, penalty,
                                      fit_intercept=self.fit_intercept)
        if sp.issparse(X):
            X = sp.hstack([X, np.full((X.shape[0], 1), self.scaling)], format="csr")
        else:
            X = augment(X, self.scaling)
        return PenalisedObjective(X, y, n_classes, weight, penalty, fit_intercept=False)

    def coefficients(self, coef, intercept):
        """The estimator's ``(coef, intercept)`` of a fit of :meth:`objective`."""
        return (coef, intercept) if self.scaling is None else split(coef, self.scaling)


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


def held_out_score(model, objective, data, test, scoring, score_params):
    """The score of ``(coef, intercept)`` on the rows ``test`` (scikit-learn's value):
    ``scoring`` None or 'accuracy', 'neg_log_loss' from the held-out scores, weighted by the
    held-out ``sample_weight`` (``score_params``); any other scorer on a carrier
    :class:`LogisticRegression` with the held-out rows' ``score_params``."""
    from sklearn.metrics import get_scorer
    from sklearn.utils.validation import _check_method_params

    from linclass.linear.penalties.penalised import PenalisedObjective

    X = data.X
    name = "accuracy" if scoring is None else scoring
    params = _check_method_params(X, params=score_params, indices=test)
    if isinstance(name, str) and name in DIRECT and set(params) <= {"sample_weight"}:
        held_out = PenalisedObjective(X[test], data.y[test], data.classes.size, None,
                                      objective.penalty, fit_intercept=model.fit_intercept)
        weight = params.get("sample_weight")

        def score(coef, intercept):
            S = held_out.scores(*held_out.internal(coef, intercept)).T
            if S.shape[1] == 1:  # two classes: the log-odds of class 1
                S = np.column_stack([np.zeros(S.shape[0]), S[:, 0]])
            return held_out_value(S, data.y[test], name, weight)
        return score
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


def fold_path(model, design, objective, data, train, test, grid, rho, scoring, score_params):
    """One fold at one l1_ratio: the path on the training rows, each C scored on the test rows.
    Returns (scores, n_iter, coefs, intercepts, converged, violation), one entry per C."""
    fold = design.objective(data.X[train], data.y[train], data.classes.size, objective.sw[train],
                            objective.penalty)
    score = held_out_score(model, objective, data, test, scoring, score_params)
    scores, n_iter, coefs, intercepts, converged, violation = [], [], [], [], [], []
    for _, fit in path_fits(fold, grid, rho, data.classes, tol=model.tol, max_iter=model.max_iter):
        coef, intercept = design.coefficients(fit.coef, fit.intercept)
        scores.append(score(coef, intercept))
        n_iter.append(fit.n_iter)
        coefs.append(coef)
        intercepts.append(intercept)
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


def relaxed_scores(model, objective, data, folds, scores, coefs, intercepts, relaxes, scoring,
                   score_params, relaxers) -> np.ndarray:
    """Held-out scores of shape (n_folds, n_l1_ratios, n_Cs, n_relax): ``scores`` (the penalised
    fits') at relax 1, the relaxed fits' below (in this thread: the refits' warnings are caught)."""
    out = np.empty(scores.shape + (relaxes.size,))
    for i, relax in enumerate(relaxes):
        if relax == 1.0:
            out[..., i] = scores
            continue
        for f, (_, test) in enumerate(folds):
            score = held_out_score(model, objective, data, test, scoring, score_params)
            for r in range(scores.shape[1]):
                relaxer = fold_relaxer(model, objective, data, folds, f, r, relaxers)
                for c in range(scores.shape[2]):
                    out[f, r, c, i] = score(*relaxer.coefficients(coefs[f, r, c],
                                                                  intercepts[f, r, c], relax))
    return out


def fold_average(model, objective, data, folds, r, c, coefs, intercepts, relaxers):
    """``(coef, intercept)``: the folds' coefficients at ratio ``r`` and C ``c`` (relaxed at
    ``model.relax_``), averaged."""
    fits = [(coefs[f, r, c], intercepts[f, r, c]) if model.relax_ == 1.0 else
            fold_relaxer(model, objective, data, folds, f, r, relaxers).coefficients(
                coefs[f, r, c], intercepts[f, r, c], model.relax_)
            for f in range(len(folds))]
    return np.mean([a for a, _ in fits], axis=0), np.mean([b for _, b in fits], axis=0)
