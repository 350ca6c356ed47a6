"""LogisticRegression against scikit-learn 1.9's documented behaviours, case by case.

The cases and the facts are in ``tests/dropin/logistic_behaviours.py`` (run it for the count): each
case builds both estimators with the same arguments and runs the same action; every fact that holds
for scikit-learn (this exception class, a message naming these parameters, a warning of this class,
fitted attributes of this shape and dtype, the same probabilities) must hold for linclass, except
the deliberate differences that script lists with their reasons.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression as Reference
from sklearn.utils._param_validation import InvalidParameterError

from linclass import LogisticRegression

sys.path.insert(0, str(Path(__file__).parent / "dropin"))
import logistic_behaviours as behaviours  # noqa: E402

sys.path.pop(0)


_CHECKED: dict = {}


def checked(case):
    """``behaviours.check`` of ``case``, once per session (two tests read it)."""
    if case.id not in _CHECKED:
        _CHECKED[case.id] = behaviours.check(LogisticRegression, Reference, case)
    return _CHECKED[case.id]


@pytest.mark.parametrize("case", behaviours.CASES, ids=lambda c: c.id)
def test_every_fact_of_sklearns_holds_but_the_listed_differences(case):
    results, ours, ref = checked(case)
    assert results, "a case with no fact tests nothing"
    failed = [text for text, ok in results
              if not ok and behaviours.difference(case, text) is None]
    assert not failed, (f"{failed}; ours raised {ours.error!r}, warned "
                        f"{[(c.__name__, m[:100]) for c, m in ours.warnings]}; scikit-learn raised "
                        f"{ref.error!r}, warned {[(c.__name__, m[:100]) for c, m in ref.warnings]}")


def test_the_signature_holds_every_sklearn_parameter_with_its_default_but_three():
    failed = [text for text, ok in behaviours.signature_facts(LogisticRegression, Reference)
              if not ok]
    assert {behaviours.difference(None, text) for text in failed} == {
        "default-penalty", "default-tol", "default-solver"}


def test_the_listed_differences_are_real():
    """Each deliberate difference still differs (a difference fixed later leaves the list)."""
    seen = set()
    for case in behaviours.CASES:
        results, _, _ = checked(case)
        seen |= {behaviours.difference(case, text) for text, ok in results if not ok}
    seen |= {behaviours.difference(None, text)
             for text, ok in behaviours.signature_facts(LogisticRegression, Reference) if not ok}
    assert seen - {None} == set(behaviours.DIFFERENCES)


@pytest.mark.parametrize("params, names", [
    ({"C": -1.0}, ("C",)), ({"solver": "foo"}, ("solver",)), ({"l1_ratio": 2.0}, ("l1_ratio",)),
    ({"penalty": "l3"}, ("penalty",)), ({"max_iter": -1}, ("max_iter",)),
    ({"intercept_scaling": 0.0}, ("intercept_scaling",)),
])
def test_invalid_values_raise_sklearns_invalid_parameter_error(params, names):
    X, y = behaviours.binary()
    for cls in (Reference, LogisticRegression):
        with pytest.raises(InvalidParameterError) as info:
            cls(**params).fit(X, y)
        assert all(name in str(info.value) for name in names)


@pytest.mark.parametrize("params", [
    {"solver": "lbfgs", "l1_ratio": 1.0}, {"solver": "newton-cholesky", "l1_ratio": 0.5},
    {"solver": "sag", "l1_ratio": 1.0}, {"solver": "liblinear", "l1_ratio": 0.5},
    {"solver": "liblinear", "C": float("inf")}, {"solver": "lbfgs", "dual": True},
    {"solver": "liblinear", "l1_ratio": 1.0, "dual": True},
], ids=repr)
def test_invalid_combinations_raise_value_error_naming_what_is_wrong(params):
    X, y = behaviours.binary()
    for cls in (Reference, LogisticRegression):
        with pytest.raises(ValueError, match="[Ss]olver|liblinear|dual"):
            cls(**params).fit(X, y)


@pytest.mark.parametrize("params, category", [
    ({"l1_ratio": None}, FutureWarning), ({"n_jobs": 2}, FutureWarning),
    ({"penalty": "l2", "l1_ratio": 0.5}, UserWarning), ({"penalty": None, "C": 0.5}, UserWarning),
    ({"penalty": None, "l1_ratio": 0.5}, UserWarning), ({"max_iter": 1}, ConvergenceWarning),
], ids=repr)
def test_warnings_of_sklearns_class(params, category):
    X, y = behaviours.binary()
    for cls in (Reference, LogisticRegression):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning if category is not FutureWarning
                                  else ConvergenceWarning)
            with pytest.warns(category):
                cls(**params).fit(X, y)
