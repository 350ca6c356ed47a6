"""A K-class penalised fit's point, as its two strategies (:mod:`.prox_newton_softmax`'s
:class:`~.prox_newton_softmax.ByFeature`, :mod:`.prox_newton_coupled`'s
:class:`~.prox_newton_coupled.Coupled`) hold it: coefficients W (K x d), intercepts b, scores S and
probabilities P.  What both answer alike to the loop of :func:`.prox_newton.newton_loop`, how both
move along a step (then to the penalty's best shift along the loss's flat direction, the common
shift of the K rows), and what both report when they stop short of their test.
"""

from __future__ import annotations

import numpy as np

from linclass.linear import compiled

__all__ = ["SoftmaxPoint", "softmax_exit", "softmax_move"]


class SoftmaxPoint:
    """What the K-class strategies (:class:`~.prox_newton_softmax.ByFeature`,
    :class:`~.prox_newton_coupled.Coupled`) answer alike: the point ``(W, b)`` the loop reads, and
    neither bare scores nor held products for the certificate (the K rows' scores move by a common
    term when W is shifted, so none are kept; the products at the point are the two-class fit's)."""

    def point(self):
        return self.W, self.b

    def bare_scores(self):
        return None

    def held_products(self):
        return None


def softmax_move(pen, W, b, S, ws, t: float, dW, db, Z, y, sw, P) -> float:
    """Move a softmax fit by ``t`` times the step ``(dW, db)`` on the working set ``ws`` (``Z``:
    the step's change of the scores), in place, then to the penalty's best shift along the loss's
    flat direction; returns the objective F there (P, the probabilities, refreshed)."""
    W[:, ws] += t * dW
    b += t * db
    S += t * Z
    if pen.l1 + pen.l2 > 0 or pen.bounded:  # the flat direction of the loss: the penalty's best
        W -= pen.best_shift(W)                 # shift
    return compiled.softmax_terms(S, y, sw, P) + pen.value(W)


def softmax_exit(pen, design, W, P, onehot, sw, intercept: bool, stalled: bool, tol: float,
                 N: float):
    """``(violation, G, converged)`` of a softmax fit that stopped short of its test: the largest
    optimality violation at W (the intercepts' too), the loss gradient G, and whether a fit that
    stalled while tightening for the gap still meets ``tol`` there."""
    V = (P - onehot) * sw
    G = design.gradient(V).T
    violation = max(float(pen.violation(W, G).max()) if G.size else 0.0,
                    float(np.abs(V.sum(axis=1)).max()) if intercept else 0.0)
    return violation, G, stalled and violation <= tol * N
