"""Damped proximal Newton steps: what the penalised solvers do when a quadratic model cannot be
trusted.

The quadratic model of the log-loss at the current point has the curvatures
:math:`h_i = w_i\\mu_i(1 - \\mu_i)` in the scores.  A row the model predicts confidently *and wrongly*
(:math:`\\mu_i \\approx 0` for its own class) has a gradient near :math:`-w_i` but a curvature near
zero: the loss there is almost linear, and the model extrapolates that line without bound.  On nearly
separable real data (digits, text) whole directions of the model then have curvature at rounding level,
its minimiser lies at :math:`10^{19}` or beyond, and no backtracking from the full step reaches a
step length that lowers the objective: the undamped iteration stops where it is, far from the
optimum.

The remedy is the Levenberg-Marquardt one (Levenberg 1944, Marquardt 1963), for proximal Newton
methods analysed by Yue, Zhou and So (2019, "A family of inexact SQA methods for non-smooth convex
minimization with provable convergence guarantees based on the Luo-Tseng error bound property"):
minimise the damped model

.. math::

    q_\\nu(\\delta) = \\nabla f^T\\delta + \\tfrac12\\delta^TQ\\delta + \\tfrac\\nu2\\lVert\\delta\\rVert^2
                    + r(w + \\delta)

instead.  With :math:`\\nu = 0` it is the Newton model; as :math:`\\nu` grows the step becomes a
proximal gradient step of length :math:`1/\\nu`, which lowers the objective with the full step once
:math:`\\nu` exceeds the gradient's Lipschitz constant (the model then majorises the objective).  So a
step always exists, and the rule below finds it in a few tries:

* start each fit undamped (:math:`\\nu = 0`): on well-conditioned problems nothing changes;
* when the line search finds no step (or the step is not finite), raise :math:`\\nu` to
  :math:`\\max(10\\nu,\\ 10^{-6}\\bar a)` and solve the model again, :math:`\\bar a` being the mean
  curvature of the model's coordinates (a scale in the model's own units);
* after an accepted full step, lower :math:`\\nu` tenfold (to 0 once below the floor), so that near
  the optimum the iteration is proximal Newton again, with its fast local convergence; after an
  accepted step of length :math:`t < 1/8`, raise it for the next model, to at least the floor
  over :math:`t` (the model overshot by about :math:`1/t`).

The line search measures the decrease against the *undamped* directional derivative
:math:`D = \\nabla f^T\\delta + r(w + \\delta) - r(w)`, which the damped minimiser makes negative
(:math:`D \\le -\\delta^T(Q + \\nu I)\\delta`), so every accepted step satisfies the sufficient-decrease
condition of Tseng and Yun (2009).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Damping", "Step", "damped_step", "damped_steps", "finish"]

_FLOOR = 1e-6        # the first damping, relative to the model's mean curvature
_GROWTH = 10.0
_MAX_TRIES = 16      # floor x 10^15: far past any Lipschitz constant of a log-loss model
_SHORT = 0.125       # an accepted step shorter than this raises the damping for the next model
_CEILING = 1e16      # the largest damping, relative to the floor (a step no model should need)


class Damping:
    """The damping :math:`\\nu` of one block of coefficients, carried from one model to the next."""

    def __init__(self) -> None:
        self.nu = 0.0
        self.floor = 0.0

    def raise_(self, scale: float) -> None:
        """After a rejected step: a stronger damping (module docstring), at most
        :math:`10^{10}` times the model's curvature."""
        self.floor = _FLOOR * max(float(scale), np.finfo(float).tiny)
        self.nu = min(max(_GROWTH * self.nu, self.floor), _CEILING * self.floor)

    def accepted(self, t: float, scale: float) -> None:
        """After an accepted step of length ``t``: lower the damping after a full step; after a
        short one raise it in proportion to how short (a model that overshot by 1/t)."""
        if t >= 1.0:
            self.nu = self.nu / _GROWTH if self.nu > _GROWTH * self.floor else 0.0
        elif t < _SHORT:
            self.raise_(scale)
            self.nu = min(max(self.nu, self.floor / t), _CEILING * self.floor)


@dataclass
class Step:
    """An accepted step: its length ``t``, the objective there, the model's step and directional
    derivative, and the damping it was taken with.  ``t = 0`` means none was found (stalled)."""

    t: float
    value: float
    step: object = None
    slope: float = 0.0
    nu: float = 0.0
    sweeps: int = 0


def damped_step(propose, search, damping: Damping, scale: float, f0: float) -> Step:
    """Solve the damped model, search along its step, and damp harder until a step is accepted.

    Parameters
    ----------
    propose : callable ``nu -> (step, slope, sweeps)``
        Minimises the model with damping ``nu``; ``slope`` is the undamped directional derivative
        :math:`D` of the objective along ``step`` (a tuple of arrays or an array).
    search : callable ``(step, slope) -> (t, value)``
        The backtracking line search along ``step`` (``t = 0``: none found).
    damping : :class:`Damping`
        Updated in place.
    scale : float
        The model's mean curvature (sets the damping's floor).
    f0 : float
        The objective at the current point.

    Returns
    -------
    :class:`Step`; ``t = 0`` when the model's step is zero (the point is optimal at working
    precision) or no damping up to :math:`10^{15}` times the model's curvature gives an accepted
    step (a step that is not a descent direction, from a model solved inaccurately, is damped
    like a rejected one).
    """
    return finish(damped_steps(propose, _asking_nothing(search), damping, scale, f0))


def damped_steps(propose, search, damping: Damping, scale: float, f0: float):
    """:func:`damped_step` as a generator, for a solver whose evaluations are requests answered
    from outside (:mod:`.prox_newton_chunked`: several fits share each pass over the data).
    ``search`` is a generator function ``(step, slope)`` whose requests are passed on (``yield
    from``) and which returns ``(t, value)``; the generator returns the :class:`Step`."""
    sweeps = 0
    for _ in range(_MAX_TRIES):
        step, slope, work = propose(damping.nu)
        sweeps += work
        if not np.isfinite(slope):
            damping.raise_(scale)
            continue
        if slope == 0.0:  # the model's minimiser is no step: optimal at working precision
            return Step(0.0, f0, step, slope, damping.nu, sweeps)
        if not slope < 0:  # an uphill step: the model is not solved accurately enough, damp it
            damping.raise_(scale)
            continue
        t, value = yield from search(step, slope)
        if t > 0.0:
            nu = damping.nu
            damping.accepted(t, scale)
            return Step(t, value, step, slope, nu, sweeps)
        damping.raise_(scale)
    return Step(0.0, f0, None, 0.0, damping.nu, sweeps)


def _asking_nothing(search):
    """A plain line search ``(step, slope) -> (t, value)`` as a generator function that makes no
    request."""
    def steps(step, slope):
        return search(step, slope)
        yield  # pragma: no cover  (makes this a generator)
    return steps


def finish(requests, answer=None):
    """Run the generator ``requests`` to its end, answering each request with ``answer(request)``
    (no request is expected when ``answer`` is None); returns the generator's value."""
    try:
        request = next(requests)
        while True:
            if answer is None:
                raise RuntimeError(f"unexpected request {request!r}")
            request = requests.send(answer(request))
    except StopIteration as stop:
        return stop.value
