"""Leave-one-out class scores of regularised discriminant analysis in closed form, for every
shrinkage of a grid at one pooling, from one product of the rows with the classes' eigenbases.

Without row :math:`i` (class :math:`k`, weight :math:`w_i`, :math:`r_i = x_i - \\mu_k`,
:math:`c_i = w_in_k/(n_k-w_i)`) both :math:`S_k` and :math:`S_W` lose :math:`c_ir_ir_i^T`, so for
every class :math:`j`

.. math::

    A_j' = A_j - \\beta_{ij} r_ir_i^T, \\quad \\beta_{ij} = c_i\\,(1 \\text{ if } j = k \\text{ else }
    \\lambda), \\qquad D_j' = D_j - w_i\\,(1 \\text{ if } j = k \\text{ else } \\lambda)

with Friedman's :math:`A_j = (1-\\lambda)S_j + \\lambda S_W`, :math:`D_j = (1-\\lambda)n_j +
\\lambda n` (:func:`linclass.generative.regularized.pooled_parts`), and

.. math::

    \\Sigma_j^{(i)} = \\frac{1-\\gamma}{D_j'}\\big(A_j + \\rho_{ij} I - \\beta_{ij}r_ir_i^T\\big),
    \\qquad \\rho_{ij} = \\frac{\\gamma}{1-\\gamma}\\,\\frac{\\mathrm{tr}A_j - \\beta_{ij}\\lVert r_i\\rVert^2}{d}.

In :math:`A_j`'s eigenbasis (:math:`\\nu_{jl}`) the Sherman-Morrison and determinant-lemma forms
(:mod:`linclass.selection.rank_one`) need :math:`\\sum_l P_l/(\\nu_{jl} + \\rho_{ij})` and
:math:`\\sum_l \\ln(\\nu_{jl} + \\rho_{ij})` for each row, where :math:`\\rho_{ij} = \\bar\\rho_j -
\\delta_{ij}` differs from the full data's :math:`\\bar\\rho_j` by
:math:`\\delta_{ij} = \\frac{\\gamma\\beta_{ij}\\lVert r_i\\rVert^2}{(1-\\gamma)d} \\ge 0`.  Expanding in
:math:`u = \\delta/(\\nu_{j,\\min} + \\bar\\rho_j)` (a geometric series: :math:`u \\le 1` always, and
:math:`O(1/n)` for all but influential rows),

.. math::

    \\sum_l \\frac{P_l}{\\nu_l + \\bar\\rho - \\delta} = \\sum_{m\\ge0} u^m \\sum_l \\frac{P_l\\,q_l^m}{\\nu_l+\\bar\\rho},
    \\qquad
    \\sum_l \\ln(\\nu_l + \\bar\\rho - \\delta) = \\sum_l\\ln(\\nu_l+\\bar\\rho) - \\sum_{m\\ge1}\\frac{u^m}{m}\\sum_l q_l^m,
    \\qquad q_l = \\frac{\\nu_{\\min}+\\bar\\rho}{\\nu_l+\\bar\\rho} \\le 1

turns each shrinkage into one matrix product of all rows with a few columns, summed to rounding
(the number of terms is chosen from the largest :math:`u`); rows with :math:`u > 0.01` are computed
term by term instead.  :math:`\\gamma = 0` needs no series (:math:`\\delta = 0`), and
:math:`\\gamma = 1` is :math:`\\Sigma = \\frac{\\mathrm{tr}A'}{D'd}I`.
"""

from __future__ import annotations

import numpy as np

from linclass.core.class_stats import ClassStats
from linclass.selection.downdate import row_downdates
from linclass.selection.leave_one_out import loo_log_priors
from linclass.generative.regularized import pooled_parts

__all__ = ["loo_scores"]

_LOG_2PI = np.log(2 * np.pi)
_CUT = 0.01  # series ratio above which a row is summed term by term
_SINGULAR = 1e-10
_ROWS = 4096


def loo_scores(stats: ClassStats, X: np.ndarray, y: np.ndarray, sample_weight, pooling: float,
               shrinkages, *, priors=None, rows=None) -> list:
    """Leave-one-out :math:`\\ln p(x_i, C_j)` of every training row, for each shrinkage.

    Parameters
    ----------
    stats : ClassStats of kind 'full' of (X, y, sample_weight)
    X : ndarray of shape (n_samples, d)
    y : ndarray of shape (n_samples,), int
    sample_weight : ndarray of shape (n_samples,) or None
    pooling : float in [0, 1]
    shrinkages : sequence of float in [0, 1]
    priors : ndarray of shape (n_classes,) or None
        None: re-learned without the row (see :mod:`linclass.selection.leave_one_out`).
    rows : RowDowndates, default=None
        :func:`linclass.selection.downdate.row_downdates` of these rows, when the caller has them.

    Returns
    -------
    list with one entry per shrinkage: ndarray of shape (n_samples, n_classes), or None where some
    leave-one-out covariance is singular (only possible with shrinkage 0).
    """
    rows = row_downdates(stats, X, y, sample_weight) if rows is None else rows
    log_priors = loo_log_priors(stats, rows, priors)
    n, d, K = X.shape[0], stats.n_features, stats.n_classes
    lam = float(pooling)
    A, D = pooled_parts(stats, lam)
    nu, U = np.linalg.eigh((A + A.transpose(0, 2, 1)) / 2)
    nu = np.maximum(nu, 0.0)
    traces = np.trace(A, axis1=1, axis2=2)
    c = stats.grand_mean()
    Ucat = np.concatenate(list(U), axis=1)
    offsets = np.einsum("kd,kde->ke", stats.means - c, U).reshape(-1)
    # Off[j, k] = U_j^T (mu_j - mu_k): from x - mu_j to x - mu_k in class j's basis
    Off = np.einsum("jkd,jde->jke", stats.means[:, None, :] - stats.means[None, :, :], U)
    gammas = [float(g) for g in shrinkages]
    out = [np.empty((n, K)) for _ in gammas]
    valid = [not (g == 0.0 and np.any(nu[:, 0] <= _SINGULAR * nu[:, -1])) for g in gammas]
    rr_all = np.einsum("ij,ij->i", rows.residual, rows.residual)
    for start in range(0, n, _ROWS):
        blk = slice(start, min(start + _ROWS, n))
        own = rows.own[blk]
        m = own.size
        Z = ((X[blk] - c) @ Ucat - offsets).reshape(m, K, d).transpose(1, 0, 2)  # (K, m, d)
        Zr = Z + Off[:, own, :]
        P = np.empty((K, 3, m, d))
        np.multiply(Z, Z, out=P[:, 0])
        np.multiply(Z, Zr, out=P[:, 1])
        np.multiply(Zr, Zr, out=P[:, 2])
        rr = rr_all[blk]
        is_own = own[:, None] == np.arange(K)[None, :]
        share = np.where(is_own, 1.0, lam)
        beta = rows.coef[blk, None] * share
        Dp = D[None, :] - rows.weight[blk, None] * share
        t = traces[None, :] - beta * rr[:, None]
        scale2 = rows.own_scale[blk, None] ** 2
        inner = [g for g in range(len(gammas)) if valid[g] and 0.0 < gammas[g] < 1.0]
        series = _shifted_sums(P, nu, traces, [gammas[g] for g in inner], beta * rr[:, None] / d)
        series = dict(zip(inner, series))
        for g, gamma in enumerate(gammas):
            if not valid[g]:
                continue
            if gamma == 1.0:  # Sigma = tr(A') / (D' d) I: no downdate term
                b = t / (Dp * d)
                if np.any(b <= 0):
                    valid[g] = False
                    continue
                sums = P.sum(axis=3).transpose(1, 2, 0)  # (3, m, K)
                maha = np.where(is_own, scale2 * sums[2], sums[0]) / b
                log_det = d * np.log(b)
            else:
                a = (1.0 - gamma) / Dp
                if gamma == 0.0:
                    S = np.matmul(P.reshape(K, 3 * m, d), (1.0 / nu)[:, :, None])
                    S = S.reshape(K, 3, m).transpose(1, 2, 0)
                    L = np.log(nu).sum(axis=1)[None, :]
                else:
                    S, L = series[g]
                den = 1.0 - beta * S[2]
                if np.any(den <= _SINGULAR):
                    valid[g] = False
                    continue
                maha = np.where(is_own, scale2 * S[2] / den, S[0] + beta * S[1] ** 2 / den) / a
                log_det = d * np.log(a) + L + np.log(den)
            out[g][blk] = -0.5 * (maha + log_det + d * _LOG_2PI) + log_priors[blk]
    return [o if ok else None for o, ok in zip(out, valid)]


def _shifted_sums(P, nu, traces, gammas, beta_rr_d):
    """For each shrinkage: :math:`\\sum_l P_l/(\\nu_l + \\bar\\rho - \\delta)` for the three P's,
    shape (3, m, K), and :math:`\\sum_l\\ln(\\nu_l + \\bar\\rho - \\delta)`, shape (m, K) (the
    series of the module docstring, one product per class for all shrinkages; rows past the cut
    term by term).  ``beta_rr_d`` is :math:`\\beta_{ij}\\lVert r_i\\rVert^2/d`, shape (m, K)."""
    K, _, m, d = P.shape
    results = [(np.empty((3, m, K)), np.empty((m, K))) for _ in gammas]
    if not gammas:
        return results
    for j in range(K):
        plans, columns = [], []
        for gamma in gammas:
            ratio = gamma / (1.0 - gamma)
            base = nu[j] + ratio * traces[j] / d  # ascending
            u = ratio * beta_rr_d[:, j] / base[0]
            exact = u > _CUT
            umax = float(u[~exact].max()) if np.any(~exact) else 0.0
            M = 1 if umax <= 0 else int(np.clip(np.ceil(np.log(1e-16) / np.log(umax)), 1, 40))
            powers = (base[0] / base)[:, None] ** np.arange(M)[None, :]  # (d, M): q^m
            plans.append((base, u, exact, M, powers))
            columns.append(powers / base[:, None])
        F_all = (P[j].reshape(3 * m, d) @ np.concatenate(columns, axis=1)).reshape(3, m, -1)
        at = 0
        for (S, L), (base, u, exact, M, powers) in zip(results, plans):
            F = F_all[..., at: at + M]
            at += M
            acc = F[..., M - 1]
            for k in range(M - 2, -1, -1):
                acc = acc * u + F[..., k]
            S[:, :, j] = acc
            coef = powers[:, 1:].sum(axis=0) / np.arange(1, M)  # s_m / m, m = 1 .. M-1
            series = np.zeros(m)
            for k in range(M - 2, -1, -1):
                series = (series + coef[k]) * u
            L[:, j] = np.log(base).sum() - series
            if np.any(exact):
                h = base[None, :] - (u[exact] * base[0])[:, None]
                S[:, exact, j] = np.einsum("pil,il->pi", P[j][:, exact, :], 1.0 / h)
                L[exact, j] = np.log(h).sum(axis=1)
    return results
