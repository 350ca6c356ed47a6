"""linclass: the classic linear classifiers, exact to the math and fast.

Public names only.  The package is arranged by role, in the order data flows through it:

``core``        validation, class statistics, covariance estimates, priors, posteriors
``generative``  Gaussian models, discrete naive Bayes, Fisher and kernel Fisher discriminants
``linear``      losses, the logistic objective, its solvers, separation, inference, the perceptron
``sources``     where rows come from: CSV / Parquet tables, chunks, Dask collections, files
``estimators``  the scikit-learn classes (thin glue: validate -> spine -> fitted attributes)
``io``          model files (``save`` / ``load``), bundled data sets, the atomic writer
``inspect``     geometry of the boundaries, figures
``cli``         the ``linclass`` command
``registry``    every estimator once, with what it can do

``linclass.plot``, ``linclass.geometry``, ``linclass.datasets``, ``linclass.chunks`` (and the other
module paths of the first release) still import; they name the modules above.
"""

from linclass import _moved
from linclass.core.class_stats import ClassStats
from linclass.estimators import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    FisherDiscriminantAnalysis,
    GaussianDiscriminantAnalysis,
    GaussianNB,
    KClassDiscriminant,
    KernelFisherDiscriminantAnalysis,
    LinearDiscriminantAnalysis,
    LogisticRegression,
    LogisticRegressionCV,
    MultinomialNB,
    OneVsOneClassifier,
    OneVsRestClassifier,
    Perceptron,
    PoissonNB,
    QuadraticDiscriminantAnalysis,
    RegularizedDiscriminantAnalysis,
    RegularizedDiscriminantAnalysisCV,
    StandardizedClassifier,
)
from linclass.estimators.logistic_path import LogisticPath, logistic_path
from linclass.estimators.loo_posteriors import loo_predict_proba, loo_score
from linclass.exceptions import GridEdgeWarning, SeparationWarning, SingularCovarianceWarning
from linclass.io.persistence import ModelFileError, load, save

__version__ = "0.1.0"

__all__ = [
    "BernoulliNB",
    "CategoricalNB",
    "ClassStats",
    "ComplementNB",
    "FisherDiscriminantAnalysis",
    "GaussianDiscriminantAnalysis",
    "GaussianNB",
    "GridEdgeWarning",
    "KClassDiscriminant",
    "KernelFisherDiscriminantAnalysis",
    "LinearDiscriminantAnalysis",
    "LogisticPath",
    "LogisticRegression",
    "LogisticRegressionCV",
    "ModelFileError",
    "MultinomialNB",
    "OneVsOneClassifier",
    "OneVsRestClassifier",
    "Perceptron",
    "PoissonNB",
    "QuadraticDiscriminantAnalysis",
    "RegularizedDiscriminantAnalysis",
    "RegularizedDiscriminantAnalysisCV",
    "SeparationWarning",
    "SingularCovarianceWarning",
    "StandardizedClassifier",
    "load",
    "logistic_path",
    "loo_predict_proba",
    "loo_score",
    "save",
    "__version__",
]

_moved.install()


def __getattr__(name: str):
    """``linclass.plot``, ``linclass.geometry``, ... without importing them first (imported on
    first use: matplotlib, Dask and the command cost nothing until then)."""
    import importlib

    old = f"{__name__}.{name}"
    if old in _moved.MOVED:
        return importlib.import_module(old)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
