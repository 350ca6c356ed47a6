"""The smoothly clipped absolute deviation penalty (SCAD; Fan and Li 2001, "Variable selection via
nonconcave penalized likelihood and its oracle properties", J. Amer. Statist. Assoc. 96(456)).

.. math::

    \\rho(x; \\lambda, \\gamma) = \\begin{cases}
        \\lambda x & x \\le \\lambda \\\\[4pt]
        \\dfrac{2\\gamma\\lambda x - x^2 - \\lambda^2}{2(\\gamma - 1)} & \\lambda < x \\le \\gamma\\lambda \\\\[4pt]
        \\dfrac{\\lambda^2(\\gamma + 1)}2 & x > \\gamma\\lambda
    \\end{cases}
    \\qquad x = |v|,\\ \\gamma > 2:

the lasso up to :math:`\\lambda`, then a quadratic joining it to a constant at
:math:`\\gamma\\lambda`.  :math:`\\gamma \\to \\infty` is the lasso.  ncvreg's and skglm's
parametrisation, with Fan and Li's :math:`\\gamma = 3.7`.
"""

from __future__ import annotations

from linclass.linear.penalties.folded_concave import FoldedConcave

__all__ = ["SCAD"]


class SCAD(FoldedConcave):
    """The smoothly clipped absolute deviation penalty (module docstring) at
    :math:`\\lambda = 1/(CN)`."""

    name = "scad"
    default_gamma = 3.7
    least_gamma = 2.0

    def pieces(self, lam: float, gamma: float):
        g1 = gamma - 1.0
        return [(0.0, lam, 0.0, lam, 0.0),
                (lam, gamma * lam, -lam * lam / (2.0 * g1), gamma * lam / g1, -1.0 / g1),
                (gamma * lam, float("inf"), 0.5 * lam * lam * (gamma + 1.0), 0.0, 0.0)]
