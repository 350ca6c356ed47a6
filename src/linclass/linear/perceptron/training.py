"""The perceptron's training loop: epochs of :func:`linclass.linear.perceptron.rule.run_epoch` (with a
penalty, or where every visit counts: :func:`linclass.linear.perceptron.truncated.run_epoch_penalised`)
until the stopping rule holds, with the pocket variant and scikit-learn's stopping options
(:class:`StoppingRule`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from linclass.core.threads import one_blas_thread
from linclass.linear.perceptron.rule import Patterns, run_epoch

__all__ = ["PerceptronFit", "StoppingRule", "make_rng", "train"]


@dataclass(frozen=True, eq=False)
class PerceptronFit:
    """The outcome of :func:`train`.

    Attributes
    ----------
    coef : ndarray of shape (1, n_basis) (two classes) or (n_classes, n_basis)
    intercept : ndarray of shape (1,) or (n_classes,)
        Weight of the bias component :math:`\\phi_0 = 1`.
    mistakes : ndarray of shape (n_epochs,), intp
        Updates made (misclassified patterns met) in each epoch: the training curve.
    converged : bool
        Whether training stopped by its rule (an epoch without mistake; or, with ``tol``, no progress
        for ``n_iter_no_change`` epochs) rather than at ``max_epochs``.
    error : float
        Training errors (total sample weight of misclassified patterns) of the returned weights.
    losses : ndarray of shape (n_epochs,)
        The mean objective of each epoch (see :class:`StoppingRule`).
    """

    coef: np.ndarray
    intercept: np.ndarray
    mistakes: np.ndarray
    converged: bool
    error: float
    losses: np.ndarray | None = None


@dataclass(frozen=True)
class StoppingRule:
    """When training stops besides ``max_epochs`` (scikit-learn's ``tol`` / ``n_iter_no_change`` /
    ``early_stopping``).

    ``tol=None`` (Rosenblatt's rule): stop after the first epoch without a mistake (without a
    penalty, which would still move the weights).  With ``tol`` (scikit-learn's rule, whose epochs
    run on after a clean one): stop once ``n_iter_no_change`` epochs in a row fail to improve on the
    best so far by more than ``tol`` -- the epoch's mean objective (perceptron criterion per pattern
    visited, plus the penalty at each visit) must fall below ``best - tol`` or, with a ``validation``
    set (early stopping), the validation accuracy must rise above ``best + tol``.

    Attributes
    ----------
    tol : float or None
    n_iter_no_change : int
    validation : Patterns or None
        The held-out patterns of early stopping.
    """

    tol: float | None = None
    n_iter_no_change: int = 5
    validation: Patterns | None = None


def make_rng(random_state) -> np.random.Generator:
    """A numpy Generator from None, an int, a Generator (used as is) or a legacy RandomState."""
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(np.iinfo(np.int32).max))
    return np.random.default_rng(random_state)


def train(
    Phi: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    sample_weight: np.ndarray | None = None,
    *,
    coef: np.ndarray | None = None,
    intercept: np.ndarray | None = None,
    max_epochs: int = 1000,
    shuffle: bool = True,
    rng: np.random.Generator | None = None,
    pocket: bool = False,
    eta: float = 1.0,
    alpha: float = 0.0,
    l1_ratio: float = 0.0,
    bias: bool = True,
    stopping: StoppingRule | None = None,
    report=None,
    push: np.ndarray | None = None,
) -> PerceptronFit:
    """Run the perceptron rule until its stopping rule holds or ``max_epochs`` epochs have run.

    Parameters
    ----------
    Phi : ndarray of shape (n_samples, n_basis), or scipy.sparse
    y : ndarray of shape (n_samples,), intp, class indices in [0, n_classes)
    n_classes : int >= 2
    sample_weight : ndarray of shape (n_samples,) or None
        Each update is multiplied by the pattern's weight (for K > 2, the pull towards its class;
        sample weight times class weight); zero-weight patterns never update.
    coef, intercept : starting weights (default zero), shapes as in :class:`PerceptronFit`; not modified
    max_epochs : int
    shuffle : bool
        Visit the patterns in the order ``rng.permutation(n_samples)``, drawn anew each epoch (else in
        the order given).
    rng : numpy Generator (needed when shuffle is True)
    pocket : bool
        The pocket algorithm: return, among the starting weights and the weights after each epoch, the
        first with the fewest (weighted) training errors, each counted with one vectorised pass.
    eta : float
        Learning rate (1: Rosenblatt's rule).
    alpha : float
        Penalty strength (0: none).
    l1_ratio : float
        The L1 share of the penalty (0: L2, whose weights shrink by :math:`1-\\eta\\alpha` per
        visit; 1: L1, the truncated rule; :mod:`linclass.linear.perceptron.truncated`).
    bias : bool
        Learn the bias :math:`w_0` (else it stays at its start, zero).
    stopping : StoppingRule or None
        None: Rosenblatt's rule.
    report : callable or None
        ``report(epoch, mistakes, loss)`` after each epoch (verbose output).
    push : ndarray of shape (n_samples,) or None
        K > 2 with class weights: the weight of the push away from the wrongly predicted class (the
        sample weight alone; see :mod:`linclass.linear.perceptron.rule`).

    Returns
    -------
    PerceptronFit
    """
    # thousands of small products in sequence: BLAS threads only wait on each other (and stall
    # badly when another process holds a core), so the rule runs single-threaded
    with one_blas_thread():
        return _train(Phi, y, n_classes, sample_weight, coef, intercept, max_epochs, shuffle, rng, pocket,
                      eta, alpha, l1_ratio, bias, stopping or StoppingRule(), report, push)


def _every_visit_counts(sample_weight, alpha, rule) -> bool:
    """Whether the epochs need the rule in which every visit counts
    (:mod:`linclass.linear.perceptron.truncated`): a penalty, which moves the weights at every visit,
    or patterns of zero weight whose loss ``tol`` reads."""
    zero_weights = sample_weight is not None and not np.all(sample_weight > 0)
    return bool(alpha) or (zero_weights and rule.tol is not None)


def _train(Phi, y, n_classes, sample_weight, coef, intercept, max_epochs, shuffle, rng, pocket, eta,
           alpha, l1_ratio, bias, rule, report, push):
    general = _every_visit_counts(sample_weight, alpha, rule)
    if general:  # the compiled rule (numba, imported on first use)
        from linclass.linear.perceptron.truncated import new_state, run_epoch_penalised
    P = Patterns.build(Phi, y, n_classes, sample_weight, bias=bias, push=push, keep_all=general)
    W = np.zeros((1 if n_classes == 2 else n_classes, P.Z.shape[1]))
    if coef is not None:
        W[:, 0], W[:, 1:] = intercept, coef
    state = new_state(W) if general else None
    best = (P.error(W), W.copy()) if pocket else None
    mistakes, losses, held_out, stopped = [], [], [], False
    for epoch in range(max_epochs):
        order = P.visit_order(rng.permutation(P.n_samples)) if shuffle else None
        if general:
            made, objective = run_epoch_penalised(
                P, W, state, order, eta=eta, alpha=alpha, l1_ratio=l1_ratio,
                objective=rule.tol is not None or report is not None)
        else:
            made, objective = run_epoch(P, W, order, eta=eta)
        loss = objective / P.Z.shape[0]  # scikit-learn's mean objective over the patterns visited
        mistakes.append(made)
        losses.append(loss)
        if report is not None:
            report(epoch + 1, made, loss)
        if made == 0 and not alpha and rule.validation is None and rule.tol is None:
            stopped = True  # nothing can change any more (Rosenblatt's rule)
            break
        if pocket:
            error = P.error(W)
            if error < best[0]:
                best = (error, W.copy())
        if rule.validation is not None:
            V = rule.validation
            held_out.append(1.0 - V.error(W) / (V.Z.shape[0] if V.weight is None else V.weight.sum()))
            if _no_progress(held_out, rule, higher=True):
                stopped = True
                break
        elif _no_progress(losses, rule, higher=False):
            stopped = True
            break
    converged = stopped
    if mistakes[-1] == 0 and not alpha:
        error = 0.0
    elif pocket:
        error, W = best
    else:
        error = P.error(W)
    return PerceptronFit(
        np.ascontiguousarray(W[:, 1:]), W[:, 0].copy(), np.asarray(mistakes, dtype=np.intp), converged,
        error, np.asarray(losses),
    )


def _no_progress(history: list, rule: StoppingRule, *, higher: bool) -> bool:
    """scikit-learn's rule: the last ``n_iter_no_change`` epochs each failed to beat the best value
    seen before them by more than ``tol`` (higher is better for validation scores, lower for the
    training objective)."""
    if rule.tol is None and rule.validation is None:
        return False
    tol = -np.inf if rule.tol is None else rule.tol
    best, misses = (-np.inf if higher else np.inf), 0
    for value in history:
        improved = value > best + tol if higher else value < best - tol
        misses = 0 if improved else misses + 1
        best = max(best, value) if higher else min(best, value)
    return misses >= rule.n_iter_no_change
