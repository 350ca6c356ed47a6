"""The diagonal Gaussian scores of rows near their class mean with tiny variances: the expanded
quadratic form cancels there, and the rows whose expansion is many times the result are summed
directly (linclass.generative.gaussian_scores)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import linclass


@pytest.mark.parametrize("make", [lambda: linclass.GaussianNB(var_smoothing=1e-14),
                                  lambda: linclass.GaussianDiscriminantAnalysis(
                                      covariance_type="diag", var_smoothing=1e-14),
                                  lambda: linclass.GaussianDiscriminantAnalysis(
                                      covariance_type="spherical", var_smoothing=1e-14)])
def test_rows_near_a_tight_class_mean_keep_their_digits(make):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4)) * [1.0, 1e3, 1.0, 5.0]
    y = np.repeat([0, 1, 2], 20)
    X[y == 0, 1] = 1e3 + rng.normal(size=20) * 1e-4  # nearly constant within class 0, far from 0
    with warnings.catch_warnings():  # (GDA 'diag' floors the near-zero variance, saying so)
        warnings.simplefilter("ignore", linclass.SingularCovarianceWarning)
        model = make().fit(X, y)
    # the log joint scores (GaussianNB names them predict_joint_log_proba; GDA keeps them private)
    scores = (model.predict_joint_log_proba(X) if hasattr(model, "predict_joint_log_proba")
              else model._scores(X))
    var = np.asarray(model.var_ if hasattr(model, "var_") else model.model_.covariance)
    var = var if var.ndim == 2 else np.repeat(var[:, None], X.shape[1], axis=1)
    means = np.asarray(model.theta_ if hasattr(model, "theta_") else model.means_)
    direct = (np.log(model.class_prior_ if hasattr(model, "class_prior_") else model.priors_)
              - 0.5 * np.log(2 * np.pi * var).sum(axis=1)
              - 0.5 * (((X[:, None, :] - means[None]) ** 2) / var[None]).sum(axis=2))
    np.testing.assert_allclose(scores, direct, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("kind", ["full", "diag", "tied"])
def test_scores_over_row_chunks_equal_one_pass_bit_for_bit(threads, kind):
    """A large X's row chunks are scored on worker threads (linclass.core.threads.map_chunks):
    every row as in one pass over all rows (bit for bit where the pass is blocked: the quadratic
    kinds), whatever the thread count, and equal to the scores formed directly from the
    covariances."""
    from unittest import mock

    from threadpoolctl import threadpool_limits

    from linclass.core import threads as core_threads
    from linclass.generative import gaussian_scores

    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 12_000)
    X = rng.normal(size=(12_000, 5)) * np.linspace(0.5, 3.0, 5) + 2.0 * y[:, None] + 10.0
    make = {"full": linclass.QuadraticDiscriminantAnalysis, "diag": linclass.GaussianNB,
            "tied": linclass.LinearDiscriminantAnalysis}[kind]
    model = make().fit(X, y).model_
    score = gaussian_scores.mahalanobis if kind == "full" else gaussian_scores.joint_log_likelihood
    seen = []

    def spy(fn, chunks):
        seen.append(len(chunks))
        return core_threads.map_chunks(fn, chunks)

    with mock.patch.object(gaussian_scores, "_ROWS", 512):
        whole = score(model, X)
        with mock.patch.object(core_threads, "MIN_CHUNK_ROWS", 2048), \
                mock.patch.object(core_threads, "CHUNK_BYTES", 1), \
                mock.patch.object(gaussian_scores, "map_chunks", spy), \
                threadpool_limits(threads, user_api="blas"):
            chunked = score(model, X)
    assert seen == [4]
    if kind == "tied":  # one product per chunk: the same to rounding
        np.testing.assert_allclose(chunked, whole, rtol=1e-13, atol=1e-10)
        direct = X @ model.coef.T + model.intercept  # the same up to a term shared by the classes
        np.testing.assert_allclose(whole - whole[:, :1], direct - direct[:, :1], rtol=1e-10, atol=1e-8)
        return
    np.testing.assert_array_equal(chunked, whole)
    D = X[:, None, :] - model.means[None]
    if kind == "full":
        direct = np.einsum("nkd,kde,nke->nk", D, np.linalg.inv(model.covariance), D)
    else:
        var = model.covariance
        direct = (model.log_priors - 0.5 * np.log(2 * np.pi * var).sum(axis=1)
                  - 0.5 * (D * D / var[None]).sum(axis=2))
    np.testing.assert_allclose(whole, direct, rtol=1e-10)
