"""The compiled form of the binomial and multinomial log-losses of
:mod:`linclass.linear.logistic.losses` (whose docstring writes the formulas): per-sample terms in
fused loops over the scores.

* the primal terms: the summed weighted loss, its score gradients and curvatures
  (:func:`binary_terms`, :func:`binary_residuals`, :func:`score_terms`, :func:`softmax_terms`);
* the loss along a line, for the line searches: its value (:func:`binary_loss`,
  :func:`softmax_loss`) and its change, each term formed as a difference
  (:func:`binary_loss_change`, :func:`softmax_loss_change`);
* the per-sample parts of the two-class duality gap
  (:meth:`linclass.linear.logistic.penalised.PenalisedObjective.gap_and_value`): the intercept that
  minimises the loss for fixed coefficients (Newton's method on one number), the residuals at it,
  and the entropy of the dual point (:func:`binary_best_intercept`, :func:`binary_gap_residuals`,
  :func:`binary_dual_entropy`);
* the same terms fused with one read of a dense X, row by row, while the row is in the first-level
  cache: the two-class objective's loss and gradient (:func:`binary_pass`, :func:`binary_pass_rows`)
  and the two-class proximal Newton step's score change with the next point's terms and products
  (:func:`step_products`).

All in log space: no overflow for any finite score.  The gap's terms form both class
probabilities from their own exponential, so :math:`1 - \\mu` keeps its digits where :math:`\\mu`
is near one; in NumPy they needed a dozen array passes per Newton step and per entropy (the
probabilities by ``tanh``, ``xlogy`` twice, a 1 x 1 ``solve``): on the 100-value L1 path of the
benchmark's text problem the gap took 1 ms a check, 14% of the path.

The two-class objective in one read of a dense X
------------------------------------------------

Row by row the loop forms the score :math:`s_i = x_i^Tw + b` (plus the row's known offset), the
loss and the residual :math:`r_i = w_i(\\mu_i - y_i)`, and adds :math:`r_ix_i` into the gradient
while the row is still in the first-level cache: X is read once, where two BLAS products (the
scores, then :math:`X^TR`) read each block twice.  Measured on 200,000 x 100 (2 shared cores, two
threads each, in turn in one process): 11.9 ms against 17.2 ms for the blocked pair of products,
and 10.8 ms for the score product alone.  Within a row the dot product is vectorised (its terms
are reassociated, which changes the score only at rounding level).

With the Hessian (:func:`binary_pass_rows`, one block of rows at a time) the same loop also writes
each row's :math:`\\sqrt{w_i\\mu_i(1-\\mu_i)}\\,[x_i - m, 1]`, the rows whose Gram product
(:class:`linclass.linear.logistic.curvature.CurvatureSum`) is the Hessian's data term.

The loops run in one thread and release the GIL: the objective shares a large X's row chunks among
worker threads (:func:`linclass.core.threads.map_chunks`), so that these loops and the Gram
products in between run on the same threads.  (numba's own threads, which wait for work by
spinning, and BLAS's threads, which do the same, took turns badly on a machine with other work:
a two-class Hessian took 243 ms that way against 122 ms in one thread.)

The two-class step in one read of a dense X
-------------------------------------------

Each outer iteration of the two-class fit reads X for the step's score change
:math:`z = \\tilde X\\delta` (the line search needs all of it), then, at the new point, for the
products :math:`\\tilde X^Tg` and :math:`\\tilde X^Th` of its score gradients and curvatures (the
next model's gradient and the intercept's column of its Hessian, and the look at every column).
The line search nearly always accepts the full step, whose point is known as soon as a row's
:math:`z_i` is: :math:`s_i + z_i + \\delta_b`.  So row by row the loop forms :math:`z_i`, the row's
gradient and curvature at the full step, and adds both times the row into the products while the
row is still in the first-level cache: one read of X where the two BLAS products read it twice.
The loss, gradients and curvatures at the full step are kept too (the move to it then needs no
pass over the scores of its own).  When the line search takes a shorter step none of it is used
and the products are formed again at the point it reached.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from linclass.generative.stats_kernels import scaled_row
from linclass.linear.compiled.columns import JIT as _JIT

__all__ = ["binary_best_intercept", "binary_dual_entropy", "binary_gap_residuals", "binary_loss",
           "binary_loss_change", "binary_pass", "binary_pass_rows", "binary_residuals", "binary_terms",
           "score_terms", "softmax_loss", "softmax_loss_change", "softmax_terms", "step_products"]


@njit(inline="always")
def _log1pexp(s):
    """:math:`\\ln(1 + e^s)` without overflow."""
    if s > 0.0:
        return s + np.log1p(np.exp(-s))
    return np.log1p(np.exp(s))


@njit(inline="always")
def _sigmoid_log1pexp(s):
    """:math:`(\\sigma(s), \\ln(1 + e^s))` from one exponential, without overflow."""
    if s > 0.0:
        e = np.exp(-s)
        return 1.0 / (1.0 + e), s + np.log1p(e)
    e = np.exp(s)
    return e / (1.0 + e), np.log1p(e)


@njit(inline="always")
def _both(s):
    """:math:`(\\sigma(s), \\sigma(-s))`, each from one exponential without overflow."""
    if s > 0.0:
        e = np.exp(-s)
        return 1.0 / (1.0 + e), e / (1.0 + e)
    e = np.exp(s)
    return e / (1.0 + e), 1.0 / (1.0 + e)


@njit(**_JIT)
def binary_terms(s, y, sw, g, h):
    """Summed weighted log-loss at scores s (labels y in {0, 1}, weights sw), and into g and h the
    score gradients :math:`w_i(\\mu_i - y_i)` and curvatures :math:`w_i\\mu_i(1-\\mu_i)`."""
    total = 0.0
    for i in range(s.shape[0]):
        si = s[i]
        mu, loss = _sigmoid_log1pexp(si)
        wi = sw[i]
        total += wi * (loss - y[i] * si)
        g[i] = wi * (mu - y[i])
        h[i] = wi * mu * (1.0 - mu)
    return total


@njit(inline="always")
def score_terms(s, y, w, sure):
    """One row's two-class terms at score s (label y in {0, 1}, weight w): ``(probability,
    weighted loss, residual w (mu - y), 1 if the row has positive weight and its own-class
    probability exceeds 1 - sure else 0)``."""
    m, loss = _sigmoid_log1pexp(s)
    own = m if y == 1.0 else 1.0 - m
    return m, w * (loss - y * s), w * (m - y), 1 if w > 0.0 and own > 1.0 - sure else 0


@njit(**_JIT)
def binary_residuals(s, y, sw, sure, mu, r):
    """Into mu the probabilities :math:`\\mu_i = \\sigma(s_i)` and into r the residuals
    :math:`w_i(\\mu_i - y_i)` (labels y in {0, 1}; weights sw, or an empty array for unit
    weights); returns the summed weighted log-loss and the number of rows of positive weight whose
    own-class probability exceeds ``1 - sure`` (one pass over the rows)."""
    total = 0.0
    perfect = 0
    weighted = sw.shape[0] > 0
    for i in range(s.shape[0]):
        m, loss, ri, p = score_terms(s[i], y[i], sw[i] if weighted else 1.0, sure)
        total += loss
        mu[i] = m
        r[i] = ri
        perfect += p
    return total, perfect


@njit(**_JIT)
def binary_loss(s, z, t, y, sw):
    """Summed weighted log-loss at scores :math:`s + t z`."""
    total = 0.0
    for i in range(s.shape[0]):
        si = s[i] + t * z[i]
        total += sw[i] * (_log1pexp(si) - y[i] * si)
    return total


@njit(**_JIT)
def softmax_loss(S, k, z, t, y, sw):
    """Summed weighted softmax log-loss with class k's scores moved by :math:`t z` (S of shape (K, n),
    class-major)."""
    K, n = S.shape
    total = 0.0
    for i in range(n):
        top = -np.inf
        for c in range(K):
            v = S[c, i] + (t * z[i] if c == k else 0.0)
            if v > top:
                top = v
        acc = 0.0
        for c in range(K):
            v = S[c, i] + (t * z[i] if c == k else 0.0)
            acc += np.exp(v - top)
        own = S[y[i], i] + (t * z[i] if y[i] == k else 0.0)
        total += sw[i] * (top + np.log(acc) - own)
    return total


@njit(**_JIT)
def softmax_terms(S, y, sw, P):
    """Summed weighted softmax log-loss at scores S (K, n) and the probabilities into P (K, n)."""
    K, n = S.shape
    total = 0.0
    for i in range(n):
        top = -np.inf
        for c in range(K):
            if S[c, i] > top:
                top = S[c, i]
        acc = 0.0
        for c in range(K):
            e = np.exp(S[c, i] - top)
            P[c, i] = e
            acc += e
        for c in range(K):
            P[c, i] /= acc
        total += sw[i] * (top + np.log(acc) - S[y[i], i])
    return total


# --------------------------------------------------------------------------- changes along a line
@njit(inline="always")
def _binary_change(s, d, y):
    """:math:`\\ell(s + d) - \\ell(s)` for the binary log-loss, accurate when small: for
    :math:`|d| < 1` it is :math:`\\ln(1 + \\mu(e^d - 1)) - yd` (:math:`\\mu` the logistic of s), free of
    the cancellation of two nearly equal losses."""
    if abs(d) < 1.0:
        mu, _ = _both(s)
        return np.log1p(mu * np.expm1(d)) - y * d
    return _log1pexp(s + d) - _log1pexp(s) - y * d


@njit(**_JIT)
def binary_loss_change(s, z, t, y, sw):
    """:math:`\\sum_i w_i(\\ell(s_i + tz_i) - \\ell(s_i))`, each term computed as a difference (the line
    searches: a decrease far below the rounding of the summed loss itself is still resolved)."""
    total = 0.0
    for i in range(s.shape[0]):
        d = t * z[i]
        if d != 0.0:
            total += sw[i] * _binary_change(s[i], d, y[i])
    return total


@njit(**_JIT)
def softmax_loss_change(S, Z, t, y, sw):
    """:math:`\\sum_i w_i(\\ell(S_i + tZ_i) - \\ell(S_i))` for the softmax log-loss (S and Z of shape
    (K, n)), each term computed as a difference: :math:`\\ln\\sum_k\\mu_{ik}e^{d_k} - d_{y_i}` with
    :math:`d = tZ_i`, as :math:`\\ln(1 + \\sum_k\\mu_{ik}(e^{d_k} - 1))` when every :math:`|d_k| < 1`."""
    K, n = S.shape
    total = 0.0
    for i in range(n):
        top, big = -np.inf, 0.0
        for c in range(K):
            if S[c, i] > top:
                top = S[c, i]
            dc = abs(t * Z[c, i])
            if dc > big:
                big = dc
        if big == 0.0:
            continue
        acc = 0.0
        for c in range(K):
            acc += np.exp(S[c, i] - top)
        if big < 1.0:
            mix = 0.0
            for c in range(K):
                mix += np.exp(S[c, i] - top) / acc * np.expm1(t * Z[c, i])
            change = np.log1p(mix)
        else:
            top2 = -np.inf
            for c in range(K):
                v = S[c, i] + t * Z[c, i]
                if v > top2:
                    top2 = v
            acc2 = 0.0
            for c in range(K):
                acc2 += np.exp(S[c, i] + t * Z[c, i] - top2)
            change = top2 + np.log(acc2) - top - np.log(acc)
        total += sw[i] * (change - t * Z[y[i], i])
    return total


# --------------------------------------------------------------------------- the duality gap
@njit(**_JIT)
def binary_best_intercept(s0, y, sw, b, total, max_iter):
    """The intercept b minimising :math:`\\sum_i w_i\\,l(y_i, s_{0i} + b)`, by Newton's method from
    ``b``: stops when :math:`|\\sum_i w_i(\\mu_i - y_i)| \\le 10^{-13}` ``total``, or where the
    gradient is not finite or the curvature vanishes."""
    for _ in range(max_iter):
        g, h = 0.0, 0.0
        for i in range(s0.shape[0]):
            p, q = _both(s0[i] + b)
            g += sw[i] * (p - y[i])
            h += sw[i] * p * q
        if not np.isfinite(g) or abs(g) <= 1e-13 * total or not h > 0.0:
            break
        b -= g / h
    return b


@njit(**_JIT)
def binary_gap_residuals(s0, b, y, sw, p, q, r):
    """At scores ``s0 + b``: into p and q the probabilities :math:`\\mu_i` and :math:`1 - \\mu_i`,
    into r the residuals :math:`w_i(\\mu_i - y_i)`."""
    for i in range(s0.shape[0]):
        pi, qi = _both(s0[i] + b)
        p[i] = pi
        q[i] = qi
        r[i] = sw[i] * (pi - y[i])


@njit(inline="always")
def _xlogx(x):
    return x * np.log(x) if x > 0.0 else 0.0


@njit(**_JIT)
def binary_dual_entropy(p, q, y, sw, alpha):
    """:math:`\\sum_i w_iH(\\alpha\\mu_i + (1 - \\alpha)y_i)` with :math:`H(u) = -u\\ln u - (1-u)
    \\ln(1-u)`, the second probability formed as
    :math:`\\alpha(1 - \\mu_i) + (1-\\alpha)(1 - y_i)`."""
    total = 0.0
    for i in range(p.shape[0]):
        one = alpha * p[i] + (1.0 - alpha) * y[i]
        zero = alpha * q[i] + (1.0 - alpha) * (1.0 - y[i])
        total -= sw[i] * (_xlogx(one) + _xlogx(zero))
    return total


# ---- the two-class objective in one read of a dense X
_ROW_JIT = dict(cache=True, nogil=True, error_model="numpy", fastmath={"contract", "reassoc"})


@njit(inline="always")
def _row_terms(row, coef, intercept, yi, wi, si, sure):
    """(probability, loss, residual, fitted with probability one) of one row."""
    s = 0.0
    for j in range(row.shape[0]):
        s += row[j] * coef[j]
    return score_terms(s + intercept + si, yi, wi, sure)


def binary_pass(X, coef, intercept: float, y, sw, shift, sure: float):
    """``(summed weighted loss, X^T r of shape (d,), sum of r, rows fitted with probability one)``
    at scores ``X @ coef + intercept (+ shift)``.

    X : C-contiguous float64 (n, d); coef : float64 (d,); y : float64 labels in {0, 1}; sw : weights
    (n,) or an empty array for unit weights; shift : per-row score offsets (n,) or an empty array;
    sure : a row's own-class probability above ``1 - sure`` counts as fitted with probability one.
    """
    g, stats = np.zeros(X.shape[1]), np.zeros(3)
    binary_pass_rows(X, coef, float(intercept), y, sw, shift, float(sure), None, None, g, stats)
    return float(stats[0]), g, float(stats[1]), int(stats[2])


@njit(**_ROW_JIT)
def binary_pass_rows(X, coef, intercept, y, sw, shift, sure, offset, rows, g, stats):
    """:func:`binary_pass` over one block of rows, adding into ``g`` (d,) and ``stats`` (loss,
    residual sum, count of rows fitted with probability one), and writing into ``rows`` (shape
    (b, d) or (b, d + 1), the product dtype) the scaled rows :math:`s_i(x_i - m)` (and
    :math:`s_i` in the last column), :math:`s_i = \\sqrt{w_i\\mu_i(1 - \\mu_i)}`, ``m`` the
    ``offset``.  ``rows`` None (and ``offset`` None): no scaled rows, the loop of
    :func:`binary_pass` (numba compiles that case apart, the branch removed: a test at run time
    in the loop made the evaluation 15% slower)."""
    d = X.shape[1]
    weighted = sw.shape[0] > 0
    shifted = shift.shape[0] > 0
    loss, rsum, perfect = 0.0, 0.0, 0.0
    for i in range(X.shape[0]):
        row = X[i]
        wi = sw[i] if weighted else 1.0
        m, l, r, p = _row_terms(row, coef, intercept, y[i], wi, shift[i] if shifted else 0.0, sure)
        loss += l
        rsum += r
        perfect += p
        for j in range(d):
            g[j] += r * row[j]
        if rows is not None:
            scaled_row(row, offset, np.sqrt(wi * m * (1.0 - m)), rows[i])
    stats[0] += loss
    stats[1] += rsum
    stats[2] += perfect


# ---- the two-class step in one read of a dense X
@njit(cache=True, nogil=True, error_model="numpy", fastmath={"reassoc", "contract"})
def _dot(row, delta):
    """:math:`x_i^T\\delta` (its terms reassociated: vectorised; rounding-level changes only)."""
    total = 0.0
    for j in range(row.shape[0]):
        total += row[j] * delta[j]
    return total


@njit(**_JIT)
def step_products(X, shift, delta, s, db, y, sw, z, g, h, Xg, Xh):
    """Into ``z`` (n,) the score change :math:`\\tilde X\\delta`; into ``g`` and ``h`` (n,) the
    score gradients :math:`g_i = w_i(\\mu_i - y_i)` and curvatures :math:`h_i = w_i\\mu_i(1 - \\mu_i)`
    at the scores :math:`s + (z + \\delta_b)` (the full step), and into ``Xg``, ``Xh`` (d,), zeroed
    here, :math:`\\tilde X^Tg` and :math:`\\tilde X^Th`; returns the summed weighted loss there
    (the loss, g and h exactly as :func:`binary_terms`
    forms them at those scores).

    X : C-contiguous float64 (n, d); shift : the design's column shift (d,); delta : the step
    (d,), zero off the working set; s : the scores at the point (n,); db : the intercept's step;
    y : labels in {0, 1} (float64); sw : sample weights (n,)."""
    n, d = X.shape
    c = 0.0
    for j in range(d):
        c += shift[j] * delta[j]
    for j in range(d):
        Xg[j] = 0.0
        Xh[j] = 0.0
    total, g_sum, h_sum = 0.0, 0.0, 0.0
    for i in range(n):
        row = X[i]
        zi = _dot(row, delta) - c
        z[i] = zi
        wi = sw[i]
        mu, loss, gi, _ = score_terms(s[i] + (zi + db), y[i], wi, 0.0)
        hi = wi * mu * (1.0 - mu)
        total += loss
        g[i] = gi
        h[i] = hi
        g_sum += gi
        h_sum += hi
        for j in range(d):
            Xg[j] += gi * row[j]
            Xh[j] += hi * row[j]
    for j in range(d):  # the centred columns: X~^T v = X^T v - shift sum(v)
        Xg[j] -= shift[j] * g_sum
        Xh[j] -= shift[j] * h_sum
    return total
