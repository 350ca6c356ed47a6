"""The compiled loop of the leave-one-out grid (:mod:`linclass.selection.regularized_loo`): for a
block of rows already in the classes' eigenbases, every row's class score under every shrinkage
of one pooling, in one pass over the coordinates.

For row :math:`i`, class :math:`j` and shrinkage column :math:`c` the loop forms

.. math::

    S_P = \\sum_l \\frac{P_l}{b_{cl} - \\delta_{ic}}, \\qquad
    b_{cl} = \\nu_{jl} + \\rho_c\\,\\frac{\\mathrm{tr}A_j}{d}, \\qquad
    \\delta_{ic} = \\rho_c\\,\\frac{\\beta_{ij}\\lVert r_i\\rVert^2}{d}

for :math:`P = z^2, z z_r, z_r^2` (:math:`z` the row's coordinates from the class mean, :math:`z_r`
from its own class's mean, both in class j's basis; :math:`\\rho_c = \\gamma/(1-\\gamma)`).  With
:math:`x = \\delta/b \\le u = \\delta/b_{c0}` the reciprocal is
:math:`b^{-1}(1+x)(1+x^2)(1+x^4) = (b - \\delta)^{-1}(1 - x^8)`, exact to rounding while
:math:`u \\le 10^{-2}` (every row but influential ones, which are divided term by term), so no
division is made per coordinate.  :math:`\\sum_l \\ln(b_{cl} - \\delta)` is
:math:`\\sum_l \\ln b_{cl} - \\sum_{m\\ge1} \\frac{u^m}{m}\\sum_l q_l^m` with
:math:`q_l = b_{c0}/b_{cl} \\le 1` (row-independent sums, ten terms), and the downdate's factor
:math:`\\ln(1 - x)` is :math:`-\\sum_m x^m/m` (nine terms while :math:`x \\le 0.01`, a logarithm
otherwise).  The log-determinant's series stops where its next term is below :math:`10^{-17}`.
The shrinkage :math:`\\gamma = 1` is a column with :math:`b = 1`, :math:`\\rho = 0` (plain sums).

The sums run over rows innermost (coordinates in layout (K, d, rows), rows in chunks that stay in
the cache), so that every step is one vector instruction for several rows.  Per chunk and class the
products :math:`z^2, z z_r, z_r^2` are formed once for every column, :math:`z_r` from :math:`z`
(:math:`U_j^Tr_i = U_j^T(x_i - \\mu_j) - U_j^T(\\mu_{y_i} - \\mu_j)`, exactly :math:`z` in the
row's own class), so the rows need one product with the eigenbases, not two.  Each row's scores are
then assembled from its sums in a loop without branches (vectorised: one division, the downdate's
logarithm by its series); the few rows that need more (influential rows, a downdate factor past
the series' range, a singular left-out covariance) are scored again one by one.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["CUT", "LOG_TERMS", "criterion_sums", "grid_block_scores"]

CUT = 0.01  # series ratio above which a row's sums are divided term by term
LOG_TERMS = 10  # terms of the log-determinant series (u <= CUT: u^10 < 1e-20)
_LOG_CUT = 0.01  # the downdate factor's logarithm by its series up to this x
_LOG_2PI = float(np.log(2 * np.pi))
_CHUNK = 128  # rows per chunk: its products in one class's basis stay in the second-level cache
_JIT = dict(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})


@njit(**_JIT)
def _log1m(x):
    """:math:`\\ln(1 - x) = -\\sum_{m \\ge 1} x^m/m` for :math:`0 \\le x \\le 0.01` (nine terms: the
    rest is below :math:`10^{-19}`)."""
    t = 1.0 / 9.0
    t = t * x + 1.0 / 8.0
    t = t * x + 1.0 / 7.0
    t = t * x + 1.0 / 6.0
    t = t * x + 1.0 / 5.0
    t = t * x + 1.0 / 4.0
    t = t * x + 1.0 / 3.0
    t = t * x + 1.0 / 2.0
    t = t * x + 1.0
    return -x * t


@njit(**_JIT)
def _chunk_products(Zj, offj, Gj, own, i0, i1, P0, P1, P2):
    """The products :math:`z^2, z z_r, z_r^2` of rows i0 .. i1 in class j's basis into P0, P1, P2
    (shape (d, chunk)): :math:`z` the row's coordinates less the class mean's, :math:`z_r = z -
    G_{j,\\cdot,y_i}` (exactly z in the row's own class, where that column of G is zero)."""
    for l in range(Zj.shape[0]):
        o = offj[l]
        for i in range(i1 - i0):
            z = Zj[l, i0 + i] - o
            zr = z - Gj[l, own[i0 + i]]
            P0[l, i] = z * z
            P1[l, i] = z * zr
            P2[l, i] = zr * zr


@njit(**_JIT)
def _chunk_sums(P0, P1, P2, ej, binvj, c, r, n_i, s0, s1, s2):
    """The three sums :math:`S_P` of the chunk's rows for one class and column c into s0, s1, s2
    (the loop over rows is the vectorised one)."""
    for i in range(n_i):
        s0[i] = 0.0
        s1[i] = 0.0
        s2[i] = 0.0
    for l in range(P0.shape[0]):
        bi = binvj[l, c]
        p0 = P0[l]
        p1 = P1[l]
        p2 = P2[l]
        if r == 0.0:
            for i in range(n_i):
                s0[i] += p0[i] * bi
                s1[i] += p1[i] * bi
                s2[i] += p2[i] * bi
        else:
            rb = r * bi
            for i in range(n_i):
                # bi (1 + x)(1 + x^2)(1 + x^4) = bi / (1 - x) to rounding
                x = rb * ej[i]
                x2 = x * x
                h = bi + bi * x
                h = h + h * x2
                h = h + h * (x2 * x2)
                s0[i] += p0[i] * h
                s1[i] += p1[i] * h
                s2[i] += p2[i] * h


@njit(**_JIT)
def grid_block_scores(ZT, offsets, G, own, binv, base, ratio, identity, one_minus, log_one_minus,
                      log_base, log_coef, beta, e, scale2, Dp, log_Dp, t_d, log_priors,
                      singular_cut, scores, invalid):
    """Class scores of a block of rows under every shrinkage column of one pooling.

    Parameters
    ----------
    ZT, offsets : ndarrays of shape (K, d, m) and (K, d)
        :math:`U_j^T(x_i - c)` and :math:`U_j^T(\\mu_j - c)` (c the grand mean): their
        difference is the row's coordinates :math:`U_j^T(x_i - \\mu_j)`.
    G : ndarray of shape (K, d, K)
        :math:`G_{j,\\cdot,k} = U_j^T(\\mu_k - \\mu_j)` (zero where k = j), so that
        :math:`U_j^Tr_i = U_j^T(x_i - \\mu_{y_i})` is the row's column of ZT less
        :math:`G_{j,\\cdot,y_i}`.
    own : ndarray of shape (m,), int64
        The row's class.
    binv, base : ndarrays of shape (K, d, C)
        :math:`1/b_{cl}` and :math:`b_{cl}` (ones for an identity column).
    ratio : ndarray of shape (C,)
        :math:`\\rho_c = \\gamma_c/(1-\\gamma_c)` (0 for :math:`\\gamma` = 0 and identity columns).
    identity : ndarray of shape (C,), bool
        The column is :math:`\\gamma = 1`: :math:`\\Sigma = \\mathrm{tr}A'/(D'd)\\,I`.
    one_minus, log_one_minus : ndarrays of shape (C,)
        :math:`1-\\gamma_c` and its logarithm (unused for identity columns).
    log_base : ndarray of shape (K, C)
        :math:`\\sum_l\\ln b_{cl}`.
    log_coef : ndarray of shape (K, C, LOG_TERMS)
        :math:`\\frac1m\\sum_l q_l^m`, m = 1 .. LOG_TERMS.
    beta, e : ndarrays of shape (K, m)
        :math:`\\beta_{ij}`, the downdate's weight (:math:`c_i`, times :math:`\\lambda` off the own
        class), and :math:`\\beta_{ij}\\lVert r_i\\rVert^2/d`.
    scale2 : ndarray of shape (m,)
        :math:`(n_k/n_k')^2`.
    Dp, log_Dp, t_d : ndarrays of shape (K, m)
        :math:`D_j'`, its logarithm, and
        :math:`(\\mathrm{tr}A_j - \\beta_{ij}\\lVert r_i\\rVert^2)/d`.
    log_priors : ndarray of shape (K, m)
    singular_cut : float
        A downdate factor :math:`1 - \\beta q_{rr}` at or below it makes the column singular.
    scores : ndarray of shape (C, m, K), written
    invalid : ndarray of shape (C,), bool, updated
        Set where some row's left-out covariance is singular.
    """
    K, d, m = ZT.shape
    C = ratio.size
    T = log_coef.shape[2]
    const = d * _LOG_2PI
    s0 = np.empty(_CHUNK)
    s1 = np.empty(_CHUNK)
    s2 = np.empty(_CHUNK)
    P0 = np.empty((d, _CHUNK))
    P1 = np.empty((d, _CHUNK))
    P2 = np.empty((d, _CHUNK))
    series = np.empty(_CHUNK)
    out = np.empty(_CHUNK)
    for i0 in range(0, m, _CHUNK):
        i1 = min(i0 + _CHUNK, m)
        n_i = i1 - i0
        for j in range(K):
            emax = 0.0
            for i in range(n_i):
                emax = max(emax, e[j, i0 + i])
            _chunk_products(ZT[j], offsets[j], G[j], own, i0, i1, P0, P1, P2)
            ej = e[j, i0:i1]
            for c in range(C):
                if invalid[c]:
                    continue
                r = ratio[c]
                _chunk_sums(P0, P1, P2, ej, binv[j], c, r, n_i, s0, s1, s2)
                if identity[c]:
                    _identity_scores(j, c, i0, i1, own, s0, s2, scale2, Dp, log_Dp, t_d, d,
                                     const, log_priors, scores, invalid)
                    continue
                u0 = r * binv[j, 0, c]
                # terms of the log-determinant series this chunk needs: u^T d < 1e-17
                umax = min(u0 * emax, CUT)
                Tc = T
                if umax == 0.0:
                    Tc = 0
                else:
                    while Tc > 1 and umax ** (Tc - 1) * d < 1e-17:
                        Tc -= 1
                _series(log_coef[j, c], Tc, u0, ej, series)
                _shifted_scores(j, i0, i1, own, s0, s1, s2, series, beta, scale2, Dp, log_Dp,
                                log_base[j, c], 1.0 / one_minus[c], log_one_minus[c], d, const,
                                log_priors, out)
                # rows the vectorised pass does not cover: influential rows, a downdate factor's
                # logarithm beyond its series (or a singular one)
                for i in range(n_i):
                    row = i0 + i
                    u = u0 * e[j, row]
                    x = beta[j, row] * s2[i]
                    if u > CUT or not 0.0 <= x <= _LOG_CUT:
                        if not _row_score(ZT, offsets, G, own, base, j, c, r, row, u, s0[i],
                                          s1[i], s2[i], series[i], log_base[j, c], one_minus[c],
                                          log_one_minus[c], beta, e, scale2, Dp, log_Dp, d,
                                          const, log_priors, singular_cut, scores):
                            invalid[c] = True
                            break
                    else:
                        scores[c, row, j] = out[i]


@njit(**_JIT)
def _series(coef, Tc, u0, ej, series):
    """:math:`\\sum_{m=1}^{T_c} u^m\\,\\mathrm{coef}_{m-1}` with :math:`u = u_0 e_i`, for every row
    of the chunk (Horner's scheme, the rows innermost)."""
    n_i = ej.size
    for i in range(n_i):
        series[i] = 0.0
    for tt in range(Tc - 1, -1, -1):
        ct = coef[tt]
        for i in range(n_i):
            series[i] = (series[i] + ct) * (u0 * ej[i])


@njit(**_JIT)
def _shifted_scores(j, i0, i1, own, s0, s1, s2, series, beta, scale2, Dp, log_Dp, log_base_jc,
                    inv_one_minus, log_one_minus_c, d, const, log_priors, out):
    """The scores of rows i0 .. i1 for class j at a shrinkage column (not the identity) from their
    sums into out, branch-free so that the loop is vectorised: every row as if its downdate
    factor's logarithm were its series; :func:`grid_block_scores` scores the others again by
    :func:`_row_score`."""
    for i in range(i1 - i0):
        row = i0 + i
        bij = beta[j, row]
        x = bij * s2[i]
        den = 1.0 - x
        log_den = _log1m(x)
        inv_den = 1.0 / den
        q_own = scale2[row] * s2[i] * inv_den
        q_other = s0[i] + bij * s1[i] * s1[i] * inv_den
        q = q_own if own[row] == j else q_other
        maha = q * Dp[j, row] * inv_one_minus
        log_det = d * (log_one_minus_c - log_Dp[j, row]) + (log_base_jc - series[i]) + log_den
        out[i] = -0.5 * (maha + log_det + const) + log_priors[j, row]


@njit(**_JIT)
def _row_score(ZT, offsets, G, own, base, j, c, r, row, u, a0, a1, a2, series, log_base_jc,
               one_minus_c, log_one_minus_c, beta, e, scale2, Dp, log_Dp, d, const, log_priors,
               singular_cut, scores):
    """One row's score for class j at shrinkage column c (not the identity), every case handled:
    an influential row (:math:`u` above :data:`CUT`) has its sums divided term by term, the
    downdate factor's logarithm is its series only for :math:`0 \\le x \\le 0.01`.  Returns False
    where the left-out covariance is singular (nothing written)."""
    logs = log_base_jc - series
    if u > CUT:  # influential row: every term divided
        ei = e[j, row]
        a0 = 0.0
        a1 = 0.0
        a2 = 0.0
        logs = 0.0
        delta = r * ei
        for l in range(d):
            hl = base[j, l, c] - delta
            logs += np.log(hl)
            hl = 1.0 / hl
            zl = ZT[j, l, row] - offsets[j, l]
            zrl = zl - G[j, l, own[row]]
            a0 += zl * zl * hl
            a1 += zl * zrl * hl
            a2 += zrl * zrl * hl
    bij = beta[j, row]
    x = bij * a2
    den = 1.0 - x
    if den <= singular_cut:
        return False
    log_den = _log1m(x) if 0.0 <= x <= _LOG_CUT else np.log(den)
    inv_den = 1.0 / den
    if own[row] == j:
        q = scale2[row] * a2 * inv_den
    else:
        q = a0 + bij * a1 * a1 * inv_den
    maha = q * Dp[j, row] * (1.0 / one_minus_c)
    log_det = d * (log_one_minus_c - log_Dp[j, row]) + logs + log_den
    scores[c, row, j] = -0.5 * (maha + log_det + const) + log_priors[j, row]
    return True


@njit(**_JIT)
def _identity_scores(j, c, i0, i1, own, s0, s2, scale2, Dp, log_Dp, t_d, d, const, log_priors,
                     scores, invalid):
    """The scores of rows i0 .. i1 for class j at the shrinkage :math:`\\gamma = 1` (column c)."""
    for i in range(i1 - i0):
        row = i0 + i
        t = t_d[j, row]
        if not t > 0.0:
            invalid[c] = True
            break
        q = scale2[row] * s2[i] if own[row] == j else s0[i]
        maha = q * Dp[j, row] / t
        log_det = d * (np.log(t) - log_Dp[j, row])
        scores[c, row, j] = -0.5 * (maha + log_det + const) + log_priors[j, row]


@njit(**_JIT)
def criterion_sums(scores, y, w, code, skip, sums):
    """Weighted sums over rows of the criterion's row values (:mod:`linclass.selection.scoring`)
    for every column of ``scores`` (shape (C, n, K)) into ``sums`` (shape (C,)); ``w`` of shape
    (n,) (ones without weights).  code 0: ``'neg_log_loss'``, 1: ``'accuracy'``, 2:
    ``'log_likelihood'``; columns where ``skip`` (shape (C,), bool) are left alone.  Returns the
    first row whose scores have no finite maximum (-1: none).  Compensated (Neumaier) summation."""
    C, n, K = scores.shape
    for c in range(C):
        if skip[c]:
            continue
        total = 0.0
        comp = 0.0
        for i in range(n):
            yi = y[i]
            if code == 2:
                v = scores[c, i, yi]
            else:
                top = scores[c, i, 0]
                arg = 0
                for k in range(1, K):
                    if scores[c, i, k] > top:
                        top = scores[c, i, k]
                        arg = k
                if code == 1:
                    v = 1.0 if arg == yi else 0.0
                else:
                    if not np.isfinite(top):
                        return i
                    acc = 1.0  # exp(0) of the top class
                    for k in range(K):
                        if k != arg:
                            acc += np.exp(scores[c, i, k] - top)
                    v = (scores[c, i, yi] - top) - np.log(acc)
            v *= w[i]
            t = total + v
            if abs(total) >= abs(v):
                comp += (total - t) + v
            else:
                comp += (v - t) + total
            total = t
        sums[c] = total + comp
    return -1
