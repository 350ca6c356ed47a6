"""How :class:`~linclass.LogisticRegressionCV` scores and routes metadata, as scikit-learn 1.9's does:
``score`` uses the ``scoring`` the folds used (accuracy for None and the default); ``fit(**params)``
and ``score(**params)`` route metadata to the splitter and the scorer when scikit-learn's metadata
routing is enabled, and are refused otherwise.  Glue, no mathematics.
"""

from __future__ import annotations

from sklearn.metrics import get_scorer
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    _raise_for_params,
    _routing_enabled,
    process_routing,
)
from sklearn.utils.validation import _deprecate_positional_args

__all__ = ["CVScoring"]


class CVScoring:
    """``score``, ``get_metadata_routing`` and the routing of ``fit``'s metadata."""

    def _get_scorer(self):
        """The scorer of ``scoring`` (None, the default, and scikit-learn's placeholder 'warn':
        accuracy)."""
        scoring = self.scoring
        if scoring is None or (isinstance(scoring, str) and scoring == "warn"):
            scoring = "accuracy"
        return get_scorer(scoring)

    def _fit_metadata(self, sample_weight, params: dict) -> tuple[dict, dict]:
        """``(splitter's split params, scorer's score params)`` of ``fit``'s metadata (full
        length; the scorer's are indexed by each fold's held-out rows)."""
        _raise_for_params(params, self, "fit")
        if _routing_enabled():
            routed = process_routing(self, "fit", sample_weight=sample_weight, **params)
            return dict(routed.splitter.split), dict(routed.scorer.score)
        return {}, ({} if sample_weight is None else {"sample_weight": sample_weight})

    @_deprecate_positional_args(version="1.11")
    def score(self, X, y, *, sample_weight=None, **score_params) -> float:
        """The ``scoring`` of the fitted model on ``(X, y)`` (accuracy when it is None).

        Parameters
        ----------
        X : {array-like, scipy.sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Keyword only, as scikit-learn 1.9 announces (positional: a FutureWarning).
        **score_params : dict
            Passed to the scorer (with metadata routing enabled).

        Returns
        -------
        float
        """
        _raise_for_params(score_params, self, "score")
        if sample_weight is not None:
            score_params["sample_weight"] = sample_weight
        if _routing_enabled():
            params = dict(process_routing(self, "score", **score_params).scorer.score)
        else:
            weight = score_params.get("sample_weight")
            params = {} if weight is None else {"sample_weight": weight}
        return self._get_scorer()(self, X, y, **params)

    def get_metadata_routing(self):
        """The metadata routing of ``fit`` (to the splitter's ``split`` and the scorer) and of
        ``score`` (to the scorer), as scikit-learn's.

        Returns
        -------
        sklearn.utils.metadata_routing.MetadataRouter
        """
        return (MetadataRouter(owner=self)
                .add_self_request(self)
                .add(splitter=self.cv,
                     method_mapping=MethodMapping().add(caller="fit", callee="split"))
                .add(scorer=self._get_scorer(),
                     method_mapping=MethodMapping().add(caller="score", callee="score")
                     .add(caller="fit", callee="score")))
