"""Class densities of a fitted Gaussian record (linclass.generative.densities).

* covariance_matrices: every structure's stored covariance expanded to (K, d, d), checked against
  the shapes documented on GaussianModel, built here independently.
* class_log_density: equal to scipy.stats.multivariate_normal(mu_k, Sigma_k).logpdf for every
  structure; plus the log prior it is the model's exact joint log-likelihood for the quadratic
  structures, and differs from it by one term per row (shared by the classes) for the linear ones.
* singular covariances (the model's own rank rule) and wrong inputs are refused with clear errors.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from linclass import (
    GaussianDiscriminantAnalysis,
    GaussianNB,
    LinearDiscriminantAnalysis,
    QuadraticDiscriminantAnalysis,
    SingularCovarianceWarning,
)
from linclass.generative.densities import class_log_density, covariance_matrices
from linclass.generative.gaussian_scores import joint_log_likelihood

STRUCTURES = ("tied", "full", "diag", "tied_diag", "spherical")


def data(K=3, n=50, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(2.0 * k, 1.0 + 0.3 * k, size=(n, d)) for k in range(K)])
    y = np.repeat(np.arange(K), n)
    X[y == 0, 1] += 0.7 * X[y == 0, 0]  # class 0 correlated: the structures differ
    return X, y


def expected(cov, kind, K, d):
    """(K, d, d) from the documented shapes, by loops."""
    out = np.zeros((K, d, d))
    for k in range(K):
        if kind == "tied":
            out[k] = cov
        elif kind == "full":
            out[k] = cov[k]
        elif kind == "diag":
            out[k] = np.diag(cov[k])
        elif kind == "tied_diag":
            out[k] = np.diag(cov)
        else:
            out[k] = cov[k] * np.eye(d)
    return out


MODELS = {f"gda-{t}": (lambda t=t: GaussianDiscriminantAnalysis(t)) for t in STRUCTURES}
# (store_covariance=True: scikit-learn's LDA ('svd') and QDA set covariance_ only then)
MODELS.update(lda=lambda: LinearDiscriminantAnalysis(store_covariance=True),
              qda=lambda: QuadraticDiscriminantAnalysis(store_covariance=True), gnb=GaussianNB,
              shrunk=lambda: LinearDiscriminantAnalysis(shrinkage=0.2, store_covariance=True),
              reg=lambda: QuadraticDiscriminantAnalysis(reg_param=0.1, store_covariance=True))


@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("name", list(MODELS))
def test_covariance_matrices_of_every_structure(name, K):
    X, y = data(K=K)
    model = MODELS[name]().fit(X, y)
    record = model.model_
    covs = covariance_matrices(record)
    assert covs.shape == (K, 3, 3)
    np.testing.assert_array_equal(covs, expected(model.covariance_, record.covariance_type, K, 3))
    np.testing.assert_array_equal(covs, covs.transpose(0, 2, 1))
    covs[0, 0, 0] = -1.0  # a new array: the record is untouched
    assert np.all(covariance_matrices(record)[:, 0, 0] > 0)


@pytest.mark.parametrize("name", list(MODELS))
def test_class_log_density_is_the_gaussian_log_density(name):
    X, y = data()
    model = MODELS[name]().fit(X, y)
    record = model.model_
    covs = covariance_matrices(record)
    points = np.vstack([X[::5], np.random.default_rng(1).normal(0, 4, size=(20, 3))])
    logp = class_log_density(record, points)
    assert logp.shape == (len(points), 3)
    reference = np.column_stack([multivariate_normal(model.means_[k], covs[k]).logpdf(points)
                                 for k in range(3)])
    np.testing.assert_allclose(logp, reference, rtol=1e-10, atol=1e-10)
    # a subset of the classes, in the order asked
    np.testing.assert_allclose(class_log_density(record, points, classes=[2, 0]), reference[:, [2, 0]],
                               rtol=1e-10, atol=1e-10)
    # with the log prior: the model's own class scores (exactly for the quadratic structures, up to
    # a term shared by the classes for the linear ones)
    joint = logp + record.log_priors
    scores = joint_log_likelihood(record, points)
    offset = joint - scores
    if record.coef is None:
        np.testing.assert_allclose(offset, 0.0, atol=1e-8 * np.abs(scores).max())
    else:
        np.testing.assert_allclose(offset, offset[:, :1] * np.ones((1, 3)),
                                   atol=1e-8 * np.abs(scores).max())
        assert np.ptp(offset[:, 0]) > 1e-3  # the shared term varies with x: not just a constant


def test_singular_covariances_are_refused():
    X, y = data(K=2)
    X = np.column_stack([X, X[:, 0] - 2 * X[:, 1]])  # a collinear fourth feature
    with pytest.warns(SingularCovarianceWarning):
        lda = LinearDiscriminantAnalysis().fit(X, y)
    with pytest.raises(ValueError, match="singular.*regularise"):
        class_log_density(lda.model_, X)
    with pytest.raises(np.linalg.LinAlgError, match="not full rank"):  # scikit-learn's QDA rule
        QuadraticDiscriminantAnalysis().fit(X, y)
    with pytest.warns(SingularCovarianceWarning):  # the model that floors the eigenvalues
        qda = GaussianDiscriminantAnalysis("full").fit(X, y)
    with pytest.raises(ValueError, match="class 0 is singular"):
        class_log_density(qda.model_, X)
    # regularised, the same data have densities
    qda = QuadraticDiscriminantAnalysis(reg_param=0.1).fit(X, y)
    assert np.all(np.isfinite(class_log_density(qda.model_, X)))
    # a class that is singular while another is not: only the singular one is refused
    Xk = X.copy()
    Xk[y == 1, 3] = 5.0
    Xk[y == 1, :3] = np.random.default_rng(2).normal(size=(int(np.sum(y == 1)), 3))
    Xk[y == 0, 3] = np.random.default_rng(3).normal(size=int(np.sum(y == 0)))
    with pytest.warns(SingularCovarianceWarning):
        qda = GaussianDiscriminantAnalysis("full").fit(Xk, y)
    assert np.all(np.isfinite(class_log_density(qda.model_, Xk, classes=[0])))
    with pytest.raises(ValueError, match="class 1 is singular"):
        class_log_density(qda.model_, Xk)


def test_wrong_inputs():
    X, y = data()
    record = GaussianNB().fit(X, y).model_
    with pytest.raises(ValueError, match=r"shape \(n_samples, 3\)"):
        class_log_density(record, X[:, :2])
    with pytest.raises(ValueError, match="classes must be positions"):
        class_log_density(record, X, classes=[3])
    bad = dataclasses.replace(record, covariance=record.covariance[:2])
    with pytest.raises(ValueError, match="this record holds"):
        covariance_matrices(bad)
    with pytest.raises(ValueError, match="unknown covariance_type"):
        covariance_matrices(dataclasses.replace(record, covariance_type="banded"))
