"""scikit-learn estimators: thin glue from validation to the spine."""

from .gaussian import GaussianDiscriminantAnalysis, GaussianNB, QuadraticDiscriminantAnalysis
from .lda import LinearDiscriminantAnalysis
from .naive_bayes import BernoulliNB, MultinomialNB, PoissonNB

__all__ = [
    "BernoulliNB",
    "MultinomialNB",
    "PoissonNB",
    "GaussianDiscriminantAnalysis",
    "GaussianNB",
    "LinearDiscriminantAnalysis",
    "QuadraticDiscriminantAnalysis",
]
