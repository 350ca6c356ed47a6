"""Aliased columns: the features that are linear combinations of the columns before them, whose
maximum-likelihood coefficients are not identifiable.

R's ``glm`` finds them in the QR decomposition of its model matrix (``dqrdc2``, limited column
pivoting): column :math:`j` of :math:`\\tilde X = W^{1/2}[\\mathbf 1, X]` is aliased when the norm of
what is left of it after projecting out the columns kept before it is at most ``tol`` times its own
norm (``glm.fit`` uses ``tol = min(1e-7, epsilon / 1000)``, 1e-11 with the default
``glm.control()``); aliased columns are set aside, so a later column is compared with the kept ones
only.  The model is then fitted on the kept columns, and the aliased coefficients are reported as
NA (here: NaN in the summary, 0 in ``coef_``, which leaves every fitted probability unchanged since
an aliased column lies in the span of the kept ones).

Here the column geometry comes from the triangular factor :math:`R` of :math:`\\tilde X = QR`
(:math:`R^TR = \\tilde X^T\\tilde X`, the same inner products), accumulated over blocks of rows
(``R = qr([R; block])``: bounded memory, sparse rows densified one block at a time), and the
sequential test runs on the p columns of R (Gram-Schmidt, twice, against the kept ones).  R's
weights in that QR are its IRLS working weights; for an exact linear dependence (a full set of
dummies beside the intercept, a column that is a sum of others) the prior weights give the same
answer, and they are what is used here.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse as sp

__all__ = ["ALIAS_TOL", "aliased_columns"]

ALIAS_TOL = 1e-11  # glm.fit's min(1e-7, glm.control()$epsilon / 1000)
_BLOCK_ENTRIES = 1 << 22  # rows per block: about 32 MB of float64


def _triangular_factor(X, weight, fit_intercept: bool) -> np.ndarray:
    """R of shape (p, p) with :math:`R^TR = \\tilde X^T\\tilde X`, :math:`\\tilde X = W^{1/2}[\\mathbf
    1, X]` (the intercept column first, as in R's model matrix)."""
    n, d = X.shape
    p = d + int(fit_intercept)
    w = np.ones(n) if weight is None else np.asarray(weight, dtype=np.float64)
    root = np.sqrt(np.clip(w, 0.0, None))
    rows = max(p, _BLOCK_ENTRIES // max(p, 1))
    R = np.zeros((0, p))
    for start in range(0, n, rows):
        block = X[start:start + rows]
        block = block.toarray() if sp.issparse(block) else np.asarray(block, dtype=np.float64)
        if fit_intercept:
            block = np.hstack([np.ones((block.shape[0], 1)), block])
        stacked = np.vstack([R, block * root[start:start + rows, None]])
        R = scipy.linalg.qr(stacked, mode="r", check_finite=False)[0][:p]
    return R


def aliased_columns(X, weight=None, fit_intercept: bool = True, tol: float = ALIAS_TOL
                    ) -> np.ndarray:
    """Which features of X are aliased, in R's sense (module docstring).

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n_samples, n_features)
    weight : ndarray of shape (n_samples,) or None
        Prior (frequency) weights; rows of weight 0 do not count.
    fit_intercept : bool
        Whether the constant column comes first (it is never aliased unless every weight is 0).
    tol : float
        The relative norm below which a column counts as a combination of the earlier ones.

    Returns
    -------
    ndarray of shape (n_features,), bool
    """
    R = _triangular_factor(X, weight, fit_intercept)
    p = R.shape[1]
    kept = np.zeros((R.shape[0], 0))
    aliased = np.zeros(p, dtype=bool)
    for j in range(p):
        v = R[:, j].copy()
        norm0 = float(np.linalg.norm(v))
        for _ in range(2):  # twice is enough (Kahan, Parlett)
            v -= kept @ (kept.T @ v)
        rest = float(np.linalg.norm(v))
        if norm0 == 0.0 or rest <= tol * norm0:
            aliased[j] = True
        else:
            kept = np.column_stack([kept, v / rest])
    return aliased[int(fit_intercept):]
