"""The profile penalised likelihood of Firth's logistic regression, and the ends of its intervals.

For one parameter :math:`\\beta_j` the profile is

.. math::  P_j(t) = \\max_{\\theta:\\ \\theta_j = t} \\ell^*(\\theta), \\qquad
           D_j(t) = 2\\,[\\ell^*(\\hat\\theta) - P_j(t)],

and the :math:`1-\\alpha` interval is :math:`\\{t: D_j(t) \\le \\chi^2_{1,1-\\alpha}\\}` (Heinze &
Schemper 2002, as logistf reports it).  :math:`\\ell^*` is not concave: under separation, with one
coefficient held far out, the others can balance the rows near the boundary in several ways, each a
local maximum, and which one is highest changes along the profile.  A Newton fit warm-started from
the previous point follows one of them and overstates :math:`D_j`, so the interval comes out too
narrow.  Hence :class:`Profile` computes each :math:`D_j(t)` as the best local maximum
(:func:`linclass.linear.firth.likelihood.maximise`, all starts at once) from

* :math:`\\hat\\theta`, and the local maxima kept at the nearest point computed on either side and at
  the nearest checked one (continued to :math:`t` as they stand, and scaled along the ray through
  the origin when :math:`t` is further out);
* at checked points (where :meth:`Profile.bound` must be sure, and at :math:`t = 0` for the
  likelihood-ratio test), a fixed quasi-random (Halton) design of ``n_starts`` starts in a box
  around :math:`\\hat\\theta` that grows with :math:`|t - \\hat\\theta_j|`.  A checked point that finds
  a higher maximum than was known there makes every unchecked point be computed again.  With
  ``n_starts=0`` (data without separation, see
  :func:`linclass.linear.firth.inference.n_starts`) there is nothing to check with, and the
  profile is the continued maximum, as logistf computes it.

Each maximum also gives the profile's slope and its path (the envelope theorem and the implicit
function theorem at a constrained maximum): with :math:`g` the gradient and :math:`H` the Hessian of
:math:`\\ell^*` there, :math:`f` the free parameters,

.. math::  P_j'(t) = g_j, \\qquad \\frac{d\\theta_f}{dt} = -H_{ff}^{-1}H_{fj},

so the maximum at a nearby :math:`t` starts from the tangent's prediction (one or two Newton steps
instead of four or five), and the ends are found by Newton's method on :math:`D_j(t) - q` with
:math:`D_j' = -2g_j`, kept inside the bracket (a bisection where a Newton step would leave it).
Without quasi-random starts (``n_starts=0``) the maximum at :math:`t` is sought from the tangent
of the nearest point alone, the others only when that fails.

:meth:`Profile.bound` scans outwards in doubling steps of the standard error to a point with
:math:`D_j \\ge q`, finds the root between the last point inside and that one, then checks
the root and the point twice as far from the estimate (a profile that dips back below :math:`q`
further out); a checked point that turns out inside moves the search outwards from it.  The end
is the outermost crossing found, infinite where :math:`D_j` stays below :math:`q` for 60
doublings.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import qmc

from linclass.linear.firth.likelihood import maximise

__all__ = ["Profile"]

_EXPANSIONS = 60  # doublings of the first step before an end is declared infinite
_ROUNDS = 20  # checks of a bound that find it inside before the search gives up
_KEEP = 6  # local maxima kept per profile point
_MARGIN = 8.0  # ... within this of the best (a lower one cannot overtake it nearby)
_BEYOND = (2.0,)  # checked points past an end, as multiples of its distance from the estimate
_INSIDE = 1e-6  # how far below the quantile a checked point must be to move an end outwards
_ROOT_STEPS = 100  # Newton / bisection steps of a root before the last one is taken


class Profile:
    """The profile deviance :math:`D_j(t)` of one parameter, by a multi-start search (see the
    module docstring).

    Parameters
    ----------
    problem : PenalisedLikelihood
    theta : ndarray of shape (p,)
        The penalised estimate :math:`\\hat\\theta`.
    j : int
        The profiled parameter (its index in ``theta``).
    scale : ndarray of shape (p,)
        A scale for each parameter (standard errors): the first step, and the exploration box.
    n_starts : int
        Quasi-random starts at each scanning and checking point.
    """

    def __init__(self, problem, theta, j: int, scale, n_starts: int):
        self.problem, self.j = problem, j
        self.theta = np.asarray(theta, dtype=np.float64)
        self.best = problem.value(self.theta)
        self.scale = np.asarray(scale, dtype=np.float64)
        self.free = np.ones(self.theta.size, dtype=bool)
        self.free[j] = False
        self.maxima = {float(self.theta[j]): [(self.best, self.theta.copy())]}
        # the slope g_j of the profile and its tangent d theta / dt at the best maximum of a point
        # (at the estimate: slope 0, the tangent formed when first asked for)
        self.slopes = {}
        self.explored = {float(self.theta[j])}
        m = int(self.free.sum())
        self.design = (qmc.Halton(m, scramble=True, seed=0).random(n_starts) * 2.0 - 1.0
                       if m and n_starts else np.zeros((0, m)))

    def deviance(self, t: float, explore: bool = False, refresh: bool = False) -> float:
        """:math:`D_j(t)`: the best of the local maxima from every start (``explore``: the
        quasi-random ones too; ``refresh``: again, from the maxima found since)."""
        t = float(t)
        if t in self.maxima and not refresh and (not explore or t in self.explored):
            return 2.0 * (self.best - self.maxima[t][0][0])
        found = list(self.maxima.get(t, []))
        result = None
        start = None if self.design.size else self._tangent_start(t)
        if start is not None:  # no quasi-random starts: the nearest point's tangent alone
            result = maximise(self.problem, start[None, :], self.free, with_parts=True)
            if not (result[2][0] and np.isfinite(result[1][0])):
                result = None  # it failed: every start
        if result is None:
            result = maximise(self.problem, np.array(self._starts(t, explore)), self.free,
                              with_parts=True)
        thetas, values, _, parts = result
        found += [(value, theta) for value, theta in zip(values, thetas) if np.isfinite(value)]
        if np.any(np.isfinite(values)):
            top = int(np.argmax(values))
            if values[top] > max((v for v, _ in self.maxima.get(t, [])), default=-np.inf):
                self.slopes[t] = (float(parts.gradient[top, self.j]),
                                  self._tangent(thetas[top], parts, top))
        found_best = max((value for value, _ in found), default=-np.inf)
        kept = []
        for value, theta in sorted(found, key=lambda r: -r[0]):
            if value < found_best - _MARGIN:
                break
            if all(np.max(np.abs(theta - other) / (1.0 + np.abs(other))) > 1e-6
                   for _, other in kept):
                kept.append((value, theta))
        before = self.maxima[t][0][0] if t in self.maxima else -np.inf
        self.maxima[t] = kept[:_KEEP] or [(-np.inf, self._at(self.theta, t))]
        if explore:
            self.explored.add(t)
            if self.maxima[t][0][0] > before + _INSIDE and np.isfinite(before):
                # a higher branch: the points computed without it are recomputed when next asked
                self.maxima = {k: v for k, v in self.maxima.items() if k in self.explored}
        return 2.0 * (self.best - self.maxima[t][0][0])

    def _tangent(self, theta, parts=None, row: int = 0) -> np.ndarray | None:
        """:math:`d\\theta/dt` at a maximum (:math:`-H_{ff}^{-1}H_{fj}`, 1 at j), from the exact
        Hessian (the negated information above :data:`EXACT_MAX` parameters); None where it is
        not negative definite on the free parameters."""
        if parts is None:
            parts = self.problem.evaluate(np.asarray(theta)[None, :])
        H = parts.hessian[row] if parts.hessian is not None else -parts.info[row]
        f, j = self.free, self.j
        try:
            L = np.linalg.cholesky(-H[np.ix_(f, f)])
        except np.linalg.LinAlgError:
            return None
        direction = np.ones(theta.size)
        direction[f] = np.linalg.solve(L.T, np.linalg.solve(L, H[f, j]))
        return direction if np.all(np.isfinite(direction)) else None

    def _at(self, theta, t):
        start = np.array(theta, dtype=np.float64)
        start[self.j] = t
        return start

    def _tangent_start(self, t: float) -> np.ndarray | None:
        """The best maximum of the nearest point computed, moved to t along its tangent (None
        where that point has no tangent)."""
        known = np.array(sorted(self.maxima))
        near = float(known[np.argmin(np.abs(known - t))])
        if near == float(self.theta[self.j]) and near not in self.slopes:
            self.slopes[near] = (0.0, self._tangent(self.theta))
        tangent = self.slopes.get(near, (0.0, None))[1]
        return None if tangent is None else self.maxima[near][0][1] + (t - near) * tangent

    def _starts(self, t: float, explore: bool) -> list:
        known = np.array(sorted(self.maxima))
        starts = [self._at(self.theta, t)]
        explored = np.array(sorted(self.explored))
        nearest = set()
        for points in (known, explored):  # the nearest point, and the nearest explored one
            for side in (points[points < t], points[points > t]):
                if side.size:
                    nearest.add(float(side[np.argmin(np.abs(side - t))]))
        for near in sorted(nearest):
            for _, theta in self.maxima[near]:
                starts.append(self._at(theta, t))
                if near != 0 and t / near > 1:  # further out along the ray
                    starts.append(self._at(theta * (t / near), t))
        if explore and self.design.size:
            centre = self.theta[self.free]
            centre_j, scale_j = self.theta[self.j], self.scale[self.j]
            grow = max(1.0, abs(t - centre_j) / (abs(centre_j) + scale_j))
            width = 2.0 * (np.abs(centre) + 2.0 * self.scale[self.free]) * grow
            for point in self.design:
                start = self._at(self.theta, t)
                start[self.free] = centre * grow + width * point
                starts.append(start)
        return starts

    def bound(self, side: float, q: float) -> float:
        """The end of the interval on the side of ``side`` (-1 or +1): the outermost crossing of
        :math:`D_j = q` the search finds (infinite if :math:`D_j` stays below ``q``)."""
        centre = float(self.theta[self.j])
        step = float(side) * self.scale[self.j]
        inside, k = centre, 0
        for _ in range(_ROUNDS):
            outside = None
            while k < _EXPANSIONS:
                b = centre + step * 2.0**k
                k += 1
                if abs(b - centre) <= abs(inside - centre):
                    continue
                if self.deviance(b, refresh=True) >= q:
                    outside = b
                    break
                inside = b
            if outside is None:
                return float(np.copysign(np.inf, step))
            root = self._root(inside, outside, q)
            if not len(self.design):  # nothing to explore with: the continued maxima are all
                return float(root)
            beyond = [root] + [centre + (root - centre) * f for f in _BEYOND]
            below = [b for b in beyond if self.deviance(b, explore=True) < q - _INSIDE]
            if not below:
                return float(root)
            inside = max(below, key=lambda b: abs(b - centre))
            k = max(0, int(np.floor(np.log2(abs(inside - centre) / abs(step)))))
        raise RuntimeError(f"the profile of parameter {self.j} kept moving outwards after "
                           f"{_ROUNDS} checks")  # pragma: no cover - a safeguard

    def _root(self, inside: float, outside: float, q: float) -> float:
        """The crossing of :math:`D_j = q` between ``inside`` (below q) and ``outside`` (at or
        above it), to 1e-9 of ``outside``'s size: Newton's method on :math:`D_j - q` with
        :math:`D_j' = -2g_j` from the end nearer the crossing, each step kept inside the bracket
        (where a step would leave it, or the slope points the wrong way, the bracket is halved)."""
        tol = 1e-9 * max(1.0, abs(outside))
        below, above = inside, outside  # D(below) < q <= D(above)
        f_below, f_above = self.deviance(below) - q, self.deviance(above) - q
        t = below if abs(f_below) < abs(f_above) else above
        f = f_below if t == below else f_above
        for _ in range(_ROOT_STEPS):
            slope = -2.0 * self.slopes.get(t, (np.nan, None))[0]
            step = -f / slope if np.isfinite(slope) and slope != 0.0 else np.nan
            new = t + step
            if not (np.isfinite(new) and min(below, above) < new < max(below, above)):
                new = 0.5 * (below + above)
            f_new = self.deviance(new) - q
            if f_new < 0.0:
                below = new
            else:
                above = new
            if abs(new - t) <= tol or abs(above - below) <= tol or f_new == 0.0:
                return float(new)
            t, f = new, f_new
        return float(above)
