"""``linclass.logistic_path``: the penalised logistic / softmax fit along a sequence of C, as glmnet
computes it (validate -> :func:`linclass.linear.fitting.path.path_steps` -> the relaxed fits of
:mod:`linclass.linear.fitting.relax` when asked -> a :class:`LogisticPath` record).  No mathematics
here.
"""

from __future__ import annotations

import numpy as np

from linclass.estimators.logistic_path_setup import (GRIDS, LogisticPath, path_penalty,
                                                     penalised_objective, resolve_grid)
from linclass.linear.fitting.fit import LogisticProblem, path_fits, warn_unconverged
from linclass.linear.fitting.relax import Relaxer, check_relax
from linclass.linear.inference.wald import null_log_likelihood

__all__ = ["GRIDS", "LogisticPath", "logistic_path", "path_penalty", "penalised_objective",
           "resolve_grid"]


def logistic_path(X, y, Cs=100, *, penalty="l1", l1_ratio=None, fit_intercept: bool = True,
                  sample_weight=None, class_weight=None, tol: float = 1e-6, max_iter: int = 100,
                  min_ratio: float | None = None, grid: str = "glmnet",
                  relax: float = 1.0, penalty_factor=None, lower_bounds=None, upper_bounds=None,
                  multinomial_penalty: str = "ungrouped") -> LogisticPath:
    """Penalised logistic (two classes) or softmax (K classes) regression along a path of C,
    warm-started from the strongest penalty down, with strong-rule screening (glmnet).

    Parameters
    ----------
    X : {array-like, scipy.sparse matrix} of shape (n_samples, n_features), Dask collection or chunk source
        Sparse X is never densified.  A Dask array or data frame (with y and sample_weight as
        Dask or NumPy), or a chunk source (a :class:`~linclass.sources.files.FileSource`, which
        holds its labels: y None) is read in passes, with the same path
        (:mod:`linclass.estimators.logistic_path_chunked`; ``n_passes`` reports them).
    y : array-like of shape (n_samples,)
    Cs : int or array-like, default=100
        An int: that many values, laid out by ``grid`` (by default glmnet's: on a log scale from
        the largest C at which every coefficient is zero up by the factor ``1 / min_ratio``).  An
        array: these values (any order; each fit is warm-started from the fit at the next smaller
        C).
    penalty : {'l1', 'elasticnet', 'l2'}, default='l1'
    l1_ratio : float in [0, 1] or None
        The elastic-net mixing ('elasticnet' needs it).
    fit_intercept : bool, default=True
    sample_weight : array-like of shape (n_samples,), default=None
    class_weight : dict, 'balanced' or None, default=None
    tol : float, default=1e-6
        Each fit stops when the largest optimality violation per unit of sample weight is at most
        ``tol``.
    max_iter : int, default=100
        Outer iterations per fit.
    min_ratio : float in (0, 1) or None
        The range of glmnet's grid (glmnet's ``lambda.min.ratio``); None: 1e-4 when n_samples >
        n_features, else 1e-2.
    grid : {'glmnet', 'logspace'}, default='glmnet'
        How an int ``Cs`` is laid out.  'glmnet' (the default, as glmnet's ``glmnet()``): from the
        penalty that zeroes every coefficient, where an L1 path starts, down by ``min_ratio``; for
        penalty='l2' its start is glmnet's stand-in (the penalty that would zero everything with
        ``l1_ratio=1e-3``), and on raw features of very different units or on text its weak end
        may stop short of the best C: extend it with a smaller ``min_ratio``.  'logspace':
        scikit-learn's ``np.logspace(-4, 4, Cs)``, the default of
        :class:`~linclass.LogisticRegressionCV`.
    relax : float in [0, 1], default=1.0
        The relaxed lasso at every C (glmnet's ``relax=TRUE``, ``coef(fit, gamma=relax)``): each
        fit's coefficients and intercepts blended with the unpenalised refit on its support,
        ``relax * penalised + (1 - relax) * refit`` (:mod:`linclass.linear.fitting.relax`; each
        support is refitted once).  Needs an L1 part.
    penalty_factor, lower_bounds, upper_bounds, multinomial_penalty
        As :class:`~linclass.LogisticRegression`'s (glmnet's ``penalty.factor``, ``lower.limits``,
        ``upper.limits``, ``type.multinomial``) at every C; with unpenalised features (factor 0)
        an int ``Cs`` starts where every penalised coefficient vanishes, the unpenalised ones fitted
        (glmnet's null model).

    Returns
    -------
    LogisticPath
    """
    from linclass.estimators.logistic_regression import LogisticRegression

    if penalty is None:
        raise ValueError("logistic_path needs a penalty ('l1', 'elasticnet' or 'l2'); without one "
                         "there is no path.")
    model = LogisticRegression(penalty=penalty, l1_ratio=l1_ratio, fit_intercept=fit_intercept,
                               class_weight=class_weight, tol=tol, max_iter=max_iter,
                               penalty_factor=penalty_factor, lower_bounds=lower_bounds,
                               upper_bounds=upper_bounds, multinomial_penalty=multinomial_penalty)
    from linclass.estimators.logistic_cv_chunked import chunk_source

    source = chunk_source(X, y, sample_weight, "logistic_path")
    if source is not None:
        from linclass.estimators.logistic_path_chunked import chunked_path

        return chunked_path(model, source, Cs, min_ratio=min_ratio, grid=grid, relax=relax)
    objective, data = penalised_objective(model, X, y, sample_weight)
    relax = check_relax(relax, objective.penalty)
    relaxer = Relaxer(LogisticProblem(X=data.X, y=data.y, classes=data.classes, weight=objective.sw,
                                      fit_intercept=fit_intercept), tol=tol, max_iter=max_iter,
                       penalty=objective.penalty)
    rho = objective.penalty.l1_ratio
    values = resolve_grid(Cs, objective, [rho], min_ratio, grid)
    order = np.argsort(values, kind="stable")
    m, d = objective.m, objective.d
    coefs, intercepts = np.zeros((values.size, m, d)), np.zeros((values.size, m))
    n_iter, violation = np.zeros(values.size, dtype=np.int64), np.zeros(values.size)
    converged = np.zeros(values.size, dtype=bool)
    value, loglik = np.zeros(values.size), np.zeros(values.size)
    for k, (C, fit) in zip(order, path_fits(objective, values[order], rho, data.classes, tol=tol,
                                            max_iter=max_iter)):
        fit = relaxer.blend(fit, relax)
        coefs[k], intercepts[k] = fit.coef, fit.intercept
        n_iter[k], violation[k], converged[k] = fit.n_iter, fit.violation, fit.converged
        value[k], loglik[k] = fit.inference.objective, fit.log_likelihood
    warn_unconverged("logistic_path", values, converged, violation, n_iter, max_iter, tol)
    relaxer.warn(f"logistic_path (relax={relax:g})")
    null = null_log_likelihood(objective.class_totals, objective.total, fit_intercept)
    return LogisticPath(
        Cs=values, coefs=coefs, intercepts=intercepts, classes=data.classes,
        penalty=penalty, l1_ratio=rho,
        n_iter=n_iter, violation=violation, converged=converged, objective=value,
        log_likelihood=loglik, deviance_explained=1.0 - loglik / null if null else np.zeros_like(loglik),
        n_nonzero=np.count_nonzero(np.any(coefs != 0, axis=1), axis=1), relax=relax,
    )
