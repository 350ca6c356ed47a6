"""Predictions of a fitted linear logistic / softmax model (``coef_``, ``intercept_``, ``classes_``),
shared by :class:`~linclass.LogisticRegression` and :class:`~linclass.LogisticRegressionCV`:
scores -> :mod:`linclass.core.posterior`.  No mathematics here.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from linclass.core.finiteness import explain_non_finite
from linclass.core.dtype_policy import FLOAT32_KEPT
from linclass.core.posterior import log_posterior, posterior
from linclass.core.validation import validate_predict
from linclass.estimators.score_predictions import ScorePredictions
from linclass.linear.logistic.offsets import check_offset, offset_scores
from linclass.sources.dask import lazy_on_dask

__all__ = ["LogisticPredictions"]


class LogisticPredictions(ScorePredictions):
    """``decision_function``, ``predict_proba``, ``predict_log_proba`` and ``predict`` from
    ``coef_`` (shape (1, d) for two classes, else (K, d)) and ``intercept_``; X dense or sparse.
    Each takes the rows' ``offset`` (shape (n_samples,) for two classes, (n_samples, n_classes)
    for K: the known terms of the scores, as ``fit(..., offset=)``; None is zero).  The outputs
    are float32 when X and the coefficients are (``_keeps_float32``: a float32 X is not converted;
    :mod:`linclass.core.dtype_policy`)."""

    _keeps_float32 = False

    def _scores(self, X, offset=None) -> np.ndarray:
        check_is_fitted(self)
        X = validate_predict(self, X, check_finite=False, accept_sparse=True,
                             dtype=FLOAT32_KEPT if self._keeps_float32 else np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            # float32 X and coefficients: a float32 product (numpy's promotion, scikit-learn's dtype)
            S = X @ self.coef_.T  # coef_ may be scipy.sparse after sparsify(), X as well
            S = (S.toarray() if sp.issparse(S) else np.asarray(S)) + self.intercept_
        explain_non_finite(self, X, S)
        S = offset_scores(S, check_offset(offset, X.shape[0], len(self.classes_), self.classes_))
        return np.column_stack([np.zeros(S.shape[0], S.dtype), S[:, 0]]) if S.shape[1] == 1 else S

    @lazy_on_dask
    def decision_function(self, X, offset=None):
        """Raw scores: shape (n_samples,) for two classes (the log-odds :math:`\\theta^Tx + b` of
        ``classes_[1]``, plus the offset), else (n_samples, n_classes)."""
        S = self._scores(X, offset)
        return S[:, 1] if S.shape[1] == 2 else S

    @lazy_on_dask
    def predict_log_proba(self, X, offset=None):
        """Log posterior :math:`\\ln p(C_k \\mid x)`, shape (n_samples, n_classes)."""
        return log_posterior(self._scores(X, offset))

    @lazy_on_dask
    def predict_proba(self, X, offset=None):
        """Posterior :math:`p(C_k \\mid x)`, shape (n_samples, n_classes); rows sum to one."""
        return posterior(self._scores(X, offset))

    @lazy_on_dask
    def predict(self, X, offset=None):
        """Most probable class."""
        scores = self._scores(X, offset)  # checks that the model is fitted
        return self.classes_[np.argmax(scores, axis=1)]
