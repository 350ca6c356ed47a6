"""LogisticRegressionCV as a drop-in for scikit-learn 1.9's: the cases of
``tests/dropin/logistic_cv_trial.py`` (signature and defaults, every invalid parameter value and
combination, the deprecation warnings, errors on bad data, both layouts of every fitted attribute
for two and three classes, several l1_ratios, with and without a refit, and the chosen values and
probabilities), each run in both libraries and compared.  A behaviour of scikit-learn's that does
not hold for linclass is one of the trial's ``DIFFERENCES``, with its reason; the test asserts that
it still differs, so that the list stays true.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegressionCV as SklearnCV
from sklearn.utils._param_validation import InvalidParameterError

from dropin import logistic_cv_trial as trial
from linclass import LogisticRegressionCV


def _by(cases):
    return pytest.mark.parametrize("case", cases, ids=[c.id for c in cases])


def assert_same(case):
    """Every observation of ``case`` agrees, but the documented differences (which must differ)."""
    ref, ours = trial.observe(case, SklearnCV), trial.observe(case, LogisticRegressionCV)
    for name, value in ref.items():
        held = name in ours and trial.agree(ours[name], value)
        if trial.difference(name) is None:
            assert held, f"{name}: linclass {ours.get(name, '<missing>')!r}, scikit-learn {value!r}"
        else:
            assert not held, f"{name} now holds: remove it from the trial's DIFFERENCES"


def test_signature_is_scikit_learns_then_linclass_own():
    assert_same(("signature", None))
    ours = list(inspect.signature(LogisticRegressionCV).parameters)
    theirs = list(inspect.signature(SklearnCV).parameters)
    assert ours[: len(theirs)] == theirs
    assert ours[len(theirs):] == ["grid", "min_ratio", "store_paths", "refit_rule", "relax",
                                  "fold_penalty", "penalty_factor", "lower_bounds",
                                  "upper_bounds", "multinomial_penalty"]


def _sklearn_error(case):
    error, *_ = trial.outcome(case, SklearnCV)
    return error


@_by(trial.INVALID)
def test_invalid_values_raise_scikit_learns_exception_naming_the_parameter(case):
    expected = _sklearn_error(case)
    assert isinstance(expected, InvalidParameterError) or case.id.startswith(
        "invalid class_weight={5")
    X, y = trial.binary()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with pytest.raises(type(expected)) as caught:
            case.make(LogisticRegressionCV).fit(X, y)
    changed = [k for k, v in case.params.items() if trial.QUIET.get(k, object()) is not v]
    assert any(k in str(caught.value) for k in changed) or "class_weight" in str(caught.value)


@_by(trial.COMBINATIONS)
def test_combinations_raise_and_warn_as_scikit_learn(case):
    expected = _sklearn_error(case)
    if expected is not None and trial.difference(f"{case.id}: raises") is None:
        X, y = trial.DATA[case.data]()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            with pytest.raises(type(expected)):
                case.make(LogisticRegressionCV).fit(X, y)
    assert_same(case)


@_by(trial.WARNINGS)
def test_deprecations_warn_as_scikit_learn(case):
    error, seen, *_ = trial.outcome(case, SklearnCV)
    X, y = trial.binary()
    if (any(category == "FutureWarning" for category, _ in seen)
            and trial.difference(f"{case.id}: warnings") is None):
        with pytest.warns(FutureWarning):
            case.make(LogisticRegressionCV).fit(X, y)
    assert_same(case)


@_by(trial.DATA_ERRORS)
def test_bad_data_and_metadata_as_scikit_learn(case):
    assert_same(case)


@pytest.mark.slow
@_by(trial.LAYOUTS)
def test_fitted_attributes_are_laid_out_as_scikit_learns(case):
    """Type, dictionary keys, shape and dtype of every fitted attribute, in both layouts."""
    assert_same(case)


@pytest.mark.slow
@_by(trial.VALUES)
def test_chosen_values_and_probabilities_are_scikit_learns(case):
    assert_same(case)


def test_new_layout_holds_the_intercepts_last_and_the_legacy_keys_the_classes():
    X, y = trial.three()
    new = LogisticRegressionCV(Cs=3, cv=3, l1_ratios=(0.0, 1.0), solver="saga",
                               scoring="neg_log_loss", use_legacy_attributes=False).fit(X, y)
    np.testing.assert_array_equal(new.coefs_paths_[..., -1], new.intercepts_paths_)
    old = LogisticRegressionCV(Cs=3, cv=3, l1_ratios=(0.0, 1.0), solver="saga",
                               scoring="neg_log_loss", use_legacy_attributes=True).fit(X, y)
    for k, label in enumerate(old.classes_):
        np.testing.assert_array_equal(old.coefs_paths_[label],
                                      np.moveaxis(new.coefs_paths_[:, :, :, k], 2, 1))
        np.testing.assert_array_equal(old.scores_[label], np.moveaxis(new.scores_, 2, 1))
    np.testing.assert_array_equal(old.n_iter_[0], np.moveaxis(new.n_iter_, 2, 1))
    np.testing.assert_array_equal(old.C_, [new.C_] * 3)
    np.testing.assert_array_equal(old.l1_ratio_, [new.l1_ratio_] * 3)


def test_liblinear_intercept_is_penalised_in_folds_and_refit():
    """intercept_scaling: every fold's fit is scikit-learn's liblinear fit (the folds' scores
    agree), and the refit is linclass's LogisticRegression(solver='liblinear') at the chosen C."""
    from linclass import LogisticRegression

    X, y = trial.binary()
    X = X + 2.0  # an intercept far from zero: its penalty matters
    params = {"Cs": 4, "cv": 3, "l1_ratios": (0.0,), "solver": "liblinear",
              "intercept_scaling": 0.5, "scoring": "neg_log_loss",
              "use_legacy_attributes": False, "tol": 1e-10}
    ours = LogisticRegressionCV(**params).fit(X, y)
    theirs = SklearnCV(**{**params, "max_iter": 10_000}).fit(X, y)
    np.testing.assert_allclose(ours.scores_, theirs.scores_, atol=1e-7)
    alone = LogisticRegression(solver="liblinear", C=ours.C_, intercept_scaling=0.5,
                               tol=1e-10).fit(X, y)
    np.testing.assert_allclose(ours.intercept_, alone.intercept_, atol=1e-7)
    plain = LogisticRegressionCV(**{**params, "solver": "lbfgs"}).fit(X, y)
    assert abs(plain.intercept_[0] - ours.intercept_[0]) > 1e-2


def test_metadata_routing_sends_groups_to_the_splitter():
    import sklearn
    from sklearn.model_selection import GroupKFold

    X, y = trial.binary()
    groups = np.arange(y.size) % 4
    with sklearn.config_context(enable_metadata_routing=True):
        model = LogisticRegressionCV(Cs=3, cv=GroupKFold(4), l1_ratios=(0.0,),
                                     scoring="neg_log_loss", use_legacy_attributes=False)
        model.fit(X, y, groups=groups)
    assert model.scores_.shape == (4, 1, 3)
    with pytest.raises(ValueError, match="enable_metadata_routing"):
        model.fit(X, y, groups=groups)


def test_score_uses_the_scoring_and_sample_weight_is_keyword_only():
    X, y = trial.binary()
    model = LogisticRegressionCV(Cs=3, cv=3, l1_ratios=(0.0,), scoring="neg_log_loss",
                                 use_legacy_attributes=False).fit(X, y)
    proba = model.predict_proba(X)[np.arange(y.size), y]
    assert model.score(X, y) == pytest.approx(np.mean(np.log(proba)), abs=1e-12)
    w = np.linspace(0.5, 2.0, y.size)
    with pytest.warns(FutureWarning, match="positional"):
        positional = model.score(X, y, w)
    assert positional == model.score(X, y, sample_weight=w)


def test_verbose_reports_each_fold_and_the_refit(capsys):
    X, y = trial.binary()
    LogisticRegressionCV(Cs=3, cv=3, l1_ratios=(0.0,), scoring="neg_log_loss",
                         use_legacy_attributes=False, verbose=1).fit(X, y)
    out = capsys.readouterr().out
    assert out.count("LogisticRegressionCV fold") == 3 and "refit at C=" in out


def test_held_out_values_are_scikit_learns_scorers():
    """The held-out accuracy and log-loss computed from the scores are scikit-learn's scorers'
    values: ties at a log-odds of exactly 0 go to the first class, probabilities are clipped."""
    from scipy.special import expit
    from sklearn.metrics import accuracy_score, log_loss

    from linclass.selection.scoring import held_out_value

    s = np.array([0.0, 40.0, -40.0, 2.0, -800.0])  # p(class 1) of 1 - 4e-18, 4e-18, ... 0
    y = np.array([1, 0, 1, 1, 1])
    S = np.column_stack([np.zeros_like(s), s])
    p = np.column_stack([expit(-s), expit(s)])
    w = np.array([1.0, 2.0, 0.5, 1.0, 3.0])
    assert held_out_value(S, y, "accuracy", w) == accuracy_score(y, (s > 0).astype(int),
                                                                 sample_weight=w)
    assert held_out_value(S, y, "neg_log_loss", w) == pytest.approx(
        -log_loss(y, p, sample_weight=w), rel=1e-14)
    K = np.random.default_rng(0).normal(scale=30, size=(6, 3))
    yk = np.array([0, 1, 2, 2, 1, 0])
    P = np.exp(K - K.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    assert held_out_value(K, yk, "neg_log_loss", None) == pytest.approx(
        -log_loss(yk, P, labels=[0, 1, 2]), rel=1e-12)
