"""Tests of hypotheses on fitted models: Wald tests of linear hypotheses on the parameters, as
statsmodels' ``wald_test``, and likelihood-ratio tests of nested models, as R's ``anova``.

For the parameters :math:`\\hat\\beta` (the summary's, in its order: equation-major, the constant
first) with covariance :math:`V` and the hypothesis :math:`R\\beta = q` (r independent rows),

.. math::  W = (R\\hat\\beta - q)^T(RVR^T)^{-1}(R\\hat\\beta - q) \\sim \\chi^2_r

under the hypothesis, asymptotically (Wald 1943; e.g. Greene, *Econometric Analysis*, sec. 5.4).
The hypothesis is an array R (and q, default 0) or text: equations separated by commas, each side
a sum of terms ``[number*]name`` or numbers, e.g. ``"age = 0, lwt = 0"`` or ``"smoke - ht = 0"``,
the names those of the summary's parameters (two classes; softmax parameters need R).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from scipy.stats import chi2

__all__ = [
    "ChiSquaredTest", "LikelihoodRatioTest", "WaldTest", "constraints", "likelihood_ratio_test",
    "wald_test",
]


@dataclass(frozen=True)
class ChiSquaredTest:
    """A test whose statistic is :math:`\\chi^2_{df}` under the hypothesis: the statistic, its
    degrees of freedom and :math:`P(\\chi^2_{df} > statistic)` (``p_value``; ``pvalue``, as
    statsmodels names it)."""

    statistic: float
    df: int
    p_value: float

    @property
    def pvalue(self) -> float:
        return self.p_value


@dataclass(frozen=True)
class WaldTest(ChiSquaredTest):
    """The outcome of a Wald test, with statsmodels' names (``statistic``, ``pvalue``, ``df_num``)."""

    @property
    def df_num(self) -> int:
        return self.df

    def __str__(self) -> str:
        return f"Wald test: chi2({self.df}) = {self.statistic:.6g}, P>chi2 = {self.p_value:.4g}"

    __repr__ = __str__


def wald_test(params: np.ndarray, covariance: np.ndarray, R, q=None) -> WaldTest:
    """The Wald statistic of :math:`R\\beta = q` (module docstring)."""
    beta = np.asarray(params, dtype=np.float64).reshape(-1)
    R = np.atleast_2d(np.asarray(R, dtype=np.float64))
    if R.shape[1] != beta.size:
        raise ValueError(f"R has {R.shape[1]} columns; the model has {beta.size} parameters.")
    q = np.zeros(R.shape[0]) if q is None else np.asarray(q, dtype=np.float64).reshape(-1)
    if q.size != R.shape[0]:
        raise ValueError(f"q has {q.size} entries; R has {R.shape[0]} rows.")
    if not np.all(np.isfinite(R)) or not np.all(np.isfinite(q)):
        raise ValueError("R and q must be finite.")
    rank = np.linalg.matrix_rank(R)
    if rank < R.shape[0]:
        raise ValueError(f"The {R.shape[0]} hypotheses are not independent (rank {rank}): drop "
                         "the redundant ones.")
    covariance = np.asarray(covariance, dtype=np.float64)
    aliased = np.isnan(np.diag(covariance))
    if aliased.any():  # coefficients R reports as NA: a hypothesis may not involve them
        touched = np.flatnonzero(aliased & np.any(R != 0, axis=0))
        if touched.size:
            raise ValueError(f"The hypothesis involves aliased parameters (positions "
                             f"{touched.tolist()}, NA in the summary: linear combinations of "
                             "other columns), which have no estimate.")
        beta = np.where(aliased, 0.0, beta)
        covariance = np.where(np.isnan(covariance), 0.0, covariance)
    diff = R @ beta - q
    middle = R @ covariance @ R.T
    try:
        statistic = float(diff @ np.linalg.solve(middle, diff))
    except np.linalg.LinAlgError:
        raise ValueError("R V R' is singular: a hypothesis involves parameters without variance "
                         "(aliased or fixed).") from None
    df = int(R.shape[0])
    return WaldTest(statistic=statistic, df=df, p_value=float(chi2.sf(statistic, df)))


@dataclass(frozen=True)
class LikelihoodRatioTest(ChiSquaredTest):
    """A likelihood-ratio test of a smaller model nested in a larger one (R's ``anova(small,
    large, test="Chisq")``): :math:`LR = 2(\\ell_{large} - \\ell_{small}) = D_{small} - D_{large}
    \\sim \\chi^2_{df}`, df the difference in parameters (Wilks 1938).

    Attributes
    ----------
    statistic : float
        :math:`LR`, the drop in deviance (never negative).
    df : int
        The difference in the number of estimated parameters.
    p_value : float
        :math:`P(\\chi^2_{df} > LR)`; also ``pvalue``.
    deviance_small, deviance_large : float
        The residual deviances of the two models.
    """

    deviance_small: float
    deviance_large: float

    def __str__(self) -> str:
        return (f"Likelihood-ratio test: deviance {self.deviance_small:.6g} -> "
                f"{self.deviance_large:.6g}, chi2({self.df}) = {self.statistic:.6g}, "
                f"P>chi2 = {self.p_value:.4g}")

    __repr__ = __str__


def likelihood_ratio_test(ll_small: float, ll_large: float, df: int) -> LikelihoodRatioTest:
    """The test of the module's :class:`LikelihoodRatioTest` from the two log-likelihoods."""
    statistic = max(2.0 * (ll_large - ll_small), 0.0)
    return LikelihoodRatioTest(statistic=float(statistic), df=int(df),
                               p_value=float(chi2.sf(statistic, df)),
                               deviance_small=-2.0 * float(ll_small),
                               deviance_large=-2.0 * float(ll_large))


_NUMBER = r"[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?"


def constraints(text: str, names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(R, q)`` of hypotheses written as text (module docstring) on the parameters ``names``."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("A hypothesis is a non-empty string such as \"age = 0, lwt = 0\".")
    if len(set(names)) != len(names):
        raise ValueError("The parameters' names are not unique (a softmax model): give R as an "
                         "array.")
    # the names, longest first, stand in as tokens (a name may hold spaces or operators)
    order = sorted(range(len(names)), key=lambda i: -len(names[i]))
    rows, rhs = [], []
    for equation in _split(text):
        if equation.count("=") != 1:
            raise ValueError(f"{equation!r}: a hypothesis is one equation, 'left = right'.")
        row, const = np.zeros(len(names)), 0.0
        for side, sign in zip(equation.split("="), (1.0, -1.0)):
            coefs, value = _side(side, names, order)
            row += sign * coefs
            const -= sign * value
        if not np.any(row):
            raise ValueError(f"{equation!r} names no parameter; the parameters: "
                             f"{', '.join(map(repr, names))}.")
        rows.append(row)
        rhs.append(const)
    return np.array(rows), np.array(rhs)


def _split(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _side(side: str, names: list[str], order: list[int]) -> tuple[np.ndarray, float]:
    """The coefficients of the names and the constant in one side of an equation."""
    coefs, value = np.zeros(len(names)), 0.0
    rest = side
    for i in order:  # replace every name by its token
        rest = rest.replace(names[i], f" @{i}@ ")
    term = re.compile(rf"\s*([+-]?)\s*(?:({_NUMBER})\s*\*?\s*)?(@(\d+)@)?\s*")
    position, found = 0, False
    rest = rest.strip()
    while position < len(rest):
        match = term.match(rest, position)
        if match is None or match.end() == position or not (match.group(2) or match.group(3)):
            raise ValueError(f"Cannot read {side.strip()!r} in the hypothesis: write sums of "
                             f"[number*]name terms; the parameters: {', '.join(map(repr, names))}.")
        if found and not match.group(1):
            raise ValueError(f"Cannot read {side.strip()!r} in the hypothesis: terms are joined by "
                             "+ or -.")
        sign = -1.0 if match.group(1) == "-" else 1.0
        number = float(match.group(2)) if match.group(2) else 1.0
        if match.group(3):
            coefs[int(match.group(4))] += sign * number
        else:
            value += sign * number
        position, found = match.end(), True
    if not found:
        raise ValueError(f"An empty side in the hypothesis {side!r}.")
    return coefs, value
