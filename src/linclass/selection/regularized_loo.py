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

Cost per pooling: one product of the rows' residuals with the K eigenbases (what one QDA
prediction costs), then :math:`O(K d G)` multiply-adds per row for all G shrinkages, and the
criterion, in one compiled call (:func:`linclass.selection.shifted_kernel.pooling_pass`) over the
rows sorted by class, a cache-sized block at a time, with no temporary of the rows' size.  The
poolings are independent passes (:meth:`LooGrid.sums`, :meth:`LooGrid.scores`);
:func:`linclass.selection.regularized_cv.loo_grid_sums` runs them in threads on large data.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from linclass.core.threads import blas_threads_for
from linclass.generative.class_stats import ClassStats
from linclass.selection.downdate import row_downdates
from linclass.selection.leave_one_out import loo_log_priors
from linclass.selection.shifted_kernel import (BLOCK, LOG_TERMS, SUM_TERMS, pooling_pass,
                                               sorted_residuals)

__all__ = ["LooGrid", "loo_grid_scores", "loo_scores"]

_SINGULAR = 1e-10


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
    with blas_threads_for(0):  # small products: a block of rows with the bases
        grid = LooGrid(stats, X, rows, loo_log_priors(stats, rows, priors))
        (setup,) = grid.setups([pooling], shrinkages)
        return grid.scores(setup)


class LooGrid:
    """The leave-one-out class scores of the rows of X at every shrinkage of a pooling, from the
    statistics of all rows and the rows' downdates: the rows sorted by class once, their residuals
    in blocks for :func:`linclass.selection.shifted_kernel.pooling_pass`.

    Parameters
    ----------
    stats : ClassStats of kind 'full' of (X, y, sample_weight)
    X : ndarray of shape (n_samples, d)
    rows : RowDowndates of these rows
    log_priors : ndarray of shape (n_samples, n_classes)
        :func:`linclass.selection.leave_one_out.loo_log_priors`.

    Passes (:meth:`sums`, :meth:`scores`) share nothing but this grid's read-only arrays, so several
    may run in threads at once.
    """

    def __init__(self, stats: ClassStats, X: np.ndarray, rows, log_priors: np.ndarray):
        self.stats = stats
        n, d = X.shape
        K = stats.n_classes
        own = np.asarray(rows.own, dtype=np.int64)
        self.n = n
        self.order = np.argsort(own, kind="stable")
        self.rowk = np.ascontiguousarray(own[self.order])
        blocks = -(-n // BLOCK)
        residual = np.empty((n, d))
        self.rr = np.empty(n)
        # layout (blocks, d, BLOCK): each block's product with the bases is one dgemm
        self.RB = np.zeros((blocks, d, BLOCK))
        sorted_residuals(np.ascontiguousarray(X, dtype=np.float64), self.order, self.rowk,
                         np.ascontiguousarray(stats.means), residual, self.RB, self.rr)
        # r_i^T (mu_k - mu_j) for the rows of each class k, layout (K, n)
        self.rm = np.zeros((K, n))
        bounds = np.searchsorted(self.rowk, np.arange(K + 1))
        for k in range(K):
            part = slice(bounds[k], bounds[k + 1])
            self.rm[:, part] = (stats.means[k] - stats.means) @ residual[part].T
        self.coef = np.ascontiguousarray(rows.coef[self.order], dtype=np.float64)
        self.weight = np.ascontiguousarray(rows.weight[self.order], dtype=np.float64)
        self.scale2 = np.ascontiguousarray(rows.own_scale[self.order] ** 2, dtype=np.float64)
        self.log_priors = np.ascontiguousarray(np.broadcast_to(log_priors, (n, K))[self.order].T)

    def setups(self, poolings, shrinkages) -> list:
        """Each pooling's model in the form :meth:`sums` and :meth:`scores` take (the
        eigendecompositions and the series' coefficients), all poolings at once."""
        stats = self.stats
        d, K = stats.n_features, stats.n_classes
        lams = np.asarray(poolings, dtype=np.float64).reshape(-1)
        L = lams.size
        lam4 = lams[:, None, None, None]
        A = (1.0 - lam4) * stats.scatter[None] + lam4 * stats.pooled_scatter()[None, None]
        D = (1.0 - lams[:, None]) * stats.counts[None] + lams[:, None] * stats.total
        nu, U = np.linalg.eigh((A + np.swapaxes(A, -1, -2)) / 2)  # (L, K, d), (L, K, d, d)
        nu = np.maximum(nu, 0.0)
        traces = np.trace(A, axis1=2, axis2=3)  # (L, K)
        # U_j^T (mu_k - mu_j), zero where k = j: a row's coordinates in class j's basis are its
        # residual's plus the column of its own class
        G = np.einsum("jkd,ajde->ajek", stats.means[None, :, :] - stats.means[:, None, :], U)
        gg = np.einsum("ajek,ajek->ajk", G, G)
        gammas = np.array([float(g) for g in shrinkages])
        singular = np.any(nu[:, :, 0] <= _SINGULAR * nu[:, :, -1], axis=1)  # (L,)
        identity = gammas == 1.0
        ratio = np.where(identity, 0.0, gammas / np.where(identity, 1.0, 1.0 - gammas))
        base = nu[..., None] + ratio * (traces / d)[:, :, None, None]  # (L, K, d, G)
        base[..., identity] = 1.0
        # a singular column (shrinkage 0 with a singular A_j) is left out below
        with np.errstate(divide="ignore", invalid="ignore"):
            binv = 1.0 / base
            log_base = np.log(base).sum(axis=2)  # (L, K, G)
            q = base[:, :, :1] / base  # <= 1
            terms = np.arange(1, LOG_TERMS + 1)
            log_coef = (q[..., None] ** terms).sum(axis=2) / terms  # (L, K, G, LOG_TERMS)
            series = binv[..., None] * q[..., None] ** np.arange(SUM_TERMS)  # (L, K, d, G, S)
            sgg_coef = np.einsum("ajlk,ajlcs->ajkcs", G * G, series)  # (L, K, K, G, S)
        hcoef = series.transpose(0, 1, 3, 4, 2)  # (L, K, G, S, d)
        one_minus = np.where(identity, 1.0, 1.0 - gammas)
        out = []
        for a in range(L):
            valid = ~(singular[a] & (gammas == 0.0))
            cols = np.flatnonzero(valid)
            shared = all(np.array_equal(U[a, 0], U[a, j]) for j in range(1, K))
            UT = U[a, :1 if shared else K].transpose(0, 2, 1).reshape(-1, d)  # rows U_j[:, l]

            def pick(x, axis):
                return np.ascontiguousarray(np.take(x[a], cols, axis=axis))

            args = (np.ascontiguousarray(UT), shared, float(lams[a]), D[a].copy(),
                    traces[a] / d, np.ascontiguousarray(G[a]), gg[a].copy(), pick(binv, 2),
                    pick(base, 2), ratio[cols].copy(), identity[cols].copy(),
                    one_minus[cols].copy(), np.log(one_minus[cols]), pick(log_base, 1),
                    pick(log_coef, 1), pick(hcoef, 1), pick(sgg_coef, 2))
            out.append(_Setup(valid, cols, args))
        return out

    def sums(self, setup, code: int, weight) -> tuple:
        """The criterion's weighted sums over the rows at one pooling (a :meth:`setups` entry):
        ``(sums, valid, bad)``.

        code 0, 1, 2: ``'neg_log_loss'``, ``'accuracy'``, ``'log_likelihood'``; weight of shape
        (n_samples,) in the rows' order (ones without weights).  sums of shape (n_shrinkages,)
        (zero where not valid); bad: the first row whose scores have no finite maximum, or -1
        (the sums are then incomplete).
        """
        w = np.ascontiguousarray(np.asarray(weight, dtype=np.float64)[self.order])
        return self._pass(setup, code, w, np.zeros((1, 1, 1)))

    def scores(self, setup) -> tuple:
        """``(scores, valid)``: every row's scores at every shrinkage of one pooling (a
        :meth:`setups` entry), shape (n_shrinkages, n_samples, n_classes) (zeros where not valid),
        and valid of shape (n_shrinkages,)."""
        scores = np.zeros((setup.valid.size, self.n, self.stats.n_classes))
        kernel_scores = np.zeros((setup.cols.size, self.n, self.stats.n_classes))
        _, valid, _ = self._pass(setup, -1, self.weight, kernel_scores)
        scores[setup.cols] = kernel_scores
        scores[~valid] = 0.0
        return scores, valid

    def _pass(self, setup, code: int, w, scores):
        C = setup.cols.size
        totals, comps = np.zeros(C), np.zeros(C)
        invalid = np.zeros(C, dtype=bool)
        bad = -1
        if self.n:
            bad = pooling_pass(self.RB, self.n, self.rowk, self.rr, self.rm, self.coef,
                               self.weight, self.scale2, self.log_priors, *setup.args, _SINGULAR,
                               code, code == 2, w, totals, comps, invalid, scores, self.order)
        valid = setup.valid.copy()
        valid[setup.cols[invalid]] = False
        out = np.zeros(valid.size)
        out[setup.cols] = totals + comps
        out[~valid] = 0.0
        return out, valid, int(bad)


class _Setup(NamedTuple):
    """One pooling's model for :func:`linclass.selection.shifted_kernel.pooling_pass`: which
    shrinkages are defined (valid, shape (n_shrinkages,)), the kernel's columns among them, and
    the kernel's arguments from ``UT`` to ``sgg_coef``."""

    valid: np.ndarray
    cols: np.ndarray
    args: tuple
