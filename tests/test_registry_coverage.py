"""Every registry entry and variant is run through each suite that reads the registry, so that none
drops out silently: scikit-learn's estimator checks, the bad-input matrix, the property tests and the
save / load round trip.  What is checked is what pytest will run: the parameters of the suites' test
functions, not only their tables."""

import pytest

import linclass.estimators
import test_bad_inputs
import test_persistence
import test_properties
import test_sklearn_checks
from conftest import CASES, CASE_IDS
from linclass import registry


def parametrized(function, argname):
    """The values ``function`` is run with for ``argname`` (from its ``parametrize`` marks)."""
    values = []
    for mark in getattr(function, "pytestmark", []):
        if mark.name != "parametrize":
            continue
        names = mark.args[0]
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        if argname not in names:
            continue
        i = names.index(argname)
        for value in mark.args[1]:
            if hasattr(value, "values") and hasattr(value, "marks"):  # pytest.param(...)
                value = value.values
            elif len(names) == 1:
                value = (value,)
            values.append(value[i])
    assert values, f"{function.__name__} is not parametrized over {argname!r}"
    return values


def params(model):
    """``get_params(deep=False)``, with an inner estimator replaced by its class and parameters."""
    return {k: (type(v), params(v)) if hasattr(v, "get_params") else v
            for k, v in model.get_params(deep=False).items()}


def test_the_registry_lists_every_public_estimator_once():
    names = [e.name for e in registry.ENTRIES]
    assert sorted(names) == sorted(linclass.estimators.__all__)
    assert len(CASE_IDS) == sum(len(e.variants) for e in registry.ENTRIES)


def test_each_case_builds_its_variant(registry_case):
    model = registry_case.make()
    assert type(model) is registry_case.cls
    assert {k: model.get_params(deep=False)[k] for k in registry_case.variant} == registry_case.variant
    assert registry_case.make() is not model


def test_every_case_gets_the_estimator_checks():
    suite = test_sklearn_checks
    run = parametrized(suite.test_sklearn_compatible, "estimator")
    for case in CASES:
        estimator = suite.ESTIMATORS[case.id]
        assert params(estimator) == params(case.make()), case.id
        n = sum(e is estimator for e in run)
        assert n >= 30, f"{case.id}: {n} checks"


@pytest.mark.parametrize("test", [test_bad_inputs.test_bad_input,
                                  test_bad_inputs.test_float32_input])
def test_every_case_meets_the_bad_inputs(test):
    names = parametrized(test, "name")
    for case in CASES:
        assert case.id in names, case.id
        assert test_bad_inputs.ESTIMATORS[case.id].case is case
    if test is test_bad_inputs.test_bad_input:  # every row, for every estimator
        rows = len(test_bad_inputs.CASES)
        assert all(names.count(case.id) == rows for case in CASES)


def test_every_partial_fit_case_meets_the_partial_fit_rows():
    names = parametrized(test_bad_inputs.test_bad_partial_fit, "name")
    for case in CASES:
        assert (case.id in names) == case.can("partial_fit"), case.id


def test_every_case_has_its_properties_tested():
    suite = test_properties
    tests = {"R": suite.test_refit_is_reproducible, "P": suite.test_row_permutation_invariance,
             "L": suite.test_label_relabelling_equivariance,
             "W": suite.test_duplicated_rows_equal_integer_sample_weight,
             "C": suite.test_chunked_partial_fit_equals_fit}
    run = {prop: set(parametrized(test, "name")) for prop, test in tests.items()}
    run["R"] |= set(parametrized(suite.test_cross_validated_refit_is_reproducible, "name"))
    for case in CASES:
        _, _, props = suite.ESTIMATORS[case.id]
        assert "R" in props, case.id
        for prop in props:
            assert case.id in run[prop], (case.id, prop)
    # the properties that apply by capability are excluded only by design, for the listed estimators
    for case in CASES:
        _, _, props = suite.ESTIMATORS[case.id]
        missing = set("PL") - set(props)
        if case.can("partial_fit"):
            missing |= {"C"} - set(props)
        assert missing <= set(suite.by_design_not(case.make())), case.id


def test_every_case_round_trips():
    run = parametrized(test_persistence.test_roundtrip_every_estimator, "case")
    for case in CASES:
        assert case.id in run, case.id
        factory, kind = test_persistence.CASES[case.id]
        assert params(factory()) == params(case.make()), case.id
        assert kind in ("iris", "counts", "binary")
    partial = parametrized(test_persistence.test_partial_fit_continues_identically, "case")
    assert {c.id for c in CASES if c.can("partial_fit")} <= set(partial)


def test_ids_name_the_variant():
    lbfgs = next(c for c in CASES if c.cls is linclass.LogisticRegression and c.variant == {"solver": "lbfgs"})
    assert lbfgs.id == "LogisticRegression-solver=lbfgs"
    assert lbfgs.make().random_state == 0  # seeded entries are seeded
    lda = next(c for c in CASES if c.cls is linclass.LinearDiscriminantAnalysis and not c.variant)
    assert lda.id == "LinearDiscriminantAnalysis"
    assert all(c.id.startswith(c.name) for c in CASES)


def test_estimator_classes_are_imported_only_by_the_registry_and_the_package():
    """Outside estimators/, the registry and the package's __init__, code reaches an estimator
    class through the registry, never by importing it (the list of estimators lives in one place)."""
    import ast
    from pathlib import Path

    root = Path(linclass.__file__).parent
    names = {entry.cls.__name__ for entry in registry.ENTRIES}
    offenders = []
    for path in root.rglob("*.py"):
        relative = path.relative_to(root).as_posix()
        if relative.startswith("estimators/") or relative in ("registry.py", "__init__.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("linclass"):
                offenders += [f"{relative}: {a.name}" for a in node.names if a.name in names]
    assert not offenders
