"""linclass: the classic linear classifiers, exact to the math and fast.

Public names only; the implementation lives in the submodules (``stats``, ``covariance``,
``gaussian``, ``fisher``, ``posterior``, ``estimators``).
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
from .stats import ClassStats

__version__ = "0.1.0"

__all__ = [
    "BernoulliNB",
    "MultinomialNB",
    "PoissonNB",
    "ClassStats",
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
