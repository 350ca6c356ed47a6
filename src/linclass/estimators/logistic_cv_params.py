"""What the parameters of :class:`~linclass.LogisticRegressionCV` mean before a fit, as scikit-learn
1.9 reads them: the deprecation of ``penalty`` (a ``FutureWarning``), the penalty it derives from
``l1_ratios``, and the solver / penalty / ``dual`` combinations it refuses
(``ValueError``, with scikit-learn's messages).  Glue, no mathematics.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.metrics import get_scorer_names
from sklearn.utils._param_validation import Hidden, Interval, StrOptions

from linclass.estimators.logistic_setup import PARAMETER_CONSTRAINTS
from linclass.linear.fitting.choice import SKLEARN_SMOOTH, SKLEARN_SOLVERS
from linclass.estimators.logistic_path_setup import GRIDS

__all__ = ["CV_PARAMETER_CONSTRAINTS", "CVSettings", "check_solver", "resolve", "warn_min_ratio"]


@dataclass(frozen=True)
class CVSettings:
    """The settings of one cross-validation.

    Attributes
    ----------
    penalty : {'l2', 'l1', 'elasticnet'}
        Given, or derived from ``l1_ratios`` (all 0: 'l2', all 1: 'l1', else 'elasticnet').
    ratios : list of float
        The l1_ratio of each candidate (the penalty's own for 'l1' and 'l2').
    given : ndarray or None
        ``l1_ratios`` as given (None when not given): ``l1_ratios_``, and whether the fitted
        attributes have an l1_ratios axis.
    scoring : str, callable or None
        The scoring of the held-out rows (None: accuracy, scikit-learn 1.9's default).
    legacy : bool
        scikit-learn's legacy layout of the fitted attributes.
    """

    penalty: str
    ratios: list
    given: object
    scoring: object
    legacy: bool


def check_solver(solver: str, penalty: str, dual: bool) -> None:
    """scikit-learn's refusals of solver / penalty / ``dual`` combinations (``ValueError``).
    linclass's own solvers ('auto', 'cd') fit every penalty."""
    if solver in SKLEARN_SMOOTH and penalty not in ("l2", None):
        raise ValueError(f"Solver {solver} supports only 'l2' or None penalties, got {penalty} "
                         "penalty (use solver='saga', or linclass's 'cd' / 'auto', for an L1 part).")
    if solver != "liblinear" and dual:
        raise ValueError(f"Solver {solver} supports only dual=False, got dual={dual} (the dual "
                         "formulation is liblinear's, for the L2 penalty).")
    if penalty == "elasticnet" and solver not in ("saga", "auto", "cd"):
        raise ValueError(f"Only 'saga' solver supports elasticnet penalty, got solver={solver} "
                         "(linclass's 'cd' and 'auto' fit it too).")
    if solver == "liblinear" and dual and penalty != "l2":
        raise ValueError(f"solver='liblinear' with dual=True takes the L2 penalty only, got "
                         f"{penalty} penalty (liblinear's dual problem is that of the L2 penalty).")


def _derived_penalty(l1_ratios) -> str:
    """scikit-learn's penalty of ``l1_ratios`` when ``penalty`` is left alone."""
    if l1_ratios is None:
        return "l2"
    try:
        values = np.asarray(l1_ratios, dtype=np.float64)
    except (TypeError, ValueError):
        return "elasticnet"  # refused below, naming l1_ratios
    if np.all(values == 0):
        return "l2"
    if np.all(values == 1):
        return "l1"
    return "elasticnet"


def _check_ratios(l1_ratios) -> None:
    if l1_ratios is None or len(l1_ratios) == 0 or any(
            not isinstance(r, numbers.Number) or isinstance(r, bool) or not 0 <= r <= 1
            for r in l1_ratios):
        raise ValueError("l1_ratios must be an array-like of numbers between 0 and 1; got "
                         f"(l1_ratios={l1_ratios!r}).")


def _unless_warn(value, default):
    """``value``, or ``default`` for scikit-learn's placeholder 'warn'."""
    return default if isinstance(value, str) and value == "warn" else value


def resolve(model) -> CVSettings:
    """The :class:`CVSettings` of ``model``'s parameters, with scikit-learn 1.9's warnings and
    refusals, in its order."""
    # linclass's defaults are scikit-learn 1.9's meanings, given as values (l1_ratios=None,
    # scoring=None, use_legacy_attributes=True) and kept: no FutureWarning for scikit-learn's
    # schedule of changes.  'warn', scikit-learn's placeholder (and that of models saved before),
    # is read as the same value, silently
    l1_ratios = _unless_warn(model.l1_ratios, None)
    if model.penalty == "deprecated":
        penalty = _derived_penalty(l1_ratios)
    else:
        penalty = model.penalty
        warnings.warn("'penalty' was deprecated in scikit-learn 1.8 and will be removed in 1.10. "
                      "To avoid this warning, leave 'penalty' at its default and use 'l1_ratios' "
                      "and 'Cs' instead: l1_ratios=(0,) for penalty='l2', l1_ratios=(1,) for "
                      "penalty='l1', l1_ratios of floats between 0 and 1 for "
                      "penalty='elasticnet'.", FutureWarning, stacklevel=3)
    scoring = _unless_warn(model.scoring, None)
    legacy = _unless_warn(model.use_legacy_attributes, True)
    check_solver(model.solver, penalty, model.dual)
    if penalty == "elasticnet":
        _check_ratios(l1_ratios)
        ratios = [float(r) for r in l1_ratios]
    else:
        if l1_ratios is not None and model.penalty != "deprecated":
            warnings.warn(f"l1_ratios parameter is only used when penalty is 'elasticnet'. Got "
                          f"(penalty={penalty}).", UserWarning, stacklevel=3)
        if l1_ratios is not None and len(l1_ratios) == 0:
            raise ValueError("l1_ratios must be an array-like of numbers between 0 and 1; got "
                             "an empty one.")
        own = 1.0 if penalty == "l1" else 0.0
        ratios = [own] * (1 if l1_ratios is None else len(l1_ratios))
    given = None if l1_ratios is None else np.asarray(l1_ratios)
    return CVSettings(penalty=penalty, ratios=ratios, given=given, scoring=scoring,
                      legacy=bool(legacy))


def warn_min_ratio(model) -> None:
    """A UserWarning when ``min_ratio`` is given but no glmnet grid is laid out."""
    if model.min_ratio is not None and (model.grid != "glmnet"
                                        or not isinstance(model.Cs, numbers.Integral)):
        warnings.warn(f"min_ratio={model.min_ratio!r} is ignored: it sets the range of glmnet's "
                      "grid (grid='glmnet' with an int Cs).", UserWarning, stacklevel=3)


#: scikit-learn 1.9's constraints of LogisticRegressionCV's parameters, with linclass's additions
CV_PARAMETER_CONSTRAINTS: dict = {
    **{k: PARAMETER_CONSTRAINTS[k]
       for k in ("dual", "fit_intercept", "intercept_scaling", "class_weight", "random_state",
                 "max_iter", "verbose", "n_jobs")},
    "tol": [Interval(numbers.Real, 0, None, closed="left")],
    "penalty": [StrOptions({"l2", "l1", "elasticnet"}), Hidden(StrOptions({"deprecated"}))],
    "Cs": [Interval(numbers.Integral, 1, None, closed="left"), "array-like"],
    "l1_ratios": ["array-like", None, Hidden(StrOptions({"warn"}))],
    "cv": ["cv_object"],
    "scoring": [StrOptions(set(get_scorer_names())), callable, None,
                Hidden(StrOptions({"warn"}))],
    "solver": [StrOptions({"auto", "cd", *SKLEARN_SOLVERS})],
    "refit": ["boolean"],
    "use_legacy_attributes": ["boolean", Hidden(StrOptions({"warn"}))],
    "grid": [StrOptions(set(GRIDS))],
    "min_ratio": [Interval(numbers.Real, 0, 1, closed="neither"), None],
    "store_paths": ["boolean"],
    "refit_rule": [StrOptions({"min", "1se"})],
    "relax": [Interval(numbers.Real, 0, 1, closed="both"), "array-like"],
    "fold_penalty": [StrOptions({"C", "lambda"})],
    **{k: PARAMETER_CONSTRAINTS[k]
       for k in ("penalty_factor", "lower_bounds", "upper_bounds", "multinomial_penalty")},
}
