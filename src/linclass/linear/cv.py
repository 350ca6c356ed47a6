"""Penalised logistic paths and their cross-validation: CV built from paths, in memory and chunked.

A path's grid of C (:func:`resolve_grid`), the arrays of its fits (:func:`path_arrays`: the
deviance explained, the features in the model) and the path on chunked data (:func:`path_chunks`)
are here, and so is the cross-validation built from them.

Each fold's candidate values of C are one path (:func:`linclass.linear.fitting.fit.path_fits`,
warm starts and strong rules; chunked: :mod:`linclass.linear.fitting.chunked_path`) on the fold's
training rows, every fit scored on the fold's held-out rows.  The scored folds
(:class:`CVRun`) give cv.glmnet's statistics and the chosen candidate
(:mod:`linclass.selection.cv_rule`: the best summed score, the best mean or the most penalised
within one standard error of it), whose refit on all rows is the path on all rows up to it.

On rows in memory (:class:`Folds`) each fold's path runs by itself (in threads); with ``relax``
below 1 each fit is blended with the unpenalised refit on its support
(:mod:`linclass.linear.fitting.relax`) before it is scored.  On chunked data
(:func:`cross_validate_chunks`) every fold's path and the path on every row advance together, one
pass over the data per round of their requests: one pass for the labels and each block's place,
one for the folds' class totals and the centring, one more for glmnet's grid (the gradient at the
intercept-only fit, whose terms start the path on every row), then about as many as the longest
path has iterations; the refit is the path on every row (no pass of its own) and the held-out
scores come with the terms (no pass either).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from numbers import Integral

import numpy as np
import scipy.sparse as sp

from linclass.core.chunks import combine_with_scan
from linclass.linear.fitting.choice import check_chunked
from linclass.linear.fitting.chunked_path import check_width, lockstep, null_gradient, path_requests
from linclass.linear.fitting.fit import LogisticProblem, path_fits
from linclass.linear.fitting.relax import Relaxer, relax_fit
from linclass.linear.fitting.liblinear import augment, split
from linclass.linear.logistic.losses import null_log_likelihood
from linclass.linear.logistic.penalised_folds import FoldedPenalised
from linclass.selection.cv_rule import choose, cv_statistics, fold_bests, summed_best
from linclass.selection.fold_rules import block_layout, fold_rule, merge_lists, scanned_label_counts
from linclass.selection.scoring import held_out_value

__all__ = ["CVRun", "ChunkedCV", "FoldDesign", "Folds", "GRIDS", "SCORINGS", "check_settings",
           "cross_validate_chunks", "first_passes", "path_arrays", "path_chunks", "refit_path",
           "resolve_grid"]

#: how an int ``Cs`` is laid out (see :func:`resolve_grid`)
GRIDS = ("logspace", "glmnet")

#: the scorings computed from the held-out scores themselves (any other scorer needs a predictor,
#: and on chunked data the rows in memory)
SCORINGS = ("accuracy", "neg_log_loss")


def resolve_grid(Cs, objective, l1_ratios, min_ratio, grid: str = "glmnet") -> np.ndarray:
    """The C values of a path or a cross-validation.

    ``Cs`` itself when it is a sequence.  An int ``Cs`` is laid out by ``grid``:

    - ``'logspace'``: scikit-learn's grid, ``np.logspace(-4, 4, Cs)``, the same for every data set;
    - ``'glmnet'``: glmnet's data-driven grid, ``Cs`` values on a log scale from where every
      coefficient of the smallest ``l1_ratio`` vanishes to ``1/min_ratio`` times where those of the
      largest do (one grid for all ratios).
    """
    from linclass.linear.fitting.path import c_at_null, c_grid, default_ratio

    if grid not in GRIDS:
        raise ValueError(f"grid must be one of {GRIDS}; got {grid!r}.")
    if not isinstance(Cs, Integral):
        values = np.asarray(Cs, dtype=np.float64).reshape(-1)
        if values.size == 0 or not np.all(np.isfinite(values)) or np.any(values <= 0):
            raise ValueError(f"Cs must be a positive int or a sequence of positive finite numbers; "
                             f"got {Cs!r}.")
        return values
    if Cs < 1:
        raise ValueError(f"Cs must be at least 1; got {Cs!r}.")
    if grid == "logspace":
        return np.logspace(-4, 4, int(Cs))
    template = objective.penalty
    def c_null(view):  # a chunked fit's view knows it from its first pass (chunked_path)
        own = getattr(view, "c_at_null", None)
        return own() if own is not None else c_at_null(view)

    weakest = c_null(objective.with_penalty(template.at(1.0, min(l1_ratios))))
    strongest = c_null(objective.with_penalty(template.at(1.0, max(l1_ratios))))
    ratio = default_ratio(objective.design.n, objective.d) if min_ratio is None else float(min_ratio)
    if not 0 < ratio < 1:
        raise ValueError(f"min_ratio must be in (0, 1); got {min_ratio!r}.")
    values = c_grid(strongest, int(Cs), ratio)
    if weakest < strongest:  # start where the smallest ratio's coefficients vanish too
        values = np.geomspace(weakest, values[-1], int(Cs))
    return values


def path_arrays(values, fits, m: int, d: int, *, class_totals, total: float,
                fit_intercept: bool) -> dict:
    """The arrays of a path's fits, as :class:`~linclass.LogisticPath` holds them.

    ``fits`` yields ``(k, fit)``, the fit at ``values[k]``, each with ``m`` rows of ``d``
    coefficients.  Besides each fit's coefficients, intercepts, iterations, violation,
    convergence, objective and log-likelihood :math:`\\ell`: the deviance explained
    :math:`1 - \\ell/\\ell_0` (glmnet's ``dev.ratio``; :math:`\\ell_0` the intercept-only fit's,
    from the class totals of weight) and the features with a non-zero coefficient in some row.
    """
    n = values.size
    coefs, intercepts = np.zeros((n, m, d)), np.zeros((n, m))
    n_iter, violation = np.zeros(n, dtype=np.int64), np.zeros(n)
    converged = np.zeros(n, dtype=bool)
    value, loglik = np.zeros(n), np.zeros(n)
    for k, fit in fits:
        coefs[k], intercepts[k] = fit.coef, fit.intercept
        n_iter[k], violation[k], converged[k] = fit.n_iter, fit.violation, fit.converged
        value[k], loglik[k] = fit.inference.objective, fit.log_likelihood
    null = null_log_likelihood(class_totals, total, fit_intercept)
    return {"Cs": values, "coefs": coefs, "intercepts": intercepts, "n_iter": n_iter,
            "violation": violation, "converged": converged, "objective": value,
            "log_likelihood": loglik,
            "deviance_explained": 1.0 - loglik / null if null else np.zeros_like(loglik),
            "n_nonzero": np.count_nonzero(np.any(coefs != 0, axis=1), axis=1)}


def _passes_and_grid(source, cv, folds, class_weight, fit_intercept, owner, template, Cs, ratios,
                     min_ratio, grid):
    """The first passes over ``source`` (labels, class totals and centring; with ``cv`` each row's
    fold, when ``folds``) and the grid of C: ``(layout, folded, terms0, values)``, ``terms0`` the terms at the
    intercept-only fit when glmnet's grid needed its gradient (None otherwise)."""
    layout, folded = first_passes(source, cv, class_weight=class_weight,
                                  fit_intercept=fit_intercept, owner=owner, folds=folds)
    terms0 = view = None
    if grid == "glmnet" and isinstance(Cs, Integral):
        terms0, view = null_gradient(folded, template, layout.n_rows)
    return layout, folded, terms0, resolve_grid(Cs, view, ratios, min_ratio, grid)


def path_chunks(source, template, rho: float, *, Cs, grid: str, min_ratio, class_weight,
                fit_intercept: bool, tol: float, max_iter: int, owner: str):
    """The path of ``template`` at ``rho`` on the rows of a chunk source, C increasing, each fit
    warm-started from the one before, one pass per iteration; ``(arrays, classes, passes)``
    (:func:`path_arrays`).

    Passes: one for the labels, one for the class totals and the centring, one for glmnet's grid
    (the gradient at the intercept-only fit, whose terms start the first fit; none with given
    ``Cs`` or ``grid='logspace'``), then one per iteration of each fit."""
    from linclass.sources.chunks import caching

    with caching(source):  # a FileSource keeps its decoded blocks for the later passes
        layout, folded, terms0, values = _passes_and_grid(
            source, None, False, class_weight, fit_intercept, owner, template, Cs, [rho], min_ratio,
            grid)
        order = np.argsort(values, kind="stable")
        requests = path_requests(folded, None, template, values[order], rho, tol=tol,
                                 max_iter=max_iter, terms=terms0)
        steps = lockstep(folded, {0: (None, requests)})[0]
    totals = folded.training_totals(None)
    arrays = path_arrays(values, ((k, step.fit) for k, step in zip(order, steps)), folded.m,
                         folded.d, class_totals=totals, total=float(totals.sum()),
                         fit_intercept=fit_intercept)
    return arrays, folded.classes, int(folded.passes)


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

    @property
    def rank(self) -> np.ndarray:
        """``Cs[i]`` is ``grid[rank[i]]``."""
        return np.argsort(self.order)

    def statistics(self) -> tuple[np.ndarray, np.ndarray]:
        """cv.glmnet's ``cvm`` and ``cvsd``, each of shape (n_l1_ratios, n_Cs, n_relax), grid
        order (:func:`linclass.selection.cv_rule.cv_statistics`)."""
        return cv_statistics(self.relaxed, self.weights)

    def choose(self, summed: bool) -> tuple[tuple[int, int, int], tuple[int, int]]:
        """``((r, c, g), (c1, g1))``: the best candidate (ratio, grid and relax indices) and the
        one-standard-error candidate at its ratio.  ``summed``: the best is scikit-learn's, the
        largest sum of the folds' scores (ties: the first C given), instead of the best mean."""
        mean, se = self.statistics()
        (r, c, g), (c1, g1) = choose(mean, se)
        if summed:
            rank = self.rank
            r, i = summed_best(np.take(self.relaxed[..., 0], rank, axis=2))
            c = rank[i]
        return (r, c, g), (c1, g1)

    def fold_bests_average(self) -> tuple[np.ndarray, np.ndarray, float, float]:
        """scikit-learn's model without a refit: ``(coef, intercept, C, l1_ratio)``, the means of
        each fold's coefficients, C and l1_ratio at its own best summed score."""
        rank = self.rank
        rs, cs = fold_bests(np.take(self.relaxed[..., 0], rank, axis=2))
        every = np.arange(self.relaxed.shape[0])
        coef = self.coefs[every, rs, rank[cs]].mean(axis=0)
        intercept = self.intercepts[every, rs, rank[cs]].mean(axis=0)
        return (coef, intercept, float(np.mean(self.values[cs])),
                float(np.mean(np.asarray(self.ratios)[rs])))


@dataclass(frozen=True)
class FoldDesign:
    """How the folds' objectives see X: as it is, or, for liblinear's penalised intercept,
    :math:`[X, s\\mathbf 1]` without intercept, whose last coefficient times :math:`s`
    (``scaling``) is the intercept (:mod:`linclass.linear.fitting.liblinear`)."""

    fit_intercept: bool
    scaling: float | None = None

    def objective(self, X, y, n_classes, weight, penalty):
        from linclass.linear.logistic.penalised import PenalisedObjective  # numba on first use

        if self.scaling is None:
            return PenalisedObjective(X, y, n_classes, weight, penalty,
                                      fit_intercept=self.fit_intercept)
        if sp.issparse(X):
            X = sp.hstack([X, np.full((X.shape[0], 1), self.scaling)], format="csr")
        else:
            X = augment(X, self.scaling)
        return PenalisedObjective(X, y, n_classes, weight, penalty, fit_intercept=False)

    def coefficients(self, coef, intercept):
        """The model's ``(coef, intercept)`` of a fit of :meth:`objective`."""
        return (coef, intercept) if self.scaling is None else split(coef, self.scaling)


@dataclass(frozen=True)
class FoldPaths:
    """Every fold's path at every ratio, arrays of shape (n_folds, n_l1_ratios, n_Cs, ...)."""

    scores: np.ndarray
    n_iter: np.ndarray
    coefs: np.ndarray
    intercepts: np.ndarray
    converged: np.ndarray
    violation: np.ndarray


@dataclass
class Folds:
    """The folds of a cross-validation on rows in memory.

    Attributes
    ----------
    objective : PenalisedObjective
        On all rows (its weights ``sw`` include the class weights; its penalty is the template).
    data : validated data
        ``X``, ``y`` (codes) and ``classes``.
    splits : list of (train, test) index arrays
    design : FoldDesign
    tol, max_iter : the fits' stopping rule
    relaxers : dict
        ``(fold, ratio index) -> Relaxer``, made on first use (each keeps its supports' refits).
    """

    objective: object
    data: object
    splits: list
    design: FoldDesign
    tol: float
    max_iter: int
    relaxers: dict = field(default_factory=dict)

    @property
    def weights(self) -> np.ndarray:
        """The held-out weight of each fold."""
        return np.array([self.objective.sw[test].sum() for _, test in self.splits])

    def scales(self, fold_penalty: str) -> list[float]:
        """The factor of each fold's C: glmnet's :math:`\\lambda` per unit of weight puts fold k
        at :math:`C\\,W/W_k` (``fold_penalty='lambda'``), scikit-learn's at C (1)."""
        tiny = np.finfo(float).tiny
        return [self.objective.total / max(self.objective.sw[train].sum(), tiny)
                if fold_penalty == "lambda" else 1.0 for train, _ in self.splits]

    def direct_score(self, test, scoring: str, weight) -> Callable:
        """``(coef, intercept) -> score`` on the rows ``test``: accuracy or minus the mean
        log-loss (``scoring``) of the held-out scores, weighted by ``weight`` (the held-out
        rows' sample weights or None)."""
        from linclass.linear.logistic.penalised import PenalisedObjective

        data = self.data
        held_out = PenalisedObjective(data.X[test], data.y[test], data.classes.size, None,
                                      self.objective.penalty,
                                      fit_intercept=self.design.fit_intercept)

        def score(coef, intercept):
            S = held_out.scores(*held_out.internal(coef, intercept)).T
            if S.shape[1] == 1:  # two classes: the log-odds of class 1
                S = np.column_stack([np.zeros(S.shape[0]), S[:, 0]])
            return held_out_value(S, data.y[test], scoring, weight)
        return score

    def path(self, f: int, grid, rho: float, score: Callable) -> tuple:
        """Fold ``f`` at one l1_ratio: the path on its training rows, each C scored by ``score``.
        Returns (scores, n_iter, coefs, intercepts, converged, violation), one entry per C."""
        data, train = self.data, self.splits[f][0]
        fold = self.design.objective(data.X[train], data.y[train], data.classes.size,
                                     self.objective.sw[train], self.objective.penalty)
        out = ([], [], [], [], [], [])
        for _, fit in path_fits(fold, grid, rho, data.classes, tol=self.tol,
                                max_iter=self.max_iter):
            coef, intercept = self.design.coefficients(fit.coef, fit.intercept)
            for values, value in zip(out, (score(coef, intercept), fit.n_iter, coef, intercept,
                                           fit.converged, fit.violation)):
                values.append(value)
        return tuple(np.array(values) for values in out)

    def paths(self, grid, ratios, score_of: Callable, *, fold_penalty: str,
              n_jobs=None) -> FoldPaths:
        """Every fold's path at every ratio (in threads: the compiled loops release the GIL),
        ``score_of(test)`` scoring each fold's fits; arrays in the order (folds, ratios, C)."""
        from joblib import Parallel, delayed

        jobs = (delayed(self.path)(f, grid * k, rho, score_of(test))
                for f, ((_, test), k) in enumerate(zip(self.splits, self.scales(fold_penalty)))
                for rho in ratios)
        results = Parallel(n_jobs=n_jobs, prefer="threads")(jobs)
        shape = (len(self.splits), len(ratios), grid.size)
        scores, n_iter, coefs, intercepts, converged, violation = (
            np.array([r[i] for r in results]).reshape(shape + np.shape(results[0][i])[1:])
            for i in range(6))
        return FoldPaths(scores, n_iter, coefs, intercepts, converged, violation)

    def relaxer(self, f: int, r: int) -> Relaxer:
        """The :class:`~linclass.linear.fitting.relax.Relaxer` of fold ``f`` at ratio index ``r``
        (made once: it keeps the refit of each support)."""
        if (f, r) not in self.relaxers:
            train, data = self.splits[f][0], self.data
            problem = LogisticProblem(X=data.X[train], y=data.y[train], classes=data.classes,
                                      weight=self.objective.sw[train],
                                      fit_intercept=self.design.fit_intercept)
            self.relaxers[(f, r)] = Relaxer(problem, tol=self.tol, max_iter=self.max_iter,
                                            penalty=self.objective.penalty)
        return self.relaxers[(f, r)]

    def relaxed_scores(self, paths: FoldPaths, relaxes, score_of: Callable) -> np.ndarray:
        """Held-out scores of shape (n_folds, n_l1_ratios, n_Cs, n_relax): the penalised fits' at
        relax 1, the relaxed fits' below (in this thread: the refits' warnings are caught)."""
        scores = paths.scores
        out = np.empty(scores.shape + (relaxes.size,))
        for i, relax in enumerate(relaxes):
            if relax == 1.0:
                out[..., i] = scores
                continue
            for f, (_, test) in enumerate(self.splits):
                score = score_of(test)
                for r in range(scores.shape[1]):
                    relaxer = self.relaxer(f, r)
                    for c in range(scores.shape[2]):
                        out[f, r, c, i] = score(*relaxer.coefficients(
                            paths.coefs[f, r, c], paths.intercepts[f, r, c], relax))
        return out

    def relaxed_fits(self, paths: FoldPaths, r: int, c: int) -> list:
        """Every fold's relaxed fit at ratio ``r`` and C ``c`` (its :class:`Relaxer`'s record)."""
        return [self.relaxer(f, r).only(paths.coefs[f, r, c]) for f in range(len(self.splits))]

    def average(self, paths: FoldPaths, r: int, c: int, relax: float):
        """``(coef, intercept)``: the folds' coefficients at ratio ``r`` and C ``c`` (relaxed at
        ``relax``), averaged."""
        fits = [(paths.coefs[f, r, c], paths.intercepts[f, r, c]) if relax == 1.0 else
                self.relaxer(f, r).coefficients(paths.coefs[f, r, c], paths.intercepts[f, r, c],
                                                relax)
                for f in range(len(self.splits))]
        return np.mean([a for a, _ in fits], axis=0), np.mean([b for _, b in fits], axis=0)

    def refit(self, grid, rho: float):
        """The fit on all rows at the last C of ``grid``: the path up to it (warm starts make it
        cost about one fit)."""
        return refit_path(self.objective, self.data.classes, grid, rho, tol=self.tol,
                          max_iter=self.max_iter)

    def relax(self, fit, relax: float, what: str):
        """``fit`` (on all rows) blended with the unpenalised refit on its support."""
        data = self.data
        problem = LogisticProblem(X=data.X, y=data.y, classes=data.classes,
                                  weight=self.objective.sw, fit_intercept=self.design.fit_intercept)
        return relax_fit(fit, problem, relax, tol=self.tol, max_iter=self.max_iter, what=what,
                         penalty=self.objective.penalty)


def refit_path(objective, classes, grid, rho: float, *, tol: float, max_iter: int):
    """The fit at the last C of ``grid``, reached along the path from its first."""
    fit = None
    for _, fit in path_fits(objective, grid, rho, classes, tol=tol, max_iter=max_iter):
        pass
    return fit


def check_settings(penalty, relax, owner: str) -> None:
    """What the chunked paths cannot fit, refused before the data are read."""
    check_chunked("cd", penalty)
    if np.any(np.asarray(relax, dtype=float) != 1.0):
        raise ValueError(f"{owner}: relax below 1 needs the rows in memory (its refits read the "
                         "selected columns); fit on arrays, or leave relax=1.0 on Dask or file "
                         "input.")


def first_passes(source, cv, *, class_weight, fit_intercept, owner, folds: bool):
    """The labels' pass and the folds' totals' pass: ``(layout, folded)``."""
    found = source.map_reduce(scanned_label_counts, partial(combine_with_scan, merge_lists),
                              source.n_features)
    entries = None if found is None else found[0]
    if entries is None:
        raise ValueError(f"Found array with 0 sample(s) (shape=(0, {source.n_features})) while a "
                         "minimum of 1 is required.")
    found[1].check_squares(owner)  # as check_magnitude in memory: the paths square X
    layout = block_layout(entries)
    rule = fold_rule(cv, layout, owner) if folds else None
    folded = FoldedPenalised(source, layout.classes, rule, class_weight=class_weight,
                             fit_intercept=fit_intercept, owner=owner)
    folded.passes += 1  # the labels' pass
    check_width(source.n_features, layout.classes.size, owner)
    return layout, folded


@dataclass(frozen=True)
class ChunkedCV:
    """Every fold's path (each ratio) and the path on every row, read in passes.

    ``values`` are the C values in the order of ``Cs``, ``grid`` increasing; the arrays are of
    shape (n_folds, n_l1_ratios, n_Cs, ...) in grid order, ``scores`` the held-out scores and
    ``weights`` the folds' held-out weights; ``refits[r][c]`` is the fit on every row at ratio
    ``r`` and C ``grid[c]``."""

    values: np.ndarray
    grid: np.ndarray
    classes: np.ndarray
    scores: np.ndarray
    weights: np.ndarray
    n_iter: np.ndarray
    converged: np.ndarray
    violation: np.ndarray
    coefs: np.ndarray
    intercepts: np.ndarray
    refits: list
    passes: int


def cross_validate_chunks(source, template, ratios, *, Cs, grid: str, min_ratio, cv, class_weight,
                          fit_intercept: bool, fold_penalty: str, scoring, tol: float,
                          max_iter: int, owner: str) -> ChunkedCV:
    """Every fold's path (each of ``ratios``) and the path on every row, advanced together over
    the passes of ``source``, each fit scored on its fold's held-out rows by ``scoring``
    (one of :data:`SCORINGS`; None is accuracy)."""
    from linclass.sources.chunks import caching

    with caching(source):  # a FileSource keeps its decoded blocks for the later passes
        layout, folded, terms0, values = _passes_and_grid(
            source, cv, True, class_weight, fit_intercept, owner, template, Cs, ratios, min_ratio,
            grid)
        increasing = np.sort(values, kind="stable")
        F = folded.n_splits
        training = np.array([folded.training_totals(f).sum() for f in range(F)])
        scale = (folded.total / np.maximum(training, np.finfo(float).tiny)
                 if fold_penalty == "lambda" else np.ones(F))
        opts = {"tol": tol, "max_iter": max_iter}
        paths = {(f, r): (f, path_requests(folded, f, template, increasing * scale[f], rho, **opts))
                 for f in range(F) for r, rho in enumerate(ratios)}
        paths.update({(None, r): (None, path_requests(folded, None, template, increasing, rho,
                                                      terms=terms0 if r == 0 else None, **opts))
                      for r, rho in enumerate(ratios)})
        steps = lockstep(folded, paths)
    R = len(ratios)
    fits = [[[s.fit for s in steps[(f, r)]] for r in range(R)] for f in range(F)]

    def each(name):
        return np.array([[[getattr(fit, name) for fit in row] for row in fold] for fold in fits])

    held = np.array([[[s.held_out for s in steps[(f, r)]] for r in range(R)] for f in range(F)])
    scores = held[..., 1 if scoring == "neg_log_loss" else 0] / held[..., 2]
    return ChunkedCV(values=values, grid=increasing, classes=folded.classes, scores=scores,
                     weights=held[:, 0, 0, 3], n_iter=each("n_iter"), converged=each("converged"),
                     violation=each("violation"), coefs=each("coef"),
                     intercepts=each("intercept"),
                     refits=[[s.fit for s in steps[(None, r)]] for r in range(R)],
                     passes=int(folded.passes))

