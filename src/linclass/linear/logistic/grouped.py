"""Grouped binomial responses: row :math:`i` holds :math:`s_i` successes and :math:`f_i` failures
in :math:`m_i = s_i + f_i` trials at the same covariates, as R's ``glm(cbind(s, f) ~ x, family =
binomial)`` and statsmodels' ``GLM(endog, exog, family=Binomial())`` with a two-column ``endog``
take them.

The fit is the binomial likelihood, with prior (frequency) weights :math:`w_i` (1 without them),

.. math::  \\ell(\\beta) = \\sum_i w_i\\Big[\\log\\binom{m_i}{s_i} + s_i\\log\\mu_i
           + f_i\\log(1-\\mu_i)\\Big],\\qquad \\mu_i = \\sigma(x_i^T\\beta + b),

whose parameters and information are those of the :math:`2n` Bernoulli rows "row :math:`i`, class
1, weight :math:`w_is_i`" and "row :math:`i`, class 0, weight :math:`w_if_i`": the fit runs on those
rows (:func:`expand`).  The model is the grouped one (McCullagh and Nelder 1989, *Generalized
Linear Models*, 2nd ed., ch. 4): its observations are the groups, and :func:`constants` gives
what the Bernoulli rows do not, the sum of the log binomial coefficients (R's ``logLik`` and AIC
include it: ``binomial()$aic`` is :math:`-2\\sum_i w_i\\log \\mathrm{dbinom}(s_i; m_i, \\mu_i)`)
and the saturated model's log-likelihood, :math:`\\mu_i = s_i/m_i`, from which the deviance is
measured:

.. math::  D = 2\\sum_i w_i\\Big[s_i\\log\\frac{s_i}{m_i\\mu_i}
           + f_i\\log\\frac{f_i}{m_i(1-\\mu_i)}\\Big] = 2(\\ell_{sat} - \\ell).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln, xlogy

__all__ = ["check_counts", "constants", "count_columns", "counts_name", "expand"]


def counts_name(y) -> str | None:
    """``'cbind(a, b)'`` for a data frame of counts with columns ``a`` and ``b``, else None."""
    a, b = count_columns(y)
    return None if a == "successes" and b == "failures" else f"cbind({a}, {b})"


def count_columns(y) -> tuple[str, str]:
    """The names of the successes and the failures: a data frame's columns, else
    ``('successes', 'failures')``."""
    columns = getattr(y, "columns", None)
    if columns is None or len(columns) != 2:
        return "successes", "failures"
    return str(columns[0]), str(columns[1])


def check_counts(y, n_rows: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(successes, failures)``, float arrays of shape (n_rows,), from a two-column ``y``.

    Raises
    ------
    ValueError
        For counts that are not numbers, are negative, NaN or infinite, for a number of rows other
        than ``n_rows``, and when no row has a trial.
    """
    from linclass.sources.dask import is_dask_collection

    if is_dask_collection(y):
        raise ValueError("A grouped binomial response (successes, failures) is taken in memory; "
                         "call .compute() on it (and on X).")
    try:
        counts = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("A two-column y is a grouped binomial response, (successes, failures) "
                         "counts per row, as R's cbind(successes, failures); these columns are "
                         "not numbers.") from None
    if counts.ndim != 2 or counts.shape[1] != 2:
        raise ValueError(f"A grouped binomial response has two columns (successes, failures); got "
                         f"shape {counts.shape}.")
    if n_rows is not None and counts.shape[0] != n_rows:
        raise ValueError(f"X and y have inconsistent numbers of samples: X has {n_rows} rows but "
                         f"y has {counts.shape[0]} rows of counts.")
    if not np.all(np.isfinite(counts)):
        raise ValueError("The grouped binomial response has NaN or infinite counts.")
    if np.any(counts < 0):
        bad = np.flatnonzero((counts < 0).any(axis=1))
        raise ValueError(f"The grouped binomial response has negative counts (rows "
                         f"{bad[:5].tolist()}): its columns are the successes and the failures "
                         "(not the trials: failures = trials - successes).")
    if not np.any(counts.sum(axis=1) > 0):
        raise ValueError("The grouped binomial response has no trials (every count is 0).")
    return counts[:, 0].copy(), counts[:, 1].copy()


def expand(X, successes, failures, sample_weight=None, offset=None):
    """The :math:`2n` Bernoulli rows of the grouped data (module docstring): ``(X2, y2, w2,
    offset2)``, the rows of ``X`` twice (a data frame stays one, sparse stays sparse), the labels
    1 then 0, the weights :math:`w_is_i` then :math:`w_if_i` (rows of weight 0 included) and the
    offset twice (None stays None)."""
    n = successes.shape[0]
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if w.ndim == 0:
        w = np.full(n, float(w))
    if w.shape != (n,):
        raise ValueError(f"sample_weight has shape {w.shape}; the grouped response has {n} rows.")
    if hasattr(X, "iloc"):
        import pandas as pd

        X2 = pd.concat([X, X], axis=0)
    elif sp.issparse(X):
        X2 = sp.vstack([X, X], format=X.format if X.format in ("csr", "csc") else "csr")
    else:
        X = np.asarray(X)
        X2 = np.concatenate([X, X], axis=0)
    y2 = np.concatenate([np.ones(n, dtype=np.int64), np.zeros(n, dtype=np.int64)])
    w2 = np.concatenate([w * successes, w * failures])
    offset2 = None
    if offset is not None:
        o = np.asarray(offset, dtype=np.float64)
        offset2 = np.concatenate([o, o], axis=0) if o.ndim >= 1 else o
    return X2, y2, w2, offset2


def constants(successes, failures, sample_weight=None) -> dict:
    """What the grouped model adds to the Bernoulli rows' fit (module docstring), as a dict of
    floats: ``log_binomial`` :math:`\\sum_i w_i\\log\\binom{m_i}{s_i}`, ``saturated``
    :math:`\\ell_{sat}` (the binomial coefficients included), ``n_groups`` (the groups with
    trials and positive weight: R's ``nobs``), ``weight_sum`` (their weights' sum), ``trials``
    :math:`\\sum_i w_im_i`."""
    n = successes.shape[0]
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    m = successes + failures
    used = (m > 0) & (w > 0)
    log_binomial = gammaln(m + 1) - gammaln(successes + 1) - gammaln(failures + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(m > 0, successes / np.where(m > 0, m, 1.0), 0.0)
    saturated = log_binomial + xlogy(successes, share) + xlogy(failures, 1.0 - share)
    return {"n_groups": int(np.sum(used)), "weight_sum": float(np.sum(w[used])),
            "trials": float(np.sum((w * m)[used])),
            "log_binomial": float(np.sum((w * log_binomial)[used])),
            "saturated": float(np.sum((w * saturated)[used]))}
