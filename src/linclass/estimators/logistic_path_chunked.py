""":func:`linclass.logistic_path` on chunked data (Dask collections, files read in blocks): the
in-memory path (C increasing, each fit warm-started from the fit before), every fit by chunked
proximal Newton, one pass per iteration (:mod:`linclass.linear.fitting.chunked_path`).

Passes: one for the labels, one for the class totals and the centring, one for glmnet's grid
(the gradient at the intercept-only fit, whose terms start the first fit; none with given Cs or
``grid='logspace'``), then one per iteration of each fit, the last fit's terms starting the next
(about one pass per iteration in all).  Glue, no mathematics.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

from linclass.estimators.logistic_cv_chunked import check_settings, first_passes
from linclass.estimators.logistic_path_setup import LogisticPath, path_penalty, resolve_grid
from linclass.linear.fitting.chunked_path import lockstep, null_gradient, path_requests
from linclass.linear.fitting.fit import warn_unconverged
from linclass.linear.inference.wald import null_log_likelihood
from linclass.sources.chunks import caching

__all__ = ["chunked_path"]


def chunked_path(model, source, Cs, *, min_ratio, grid: str, relax: float) -> LogisticPath:
    """The :class:`~linclass.estimators.logistic_path_setup.LogisticPath` of ``model``'s settings (a
    LogisticRegression carrying logistic_path's arguments) on the rows of ``source``."""
    owner = "logistic_path"
    model._validate_params()
    template = path_penalty(model)
    check_settings(template, relax, owner)
    rho = template.l1_ratio
    with caching(source):  # a FileSource keeps its decoded blocks for the later passes
        layout, folded = first_passes(source, None, class_weight=model.class_weight,
                                      fit_intercept=model.fit_intercept, owner=owner, folds=False)
        terms0 = view = None
        if grid == "glmnet" and isinstance(Cs, Integral):
            terms0, view = null_gradient(folded, template, layout.n_rows)
        values = resolve_grid(Cs, view, [rho], min_ratio, grid)
        order = np.argsort(values, kind="stable")
        requests = path_requests(folded, None, template, values[order], rho, tol=model.tol,
                                 max_iter=model.max_iter, terms=terms0)
        steps = lockstep(folded, {0: (None, requests)})[0]
    n, m, d = values.size, folded.m, folded.d
    coefs, intercepts = np.zeros((n, m, d)), np.zeros((n, m))
    n_iter, violation = np.zeros(n, dtype=np.int64), np.zeros(n)
    converged = np.zeros(n, dtype=bool)
    value, loglik = np.zeros(n), np.zeros(n)
    for k, step in zip(order, steps):
        fit = step.fit
        coefs[k], intercepts[k] = fit.coef, fit.intercept
        n_iter[k], violation[k], converged[k] = fit.n_iter, fit.violation, fit.converged
        value[k], loglik[k] = fit.inference.objective, fit.log_likelihood
    warn_unconverged(owner, values, converged, violation, n_iter, model.max_iter, model.tol,
                     stacklevel=4)
    totals = folded.training_totals(None)
    null = null_log_likelihood(totals, float(totals.sum()), model.fit_intercept)
    return LogisticPath(
        Cs=values, coefs=coefs, intercepts=intercepts, classes=folded.classes,
        penalty=model.penalty, l1_ratio=rho, n_iter=n_iter, violation=violation,
        converged=converged, objective=value, log_likelihood=loglik,
        deviance_explained=1.0 - loglik / null if null else np.zeros_like(loglik),
        n_nonzero=np.count_nonzero(np.any(coefs != 0, axis=1), axis=1), relax=1.0,
        n_passes=int(folded.passes))
