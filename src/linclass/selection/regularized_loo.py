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

so the log-determinant's series has row-independent coefficients; the sums with :math:`P` are
formed per coordinate with the reciprocal :math:`(\\nu_l + \\bar\\rho - \\delta)^{-1}` from the
same expansion, summed to rounding (:mod:`linclass.selection.shifted_kernel`; rows with
:math:`u > 0.01` are divided term by term instead).  :math:`\\gamma = 0` needs no series
(:math:`\\delta = 0`), and :math:`\\gamma = 1` is :math:`\\Sigma = \\frac{\\mathrm{tr}A'}{D'd}I`.

Cost per pooling: one product of the rows with the K eigenbases (what one QDA prediction costs),
then :math:`O(K d G)` multiply-adds per row for all G shrinkages in one compiled pass, with no
temporary of the rows' size per shrinkage.  The poolings are independent passes
(:meth:`LooGrid.blocks`); :func:`linclass.selection.regularized_cv.loo_grid_sums` runs them in
threads on large data.
"""

from __future__ import annotations

import numpy as np

from linclass.generative.class_stats import ClassStats
from linclass.generative.regularized import pooled_parts
from linclass.selection.downdate import row_downdates
from linclass.selection.leave_one_out import loo_log_priors
from linclass.selection.shifted_kernel import LOG_TERMS, grid_block_scores

__all__ = ["GridPass", "LooGrid", "loo_grid_scores", "loo_scores"]

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
    scores, valid = loo_grid_scores(stats, X, y, sample_weight, pooling, shrinkages,
                                    priors=priors, rows=rows)
    return [s if ok else None for s, ok in zip(scores, valid)]


def loo_grid_scores(stats: ClassStats, X: np.ndarray, y: np.ndarray, sample_weight,
                    pooling: float, shrinkages, *, priors=None, rows=None) -> tuple:
    """:func:`loo_scores` as one array: ``(scores, valid)``, scores of shape
    (n_shrinkages, n_samples, n_classes) (zeros where not valid), valid of shape (n_shrinkages,)."""
    rows = row_downdates(stats, X, y, sample_weight) if rows is None else rows
    grid = LooGrid(stats, X, rows, loo_log_priors(stats, rows, priors))
    n, K = X.shape[0], stats.n_classes
    out = np.zeros((len(shrinkages), n, K))
    scored = grid.blocks(pooling, shrinkages)
    for blk, cols, scores in scored:
        out[cols, blk] = scores
    out[~scored.valid] = 0.0
    return out, scored.valid


class LooGrid:
    """The leave-one-out class scores of the rows of X at every shrinkage of a pooling, a block of
    rows at a time (:meth:`blocks`), from the statistics of all rows and the rows' downdates.

    Parameters
    ----------
    stats : ClassStats of kind 'full' of (X, y, sample_weight)
    X : ndarray of shape (n_samples, d)
    rows : RowDowndates of these rows
    log_priors : ndarray of shape (n_samples, n_classes)
        :func:`linclass.selection.leave_one_out.loo_log_priors`.
    """

    def __init__(self, stats: ClassStats, X: np.ndarray, rows, log_priors: np.ndarray):
        self.stats, self.X, self.rows = stats, X, rows
        shape = (X.shape[0], stats.n_classes)
        self.log_priors_T = np.ascontiguousarray(np.broadcast_to(log_priors, shape).T)
        self.rr = np.einsum("ij,ij->i", rows.residual, rows.residual)
        # the rows about the grand mean, layout (d, n)
        self.XcT = np.ascontiguousarray((X - stats.grand_mean()).T)
        self.own = np.asarray(rows.own, dtype=np.int64)

    def blocks(self, pooling: float, shrinkages) -> GridPass:
        """The rows' scores at one pooling, a block at a time: iterating the :class:`GridPass`
        yields ``(rows slice, columns, scores)`` for each block of rows, the scores of shape
        (n_columns, n_block_rows, n_classes) at the shrinkages ``shrinkages[columns]``.  Passes
        share nothing but this grid's read-only arrays, so several may run in threads at once."""
        return GridPass(self, pooling, shrinkages)

    def _blocks(self, state: GridPass, pooling: float, shrinkages):
        stats, X, rows = self.stats, self.X, self.rows
        n, d, K = X.shape[0], stats.n_features, stats.n_classes
        lam = float(pooling)
        A, D = pooled_parts(stats, lam)
        nu, U = np.linalg.eigh((A + A.transpose(0, 2, 1)) / 2)
        nu = np.maximum(nu, 0.0)
        traces = np.trace(A, axis1=1, axis2=2)
        c = stats.grand_mean()
        UcatT = np.ascontiguousarray(np.concatenate(list(U), axis=1).T)  # (K d, d)
        offsets = np.einsum("kd,kde->ke", stats.means - c, U)  # U_j^T (mu_j - c)
        # U_j^T (mu_k - mu_j), zero where k = j: a row's residual in class j's basis is its
        # coordinates less the column of its own class
        G = np.ascontiguousarray(np.einsum(
            "jkd,jde->jek", stats.means[None, :, :] - stats.means[:, None, :], U))
        gammas = np.array([float(g) for g in shrinkages])
        valid = np.array([not (g == 0.0 and np.any(nu[:, 0] <= _SINGULAR * nu[:, -1]))
                          for g in gammas], dtype=bool)
        cols = np.flatnonzero(valid)  # the kernel's columns
        gam = gammas[cols]
        identity = gam == 1.0
        ratio = np.where(identity, 0.0, gam / np.where(identity, 1.0, 1.0 - gam))
        base = nu[:, :, None] + ratio[None, None, :] * (traces / d)[:, None, None]  # (K, d, C)
        base[:, :, identity] = 1.0
        base = np.ascontiguousarray(base)
        binv = 1.0 / base
        log_base = np.log(base).sum(axis=1)  # (K, C)
        q = base[:, :1, :] / base  # (K, d, C), <= 1
        terms = np.arange(1, LOG_TERMS + 1)
        log_coef = np.ascontiguousarray(
            (q[..., None] ** terms).sum(axis=1) / terms)  # (K, C, LOG_TERMS)
        one_minus = np.where(identity, 1.0, 1.0 - gam)
        log_one_minus = np.log(one_minus)
        block = np.zeros((cols.size, min(_ROWS, n), K))
        coords = np.empty((K * d, min(_ROWS, n)))  # reused: no fresh pages per block
        invalid = state.invalid = np.zeros(cols.size, dtype=bool)  # per column, updated
        classes = np.arange(K)[:, None]
        for start in range(0, n, _ROWS):
            blk = slice(start, min(start + _ROWS, n))
            own = self.own[blk]
            m = own.size
            # U_j^T (x_i - c) for every class, layout (K, d, m): rows innermost (the kernel
            # takes the classes' offsets away)
            if m == coords.shape[1]:
                ZT = np.matmul(UcatT, self.XcT[:, blk], out=coords).reshape(K, d, m)
            else:
                ZT = (UcatT @ self.XcT[:, blk]).reshape(K, d, m)
            rr = self.rr[blk]
            share = np.where(own[None, :] == classes, 1.0, lam)  # (K, m)
            beta = rows.coef[blk][None, :] * share
            Dp = D[:, None] - rows.weight[blk][None, :] * share
            e = beta * (rr / d)[None, :]
            t_d = (traces[:, None] - beta * rr[None, :]) / d
            scale2 = rows.own_scale[blk] ** 2
            with np.errstate(divide="ignore", invalid="ignore"):
                log_Dp = np.log(Dp)
            scores = block[:, :m]
            grid_block_scores(ZT, offsets, G, own, binv, base, ratio, identity, one_minus,
                              log_one_minus, log_base, log_coef, beta, e, scale2, Dp, log_Dp,
                              t_d, self.log_priors_T[:, blk], _SINGULAR, scores, invalid)
            yield blk, cols, scores
        valid[cols[invalid]] = False
        state.valid = valid


class GridPass:
    """One pass of :meth:`LooGrid.blocks` over the rows at one pooling.

    Attributes
    ----------
    invalid : ndarray of shape (n_columns,), bool
        Per column of the blocks' scores: some row's left-out covariance is singular so far
        (set once the first block is scored, updated by every block).
    valid : ndarray of shape (n_shrinkages,), bool
        Once the blocks are exhausted: the shrinkages without a singular left-out covariance
        (the others' scores are not defined).
    """

    def __init__(self, grid: LooGrid, pooling: float, shrinkages):
        self.invalid = self.valid = None
        self._blocks = grid._blocks(self, pooling, shrinkages)

    def __iter__(self):
        return self._blocks
