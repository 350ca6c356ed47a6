"""linclass: the classic linear classifiers, exact to the math and fast.

Public names only; the implementation lives in the submodules (``stats``, ``covariance``,
``gaussian``, ``fisher``, ``posterior``, ``estimators``).
"""

from .estimators import (
    BernoulliNB,
    MultinomialNB,
    PoissonNB,
    GaussianDiscriminantAnalysis,
    GaussianNB,
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
    "GaussianDiscriminantAnalysis",
    "GaussianNB",
    "LinearDiscriminantAnalysis",
    "LogisticRegression",
    "Perceptron",
    "QuadraticDiscriminantAnalysis",
    "SeparationWarning",
    "SingularCovarianceWarning",
    "__version__",
]
