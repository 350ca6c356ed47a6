"""The registry's ``units`` capability (a model whose default fit depends on the features' units:
the command's ``--scale`` hint reads it) is derived here, not trusted: each estimator is fitted on X
and on X with its columns measured in other units, and the registry must mark exactly those whose
predictions change.

Models of counts (capability ``counts``) are left out: a count's unit is one event, and their inputs
cannot be standardised (they must stay non-negative integers)."""

import numpy as np
import pytest

from conftest import CASES
from linclass import registry

#: each column measured in other units (km for m, grams for kg, ...)
UNITS = np.resize([1000.0, 1.0, 0.01, 30.0], 8)
#: a change below this is rounding (or an iterative fit's tolerance), above it a different model
SAME, CHANGED = 1e-6, 1e-3


def _problem(seed=0, n=60):
    """Three overlapping Gaussian classes with unequal covariances, features of unequal spread (few
    rows for 8 features: the cross-validated models choose some regularisation)."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    X = rng.normal(size=(n, UNITS.size)) * rng.uniform(0.5, 2.0, UNITS.size)
    X[:, :2] += 1.2 * y[:, None]
    X[y == 2] *= 1.4
    return X, y


def _output(model, X):
    """predict_proba; for a model without it, the decision values scaled to unit length per row."""
    if hasattr(model, "predict_proba"):
        return model.predict_proba(X)
    D = np.atleast_2d(model.decision_function(X).T).T
    return D / np.linalg.norm(D, axis=1, keepdims=True)


def change_with_units(entry) -> float:
    """The largest change of the default model's output when the columns change units."""
    X, y = _problem()
    Xu = X * UNITS
    raw = entry.make(**({"random_state": 0} if entry.can("seeded") else {})).fit(X, y)
    other = entry.make(**({"random_state": 0} if entry.can("seeded") else {})).fit(Xu, y)
    return float(np.max(np.abs(_output(raw, X) - _output(other, Xu))))


MEASUREMENTS = [e for e in registry.ENTRIES if not e.can("counts")]


@pytest.mark.filterwarnings("ignore::UserWarning")  # grid edges, non-convergence: the fit is what it is
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("entry", MEASUREMENTS, ids=lambda e: e.name)
def test_the_registry_marks_exactly_the_models_that_depend_on_units(entry):
    change = change_with_units(entry)
    if entry.can("units"):
        assert change > CHANGED, f"{entry.name} is marked 'units' but its model changed by {change:.2g}"
    else:
        assert change < SAME, f"{entry.name} is not marked 'units' but its model changed by {change:.2g}"


def test_every_model_of_measurements_is_examined():
    names = {e.name for e in MEASUREMENTS}
    assert {c.name for c in CASES if not c.can("counts")} == names
    assert {"RegularizedDiscriminantAnalysis", "GaussianNB", "LogisticRegression"} <= names


def test_compare_hints_at_scale_for_rda_and_scaling_helps_it(capsys):
    """The demo's own finding: rda at 0.73 on raw wine and 0.99 standardised, without a hint."""
    import csv
    import io

    from conftest import cli

    args = ["compare", "--dataset", "wine", "--models", "rda", "lda", "--format", "csv"]
    accuracy = {}
    for scale in (False, True):
        code, out, err = cli(args + (["--scale"] if scale else []), capsys)
        assert code == 0, err
        accuracy[scale] = {r["model"]: float(r["accuracy_mean"]) for r in csv.DictReader(io.StringIO(out))}
        hints = [line for line in err.splitlines() if line.startswith("linclass: hint:")]
        if scale:
            assert not hints
        else:
            (hint,) = hints
            assert "rda depends on the features' units" in hint and "lda" not in hint
    assert accuracy[True]["rda"] > accuracy[False]["rda"] + 0.2
    assert accuracy[True]["lda"] == pytest.approx(accuracy[False]["lda"], abs=1e-12)
