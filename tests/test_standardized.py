"""StandardizedClassifier: z = (x - m) / s inside the model (the command's --scale).

Against scikit-learn's StandardScaler, against fitting the wrapped estimator on standardised data by
hand, with weights, constant and far-from-origin features; its geometry in x, its summary, and its
model file.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.preprocessing import StandardScaler

import linclass
from linclass.strategies.standardize import standardization, standardize
from linclass.geometry import hyperplanes, signed_distance


def wine():
    return load_wine(return_X_y=True)


def test_standardization_matches_scikit_learns_scaler():
    X, _ = wine()
    mean, scale = standardization(X)
    scaler = StandardScaler().fit(X)
    np.testing.assert_allclose(mean, scaler.mean_, rtol=1e-14)
    np.testing.assert_allclose(scale, scaler.scale_, rtol=1e-13)
    np.testing.assert_allclose(standardize(X, mean, scale), scaler.transform(X), atol=1e-13)


def test_weights_are_frequencies():
    X, _ = wine()
    w = np.random.default_rng(0).integers(0, 4, X.shape[0])
    mean, scale = standardization(X, w.astype(float))
    repeated = np.repeat(X, w, axis=0)
    np.testing.assert_allclose(mean, repeated.mean(axis=0), rtol=1e-13)
    np.testing.assert_allclose(scale, repeated.std(axis=0), rtol=1e-12)


def test_constant_and_far_from_the_origin_features():
    rng = np.random.default_rng(1)
    X = np.column_stack([np.full(50, 3.7), 1e9 + rng.normal(size=50), rng.normal(size=50) * 1e-8])
    mean, scale = standardization(X)
    assert scale[0] == 1.0 and mean[0] == pytest.approx(3.7)  # centred, not divided
    np.testing.assert_allclose(scale[1], np.std(X[:, 1] - 1e9), rtol=1e-6)  # no cancellation
    np.testing.assert_allclose(scale[2], np.std(X[:, 2]), rtol=1e-12)  # small but varying: scaled
    Z = standardize(X, mean, scale)
    assert np.all(Z[:, 0] == 0.0)
    np.testing.assert_allclose(Z[:, 1:].std(axis=0), 1.0, rtol=1e-6)


@pytest.mark.parametrize("inner", [
    linclass.LogisticRegression(), linclass.Perceptron(random_state=0), linclass.LinearDiscriminantAnalysis(),
    linclass.KernelFisherDiscriminantAnalysis(random_state=0),
])
def test_equals_the_estimator_fitted_on_standardised_data(inner):
    from sklearn.base import clone

    X, y = wine()
    model = linclass.StandardizedClassifier(inner).fit(X, y)
    Z = StandardScaler().fit_transform(X)
    reference = clone(inner).fit(Z, y)
    np.testing.assert_array_equal(model.predict(X), reference.predict(Z))
    for method in ("predict_proba", "predict_log_proba", "decision_function", "transform"):
        if hasattr(reference, method):
            np.testing.assert_allclose(getattr(model, method)(X), getattr(reference, method)(Z),
                                       rtol=1e-7, atol=1e-9)
        else:
            assert not hasattr(model, method)
    np.testing.assert_array_equal(model.classes_, reference.classes_)


def test_scale_invariant_models_are_unchanged_and_penalised_ones_are_not():
    X, y = load_breast_cancer(return_X_y=True)
    lda = linclass.LinearDiscriminantAnalysis()
    np.testing.assert_allclose(linclass.StandardizedClassifier(lda).fit(X, y).predict_proba(X),
                               lda.fit(X, y).predict_proba(X), atol=1e-10)
    scaled = linclass.StandardizedClassifier(linclass.LogisticRegression()).fit(X, y)
    raw = linclass.LogisticRegression(max_iter=500).fit(X, y)
    assert np.abs(scaled.predict_proba(X) - raw.predict_proba(X)).max() > 1e-3


def test_sample_weight_is_passed_through():
    X, y = wine()
    w = np.random.default_rng(2).integers(0, 3, X.shape[0]).astype(float)
    model = linclass.StandardizedClassifier(linclass.LogisticRegression()).fit(X, y, sample_weight=w)
    repeated = linclass.StandardizedClassifier(linclass.LogisticRegression()).fit(
        np.repeat(X, w.astype(int), axis=0), np.repeat(y, w.astype(int)))
    np.testing.assert_allclose(model.predict_proba(X), repeated.predict_proba(X), atol=1e-6)
    with pytest.raises(TypeError, match="does not accept sample_weight"):
        linclass.StandardizedClassifier(linclass.KernelFisherDiscriminantAnalysis()).fit(X, y, sample_weight=w)


def test_hyperplanes_are_written_in_x():
    X, y = load_breast_cancer(return_X_y=True)
    model = linclass.StandardizedClassifier(linclass.LogisticRegression()).fit(X, y)
    H = hyperplanes(model)
    np.testing.assert_allclose(X @ H.w[0] + H.w0[0], model.decision_function(X), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(signed_distance(model, X), model.decision_function(X) / np.linalg.norm(H.w),
                               rtol=1e-9, atol=1e-12)
    X, y = load_iris(return_X_y=True)
    ovr = linclass.StandardizedClassifier(linclass.OneVsRestClassifier(linclass.LogisticRegression()))
    H = hyperplanes(ovr.fit(X, y))
    assert H.pairs == [(None, 0), (None, 1), (None, 2)]
    np.testing.assert_allclose(X @ H.w.T + H.w0, ovr.decision_function(X), atol=1e-9)
    with pytest.raises(TypeError, match="quadric"):
        hyperplanes(linclass.StandardizedClassifier(linclass.QuadraticDiscriminantAnalysis()).fit(X, y))
    with pytest.raises(TypeError, match="binarizes z"):
        hyperplanes(linclass.StandardizedClassifier(linclass.BernoulliNB()).fit(X, y))


def test_summary_names_the_features_and_says_they_are_standardised():
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    X = X[["mean radius", "mean texture"]]
    model = linclass.StandardizedClassifier(linclass.LogisticRegression(C=np.inf)).fit(X, y)
    table = model.summary()
    assert table.names == ["const", "mean radius", "mean texture"]
    assert "standard deviation" in table.notes[-1]
    reference = linclass.LogisticRegression(C=np.inf).fit((X - X.mean()) / X.std(ddof=0), y).summary()
    np.testing.assert_allclose(table.coef, reference.coef, rtol=1e-8)
    assert not hasattr(linclass.StandardizedClassifier(linclass.LinearDiscriminantAnalysis()).fit(X, y),
                       "summary")


def test_round_trip_through_a_model_file(tmp_path):
    X, y = wine()
    model = linclass.StandardizedClassifier(linclass.LogisticRegression()).fit(X, y)
    linclass.save(model, tmp_path / "m.linclass")
    loaded = linclass.load(tmp_path / "m.linclass")
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(loaded.mean_, model.mean_)


def test_refuses_sparse_input_and_keeps_the_feature_names_contract():
    import pandas as pd
    import scipy.sparse as sp

    X, y = wine()
    with pytest.raises(TypeError, match="[Ss]parse"):
        linclass.StandardizedClassifier(linclass.GaussianNB()).fit(sp.csr_matrix(X), y)
    frame = pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])
    model = linclass.StandardizedClassifier(linclass.GaussianNB()).fit(frame, y)
    assert list(model.feature_names_in_) == list(frame.columns)
    with pytest.raises(ValueError, match="feature names"):
        model.predict(frame[frame.columns[::-1]])


@pytest.mark.parametrize("factor", [1e300, 1e-300, 1e-160])
def test_any_magnitude_is_standardised_without_overflow_or_underflow(factor):
    X, y = wine()
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # an underflow costs nothing here
        mean, scale = standardization(X * factor)
        Z = standardize(X * factor, mean, scale)
    np.testing.assert_allclose(Z, StandardScaler().fit_transform(X), atol=1e-12)
    model = linclass.StandardizedClassifier(linclass.LogisticRegression()).fit(X * factor, y)
    clean = linclass.StandardizedClassifier(linclass.LogisticRegression()).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X * factor), clean.predict_proba(X), atol=1e-9)


def test_summary_standardises_the_training_rows_it_is_given():
    """Robust covariances and profile intervals of a standardised model are computed on the rows
    as the fit saw them: the wrapper standardises the X passed to summary."""
    from sklearn.datasets import load_breast_cancer

    from linclass import LogisticRegression, StandardizedClassifier

    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, [0, 1, 4]]
    wrapper = StandardizedClassifier(LogisticRegression(penalty=None, tol=1e-10)).fit(X, y)
    Z = (X - wrapper.mean_) / wrapper.scale_
    inner = LogisticRegression(penalty=None, tol=1e-10).fit(Z, y)
    got = wrapper.summary(cov_type="HC0", X=X, y=y)
    want = inner.summary(cov_type="HC0", X=Z, y=y)
    np.testing.assert_allclose(np.asarray(got.bse), np.asarray(want.bse), rtol=1e-8)
