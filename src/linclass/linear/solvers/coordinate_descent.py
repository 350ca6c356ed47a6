"""Solver 'cd': proximal Newton with coordinate descent on a penalised objective
(:class:`~linclass.linear.logistic.penalised.PenalisedObjective`), two classes by
:func:`~linclass.linear.solvers.prox_newton.prox_newton`, K classes by
:func:`~linclass.linear.solvers.prox_newton_softmax.prox_newton_softmax`."""

from __future__ import annotations

from linclass.linear.solvers.prox_newton import PenalisedResult, prox_newton
from linclass.linear.solvers.prox_newton_softmax import prox_newton_softmax

__all__ = ["PenalisedResult", "coordinate_descent"]


def coordinate_descent(obj, W0, b0, **options) -> PenalisedResult:
    """Minimise ``obj`` from ``(W0, b0)``; ``options`` as :func:`prox_newton` takes them."""
    return (prox_newton if obj.binary else prox_newton_softmax)(obj, W0, b0, **options)
