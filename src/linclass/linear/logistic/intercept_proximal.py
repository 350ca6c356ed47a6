"""liblinear's L1 objective for proximal Newton: the intercept the weight of a constant feature,
penalised by the lasso like the others.

scikit-learn's ``solver='liblinear'`` with the L1 penalty minimises

.. math:: \\sum_i w_i\\,\\ell(x_i, y_i) + \\frac1C\\big(\\lVert\\theta\\rVert_1 + |\\beta|\\big),
          \\qquad b = s\\,\\beta,

over the augmented design :math:`[X, s\\mathbf 1]` without a separate intercept (:math:`s` is
``intercept_scaling``), so the intercept is penalised by :math:`|b|/(Cs)` and may be exactly zero.
:class:`AugmentedObjective` is the penalised objective of
:mod:`linclass.linear.logistic.penalised` over that design, fitted by solver 'cd' like any lasso;
it reports the last column times :math:`s` as the intercept, and the null model as the usual
intercept-only fit (not the augmented design's no-intercept one).
"""

from __future__ import annotations

import numpy as np

from linclass.linear.logistic.losses import null_log_likelihood
from linclass.linear.logistic.offsets import null_fit
from linclass.linear.logistic.penalised import PenalisedObjective

__all__ = ["AugmentedObjective"]


class AugmentedObjective(PenalisedObjective):
    """The :class:`~linclass.linear.logistic.penalised.PenalisedObjective` of ``X`` with the
    constant column ``scaling`` appended (``X`` already augmented, without intercept), reporting
    ``coef`` of shape (1, d) and ``intercept = scaling * beta``."""

    def __init__(self, X, y, n_classes: int, sample_weight, penalty, *, scaling: float,
                 score_offset=None):
        super().__init__(X, y, n_classes, sample_weight, penalty, fit_intercept=False,
                         score_offset=score_offset)
        self.scaling = float(scaling)

    def coefficients(self, W: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(coef, intercept)``: the features' columns, and the constant column's weight times
        the scaling."""
        return W[:, :-1].copy(), self.scaling * W[:, -1]

    def internal(self, coef: np.ndarray, intercept: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Inverse of :meth:`coefficients` (warm starts)."""
        coef = np.atleast_2d(np.asarray(coef, dtype=np.float64))
        beta = np.reshape(np.asarray(intercept, dtype=np.float64), (-1, 1)) / self.scaling
        return np.hstack([coef, beta]), np.zeros(self.m)

    def null_log_likelihood(self) -> float:
        """:math:`\\ell_0` of the intercept-only model (with a score offset: its fit with the
        offset), as every fit with an intercept reports it."""
        if self.score_offset is None:
            return null_log_likelihood(self.class_totals, self.total, True)
        return null_fit(self.score_offset.T, self.y, self.sw, True)[1]
