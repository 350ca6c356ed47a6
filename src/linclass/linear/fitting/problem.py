"""The records a logistic fit passes along its spine: the problem (the rows), the options (how to
fit), and the fit (what it found); and the warm start an option may carry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["FitOptions", "LogisticFit", "LogisticProblem", "warm_start"]


@dataclass(frozen=True, eq=False)
class LogisticProblem:
    """The rows of a fit: in memory (``X`` dense or sparse, ``y`` as class codes, ``classes``,
    ``weight`` the sample weights times the class weights, ``offset`` the known terms of the
    scores, shape (n, 1) or (n, K): :mod:`linclass.linear.logistic.offsets`) or a chunk source
    (``source``, whose class weights ``class_weight`` are applied in its first pass);
    ``column_sums``: X's column sums where a pass over X has formed them already."""

    X: Any = None
    y: np.ndarray | None = None
    classes: np.ndarray | None = None
    weight: np.ndarray | None = None
    fit_intercept: bool = True
    source: Any = None
    class_weight: Any = None
    offset: np.ndarray | None = None
    #: X's column sums, when the magnitude check's pass formed them (the centre reuses them)
    column_sums: np.ndarray | None = None

    @property
    def n_classes(self) -> int:
        return int(self.classes.size)

    @property
    def n_features(self) -> int:
        return int(self.source.n_features if self.source is not None else self.X.shape[1])

    @property
    def sparse(self) -> bool:
        return self.source is None and hasattr(self.X, "tocsc")


@dataclass(frozen=True, eq=False)
class FitOptions:
    """How to fit: the penalty object (:mod:`linclass.linear.fitting.penalty_table`), the solver as the
    user named it, its stopping rule, SGD's settings, a warm start ``(classes, coef, intercept)``,
    scikit-learn's callback task (:mod:`linclass.estimators.logistic.callbacks`), and the name and
    feature names the messages use (plain values: no estimator object reaches the fit)."""

    penalty: Any
    solver: str = "auto"
    tol: float = 1e-6
    max_iter: int = 100
    random_state: Any = None
    batch_size: int = 256
    eta0: float = 0.5
    warm: tuple | None = None
    task: Any = None
    name: str = "LogisticRegression"
    feature_names: Any = None


@dataclass(frozen=True, eq=False)
class LogisticFit:
    """The outcome of a fit: what the estimator's fitted attributes are.

    Attributes
    ----------
    classes : ndarray
    coef, intercept : ndarrays of shape (m, d) and (m,)
    n_iter : int
        Iterations (epochs for 'sgd'; outer proximal Newton iterations for 'cd'; both runs of
        'lbfgs+newton').
    converged : bool
    violation : float
        How far from the optimum it stopped (the number ``tol`` bounds).
    history : ndarray
        The mean objective at the start and after each iteration.
    solver : str
        The linclass solver that ran.
    separation : str or None
    log_likelihood : float
        At the fitted parameters, without the penalty.
    inference : a record of :mod:`linclass.linear.fitting.records`
    stopped : bool
        Whether a callback stopped the fit.
    aliased : ndarray of shape (d,), bool, or None
        The features left out of an unpenalised fit as linear combinations of the ones before them
        (:mod:`linclass.linear.logistic.aliasing`; their coefficients are 0 and their summary rows
        NA); None when none is.
    passes : int or None
        Passes over the data of a fit on a chunk source (the first, for the labels and totals,
        included); None for rows in memory.
    """

    classes: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    n_iter: int
    converged: bool
    violation: float
    history: np.ndarray
    solver: str
    separation: str | None
    log_likelihood: float
    inference: Any
    stopped: bool = False
    aliased: np.ndarray | None = None
    passes: int | None = None


def warm_start(options: FitOptions, classes, shape) -> tuple | None:
    """The warm start ``(coef, intercept)`` when its classes and shape match the problem's."""
    warm = options.warm
    if warm is not None and np.array_equal(warm[0], classes) and np.shape(warm[1]) == shape:
        return warm[1], warm[2]
    return None
