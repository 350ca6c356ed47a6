"""When a penalised fit stops, and which columns it works on meanwhile: the certificate of a KKT point
(a duality gap, or two KKT points that agree) and the working sets grown by priority."""

from __future__ import annotations

import numpy as np

__all__ = ["CHECK_EVERY", "OBJECTIVE_SHARE", "Certificate", "Growth", "look_outside"]

_GAP_DECADES = 5  # how much tighter than tol the violation may be asked to be, for the gap's sake
_FLOOR = 1e-13    # and never below this, per unit of sample weight (the gradient's rounding)
OBJECTIVE_SHARE = 1e-2  # the objective's relative distance to the optimum asked for, per unit of tol


class Certificate:
    """When a point whose every optimality violation is within the current limit is close enough to
    the optimum, in objective.

    A violation bound alone does not bound the objective (:mod:`linclass.linear.logistic.penalised`, "Duality
    gap").  At each such point (a *KKT point*) the fit is done when

    1. the duality gap is at most :data:`OBJECTIVE_SHARE` ``* tol`` times the objective (a
       certificate: at the default ``tol=1e-6``, within 1e-8 of the optimal objective), or
    2. the objective fell by at most ``tol`` times itself since the previous KKT point, whose limit
       was at least ten times looser: the lasso's gap is first-order in the violation (about
       :math:`v\\lVert W\\rVert_1`) while the distance to the optimum is second-order, so on weakly
       penalised fits with large coefficients the gap stays pessimistic long after the objective has
       settled; two KKT points a decade apart that agree bound the remaining decrease (second
       order: a decade of violation is two of objective, so about ``tol / 100`` is left), or
    3. the limit is :data:`_GAP_DECADES` decades below ``tol``, or at :data:`_FLOOR` per unit of
       sample weight (rounding, not the fit, then limits the objective).

    Otherwise the limit drops to a tenth of the current violation (when the gap is within ``tol``
    of the objective, and so second-order in the violation, by the square root of the factor it is
    still too large, at least halved) and the fit goes on.

    ``tol`` bounds the violations; the objective is asked to be :data:`OBJECTIVE_SHARE` of it
    (two decades closer), as a smooth fit's final Newton step squares its gradient: with the gap
    at ``tol`` times the objective the elastic net stopped 1.5e-7 (text from the standard library,
    two classes, C = 10) and 5.4e-7 (its thirteen packages) above the optimum.  The gap converges
    about quadratically with proximal Newton, so the share costs about one more iteration.
    """

    def __init__(self, obj, tol: float):
        self.obj, self.tol = obj, tol
        self.floor = max(tol * 10.0 ** -_GAP_DECADES, _FLOOR) * obj.total
        self.gap = np.inf
        self.previous = None  # the objective at the previous KKT point

    def check(self, W, b, F: float, limit: float, violation: float,
              bare_scores=None) -> tuple[bool, float]:
        """``(done, limit)`` at a KKT point (objective ``F``, violations within ``limit``;
        ``bare_scores``: the scores at ``(W, 0)`` when known, which saves a product with X)."""
        if bare_scores is None:
            self.gap = self.obj.duality_gap(W, b, F)
        else:
            self.gap = self.obj.duality_gap(W, b, F, bare_scores=bare_scores)
        allowed = self.tol * max(F, np.finfo(float).tiny)
        settled = self.previous is not None and self.previous - F <= allowed
        self.previous = F
        wanted = OBJECTIVE_SHARE * allowed
        if self.gap <= wanted or settled or limit <= self.floor:
            return True, limit
        # a gap within tol of the objective is second order in the violation near the optimum: a
        # limit sqrt(gap / wanted) times smaller (at least halved) should close it; else a decade
        shrink = 0.1 if self.gap > allowed else min(0.5, max(0.1, np.sqrt(wanted / self.gap)))
        return False, max(shrink * min(limit, violation), self.floor)


_GROWTH_MIN = 64  # columns a working set grows by at least
CHECK_EVERY = 10  # iterations on a working set between checks of every column
_EARLY = 0.3      # look outside once the working set's violation is this far below the outside's


class Growth:
    """How a working set grows, and when the columns outside it are looked at.

    With an L1 part the set grows by priority, as celer and skglm grow theirs (Massias, Gramfort
    and Salmon 2018): the worst violators first, at most as many as the non-zero columns or
    :data:`_GROWTH_MIN`, so that it stays near the support instead of taking every column that
    violates at a poor early point; and the columns outside are looked at (one product with X)
    as soon as the violation on the set is :data:`_EARLY` times the largest one left outside at the
    last look, not only once the set is solved to ``tol``: each set is solved about as far as the
    columns it leaves out allow, and the set doubles in a few cheap rounds.  Without an L1 part
    every column is non-zero at the optimum, and every violator joins at once; so do they with
    ``priority=False`` (one row of coefficients, whose model grows by a column per violator, where
    glmnet's rule of taking every violator measured 3 to 4 times faster than the doubling rounds
    on sparse text)."""

    def __init__(self, pen, priority: bool = True) -> None:
        self.pen = pen
        self.sparse = priority and pen.sparse
        self.rest = np.inf  # the largest violation outside the set at the last look
        self.since = 0      # iterations since then

    def due(self, violation: float, limit: float) -> bool:
        """Whether to look outside the set now (its own largest violation is ``violation``)."""
        return violation <= max(limit, _EARLY * self.rest) or self.since >= CHECK_EVERY

    def iterated(self) -> None:
        self.since += 1

    def grow(self, W: np.ndarray, G: np.ndarray, ws: np.ndarray, threshold: float) -> np.ndarray:
        """The columns to add to ``ws``: those violating by more than ``threshold``, the worst
        first (with an L1 part, at most the budget above)."""
        v = self.pen.violation(W, G).max(axis=0) if G.size else np.zeros(W.shape[1])
        v[ws] = 0.0
        out = np.flatnonzero(v > threshold)
        budget = max(_GROWTH_MIN, int(np.count_nonzero(np.any(W != 0, axis=0))))
        if self.sparse and out.size > budget:
            out = out[np.argpartition(-v[out], budget - 1)[:budget]]
        v[out] = 0.0
        self.rest, self.since = float(v.max(initial=0.0)), 0
        return np.sort(out).astype(np.int64)


def look_outside(growth: Growth, certificate: Certificate, W, b, F: float, G, ws, limit: float,
                 violation: float, bare_scores=None):
    """A look at every column (``G``: the loss gradient of all of them, shape of W), when
    :meth:`Growth.due`.  Returns ``(converged, limit, outside, violation)``: the columns to add to the
    working set; at a KKT point (none to add and the set's ``violation`` within ``limit``) the
    certificate's verdict, the limit it asks for next, and the violation over every column."""
    outside = growth.grow(W, G, ws, limit)
    if outside.size or violation > limit:
        return False, limit, outside, violation
    violation = max(violation, float(growth.pen.violation(W, G).max()) if G.size else 0.0)
    converged, limit = certificate.check(W, b, F, limit, violation, bare_scores)
    if converged:
        return True, limit, outside, violation
    # the gap asks for a tighter point: the columns violating the new limit join
    return False, limit, growth.grow(W, G, ws, limit), violation


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
