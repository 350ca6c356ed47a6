"""The perceptron learning rule (seed 003, section 6.1.4); its basis expansions are
:mod:`linclass.linear.basis_functions`.

The model is a generalized linear model with a step activation (seed 003, eq. 6.8),

.. math:: y(x) = f(w^T\\phi(x)), \\qquad f(a) = +1 \\text{ if } a \\ge 0, \\; -1 \\text{ otherwise},

where the feature vector :math:`\\phi(x)` includes the bias component :math:`\\phi_0(x) = 1` (stored
separately as the intercept).  Training minimises the perceptron criterion

.. math:: E_P(w) = -\\sum_{n \\in \\mathcal{M}} w^T\\phi_n t_n

(:math:`\\mathcal{M}` the misclassified patterns, :math:`t_n \\in \\{-1, +1\\}`) by stochastic gradient
descent with learning rate :math:`\\eta = 1`: cycling through the patterns, each misclassified one gives

.. math:: w^{(\\tau+1)} = w^{(\\tau)} + \\phi_n t_n \\qquad \\text{(eq. 6.9)}

(times the pattern's sample weight, when weights are given).  By the perceptron convergence theorem the
rule finds an exact solution in a finite number of steps whenever one exists.

For :math:`K > 2` classes this is the multi-class perceptron: one weight vector per class, prediction
:math:`\\arg\\max_k w_k^T\\phi` (ties go to the lowest index) and, on an error with true class t and
predicted class p, :math:`w_t \\mathrel{+}= \\phi_n`, :math:`w_p \\mathrel{-}= \\phi_n`.

The rule is sequential, but most patterns are classified correctly and leave w unchanged, so
:func:`run_epoch` scores a block of upcoming patterns with one matrix product, applies the update of the
first misclassified one and rescans the rest of the block with the new weights.  The sequence of updates
is exactly that of the per-sample loop; only the summation order inside each dot product differs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from threadpoolctl import ThreadpoolController

__all__ = [
    "PerceptronFit",
    "make_rng",
    "Patterns",
    "predict_index",
    "run_epoch",
    "scores",
    "train",
]


def scores(Phi: np.ndarray, coef: np.ndarray, intercept: np.ndarray) -> np.ndarray:
    """Activations :math:`a = w^T\\phi + w_0` of shape (n_samples, n_rows of coef)."""
    S = Phi @ coef.T
    S += intercept
    return S


def predict_index(S: np.ndarray) -> np.ndarray:
    """Class index from activations: one column (two classes) gives 1 where :math:`f(a) = +1`, i.e.
    :math:`a \\ge 0`; K columns give :math:`\\arg\\max_k a_k`, ties to the lowest index."""
    if S.shape[1] == 1:
        return (S[:, 0] >= 0).astype(np.intp)
    return S.argmax(axis=1)


def _tie_threshold() -> float:
    """The least positive float the processor compares as positive (subnormal unless it flushes
    subnormals to zero): :math:`m \\le 0` iff :math:`m <` this threshold."""
    tiny = np.nextafter(0.0, 1.0)
    return float(tiny) if np.greater(tiny, 0.0) else float(np.finfo(np.float64).tiny)


@dataclass(frozen=True, eq=False)
class Patterns:
    """The training patterns as the rule scans them (one copy of the features).

    Zero-weight patterns never update and are left out: ``rows`` holds the original indices of those
    kept (None: all ``n_samples``), ``y`` their class indices (two classes: 1 is :math:`t = +1`) and
    ``weight`` their positive weights (None: all one).  ``Z`` of shape (n_active, 1 + n_basis) holds
    the rows :math:`z_n = (\\phi_0 = 1, \\phi(x_n))`, for two classes times :math:`t_n`, so that a pattern
    is misclassified iff :math:`w^T z_n` is below its ``threshold``: 0 for :math:`t = +1` (:math:`a < 0`),
    the least positive float for :math:`t = -1` (:math:`-a \\le 0`, i.e. :math:`f(a) = +1`).
    """

    Z: np.ndarray
    y: np.ndarray
    weight: np.ndarray | None
    threshold: np.ndarray | None
    rows: np.ndarray | None
    n_samples: int

    @classmethod
    def build(cls, Phi, y, n_classes: int, sample_weight=None) -> Patterns:
        n = Phi.shape[0]
        rows = None
        if sample_weight is not None and not np.all(sample_weight > 0):
            rows = np.flatnonzero(sample_weight > 0)
            Phi, y, sample_weight = Phi[rows], y[rows], sample_weight[rows]
        Z = np.empty((Phi.shape[0], Phi.shape[1] + 1))
        Z[:, 0] = 1.0
        Z[:, 1:] = Phi
        threshold = None
        if n_classes == 2:
            positive = y == 1
            np.negative(Z, out=Z, where=~positive[:, None])
            threshold = np.where(positive, 0.0, _tie_threshold())
        return cls(Z, y, sample_weight, threshold, rows, n)

    def visit_order(self, permutation: np.ndarray) -> np.ndarray:
        """A permutation of all n_samples patterns as positions in ``Z`` (zero weights skipped)."""
        if self.rows is None:
            return permutation
        position = np.full(self.n_samples, -1, dtype=np.intp)
        position[self.rows] = np.arange(self.rows.size)
        order = position[permutation]
        return order[order >= 0]

    def error(self, W: np.ndarray) -> float:
        """Training errors (total weight of misclassified patterns) of augmented weights W, one pass."""
        if self.threshold is not None:
            wrong = self.Z @ W[0] < self.threshold
        else:
            wrong = (self.Z @ W.T).argmax(axis=1) != self.y
        return float(wrong.sum() if self.weight is None else self.weight @ wrong)


def _block_bounds(width: int, n_rows: int) -> tuple[int, int]:
    """Smallest and largest block (patterns scored per product) for W of shape (n_rows, width): a
    product over ``lo`` patterns costs about as much as the Python overhead of one step; ``hi``
    patterns stay within a few MiB of cache."""
    lo = min(max(2048 // (width * n_rows), 32), 256)
    hi = max(min((1 << 17) // width, 1 << 16), lo)
    return lo, hi


def _next_block(size: int, length: int, found: int, lo: int, hi: int) -> int:
    """Double the block after a clean one; else aim at twice the observed gap between errors."""
    if found == 0:
        return min(2 * size, hi)
    return min(max(2 * length // found, lo), hi)


def run_epoch(P: Patterns, W: np.ndarray, order: np.ndarray | None = None) -> int:
    """One pass of the perceptron rule over the patterns, updating the weights W in place.

    Block-wise but exactly sequential: score the next block of patterns with the current weights (one
    product), apply the update of the first misclassified pattern, rescore the rest of the block with
    the new weights; a block without error costs one product.

    Parameters
    ----------
    P : Patterns
    W : ndarray of shape (1, 1 + n_basis) (two classes) or (n_classes, 1 + n_basis)
        Augmented weights :math:`(w_0, w)`, modified in place.
    order : ndarray or None
        Positions in ``P.Z`` in the order to visit them (None: stored order).

    Returns
    -------
    int
        The number of misclassified patterns met, i.e. of updates made.
    """
    Z, n = P.Z, P.Z.shape[0] if order is None else order.size
    binary, w, views = P.threshold is not None, W[0], list(W)  # views: rows of W, updated in place
    lo, hi = _block_bounds(*W.shape[::-1])
    size, pos, mistakes = lo, 0, 0
    while pos < n:
        end = min(pos + size, n)
        if order is None:
            idx, R = slice(pos, end), Z[pos:end]
        else:
            idx = order[pos:end]
            R = Z.take(idx, axis=0)
        yb = P.y[idx]
        tb = P.threshold[idx] if binary else None
        sb = None if P.weight is None else P.weight[idx]
        start, found, length = 0, 0, end - pos
        while start < length:
            if binary:
                wrong = np.dot(R[start:], w) < tb[start:]
            else:
                pred = np.dot(R[start:], W.T).argmax(axis=1)
                wrong = pred != yb[start:]
            i = int(wrong.argmax())
            if not wrong[i]:
                break
            k = start + i
            step = R[k] if sb is None else sb[k] * R[k]
            if binary:  # z_k = t_k phi_k: w <- w + phi_k t_k (eq. 6.9)
                w += step
            else:
                views[yb[k]] += step
                views[pred[i]] -= step
            found += 1
            start = k + 1
        mistakes += found
        size = _next_block(size, length, found, lo, hi)
        pos = end
    return mistakes


@dataclass(frozen=True, eq=False)
class PerceptronFit:
    """The outcome of :func:`train`.

    Attributes
    ----------
    coef : ndarray of shape (1, n_basis) (two classes) or (n_classes, n_basis)
    intercept : ndarray of shape (1,) or (n_classes,)
        Weight of the bias component :math:`\\phi_0 = 1`.
    mistakes : ndarray of shape (n_epochs,), intp
        Updates made (misclassified patterns met) in each epoch: the training curve.
    converged : bool
        Whether the last epoch made no mistake (every positive-weight pattern correctly classified).
    error : float
        Training errors (total sample weight of misclassified patterns) of the returned weights.
    """

    coef: np.ndarray
    intercept: np.ndarray
    mistakes: np.ndarray
    converged: bool
    error: float


@cache
def _blas_controller() -> ThreadpoolController:
    return ThreadpoolController()


def make_rng(random_state) -> np.random.Generator:
    """A numpy Generator from None, an int, a Generator (used as is) or a legacy RandomState."""
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(np.iinfo(np.int32).max))
    return np.random.default_rng(random_state)


def train(
    Phi: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    sample_weight: np.ndarray | None = None,
    *,
    coef: np.ndarray | None = None,
    intercept: np.ndarray | None = None,
    max_epochs: int = 1000,
    shuffle: bool = True,
    rng: np.random.Generator | None = None,
    pocket: bool = False,
) -> PerceptronFit:
    """Run the perceptron rule until an epoch makes no mistake or ``max_epochs`` epochs have run.

    Parameters
    ----------
    Phi : ndarray of shape (n_samples, n_basis)
    y : ndarray of shape (n_samples,), intp, class indices in [0, n_classes)
    n_classes : int >= 2
    sample_weight : ndarray of shape (n_samples,) or None
        Each update is multiplied by the pattern's weight; zero-weight patterns never update.
    coef, intercept : starting weights (default zero), shapes as in :class:`PerceptronFit`; not modified
    max_epochs : int
    shuffle : bool
        Visit the patterns in the order ``rng.permutation(n_samples)``, drawn anew each epoch (else in
        the order given).
    rng : numpy Generator (needed when shuffle is True)
    pocket : bool
        The pocket algorithm: return, among the starting weights and the weights after each epoch, the
        first with the fewest (weighted) training errors, each counted with one vectorised pass.

    Returns
    -------
    PerceptronFit
    """
    # thousands of small products in sequence: BLAS threads only wait on each other (and stall
    # badly when another process holds a core), so the rule runs single-threaded
    with _blas_controller().limit(limits=1, user_api="blas"):
        return _train(Phi, y, n_classes, sample_weight, coef, intercept, max_epochs, shuffle, rng, pocket)


def _train(Phi, y, n_classes, sample_weight, coef, intercept, max_epochs, shuffle, rng, pocket):
    P = Patterns.build(Phi, y, n_classes, sample_weight)
    W = np.zeros((1 if n_classes == 2 else n_classes, P.Z.shape[1]))
    if coef is not None:
        W[:, 0], W[:, 1:] = intercept, coef
    best = (P.error(W), W.copy()) if pocket else None
    mistakes = []
    for _ in range(max_epochs):
        order = P.visit_order(rng.permutation(P.n_samples)) if shuffle else None
        mistakes.append(run_epoch(P, W, order))
        if mistakes[-1] == 0:
            break
        if pocket:
            error = P.error(W)
            if error < best[0]:
                best = (error, W.copy())
    converged = mistakes[-1] == 0
    if converged:
        error = 0.0
    elif pocket:
        error, W = best
    else:
        error = P.error(W)
    return PerceptronFit(
        np.ascontiguousarray(W[:, 1:]), W[:, 0].copy(), np.asarray(mistakes, dtype=np.intp), converged, error
    )
