"""scikit-learn estimators: thin glue from validation to the spine."""

from .fisher import FisherDiscriminantAnalysis
from .gaussian import GaussianDiscriminantAnalysis, GaussianNB, QuadraticDiscriminantAnalysis
from .kernel_fisher import KernelFisherDiscriminantAnalysis
from .lda import LinearDiscriminantAnalysis
from .logistic import LogisticRegression
from .naive_bayes import BernoulliNB, MultinomialNB, PoissonNB
from .perceptron import Perceptron

__all__ = [
    "BernoulliNB",
    "MultinomialNB",
    "PoissonNB",
    "FisherDiscriminantAnalysis",
    "GaussianDiscriminantAnalysis",
    "GaussianNB",
    "KernelFisherDiscriminantAnalysis",
    "LinearDiscriminantAnalysis",
    "LogisticRegression",
    "Perceptron",
    "QuadraticDiscriminantAnalysis",
]
