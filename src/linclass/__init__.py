"""linclass: the classic linear classifiers, exact to the math and fast.

Public names only; the implementation lives in the submodules (``stats``, ``covariance``,
``gaussian``, ``fisher``, ``kernel_fisher``, ``posterior``, ``estimators``, ...).  Also public:
``linclass.geometry`` (hyperplanes, signed distances), ``linclass.plot`` (figures; needs matplotlib)
and ``linclass.datasets``.
"""

from .estimators import (
    BernoulliNB,
    MultinomialNB,
    PoissonNB,
    FisherDiscriminantAnalysis,
    GaussianDiscriminantAnalysis,
    GaussianNB,
    KernelFisherDiscriminantAnalysis,
    LinearDiscriminantAnalysis,
    LogisticRegression,
    Perceptron,
    QuadraticDiscriminantAnalysis,
)
from .exceptions import SeparationWarning, SingularCovarianceWarning
from .multiclass import KClassDiscriminant, OneVsOneClassifier, OneVsRestClassifier
from .persistence import ModelFileError, load, save
from .stats import ClassStats

__version__ = "0.1.0"

__all__ = [
    "BernoulliNB",
    "MultinomialNB",
    "PoissonNB",
    "ClassStats",
    "KClassDiscriminant",
    "ModelFileError",
    "OneVsOneClassifier",
    "OneVsRestClassifier",
    "load",
    "save",
    "FisherDiscriminantAnalysis",
    "GaussianDiscriminantAnalysis",
    "GaussianNB",
    "KernelFisherDiscriminantAnalysis",
    "LinearDiscriminantAnalysis",
    "LogisticRegression",
    "Perceptron",
    "QuadraticDiscriminantAnalysis",
    "SeparationWarning",
    "SingularCovarianceWarning",
    "__version__",
]
