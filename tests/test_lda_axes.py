"""LinearDiscriminantAnalysis's ``scalings_``, ``transform``, ``explained_variance_ratio_`` and
``xbar_`` against scikit-learn's, per solver, signs included (linclass.projection.discriminant_axes).

'svd': iris, wine, breast cancer and digits subsets (with the constant pixels and without), with
priors, and integer sample weights against scikit-learn on the repeated rows (scikit-learn's LDA
takes no weights).  'eigen': the same where scikit-learn's Cholesky exists and no priors are given.
The documented differences are asserted as such.  Relative agreement 1e-8 (measured: 1e-13 or
better).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg as sla
from sklearn import discriminant_analysis as skda
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine

import linclass
from linclass import load, save

RTOL = 1e-8
DATA = Path(__file__).parent / "data"


def digits(classes, keep_constant=False):
    X, y = load_digits(return_X_y=True)
    rows = np.isin(y, classes)
    X, y = X[rows], y[rows]
    return (X if keep_constant else X[:, X.std(axis=0) > 0]), y


def dataset(name):
    if name.startswith("digits"):
        classes = {"digits01": (0, 1), "digits38": (3, 8), "digits012": (0, 1, 2), "digits1479": (1, 4, 7, 9),
                   "digits0-4": tuple(range(5)), "digits": tuple(range(10))}[name.removesuffix("+constant")]
        return digits(classes, keep_constant=name.endswith("+constant"))
    return {"iris": load_iris, "wine": load_wine, "breast_cancer": load_breast_cancer}[name](return_X_y=True)


def assert_close(ours, ref, what):
    assert ours.shape == ref.shape, what
    scale = np.abs(ref).max()
    assert np.abs(ours - ref).max() <= RTOL * scale, (what, np.abs(ours - ref).max() / scale)


SVD_CASES = [("iris", None), ("iris", [0.5, 0.3, 0.2]), ("wine", None), ("wine", [0.2, 0.2, 0.6]),
             ("breast_cancer", None), ("breast_cancer", [0.8, 0.2]), ("digits01", None),
             ("digits012", None), ("digits1479", None), ("digits0-4", None), ("digits", None),
             ("digits+constant", None), ("digits0-4+constant", [0.1, 0.2, 0.3, 0.2, 0.2])]


@pytest.mark.parametrize("name,priors", SVD_CASES, ids=lambda v: str(v))
def test_svd_matches_sklearn_signs_included(name, priors):
    X, y = dataset(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # digits with constant pixels: a singular covariance
        ours = linclass.LinearDiscriminantAnalysis(priors=priors).fit(X, y)
        ref = skda.LinearDiscriminantAnalysis(priors=priors).fit(X, y)
    assert ours.scalings_.shape == ref.scalings_.shape == (X.shape[1], min(X.shape[1], len(np.unique(y)) - 1))
    assert_close(ours.scalings_, ref.scalings_, "scalings_")
    assert_close(ours.transform(X), ref.transform(X), "transform")
    assert_close(ours.xbar_, ref.xbar_, "xbar_")
    np.testing.assert_allclose(ours.explained_variance_ratio_, ref.explained_variance_ratio_, rtol=RTOL,
                               atol=1e-14)
    # the probabilities are those of the model, untouched by the projection
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=0, atol=1e-8)


# (scikit-learn's Cholesky fails on the digits 0 and 1, and those 0-2 leave Sigma ill-conditioned
# enough that its null-space eigenvalues are noise of size 1)
EIGEN_CASES = ["iris", "wine", "breast_cancer", "digits38", "digits1479", "digits0-4", "digits"]


@pytest.mark.parametrize("name", EIGEN_CASES)
def test_eigen_matches_sklearn_signs_included(name):
    X, y = dataset(name)
    K = len(np.unique(y))
    ours = linclass.LinearDiscriminantAnalysis(solver="eigen").fit(X, y)
    ref = skda.LinearDiscriminantAnalysis(solver="eigen").fit(X, y)
    assert ours.scalings_.shape == ref.scalings_.shape == (X.shape[1], X.shape[1])
    # beyond K - 1 columns: a basis of the null space of S_B that rounding chooses (in both)
    assert_close(ours.scalings_[:, : K - 1], ref.scalings_[:, : K - 1], "scalings_")
    assert_close(ours.transform(X), ref.transform(X), "transform")  # not centred
    np.testing.assert_allclose(ours.explained_variance_ratio_, ref.explained_variance_ratio_, rtol=1e-7,
                               atol=1e-12)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-6, atol=1e-8 * np.abs(ref.coef_).max())


@pytest.mark.parametrize("solver", ["svd", "eigen"])
def test_integer_weights_are_repeated_rows(solver):
    X, y = load_wine(return_X_y=True)
    w = np.random.default_rng(0).integers(1, 4, size=len(y))
    ours = linclass.LinearDiscriminantAnalysis(solver=solver).fit(X, y, sample_weight=w)
    ref = skda.LinearDiscriminantAnalysis(solver=solver).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert_close(ours.scalings_[:, :2], ref.scalings_[:, :2], "scalings_")
    assert_close(ours.transform(X), ref.transform(X), "transform")
    np.testing.assert_allclose(ours.explained_variance_ratio_, ref.explained_variance_ratio_, rtol=RTOL)


@pytest.mark.parametrize("solver", ["svd", "eigen"])
def test_n_components_keeps_the_leading_columns(solver):
    X, y = load_wine(return_X_y=True)
    ours = linclass.LinearDiscriminantAnalysis(solver=solver, n_components=1).fit(X, y)
    ref = skda.LinearDiscriminantAnalysis(solver=solver, n_components=1).fit(X, y)
    assert ours.transform(X).shape == (len(y), 1)
    assert_close(ours.transform(X), ref.transform(X), "transform")
    np.testing.assert_allclose(ours.explained_variance_ratio_, ref.explained_variance_ratio_, rtol=RTOL)
    assert list(ours.get_feature_names_out()) == ["lineardiscriminantanalysis0"]


def test_lsqr_projects_as_svd():
    """scikit-learn's 'lsqr' has no transform; linclass's gives the 'svd' one."""
    X, y = load_iris(return_X_y=True)
    lsqr = linclass.LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    ref = skda.LinearDiscriminantAnalysis(solver="svd").fit(X, y)
    assert_close(lsqr.scalings_, ref.scalings_, "scalings_")
    assert_close(lsqr.transform(X), ref.transform(X), "transform")
    with pytest.raises(NotImplementedError):
        skda.LinearDiscriminantAnalysis(solver="lsqr").fit(X, y).transform(X)


def test_partial_fit_and_chunks_give_the_same_projection():
    X, y = load_wine(return_X_y=True)
    full = linclass.LinearDiscriminantAnalysis().fit(X, y)
    inc = linclass.LinearDiscriminantAnalysis()
    for part in np.array_split(np.arange(len(y)), 4):
        inc.partial_fit(X[part], y[part], classes=np.unique(y))
    np.testing.assert_allclose(inc.scalings_, full.scalings_, rtol=0, atol=1e-10 * np.abs(full.scalings_).max())
    np.testing.assert_allclose(inc.transform(X), full.transform(X), rtol=0,
                               atol=1e-10 * np.abs(full.transform(X)).max())


# ------------------------------------------------------------------ where the models are not sklearn's
def test_eigen_with_priors_uses_the_models_covariance():
    """scikit-learn's 'eigen' pools the covariance with the priors and takes S_B as the total
    covariance less that; linclass keeps its model's Sigma and S_B: the directions of its 'svd'."""
    X, y = load_iris(return_X_y=True)
    priors = [0.6, 0.3, 0.1]
    eig = linclass.LinearDiscriminantAnalysis(solver="eigen", priors=priors).fit(X, y)
    svd = linclass.LinearDiscriminantAnalysis(solver="svd", priors=priors).fit(X, y)
    V, U = eig.scalings_[:, :2], svd.scalings_
    signs = np.sign(np.sum(V * U, axis=0))
    np.testing.assert_allclose(V * signs, U, rtol=1e-10, atol=1e-12)
    ref = skda.LinearDiscriminantAnalysis(solver="eigen", priors=priors).fit(X, y)
    assert np.abs(np.abs(ref.scalings_[:, :2]) - np.abs(V)).max() > 1e-2


@pytest.mark.parametrize("params", [{"shrinkage": 0.3}, {"shrinkage": "auto"}])
def test_shrinkage_whitens_the_shrunk_covariance(params):
    """With shrinkage scikit-learn's 'eigen' solves the shrunk total less the shrunk within
    covariance against the latter (its 'svd' refuses shrinkage); linclass solves S_B against the
    shrunk covariance it classifies with, with every solver: v' Sigma v = 1, S_B V diagonal."""
    X, y = load_wine(return_X_y=True)
    with pytest.raises(NotImplementedError):
        skda.LinearDiscriminantAnalysis(solver="svd", **params).fit(X, y)
    for solver in ("svd", "eigen"):
        model = linclass.LinearDiscriminantAnalysis(solver=solver, **params).fit(X, y)
        V = model.scalings_[:, :2]
        np.testing.assert_allclose(V.T @ model.model_.covariance @ V, np.eye(2), atol=1e-9)
        centred = model.means_ - model.xbar_
        between = (centred.T * model.priors_) @ centred
        B = V.T @ between @ V
        np.testing.assert_allclose(B, np.diag(np.diag(B)), atol=1e-9 * B.max())
    ref = skda.LinearDiscriminantAnalysis(solver="eigen", **params).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), ref.predict_proba(X), atol=1e-8)


def test_singular_covariance_eigen_solves_on_the_range():
    """scikit-learn's 'eigen' needs a Cholesky factor; linclass's solves on the range of Sigma and
    keeps rank(Sigma) columns, the leading ones the directions of 'svd'."""
    X, y = digits((0, 1, 2), keep_constant=True)
    with pytest.raises(np.linalg.LinAlgError):
        skda.LinearDiscriminantAnalysis(solver="eigen").fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eig = linclass.LinearDiscriminantAnalysis(solver="eigen").fit(X, y)
        svd = linclass.LinearDiscriminantAnalysis(solver="svd").fit(X, y)
    rank = np.linalg.matrix_rank(eig.covariance_)
    assert eig.scalings_.shape == (X.shape[1], rank) and rank < X.shape[1]
    V = eig.scalings_[:, :2]
    signs = np.sign(np.sum(V * svd.scalings_, axis=0))
    np.testing.assert_allclose(eig.transform(X) * signs, svd.transform(X) + svd.xbar_ @ svd.scalings_,
                               rtol=0, atol=1e-8 * np.abs(eig.transform(X)).max())


# ------------------------------------------------------------------ the sign convention's premise
def test_gesdd_left_vectors_ignore_column_signs():
    """The premise of the convention (linclass.projection.discriminant_axes): the left singular
    vectors LAPACK's gesdd returns do not change when columns change sign (two or more columns),
    and a single column gets the right singular vector +1."""
    rng = np.random.default_rng(0)
    for K in range(2, 12):
        for r in range(2, 40, 3):
            A = rng.standard_normal((K, r)) * rng.uniform(0.1, 10.0, size=r)
            U, s, _ = sla.svd(A, full_matrices=False)
            U2, _, _ = sla.svd(A * rng.choice([-1.0, 1.0], size=r), full_matrices=False)
            kept = s > 1e-10 * s[0]
            np.testing.assert_allclose(U2[:, kept], U[:, kept], atol=1e-10)
        _, _, Vt = sla.svd(-np.abs(rng.standard_normal((K, 1))), full_matrices=False)
        assert Vt[0, 0] == 1.0


# ------------------------------------------------------------------ model files
def test_saved_model_projects_as_it_did(tmp_path):
    X, y = load_wine(return_X_y=True)
    for solver in ("svd", "eigen", "lsqr"):
        model = linclass.LinearDiscriminantAnalysis(solver=solver).fit(X, y)
        loaded = load(save(model, tmp_path / f"{solver}.linclass"))
        np.testing.assert_array_equal(loaded.transform(X), model.transform(X))
        np.testing.assert_array_equal(loaded.scalings_, model.scalings_)


def test_files_saved_before_keep_their_projection(tmp_path):
    """A file written before the projection followed the solver holds no _projection_centre (and an
    n_features x n_features scalings_ with other signs): it keeps projecting (X - xbar_) @ V, the
    values it gave when saved (the golden files of tests/test_persistence.py record them)."""
    X, y = load_iris(return_X_y=True)
    model = linclass.LinearDiscriminantAnalysis(solver="eigen").fit(X, y)
    del model._projection_centre
    old = load(save(model, tmp_path / "old.linclass"))
    np.testing.assert_allclose(old.transform(X), (X - old.xbar_) @ old.scalings_[:, :2], rtol=1e-14)
    golden = load(DATA / "golden_v1_lda_oas.linclass")
    assert golden.scalings_.shape == (4, 4) and not hasattr(golden, "_projection_centre")
    recorded = np.load(DATA / "golden_v1_lda_oas_expected.npz")
    np.testing.assert_allclose(golden.transform(recorded["X"]), recorded["transform"], rtol=1e-10)
    refit = linclass.LinearDiscriminantAnalysis(**golden.get_params()).fit(X, y)
    assert refit.scalings_.shape == (4, 2)
