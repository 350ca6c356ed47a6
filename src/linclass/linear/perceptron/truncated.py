"""The perceptron rule with scikit-learn's penalties at every pattern visited: the L2 shrinkage and the
truncated L1 step with a cumulative penalty (Tsuruoka, Tsujii and Ananiadou 2009), scikit-learn's
``penalty='l2' | 'l1' | 'elasticnet'``.

With learning rate :math:`\\eta`, strength :math:`\\alpha` and mixing :math:`\\rho` (``l1_ratio``; 0 for
'l2', 1 for 'l1'), each visit of a pattern, after it is scored with the current weights :math:`w` (the
bias :math:`w_0` is never penalised), does

1. :math:`w \\leftarrow s\\,w` with :math:`s = \\max(0, 1 - (1-\\rho)\\eta\\alpha)` (the L2 part; 0 rather
   than a sign flip when :math:`(1-\\rho)\\eta\\alpha \\ge 1`, as scikit-learn does);
2. the perceptron update, when the pattern is misclassified (:mod:`linclass.linear.perceptron.rule`;
   a pattern of zero weight is visited, and makes no update);
3. :math:`u \\leftarrow u + \\delta`, :math:`\\delta = \\rho\\eta\\alpha`: the L1 penalty each weight could
   have received so far;
4. each weight moves towards 0 by what it has not yet received, without crossing it:
   :math:`w_j \\leftarrow \\max(0, w_j - (u + q_j))` for :math:`w_j > 0`,
   :math:`w_j \\leftarrow \\min(0, w_j + (u - q_j))` for :math:`w_j < 0`, and :math:`q_j` adds the change
   (the penalty :math:`w_j` has received, signed).

:math:`u` and :math:`q` start at 0 in every call of :func:`new_state` (each ``fit``, each
``partial_fit``), as in scikit-learn.  Steps 1 and 4 touch every weight at every visit, whatever the
pattern holds, so the loop is compiled (numba, :mod:`linclass.linear.compiled`'s settings) and runs
pattern by pattern, O(n_rows x n_basis) per visit as scikit-learn's; sparse patterns are densified a
block at a time.  Every visit counts (the shrinkage and the budget grow at patterns of zero weight
too, and their loss counts in the objective that ``tol`` reads), so the patterns are built with
``keep_all``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numba import njit

from linclass.linear.compiled.columns import JIT
from linclass.linear.perceptron.rule import Patterns

__all__ = ["PenaltyState", "new_state", "run_epoch_penalised"]

_SPARSE_ROWS = 1 << 17  # entries of a densified block of sparse patterns


@dataclass(eq=False)
class PenaltyState:
    """What the penalty carries from one visit to the next within a call: :math:`u` and :math:`q`
    (of the shape of the weights without the bias)."""

    u: float
    q: np.ndarray


def new_state(W: np.ndarray) -> PenaltyState:
    """The state at the start of a call: nothing paid, nothing owed (``W`` the augmented weights)."""
    return PenaltyState(0.0, np.zeros_like(W[:, 1:]))


@njit(**JIT)
def _visits(Z, rows, y, threshold, pull, push, W, q, u, s, delta, eta, alpha, l1_ratio, bias, binary,
            objective):
    """Visit ``Z[rows[i]]`` for i in order, updating W (bias in column 0) and q in place; returns
    (updates made, objective summed over the visits, u)."""
    n_rows, width = W.shape
    made, total = 0, 0.0
    scores = np.empty(n_rows)
    for i in range(rows.shape[0]):
        k = rows[i]
        if objective:  # the penalty at the visit, before its steps
            sq, ab = 0.0, 0.0
            for r in range(n_rows):
                for j in range(1, width):
                    sq += W[r, j] * W[r, j]
                    ab += abs(W[r, j])
            total += alpha * ((1.0 - l1_ratio) * 0.5 * sq + l1_ratio * ab)
        for r in range(n_rows):
            a = 0.0
            for j in range(width):
                a += W[r, j] * Z[k, j]
            scores[r] = a
        t, p = -1, -1  # the classes pulled and pushed by the update (p == -1: none)
        if binary:
            if scores[0] < threshold[k]:  # z_k = t_k (1, phi_k): w^T z_k below its threshold
                total -= scores[0]
                t = 0
        else:
            best = 0
            for r in range(1, n_rows):
                if scores[r] > scores[best]:
                    best = r
            if best != y[k]:
                total += scores[best] - scores[y[k]]
                t, p = y[k], best
        if s != 1.0:  # step 1
            for r in range(n_rows):
                for j in range(1, width):
                    W[r, j] *= s
        if t >= 0 and (pull[k] > 0.0 or push[k] > 0.0):  # step 2
            made += 1
            step = eta * pull[k]
            for j in range(1 if not bias else 0, width):
                W[t, j] += step * Z[k, j]
            if p >= 0:
                back = eta * push[k]
                for j in range(1 if not bias else 0, width):
                    W[p, j] -= back * Z[k, j]
        if delta > 0.0:  # steps 3 and 4
            u += delta
            for r in range(n_rows):
                for j in range(1, width):
                    w = W[r, j]
                    if w > 0.0:
                        new = max(0.0, w - (u + q[r, j - 1]))
                    elif w < 0.0:
                        new = min(0.0, w + (u - q[r, j - 1]))
                    else:
                        continue
                    q[r, j - 1] += new - w
                    W[r, j] = new
    return made, total, u


def run_epoch_penalised(P: Patterns, W: np.ndarray, state: PenaltyState, order=None, *, eta: float = 1.0,
                        alpha: float = 0.0, l1_ratio: float = 0.0,
                        objective: bool = True) -> tuple[int, float]:
    """One pass of the penalised perceptron rule (see the module docstring), updating the augmented
    weights ``W`` (bias in column 0) and ``state`` in place.

    Parameters
    ----------
    P : Patterns, built with ``keep_all=True``
    W : ndarray of shape (1, 1 + n_basis) (two classes) or (n_classes, 1 + n_basis)
    state : PenaltyState (from :func:`new_state` at the start of the call)
    order : ndarray or None
        Positions in ``P.Z`` in the order to visit them (None: stored order).
    eta, alpha, l1_ratio : float
        Learning rate, penalty strength and the L1 share of the penalty.
    objective : bool
        Whether to add the penalty at each visit to the returned objective (only ``tol`` and the
        verbose report read it).

    Returns
    -------
    (int, float)
        The updates made, and the epoch's objective summed over the visits as scikit-learn's
        stopping rule reads it: each pattern's perceptron criterion at its visit (unweighted) plus
        :math:`\\alpha((1-\\rho)\\tfrac12\\lVert w\\rVert^2 + \\rho\\lVert w\\rVert_1)` at each visit.
    """
    s = max(0.0, 1.0 - (1.0 - l1_ratio) * eta * alpha)
    delta = l1_ratio * eta * alpha
    n = P.Z.shape[0]
    order = np.arange(n) if order is None else np.asarray(order, dtype=np.intp)
    y = np.ascontiguousarray(P.y, dtype=np.intp)
    binary = P.threshold is not None
    threshold = P.threshold if binary else np.zeros(0)
    pull = np.ones(n) if P.weight is None else np.ascontiguousarray(P.weight, dtype=np.float64)
    push = pull if P.push is None else np.ascontiguousarray(P.push, dtype=np.float64)
    settings = (s, delta, float(eta), float(alpha), float(l1_ratio), bool(P.bias), binary, bool(objective))
    if not sp.issparse(P.Z):
        made, total, state.u = _visits(np.ascontiguousarray(P.Z, dtype=np.float64), order, y, threshold,
                                       pull, push, W, state.q, state.u, *settings)
        return made, total
    made, total = 0, 0.0
    step = max(_SPARSE_ROWS // P.Z.shape[1], 1)
    for start in range(0, order.size, step):  # a block of patterns densified at a time
        rows = order[start: start + step]
        block = P.Z[rows].toarray()
        got, cost, state.u = _visits(block, np.arange(rows.size), y[rows], threshold[rows] if binary else
                                     threshold, pull[rows], push[rows], W, state.q, state.u, *settings)
        made, total = made + got, total + cost
    return made, total
