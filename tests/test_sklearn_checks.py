"""scikit-learn's estimator checks for every linclass estimator."""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from linclass import (
    GaussianDiscriminantAnalysis,
    GaussianNB,
    LinearDiscriminantAnalysis,
    QuadraticDiscriminantAnalysis,
)

ESTIMATORS = [
    LinearDiscriminantAnalysis(),
    LinearDiscriminantAnalysis(shrinkage="ledoit-wolf"),
    QuadraticDiscriminantAnalysis(reg_param=0.01),
    GaussianNB(),
    *[GaussianDiscriminantAnalysis(covariance_type=t) for t in ("tied", "diag", "tied_diag", "spherical")],
    # an unregularised per-class covariance is singular on the checks' tiny data sets: its scores
    # are then numerically ill-defined, so the full model is checked with a little regularisation
    GaussianDiscriminantAnalysis(covariance_type="full", reg_param=0.01),
]


@pytest.mark.filterwarnings("ignore::linclass.SingularCovarianceWarning")
@parametrize_with_checks(ESTIMATORS)
def test_sklearn_compatible(estimator, check):
    check(estimator)
