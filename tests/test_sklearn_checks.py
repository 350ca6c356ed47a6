"""scikit-learn's estimator checks for every linclass estimator."""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from linclass import (
    BernoulliNB,
    GaussianDiscriminantAnalysis,
    GaussianNB,
    LinearDiscriminantAnalysis,
    MultinomialNB,
    PoissonNB,
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
    BernoulliNB(),
    MultinomialNB(),
    PoissonNB(),
]


def expected_failures(estimator):
    if isinstance(estimator, (MultinomialNB, PoissonNB)):
        # this check draws Gaussian blobs with negative values and ignores the positive_only tag;
        # count models refuse negative counts with a clear error, as they should
        return {"check_decision_proba_consistency": "negative 'counts' are refused by design"}
    return {}


@pytest.mark.filterwarnings("ignore::linclass.SingularCovarianceWarning")
@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)
