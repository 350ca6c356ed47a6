"""The perceptron rule with scikit-learn's penalties at every pattern visited: the L2 shrinkage and the
truncated L1 step with a cumulative penalty (Tsuruoka, Tsujii and Ananiadou 2009), scikit-learn's
``penalty='l1' | 'elasticnet'`` (and ``'l2'`` where :mod:`linclass.linear.perceptron.rule`'s scaled form
does not apply).

With learning rate :math:`\\eta`, strength :math:`\\alpha` and mixing :math:`\\rho` (``l1_ratio``), each
visit of a pattern, after it is scored with the current weights :math:`w` (the bias :math:`w_0` is
never penalised), does

1. :math:`w \\leftarrow s\\,w` with :math:`s = \\max(0, 1 - (1-\\rho)\\eta\\alpha)` (the L2 part; 0 rather
   than a sign flip when :math:`(1-\\rho)\\eta\\alpha \\ge 1`, as scikit-learn does);
2. the perceptron update, when the pattern is misclassified (:mod:`linclass.linear.perceptron.rule`);
3. :math:`u \\leftarrow u + \\delta`, :math:`\\delta = \\rho\\eta\\alpha`: the L1 penalty each weight could
   have received so far;
4. each weight moves towards 0 by what it has not yet received, without crossing it:
   :math:`w_j \\leftarrow \\max(0, w_j - (u + q_j))` for :math:`w_j > 0`,
   :math:`w_j \\leftarrow \\min(0, w_j + (u - q_j))` for :math:`w_j < 0`, and :math:`q_j` adds the change
   (the penalty :math:`w_j` has received, signed).

:math:`u` and :math:`q` start at 0 in every call of :func:`new_state` (each ``fit``, each
``partial_fit``), as in scikit-learn.

**Between mistakes the path has a closed form.**  After any visit, every non-zero weight has received
the whole budget (:math:`q_j = -\\mathrm{sign}(w_j)\\,u`: step 4 leaves it there unless it clips), so over
the next :math:`k` visits without a mistake a non-zero weight follows
:math:`|w_j| \\leftarrow s|w_j| - \\delta` until it reaches 0:

.. math:: |w_j|^{(k)} = \\max\\big(0,\\; s^k|w_j| - \\delta\\,g_k\\big), \\qquad g_k = \\sum_{i<k} s^i,

and a zero weight stays 0 (its unpaid budget :math:`u + q_j` grows; the next update that moves it pays
it at once).  So the weights at each of the next :math:`m` visits form one (m, n_rows, n_basis) array:
a block of patterns is scored by one elementwise product, the state is advanced in closed form to the
first mistake, whose visit is applied as above, and the rest of the block is scored again.  The
sequence of updates is that of the per-pattern loop; only summation orders differ.

Every visit counts (the shrinkage and the budget grow at patterns of zero weight too, and their loss
counts in the objective that ``tol`` reads), so the patterns are built with ``keep_all``.  Sparse
patterns are scored block by block as dense rows: the penalty touches every weight at every visit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from linclass.linear.perceptron.rule import Patterns, _block_bounds, _next_block

__all__ = ["PenaltyState", "new_state", "run_epoch_penalised"]


@dataclass(eq=False)
class PenaltyState:
    """What the penalty carries from one visit to the next within a call: :math:`u` and :math:`q`
    (of the shape of the weights without the bias)."""

    u: float
    q: np.ndarray


def new_state(W: np.ndarray) -> PenaltyState:
    """The state at the start of a call: nothing paid, nothing owed (``W`` the augmented weights)."""
    return PenaltyState(0.0, np.zeros_like(W[:, 1:]))


def _magnitudes(V: np.ndarray, steps: int, powers: np.ndarray, sums: np.ndarray, delta: float):
    """:math:`s^i|w| - \\delta g_i` for i = 0 .. steps: shape (steps + 1, n_rows, n_basis) (not yet
    clipped at 0; zero weights are marked separately)."""
    return powers[: steps + 1, None, None] * np.abs(V) - delta * sums[: steps + 1, None, None]


def _advance(V: np.ndarray, state: PenaltyState, A: np.ndarray, k: int, s: float, delta: float):
    """Move the weights ``V`` (in place) and the state over ``k`` visits without a mistake, from the
    magnitudes ``A`` of :func:`_magnitudes`."""
    if k == 0:
        return
    sign = np.sign(V)
    alive = (A[k] > 0) & (sign != 0)
    clipped = (sign != 0) & ~alive
    if np.any(clipped):
        # the first visit at which the weight reaches 0 pays what it had left, s |w| before that visit
        tau = np.argmax(A[1: k + 1] <= 0, axis=0) + 1
        before = np.take_along_axis(A, (tau - 1)[None], axis=0)[0]
        state.q[clipped] = -sign[clipped] * (state.u + (tau[clipped] - 1) * delta + s * before[clipped])
    state.u += k * delta
    state.q[alive] = -sign[alive] * state.u
    V[...] = np.where(alive, sign * A[k], 0.0)


def _truncate(V: np.ndarray, state: PenaltyState) -> None:
    """Step 4 (in place): each non-zero weight moves towards 0 by its unpaid budget, not past 0."""
    sign = np.sign(V)
    new = sign * np.maximum(0.0, np.abs(V) - (state.u + sign * state.q))
    state.q += new - V
    V[...] = new


def _penalty_at(V: np.ndarray, alpha: float, l1_ratio: float) -> float:
    """:math:`\\alpha((1-\\rho)\\tfrac12\\lVert w\\rVert^2 + \\rho\\lVert w\\rVert_1)` of one visit."""
    flat = V.reshape(-1)
    return alpha * ((1.0 - l1_ratio) * 0.5 * float(flat @ flat) + l1_ratio * float(np.abs(flat).sum()))


def _visit(V, b, state, z, pull, push, t, p, rule) -> None:
    """One visit's steps 1-4 (in place); ``p`` is None when the pattern makes no update, ``t`` None
    for two classes (``z`` is then :math:`t_n(1, \\phi_n)`)."""
    if rule.s != 1.0:
        V *= rule.s
    if p is not None:
        step = rule.eta * pull
        if t is None:
            V[0] += step * z[1:]
            if rule.bias:
                b[0] += step * z[0]
        else:
            back = rule.eta * push
            V[t] += step * z[1:]
            V[p] -= back * z[1:]
            if rule.bias:
                b[t] += step * z[0]
                b[p] -= back * z[0]
    if rule.delta:
        state.u += rule.delta
        _truncate(V, state)


def run_epoch_penalised(P: Patterns, W: np.ndarray, state: PenaltyState, order=None, *, eta: float = 1.0,
                        alpha: float = 0.0, l1_ratio: float = 0.0,
                        objective: bool = True) -> tuple[int, float]:
    """One pass of the penalised perceptron rule (see the module docstring), updating the augmented
    weights ``W`` (bias in column 0) and ``state`` in place.

    Where mistakes are sparse the patterns are scanned in the closed form; where they come every few
    patterns, visiting each pattern costs less, and the pass switches between the two as it goes.

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
    rule = _Rule(max(0.0, 1.0 - (1.0 - l1_ratio) * eta * alpha), l1_ratio * eta * alpha, eta, alpha,
                 l1_ratio, P.bias, objective)
    Z, n = P.Z, P.Z.shape[0] if order is None else order.size
    b, V = W[:, 0].copy(), W[:, 1:].copy()
    lo, hi = _block_bounds(W.shape[1], W.shape[0])
    hi = max(min(hi, (1 << 17) // (W.shape[1] * W.shape[0])), lo)  # the (m, rows, d) weights stay small
    powers = np.power(rule.s, np.arange(hi + 1, dtype=np.float64))
    sums = np.concatenate([[0.0], np.cumsum(powers[:-1])])
    size, pos, mistakes, total, dense = lo, 0, 0, 0.0, False
    while pos < n:
        end = min(pos + size, n)
        idx = slice(pos, end) if order is None else order[pos:end]
        R = Z[idx]
        block = _Block(R.toarray() if sp.issparse(R) else R, P.y[idx],
                       None if P.threshold is None else P.threshold[idx],
                       None if P.weight is None else P.weight[idx],
                       None if P.push is None else P.push[idx])
        start, found = 0, 0
        while start < block.length:
            if dense:  # a window of visits one by one; back to scanning when it was clean enough
                stop = min(start + _WINDOW, block.length)
                made, cost = _visit_each(block, start, stop, V, b, state, rule)
                dense = made * _GAP > stop - start
            else:  # the closed form up to the next update; visits one by one when updates crowd
                stop, made, cost = _scan_to_update(block, start, V, b, state, rule, powers, sums)
                dense = made and stop - start < _GAP // 4
            found += made
            total += cost
            start = stop
        mistakes += found
        size = _next_block(size, block.length, found, lo, hi)
        pos = end
    W[:, 0], W[:, 1:] = b, V
    return mistakes, total


_WINDOW = 64  # visits handled one by one before the scan is tried again
_GAP = 32  # updates closer than this (on average) are cheaper one visit at a time


@dataclass(frozen=True)
class _Rule:
    s: float  # the L2 shrinkage factor
    delta: float  # the L1 budget per visit
    eta: float
    alpha: float
    l1_ratio: float
    bias: bool
    objective: bool


@dataclass(frozen=True, eq=False)
class _Block:
    """Patterns of a block as dense rows, with their labels, thresholds and weights."""

    R: np.ndarray
    y: np.ndarray
    thresholds: np.ndarray | None  # two classes
    pull: np.ndarray | None
    push: np.ndarray | None

    @property
    def length(self) -> int:
        return self.R.shape[0]

    def acting(self, k: int) -> bool:
        """Whether pattern k updates when it is misclassified (it has a weight)."""
        return self.pull is None or self.pull[k] > 0 or (self.push is not None and self.push[k] > 0)

    def weights(self, k: int) -> tuple[float, float]:
        pull = 1.0 if self.pull is None else float(self.pull[k])
        return pull, pull if self.push is None else float(self.push[k])


def _visit_each(block: _Block, start: int, stop: int, V, b, state, rule: _Rule) -> tuple[int, float]:
    """Visits ``start .. stop - 1`` of a block one by one: (updates made, objective summed)."""
    found, total = 0, 0.0
    for k in range(start, stop):
        z = block.R[k]
        if rule.objective:
            total += _penalty_at(V, rule.alpha, rule.l1_ratio)
        t = p = None
        if block.thresholds is not None:
            a = float(V[0] @ z[1:]) + z[0] * b[0]
            if a < block.thresholds[k]:
                total -= a
                p = 0
        else:
            S = V @ z[1:] + abs(z[0]) * b
            guess = int(S.argmax())
            if guess != block.y[k]:
                total += float(S[guess] - S[block.y[k]])
                t, p = int(block.y[k]), guess
        if p is not None and not block.acting(k):
            t = p = None  # a pattern of zero weight: its visit shrinks, it does not update
        found += p is not None
        _visit(V, b, state, z, *block.weights(k), t, p, rule)
    return found, total


def _scan_to_update(block: _Block, start: int, V, b, state, rule: _Rule, powers, sums):
    """Score the rest of the block with the weights of each visit (the closed form), advance to the
    first visit that updates and apply it.  Returns (the position after it, 1 or 0 updates, objective
    summed over the visits passed)."""
    m = block.length - start
    A = _magnitudes(V, m, powers, sums, rule.delta)
    at_visit = np.sign(V) * np.maximum(A[:m], 0.0)  # the weights each visit scores with
    rows, labels = block.R[start:], block.y[start:]
    if block.thresholds is not None:
        score = np.einsum("ij,ij->i", at_visit[:, 0, :], rows[:, 1:]) + rows[:, 0] * b[0]
        wrong = score < block.thresholds[start:]
        cost = np.where(wrong, -score, 0.0)
    else:
        S = np.einsum("irj,ij->ir", at_visit, rows[:, 1:]) + np.abs(rows[:, :1]) * b
        pred = S.argmax(axis=1)
        wrong = pred != labels
        cost = np.where(wrong, S[np.arange(m), pred] - S[np.arange(m), labels], 0.0)
    if block.pull is not None:
        push = block.pull if block.push is None else block.push
        wrong = wrong & ((block.pull[start:] > 0) | (push[start:] > 0))
    i = int(wrong.argmax()) if wrong.any() else m  # the first visit that updates
    seen = min(i + 1, m)
    total = float(cost[:seen].sum())
    if rule.objective:
        visits = at_visit[:seen].reshape(seen, -1)
        total += rule.alpha * ((1.0 - rule.l1_ratio) * 0.5 * float(np.einsum("ij,ij->", visits, visits))
                               + rule.l1_ratio * float(np.abs(visits).sum()))
    _advance(V, state, A, i, rule.s, rule.delta)
    if i == m:
        return block.length, 0, total
    k = start + i
    t, p = (None, 0) if block.thresholds is not None else (int(labels[i]), int(pred[i]))
    _visit(V, b, state, block.R[k], *block.weights(k), t, p, rule)
    return k + 1, 1, total
