"""Quadratic forms and log-determinants of rank-one downdated covariances, for many rows at once.

Every leave-one-out covariance of the Gaussian models (and of regularised discriminant analysis)
has the form

.. math:: \\Sigma_i = a_i S + b_i I - \\beta_i r_i r_i^T

for one fixed symmetric scatter :math:`S = U\\,\\mathrm{diag}(\\nu)\\,U^T` and per-row scalars (the
divisor and regularisation give :math:`a_i, b_i`, the removed row gives :math:`\\beta_i, r_i`).
With :math:`A_i = a_iS + b_iI = U\\,\\mathrm{diag}(h_i)\\,U^T`, :math:`h_{il} = a_i\\nu_l + b_i`, and
coordinates :math:`z = U^Te`, the Sherman-Morrison formula and the matrix determinant lemma give

.. math::

    e^T\\Sigma_i^{-1}e = q_{ee} + \\frac{\\beta_i q_{er}^2}{1 - \\beta_i q_{rr}}, \\qquad
    \\ln|\\Sigma_i| = \\sum_l \\ln h_{il} + \\ln(1 - \\beta_i q_{rr}), \\qquad
    q_{ef} = \\sum_l \\frac{z_{e,l} z_{f,l}}{h_{il}}

so a row costs :math:`O(d)` once the data are in the eigenbasis (one matrix product for all rows).
When every :math:`b_i = 0` the basis may be any :math:`U` with :math:`S^{-1} = U\\mathrm{diag}(1/\\nu)U^T`;
:func:`basis` then eigendecomposes :math:`S` in standardized units, which keeps small-scale features
accurate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Basis", "basis", "downdated", "log_det", "weighted_sum"]


@dataclass(frozen=True, eq=False)
class Basis:
    """:math:`S^{-1} = U\\,\\mathrm{diag}(1/\\nu)\\,U^T`, and for an orthogonal U also
    :math:`(aS + bI)^{-1} = U\\,\\mathrm{diag}(1/(a\\nu + b))\\,U^T`.

    Attributes
    ----------
    U : ndarray of shape (d, d)
    nu : ndarray of shape (d,)
    log_scale : float
        :math:`\\ln|S| - \\sum_l\\ln\\nu_l` (zero for an orthogonal U).
    orthogonal : bool
    """

    U: np.ndarray
    nu: np.ndarray
    log_scale: float
    orthogonal: bool


def basis(S: np.ndarray, *, orthogonal: bool) -> Basis:
    """The eigenbasis of a symmetric positive semi-definite S, shape (d, d).

    ``orthogonal=False`` (allowed when no identity is added): :math:`S = DRD` with
    :math:`D = \\mathrm{diag}(S)^{1/2}` and :math:`R = V\\Lambda V^T`, :math:`U = D^{-1}V`,
    :math:`\\nu = \\Lambda`.  Eigenvalues are clipped at zero (rounding).
    """
    if orthogonal:
        nu, U = np.linalg.eigh((S + S.T) / 2)
        return Basis(U, np.maximum(nu, 0.0), 0.0, True)
    diag = np.diag(S)
    D = np.sqrt(np.where(diag > 0, diag, 1.0))
    lam, V = np.linalg.eigh((S / D[:, None] / D[None, :] + (S / D[:, None] / D[None, :]).T) / 2)
    return Basis(V / D[:, None], np.maximum(lam, 0.0), 2.0 * float(np.sum(np.log(D))), False)


def _per_row(v) -> bool:
    return np.ndim(v) > 0


def weighted_sum(P: np.ndarray, nu: np.ndarray, a, b) -> np.ndarray:
    """:math:`\\sum_l P_{il} / (a_i\\nu_l + b_i)`, shape (n,).

    ``a`` and ``b`` are scalars or arrays of shape (n,).  A product with one vector when they are
    scalars or ``b`` is zero; an elementwise pass otherwise.
    """
    if not _per_row(b) and b == 0:
        s = P @ (1.0 / nu)
        return s / a
    if not _per_row(a) and not _per_row(b):
        return P @ (1.0 / (a * nu + b))
    a = np.broadcast_to(a, (P.shape[0],))
    b = np.broadcast_to(b, (P.shape[0],))
    return np.einsum("il,il->i", P, 1.0 / (a[:, None] * nu[None, :] + b[:, None]))


def log_det(B: Basis, a, b):
    """:math:`\\ln|aS + bI| = \\sum_l\\ln(a\\nu_l + b)` plus the basis's log scale (b must be zero for
    a basis that is not orthogonal); a float, or shape (n,) for per-row a, b."""
    if not _per_row(b) and b == 0:
        return B.nu.size * np.log(a) + float(np.sum(np.log(B.nu))) + B.log_scale
    if _per_row(a) or _per_row(b):
        a, b = np.broadcast_arrays(a, b)
        return np.log(a[:, None] * B.nu[None, :] + b[:, None]).sum(axis=1) + B.log_scale
    return float(np.sum(np.log(a * B.nu + b))) + B.log_scale


def smallest(B: Basis, a, b) -> np.ndarray | float:
    """:math:`\\min_l (a\\nu_l + b)` relative to the largest (0 for a singular :math:`aS + bI`)."""
    lo = np.asarray(a) * B.nu[0] + np.asarray(b)
    hi = np.asarray(a) * B.nu[-1] + np.asarray(b)
    return np.divide(lo, hi, out=np.zeros(np.shape(lo)), where=hi > 0)


def downdated(Ze: np.ndarray, Zr: np.ndarray, nu: np.ndarray, a, b, beta,
              scale=None) -> tuple[np.ndarray, np.ndarray]:
    """Mahalanobis terms of :math:`\\Sigma_i = a_iS + b_iI - \\beta_i r_ir_i^T`, all rows at once.

    Parameters
    ----------
    Ze : ndarray of shape (n, d) or None
        :math:`U^Te_i`; None when :math:`e_i = \\text{scale}_i\\, r_i` (the row's own class, where
        :math:`e^T\\Sigma^{-1}e = \\text{scale}^2 q_{rr} / (1 - \\beta q_{rr})`).
    Zr : ndarray of shape (n, d)
        :math:`U^Tr_i`.
    nu : ndarray of shape (d,)
    a, b, beta : float or ndarray of shape (n,)
    scale : ndarray of shape (n,), with ``Ze=None``

    Returns
    -------
    maha : ndarray of shape (n,)
        :math:`e_i^T\\Sigma_i^{-1}e_i`.
    den : ndarray of shape (n,)
        :math:`1 - \\beta_i q_{rr}`, the factor :math:`|\\Sigma_i| / |A_i|` (the downdate is
        singular where it is not positive).
    """
    q_rr = weighted_sum(Zr * Zr, nu, a, b)
    den = 1.0 - beta * q_rr
    safe = np.where(den > 0, den, 1.0)
    if Ze is None:
        return scale * scale * q_rr / safe, den
    q_ee = weighted_sum(Ze * Ze, nu, a, b)
    q_er = weighted_sum(Ze * Zr, nu, a, b)
    return q_ee + beta * q_er * q_er / safe, den
