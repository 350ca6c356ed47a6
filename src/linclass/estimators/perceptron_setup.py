"""The Perceptron's settings turned into what its training loop takes (:mod:`linclass.linear.perceptron`):
the weights of the updates, the starting weights, the stopping rule with early stopping's held-out
rows, and the warning when ``max_iter`` comes first.  Glue for
:class:`linclass.estimators.perceptron.Perceptron`; no mathematics here.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from linclass.linear.logistic.class_weights import weight_by_class
from linclass.linear.perceptron import rule as perceptron
from linclass.linear.perceptron import training

__all__ = ["start_weights", "stopping_rule", "update_weights", "warn_not_converged"]


def update_weights(data, class_weight):
    """The weight of each pattern's update (sample weight times class weight) and, for K > 2 classes
    with class weights, that of the push away from the wrongly predicted class (the sample weight
    alone: :mod:`linclass.linear.perceptron.rule`), else None."""
    weight = weight_by_class(data.y, data.classes, data.sample_weight, class_weight)
    if class_weight is None or data.classes.size == 2:
        return weight, None
    push = data.sample_weight if data.sample_weight is not None else np.ones(data.y.size)
    return weight, push


def start_weights(coef_init, intercept_init, previous, classes, n_basis: int):
    """Starting weights: ``coef_init`` / ``intercept_init``, else the previous fit's (warm start,
    same classes and shape), else None (zeros)."""
    rows = 1 if classes.size == 2 else classes.size
    if coef_init is None and intercept_init is None:
        if previous is not None and np.array_equal(previous[0], classes) and (
                previous[1].shape == (rows, n_basis)):
            return previous[1], previous[2]
        return None, None
    coef = np.zeros((rows, n_basis)) if coef_init is None else np.asarray(coef_init, dtype=np.float64)
    intercept = np.zeros(rows) if intercept_init is None else np.asarray(intercept_init, np.float64)
    if rows == 1 and coef.shape == (n_basis,):  # scikit-learn also takes a vector for two classes
        coef = coef[None, :]
    intercept = intercept.reshape(-1)
    if coef.shape != (rows, n_basis) or intercept.shape != (rows,):
        raise ValueError(f"coef_init must have shape ({rows}, {n_basis}) and intercept_init ({rows},) "
                         f"for {classes.size} classes and {n_basis} basis functions; got "
                         f"{np.shape(coef_init)} and {np.shape(intercept_init)}.")
    return coef, intercept


def stopping_rule(estimator, Phi, y, n_classes: int, weight, push, rng):
    """The stopping rule and, with early stopping, the training part of the rows:
    ``(rule, Phi, y, weight, push)``."""
    if not estimator.early_stopping:
        return training.StoppingRule(estimator.tol, estimator.n_iter_no_change), Phi, y, weight, push
    from sklearn.model_selection import StratifiedShuffleSplit

    seed = int(rng.integers(np.iinfo(np.int32).max))
    split = StratifiedShuffleSplit(1, test_size=estimator.validation_fraction, random_state=seed)
    try:
        train, held = next(split.split(np.zeros((y.size, 1)), y))
    except ValueError as exc:
        raise ValueError(f"early_stopping: validation_fraction={estimator.validation_fraction} cannot "
                         f"hold out every class ({exc}); use a larger fraction or more rows.") from None
    part = (lambda w, rows: None if w is None else w[rows])
    validation = perceptron.Patterns.build(Phi[held], y[held], n_classes, part(weight, held),
                                           bias=estimator.fit_intercept)
    rule = training.StoppingRule(estimator.tol, estimator.n_iter_no_change, validation)
    return rule, Phi[train], y[train], part(weight, train), part(push, train)


def warn_not_converged(estimator, result, max_iter: int, weighted: bool) -> None:
    """The ConvergenceWarning when ``max_iter`` epochs ran before the stopping rule held: with
    ``tol``, the objective (or validation score) still moved; with ``tol=None``, the last epoch still
    made mistakes (the data may not be separable in the basis)."""
    if estimator.tol is not None:
        watched = "validation accuracy" if estimator.early_stopping else "training objective"
        warnings.warn(
            f"Perceptron did not converge in max_iter={max_iter} epochs: the {watched} still "
            f"changed by more than tol={estimator.tol:g} within n_iter_no_change="
            f"{estimator.n_iter_no_change} epochs. Increase max_iter (or tol).",
            ConvergenceWarning, stacklevel=3,
        )
        return
    kept = "the pocket weights" if estimator.pocket else "the last weights"
    hint = (
        "a richer basis (e.g. basis='poly')"
        if estimator.pocket
        else "pocket=True to keep the weights with the fewest training errors, or a richer basis "
        "(e.g. basis='poly')"
    )
    warnings.warn(
        f"Perceptron did not converge in max_iter={max_iter} epochs: every epoch still "
        f"misclassified some training patterns ({result.mistakes[-1]} in the last one), and "
        f"{kept} misclassify {result.error:g} training samples"
        f"{' (total sample weight)' if weighted else ''}. The data may not be "
        f"linearly separable in this basis; try {hint}.",
        ConvergenceWarning,
        stacklevel=3,
    )
