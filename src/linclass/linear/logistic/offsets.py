"""Offsets: known terms added to the linear predictor, as R's ``glm(..., offset=)`` and
statsmodels' ``Logit(..., offset=)`` take them.

With an offset :math:`o_i` (two classes) the log-odds of row i are

.. math::  \\eta_i = o_i + x_i^T\\theta + b,

so the offset's coefficient is fixed at one (a rate per unit of exposure, a prior log-odds, a
previous model's scores).  Softmax takes one offset per class, :math:`\\eta_{ik} = o_{ik} +
x_i^T\\theta_k + b_k`: a term common to every class would cancel in the probabilities, so an offset
of shape (n_samples,) is refused for K classes.

The null model with an offset is no longer the class frequencies: it is the intercept-only fit with
the offset (R's ``glm`` refits it for the null deviance), :math:`\\max_b \\sum_i w_i\\ell(o_i + b,
y_i)`, found here by Newton's method on the intercepts alone (a concave problem in at most K - 1
numbers, solved in the sum-to-zero basis of :func:`~linclass.linear.logistic.layout.contrast_basis`
for softmax); without an intercept the null model is the offset itself.
"""

from __future__ import annotations

import numpy as np

from linclass.linear.logistic import losses
from linclass.linear.logistic.layout import contrast_basis

__all__ = ["check_offset", "fingerprint", "null_fit", "offset_scores", "reported_offset"]

_MAX_NEWTON = 100


def check_offset(offset, n_rows: int, n_classes: int, classes=None) -> np.ndarray | None:
    """The offset as a float array of shape (n_rows, 1) (two classes) or (n_rows, K), or None.

    Raises
    ------
    ValueError
        For a Dask collection (offsets are taken for rows in memory), an offset of the wrong shape
        (naming the shape expected), or one with NaN or infinite entries.
    """
    if offset is None:
        return None
    from linclass.sources.dask import is_dask_collection

    if is_dask_collection(offset):
        raise ValueError("offset= is taken for rows in memory; call .compute() on it (and on X).")
    try:
        o = np.asarray(offset, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"offset must be numbers, an array of shape ({n_rows},) for two classes "
                         f"or ({n_rows}, n_classes); got {type(offset).__name__}.") from None
    names = "" if classes is None else f" (one column per class, in the order of classes_: " \
                                       f"{list(np.asarray(classes).tolist())})"
    if n_classes == 2:
        if o.ndim == 2 and o.shape[1] == 1:
            o = o[:, 0]
        if o.shape != (n_rows,):
            raise ValueError(f"offset must have shape ({n_rows},) (one log-odds term per row) for "
                             f"two classes; got shape {o.shape}.")
        o = o[:, None]
    else:
        if o.ndim == 1:
            raise ValueError(f"offset for {n_classes} classes must have shape ({n_rows}, "
                             f"{n_classes}){names}: a term common to every class cancels in the "
                             "softmax probabilities.")
        if o.shape != (n_rows, n_classes):
            raise ValueError(f"offset must have shape ({n_rows}, {n_classes}){names}; got shape "
                             f"{o.shape}.")
    if not np.all(np.isfinite(o)):
        bad = np.flatnonzero(~np.all(np.isfinite(o), axis=1))
        raise ValueError(f"offset contains NaN or infinite values (rows {bad[:5].tolist()}"
                         f"{' ...' if bad.size > 5 else ''}).")
    return np.ascontiguousarray(o)


def offset_scores(S: np.ndarray, offset: np.ndarray | None) -> np.ndarray:
    """Scores S of shape (n, 1) or (n, K) with the offset (same shape) added; S itself without."""
    return S if offset is None else S + offset


def _value(S, y, w) -> tuple[float, np.ndarray]:
    """Summed weighted loss at scores S (n, 1 or K) and the probabilities."""
    if S.shape[1] == 1:
        loss, mu = losses.Binomial.value_and_probabilities(S[:, 0], y.astype(np.float64))
        mu = mu[:, None]
    else:
        loss, mu = losses.Multinomial.value_and_probabilities(S, y)
    return float(loss @ w), mu


def null_fit(offset: np.ndarray, y: np.ndarray, weight: np.ndarray | None,
             fit_intercept: bool) -> tuple[np.ndarray, float]:
    """The null model with an offset: its intercepts and log-likelihood.

    Parameters
    ----------
    offset : ndarray of shape (n, 1) or (n, K)
        As :func:`check_offset` returns it.
    y : ndarray of shape (n,), int
        Class index of each row.
    weight : ndarray of shape (n,) or None
    fit_intercept : bool
        False: the null model is the offset alone (intercepts zero).

    Returns
    -------
    intercepts : ndarray of shape (1,) or (K,)
        The log-odds (two classes) or K intercepts summing to zero.
    log_likelihood : float
    """
    n, width = offset.shape
    w = np.ones(n) if weight is None else np.asarray(weight, dtype=np.float64)
    b = np.zeros(width)
    value, mu = _value(offset, y, w)
    if not fit_intercept:
        return b, -value
    P = np.ones((1, 1)) if width == 1 else contrast_basis(width)
    Y = (y[:, None] == (np.ones(1) if width == 1 else np.arange(width))).astype(np.float64)
    t = np.zeros(P.shape[1])
    for _ in range(_MAX_NEWTON):
        g = P.T @ (w @ (mu - Y))
        if width == 1:
            H = np.array([[float(w @ losses.Binomial.curvature_at(mu[:, 0]))]])
        else:
            Mw = mu * w[:, None]
            H = P.T @ (np.diag(Mw.sum(axis=0)) - Mw.T @ mu) @ P
        try:
            step = np.linalg.solve(H, g)
        except np.linalg.LinAlgError:
            break
        a = 1.0
        while True:  # step halving: the log-likelihood is concave, so a short enough step rises
            t_new = t - a * step
            new_value, new_mu = _value(offset + P @ t_new, y, w)
            if new_value <= value or a < 1e-10:
                break
            a *= 0.5
        done = value - new_value <= 1e-15 * max(abs(value), 1.0)
        t, value, mu = t_new, new_value, new_mu
        if done or np.max(np.abs(g)) <= 1e-13 * max(float(w.sum()), 1.0):
            break
    return P @ t, -value


def reported_offset(offset: np.ndarray | None) -> np.ndarray | None:
    """The offset in the reported parametrisation (contrasts against the first class): shape
    (n, 1) for two classes (the log-odds offset itself), (n, K - 1) with columns
    :math:`o_k - o_0` for K classes; None stays None."""
    if offset is None or offset.shape[1] == 1:
        return offset
    return offset[:, 1:] - offset[:, :1]


def fingerprint(offset: np.ndarray | None) -> str | None:
    """A short digest of a checked offset (what a fitted model remembers of it, so that the rows
    passed later for a robust covariance, a profile or a nested-model test are known to carry the
    same offset); None without one."""
    if offset is None:
        return None
    import hashlib

    return hashlib.sha256(np.ascontiguousarray(offset, dtype=np.float64).tobytes()).hexdigest()[:16]
