"""Per-class sufficient statistics: counts, means and centred scatter, computed in one BLAS pass and
merged exactly.

Every Gaussian model (LDA, QDA, Gaussian naive Bayes) and Fisher's discriminant needs only these
numbers.  For a class :math:`k` with (frequency-)weighted samples :math:`\\{(x_i, w_i)\\}`:

.. math::

    n_k = \\sum_i w_i, \\qquad \\mu_k = \\frac{1}{n_k} \\sum_i w_i x_i, \\qquad
    S_k = \\sum_i w_i (x_i - \\mu_k)(x_i - \\mu_k)^T

which are the maximum-likelihood building blocks of docs/math/gaussian.md#maximum-likelihood-class-statistics.

Three kinds of scatter are kept, chosen by what the model needs:

``'full'``  per-class matrices, shape (n_classes, d, d)  (QDA; Ledoit-Wolf shrinkage)
``'tied'``  the pooled within-class scatter :math:`S_W = \\sum_k S_k`, shape (d, d)  (LDA, Fisher)
``'diag'``  per-class diagonals, shape (n_classes, d)  (naive Bayes, spherical)
``'mean'``  no scatter: counts and means only (the discrete naive Bayes family); X may be sparse

Two statistics merge exactly (Chan, Golub & LeVeque 1979): with :math:`n = n_a + n_b` and
:math:`\\delta = \\mu_b - \\mu_a`,

.. math::

    \\mu = \\mu_a + \\frac{n_b}{n} \\delta, \\qquad S = S_a + S_b + \\frac{n_a n_b}{n} \\delta \\delta^T

so ``fit`` on the whole data, ``partial_fit`` on chunks, and a tree of ``merge`` over chunk statistics
give the same numbers up to rounding.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import reduce

import numpy as np
import scipy.sparse as sp

from linclass.core.chunk_validation import validate_chunk, validate_chunk_labels
from linclass.core.chunks import encode_chunk_labels, refuse_non_finite
from linclass.core.validation import LOW_PRECISION_MIN, check_label_type, encode_labels, is_low
from linclass.core.threads import map_chunks, row_chunks
from linclass.generative import scatter_float32, scatter_passes
from linclass.generative.scatter_passes import (
    class_sums, compiled as _compiled, full_scatter, indicator, safe_means, shift_moments,
)

__all__ = ["ClassStats"]

KINDS = ("full", "tied", "diag", "mean")
_FULL_CHUNK_ROWS = 2048  # rows per class in a row chunk of the full scatter (its blocks are per class)

def _stat_bytes(kind: str, n_classes: int, d: int, moments: bool) -> int:
    """Bytes of one batch's statistics (what each row chunk holds until the merge)."""
    per_class = {"full": d * d + (d + 1 if moments else 0), "diag": d}.get(kind, 0) + d
    return 8 * (n_classes * per_class + (d * d if kind == "tied" else 0))


def _float32_pays(X, kind: str, n_classes: int) -> bool:
    """Whether a float32 X is read in float32 (:mod:`linclass.core.validation`): dense, large
    (``LOW_PRECISION_MIN`` entries), with at least ten rows per feature in each product (fewer
    rows make a covariance that is singular or nearly so, which float32 sums cannot give, and its
    condition check would cost as much as the pass)."""
    if sp.issparse(X) or kind == "mean" or X.size < LOW_PRECISION_MIN:
        return False
    per_product = X.shape[0] / (n_classes if kind == "full" else 1)
    return per_product >= 10 * X.shape[1]


@dataclass(frozen=True, eq=False)
class ClassStats:
    """Weighted per-class counts, means and centred scatter (immutable).

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
        Sorted class labels.
    counts : ndarray of shape (n_classes,)
        Total sample weight per class, :math:`n_k`.
    n_rows : ndarray of shape (n_classes,)
        Number of rows seen per class (unweighted).
    means : ndarray of shape (n_classes, n_features)
        Class means :math:`\\mu_k` (zero for a class without weight).
    scatter : ndarray or None
        Of shape (n_classes, d, d) for kind 'full', (d, d) for 'tied' (pooled :math:`S_W`),
        (n_classes, d) for 'diag'; None for 'mean'.
    kind : {'full', 'tied', 'diag', 'mean'}
    fourth : ndarray of shape (n_classes,) or None
        :math:`\\sum_i w_i \\lVert x_i - \\mu_k \\rVert^4` (kind 'full' with ``moments=True``; needed by
        Ledoit-Wolf shrinkage).
    third : ndarray of shape (n_classes, n_features) or None
        :math:`\\sum_i w_i \\lVert x_i - \\mu_k \\rVert^2 (x_i - \\mu_k)`, which lets ``fourth`` merge.
    """

    classes: np.ndarray
    counts: np.ndarray
    n_rows: np.ndarray
    means: np.ndarray
    scatter: np.ndarray | None
    kind: str
    fourth: np.ndarray | None = None
    third: np.ndarray | None = None

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_batch(
        cls,
        X: np.ndarray,
        y: np.ndarray,
        classes: np.ndarray,
        sample_weight: np.ndarray | None = None,
        *,
        kind: str = "tied",
        moments: bool = False,
    ) -> ClassStats:
        """Statistics of one batch.

        The statistics are float64 whatever X's dtype; a large float32 X is read in float32
        (:mod:`linclass.generative.scatter_float32`), and again as float64 where float32 products are not
        accurate enough (:func:`~linclass.generative.scatter_float32.needs_float64`).  For the kinds with
        d x d products ('tied', 'full'), a large float64 X with contiguous rows is read in row
        chunks, on as many threads as BLAS may use (:mod:`linclass.core.threads`): their raw sums
        about common centres are added (:func:`~linclass.generative.scatter_passes.tied_scatter`,
        :func:`~linclass.generative.scatter_passes.scaled_pass`), or with fourth moments their
        statistics merged; the same numbers for any thread count.  (The diagonal
        kind's pass is one read of X, bound by memory: two threads measured no faster, the chunks'
        own costs slower.)

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features), float64 or float32 (or scipy.sparse for kind
            'mean')
        y : ndarray of shape (n_samples,), int
            Class index of each row into ``classes``.
        classes : ndarray of shape (n_classes,)
        sample_weight : ndarray of shape (n_samples,) or None
        kind : {'full', 'tied', 'diag', 'mean'}
        moments : bool
            Also collect the fourth-moment statistics (kind 'full' only).
        """
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}; got {kind!r}.")
        if moments and kind != "full":
            raise ValueError("fourth-moment statistics are collected only with kind='full'.")
        if is_low(X) and not _float32_pays(X, kind, len(classes)):
            X = X.astype(np.float64)
        if kind in ("tied", "full") and _compiled(X):  # large X: row chunks on threads
            chunks = row_chunks(*X.shape, _stat_bytes(kind, len(classes), X.shape[1], moments),
                                align=scatter_passes._BLOCK,
                                min_rows=_FULL_CHUNK_ROWS * len(classes) if kind == "full" else 0)
            if len(chunks) > 1 and not moments:  # the passes add the chunks' raw sums
                return cls._from_rows(X, y, classes, sample_weight, kind, moments, chunks)
            if len(chunks) > 1:  # fourth moments: each chunk's statistics, merged
                parts = map_chunks(
                    lambda rows: cls._from_rows(X[rows], y[rows], classes,
                                                None if sample_weight is None else sample_weight[rows],
                                                kind, moments), chunks)
                return reduce(cls.merge, parts)
        return cls._from_rows(X, y, classes, sample_weight, kind, moments)

    @classmethod
    def _from_rows(cls, X, y, classes, sample_weight, kind: str, moments: bool,
                   chunks=None) -> ClassStats:
        """:meth:`from_batch` on rows read by one thread (or, 'tied' and 'full' without moments of a
        float64 X, by the pass in ``chunks`` of rows on threads)."""
        n_classes = len(classes)
        if chunks is None or sample_weight is None:
            counts = np.bincount(y, weights=sample_weight, minlength=n_classes).astype(np.float64)
        else:  # each chunk's weights summed apart, then added: one running sum over all rows
            # loses digits (LDA's weighted means at 200,000 rows: 6e-15 relative, against 9e-16)
            counts = np.sum([np.bincount(y[rows], weights=sample_weight[rows], minlength=n_classes)
                             for rows in chunks], axis=0)
        n_rows = np.bincount(y, minlength=n_classes)
        fourth = third = None
        if kind == "mean":  # X may be scipy.sparse: one sparse product
            sums = np.asarray((indicator(y, n_classes, sample_weight) @ X).todense()
                              if sp.issparse(X) else class_sums(X, y, sample_weight, n_classes))
            means, scatter = safe_means(sums, counts), None
        elif kind in ("tied", "diag"):  # a float32 X: float32 products, summed in float64
            passes = scatter_float32 if is_low(X) else scatter_passes
            scatter_of = passes.tied_scatter if kind == "tied" else passes.diag_scatter
            means, scatter = (scatter_of(X, y, sample_weight, counts, n_classes) if chunks is None
                              else scatter_of(X, y, sample_weight, counts, n_classes, chunks))
        else:
            means, scatter, fourth, third = full_scatter(
                X, y, sample_weight, counts, n_rows, n_classes, moments, chunks
            )
        if is_low(X) and scatter_float32.needs_float64(
                kind, means, *(a for a in (scatter, fourth, third) if a is not None)):
            return cls._from_rows(X.astype(np.float64), y, classes, sample_weight, kind, moments)
        return cls(np.asarray(classes), counts, n_rows, means, scatter, kind, fourth, third)

    @classmethod
    def from_source(cls, source, classes: np.ndarray | None = None, *, kind: str,
                    moments: bool = False, prepare=None, owner=None, squares=None) -> ClassStats:
        """Merged statistics of a whole chunked source (:class:`linclass.core.chunks.ChunkSource`),
        in one pass: :meth:`from_batch` on each chunk, reduced with :meth:`merge`.

        ``classes``: every label there may be (labels outside are an error), or None for the labels
        found (each chunk's own, united by the merge; a chunk may miss any of them).  ``prepare`` is
        the model's per-chunk input step (``StatsClassifier._prepare``: the checks and transforms of
        discrete naive Bayes); it must act row by row.

        Each chunk is checked as an array in memory is
        (:func:`linclass.core.chunk_validation.validate_chunk`), and the whole source as the
        in-memory fit checks X: statistics that are not finite mean values too large for the
        arithmetic (:func:`linclass.core.validation.explain_non_finite`'s error, for ``owner``: the
        estimator or its name); ``squares`` (the estimator, or its name, of a fit that squares X:
        logistic regression) adds :func:`linclass.core.validation.check_magnitude`'s limit.  The
        errors name the file and row (or the row of the array) of the largest value.
        """
        reduced = source.map_reduce(_chunk_stats, _merge_scanned, source.n_features, classes, kind,
                                    moments, prepare if prepare is not None else _identity)
        if reduced is None:
            raise ValueError(f"Found array with 0 sample(s) (shape=(0, {source.n_features})) while a "
                             "minimum of 1 is required.")
        stats, scan = reduced
        if squares is not None:
            scan.check_squares(squares)
        refuse_non_finite(owner if owner is not None else squares if squares is not None else "the fit",
                          stats, scan)
        if classes is None:
            validate_chunk_labels(stats.classes)
        if not np.any(stats.counts > 0):
            raise ValueError("Every sample_weight is zero: at least one sample needs a positive weight.")
        return stats

    # ------------------------------------------------------------------ shape
    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def n_features(self) -> int:
        return self.means.shape[1]

    @property
    def total(self) -> float:
        """Total sample weight :math:`n = \\sum_k n_k`."""
        return float(self.counts.sum())

    def sums(self) -> np.ndarray:
        """Per-class weighted feature totals :math:`\\sum_{i \\in k} w_i x_i`, shape (n_classes, d)."""
        return self.means * self.counts[:, None]

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The floating-point arrays held (for finiteness checks)."""
        return tuple(a for a in (self.means, self.scatter, self.fourth, self.third) if a is not None)

    # ------------------------------------------------------------------ derived
    def pooled_scatter(self) -> np.ndarray:
        """Pooled within-class scatter :math:`S_W = \\sum_k S_k`, shape (d, d)."""
        if self.kind == "tied":
            return self.scatter
        if self.kind == "full":
            return self.scatter.sum(axis=0)
        raise ValueError("diagonal statistics do not hold the off-diagonal scatter.")

    def class_diagonals(self) -> np.ndarray:
        """Per-class diagonal scatter, shape (n_classes, d)."""
        if self.kind == "diag":
            return self.scatter
        if self.kind == "full":
            return np.diagonal(self.scatter, axis1=1, axis2=2).copy()
        raise ValueError("pooled ('tied') statistics do not hold per-class scatter.")

    def pooled_diagonal(self) -> np.ndarray:
        """Diagonal of :math:`S_W`, shape (d,)."""
        if self.kind == "tied":
            return np.diag(self.scatter).copy()
        return self.class_diagonals().sum(axis=0)

    def grand_mean(self) -> np.ndarray:
        """Weighted mean of all samples, shape (d,)."""
        return self.counts @ self.means / self.total

    def total_variance(self) -> np.ndarray:
        """Per-feature variance of all samples (divided by n), shape (d,).

        :math:`\\mathrm{diag}(S_W) / n + \\sum_k (n_k/n)(\\mu_k - \\bar\\mu)^2`.
        """
        between = self.counts @ (self.means - self.grand_mean()) ** 2
        return (self.pooled_diagonal() + between) / self.total

    # ------------------------------------------------------------------ merging
    def with_classes(self, classes: np.ndarray) -> ClassStats:
        """The same statistics indexed by a superset ``classes`` (absent classes get zero weight)."""
        classes = np.asarray(classes)
        if classes.shape == self.classes.shape and np.array_equal(classes, self.classes):
            return self
        pos = np.searchsorted(classes, self.classes)
        if np.any(pos >= classes.size) or not np.array_equal(classes[pos], self.classes):
            raise ValueError("with_classes needs a sorted superset of the current classes.")
        K, d = classes.size, self.n_features

        def spread(a, shape):
            out = np.zeros(shape, dtype=a.dtype)
            out[pos] = a
            return out

        per_class = self.kind in ("full", "diag")
        return ClassStats(
            classes,
            spread(self.counts, (K,)),
            spread(self.n_rows, (K,)),
            spread(self.means, (K, d)),
            spread(self.scatter, (K,) + self.scatter.shape[1:]) if per_class else self.scatter,
            self.kind,
            None if self.fourth is None else spread(self.fourth, (K,)),
            None if self.third is None else spread(self.third, (K, d)),
        )

    def merge(self, other: ClassStats) -> ClassStats:
        """Exact statistics of the union of the two samples (Chan-Golub-LeVeque update)."""
        if self.kind != other.kind:
            raise ValueError(f"cannot merge {self.kind!r} statistics with {other.kind!r} statistics.")
        if self.n_features != other.n_features:
            raise ValueError(
                f"cannot merge statistics of {self.n_features} and {other.n_features} features."
            )
        classes = np.union1d(self.classes, other.classes)
        a, b = self.with_classes(classes), other.with_classes(classes)
        n = a.counts + b.counts
        frac_b = np.divide(b.counts, n, out=np.zeros_like(n), where=n > 0)
        delta = b.means - a.means
        means = a.means + frac_b[:, None] * delta
        c = a.counts * frac_b  # n_a n_b / n
        if self.kind == "mean":
            scatter = None
        elif self.kind == "tied":
            scatter = a.scatter + b.scatter + (delta.T * c) @ delta
        elif self.kind == "diag":
            scatter = a.scatter + b.scatter + c[:, None] * delta**2
        else:  # one d x d temporary per class for the correction
            scatter = a.scatter + b.scatter
            scatter += (c[:, None] * delta)[:, :, None] * delta[:, None, :]
        fourth = third = None
        if a.fourth is not None and b.fourth is not None:
            fourth, third = np.zeros_like(a.fourth), np.zeros_like(a.third)
            for part in (a, b):
                f, t = shift_moments(part.scatter, part.counts, part.fourth, part.third,
                                     means - part.means)
                fourth += f
                third += t
        return replace(
            a, counts=n, n_rows=a.n_rows + b.n_rows, means=means, scatter=scatter,
            fourth=fourth, third=third,
        )

    def __add__(self, other: ClassStats) -> ClassStats:
        return self.merge(other)


# ------------------------------------------------------------------ chunked sources
def _chunk_stats(chunk, n_features, classes, kind, moments, prepare):
    X, y, w, scan = validate_chunk(chunk, n_features, sparse=kind == "mean", scan=True)  # means:
    if X.shape[0] == 0:  # sparse products
        return None
    if classes is None:  # the chunk's own labels; the merge takes the union
        own, yi = encode_labels(y)
    else:
        own, yi = classes, encode_chunk_labels(y, classes, chunk.where())
    with np.errstate(over="ignore", invalid="ignore"):  # values too large: said after the reduction
        return ClassStats.from_batch(prepare(X), yi, own, w, kind=kind, moments=moments), scan


def _merge_scanned(a: tuple, b: tuple) -> tuple:
    check_label_type(b[0].classes, a[0].classes, seen_in="other chunks")
    with np.errstate(over="ignore", invalid="ignore"):
        return a[0].merge(b[0]), a[1].merge(b[1])


def _identity(X):
    return X
