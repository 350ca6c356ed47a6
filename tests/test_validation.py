"""Bad input gets a clear error naming the problem; odd but valid input works."""

import warnings

import numpy as np
import pandas as pd
import pytest

import linclass
from linclass import (
    GaussianDiscriminantAnalysis,
    GaussianNB,
    LinearDiscriminantAnalysis,
    QuadraticDiscriminantAnalysis,
)
from linclass.core.validation import encode_labels

ALL = [
    LinearDiscriminantAnalysis,
    QuadraticDiscriminantAnalysis,
    GaussianNB,
    lambda: GaussianDiscriminantAnalysis(covariance_type="tied_diag"),
    lambda: GaussianDiscriminantAnalysis(covariance_type="spherical"),
]


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 3))
    y = np.repeat([0, 1, 2], 20)
    X += y[:, None]
    return X, y


@pytest.mark.parametrize("make", ALL)
def test_nan_names_row_and_column(make, data):
    X, y = data
    X = X.copy()
    X[7, 2] = np.nan
    with pytest.raises(ValueError, match=r"NaN in 1 entry \(first at row 7, column 2\)"):
        make().fit(X, y)


def test_nan_names_dataframe_column(data):
    X, y = data
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    frame.loc[3, "b"] = np.nan
    with pytest.raises(ValueError, match=r"column 'b'"):
        LinearDiscriminantAnalysis().fit(frame, y)


@pytest.mark.parametrize("make", ALL)
def test_infinity_at_fit_and_predict(make, data):
    X, y = data
    bad = X.copy()
    bad[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        make().fit(bad, y)
    model = make().fit(X, y)
    with pytest.raises(ValueError, match="infinity"):
        model.predict_proba(bad)


def test_huge_finite_values_are_refused_not_nan(data):
    X, y = data
    model = LinearDiscriminantAnalysis().fit(X, y)
    with pytest.raises(ValueError, match="too large|overflowed"):
        model.predict_proba(np.full((2, 3), 1e308))
    with pytest.raises(ValueError, match="too large"):
        LinearDiscriminantAnalysis().fit(np.vstack([X, np.full((1, 3), 1.7e308)]), np.append(y, 0))


def test_empty_input(data):
    _, y = data
    with pytest.raises(ValueError, match="0 sample"):
        LinearDiscriminantAnalysis().fit(np.empty((0, 3)), [])


def test_one_dimensional_X(data):
    X, y = data
    with pytest.raises(ValueError, match="Expected 2D array.*X.reshape"):
        LinearDiscriminantAnalysis().fit(X[:, 0], y)


def test_single_class(data):
    X, _ = data
    with pytest.raises(ValueError, match="at least two classes.*one class \\('only'\\)"):
        QuadraticDiscriminantAnalysis().fit(X, ["only"] * len(X))


def test_continuous_labels(data):
    X, _ = data
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        GaussianNB().fit(X, np.linspace(0, 1, len(X)))


def test_inconsistent_lengths(data):
    X, y = data
    with pytest.raises(ValueError, match="inconsistent numbers of samples: X has 60 rows but y has 59"):
        GaussianNB().fit(X, y[:-1])


def test_feature_count_mismatch_at_predict(data):
    X, y = data
    model = LinearDiscriminantAnalysis().fit(X, y)
    with pytest.raises(ValueError, match="X has 2 features, but LinearDiscriminantAnalysis is expecting 3"):
        model.predict(X[:, :2])


@pytest.mark.parametrize(
    "weights, message",
    [
        (-np.ones(60), "Negative values in sample_weight"),
        (np.ones(59), r"sample_weight.shape == \(59,\), expected \(60,\)"),
        (np.zeros(60), "Every sample_weight is zero"),
        (np.r_[np.nan, np.ones(59)], "sample_weight contains NaN"),
        (np.ones((60, 2)), "1D array or scalar"),
    ],
)
def test_bad_sample_weight(data, weights, message):
    X, y = data
    with pytest.raises(ValueError, match=message):
        LinearDiscriminantAnalysis().fit(X, y, sample_weight=weights)


@pytest.mark.parametrize(
    "labels",
    [
        np.array(["setosa", "versicolor", "virginica"]).repeat(20),
        np.array([10, -3, 7]).repeat(20),
        np.array([True, False, True]).repeat(20),
        np.array([2.0, 0.0, 1.0]).repeat(20),
    ],
)
@pytest.mark.parametrize("make", ALL)
def test_label_types_are_kept(make, data, labels):
    X, _ = data
    model = make().fit(X, labels)
    np.testing.assert_array_equal(model.classes_, np.unique(labels))
    assert model.classes_.dtype == labels.dtype
    assert set(model.predict(X)) <= set(labels)
    assert model.predict_proba(X).shape == (60, np.unique(labels).size)


def test_encode_labels_fast_path_matches_unique():
    rng = np.random.default_rng(3)
    for y in (rng.integers(-5, 40, 500), rng.integers(0, 2, 500).astype(bool),
              rng.integers(0, 10**12, 50), rng.integers(0, 255, 300).astype(np.uint8)):
        classes, index = encode_labels(y)
        ref_classes, ref_index = np.unique(y, return_inverse=True)
        np.testing.assert_array_equal(classes, ref_classes)
        np.testing.assert_array_equal(index, ref_index)
        assert classes.dtype == y.dtype


def test_dataframe_feature_names(data):
    X, y = data
    frame = pd.DataFrame(X, columns=["sepal", "petal", "stem"])
    model = LinearDiscriminantAnalysis().fit(frame, pd.Series(y))
    np.testing.assert_array_equal(model.feature_names_in_, ["sepal", "petal", "stem"])
    with pytest.raises(ValueError, match="feature names"):
        model.predict(frame[["petal", "sepal", "stem"]])


def test_bad_priors(data):
    X, y = data
    with pytest.raises(ValueError, match="priors has 2 entries but there are 3 classes"):
        LinearDiscriminantAnalysis(priors=[0.5, 0.5]).fit(X, y)
    with pytest.raises(ValueError, match="must sum to 1"):
        GaussianNB(priors=[0.5, 0.5, 0.5]).fit(X, y)
    # scikit-learn's LDA divides such priors by their sum, with a warning: so does linclass's
    with pytest.warns(UserWarning, match="sum to 1.5, not 1"):
        model = LinearDiscriminantAnalysis(priors=[0.5, 0.5, 0.5]).fit(X, y)
    np.testing.assert_allclose(model.priors_, 1 / 3)


def test_bad_parameters_are_named(data):
    X, y = data
    with pytest.raises(ValueError, match="'shrinkage' parameter"):
        LinearDiscriminantAnalysis(shrinkage=2.0).fit(X, y)
    with pytest.raises(ValueError, match="'covariance_type' parameter"):
        GaussianDiscriminantAnalysis(covariance_type="banana").fit(X, y)
    with pytest.raises(ValueError, match="shrinkage applies to covariance_type 'tied' or 'full'"):
        GaussianDiscriminantAnalysis(covariance_type="diag", shrinkage=0.1).fit(X, y)
    with pytest.raises(ValueError, match="n_components=5 cannot be larger"):
        LinearDiscriminantAnalysis(n_components=5).fit(X, y)


def test_partial_fit_errors(data):
    X, y = data
    model = GaussianNB().partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match=r"label\(s\) \[7\] that are not in classes"):
        model.partial_fit(X[:3], [7, 7, 7])
    with pytest.raises(ValueError, match="not the same as on the first call"):
        model.partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match="X has 2 features"):
        model.partial_fit(X[:, :2], y)
    one_class = LinearDiscriminantAnalysis().partial_fit(X[y == 0], y[y == 0])  # a stream may start so
    with pytest.raises(ValueError, match="seen only one class"):  # (NotFittedError is a ValueError)
        one_class.predict(X)
    with pytest.raises(ValueError, match="classes must be passed on the first call"):
        GaussianNB().partial_fit(X[y == 0], y[y == 0])  # as scikit-learn's naive Bayes
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # naive Bayes fits one class, as scikit-learn's (no warning)
        assert GaussianNB().fit(X[y == 0], y[y == 0]).predict(X).tolist() == [0] * len(y)
    # naive Bayes takes classes of one label as its fit takes y of one class (scikit-learn's do)
    assert GaussianNB().partial_fit(X[y == 1], y[y == 1], classes=[1]).predict(X[:2]).tolist() == [1, 1]
    with pytest.raises(ValueError, match=r"label\(s\) \[0, 2\] that are not in classes=\[1\]"):
        GaussianNB().partial_fit(X, y, classes=[1])
    with pytest.raises(ValueError, match="at least two class labels"):  # models that need two
        LinearDiscriminantAnalysis().partial_fit(X, y, classes=[1])


def test_partial_fit_unseen_class_gets_zero_probability(data):
    X, y = data
    model = LinearDiscriminantAnalysis().partial_fit(X[y < 2], y[y < 2], classes=[0, 1, 2])
    proba = model.predict_proba(X)
    assert np.all(proba[:, 2] == 0) and np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba.sum(axis=1), 1)
    model.partial_fit(X[y == 2], y[y == 2])
    assert np.all(model.predict_proba(X)[:, 2] > 0)


@pytest.mark.parametrize(
    "make",
    [LinearDiscriminantAnalysis, lambda: GaussianDiscriminantAnalysis(covariance_type="tied_diag")],
)
def test_constant_and_collinear_features_warn_and_stay_finite(make, data):
    X, y = data
    Xs = np.column_stack([X, np.full(len(X), 4.0), X[:, 0] + X[:, 1]])
    with pytest.warns(linclass.SingularCovarianceWarning, match="singular"):
        model = make().fit(Xs, y)
    proba = model.predict_proba(Xs)
    assert np.all(np.isfinite(proba))
    # the redundant columns carry no information: same posteriors as without them (LDA only)
    if isinstance(model, LinearDiscriminantAnalysis):
        np.testing.assert_allclose(proba, make().fit(X, y).predict_proba(X), atol=1e-8)


def test_user_prior_on_unseen_class_warns(data):
    X, y = data
    with pytest.warns(UserWarning, match=r"Class\(es\) \[2\] have no training samples"):
        model = GaussianNB(priors=[0.2, 0.3, 0.5]).partial_fit(X[y < 2], y[y < 2], classes=[0, 1, 2])
    assert np.all(model.predict_proba(X)[:, 2] == 0)


@pytest.mark.parametrize("make", [lambda: GaussianDiscriminantAnalysis("full"), GaussianNB])
def test_degenerate_per_class_covariance_warns_and_stays_finite(make, data):
    X, y = data
    Xs = X.copy()
    Xs[y == 1, 2] = 5.0  # constant feature within class 1
    if isinstance(make(), GaussianNB):
        model_args = dict(var_smoothing=0.0)
        model = make().set_params(**model_args)
    else:
        model = make()
    with pytest.warns(linclass.SingularCovarianceWarning):
        model.fit(Xs, y)
    proba = model.predict_proba(Xs)
    assert np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba.sum(axis=1), 1)


def test_degenerate_per_class_covariance_is_sklearns_error_for_qda(data):
    X, y = data
    Xs = X.copy()
    Xs[y == 1, 2] = 5.0  # constant feature within class 1
    with pytest.raises(np.linalg.LinAlgError, match=r"class\(es\) \[1\] is not full rank"):
        QuadraticDiscriminantAnalysis().fit(Xs, y)


def test_more_features_than_samples():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((20, 50))
    y = np.repeat([0, 1], 10)
    X[y == 1] += 0.8
    with pytest.warns(linclass.SingularCovarianceWarning):
        plain = LinearDiscriminantAnalysis().fit(X, y)
    assert np.all(np.isfinite(plain.predict_proba(X)))
    shrunk = LinearDiscriminantAnalysis(shrinkage="ledoit-wolf").fit(X, y)
    assert 0 < shrunk.shrinkage_ <= 1
    assert np.all(np.isfinite(shrunk.predict_proba(X)))


def test_large_offset_is_exact():
    """Data far from the origin must give the same model as centred data (no cancellation)."""
    rng = np.random.default_rng(2)
    X = rng.standard_normal((300, 4))
    y = rng.integers(0, 3, 300)
    X += y[:, None]
    for make in ALL:
        a = make().fit(X, y).predict_proba(X)
        b = make().fit(X + 1e7, y).predict_proba(X + 1e7)
        np.testing.assert_allclose(a, b, atol=1e-6)
