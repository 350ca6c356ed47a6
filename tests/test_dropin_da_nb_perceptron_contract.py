"""LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis, the naive Bayes models and Perceptron
against scikit-learn 1.9's documented behaviours, case by case.

The cases are in ``tests/dropin/da_nb_perceptron_behaviours.py`` (run it for the count per class):
each builds the class of both libraries with the same arguments and runs the same action.  Where
scikit-learn raises, linclass raises the same exception class (``pytest.raises`` with scikit-learn's
class) and names the parameter its message names; where scikit-learn warns, linclass warns the same
class (``pytest.warns``) and nothing else; the values returned (attributes' shapes and dtypes,
predictions, weights) are equal.  The deliberate differences that script lists, each with its reason,
are asserted to be differences still.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import pytest

import linclass

sys.path.insert(0, str(Path(__file__).parent / "dropin"))
import da_nb_perceptron_behaviours as behaviours  # noqa: E402

sys.path.pop(0)

AGREED = [c for c in behaviours.CASES if (c.name, c.label) not in behaviours.DIFFERENCES]
DIFFERENT = [c for c in behaviours.CASES if (c.name, c.label) in behaviours.DIFFERENCES]


@pytest.mark.parametrize("case", AGREED, ids=lambda c: c.id)
def test_linclass_behaves_as_sklearn(case):
    ours = getattr(linclass, case.name)
    theirs = behaviours.observe(case.action, behaviours.reference(case.name))
    if theirs.error is not None:
        with pytest.raises(type(theirs.error)) as raised:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                case.action(ours)
        if case.param and case.param in str(theirs.error):
            assert case.param in str(raised.value), str(raised.value)
        return
    if theirs.warns and case.warnings_count:
        with pytest.warns(theirs.warns) as record:
            case.action(ours)
        assert {w.category for w in record if not issubclass(w.category, RuntimeWarning)} <= set(theirs.warns)
    why = behaviours.compare(theirs, behaviours.observe(case.action, ours), case.param, case.warnings_count)
    assert why is None, why


@pytest.mark.parametrize("case", DIFFERENT, ids=lambda c: c.id)
def test_each_listed_difference_is_still_one(case):
    """A difference fixed later leaves the list (which the README's drop-in section summarises)."""
    theirs = behaviours.observe(case.action, behaviours.reference(case.name))
    ours = behaviours.observe(case.action, getattr(linclass, case.name))
    assert behaviours.compare(theirs, ours, case.param, case.warnings_count) is not None


def test_agreement_is_at_least_90_percent_for_every_class():
    for name in behaviours.NAMES:
        cases = [c for c in behaviours.CASES if c.name == name]
        differ = sum((c.name, c.label) in behaviours.DIFFERENCES for c in cases)
        assert 1 - differ / len(cases) >= 0.9, (name, differ, len(cases))
