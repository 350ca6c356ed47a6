"""The parts of a penalised logistic path that :func:`linclass.logistic_path`, its chunked form
(:mod:`linclass.estimators.logistic_path_chunked`) and cross-validation
(:mod:`linclass.estimators.logistic_cv`, :mod:`linclass.estimators.logistic_cv_chunked`) share: the
:class:`LogisticPath` record, the penalty of a path's settings and the grid of C values.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral

import numpy as np

from linclass.core.finiteness import check_finite, check_magnitude
from linclass.core.validation import validate_fit
from linclass.linear.fitting.problem import LogisticProblem
from linclass.linear.logistic.class_weights import weight_by_class
from linclass.linear.penalties.table import grouped, make_penalty, with_columns

__all__ = ["GRIDS", "LogisticPath", "path_penalty", "penalised_objective", "resolve_grid"]


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
        (:mod:`linclass.estimators.logistic_path_chunked`); None for rows in memory.
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
    parameters are checked) and build the :class:`~linclass.linear.penalties.penalised.PenalisedObjective`;
    returns ``(objective, data)``."""
    from linclass.linear.penalties.penalised import PenalisedObjective  # numba loads on first use

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


#: how an int ``Cs`` is laid out (see :func:`resolve_grid`)
GRIDS = ("logspace", "glmnet")


def resolve_grid(Cs, objective, l1_ratios, min_ratio, grid: str = "glmnet") -> np.ndarray:
    """The C values of a path or a cross-validation.

    ``Cs`` itself when it is a sequence.  An int ``Cs`` is laid out by ``grid``:

    - ``'logspace'``: scikit-learn's grid, ``np.logspace(-4, 4, Cs)``, the same for every data set;
    - ``'glmnet'``: glmnet's data-driven grid, ``Cs`` values on a log scale from where every
      coefficient of the smallest ``l1_ratio`` vanishes to ``1/min_ratio`` times where those of the
      largest do (one grid for all ratios).
    """
    from linclass.linear.fitting.path import c_grid, default_ratio

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
    low = objective.with_penalty(template.at(1.0, min(l1_ratios))).c_at_null()
    high = objective.with_penalty(template.at(1.0, max(l1_ratios))).c_at_null()
    ratio = default_ratio(objective.design.n, objective.d) if min_ratio is None else float(min_ratio)
    if not 0 < ratio < 1:
        raise ValueError(f"min_ratio must be in (0, 1); got {min_ratio!r}.")
    values = c_grid(high, int(Cs), ratio)
    if low < high:  # start where the smallest ratio's coefficients vanish too
        values = np.geomspace(low, values[-1], int(Cs))
    return values
