"""scikit-learn estimators: thin glue from validation to the spine, no mathematics."""

from linclass.estimators.categorical_nb import CategoricalNB
from linclass.estimators.discriminant_analysis import (
    GaussianDiscriminantAnalysis,
    QuadraticDiscriminantAnalysis,
)
from linclass.estimators.fisher_discriminant import FisherDiscriminantAnalysis
from linclass.estimators.formula import FormulaClassifier
from linclass.estimators.kernel_discriminant import KernelFisherDiscriminantAnalysis
from linclass.estimators.linear_discriminant import LinearDiscriminantAnalysis
from linclass.estimators.logistic.cv import LogisticRegressionCV
from linclass.estimators.logistic.regression import LogisticRegression
from linclass.estimators.multiclass import KClassDiscriminant, OneVsOneClassifier, OneVsRestClassifier
from linclass.estimators.naive_bayes import (
    BernoulliNB,
    ComplementNB,
    GaussianNB,
    MultinomialNB,
    PoissonNB,
)
from linclass.estimators.perceptron import Perceptron
from linclass.estimators.regularized_discriminant import (
    RegularizedDiscriminantAnalysis,
    RegularizedDiscriminantAnalysisCV,
)
from linclass.estimators.standardized import StandardizedClassifier

__all__ = [
    "BernoulliNB",
    "CategoricalNB",
    "ComplementNB",
    "FisherDiscriminantAnalysis",
    "FormulaClassifier",
    "GaussianDiscriminantAnalysis",
    "GaussianNB",
    "KClassDiscriminant",
    "KernelFisherDiscriminantAnalysis",
    "LinearDiscriminantAnalysis",
    "LogisticRegression",
    "LogisticRegressionCV",
    "MultinomialNB",
    "OneVsOneClassifier",
    "OneVsRestClassifier",
    "Perceptron",
    "PoissonNB",
    "QuadraticDiscriminantAnalysis",
    "RegularizedDiscriminantAnalysis",
    "RegularizedDiscriminantAnalysisCV",
    "StandardizedClassifier",
]
