"""The penalised logistic / softmax objective of :mod:`.penalised` over a chunked design (a Dask
collection, a file read in blocks): what proximal Newton
(:mod:`linclass.linear.solvers.prox_newton_chunked`) asks of the rows, each by one map over the
chunks and a sum.

Layout and scale are those of :class:`~linclass.linear.logistic.penalised.PenalisedObjective`:
one row of coefficients for two classes, one per class for K > 2 (``W`` of shape (m, d)), the
penalty added to the *sum* of the weighted losses, and the intercept internal to the design
centred at the data's mean :math:`c` (:math:`s = (x - c)^TW^T + \\tilde b`, reported as
:math:`b = \\tilde b - Wc`).

One pass (:meth:`ChunkedPenalised.evaluate`) at the current point :math:`(W, b)` and along a step
:math:`(\\Delta, \\delta_b)` returns

* the change of the summed loss :math:`\\sum_i w_i[\\ell(s_i + tz_i) - \\ell(s_i)]` at each
  requested step length t, summed row by row (near the optimum a step's decrease is far below the
  rounding of the loss itself, and only the differences resolve it, as in memory);
* optionally, at the first of those step lengths, the quadratic model's terms: the summed loss, its
  gradient in the augmented columns :math:`a_i = (x_i - c, 1)`, :math:`G = V^TA` of shape
  (m, d + 1), and the Hessian of shape (m(d + 1), m(d + 1)), class-major,

.. math::

    H_{(k,j),(l,j')} = \\sum_i w_i\\,\\mu_{ik}([k = l] - \\mu_{il})\\,a_{ij}a_{ij'}
    \\qquad(\\text{two classes: } \\sum_i w_i\\mu_i(1 - \\mu_i)a_{ij}a_{ij'}),

the softmax Hessian of Bishop (2006, sec. 4.3.4) in the full K-row layout.  So the model at the
point a line search accepts comes in the same pass that accepts it: an outer iteration whose full
step is taken reads the data once.
"""

from __future__ import annotations

import numpy as np

from linclass.core.chunk_validation import validate_chunk
from linclass.core.chunks import Chunk, encode_chunk_labels
from linclass.linear.logistic.losses import Binomial, Multinomial, null_log_likelihood
from linclass.linear.logistic.penalised import internal_coefficients, original_coefficients

__all__ = ["ChunkedPenalised", "augmented", "rows_terms", "weighted_rows"]


def _row_loss(S: np.ndarray, y: np.ndarray, binary: bool) -> np.ndarray:
    """Per-row log-loss at scores S of shape (n, m) (:mod:`.losses`)."""
    return Binomial.value(S[:, 0], y) if binary else Multinomial.value(S, y)


def augmented(X: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """The augmented columns :math:`a_i = (x_i - c, 1)`, shape (n, d + 1)."""
    n, d = X.shape
    A = np.empty((n, d + 1))
    np.subtract(X, offset, out=A[:, :d])
    A[:, d] = 1.0
    return A


def rows_terms(A, yi, w, binary, theta, step, ts, model, hessian=True):
    """``(changes, terms)`` of :meth:`ChunkedPenalised.evaluate` over the rows ``A``
    (:func:`augmented`) with class indices ``yi`` and weights ``w``: the summed loss changes at
    ``theta + t step`` for each t of ``ts`` and, when ``model``, ``(loss, G, H)`` at the first t
    (module docstring; H None without ``hessian``)."""
    S = A @ theta.T  # (n, m)
    target = yi.astype(np.float64) if binary else yi
    changes = np.zeros(len(ts))
    if step is not None:
        Z = A @ step.T
        base = _row_loss(S, target, binary)
        for i, t in enumerate(ts):
            changes[i] = float(w @ (_row_loss(S + t * Z, target, binary) - base))
        S = S + ts[0] * Z
    if not model:
        return changes, None
    loss = float(w @ _row_loss(S, target, binary))
    m, p = theta.shape
    if binary:
        mu = Binomial.probabilities(S[:, 0])
        G = (Binomial.gradient_at(mu, target, w) @ A)[None, :]
        if not hessian:
            return changes, (loss, G, None)
        H = A.T @ (Binomial.curvature_at(mu, w)[:, None] * A)
        return changes, (loss, G, H)
    P = Multinomial.probabilities(S)
    G = Multinomial.gradient_at(P, yi, w).T @ A  # (K, p)
    if not hessian:
        return changes, (loss, G, None)
    H = np.empty((m, p, m, p))
    for k in range(m):
        for l in range(k, m):
            c = Multinomial.curvature_at(P, k, l, w)
            B = A.T @ (c[:, None] * A)
            H[k, :, l, :] = B
            H[l, :, k, :] = B.T
    return changes, (loss, G, H.reshape(m * p, m * p))


def weighted_rows(chunk: Chunk, n_features, classes, per_class, again=True):
    """A chunk's rows validated: ``(X, class indices, raw weights, weights times the class
    weights)``; None for a chunk without rows."""
    X, y, w = validate_chunk(chunk, n_features, again=again)
    n = X.shape[0]
    if n == 0:
        return None
    yi = encode_chunk_labels(y, classes, chunk.where())
    raw = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    return X, yi, raw, (raw if per_class is None else per_class[yi] * raw)


def _chunk_pass(chunk: Chunk, n_features, classes, per_class, offset, binary, theta, step, ts,
                model, hessian=True):
    """One chunk's share of :meth:`ChunkedPenalised.evaluate` (None for a chunk without weight)."""
    rows = weighted_rows(chunk, n_features, classes, per_class)
    if rows is None or not np.any(rows[3] > 0):
        return None
    X, yi, _, w = rows
    return rows_terms(augmented(X, offset), yi, w, binary, theta, step, ts, model, hessian)


def _add(a, b):
    if a[1] is None:
        return a[0] + b[0], None
    return a[0] + b[0], tuple(None if u is None else u + v for u, v in zip(a[1], b[1]))


class ChunkedPenalised:
    """The penalised objective's passes over a chunk source, for proximal Newton.

    Parameters
    ----------
    smooth : :class:`~linclass.linear.logistic.chunked.ChunkedObjective`
        Built by the first pass over the source: its classes, class weights, weighted class totals,
        total weight and centring offset are this objective's too.
    penalty : :class:`~linclass.linear.penalties.elastic_net.ElasticNet`

    Attributes
    ----------
    passes : int
        Passes over the data so far, the smooth objective's first one included.
    """

    def __init__(self, smooth, penalty):
        self.source, self.penalty = smooth.source, penalty
        self.classes, self.per_class = smooth.classes, smooth.per_class
        self.n_classes = int(self.classes.size)
        self.binary = self.n_classes == 2
        self.m = 1 if self.binary else self.n_classes
        self.d = int(smooth.n_features)
        self.fit_intercept = bool(smooth.fit_intercept)
        self.offset = np.asarray(smooth.offset, dtype=np.float64)
        self.total = float(smooth.total)
        self.class_totals = np.asarray(smooth.class_weight, dtype=np.float64)
        self.passes = int(smooth.passes)

    @property
    def n_params(self) -> int:
        """Entries of the model's Hessian side: m (d + 1)."""
        return self.m * (self.d + 1)

    def null_start(self) -> tuple[np.ndarray, np.ndarray]:
        """Zero coefficients and the intercept-only intercepts (log-odds, or centred log class
        frequencies; zeros without an intercept), as
        :meth:`~linclass.linear.logistic.penalised.PenalisedObjective.null_start`."""
        W, b = np.zeros((self.m, self.d)), np.zeros(self.m)
        if self.fit_intercept:
            logf = np.log(np.clip(self.class_totals / self.total, 1e-12, None))
            b = np.array([logf[1] - logf[0]]) if self.binary else logf - logf.mean()
        return W, b

    def evaluate(self, W, b, dW=None, db=None, ts=(0.0,), model: bool = True):
        """One pass: ``(changes, terms)``, the loss changes at ``(W, b) + t (dW, db)`` for each t
        of ``ts`` (zeros without a step) and, when ``model``, ``(loss, G, H)`` at the first t
        (module docstring; G of shape (m, d + 1), H of shape (m(d + 1), m(d + 1)))."""
        theta = np.hstack([W, np.reshape(b, (-1, 1))])
        step = None if dW is None else np.hstack([dW, np.reshape(db, (-1, 1))])
        self.passes += 1
        out = self.source.map_reduce(_chunk_pass, _add, self.d, self.classes, self.per_class,
                                     self.offset, self.binary, theta, step,
                                     np.asarray(ts, dtype=np.float64), model)
        if out is None:  # cannot happen: the first pass found weight
            raise ValueError("Every sample has zero weight.")
        return out

    def value_gradient(self, W, b) -> tuple[float, np.ndarray]:
        """One pass: the summed loss at ``(W, b)`` and its gradient in the augmented columns, of
        shape (m, d + 1) (no Hessian: OWL-QN's evaluation, :mod:`linclass.linear.solvers.owlqn`)."""
        theta = np.hstack([W, np.reshape(b, (-1, 1))])
        self.passes += 1
        out = self.source.map_reduce(_chunk_pass, _add, self.d, self.classes, self.per_class,
                                     self.offset, self.binary, theta, None,
                                     np.zeros(1), True, False)
        if out is None:  # cannot happen: the first pass found weight
            raise ValueError("Every sample has zero weight.")
        loss, G, _ = out[1]
        return loss, G

    def coefficients(self, W: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(coef, intercept)`` on the original features (softmax intercepts centred to sum to
        zero), as :meth:`~linclass.linear.logistic.penalised.PenalisedObjective.coefficients`."""
        return original_coefficients(W, b, self.offset, self.fit_intercept, self.binary)

    def internal(self, coef: np.ndarray, intercept: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Inverse of :meth:`coefficients` (warm starts)."""
        return internal_coefficients(coef, intercept, self.offset, self.fit_intercept, self.m,
                                     self.d)

    def null_log_likelihood(self) -> float:
        return null_log_likelihood(self.class_totals, self.total, self.fit_intercept)

    def duality_gap(self, W, b, value=None) -> float:
        """Not formed on chunks (it needs the best intercepts for W, an iteration of its own over
        the rows): the fit stops on two KKT points that agree
        (:class:`~linclass.linear.solvers.prox_newton.Certificate`)."""
        return float("inf")
