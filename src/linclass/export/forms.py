"""What a fitted classifier computes, written as plain data: the scoring forms that a deployment
format (:mod:`linclass.export.onnx`) turns into a graph.

A classifier is a :class:`Plan`: feature steps applied to the rows (standardisation, binarisation,
a projection, monomials), then class scores of shape (n_samples, n_classes) of one of four forms,

``LinearScores``       :math:`a_k(x) = w_k^T(x - c) + b_k` (LDA, tied GDA, Fisher on its projection,
                       logistic / softmax, the perceptron, the discrete naive Bayes models)
``WhitenedScores``     :math:`a_k(x) = c_k - \\tfrac12\\lVert (x - c)^TH_k - o_k\\rVert^2` (per-class
                       full covariances: QDA, RDA, GDA 'full')
``DiagonalScores``     :math:`a_k(x) = c_k - \\tfrac12\\sum_j (x_j - c_j - m_{kj})^2 / \\sigma^2_{kj}`
                       (Gaussian naive Bayes, GDA 'diag' and 'spherical')
``CategoricalScores``  :math:`a_k(x) = b_k + \\sum_j T_{s_j + \\min(x_j, m_j),\\,k}` (a table lookup per
                       feature: categorical naive Bayes)

and the posterior is the softmax of the scores (:mod:`linclass.core.posterior`).  Multi-class
schemes combine plans of two-class models (:class:`OneVsRest`, :class:`OneVsOne`).  Nothing here
computes anything: :mod:`linclass.export.reading` fills these records from fitted estimators.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

__all__ = [
    "Binarize", "CategoricalScores", "DiagonalScores", "LinearScores", "Monomials", "OneVsOne",
    "OneVsRest", "Plan", "Project", "Single", "Standardize", "WhitenedScores", "with_steps",
]


# ----------------------------------------------------------------------------------- feature steps
@dataclass(frozen=True, eq=False)
class Standardize:
    """:math:`z = (x - m) / s`, shapes (d,) each."""

    mean: np.ndarray
    scale: np.ndarray


@dataclass(frozen=True, eq=False)
class Binarize:
    """:math:`z = 1` where :math:`x > t`, else 0."""

    threshold: float


@dataclass(frozen=True, eq=False)
class Project:
    """:math:`z = (x - c)^T V`: ``center`` of shape (d,), ``directions`` of shape (d, q)."""

    center: np.ndarray
    directions: np.ndarray


@dataclass(frozen=True, eq=False)
class Monomials:
    """Every monomial of the features of total degree 1 to ``degree``, lowest degree first.

    Block 1 is x itself; column i of block k (k >= 2) is column ``parents[k-2][i]`` of block k - 1
    times feature ``variables[k-2][i]``."""

    parents: tuple
    variables: tuple


# --------------------------------------------------------------------------------- class scores
@dataclass(frozen=True, eq=False)
class LinearScores:
    """:math:`(x - c)W^T + b`: ``coef`` (K, d), ``intercept`` (K,), ``center`` (d,) or None (0)."""

    coef: np.ndarray
    intercept: np.ndarray
    center: np.ndarray | None = None


@dataclass(frozen=True, eq=False)
class WhitenedScores:
    """:math:`c_k - \\tfrac12\\lVert (x - c)^T H_k - o_k\\rVert^2`: ``whiten`` (d, K*d) holds
    :math:`[H_1, \\dots, H_K]`, ``offsets`` (K*d,) the whitened class means, ``const`` (K,)."""

    whiten: np.ndarray
    offsets: np.ndarray
    const: np.ndarray
    center: np.ndarray


@dataclass(frozen=True, eq=False)
class DiagonalScores:
    """:math:`c_k - \\tfrac12\\sum_j (x_j - c_j - m_{kj})^2 p_{kj}`: ``offsets`` :math:`m` and
    ``inv_var`` :math:`p` of shape (K, d), ``const`` (K,), ``center`` (d,)."""

    offsets: np.ndarray
    inv_var: np.ndarray
    const: np.ndarray
    center: np.ndarray


@dataclass(frozen=True, eq=False)
class CategoricalScores:
    """:math:`b_k + \\sum_j T[s_j + \\min(\\lfloor x_j\\rfloor, m_j), k]`: ``table`` (sum(m_j + 1), K)
    holds, per feature, the log-probabilities of its ``m_j`` categories and then of any unseen one;
    ``starts`` (d,) where each feature's rows begin, ``limits`` (d,) the :math:`m_j`,
    ``intercept`` (K,) the log priors."""

    table: np.ndarray
    starts: np.ndarray
    limits: np.ndarray
    intercept: np.ndarray


# ------------------------------------------------------------------------------------ classifiers
@dataclass(frozen=True, eq=False)
class Single:
    """One model: ``steps``, then ``scores`` of shape (n_samples, n_classes).

    ``proba``: the posterior is the softmax of the scores (else the model gives decision values
    only).  ``rule``: 'argmax' (the largest score; ties to the lowest index) or 'nonnegative' (two
    classes: the second where its score minus the first's is >= 0, the perceptron's step)."""

    scores: object
    n_classes: int
    proba: bool = True
    rule: str = "argmax"
    steps: tuple = ()


@dataclass(frozen=True, eq=False)
class OneVsRest:
    """Two-class ``members``, one per class (one for two classes); see
    :class:`linclass.OneVsRestClassifier`."""

    members: tuple
    n_classes: int
    proba: bool
    steps: tuple = ()


@dataclass(frozen=True, eq=False)
class OneVsOne:
    """Two-class ``members``, one per pair of classes (``pairs`` of shape (n_pairs, 2)); see
    :class:`linclass.OneVsOneClassifier`."""

    members: tuple
    pairs: np.ndarray
    n_classes: int
    proba: bool
    steps: tuple = ()


Plan = Single | OneVsRest | OneVsOne


def with_steps(steps: tuple, plan: Plan) -> Plan:
    """``plan`` with ``steps`` applied first."""
    return replace(plan, steps=tuple(steps) + plan.steps)
