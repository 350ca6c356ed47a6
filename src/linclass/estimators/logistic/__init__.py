"""The logistic estimators: glue from validation to :mod:`linclass.linear`, no mathematics.

``regression``  :class:`LogisticRegression`: parameters, fit, predictions
``summary``     its inference: ``summary``, ``marginal_effects``, ``get_prediction``
``path``        :func:`logistic_path` and its :class:`LogisticPath` record
``cv``          :class:`LogisticRegressionCV`
``callbacks``   scikit-learn's callback API for the iterative fits
"""

from linclass.estimators.logistic.cv import LogisticRegressionCV
from linclass.estimators.logistic.path import LogisticPath, logistic_path
from linclass.estimators.logistic.regression import LogisticRegression

__all__ = ["LogisticPath", "LogisticRegression", "LogisticRegressionCV", "logistic_path"]
