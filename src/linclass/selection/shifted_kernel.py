"""The compiled pass of the leave-one-out grid (:mod:`linclass.selection.regularized_loo`): at one
pooling, every row's class scores under every shrinkage, and the criterion's sums, in one call.

The rows come sorted by class, their residuals :math:`r_i = x_i - \\mu_{y_i}` in blocks of
:data:`BLOCK` rows (layout (d, rows)).  Per block one product with the K eigenbases
(:math:`U_j^Tr_i` for every class j, one ``dgemm`` of (K d) x d by d x rows, whose result stays in the
second-level cache) gives each row's residual in every class's basis, :math:`z_r`.  In class j the
row's coordinates from the class mean are :math:`z = z_r + g`, :math:`g = U_j^T(\\mu_{y_i} - \\mu_j)`
(zero in the row's own class), the same for a whole run of rows of one class.  With
:math:`h_l = 1/(b_{cl} - \\delta_{ic})` (:math:`b_{cl} = \\nu_{jl} + \\rho_c\\,\\mathrm{tr}A_j/d`,
:math:`\\delta_{ic} = \\rho_c\\beta_{ij}\\lVert r_i\\rVert^2/d`, :math:`\\rho_c = \\gamma_c/(1-\\gamma_c)`) the
Sherman-Morrison form needs

.. math::

    Q_{rr} = \\sum_l z_{rl}^2h_l, \\qquad Q_{er} = Q_{rr} + \\sum_l z_{rl}g_lh_l, \\qquad
    Q_{ee} = Q_{rr} + 2\\sum_l z_{rl}g_lh_l + \\sum_l g_l^2h_l

of which only the first two sums run over each row's coordinates (one in its own class, where g is
zero); :math:`\\sum_l g_l^2h_l` is a series in :math:`\\delta` with coefficients that depend only on
the classes.  Each :math:`h_l` is a series too: with :math:`u = \\delta/b_{c0}` (:math:`b_{c0}` the
smallest) and :math:`q_l = b_{c0}/b_{cl} \\le 1`,

.. math:: h_l = \\frac{1}{b_{cl}}\\sum_{m=0}^{T-1}(u\\,q_l)^m, \\qquad
          \\text{relative error } (u q_l)^T \\le u^T \\le 2^{-53}

evaluated by Horner's rule in :math:`u` (T - 1 multiply-adds per coordinate, no division), T = 1, 5
or 8 as the largest :math:`u` of the run needs (:math:`u = 0`, :math:`u \\le 6.4\\cdot10^{-4}`,
:math:`u \\le` :data:`CUT`); rows with :math:`u >` :data:`CUT` (influential rows) are divided term by
term.  :math:`\\sum_l \\ln(b_{cl} - \\delta)` is :math:`\\sum_l \\ln b_{cl} - \\sum_{m\\ge1}
\\frac{u^m}{m}\\sum_l q_l^m` (row-independent sums, :data:`LOG_TERMS` terms) and the downdate
factor's :math:`\\ln(1 - x)` is :math:`-2\\,\\mathrm{artanh}(x/(2-x))` by its series (ten terms while
:math:`x \\le 0.25`, a logarithm otherwise).  The shrinkage :math:`\\gamma = 1` needs no sums over
coordinates (the covariance is :math:`\\mathrm{tr}A'/(D'd)\\,I`, and :math:`\\lVert z\\rVert^2 =
\\lVert r\\rVert^2 + 2 r^T(\\mu_{y_i} - \\mu_j) + \\lVert \\mu_{y_i} - \\mu_j\\rVert^2`, the middle
term formed once for every pooling), and :math:`\\gamma = 0` none of the series.

Every loop over rows runs with the rows innermost, so that each step is one vector instruction for
several rows; each row's scores are then assembled without branches, and the few rows that need more
(influential rows, a downdate factor past its series, a singular left-out covariance) are scored
again one by one.  The criterion's row values (:mod:`linclass.selection.scoring`) are formed per
block, the exponentials of the log-sum-exp by a vectorised exponential (Cody and Waite's reduction,
a degree-13 Taylor polynomial on :math:`|r| \\le \\ln 2/2`, the power of two from its bits), and
summed with Neumaier's compensation.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["BLOCK", "CUT", "LOG_TERMS", "SUM_TERMS", "pooling_pass", "sorted_residuals"]

BLOCK = 128  # rows per block: their coordinates in the K bases stay in the second-level cache
CUT = 0.01  # series ratio u above which a row's sums are divided term by term
LOG_TERMS = 10  # terms of the log-determinant series (u <= CUT: u^10 < 1e-20)
SUM_TERMS = 8  # the most terms of the reciprocal's series (u <= CUT: u^8 <= 2^-53)
_U5 = 2.0 ** (-53.0 / 5.0)  # the largest u for which 5 terms are exact: u^5 <= 2^-53
_LOG_CUT = 0.25  # the downdate factor's logarithm by its series up to this x
_LOG_2PI = float(np.log(2 * np.pi))
_JIT = dict(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})
# the vectorised exponential and logarithm: Cody-Waite's split of ln 2 (fdlibm's), rounding to an
# integer by adding 1.5 2^52, and the polynomials' coefficients, highest degree first
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_ROUND = 6755399441055744.0
_SQRT2 = 1.4142135623730951
_MANTISSA = (1 << 52) - 1
_ONE_BITS = 1023 << 52
_EXP_TAYLOR = tuple(1.0 / float(np.prod(np.arange(1, k + 1))) for k in range(13, -1, -1))
_ARTANH_11 = tuple(1.0 / (2 * k + 1) for k in range(10, -1, -1))  # |s| <= 3 - 2 sqrt 2: 2^-53
_ARTANH_10 = _ARTANH_11[1:]  # s <= 1/7


@njit(**_JIT)
def _poly(x, coef):
    """Horner's rule: the polynomial with coefficients ``coef`` (a tuple, highest degree first)
    at x."""
    p = coef[0]
    for c in coef[1:]:
        p = p * x + c
    return p


@njit(**_JIT)
def _log1m(x):
    """:math:`\\ln(1 - x) = -2\\,\\mathrm{artanh}\\,s = -2\\sum_{m \\ge 0} s^{2m+1}/(2m+1)`,
    :math:`s = x/(2 - x)`, for :math:`0 \\le x \\le 0.25` (:math:`s \\le 1/7`: ten terms, the rest
    below :math:`10^{-18}` of the sum; no cancellation, so small x keep their relative accuracy)."""
    s = x / (2.0 - x)
    return -2.0 * s * _poly(s * s, _ARTANH_10)


@njit(**_JIT)
def _exp_vec(t, n, mantissa, bits, two_k):
    """:math:`e^{t_i}` of the first n entries of t (all :math:`\\le 0`) into t, vectorised:
    :math:`t = k\\ln2 + r`, :math:`|r| \\le \\ln 2/2` (Cody and Waite), :math:`e^r` by its Taylor
    polynomial of degree 13 (the rest below :math:`2^{-56}`), :math:`2^k` from its bits (``bits``,
    seen as floats through ``two_k``; ``mantissa`` is scratch).  Below :math:`e^{-708}` the
    result is :math:`e^{-708}`, which no sum with 1 can tell from zero."""
    for i in range(n):
        x = max(t[i], -708.0)
        kf = (x * _LOG2E + _ROUND) - _ROUND
        r = (x - kf * _LN2_HI) - kf * _LN2_LO
        mantissa[i] = _poly(r, _EXP_TAYLOR)
        bits[i] = (np.int64(kf) + 1023) << 52
    for i in range(n):
        t[i] = mantissa[i] * two_k[i]


@njit(**_JIT)
def _log_vec(a, n, a_bits, m_bits, m_view, out):
    """:math:`\\ln a_i` of the first n entries of a (all :math:`\\ge 1`, ``a_bits`` their bits)
    into out, vectorised: :math:`a = 2^em`, :math:`m \\in [\\sqrt{1/2}, \\sqrt2]` from the bits
    (``m_bits``, seen as floats through ``m_view``), :math:`\\ln m = 2\\,\\mathrm{artanh}\\,s`,
    :math:`s = (m-1)/(m+1)`, :math:`|s| \\le 0.172`: eleven terms."""
    for i in range(n):
        b = a_bits[i]
        m_bits[i] = (b & _MANTISSA) | _ONE_BITS
        out[i] = float((b >> 52) - 1023)
    for i in range(n):
        m = m_view[i]
        big = m > _SQRT2
        m = 0.5 * m if big else m
        e = out[i] + (1.0 if big else 0.0)
        s = (m - 1.0) / (m + 1.0)
        out[i] = e * _LN2_HI + (e * _LN2_LO + 2.0 * s * _poly(s * s, _ARTANH_11))


@njit(**_JIT)
def _terms(umax):
    """Terms of the reciprocal's series for a run whose largest ratio is ``umax`` (at most CUT):
    :math:`u^T \\le 2^{-53}`."""
    if umax == 0.0:
        return 1
    if umax <= _U5:
        return 5
    return SUM_TERMS


@njit(**_JIT)
def _sums(Z, r0, a, g, two, hc, T, u, nr, s2, sg):
    """:math:`\\sum_l z_l^2h_l` into s2 (and :math:`\\sum_l z_lg_lh_l` into sg where ``two``) of the
    run's nr rows, :math:`z_l` = ``Z[r0 + l, a + i]``, :math:`h_l = \\sum_{m<T} u^m\\,hc_{ml}` by
    Horner's rule.  Two coordinates per pass over the rows (half the loads and stores of the sums;
    an odd last coordinate is paired with zero coefficients)."""
    d = hc.shape[1]
    for i in range(nr):
        s2[i] = 0.0
        sg[i] = 0.0
    for l in range(0, d, 2):
        za = Z[r0 + l, a:a + nr]
        ga = g[l]
        pair = l + 1 < d
        zb = Z[r0 + l + 1, a:a + nr] if pair else za
        gb = g[l + 1] if pair else 0.0
        a0 = hc[0, l]
        b0 = hc[0, l + 1] if pair else 0.0
        if T == 1:
            if two:
                for i in range(nr):
                    h = za[i] * a0
                    k = zb[i] * b0
                    s2[i] += za[i] * h + zb[i] * k
                    sg[i] += ga * h + gb * k
            else:
                for i in range(nr):
                    s2[i] += za[i] * (za[i] * a0) + zb[i] * (zb[i] * b0)
            continue
        a1, a2, a3, a4 = hc[1, l], hc[2, l], hc[3, l], hc[4, l]
        b1, b2, b3, b4 = (hc[1, l + 1], hc[2, l + 1], hc[3, l + 1], hc[4, l + 1]) if pair else (
            0.0, 0.0, 0.0, 0.0)
        if T == 5:
            if two:
                for i in range(nr):
                    v = u[i]
                    h = za[i] * (a0 + v * (a1 + v * (a2 + v * (a3 + v * a4))))
                    k = zb[i] * (b0 + v * (b1 + v * (b2 + v * (b3 + v * b4))))
                    s2[i] += za[i] * h + zb[i] * k
                    sg[i] += ga * h + gb * k
            else:
                for i in range(nr):
                    v = u[i]
                    h = za[i] * (a0 + v * (a1 + v * (a2 + v * (a3 + v * a4))))
                    k = zb[i] * (b0 + v * (b1 + v * (b2 + v * (b3 + v * b4))))
                    s2[i] += za[i] * h + zb[i] * k
            continue
        a5, a6, a7 = hc[5, l], hc[6, l], hc[7, l]
        b5, b6, b7 = (hc[5, l + 1], hc[6, l + 1], hc[7, l + 1]) if pair else (0.0, 0.0, 0.0)
        if two:
            for i in range(nr):
                v = u[i]
                h = za[i] * (a0 + v * (a1 + v * (a2 + v * (a3 + v * (a4 + v * (a5 + v * (
                    a6 + v * a7)))))))
                k = zb[i] * (b0 + v * (b1 + v * (b2 + v * (b3 + v * (b4 + v * (b5 + v * (
                    b6 + v * b7)))))))
                s2[i] += za[i] * h + zb[i] * k
                sg[i] += ga * h + gb * k
        else:
            for i in range(nr):
                v = u[i]
                h = za[i] * (a0 + v * (a1 + v * (a2 + v * (a3 + v * (a4 + v * (a5 + v * (
                    a6 + v * a7)))))))
                k = zb[i] * (b0 + v * (b1 + v * (b2 + v * (b3 + v * (b4 + v * (b5 + v * (
                    b6 + v * b7)))))))
                s2[i] += za[i] * h + zb[i] * k


@njit(**_JIT)
def sorted_residuals(X, order, rowk, means, R, RB, rr):
    """The residuals :math:`r_i = x_i - \\mu_{y_i}` of the rows ``X[order]`` (classes ``rowk``)
    into R (shape (n, d)) and, a block of BLOCK rows at a time with the rows innermost, into RB
    (shape (n_blocks, d, BLOCK), the last block's padding left alone); :math:`\\lVert r_i\\rVert^2`
    into rr."""
    d = X.shape[1]
    m = RB.shape[2]
    for s in range(order.size):
        x = X[order[s]]
        mu = means[rowk[s]]
        r = R[s]
        acc = 0.0
        for l in range(d):
            v = x[l] - mu[l]
            r[l] = v
            acc += v * v
        rr[s] = acc
    for b in range(RB.shape[0]):
        rows = min(m, order.size - b * m)
        for l in range(d):
            for c in range(rows):
                RB[b, l, c] = R[b * m + c, l]


@njit(**_JIT)
def pooling_pass(RB, n, rowk, rr, rm, coef, weight, scale2, log_priors, UT, shared, lam, D, tr_d,
                 G, gg, binv, base, ratio, identity, one_minus, log_one_minus, log_base, log_coef, hcoef,
                 sgg_coef, singular_cut, code, own_only, w_crit, totals, comps, invalid, scores,
                 order):
    """Every row's scores at every shrinkage column of one pooling, and the criterion's sums.

    Parameters
    ----------
    RB : ndarray of shape (n_blocks, d, BLOCK)
        The residuals :math:`r_i = x_i - \\mu_{y_i}` of the rows sorted by class, a block of rows at
        a time, rows innermost (the last block padded).
    n : int
        Rows.
    rowk, rr, coef, weight, scale2 : ndarrays of shape (n,)
        Per sorted row: its class (int64), :math:`\\lVert r_i\\rVert^2`, :math:`c_i` (the downdate's
        weight in its own class), :math:`w_i` and :math:`(n_k/n_k')^2`.
    rm : ndarray of shape (K, n)
        :math:`r_i^T(\\mu_{y_i} - \\mu_j)` (what the shrinkage :math:`\\gamma = 1` needs).
    log_priors : ndarray of shape (K, n)
    UT : ndarray of shape (K d, d), or (d, d) where ``shared``
        :math:`U_j^T` of every class, stacked.
    shared : bool
        Every class has the same basis (pooling 1): the rows are put in it once.
    lam : float
        The pooling :math:`\\lambda` (the downdate's share in the other classes).
    D, tr_d : ndarrays of shape (K,)
        :math:`D_j` and :math:`\\mathrm{tr}A_j/d`.
    G, gg : ndarrays of shape (K, d, K) and (K, K)
        :math:`G_{j,\\cdot,k} = U_j^T(\\mu_k - \\mu_j)` and its squared norm.
    binv, base : ndarrays of shape (K, d, C)
        :math:`1/b_{cl}` and :math:`b_{cl}` (ones for an identity column).
    ratio, identity, one_minus, log_one_minus : ndarrays of shape (C,)
        :math:`\\rho_c` (0 for :math:`\\gamma = 0` and identity columns), :math:`\\gamma_c = 1`,
        :math:`1-\\gamma_c` and its logarithm.
    log_base : ndarray of shape (K, C)
        :math:`\\sum_l\\ln b_{cl}`.
    log_coef : ndarray of shape (K, C, LOG_TERMS)
        :math:`\\frac1m\\sum_l q_l^m`, m = 1 .. LOG_TERMS.
    hcoef : ndarray of shape (K, C, SUM_TERMS, d)
        :math:`q_l^m/b_{cl}`: the reciprocal's series coefficients.
    sgg_coef : ndarray of shape (K, K, C, SUM_TERMS)
        :math:`\\sum_l G_{jlk}^2\\,q_l^m/b_{cl}` (index j, k, c, m).
    singular_cut : float
        A downdate factor :math:`1 - \\beta Q_{rr}` at or below it makes the column singular.
    code : int
        -1: write the scores; 0, 1, 2: the criterion ``'neg_log_loss'``, ``'accuracy'``,
        ``'log_likelihood'``.
    own_only : bool
        Score only each row's own class (what ``'log_likelihood'`` reads).
    w_crit : ndarray of shape (n,)
        The rows' weights in the criterion.
    totals, comps : ndarrays of shape (C,), updated
        The criterion's weighted sums and their Neumaier compensation.
    invalid : ndarray of shape (C,), bool, updated
        Set where some row's left-out covariance is singular.
    scores : ndarray of shape (C, n, K), written where code is -1
        At the rows' original positions ``order``.
    order : ndarray of shape (n,), int64

    Returns
    -------
    The original position of the first row whose scores have no finite maximum ('neg_log_loss'),
    else -1.
    """
    K = G.shape[0]
    d = RB.shape[1]
    m = RB.shape[2]
    C = ratio.size
    const = d * _LOG_2PI
    Z = np.empty((UT.shape[0], m))
    sc = np.empty((C, K, m))
    s2 = np.empty(m)
    sg = np.empty(m)
    u = np.empty(m)
    ser = np.empty(m)
    sgg = np.empty(m)
    bet = np.empty(m)
    e = np.empty(m)
    Dp = np.empty(m)
    logDp = np.empty(m)
    flag = np.empty(m)
    acc = np.empty(m)
    top = np.empty(m)
    arg = np.empty(m, dtype=np.int64)
    ex = np.empty(m)
    mant = np.empty(m)
    ibits = np.empty(m, dtype=np.int64)
    for b in range(RB.shape[0]):
        b0 = b * m
        nb = min(m, n - b0)
        np.dot(UT, RB[b], Z)
        a = 0
        while a < nb:  # runs of rows of one class
            k = rowk[b0 + a]
            z = a + 1
            while z < nb and rowk[b0 + z] == k:
                z += 1
            nr = z - a
            for j in range(K):
                own = j == k
                r0 = 0 if shared else j * d
                if own_only and not own:
                    continue
                share = 1.0 if own else lam
                # the run's downdates in class j
                for i in range(nr):
                    row = b0 + a + i
                    bet[i] = coef[row] * share
                    e[i] = bet[i] * rr[row] / d
                    Dp[i] = D[j] - weight[row] * share
                emax = 0.0
                last = np.nan
                log_last = 0.0
                for i in range(nr):  # one logarithm per distinct weight
                    if Dp[i] != last:
                        last = Dp[i]
                        log_last = np.log(last) if last > 0.0 else -np.inf
                    logDp[i] = log_last
                    emax = max(emax, e[i])
                for c in range(C):
                    if invalid[c]:
                        continue
                    out = sc[c, j]
                    if identity[c]:
                        if not _identity(own, nr, a, b0, rr, scale2, rm[j], gg[j, k], tr_d[j], e,
                                         Dp, logDp, d, const, log_priors[j], out):
                            invalid[c] = True
                        continue
                    r = ratio[c]
                    rb0 = r * binv[j, 0, c]
                    for i in range(nr):
                        u[i] = rb0 * e[i]
                    umax = min(rb0 * emax, CUT)
                    T = _terms(umax)
                    _sums(Z, r0, a, G[j, :, k], not own, hcoef[j, c], T, u, nr, s2, sg)
                    bad = _shifted(own, nr, a, b0, s2, sg, sgg, ser, u, bet, scale2, Dp, logDp,
                                   log_base[j, c], 1.0 / one_minus[c], log_one_minus[c],
                                   log_coef[j, c], sgg_coef[j, k, c], d, const, log_priors[j],
                                   flag, out)
                    if bad == 0:
                        continue
                    # rows the vectorised pass does not cover: influential rows, a downdate
                    # factor's logarithm beyond its series (or a singular one)
                    for i in range(nr):
                        if flag[i] != 0.0:
                            row = b0 + a + i
                            if not _row_score(Z, r0, d, a + i, G[j, :, k], own, base[j, :, c], r,
                                              u[i], s2[i], sg[i], sgg[i], ser[i], log_base[j, c],
                                              one_minus[c], log_one_minus[c], bet[i], e[i],
                                              scale2[row], Dp[i], logDp[i], const,
                                              log_priors[j, row], singular_cut, out):
                                invalid[c] = True
                                break
            a = z
        if code < 0:
            for c in range(C):
                if invalid[c]:
                    continue
                for i in range(nb):
                    row = order[b0 + i]
                    for j in range(K):
                        scores[c, row, j] = sc[c, j, i]
            continue
        first = _criterion(sc, b0, nb, rowk, w_crit, code, invalid, totals, comps, acc, top, arg,
                           ex, mant, ibits)
        if first >= 0:
            return order[first]
    return -1


@njit(**_JIT)
def _identity(own, nr, a, b0, rr, scale2, rm_j, gg_jk, tr_d_j, e, Dp, logDp, d, const, lp, out):
    """The run's scores for class j at the shrinkage :math:`\\gamma = 1`: :math:`\\Sigma =
    \\mathrm{tr}A'/(D'd)\\,I`, :math:`\\ln(\\mathrm{tr}A'/d) = \\ln(\\mathrm{tr}A/d) + \\ln(1 - x)`
    with :math:`x = e_i d/\\mathrm{tr}A` by :func:`_log1m` (vectorised; rows past its range again
    with a logarithm).  False where some left-out trace is not positive."""
    if not tr_d_j > 0.0:
        return False
    log_t = np.log(tr_d_j)
    inv_t = 1.0 / tr_d_j
    bad = 0
    for i in range(nr):
        row = b0 + a + i
        x = e[i] * inv_t
        far = x > _LOG_CUT
        bad += 1 if far else 0
        t = tr_d_j - e[i]
        if own:
            q = scale2[row] * rr[row]
        else:
            q = rr[row] + 2.0 * rm_j[row] + gg_jk
        log_det = d * ((log_t + _log1m(min(x, _LOG_CUT))) - logDp[i])
        out[a + i] = -0.5 * (q * Dp[i] / t + log_det + const) + lp[row]
    if bad:
        for i in range(nr):
            if e[i] * inv_t > _LOG_CUT:
                row = b0 + a + i
                t = tr_d_j - e[i]
                if not t > 0.0:
                    return False
                q = scale2[row] * rr[row] if own else rr[row] + 2.0 * rm_j[row] + gg_jk
                out[a + i] = -0.5 * (q * Dp[i] / t + d * (np.log(t) - logDp[i]) + const) + lp[row]
    return True


@njit(**_JIT)
def _shifted(own, nr, a, b0, s2, sg, sgg, ser, u, bet, scale2, Dp, logDp, log_base_jc,
             inv_one_minus, log_one_minus_c, lc, gc, d, const, lp, flag, out):
    """The run's scores for class j at a shrinkage column (not the identity) from its sums, branch-free
    so that the loop is vectorised: every row as if its downdate factor's logarithm were its series
    and its sums' series exact; the log-determinant's series (``lc``, all LOG_TERMS terms) and
    :math:`\\sum_l g_l^2h_l` (``gc``, SUM_TERMS terms) by Horner's rule in u.  ser and sgg keep the
    two series for :func:`_row_score`, flag marks the rows it must score again; returns how many."""
    l0, l1, l2, l3, l4, l5, l6, l7, l8, l9 = (lc[0], lc[1], lc[2], lc[3], lc[4], lc[5], lc[6],
                                              lc[7], lc[8], lc[9])
    g0, g1, g2, g3, g4, g5, g6, g7 = gc[0], gc[1], gc[2], gc[3], gc[4], gc[5], gc[6], gc[7]
    bad = 0
    for i in range(nr):
        row = b0 + a + i
        v = u[i]
        series = v * (l0 + v * (l1 + v * (l2 + v * (l3 + v * (l4 + v * (l5 + v * (l6 + v * (
            l7 + v * (l8 + v * l9)))))))))
        ser[i] = series
        b = bet[i]
        x = b * s2[i]
        inv_den = 1.0 / (1.0 - x)
        if own:
            q = scale2[row] * s2[i] * inv_den
        else:
            gg = g0 + v * (g1 + v * (g2 + v * (g3 + v * (g4 + v * (g5 + v * (g6 + v * g7))))))
            sgg[i] = gg
            s1 = s2[i] + sg[i]
            q = (s2[i] + 2.0 * sg[i] + gg) + b * s1 * s1 * inv_den
        log_det = d * (log_one_minus_c - logDp[i]) + (log_base_jc - series) + _log1m(x)
        out[a + i] = -0.5 * (q * Dp[i] * inv_one_minus + log_det + const) + lp[row]
        f = (v > CUT) | (x < 0.0) | (x > _LOG_CUT)
        flag[i] = 1.0 if f else 0.0
        bad += 1 if f else 0
    return bad


@njit(**_JIT)
def _row_score(Z, r0, d, col, g, own, base_jc, r, u, a2, ag, agg, series, log_base_jc,
               one_minus_c, log_one_minus_c, beta, e, scale2, Dp, logDp, const, lp,
               singular_cut, out):
    """One row's score for class j at a shrinkage column (not the identity), every case handled: an
    influential row (:math:`u` above :data:`CUT`) has its sums divided term by term, the downdate
    factor's logarithm is its series only for :math:`0 \\le x \\le 0.25`.  Returns False where the
    left-out covariance is singular (nothing written)."""
    logs = log_base_jc - series
    if u > CUT:  # influential row: every term divided
        a2 = 0.0
        ag = 0.0
        agg = 0.0
        logs = 0.0
        delta = r * e
        for l in range(d):
            hl = base_jc[l] - delta
            logs += np.log(hl)
            hl = 1.0 / hl
            zr = Z[r0 + l, col]
            gl = 0.0 if own else g[l]
            a2 += zr * zr * hl
            ag += zr * gl * hl
            agg += gl * gl * hl
    x = beta * a2
    den = 1.0 - x
    if den <= singular_cut:
        return False
    log_den = _log1m(x) if 0.0 <= x <= _LOG_CUT else np.log(den)
    if own:
        q = scale2 * a2 / den
    else:
        a1 = a2 + ag
        q = (a2 + 2.0 * ag + agg) + beta * a1 * a1 / den
    log_det = d * (log_one_minus_c - logDp) + logs + log_den
    out[col] = -0.5 * (q * Dp / one_minus_c + log_det + const) + lp
    return True


@njit(**_JIT)
def _criterion(sc, b0, nb, rowk, w, code, skip, totals, comps, acc, top, arg, ex, mant, ibits):
    """Add the block's row values of the criterion (code 0: ``'neg_log_loss'``, 1: ``'accuracy'``,
    2: ``'log_likelihood'``) at every column not in ``skip`` to ``totals`` (Neumaier's compensation in
    ``comps``).  Returns the block's first row (sorted position) whose scores have no finite maximum
    for 'neg_log_loss', else -1."""
    C, K = sc.shape[0], sc.shape[1]
    two_k = ibits.view(np.float64)
    acc_bits = acc.view(np.int64)
    for c in range(C):
        if skip[c]:
            continue
        if code == 2:
            for i in range(nb):
                acc[i] = sc[c, rowk[b0 + i], i]
        else:
            for i in range(nb):
                top[i] = sc[c, 0, i]
                arg[i] = 0
            for j in range(1, K):
                s = sc[c, j]
                for i in range(nb):
                    bigger = s[i] > top[i]
                    top[i] = s[i] if bigger else top[i]
                    arg[i] = j if bigger else arg[i]
            if code == 1:
                for i in range(nb):
                    acc[i] = 1.0 if arg[i] == rowk[b0 + i] else 0.0
            else:
                for i in range(nb):
                    if not np.isfinite(top[i]):
                        return b0 + i
                    acc[i] = 0.0
                for j in range(K):
                    s = sc[c, j]
                    for i in range(nb):
                        ex[i] = s[i] - top[i]
                    _exp_vec(ex, nb, mant, ibits, two_k)
                    for i in range(nb):
                        acc[i] += ex[i]
                _log_vec(acc, nb, acc_bits, ibits, two_k, ex)
                for i in range(nb):
                    acc[i] = (sc[c, rowk[b0 + i], i] - top[i]) - ex[i]
        total = totals[c]
        comp = comps[c]
        for i in range(nb):
            v = acc[i] * w[b0 + i]
            t = total + v
            if abs(total) >= abs(v):
                comp += (total - t) + v
            else:
                comp += (v - t) + total
            total = t
        totals[c] = total
        comps[c] = comp
    return -1
