"""The logistic estimators: glue from validation to :mod:`linclass.linear`, no mathematics.

``regression``  :class:`LogisticRegression`: parameters, fit, predictions
``summary``     its inference: ``summary``, ``marginal_effects``, ``get_prediction``
``path``        :func:`logistic_path` and its :class:`LogisticPath` record
``cv``          :class:`LogisticRegressionCV`
``callbacks``   scikit-learn's callback API for the iterative fits
"""

from linclass.core.lazy import lazy_getattr

# each name is imported from its module on first use: a plain fit's first call then loads neither
# the CV module nor the path's (0.24 s of a first LogisticRegression().fit in a fresh process)
__getattr__ = lazy_getattr(__name__, {"LogisticRegressionCV": "cv", "LogisticPath": "path",
                                      "logistic_path": "path", "LogisticRegression": "regression"},
                           globals())

__all__ = ["LogisticPath", "LogisticRegression", "LogisticRegressionCV", "logistic_path"]
