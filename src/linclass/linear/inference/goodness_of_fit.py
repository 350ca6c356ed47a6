"""The Hosmer-Lemeshow goodness-of-fit test of a binary logistic fit, with Stata's grouping
(``estat gof, group(10)`` after ``logistic``; Stata's manual, [R] logistic postestimation, and
[D] pctile for the quantiles).

The rows are grouped by quantiles of the fitted probability :math:`\\mu_i` as Stata's ``xtile``
forms them: with :math:`N = \\sum_i w_i` (frequency weights; ones without) and the distinct
probabilities sorted, group :math:`k = 1..g` ends at the first distinct probability whose
cumulative weight reaches :math:`kN/g` (the :math:`100k/g`-th percentile of Stata's default
definition: the inverse of the empirical distribution, averaged at its jumps, which is R's
``quantile(type = 2)``).  Rows of equal probability are therefore always in one group, and when
ties swallow a quantile fewer than :math:`g` groups are formed (empty groups are dropped, as
Stata drops them).  With :math:`O_k = \\sum_{i\\in k} w_iy_i`, :math:`E_k = \\sum_{i\\in k}
w_i\\mu_i` and :math:`n_k = \\sum_{i\\in k} w_i`,

.. math::  C = \\sum_k \\frac{(O_k - E_k)^2}{E_k(1 - E_k/n_k)} \\sim \\chi^2_{G-2}

with :math:`G` the number of groups formed (Hosmer and Lemeshow 1980, "Goodness of fit tests for
the multiple logistic regression model", *Communications in Statistics* A9, 1043-1069; Hosmer,
Lemeshow and Sturdivant 2013, *Applied Logistic Regression*, 3rd ed., sec. 5.2.2).

Other programs group differently: R's ``ResourceSelection::hoslem.test`` cuts at
``quantile(type = 7)`` and SAS's ``lackfit`` uses its own rule, so their statistics differ from
Stata's on the same fit.  On Hosmer and Lemeshow's low birth weight model (MASS's ``birthwt``,
``low ~ age + lwt + race + smoke + ptl + ht + ui``) this grouping gives :math:`C = 9.652` on 8 df
(p = 0.2903).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.stats import chi2

from linclass.linear.inference.hypotheses import ChiSquaredTest

__all__ = ["HosmerLemeshowTest", "hosmer_lemeshow"]


@dataclass(frozen=True)
class HosmerLemeshowTest(ChiSquaredTest):
    """The outcome of a Hosmer-Lemeshow test and the table of its groups.

    Attributes
    ----------
    statistic : float
        :math:`C` (module docstring).
    df : int
        The number of groups formed less two.
    p_value : float
        :math:`P(\\chi^2_{df} > C)` (``pvalue``, statsmodels' name).
    groups : int
        The number of groups formed (at most the number asked for).
    probability, observed, expected, total : ndarray of shape (groups,)
        Per group: the largest fitted probability (Stata's "Prob"), :math:`O_k`, :math:`E_k` and
        :math:`n_k`.
    """

    groups: int = 0
    probability: np.ndarray = field(default=None, repr=False)
    observed: np.ndarray = field(default=None, repr=False)
    expected: np.ndarray = field(default=None, repr=False)
    total: np.ndarray = field(default=None, repr=False)

    @property
    def table(self):
        """The groups as a pandas DataFrame, Stata's ``estat gof, table`` columns."""
        import pandas as pd

        return pd.DataFrame({"Prob": self.probability, "Obs_1": self.observed,
                             "Exp_1": self.expected, "Obs_0": self.total - self.observed,
                             "Exp_0": self.total - self.expected, "Total": self.total},
                            index=pd.RangeIndex(1, self.groups + 1, name="Group"))

    def __str__(self) -> str:
        return (f"Hosmer-Lemeshow test ({self.groups} groups): chi2({self.df}) = "
                f"{self.statistic:.6g}, P>chi2 = {self.p_value:.4g}")

    __repr__ = __str__


def hosmer_lemeshow(fitted, y, weight=None, groups: int = 10) -> HosmerLemeshowTest:
    """The Hosmer-Lemeshow test with Stata's grouping (module docstring).

    Parameters
    ----------
    fitted : ndarray of shape (n,)
        Fitted probabilities :math:`\\mu_i`.
    y : ndarray of shape (n,)
        Responses: 0/1, or the proportions of grouped counts (their trials in ``weight``).
    weight : ndarray of shape (n,) or None
        Frequency weights (None: ones).
    groups : int, default=10
        The number of quantile groups asked for (Stata's ``group(#)``).

    Raises
    ------
    ValueError
        For ``groups`` below 3, and when fewer than 3 groups can be formed (ties).
    """
    if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups < 3:
        raise ValueError(f"groups must be an integer of at least 3 (the test has groups - 2 "
                         f"degrees of freedom); got {groups!r}.")
    mu = np.asarray(fitted, dtype=np.float64).reshape(-1)
    y = np.asarray(y, dtype=np.float64).reshape(-1)
    w = np.ones(mu.size) if weight is None else np.asarray(weight, dtype=np.float64).reshape(-1)
    values, where = np.unique(mu, return_inverse=True)  # sorted distinct probabilities
    where = where.reshape(-1)
    weight_of = np.bincount(where, w, minlength=values.size)
    cumulative = np.cumsum(weight_of)
    N = cumulative[-1]
    # group k ends at the first distinct value whose cumulative weight reaches k N / g (a
    # relative slack of a few ulps: a cumulative weight equal to k N / g ends the group there,
    # as it does when it exceeds it)
    targets = N * np.arange(1, groups) / groups
    ends = np.searchsorted(cumulative, targets * (1.0 - 8 * np.finfo(float).eps), side="left")
    ends = np.unique(np.append(ends, values.size - 1))
    group_of_value = np.searchsorted(ends, np.arange(values.size), side="left")
    group = group_of_value[where]
    G = ends.size
    observed = np.bincount(group, w * y, minlength=G)
    expected = np.bincount(group, w * mu, minlength=G)
    total = np.bincount(group, w, minlength=G)
    if G < 3:
        raise ValueError(f"Only {G} groups can be formed from {values.size} distinct fitted "
                         "probabilities: the Hosmer-Lemeshow test needs at least 3.")
    statistic = float(np.sum((observed - expected) ** 2 / (expected * (1.0 - expected / total))))
    df = G - 2
    return HosmerLemeshowTest(statistic, df, float(chi2.sf(statistic, df)), G, values[ends],
                              observed, expected, total)
