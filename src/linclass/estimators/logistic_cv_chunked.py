"""Penalised paths and their cross-validation on chunked data (Dask collections, files read in
blocks): :func:`linclass.logistic_path` and :class:`~linclass.LogisticRegressionCV` reading the
rows in passes, with the in-memory answer.  Glue: the folds are :mod:`linclass.selection.fold_rules`,
the objectives :mod:`linclass.linear.penalties.penalised_folds`, the paths
:mod:`linclass.linear.fitting.chunked_path`.

Passes over the data: one for the labels and each block's place, one for the folds' class totals
and the centring, one more for glmnet's grid (the gradient at the intercept-only fit; its terms
start the path on every row), then one per round of every path's requests: every fold's path and
the path on every row (each ``l1_ratio``) advance together, so the fit makes about as many passes
as its longest path; the refit is the path on every row at the chosen C (no pass of its own), and
the held-out scores come with the terms (no pass either).
"""

from __future__ import annotations

from functools import partial
from numbers import Integral

import numpy as np

from linclass.core.chunks import combine_with_scan
from linclass.estimators.logistic_cv_choice import CVRun
from linclass.estimators.logistic_path_setup import path_penalty, resolve_grid
from linclass.linear.fitting.chunked_path import check_width, lockstep, null_gradient, path_requests
from linclass.linear.fitting.choice import check_chunked
from linclass.linear.fitting.fit import warn_unconverged
from linclass.linear.penalties.penalised_folds import FoldedPenalised
from linclass.selection.chunked import merge_lists, scanned_label_counts
from linclass.selection.fold_rules import block_layout, fold_rule
from linclass.sources.chunks import caching, record_features
from linclass.sources.dask import is_dask_collection

__all__ = ["chunk_source", "cross_validate_chunks", "first_passes"]

#: the scorings computed from the held-out sums (any other scorer needs the rows in memory)
SCORINGS = ("accuracy", "neg_log_loss")


def chunk_source(X, y, sample_weight, owner: str):
    """The chunk source of ``X`` (a Dask collection, with y and sample_weight: a
    :class:`~linclass.sources.dask.DaskSource`; a chunk source itself, which holds its labels),
    or None for rows in memory."""
    if hasattr(X, "map_reduce") and hasattr(X, "n_features"):
        if y is not None or sample_weight is not None:
            raise ValueError(f"{owner}: a chunk source ({type(X).__name__}) holds its labels; "
                             "pass y=None and no sample_weight.")
        return X
    if is_dask_collection(X, y, sample_weight):
        from linclass.sources.dask import DaskSource

        return DaskSource(X, y, sample_weight)
    return None


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


def _refuse(model, settings) -> None:
    scoring = "accuracy" if settings.scoring is None else settings.scoring
    if not (isinstance(scoring, str) and scoring in SCORINGS):
        raise ValueError(f"LogisticRegressionCV on Dask or file input scores the held-out rows "
                         f"with 'accuracy' (None) or 'neg_log_loss', counted in the passes; got "
                         f"scoring={settings.scoring!r}, which needs the rows in memory.")
    if model.solver == "liblinear":
        raise ValueError("solver='liblinear' (a penalised intercept) needs the rows in memory; on "
                         "Dask or file input use solver='auto' or 'cd'.")


def cross_validate_chunks(model, source, settings) -> CVRun:
    """Every fold's path (each ``l1_ratio``) and the path on every row, advanced together over
    the passes of ``source``; the :class:`~linclass.estimators.logistic_cv_choice.CVRun` of their
    held-out scores, whose refit is the path on every row at the chosen C.  Sets
    ``n_features_in_`` (``feature_names_in_``) and ``n_passes_``."""
    owner = "LogisticRegressionCV"
    _refuse(model, settings)
    ratios = settings.ratios
    model._ratio = ratios[0]
    template = path_penalty(model)
    check_settings(template, model.relax, owner)
    record_features(model, source)
    from linclass.estimators.logistic_cv_params import warn_min_ratio

    warn_min_ratio(model)
    with caching(source):  # a FileSource keeps its decoded blocks for the later passes
        layout, folded = first_passes(source, model.cv, class_weight=model.class_weight,
                                      fit_intercept=model.fit_intercept, owner=owner, folds=True)
        steps, values, grid = _cv_paths(model, folded, layout, template, ratios)
    model.n_passes_ = int(folded.passes)
    F, R = folded.n_splits, len(ratios)
    Cs = values if isinstance(model.Cs, Integral) else np.asarray(model.Cs).reshape(-1)
    fits = [[[s.fit for s in steps[(f, r)]] for r in range(R)] for f in range(F)]
    n_iter = np.array([[[fit.n_iter for fit in row] for row in fold] for fold in fits])
    converged = np.array([[[fit.converged for fit in row] for row in fold] for fold in fits])
    violation = np.array([[[fit.violation for fit in row] for row in fold] for fold in fits])
    warn_unconverged("LogisticRegressionCV (the folds' paths)",
                     np.broadcast_to(grid, converged.shape), converged, violation, n_iter,
                     model.max_iter, model.tol)
    held = np.array([[[s.held_out for s in steps[(f, r)]] for r in range(R)] for f in range(F)])
    if settings.scoring == "neg_log_loss":
        scores = held[..., 1] / held[..., 2]
    else:
        scores = held[..., 0] / held[..., 2]
    if model.verbose:
        from linclass.estimators.logistic_cv_folds import report_folds

        report_folds(scores.reshape(F * R, -1), n_iter.reshape(F * R, -1), ratios)
    coefs = np.array([[[fit.coef for fit in row] for row in fold] for fold in fits])
    intercepts = np.array([[[fit.intercept for fit in row] for row in fold] for fold in fits])

    def refit(c, r, C):
        fit = steps[(None, r)][c].fit
        warn_unconverged("LogisticRegressionCV (the refit)", [C], [fit.converged],
                         [fit.violation], [fit.n_iter], model.max_iter, model.tol, stacklevel=4)
        if model.verbose:
            print(f"LogisticRegressionCV refit at C={C:.6g}, l1_ratio={ratios[r]:g}: "
                  f"{fit.n_iter} iterations, violation {fit.violation:.3g}")
        model.converged_, model.violation_ = fit.converged, fit.violation
        model.loss_curve_, model.log_likelihood_ = fit.history, fit.log_likelihood
        model.coef_, model.intercept_ = fit.coef, fit.intercept

    return CVRun(values=values, Cs=Cs, ratios=ratios, relaxes=np.array([1.0]),
                 relaxed=scores[..., None], n_iter=n_iter, coefs=coefs, intercepts=intercepts,
                 weights=held[:, 0, 0, 3], classes=folded.classes, refit=refit,
                 average=lambda r, c: (coefs[:, r, c].mean(axis=0),
                                       intercepts[:, r, c].mean(axis=0)))


def _cv_paths(model, folded, layout, template, ratios):
    """``(steps, values, grid)``: every fold's path and the path on every row, each ratio, run
    together (:func:`~linclass.linear.fitting.chunked_path.lockstep`)."""
    terms0 = view = None
    if model.grid == "glmnet" and isinstance(model.Cs, Integral):
        terms0, view = null_gradient(folded, template, layout.n_rows)
    values = resolve_grid(model.Cs, view, ratios, model.min_ratio, model.grid)
    grid = np.sort(values, kind="stable")
    F = folded.n_splits
    training = np.array([folded.training_totals(f).sum() for f in range(F)])
    scale = (folded.total / np.maximum(training, np.finfo(float).tiny)
             if model.fold_penalty == "lambda" else np.ones(F))
    opts = {"tol": model.tol, "max_iter": model.max_iter}
    paths = {(f, r): (f, path_requests(folded, f, template, grid * scale[f], rho, **opts))
             for f in range(F) for r, rho in enumerate(ratios)}
    paths.update({(None, r): (None, path_requests(folded, None, template, grid, rho,
                                                  terms=terms0 if r == 0 else None, **opts))
                  for r, rho in enumerate(ratios)})
    steps = lockstep(folded, paths)
    return steps, values, grid
