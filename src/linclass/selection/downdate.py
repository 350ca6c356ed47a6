"""Leave-one-out downdates of class statistics: for every training row at once, the counts, means,
scatter and moments of the data without that row, as rank-one corrections of the full statistics.

For a row :math:`x_i` of class :math:`k = y_i` with weight :math:`w_i` (a frequency weight: the row is
removed with all of its weight), write :math:`r_i = x_i - \\mu_k`, :math:`n_k' = n_k - w_i`.  The
merge formula of :mod:`linclass.generative.class_stats` read backwards gives

.. math::

    \\mu_k' = \\mu_k - \\frac{w_i}{n_k'} r_i, \\qquad
    S_k' = S_k - c_i\\, r_i r_i^T, \\quad c_i = \\frac{w_i n_k}{n_k'}, \\qquad
    x_i - \\mu_k' = \\frac{n_k}{n_k'}\\, r_i

and every other class keeps its statistics (the pooled :math:`S_W = \\sum_k S_k` takes the same
rank-one downdate).  Nothing here loops over rows: each quantity is an array over all rows.
"""

from __future__ import annotations

import numpy as np

from linclass.generative.class_stats import ClassStats

__all__ = ["RowDowndates", "fourth_without", "row_downdates", "total_variance_without", "without"]


class RowDowndates:
    """Per-row statistics of the data without that row.

    Attributes
    ----------
    own : ndarray of shape (n_samples,), int
        Class index :math:`y_i`.
    weight : ndarray of shape (n_samples,)
        :math:`w_i` (ones without sample weights).
    remaining : ndarray of shape (n_samples,)
        :math:`n_{y_i}' = n_{y_i} - w_i`, the weight left in the row's class.
    total : ndarray of shape (n_samples,)
        :math:`n - w_i`.
    shift : ndarray of shape (n_samples,)
        :math:`w_i / n_{y_i}'`: the own class mean moves to :math:`\\mu_k - \\text{shift}_i\\, r_i`.
    coef : ndarray of shape (n_samples,)
        :math:`c_i = w_i n_{y_i} / n_{y_i}'`: the own scatter becomes :math:`S_k - c_i r_i r_i^T`.
    own_scale : ndarray of shape (n_samples,)
        :math:`n_k / n_k'`: :math:`x_i - \\mu_k' = (n_k / n_k')\\, r_i`.
    residual : ndarray of shape (n_samples, n_features)
        :math:`r_i = x_i - \\mu_{y_i}` (full-data mean), computed on first use.
    """

    def __init__(self, own, weight, remaining, total, shift, X=None, means=None, residual=None):
        self.own, self.weight, self.remaining, self.total = own, weight, remaining, total
        self.shift = shift
        self.coef = shift * (remaining + weight)
        self.own_scale = 1.0 + shift
        self._X, self._means, self._residual = X, means, residual

    @property
    def residual(self) -> np.ndarray:
        if self._residual is None:
            self._residual = self._X - self._means[self.own]
        return self._residual

    def subset(self, idx) -> RowDowndates:
        """The same for the rows ``idx`` only."""
        return RowDowndates(self.own[idx], self.weight[idx], self.remaining[idx], self.total[idx],
                            self.shift[idx], residual=self.residual[idx])


def row_downdates(stats: ClassStats, X: np.ndarray, y: np.ndarray,
                  sample_weight: np.ndarray | None = None) -> RowDowndates:
    """The rank-one downdates of ``stats`` (computed from exactly these rows) for every row.

    Parameters
    ----------
    stats : ClassStats of X, y, sample_weight
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), int
        Class index of each row.
    sample_weight : ndarray of shape (n_samples,) or None

    Raises
    ------
    ValueError
        When removing a row would leave its class without weight (a class of one row): the model
        without that row has no such class, which no downdate can express.
    """
    w = np.ones(y.size) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    remaining = stats.counts[y] - w
    empty = (remaining <= 0) & (w > 0)
    if np.any(empty):
        labels = np.unique(stats.classes[y[empty]]).tolist()
        raise ValueError(
            f"Class(es) {labels} have a single row (all of the class's weight): leaving it out "
            "removes the class, so leave-one-out is not defined for it. Give every class at "
            "least two rows."
        )
    shift = np.divide(w, remaining, out=np.zeros_like(w), where=w > 0)
    return RowDowndates(y, w, remaining, stats.total - w, shift, X=X, means=stats.means)


def total_variance_without(stats: ClassStats, X: np.ndarray, rows: RowDowndates) -> np.ndarray:
    """Per-feature variance of all samples (divided by the weight) without each row, shape
    (n_samples, n_features): what :meth:`ClassStats.total_variance` gives on the remaining rows.

    The total scatter about the grand mean :math:`\\bar x` downdates like a class's:
    :math:`T' = T - \\frac{w_i n}{n - w_i}(x_i - \\bar x)^2` (per feature).
    """
    n = stats.total
    scatter = stats.total_variance() * n
    g = X - stats.grand_mean()
    c = rows.weight * n / rows.total
    return (scatter - c[:, None] * g * g) / rows.total[:, None]


def fourth_without(stats: ClassStats, rows: RowDowndates, r_S_r: np.ndarray,
                   third_dot_r: np.ndarray) -> np.ndarray:
    """The own class's :math:`\\sum w\\lVert x - \\mu_k'\\rVert^4` over the remaining rows (Ledoit-Wolf
    shrinkage needs it), shape (n_samples,).

    With :math:`u = x - \\mu_k` over the class, the remaining rows have
    :math:`F_1 = F - w\\lVert r\\rVert^4`, :math:`T_1 = T - w\\lVert r\\rVert^2 r`, :math:`S_1 = S_k - w rr^T`
    and first moment :math:`-wr` about :math:`\\mu_k`; moving the centre by
    :math:`\\delta = -\\frac{w}{n_k'} r`:

    .. math::

        F' = F_1 - 4T_1\\cdot\\delta + 4\\delta^TS_1\\delta + 2\\,\\mathrm{tr}(S_1)\\lVert\\delta\\rVert^2
             + n_k'\\lVert\\delta\\rVert^4 + 4w\\lVert\\delta\\rVert^2 (r\\cdot\\delta)

    (the last term is the first moment's, zero in :func:`linclass.generative.scatter_passes.shift_moments`
    where the centre is the mean).

    Parameters
    ----------
    stats : ClassStats with ``fourth`` and ``third`` (kind 'full', ``moments=True``)
    rows : RowDowndates
    r_S_r : ndarray of shape (n_samples,)
        :math:`r_i^T S_{y_i} r_i`.
    third_dot_r : ndarray of shape (n_samples,)
        :math:`T_{y_i} \\cdot r_i`.
    """
    k, w, m = rows.own, rows.weight, rows.remaining
    rr = np.einsum("ij,ij->i", rows.residual, rows.residual)
    F1 = stats.fourth[k] - w * rr * rr
    T1_r = third_dot_r - w * rr * rr  # T_1 . r
    S1_rr = r_S_r - w * rr * rr  # r^T S_1 r
    tr_S1 = np.trace(stats.scatter, axis1=1, axis2=2)[k] - w * rr
    t = -w / m  # delta = t r
    dd = t * t * rr
    return (F1 - 4 * t * T1_r + 4 * t * t * S1_rr + 2 * tr_S1 * dd + m * dd * dd
            + 4 * w * dd * (t * rr))


def without(stats: ClassStats, part: ClassStats) -> ClassStats:
    """The statistics of the rows of ``stats`` that are not in ``part`` (a subset of them, same
    classes and kind 'full' or 'tied'): the merge formula of
    :meth:`ClassStats.merge` solved for one of its operands,

    .. math::

        n_a = n - n_b, \\quad \\mu_a = \\frac{n\\mu - n_b\\mu_b}{n_a}, \\quad
        S_a = S - S_b - \\frac{n_a n_b}{n}(\\mu_b - \\mu_a)(\\mu_b - \\mu_a)^T

    (a class with no weight left gets zeros).  This is how K-fold cross-validation gets every
    training fold's statistics from one pass over the data.
    """
    n = stats.counts
    n_a = n - part.counts
    keep = n_a > 0
    mu_a = np.zeros_like(stats.means)
    np.divide(stats.means * n[:, None] - part.means * part.counts[:, None], n_a[:, None],
              out=mu_a, where=keep[:, None])
    delta = part.means - mu_a
    c = np.divide(n_a * part.counts, n, out=np.zeros_like(n), where=n > 0)
    if stats.kind == "full":
        scatter = stats.scatter - part.scatter - c[:, None, None] * (delta[:, :, None] * delta[:, None, :])
        scatter[~keep] = 0.0
    elif stats.kind == "tied":
        scatter = stats.scatter - part.scatter - (delta.T * c) @ delta
    else:
        raise ValueError(f"without() needs 'full' or 'tied' statistics, not {stats.kind!r}.")
    return ClassStats(stats.classes, n_a, stats.n_rows - part.n_rows, mu_a,
                      (scatter + np.swapaxes(scatter, -1, -2)) / 2, stats.kind)
