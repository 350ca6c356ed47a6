"""The Fenchel conjugate of the elastic net with per-feature factors and a box on the coefficients,
for the duality gap that certifies a penalised fit (:mod:`linclass.linear.logistic.penalised`;
Massias, Gramfort and Salmon 2018).

Per coefficient, with the column's :math:`\\lambda_1, \\lambda_2` (factors included) and bounds
:math:`[lo, hi]`,

.. math::  h^*(u) = \\sup_{lo \\le w \\le hi}\\; uw - \\lambda_1|w| - \\frac{\\lambda_2}2w^2,

attained at :math:`\\mathrm{clip}(\\mathrm{soft}(u, \\lambda_1)/\\lambda_2, lo, hi)` with an L2 part
(:math:`(|u| - \\lambda_1)_+^2/(2\\lambda_2)` without bounds), and without one at 0 (clipped) or a
bound, finite unless u points past :math:`\\pm\\lambda_1` towards an open side of the box; there the
dual point is scaled down first (:func:`dual_scale`).  The penalty's numbers come as its
``columns(d)`` array, rows l1, l2, lower, upper.
"""

from __future__ import annotations

import numpy as np

__all__ = ["conjugate", "dual_scale", "soft_threshold"]


def soft_threshold(u: np.ndarray, threshold) -> np.ndarray:
    """:math:`\\operatorname{sign}(u)\\max(|u| - t, 0)`, elementwise."""
    return np.sign(u) * np.maximum(np.abs(u) - threshold, 0.0)


def _open(U, l1, l2, lo, hi) -> np.ndarray:
    """Where the supremum is unbounded: no L2 part, and U past the threshold towards an open side."""
    return (l2 == 0) & (((U > l1) & np.isinf(hi)) | ((U < -l1) & np.isinf(lo)))


def dual_scale(U: np.ndarray, columns: np.ndarray) -> float:
    """The largest :math:`\\alpha \\in [0, 1]` with :math:`h^*(\\alpha U)` finite, U of shape (d, m):
    a coordinate unbounded on the side U points to needs :math:`\\alpha|U_j| \\le \\lambda_{1j}`."""
    l1, l2, lo, hi = columns[:, :, None]
    unbounded = _open(U, l1, l2, lo, hi)
    if not unbounded.any():
        return 1.0
    return float(np.min(np.broadcast_to(l1, U.shape)[unbounded] / np.abs(U[unbounded])))


def conjugate(U: np.ndarray, columns: np.ndarray) -> float:
    """:math:`\\sum h^*(U_{jk})` (module docstring), U of shape (d, m); ``inf`` where unbounded."""
    l1, l2, lo, hi = columns[:, :, None]
    boxed = np.isfinite(lo).any() or np.isfinite(hi).any()
    if not boxed and np.all(l2 > 0):
        return float(np.sum(np.maximum(np.abs(U) - l1, 0.0) ** 2 / (2.0 * l2)))
    if _open(U, l1, l2, lo, hi).any():
        return np.inf

    def at(w):
        with np.errstate(invalid="ignore"):
            return np.where(np.isfinite(w), U * w - l1 * np.abs(w) - 0.5 * l2 * w * w, -np.inf)

    with np.errstate(divide="ignore", invalid="ignore"):
        inner = np.clip(np.where(l2 > 0, soft_threshold(U, l1) / l2, 0.0), lo, hi)
    best = at(inner)  # the maximiser with an L2 part; without, the candidate at 0
    best = np.maximum(best, np.where(l2 > 0, -np.inf, np.maximum(at(lo), at(hi))))
    return float(np.sum(best))
