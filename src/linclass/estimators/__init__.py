"""scikit-learn estimators: thin glue from validation to the spine."""

from .gaussian import GaussianDiscriminantAnalysis, GaussianNB, QuadraticDiscriminantAnalysis
from .lda import LinearDiscriminantAnalysis

__all__ = [
    "GaussianDiscriminantAnalysis",
    "GaussianNB",
    "LinearDiscriminantAnalysis",
    "QuadraticDiscriminantAnalysis",
]
