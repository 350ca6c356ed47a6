"""The grouped multinomial elastic net: one group per feature across the K classes (glmnet's
``type.multinomial = "grouped"``; Friedman, Hastie and Tibshirani 2010, sec. 4; the group lasso of
Yuan and Lin 2006),

.. math::

    r(W) = \\sum_j f_j\\Big(\\lambda_1\\lVert W_{\\cdot j}\\rVert_2
           + \\frac{\\lambda_2}2\\lVert W_{\\cdot j}\\rVert_2^2\\Big),
    \\qquad \\lambda_1 = \\rho / C, \\quad \\lambda_2 = (1-\\rho)/C,

with :math:`W_{\\cdot j}` the K coefficients of feature j: a feature leaves the model for every class
at once.  With two classes (one row of coefficients) it is the elastic net itself.

The pieces a solver needs, per feature (the group):

block update
    The minimiser over the K-vector u of :math:`\\frac12(u - c)^TA(u - c) + g^T(u - c) +
    \\lambda_1\\lVert u\\rVert + \\frac{\\lambda_2}2\\lVert u\\rVert^2` is 0 when
    :math:`\\lVert Ac - g\\rVert \\le \\lambda_1`; otherwise :math:`u = (A + (\\lambda_2 + \\mu)I)^{-1}(Ac - g)`
    with :math:`\\mu = \\lambda_1/\\lVert u\\rVert`, the root of the increasing function
    :math:`\\mu\\lVert u(\\mu)\\rVert = \\lambda_1`, found in the eigenbasis of A
    (:func:`linclass.linear.compiled.blocks.group_update` in coordinate descent on the data;
    on the explicit model of a small dense working set, block updates alternate with Newton's
    method on the non-zero groups, :mod:`linclass.linear.solvers.small_grouped`).
optimality
    :math:`\\lVert G_{\\cdot j} + \\lambda_1W_{\\cdot j}/\\lVert W_{\\cdot j}\\rVert + \\lambda_2W_{\\cdot j}\\rVert`
    for a feature in the model, :math:`\\max(\\lVert G_{\\cdot j}\\rVert - \\lambda_1, 0)` for one out of
    it (:meth:`GroupedElasticNet.violation`, the column's value in each of its entries).
the flat direction of the softmax loss
    :math:`\\lVert W_{\\cdot j} - c\\mathbf 1\\rVert` is smallest at the mean, so the best shift is the
    column mean (coefficients summing to zero over the classes).
duality gap
    The conjugate is :math:`\\sum_j(\\lVert U_{\\cdot j}\\rVert - \\lambda_1f_j)_+^2/(2\\lambda_2f_j)`; without an
    L2 part, the dual point is scaled until :math:`\\lVert U_{\\cdot j}\\rVert \\le \\lambda_1f_j`.
"""

from __future__ import annotations

import math

import numpy as np

from linclass.linear.penalties.elastic_net import ElasticNet

__all__ = ["GroupedElasticNet"]


def _norms(W: np.ndarray) -> np.ndarray:
    """The Euclidean norm of each column (group) of W (m, q)."""
    return np.sqrt(np.einsum("kj,kj->j", W, W))


def _norm_change(w: np.ndarray, d: np.ndarray) -> np.ndarray:
    """:math:`\\lVert w_j + d_j\\rVert - \\lVert w_j\\rVert` per column, without the cancellation of
    the plain difference: :math:`(2w_j^Td_j + \\lVert d_j\\rVert^2)/(\\lVert w_j + d_j\\rVert +
    \\lVert w_j\\rVert)`."""
    new, old = _norms(w + d), _norms(w)
    total = new + old
    num = 2.0 * np.einsum("kj,kj->j", w, d) + np.einsum("kj,kj->j", d, d)
    return np.where(total > 0, num / np.where(total > 0, total, 1.0), 0.0)


class GroupedElasticNet(ElasticNet):
    """The elastic net with one group per feature across the classes (module docstring).

    Parameters
    ----------
    C, l1_ratio, factor : as :class:`~linclass.linear.penalties.elastic_net.ElasticNet`
        (bounds are not offered with groups).
    """

    grouped = True

    def __init__(self, C: float, l1_ratio: float, *, factor=None):
        super().__init__(C, l1_ratio, factor=factor)

    def __repr__(self) -> str:
        return "Grouped" + super().__repr__()

    @property
    def per_feature(self) -> bool:
        return True  # the group update lives in the coordinate-descent loops ('cd' only)

    def _grouped(self, W) -> bool:
        return np.ndim(W) == 2 and np.shape(W)[0] > 1

    def value(self, W: np.ndarray) -> float:
        W = np.asarray(W, dtype=np.float64)
        if not self._grouped(W):
            return super().value(W)
        l1, l2 = self._weights(W.shape[1])
        norms = _norms(W)
        return float(np.sum(l1 * norms) + 0.5 * np.sum(l2 * norms * norms))

    def change(self, w, d, t, cols) -> float:
        if not self._grouped(w):
            return super().change(w, d, t, cols)
        l1, l2 = self._weights(cols=cols)
        w, d = np.asarray(w, dtype=np.float64), np.asarray(d, dtype=np.float64)
        out = float(np.sum(l1 * _norm_change(w, t * d))) if self.l1 else 0.0
        if self.l2:
            out += float(np.sum(l2 * (t * np.einsum("kj,kj->j", w, d)
                                      + 0.5 * t * t * np.einsum("kj,kj->j", d, d))))
        return out

    def slope(self, w, d, cols) -> float:
        if not self._grouped(w):
            return super().slope(w, d, cols)
        l1, l2 = self._weights(cols=cols)
        w, d = np.asarray(w, dtype=np.float64), np.asarray(d, dtype=np.float64)
        out = float(np.sum(l2 * np.einsum("kj,kj->j", w, d))) if self.l2 else 0.0
        return out + (float(np.sum(l1 * _norm_change(w, d))) if self.l1 else 0.0)

    def coordinate(self, a, u):
        """The minimiser of :math:`\\frac a2\\lVert v\\rVert^2 - u^Tv + r(v)` per column (a group
        soft threshold)."""
        u = np.asarray(u, dtype=np.float64)
        if not self._grouped(u):
            return super().coordinate(a, u)
        l1, l2 = self._weights(u.shape[1])
        norms = _norms(u)
        scale = np.maximum(1.0 - l1 / np.where(norms > 0, norms, 1.0), 0.0)
        return u * scale / (np.asarray(a) + l2)

    def violation(self, W, G, cols=None) -> np.ndarray:
        W = np.asarray(W, dtype=np.float64)
        if not self._grouped(W):
            return super().violation(W, G, cols)
        l1, l2 = self._weights(W.shape[1] if cols is None else None, cols)
        G = np.asarray(G, dtype=np.float64) + l2 * W
        norms = _norms(W)
        unit = W / np.where(norms > 0, norms, 1.0)
        inside = _norms(G + l1 * unit)
        out = np.where(norms > 0, inside, np.maximum(_norms(G) - l1, 0.0))
        return np.broadcast_to(out, W.shape).copy()

    def best_shift(self, W: np.ndarray) -> np.ndarray:
        """The column means: :math:`\\lVert W_{\\cdot j} - c\\mathbf 1\\rVert` is smallest there."""
        W = np.asarray(W, dtype=np.float64)
        return W.mean(axis=0) if W.size else np.zeros(W.shape[1])

    def dual_scale(self, U: np.ndarray) -> float:
        U = np.asarray(U, dtype=np.float64)
        if U.size == 0 or self.l2 > 0:
            return 1.0
        l1, _ = self._weights(U.shape[0])
        norms = _norms(U.T)
        l1 = np.broadcast_to(l1, norms.shape)
        over = norms > l1
        return float(np.min(l1[over] / norms[over])) if over.any() else 1.0

    def conjugate(self, U: np.ndarray) -> float:
        U = np.asarray(U, dtype=np.float64)
        if U.size == 0:
            return 0.0
        l1, l2 = self._weights(U.shape[0])
        excess = np.maximum(_norms(U.T) - l1, 0.0)
        if self.l2 == 0:
            return math.inf if np.any(excess > 0) else 0.0
        l2 = np.broadcast_to(l2, excess.shape)
        if np.any((l2 == 0) & (excess > 0)):
            return math.inf
        return float(np.sum(np.where(l2 > 0, excess * excess / np.where(l2 > 0, 2 * l2, 1.0), 0.0)))

    def at(self, C: float, l1_ratio: float) -> GroupedElasticNet:
        return GroupedElasticNet(C, l1_ratio, factor=self.factor)

    def null_l1(self, G: np.ndarray) -> float:
        G = np.asarray(G, dtype=np.float64)
        if not self._grouped(G):
            return super().null_l1(G)
        return self._per_factor(_norms(G))

    def strong_set(self, G: np.ndarray, l1_new: float, l1_old: float):
        """The strong rule on the groups: a feature is kept (in every class) when
        :math:`\\lVert G_{\\cdot j}\\rVert \\ge f_j(2\\lambda_1^{new} - \\lambda_1^{old})`."""
        G = np.asarray(G, dtype=np.float64)
        if not self._grouped(G):
            return super().strong_set(G, l1_new, l1_old)
        kept = super().strong_set(_norms(G)[None, :], l1_new, l1_old)
        return None if kept is None else [kept[0]] * G.shape[0]
