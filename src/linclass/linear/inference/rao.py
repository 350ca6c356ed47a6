"""Score (Rao) tests of a logistic model nested in a larger one, as R's ``anova(small, large,
test = "Rao")`` computes them for a glm.

The smaller model's estimate, embedded in the larger model's parameters (zeros for the parameters
the smaller model lacks), is :math:`\\tilde\\beta`.  With the larger model's score
:math:`U(\\tilde\\beta) = \\sum_i w_is_i(\\tilde\\beta)` and information :math:`H(\\tilde\\beta)`
(:class:`~linclass.linear.inference.sandwich.ScoreSums` at :math:`\\tilde\\beta`),

.. math::  S = U(\\tilde\\beta)^TH(\\tilde\\beta)^{-1}U(\\tilde\\beta) \\sim \\chi^2_{df}

under the smaller model, asymptotically, with df the difference in the number of parameters
(Rao 1948, "Large sample tests of statistical hypotheses concerning several parameters with
applications to problems of estimation", *Proc. Cambridge Philosophical Society* 44, 50-57).  R
computes :math:`S` as the explained sum of squares of the weighted least-squares regression of the
smaller fit's working residuals :math:`(y_i-\\mu_i)/(\\mu_i(1-\\mu_i))` on the larger design with
the working weights :math:`w_i\\mu_i(1-\\mu_i)` (``stats:::anova.glmlist``), which is the same
number: :math:`X^TW r = U` and :math:`X^TWX = H`.  Only the smaller model is fitted; the larger one
need not be.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import chi2

from linclass.linear.inference.hypotheses import ChiSquaredTest
from linclass.linear.solvers import SymmetricSolver

__all__ = ["ScoreTest", "embed", "newton_drift", "score_statistic", "score_test_of"]


@dataclass(frozen=True)
class ScoreTest(ChiSquaredTest):
    """The outcome of a score (Rao) test.

    Attributes
    ----------
    statistic : float
        :math:`U^TH^{-1}U` (module docstring).
    df : int
        The number of parameters the larger model adds.
    p_value : float
        :math:`P(\\chi^2_{df} > statistic)` (``pvalue``, statsmodels' name).
    """

    def __str__(self) -> str:
        return f"Score (Rao) test: chi2({self.df}) = {self.statistic:.6g}, P>chi2 = {self.p_value:.4g}"

    __repr__ = __str__


def score_statistic(score: np.ndarray, information: np.ndarray) -> float:
    """:math:`U^TH^{-1}U` (Cholesky solve; the pseudo-inverse when :math:`H` is singular).

    Raises
    ------
    ValueError
        When the information matrix is singular (collinear columns of the larger design).
    """
    system = SymmetricSolver(information)
    if system.singular:
        raise ValueError("The larger model's information matrix is singular at the smaller "
                         "model's fit (collinear or constant columns): no score test. Drop the "
                         "redundant columns.")
    return float(max(score @ system.solve(score), 0.0))


def score_test_of(score: np.ndarray, information: np.ndarray, df: int) -> ScoreTest:
    """The :class:`ScoreTest` of ``df`` degrees of freedom."""
    statistic = score_statistic(score, information)
    return ScoreTest(statistic, int(df), float(chi2.sf(statistic, df)) if df > 0 else np.nan)


def embed(coef: np.ndarray, positions: np.ndarray, n_features: int) -> np.ndarray:
    """The smaller model's coefficients ``coef`` (m, d_small) as coefficients of the larger
    model's ``n_features`` features: column j of ``coef`` at ``positions[j]``, zeros elsewhere."""
    out = np.zeros((coef.shape[0], n_features))
    out[:, positions] = coef
    return out


def newton_drift(score: np.ndarray, information: np.ndarray, index: np.ndarray) -> float:
    """How far a Newton step of the parameters ``index`` alone moves them, in standard errors:
    :math:`\\max_j |(H_{II}^{-1}U_I)_j| / \\sqrt{(H_{II}^{-1})_{jj}}` (0 for no parameters; inf
    when :math:`H_{II}` is singular).  Near zero at a model's own estimate on its fit's rows."""
    if index.size == 0:
        return 0.0
    system = SymmetricSolver(information[np.ix_(index, index)])
    if system.singular:
        return float(np.inf)
    step = system.solve(score[index])
    se = np.sqrt(np.clip(np.diag(system.solve(np.eye(index.size))), 0.0, None))
    return float(np.max(np.abs(step) / np.where(se > 0, se, 1.0)))
