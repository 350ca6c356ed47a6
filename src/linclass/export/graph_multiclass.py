"""The graphs of the multi-class schemes (:class:`~linclass.export.forms.OneVsRest`,
:class:`~linclass.export.forms.OneVsOne`) over two-class plans, computing what
:mod:`linclass.strategies.voting` and :mod:`linclass.estimators.multiclass` compute.  The
two-class models' scores are stacked, shape (n, n_models, 2), so that their decision values,
votes and probabilities are a few nodes whatever the number of models.

One-versus-one's probabilities couple the pairwise ones by Wu, Lin & Weng's least-squares method
(:func:`linclass.strategies.voting.couple_pairwise`): minimise :math:`p^TQp` subject to
:math:`\\sum_k p_k = 1`.  ONNX has no linear solver, so the graph eliminates the constraint,
:math:`p = c + Bq` with :math:`q = (p_1, \\dots, p_{K-1})`, :math:`B = (I; -1^T)`, :math:`c = e_K`,
and solves the :math:`(K-1)\\times(K-1)` normal equations :math:`B^TQB\\,q = -B^TQc` of every row by
Gauss-Jordan elimination, unrolled.  :math:`B^TQB` is positive definite exactly when the bordered
system of ``couple_pairwise`` is non-singular (it always is, see there), so the elimination needs no
pivoting.  :math:`Q` is linear in :math:`(r^2, (1-r)^2, r(1-r))` of the pairwise probabilities, so
the matrix and the right-hand side of every row are one product each.
"""

from __future__ import annotations

import numpy as np

from linclass.export import forms
from linclass.export.graph import (
    Heads,
    difference,
    features,
    log_softmax,
    positive,
    single_scores,
    softmax,
    symmetric,
)

__all__ = ["coupling_system", "scheme_heads"]

_TINY = np.finfo(np.float64).tiny  # the floor of couple_pairwise


def scheme_heads(ops, plan, x) -> Heads:
    """Label index and probabilities (or decision values) of a one-vs-rest / one-vs-one plan on raw
    rows ``x``."""
    x = features(ops, plan.steps, x)
    n_models = len(plan.members)
    stacked = ops.reshape(ops.concat([single_scores(ops, m, x) for m in plan.members]),
                          [-1, n_models, 2])
    d = ops.reshape(difference(ops, stacked, axis=2), [-1, n_models])  # (n, n_models)
    if isinstance(plan, forms.OneVsRest):
        return _one_vs_rest(ops, plan, stacked, d)
    return _one_vs_one(ops, plan, stacked, d)


def _own_proba(ops, stacked):
    """The probabilities of the single two-class model of a two-class scheme, shape (n, 2)."""
    return ops.reshape(softmax(ops, stacked, axis=2), [-1, 2])


def _second_class(ops, values, n_models: int):
    """Entry 1 of the last axis of (n, n_models, 2) ``values``, shape (n, n_models)."""
    return ops.reshape(ops.columns(values, 1, 2, axis=2), [-1, n_models])


def _one_vs_rest(ops, plan: forms.OneVsRest, stacked, d) -> Heads:
    """Scores :math:`y_k(x)`, the two-class decision values (two classes: :math:`(-y, y)`);
    probabilities :math:`P_k(k \\mid x)` normalised (two classes: the model's own)."""
    if plan.n_classes == 2:
        T = symmetric(ops, d)
        return Heads(ops.argmax(T), _own_proba(ops, stacked) if plan.proba else T)
    if not plan.proba:
        return Heads(ops.argmax(d), d)
    log_p = _second_class(ops, log_softmax(ops, stacked, axis=2), plan.n_classes)
    return Heads(ops.argmax(d), softmax(ops, log_p))


def _one_vs_one(ops, plan: forms.OneVsOne, stacked, d) -> Heads:
    """Votes, ties broken by the summed confidences (:func:`linclass.strategies.voting.ovo_scores`);
    coupled probabilities (two classes: the model's own)."""
    K, pairs = plan.n_classes, plan.pairs
    P = pairs.shape[0]
    wins, losses = np.zeros((P, K)), np.zeros((P, K))
    wins[np.arange(P), pairs[:, 1]] = 1.0  # a positive decision is a vote for j ...
    losses[np.arange(P), pairs[:, 0]] = 1.0  # ... a negative one a vote for i
    signs = ops.const(wins - losses)
    rules = [m.rule == "nonnegative" for m in plan.members]
    nonnegative = rules[0] if len(set(rules)) == 1 else ops.flag([rules])
    won = ops.to_double(positive(ops, d, nonnegative))
    votes = ops.add(ops.const(losses.sum(axis=0)), ops.matmul(won, signs))
    confidence = ops.matmul(d, signs)
    bonus = ops.div(confidence, ops.mul(ops.add(ops.abs(confidence), ops.const([1.0])),
                                        ops.const([3.0])))
    T = ops.add(votes, bonus)
    index = ops.argmax(T)
    if not plan.proba:
        return Heads(index, symmetric(ops, difference(ops, T)) if K == 2 else T)
    if K == 2:
        return Heads(index, _own_proba(ops, stacked))
    r = _second_class(ops, softmax(ops, stacked, axis=2), P)
    return Heads(index, _couple(ops, r, pairs, K))


def coupling_system(pairs: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """The constant maps from :math:`F = (r^2, (1-r)^2, r(1-r))` (n, 3 n_pairs) to the flattened
    :math:`B^TQB` (n, (K-1)^2) and to :math:`-B^TQc` (n, K-1) (module docstring).

    With :math:`r` the probability of the second class j of pair (i, j):
    :math:`Q_{ii} \\mathrel{+}= r^2`, :math:`Q_{jj} \\mathrel{+}= (1-r)^2`,
    :math:`Q_{ij} = Q_{ji} \\mathrel{-}= r(1-r)`."""
    K, P = n_classes, pairs.shape[0]
    G = np.zeros((3 * P, K * K))  # F -> Q, flattened row by row
    for m, (i, j) in enumerate(pairs):
        G[m, i * K + i] = 1.0
        G[P + m, j * K + j] = 1.0
        G[2 * P + m, i * K + j] = G[2 * P + m, j * K + i] = -1.0
    B = np.vstack([np.eye(K - 1), -np.ones((1, K - 1))])
    c = np.zeros(K)
    c[-1] = 1.0
    matrix = G @ np.kron(B, B)  # (B^T Q B)[u, v] = sum_ab B[a, u] Q[a, b] B[b, v]
    rhs = -G @ np.kron(B, c[:, None])  # (-B^T Q c)[u] = -sum_ab B[a, u] Q[a, b] c[b]
    return matrix, rhs


def _couple(ops, r, pairs: np.ndarray, K: int):
    """Coupled probabilities (n, K) from the pairwise ones ``r`` (n, n_pairs)."""
    m = K - 1
    to_matrix, to_rhs = coupling_system(pairs, K)
    one = ops.const([1.0])
    s = ops.sub(one, r)
    F = ops.concat([ops.mul(r, r), ops.mul(s, s), ops.mul(r, s)])
    system = ops.concat([ops.reshape(ops.matmul(F, ops.const(to_matrix)), [-1, m, m]),
                         ops.reshape(ops.matmul(F, ops.const(to_rhs)), [-1, m, 1])], axis=2)
    for k in range(m):  # Gauss-Jordan: clear column k in every row but k
        pivot_row = ops.columns(system, k, k + 1, axis=1)  # (n, 1, m + 1)
        pivot = ops.columns(pivot_row, k, k + 1, axis=2)  # (n, 1, 1)
        others = np.ones((1, m, 1))
        others[0, k, 0] = 0.0
        factor = ops.mul(ops.div(ops.columns(system, k, k + 1, axis=2), pivot), ops.const(others))
        system = ops.sub(system, ops.mul(factor, pivot_row))
    diagonal = ops.row_sum(ops.mul(ops.columns(system, 0, m, axis=2), ops.const(np.eye(m))), axis=2,
                           keepdims=0)
    q = ops.div(ops.reshape(ops.columns(system, m, m + 1, axis=2), [-1, m]), diagonal)
    p = ops.maximum(ops.concat([q, ops.sub(one, ops.row_sum(q))]), ops.const([_TINY]))
    return ops.div(p, ops.row_sum(p))
