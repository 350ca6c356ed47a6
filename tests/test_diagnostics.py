"""Case diagnostics of an unpenalised binary logistic fit against R's glm (fitted, residuals of
both types, hatvalues, cooks.distance, rstandard; tests/data/r/diagnostics.R on MASS's birthwt,
without and with integer prior weights) and statsmodels' GLM influence (hat_matrix_diag,
cooks_distance); and the inputs diagnostics() refuses."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import linclass
from linclass.estimators.diagnostics import diagnostics

DATA = Path(__file__).parent / "data" / "r"
COLUMNS = ["age", "lwt", "smoke", "ht", "ui"]
MEASURES = ["fitted", "deviance_residuals", "pearson_residuals", "hat", "cooks_distance",
            "standardized_residuals"]
TOL = 1e-7


@pytest.fixture(scope="module")
def birthwt():
    data = pd.read_csv(DATA / "diagnostics.data.csv")
    reference = pd.read_csv(DATA / "diagnostics_reference.csv")
    return data[COLUMNS], data["low"], data["w"].to_numpy(float), reference


def _fit(X, y, w=None, **params):
    return linclass.LogisticRegression(penalty=None, tol=1e-12, **params).fit(X, y, sample_weight=w)


@pytest.mark.parametrize("name", ["unweighted", "weighted"])
def test_matches_r_glm(birthwt, name):
    X, y, w, reference = birthwt
    w = w if name == "weighted" else None
    expected = reference[reference["fit"] == name].reset_index(drop=True)
    frame = diagnostics(_fit(X, y, w), X, y, sample_weight=w).to_frame()
    assert list(frame.columns)[:len(MEASURES)] == MEASURES and len(frame) == len(X)
    for measure in MEASURES:
        np.testing.assert_allclose(frame[measure].to_numpy(), expected[measure].to_numpy(),
                                   rtol=0, atol=TOL, err_msg=measure)


@pytest.mark.parametrize("weighted", [False, True])
def test_matches_statsmodels_influence(birthwt, weighted):
    sm = pytest.importorskip("statsmodels.api")
    X, y, w, _ = birthwt
    w = w if weighted else None
    kwargs = {"var_weights": w} if weighted else {}
    glm = sm.GLM(y.to_numpy(float), sm.add_constant(X.to_numpy(float)),
                 family=sm.families.Binomial(), **kwargs).fit(tol=1e-12)
    influence = glm.get_influence()
    result = diagnostics(_fit(X, y, w), X, y, sample_weight=w)
    np.testing.assert_allclose(result.hat, influence.hat_matrix_diag, rtol=0, atol=TOL)
    np.testing.assert_allclose(result.cooks_distance, influence.cooks_distance[0], rtol=0, atol=TOL)
    np.testing.assert_allclose(result.deviance_residuals, glm.resid_deviance, rtol=0, atol=TOL)
    np.testing.assert_allclose(result.pearson_residuals, glm.resid_pearson, rtol=0, atol=TOL)


def test_without_intercept_matches_statsmodels(birthwt):
    sm = pytest.importorskip("statsmodels.api")
    X, y, _, _ = birthwt
    Xc = X.assign(age=X["age"] - 23, lwt=X["lwt"] - 130)
    glm = sm.GLM(y.to_numpy(float), Xc.to_numpy(float), family=sm.families.Binomial()).fit(tol=1e-12)
    influence = glm.get_influence()
    result = diagnostics(_fit(Xc, y, fit_intercept=False), Xc, y)
    np.testing.assert_allclose(result.hat, influence.hat_matrix_diag, rtol=0, atol=TOL)
    np.testing.assert_allclose(result.cooks_distance, influence.cooks_distance[0], rtol=0, atol=TOL)


def test_labels_sparse_and_index(birthwt):
    X, y, w, reference = birthwt
    expected = reference[reference["fit"] == "weighted"].reset_index(drop=True)
    labels = np.where(y == 1, "low", "normal")  # classes_ = ['low', 'normal']: 'normal' is modelled
    X = X.set_index(pd.Index([f"r{i}" for i in range(len(X))]))
    model = _fit(X, labels, w)
    frame = diagnostics(model, X, labels, sample_weight=w).to_frame()
    assert list(frame.index[:2]) == ["r0", "r1"]
    np.testing.assert_allclose(frame["fitted"].to_numpy(), 1 - expected["fitted"], atol=TOL)
    np.testing.assert_allclose(frame["deviance_residuals"].to_numpy(),
                               -expected["deviance_residuals"], atol=TOL)
    np.testing.assert_allclose(frame["hat"].to_numpy(), expected["hat"], atol=TOL)
    model = _fit(X.to_numpy(), labels, w)
    dense = diagnostics(model, X.to_numpy(), labels, sample_weight=w)
    sparse = diagnostics(model, sp.csr_matrix(X.to_numpy()), labels, sample_weight=w)
    for measure in MEASURES:
        np.testing.assert_allclose(getattr(sparse, measure), getattr(dense, measure), rtol=1e-12,
                                   atol=1e-14)
    with pytest.raises(AttributeError):  # a frozen record
        dense.hat = None


def test_refuses_bad_models(birthwt):
    X, y, _, _ = birthwt
    with pytest.raises(ValueError, match="LogisticRegression"):
        diagnostics(linclass.LinearDiscriminantAnalysis().fit(X, y), X, y)
    with pytest.raises(ValueError, match="penalty=None"):
        diagnostics(linclass.LogisticRegression().fit(X, y), X, y)
    with pytest.raises(ValueError, match="Firth"):
        diagnostics(linclass.LogisticRegression(penalty="firth").fit(X, y), X, y)
    with pytest.raises(ValueError, match="lower_bounds"):
        diagnostics(_fit(X, y, lower_bounds=0.0), X, y)
    three = np.asarray(y) + 2 * ((np.arange(len(y)) % 3 == 0) & (np.asarray(y) == 0))
    with pytest.raises(ValueError, match="3 classes"):
        diagnostics(_fit(X, three), X, three)
    with pytest.raises(ValueError, match="not fitted"):  # sklearn's NotFittedError
        diagnostics(linclass.LogisticRegression(penalty=None), X, y)


def test_refuses_bad_rows(birthwt):
    X, y, w, _ = birthwt
    model = _fit(X, y, w)
    with pytest.raises(ValueError, match="X and y"):
        diagnostics(model, X, None)
    with pytest.raises(ValueError, match="feature"):
        diagnostics(model, X.iloc[:, :3], y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        diagnostics(model, X, y[:-1])
    with pytest.raises(ValueError, match="sample_weight"):
        diagnostics(model, X, y, sample_weight=w[:-1])
    with pytest.raises(ValueError, match="not in classes"):
        diagnostics(model, X, np.where(y == 1, 5, 0))
    zero = w.copy()
    zero[[1, 4]] = 0
    with pytest.raises(ValueError, match="weight 0.*positive"):
        diagnostics(_fit(X, y, zero), X, y, sample_weight=zero)


def test_aliased_columns_take_no_part(birthwt):
    """A column R's glm aliases (here twice another) is left out of the hat matrix, as R's
    hatvalues does: the diagnostics are those of the model without it."""
    X, y, _, _ = birthwt
    Xa = X.assign(age2=2 * X["age"])
    with warnings.catch_warnings():  # the fit's own warning about the aliased column
        warnings.simplefilter("ignore")
        model = _fit(Xa, y)
    assert model.aliased_.tolist() == [False] * X.shape[1] + [True]
    ours, reduced = diagnostics(model, Xa, y), diagnostics(_fit(X, y), X, y)
    for name in ("hat", "cooks_distance", "standardized_residuals", "deviance_residuals"):
        np.testing.assert_allclose(getattr(ours, name), getattr(reduced, name), rtol=1e-8)
