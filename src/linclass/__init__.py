"""linclass: the classic linear classifiers, exact to the math and fast.

Public names only.  The package is arranged by role, in the order data flows through it:

``core``        validation, the chunk protocol, class statistics, covariance estimates, priors,
                posteriors
``generative``  Gaussian models, regularised discriminant analysis, discrete naive Bayes
``projection``  Fisher's discriminant and kernel Fisher (discriminative projections)
``linear``      the logistic objective over dense, sparse and chunked designs, its penalties,
                solvers, inference and fit; the perceptron
``selection``   leave-one-out and cross-validated model selection by downdates
``strategies``  the meta-estimators' arithmetic: multi-class votes, standardised features
``sources``     where rows come from: CSV / Parquet tables, Dask collections, files
``formula``     formulas on data frames (formulaic's coding of factors, kept as plain data)
``estimators``  the scikit-learn classes (thin glue: validate -> spine -> fitted attributes)
``io``          model files (``save`` / ``load``), bundled data sets, the atomic writer
``export``      deployment: ONNX graphs of fitted classifiers (``to_onnx``)
``inspect``     geometry of the boundaries, figures
``cli``         the ``linclass`` command
``registry``    every estimator once, with what it can do

``linclass.plot``, ``linclass.geometry``, ``linclass.datasets`` (and the other module paths of the
first release) still import: :mod:`linclass.compat` says why and which.
"""

from linclass import compat, estimators
from linclass.core.class_stats import ClassStats
from linclass.estimators import *  # noqa: F403  (the estimator classes: estimators.__all__)
from linclass.estimators.logistic_path import LogisticPath, logistic_path
from linclass.estimators.loo_posteriors import loo_predict_proba, loo_score
from linclass.estimators.formula import from_formula
from linclass.estimators.formula_comparison import diagnostics, drop1, lr_test
from linclass.exceptions import (AliasedColumnsWarning, GridEdgeWarning, SeparationWarning,
                                  SingularCovarianceWarning)
from linclass.export.onnx import to_onnx
from linclass.io.persistence import ModelFileError, load, save

__version__ = "0.1.0"

__all__ = [
    "AliasedColumnsWarning",
    "ClassStats",
    "GridEdgeWarning",
    "LogisticPath",
    "ModelFileError",
    "SeparationWarning",
    "SingularCovarianceWarning",
    "diagnostics",
    "drop1",
    "from_formula",
    "load",
    "logistic_path",
    "loo_predict_proba",
    "loo_score",
    "lr_test",
    "save",
    "to_onnx",
    "__version__",
]
__all__ += estimators.__all__

compat.install()
__getattr__ = compat.module_getattr
