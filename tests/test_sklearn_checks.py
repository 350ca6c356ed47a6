"""scikit-learn's estimator checks for every registry entry and variant (see ``conftest.CASES``), and for
a few settings outside the registry (``EXTRA``).

Every check runs; the few that fail by design are strict expected failures (an expected failure that
passes is an error), the two whose outcome rounding decides are non-strict ones
(``rounding_dependent``), and ``BernoulliNB(binarize=None)``, which refuses features that are not
0/1 (the checks draw real-valued ones), must either pass a check or fail it because of that refusal.
"""

import unittest

import pytest
from sklearn.covariance import OAS
from sklearn.utils.estimator_checks import _get_check_estimator_ids, estimator_checks_generator

from conftest import CASES, case_id
from linclass import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    FisherDiscriminantAnalysis,
    GaussianNB,
    GaussianDiscriminantAnalysis,
    LinearDiscriminantAnalysis,
    LogisticRegression,
    LogisticRegressionCV,
    MultinomialNB,
    Perceptron,
    PoissonNB,
    QuadraticDiscriminantAnalysis,
    StandardizedClassifier,
)

# settings that are not registry variants, checked as well: (class, constructor settings)
EXTRA = [
    # an unregularised per-class covariance is singular on the checks' tiny data sets (see
    # expected_failures): the full model is checked with a little regularisation as well
    (GaussianDiscriminantAnalysis, {"covariance_type": "full", "reg_param": 0.01}),
    # unpenalised: separation detected and reported, the iteration stopped
    (LogisticRegression, {"C": float("inf"), "max_iter": 50}),
    (Perceptron, {"shuffle": False, "pocket": True, "max_epochs": 50}),
    (MultinomialNB, {"alpha": 0.5, "fit_prior": False}),
    # scikit-learn's own covariance options: shrinkage from each class's standardized rows, a
    # covariance estimator object (these need all rows at once: no partial_fit)
    (LinearDiscriminantAnalysis, {"solver": "lsqr", "shrinkage": "auto"}),
    (LinearDiscriminantAnalysis, {"solver": "eigen", "covariance_estimator": OAS()}),
    (QuadraticDiscriminantAnalysis, {"solver": "eigen", "shrinkage": "auto", "reg_param": 0.01}),
    (StandardizedClassifier, {"estimator": GaussianNB()}),
]

# id -> estimator: the registry's cases (seeded ones with random_state=0), then the extras
ESTIMATORS = {c.id: c.make() for c in CASES} | {case_id(cls.__name__, p): cls(**p) for cls, p in EXTRA}


def expected_failures(estimator):
    """{check name: reason} of the checks this estimator fails by design (strict expected failures)."""
    if getattr(estimator, "covariance_estimator", None) is not None:
        # covariance estimator objects take no weights: unequal sample_weight is refused
        why = "covariance objects take no weights: unequal sample_weight is refused"
        return {"check_sample_weight_equivalence_on_dense_data": why,
                "check_sample_weights_not_overwritten": why}
    if isinstance(estimator, QuadraticDiscriminantAnalysis) and not estimator.reg_param:
        # the weight checks repeat a few distinct rows (or give a class fewer rows than its 30
        # features): an unregularised class covariance of less than full rank is scikit-learn's
        # LinAlgError (its QDA takes no sample_weight, so it is not put to these checks)
        why = "a singular class covariance raises, as scikit-learn's QDA does"
        return {"check_sample_weights_shape": why, "check_sample_weights_not_overwritten": why,
                "check_sample_weight_equivalence_on_dense_data": why}
    if isinstance(estimator, (MultinomialNB, PoissonNB, ComplementNB, CategoricalNB)):
        # this check draws Gaussian blobs with negative values and ignores the positive_only tag;
        # count models refuse negative counts with a clear error, as they should
        return {"check_decision_proba_consistency": "negative 'counts' are refused by design"}
    if isinstance(estimator, Perceptron):
        # the rule is sequential: weight 2 is one doubled update, whereas a repeated row is visited
        # twice (elsewhere in the order); scikit-learn marks its own Perceptron the same way
        repeated = "a weighted update is not the same as visiting a repeated sample twice"
        return {
            "check_sample_weight_equivalence_on_dense_data": repeated,
            "check_sample_weight_equivalence_on_sparse_data": repeated,
        }
    if isinstance(estimator, LogisticRegressionCV):
        failures = {}
        if estimator.penalty in ("l1", "elasticnet"):
            # with an L1 part the grid's first C (1e-4) zeroes every coefficient of the checks' data:
            # the intercept-only start is already its optimum, so that fit takes 0 iterations (a
            # ridge fit takes at least one)
            failures["check_non_transformer_estimators_n_iter"] = "the path's first fit needs 0 iterations"
        if estimator.cv is None:
            # the check's 9 rows hold 3 per class, too few for the default 5 stratified folds
            # (scikit-learn runs its own LogisticRegressionCV's checks with cv=3)
            failures["check_sparsify_coefficients"] = "3 rows per class for 5 stratified folds"
        return failures
    if isinstance(estimator, LogisticRegression) and not estimator.fit_intercept:
        # the check weights one class 1000:0.0001 on blobs far from the origin and expects it to be
        # predicted almost everywhere: without an intercept the boundary must pass through the origin
        return {
            "check_class_weight_classifiers": "no intercept: class weights cannot move the boundary off the origin"
        }
    return {}


def rounding_dependent(estimator):
    """{check name: reason} of the checks whose outcome on the checks' data is decided by rounding:
    non-strict expected failures (they may pass or fail with the order of a BLAS summation)."""
    # (QuadraticDiscriminantAnalysis decides the rank at tol**2 = 1e-8 of the largest eigenvalue by
    # default, on scikit-learn's scale: far enough above rounding that weighted and repeated rows agree)
    if isinstance(estimator, LogisticRegressionCV):
        # the checks' classes are separable: every penalty picks the grid's weakest C (1e4), and the
        # refit is the path's last step, stopped within tol (1e-6) of the optimum.  Weighted and
        # repeated rows may stop at points that differ by ~3e-9 in the probabilities, which the
        # check compares with rtol=1e-7 on probabilities of 1e-5; whether they do depends on how far
        # past tol the last Newton step went (since the intercepts are profiled exactly, two of the
        # three settings land at rounding level on this data)
        return {"check_sample_weight_equivalence_on_dense_data": "stopped within tol, not at rounding"}
    full = isinstance(estimator, GaussianDiscriminantAnalysis) and estimator.covariance_type == "full"
    if full and not estimator.reg_param and estimator.shrinkage is None:
        # the check's data have 30 features and 15 rows: each class's covariance is singular, and the
        # rank decisions on it (pseudo-inverse, variance floor) are made on values at rounding level,
        # so weighted and repeated rows (equal statistics up to rounding) may give different scores
        return {"check_sample_weight_equivalence_on_dense_data":
                "singular per-class covariances: the scores are numerically ill-defined"}
    if isinstance(estimator, FisherDiscriminantAnalysis) and estimator.solver == "gsvd":
        # the between-class scatter lies outside the within-class range on that data: both eigenvalues
        # are infinite (tied), and any basis of their plane is a solution; rounding picks one
        return {"check_sample_weight_equivalence_on_dense_data":
                "tied infinite eigenvalues: the directions are defined only up to a rotation"}
    return {}


def refusal_by_design(estimator):
    """The message of a refusal that explains any failing check, or None (every check must pass)."""
    if isinstance(estimator, BernoulliNB) and estimator.binarize is None:
        return "needs features that are 0 or 1"  # the checks' X is real-valued
    return None


def _messages(exc):
    """The messages of ``exc`` and of the exceptions it was raised from or during."""
    seen = []
    while exc is not None and exc not in seen:
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__
    return [str(e) for e in seen]


def _params():
    out = []
    for label, estimator in ESTIMATORS.items():
        for item in estimator_checks_generator(estimator, legacy=True, mark="xfail", xfail_strict=True,
                                               expected_failed_checks=expected_failures(estimator)):
            values, marks = (item.values, item.marks) if hasattr(item, "marks") else (item, ())
            name = getattr(values[1], "func", values[1]).__name__
            reason = rounding_dependent(estimator).get(name)
            if reason is not None:
                marks = (*marks, pytest.mark.xfail(strict=False, reason=reason))
            out.append(pytest.param(*values, marks=marks, id=f"{label}-{_get_check_estimator_ids(values[1])}"))
    return out


@pytest.mark.filterwarnings("ignore::linclass.SingularCovarianceWarning")
@pytest.mark.parametrize("estimator, check", _params())
def test_sklearn_compatible(estimator, check):
    refusal = refusal_by_design(estimator)
    if refusal is None:
        check(estimator)
    else:
        try:
            check(estimator)
        except unittest.SkipTest:
            raise
        except Exception as exc:  # noqa: BLE001 - the check's own failure, examined below
            assert any(refusal in m for m in _messages(exc)), (
                f"failed for another reason than the refusal by design ({refusal!r}): {exc}"
            )

