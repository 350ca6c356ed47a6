"""The perceptron learning rule (Rosenblatt 1958; Bishop 2006 sec. 4.1.7); its basis expansions are
:mod:`linclass.linear.perceptron.basis_functions`.

The model is a generalized linear model with a step activation (Bishop 2006 eq. 4.52),

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
predicted class p, :math:`w_t \\mathrel{+}= \\phi_n`, :math:`w_p \\mathrel{-}= \\phi_n`.  With class
weights :math:`c_k` the pull :math:`w_t \\mathrel{+}= c_t\\phi_n` is weighted and the push
:math:`w_p \\mathrel{-}= \\phi_n` is not (times the sample weight, both): scikit-learn's one-vs-rest
weighting, where each class's own patterns carry its weight and the other classes' patterns weight 1,
so that a heavily weighted class wins its region.

scikit-learn's SGD options change the rule as follows (all off by default, which is Rosenblatt's rule):
a learning rate :math:`\\eta` multiplies every update; without a bias the activation is :math:`w^T\\phi`
alone; the penalties ('l2', 'l1', 'elasticnet') move every weight at every visit and are
:mod:`linclass.linear.perceptron.truncated`.  Each epoch also reports its perceptron criterion
:math:`\\sum_{n\\in\\mathcal M} -a_nt_n` (weighted; for K classes :math:`a_{p}-a_{t}`), measured at each
pattern's visit, which scikit-learn's ``tol`` stopping rule reads.

The rule is sequential, but most patterns are classified correctly and leave w unchanged, so
:func:`run_epoch` scores a block of upcoming patterns with one matrix product, applies the update of the
first misclassified one and rescans the rest of the block with the new weights.  The sequence of updates
is exactly that of the per-sample loop; only the summation order inside each dot product differs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

__all__ = ["Patterns", "predict_index", "run_epoch", "scores"]


def scores(Phi: np.ndarray, coef: np.ndarray, intercept: np.ndarray) -> np.ndarray:
    """Activations :math:`a = w^T\\phi + w_0` of shape (n_samples, n_rows of coef)."""
    return Phi @ coef.T + intercept  # (float32 weights and a float64 bias: float64, as scikit-learn)


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


_DENSE_ENOUGH = 1 << 20  # sparse patterns with a dense copy this small are densified


@dataclass(frozen=True, eq=False)
class Patterns:
    """The training patterns as the rule scans them (one copy of the features).

    Zero-weight patterns never update and are left out (unless built with ``keep_all``, for the rules
    in which every visit counts): ``rows`` holds the original indices of those kept (None: all
    ``n_samples``), ``y`` their class indices (two classes: 1 is :math:`t = +1`) and ``weight`` their
    weights (None: all one); for K > 2 classes ``push`` weights the update of the wrongly predicted
    class (None: ``weight``; see the module docstring).  ``Z`` of shape (n_active, 1 + n_basis) holds
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
    bias: bool = True
    push: np.ndarray | None = None

    @classmethod
    def build(cls, Phi, y, n_classes: int, sample_weight=None, *, bias: bool = True, push=None,
              keep_all: bool = False) -> Patterns:
        """``Phi`` dense, or scipy.sparse (then ``Z`` is CSR, never densified, unless its dense copy
        would be small: below 2**20 entries the dense rule is faster); without ``bias`` the updates
        leave the bias weight where it starts; ``push`` (K > 2) as in the class docstring."""
        n = Phi.shape[0]
        rows = None
        acting = None if sample_weight is None else (
            sample_weight > 0 if push is None else (sample_weight > 0) | (push > 0))
        if acting is not None and not keep_all and not np.all(acting):
            rows = np.flatnonzero(acting)
            Phi, y, sample_weight = Phi[rows], y[rows], sample_weight[rows]
            push = None if push is None else push[rows]
        threshold = None
        positive = y == 1
        if sp.issparse(Phi) and Phi.shape[0] * (Phi.shape[1] + 1) <= _DENSE_ENOUGH:
            Phi = Phi.toarray()
        if sp.issparse(Phi):
            ones = np.ones((Phi.shape[0], 1))
            Z = sp.hstack([sp.csr_matrix(ones), Phi], format="csr")
            if n_classes == 2:
                Z = sp.diags(np.where(positive, 1.0, -1.0)) @ Z
                threshold = np.where(positive, 0.0, _tie_threshold())
            Z = Z.tocsr()
            Z.sort_indices()  # the bias component first in every row
            return cls(Z, y, sample_weight, threshold, rows, n, bias, push)
        Z = np.empty((Phi.shape[0], Phi.shape[1] + 1))
        Z[:, 0] = 1.0
        Z[:, 1:] = Phi
        if n_classes == 2:
            np.negative(Z, out=Z, where=~positive[:, None])
            threshold = np.where(positive, 0.0, _tie_threshold())
        return cls(Z, y, sample_weight, threshold, rows, n, bias, push if n_classes > 2 else None)

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
            wrong = np.asarray(self.Z @ W[0]).ravel() < self.threshold
        else:
            wrong = np.asarray(self.Z @ W.T).argmax(axis=1) != self.y
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


def _row(R, k: int) -> np.ndarray:
    """Row k of a block (dense, or a CSR row as a dense vector)."""
    return R[k].toarray().ravel() if sp.issparse(R) else R[k]


def run_epoch(P: Patterns, W: np.ndarray, order: np.ndarray | None = None, *,
              eta: float = 1.0) -> tuple[int, float]:
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
    eta : float
        Learning rate: each update is :math:`\\eta\\,\\phi_nt_n` (times the pattern's weight).

    Returns
    -------
    (int, float)
        The number of misclassified patterns met (updates made), and the epoch's objective summed
        over the visits as scikit-learn's stopping rule reads it: each pattern's perceptron criterion
        at its visit (unweighted).
    """
    if sp.issparse(P.Z):
        return _run_epoch_sparse(P, W, order, eta)
    Z, n = P.Z, P.Z.shape[0] if order is None else order.size
    binary, w, views = P.threshold is not None, W[0], list(W)  # views: rows of W, updated in place
    lo, hi = _block_bounds(*W.shape[::-1])
    size, pos, mistakes, loss = lo, 0, 0, 0.0
    while pos < n:
        end = min(pos + size, n)
        if order is None:
            idx, R = slice(pos, end), Z[pos:end]
        else:
            idx = order[pos:end]
            R = Z[idx] if sp.issparse(Z) else Z.take(idx, axis=0)
        yb = P.y[idx]
        tb = P.threshold[idx] if binary else None
        sb = None if P.weight is None else P.weight[idx]
        pb = sb if P.push is None else P.push[idx]
        start, found, length = 0, 0, end - pos
        while start < length:
            if binary:
                margin = np.asarray(R[start:] @ w).ravel()
                wrong = margin < tb[start:]
            else:
                S = np.asarray(R[start:] @ W.T)
                pred = S.argmax(axis=1)
                wrong = pred != yb[start:]
            i = int(wrong.argmax())
            if not wrong[i]:
                break
            k = start + i
            scale = eta if sb is None else eta * sb[k]
            step = _row(R, k) * scale if scale != 1.0 else _row(R, k)
            if not P.bias:  # the bias weight stays where it started
                step = step.copy()
                step[0] = 0.0
            if binary:  # z_k = t_k phi_k: w <- w + phi_k t_k (eq. 6.9)
                loss -= margin[i]
                w += step
            else:
                loss += S[i, pred[i]] - S[i, yb[k]]
                views[yb[k]] += step
                if pb is not sb:  # the push is weighted by the sample weight only
                    step = _row(R, k) * (eta * pb[k])
                    if not P.bias:
                        step[0] = 0.0
                views[pred[i]] -= step
            found += 1
            start = k + 1
        mistakes += found
        size = _next_block(size, length, found, lo, hi)
        pos = end
    return mistakes, float(loss)


_SPARSE_BLOCK = 512  # rows per block of a sparse epoch: the block's Gram matrix stays small


def _run_epoch_sparse(P: Patterns, W: np.ndarray, order, eta: float):
    """:func:`run_epoch` for sparse patterns: a block's activations come from one sparse product, and
    an update changes those of the rest of the block by a column of the block's Gram matrix
    :math:`G = Z_bZ_b^T` (formed once per block), so a mistake costs O(block + nnz of its row)."""
    Z, n = P.Z, P.Z.shape[0] if order is None else order.size
    binary = P.threshold is not None
    mistakes, loss = 0, 0.0
    for pos in range(0, n, _SPARSE_BLOCK):
        end = min(pos + _SPARSE_BLOCK, n)
        idx = slice(pos, end) if order is None else order[pos:end]
        R = Z[idx]
        yb = P.y[idx]
        sb = None if P.weight is None else P.weight[idx]
        pb = sb if P.push is None else P.push[idx]
        S = np.asarray(R @ W.T)  # (m, rows of W)
        G = None
        z0 = None if P.bias else R[:, [0]].toarray().ravel()  # bias components, when they stay put
        start, length = 0, end - pos
        while start < length:
            if binary:
                wrong = S[start:, 0] < P.threshold[idx][start:]
            else:
                pred = S[start:].argmax(axis=1)
                wrong = pred != yb[start:]
            i = int(wrong.argmax())
            if not wrong[i]:
                break
            if G is None:
                G = (R @ R.T).toarray()
            k = start + i
            scale = eta * (1.0 if sb is None else sb[k])
            bias_scale = scale if P.bias else 0.0
            lo_, hi_ = R.indptr[k], R.indptr[k + 1]
            cols, vals = R.indices[lo_:hi_], R.data[lo_:hi_]
            unit = G[:, k]  # the change of the block's activations per unit step along z_k
            if z0 is not None:  # the bias component of the step is dropped: so is z_j0 z_k0
                unit = unit - z0 * z0[k]
            if binary:
                loss -= S[k, 0]
                W[0, cols] += scale * vals
                W[0, 0] += (bias_scale - scale) * _first(R, k)
                S[:, 0] += scale * unit
            else:
                t, p = yb[k], pred[i]
                loss += S[k, p] - S[k, t]
                push = scale if pb is sb else eta * pb[k]  # (the push: sample weight only)
                for row, sign, step in ((t, 1.0, scale), (p, -1.0, push)):
                    W[row, cols] += sign * step * vals
                    W[row, 0] -= sign * (0.0 if P.bias else step) * _first(R, k)
                S[:, t] += scale * unit
                S[:, p] -= push * unit
            mistakes += 1
            start = k + 1
    return mistakes, float(loss)


def _first(R, k: int) -> float:
    """The bias component z_k0 of row k of a CSR block (the first stored entry, column 0)."""
    lo_ = R.indptr[k]
    return float(R.data[lo_]) if R.indptr[k + 1] > lo_ and R.indices[lo_] == 0 else 0.0
