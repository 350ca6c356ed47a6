"""partial_fit on a stream whose early chunks are small (issue 41, finding 6).

A stream may start with chunks that do not determine a model yet: a class with fewer rows than
features (QDA's covariance is then singular), one row per class, a class absent although named in
``classes=``.  partial_fit keeps accumulating the statistics without raising; ``predict`` before the
statistics suffice says which class lacks what; after the last chunk the model equals ``fit`` on all
rows, and ``fit`` equals MASS (the posteriors of ``predict(qda(...))`` and ``predict(lda(...))`` on
iris, saved by tests/data/r/stream/iris_posteriors.R).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine
from sklearn.exceptions import NotFittedError

import linclass as lc

DATA = Path(__file__).parent / "data" / "r" / "stream"


def _wine():
    X, y = load_wine(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(y))
    return X[order], y[order]


def _counts(X):
    """Small non-negative integers for the discrete naive Bayes models."""
    return np.floor(np.abs(X) / np.abs(X).mean(axis=0) * 3)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# every estimator with partial_fit, in the settings whose early chunks may not determine a model
ESTIMATORS = {
    "qda": lambda: lc.QuadraticDiscriminantAnalysis(),
    "qda-unbiased": lambda: lc.QuadraticDiscriminantAnalysis(unbiased=True),
    "qda-reg": lambda: lc.QuadraticDiscriminantAnalysis(reg_param=0.1),
    "qda-ledoit-wolf": lambda: lc.QuadraticDiscriminantAnalysis(shrinkage="ledoit-wolf"),
    "lda": lambda: lc.LinearDiscriminantAnalysis(),
    "lda-unbiased": lambda: lc.LinearDiscriminantAnalysis(unbiased=True),
    "gnb": lambda: lc.GaussianNB(),
    "gda-tied-unbiased": lambda: lc.GaussianDiscriminantAnalysis("tied", unbiased=True),
    "gda-full": lambda: lc.GaussianDiscriminantAnalysis("full"),
    "gda-full-unbiased": lambda: lc.GaussianDiscriminantAnalysis("full", unbiased=True),
    "gda-diag": lambda: lc.GaussianDiscriminantAnalysis("diag"),
    "gda-tied-diag": lambda: lc.GaussianDiscriminantAnalysis("tied_diag"),
    "gda-spherical": lambda: lc.GaussianDiscriminantAnalysis("spherical"),
    "rda": lambda: lc.RegularizedDiscriminantAnalysis(),
    "fisher": lambda: lc.FisherDiscriminantAnalysis(),
    "multinomial-nb": lambda: lc.MultinomialNB(),
    "bernoulli-nb": lambda: lc.BernoulliNB(),
    "complement-nb": lambda: lc.ComplementNB(),
    "categorical-nb": lambda: lc.CategoricalNB(),
    "poisson-nb": lambda: lc.PoissonNB(),
}
DISCRETE = {"multinomial-nb", "bernoulli-nb", "complement-nb", "categorical-nb", "poisson-nb"}


def _streams(y):
    """Row orders whose first chunk is small: one row per class first; a first chunk without
    class 2 (five equal chunks: QDA's case, in the test above)."""
    rest = lambda first: np.array_split(np.setdiff1d(np.arange(len(y)), first), 4)  # noqa: E731
    per_class = np.array([np.flatnonzero(y == c)[0] for c in np.unique(y)])
    absent = np.flatnonzero(y != 2)[:5]
    return {
        "one-row-per-class-first": [per_class, *rest(per_class)],
        "class-absent-first": [absent, *rest(absent)],
    }


def test_qda_wine_in_five_chunks_equals_fit():
    """The issue's case: the first of five chunks of wine has classes of fewer rows than its 13
    features. No chunk raises; the end equals one fit on everything."""
    X, y = _wine()
    streamed = lc.QuadraticDiscriminantAnalysis(store_covariance=True)
    for rows in np.array_split(np.arange(len(y)), 5):
        streamed.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
    whole = lc.QuadraticDiscriminantAnalysis(store_covariance=True).fit(X, y)
    np.testing.assert_allclose(streamed.means_, whole.means_, rtol=1e-12)
    np.testing.assert_allclose(np.array(streamed.covariance_), np.array(whole.covariance_),
                               rtol=1e-11, atol=1e-12 * np.abs(np.array(whole.covariance_)).max())
    np.testing.assert_allclose(streamed.predict_proba(X), whole.predict_proba(X), atol=1e-12)
    np.testing.assert_array_equal(streamed.predict(X), whole.predict(X))


@pytest.mark.parametrize("stream", ["one-row-per-class-first", "class-absent-first"])
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_small_early_chunks_never_raise_and_end_where_fit_does(name, stream):
    X, y = _wine()
    if name in DISCRETE:
        X = _counts(X)
    model = ESTIMATORS[name]()
    for rows in _streams(y)[stream]:
        _quiet(model.partial_fit, X[rows], y[rows], classes=[0, 1, 2])
    whole = _quiet(ESTIMATORS[name]().fit, X, y)
    np.testing.assert_array_equal(model.class_count_, whole.class_count_)
    np.testing.assert_allclose(model.predict_proba(X), whole.predict_proba(X), atol=1e-12)


def test_predict_before_the_statistics_suffice_names_the_class_and_what_is_missing():
    X, y = _wine()
    model = lc.QuadraticDiscriminantAnalysis()
    model.partial_fit(X[:36], y[:36], classes=[0, 1, 2])  # class 0: 6 rows for 13 features
    with pytest.raises(NotFittedError, match=r"no model yet.*per class \{0: 6, 1: 18, 2: 12\}.*"
                       r"class\(es\) \[0\] is not full rank \(rank 5 of 13, from 6 samples.*reg_param"):
        model.predict(X)
    # the regularisation the user asks for gives a model from the same chunk
    regularised = lc.QuadraticDiscriminantAnalysis(reg_param=0.1).partial_fit(X[:36], y[:36],
                                                                               classes=[0, 1, 2])
    assert regularised.predict_proba(X).shape == (len(y), 3)

    unbiased = lc.GaussianDiscriminantAnalysis("full", unbiased=True)
    first = np.array([np.flatnonzero(y == c)[0] for c in range(3)])
    unbiased.partial_fit(X[first], y[first], classes=[0, 1, 2])
    with pytest.raises(NotFittedError, match=r"unbiased covariance of class\(es\) \[0, 1, 2\] needs "
                                             r"a total weight above 1"):
        unbiased.predict_proba(X)
    with pytest.raises(NotFittedError, match="no model yet"):
        lc.FisherDiscriminantAnalysis().partial_fit(X[first], y[first]).transform(X)
    one_class = lc.LinearDiscriminantAnalysis().partial_fit(X[y == 0], y[y == 0])
    with pytest.raises(NotFittedError, match=r"seen only one class \(0\).*`classes`"):
        one_class.predict(X)
    one_class.partial_fit(X[y != 0], y[y != 0])  # the rest of the stream
    np.testing.assert_allclose(one_class.predict_proba(X),
                               lc.LinearDiscriminantAnalysis().fit(X, y).predict_proba(X), atol=1e-12)


def test_settings_that_no_data_can_fix_still_raise_at_once():
    X, y = _wine()
    with pytest.raises(ValueError, match="posterior='predictive' is defined for the unregularised"):
        lc.QuadraticDiscriminantAnalysis(posterior="predictive", reg_param=0.1).partial_fit(
            X[:5], y[:5], classes=[0, 1, 2])


@pytest.mark.parametrize("model, reference", [
    (lambda: lc.QuadraticDiscriminantAnalysis(unbiased=True), "iris_qda_posterior.csv"),
    (lambda: lc.LinearDiscriminantAnalysis(unbiased=True), "iris_lda_posterior.csv"),
])
def test_chunks_of_iris_in_file_order_match_mass(model, reference):
    """iris in R's row order, five chunks of 30: the first holds setosa only, the second setosa and
    ten versicolor (fewer than QDA's unbiased covariance can take in some orders). The end equals
    MASS's qda / lda (method 'moment') posteriors."""
    frame = pd.read_csv(DATA / "iris.csv")
    X, y = frame.iloc[:, :4].to_numpy(), frame["Species"].to_numpy()
    expected = pd.read_csv(DATA / reference).to_numpy()
    streamed = model()
    for rows in np.array_split(np.arange(len(y)), 5):
        streamed.partial_fit(X[rows], y[rows], classes=["setosa", "versicolor", "virginica"])
    np.testing.assert_allclose(streamed.predict_proba(X), expected, rtol=1e-9, atol=1e-13)
