"""scikit-learn estimators: thin glue from validation to the spine."""

from .gaussian import GaussianDiscriminantAnalysis, GaussianNB, QuadraticDiscriminantAnalysis
from .lda import LinearDiscriminantAnalysis
from .logistic import LogisticRegression
from .naive_bayes import BernoulliNB, MultinomialNB, PoissonNB
from .perceptron import Perceptron

__all__ = [
    "BernoulliNB",
    "MultinomialNB",
    "PoissonNB",
    "GaussianDiscriminantAnalysis",
    "GaussianNB",
    "LinearDiscriminantAnalysis",
    "LogisticRegression",
    "Perceptron",
    "QuadraticDiscriminantAnalysis",
]
