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
