"""The predictions every classifier of class scores shares: posteriors in log space from
``self._scores(X)``, the log joint scores of each class (shape (n_samples, n_classes)), by
:mod:`linclass.core.posterior`.  No mathematics here."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from linclass.core.posterior import log_posterior, posterior
from linclass.sources.dask import lazy_on_dask

__all__ = ["ScorePredictions"]


class ScorePredictions:
    """``predict_log_proba``, ``predict_proba`` and ``predict`` of a class with ``_scores(X)`` and
    ``classes_``."""

    @lazy_on_dask
    def predict_log_proba(self, X: ArrayLike) -> np.ndarray:
        """Log posterior :math:`\\ln p(C_k \\mid x)`, shape (n_samples, n_classes)."""
        return log_posterior(self._scores(X))

    @lazy_on_dask
    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Posterior :math:`p(C_k \\mid x)`, shape (n_samples, n_classes); rows sum to one."""
        return posterior(self._scores(X))

    @lazy_on_dask
    def predict(self, X: ArrayLike) -> np.ndarray:
        """Most probable class (Bayes rule, Bishop 2006 sec. 1.5.1:
        :math:`\\arg\\max_j p(C_j \\mid x)`)."""
        scores = self._scores(X)  # checks that the model is fitted
        return self.classes_[np.argmax(scores, axis=1)]
