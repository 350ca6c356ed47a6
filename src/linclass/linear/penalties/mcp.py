"""The minimax concave penalty (MCP; Zhang 2010, "Nearly unbiased variable selection under minimax
concave penalty", Ann. Statist. 38(2)).

.. math::

    \\rho(x; \\lambda, \\gamma) = \\begin{cases}
        \\lambda x - \\dfrac{x^2}{2\\gamma} & x \\le \\gamma\\lambda \\\\[4pt]
        \\dfrac{\\gamma\\lambda^2}2 & x > \\gamma\\lambda
    \\end{cases}
    \\qquad x = |v|,\\ \\gamma > 1,

the lasso's slope at zero relaxed at rate :math:`1/\\gamma` until it vanishes at
:math:`\\gamma\\lambda`, beyond which a coefficient is not shrunk.  :math:`\\gamma \\to \\infty` is the
lasso.  ncvreg's and skglm's parametrisation, with ncvreg's default :math:`\\gamma = 3`.
"""

from __future__ import annotations

from linclass.linear.penalties.folded_concave import FoldedConcave

__all__ = ["MCP"]


class MCP(FoldedConcave):
    """The minimax concave penalty (module docstring) at :math:`\\lambda = 1/(CN)`."""

    name = "mcp"
    default_gamma = 3.0
    least_gamma = 1.0

    def pieces(self, lam: float, gamma: float):
        knot = gamma * lam
        return [(0.0, knot, 0.0, lam, -1.0 / gamma),
                (knot, float("inf"), 0.5 * gamma * lam * lam, 0.0, 0.0)]
