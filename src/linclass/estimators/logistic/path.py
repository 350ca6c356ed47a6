"""``linclass.logistic_path``: the penalised logistic / softmax fit along a sequence of C, as glmnet
computes it (validate -> :func:`linclass.linear.fitting.path.path_steps` -> the relaxed fits of
:mod:`linclass.linear.fitting.relax` when asked -> a :class:`LogisticPath` record), with the parts
that cross-validation (:mod:`linclass.estimators.logistic.cv`) shares: the record, the penalty of a
path's settings and the validated objective.

On chunked data (Dask collections, files read in blocks) the path is the in-memory one, read in
passes (:func:`linclass.linear.cv.path_chunks`); the record's arrays are those of
:func:`linclass.linear.cv.path_arrays` either way.  No mathematics here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from linclass.core.validation import check_finite, check_magnitude, validate_fit
from linclass.linear.cv import (GRIDS, check_settings, path_arrays, path_chunks,
                                resolve_grid)
from linclass.linear.fitting.fit import LogisticProblem, path_fits, warn_unconverged
from linclass.linear.fitting.relax import Relaxer, check_relax
from linclass.linear.logistic.class_weights import weight_by_class
from linclass.linear.fitting.choice import grouped, make_penalty, with_columns
from linclass.sources.dask import is_dask_collection

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from linclass.core.chunks import ChunkSource

__all__ = ["GRIDS", "LogisticPath", "chunk_source", "chunked_path", "logistic_path", "path_penalty",
           "penalised_objective", "resolve_grid"]


@dataclass(frozen=True)
class LogisticPath:
    """A regularisation path of penalised logistic / softmax regression.

    Attributes
    ----------
    Cs : ndarray of shape (n_Cs,)
        The inverse penalty strengths, in the order given (increasing when generated).
    coefs : ndarray of shape (n_Cs, n_rows, n_features)
        ``coef_`` at each C (n_rows = 1 for two classes, else n_classes).
    intercepts : ndarray of shape (n_Cs, n_rows)
    classes : ndarray of shape (n_classes,)
    penalty : str or None
    l1_ratio : float
    n_iter : ndarray of shape (n_Cs,)
        Outer iterations of each fit.
    violation : ndarray of shape (n_Cs,)
        Largest optimality violation per unit of sample weight at each fit (below ``tol`` when
        converged).
    converged : ndarray of shape (n_Cs,), bool
    objective : ndarray of shape (n_Cs,)
        The penalised objective (summed log-loss plus penalty) at each fit.
    log_likelihood : ndarray of shape (n_Cs,)
    deviance_explained : ndarray of shape (n_Cs,)
        :math:`1 - \\ell/\\ell_0` (glmnet's ``dev.ratio``).
    n_nonzero : ndarray of shape (n_Cs,)
        Features with a non-zero coefficient (in some class).
    relax : float
        1: the penalised fits.  Below 1, ``coefs`` and ``intercepts`` are the relaxed fits
        (:mod:`linclass.linear.fitting.relax`), ``log_likelihood`` and ``deviance_explained`` are
        theirs (glmnet's relaxed ``dev.ratio`` blends the two fits' ratios instead),
        ``objective`` and ``n_nonzero`` stay the penalised fits' (the support is the same), and
        ``n_iter``, ``violation`` and ``converged`` cover the refits too.
    n_passes : int or None
        Passes over the data of a path on Dask collections or a chunk source
        (:func:`chunked_path`); None for rows in memory.
    """

    Cs: np.ndarray
    coefs: np.ndarray
    intercepts: np.ndarray
    classes: np.ndarray
    penalty: str | None
    l1_ratio: float
    n_iter: np.ndarray
    violation: np.ndarray
    converged: np.ndarray
    objective: np.ndarray
    log_likelihood: np.ndarray
    deviance_explained: np.ndarray
    n_nonzero: np.ndarray
    relax: float = 1.0
    n_passes: int | None = None


def penalised_objective(model, X, y, sample_weight):
    """Validate ``(X, y, sample_weight)`` for ``model`` (a LogisticRegression-like estimator whose
    parameters are checked) and build the :class:`~linclass.linear.logistic.penalised.PenalisedObjective`;
    returns ``(objective, data)``."""
    from linclass.linear.logistic.penalised import PenalisedObjective  # numba loads on first use

    model._validate_params()
    data = validate_fit(model, X, y, sample_weight, accept_sparse=True)
    check_finite(data.X, feature_names=getattr(model, "feature_names_in_", None))
    check_magnitude(model, data.X)
    weight = weight_by_class(data.y, data.classes, data.sample_weight, model.class_weight)
    penalty = path_penalty(model)
    penalty.check(LogisticProblem(X=data.X, y=data.y, classes=data.classes))  # factor lengths
    objective = PenalisedObjective(data.X, data.y, data.classes.size, weight, penalty,
                                   fit_intercept=model.fit_intercept)
    return objective, data


def path_penalty(model):
    """The penalty object of a path's or a cross-validation's settings (``penalty``, ``l1_ratio``,
    and, where the estimator has them, ``penalty_factor``, ``lower_bounds``, ``upper_bounds`` and
    ``multinomial_penalty``), at C = 1 (each step moves it to its own C)."""
    penalty = make_penalty(model.penalty, 1.0, model.l1_ratio)
    columns = [getattr(model, k, None) for k in ("penalty_factor", "lower_bounds", "upper_bounds")]
    if any(v is not None for v in columns):
        penalty = with_columns(penalty, *columns)
    if getattr(model, "multinomial_penalty", "ungrouped") == "grouped":
        penalty = grouped(penalty)
    return penalty


def logistic_path(X: ArrayLike | ChunkSource, y: ArrayLike | None, Cs: int | ArrayLike = 100, *,
                  penalty: str = "l1", l1_ratio: float | None = None, fit_intercept: bool = True,
                  sample_weight: ArrayLike | None = None, class_weight: dict | str | None = None,
                  tol: float = 1e-6, max_iter: int = 100, min_ratio: float | None = None,
                  grid: str = "glmnet", relax: float = 1.0,
                  penalty_factor: float | ArrayLike | None = None,
                  lower_bounds: float | ArrayLike | None = None,
                  upper_bounds: float | ArrayLike | None = None,
                  multinomial_penalty: str = "ungrouped") -> LogisticPath:
    """Penalised logistic (two classes) or softmax (K classes) regression along a path of C,
    warm-started from the strongest penalty down, with strong-rule screening (glmnet).

    Parameters
    ----------
    X : {array-like, scipy.sparse matrix} of shape (n_samples, n_features), Dask collection or chunk source
        Sparse X is never densified.  A Dask array or data frame (with y and sample_weight as
        Dask or NumPy), or a chunk source (a :class:`~linclass.sources.files.FileSource`, which
        holds its labels: y None) is read in passes, with the same path
        (:func:`chunked_path`; ``n_passes`` reports them).
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

    See Also
    --------
    linclass.LogisticPath : The record it returns.
    linclass.LogisticRegressionCV : Chooses C on such paths by cross-validation.
    linclass.plot.coefficient_path : Draws the path.
    sklearn.svm.l1_min_c : scikit-learn's smallest C with a non-zero coefficient (its
        ``LogisticRegressionCV`` computes paths internally); R's counterpart is
        ``glmnet::glmnet(family="binomial")``.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import scale
    >>> import linclass
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> path = linclass.logistic_path(scale(X), y, Cs=20)  # standardised features
    >>> path.coefs.shape
    (20, 1, 30)
    >>> int(path.n_nonzero[0]), int(path.n_nonzero[-1]) > 20
    (0, True)
    """
    from linclass.estimators.logistic.regression import LogisticRegression

    if penalty is None:
        raise ValueError("logistic_path needs a penalty ('l1', 'elasticnet' or 'l2'); without one "
                         "there is no path.")
    model = LogisticRegression(penalty=penalty, l1_ratio=l1_ratio, fit_intercept=fit_intercept,
                               class_weight=class_weight, tol=tol, max_iter=max_iter,
                               penalty_factor=penalty_factor, lower_bounds=lower_bounds,
                               upper_bounds=upper_bounds, multinomial_penalty=multinomial_penalty)
    source = chunk_source(X, y, sample_weight, "logistic_path")
    if source is not None:
        return chunked_path(model, source, Cs, min_ratio=min_ratio, grid=grid, relax=relax)
    objective, data = penalised_objective(model, X, y, sample_weight)
    relax = check_relax(relax, objective.penalty)
    relaxer = Relaxer(LogisticProblem(X=data.X, y=data.y, classes=data.classes, weight=objective.sw,
                                      fit_intercept=fit_intercept), tol=tol, max_iter=max_iter,
                       penalty=objective.penalty)
    rho = objective.penalty.l1_ratio
    values = resolve_grid(Cs, objective, [rho], min_ratio, grid)
    order = np.argsort(values, kind="stable")
    fits = ((k, relaxer.blend(fit, relax)) for k, (_, fit) in
            zip(order, path_fits(objective, values[order], rho, data.classes, tol=tol,
                                 max_iter=max_iter)))
    arrays = path_arrays(values, fits, objective.m, objective.d,
                         class_totals=objective.class_totals, total=objective.total,
                         fit_intercept=fit_intercept)
    warn_unconverged("logistic_path", values, arrays["converged"], arrays["violation"],
                     arrays["n_iter"], max_iter, tol)
    relaxer.warn(f"logistic_path (relax={relax:g})")
    return LogisticPath(**arrays, classes=data.classes, penalty=penalty, l1_ratio=rho, relax=relax)


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


def chunked_path(model, source, Cs, *, min_ratio, grid: str, relax: float) -> LogisticPath:
    """The :class:`LogisticPath` of ``model``'s settings (a LogisticRegression carrying
    logistic_path's arguments) on the rows of ``source``."""
    owner = "logistic_path"
    model._validate_params()
    template = path_penalty(model)
    check_settings(template, relax, owner)
    rho = template.l1_ratio
    arrays, classes, passes = path_chunks(source, template, rho, Cs=Cs, grid=grid,
                                          min_ratio=min_ratio, class_weight=model.class_weight,
                                          fit_intercept=model.fit_intercept, tol=model.tol,
                                          max_iter=model.max_iter, owner=owner)
    warn_unconverged(owner, arrays["Cs"], arrays["converged"], arrays["violation"],
                     arrays["n_iter"], model.max_iter, model.tol, stacklevel=4)
    return LogisticPath(**arrays, classes=classes, penalty=model.penalty, l1_ratio=rho, relax=1.0,
                        n_passes=passes)
