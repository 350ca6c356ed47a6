"""Robust LDA: the multivariate-t fit (LinearDiscriminantAnalysis(method='t', nu=5)), MASS's
lda(method="t") iterated to its fixed point; against MASS (tests/data/r/mass_t.R and its output)
and on data with 5% gross outliers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import linclass as lc
from linclass.generative.robust import t_statistics

R_DIR = Path(__file__).parent / "data" / "r"
LDA = lc.LinearDiscriminantAnalysis


def outliers():
    """Two unit-variance classes 2.5 apart along x1; 10 of the 200 rows (5%, all of class 0) moved
    by (25, 15)."""
    table = np.loadtxt(R_DIR / "t_outliers.csv", delimiter=",", skiprows=1)
    return table[:, :2], table[:, 2:4], table[:, 4].astype(int)


def test_robust_fit_keeps_the_boundary_where_the_clean_data_put_it():
    clean, dirty, y = outliers()
    reference = LDA().fit(clean, y)
    plain, robust = LDA().fit(dirty, y), LDA(method="t").fit(dirty, y)
    rows = np.ones(y.size, dtype=bool)
    rows[np.any(clean != dirty, axis=1)] = False  # the uncontaminated rows
    agree = lambda m: np.mean(m.predict(clean[rows]) == reference.predict(clean[rows]))  # noqa: E731
    # (the t bounds each outlier's pull on the covariance at about nu + p typical rows' worth,
    # it does not remove it: the boundary tilts a little)
    assert agree(robust) >= 0.9
    assert agree(plain) <= 0.8
    # the class means stay near the clean ones; the plain fit's class 0 mean is dragged by ~1.3
    assert np.abs(robust.means_ - reference.means_).max() < 0.15
    assert np.abs(plain.means_ - reference.means_).max() > 1.0


def test_matches_mass_to_its_stopping_rule():
    pd = pytest.importorskip("pandas")
    _, dirty, y = outliers()
    model = LDA(method="t", nu=5).fit(dirty, y)
    means = pd.read_csv(R_DIR / "mass_t_means.csv", skipinitialspace=True).to_numpy()
    post = pd.read_csv(R_DIR / "mass_t.csv", skipinitialspace=True)[["p0", "p1"]].to_numpy()
    # MASS stops when no case weight moves by 0.01: its estimates are that far from the fixed point
    np.testing.assert_allclose(model.means_, means, atol=5e-3)
    np.testing.assert_allclose(model.predict_proba(dirty), post, atol=1e-2)
    assert np.mean(model.predict(dirty) == np.argmax(post, axis=1)) == 1.0


def test_fixed_point_of_the_em():
    _, dirty, y = outliers()
    w = np.resize([1.0, 2.0], y.size)
    nu, p = 4.0, 2
    stats, u, n_iter, converged = t_statistics(dirty, y, np.array([0, 1]), w, nu=nu)
    assert converged and n_iter > 5
    psi = stats.scatter / stats.total * (nu - 2) / nu
    for k in range(2):
        rows = y == k
        wu = (w * u)[rows]
        np.testing.assert_allclose(stats.means[k], wu @ dirty[rows] / wu.sum(), rtol=1e-9)
    R = dirty - stats.means[y]
    delta = np.einsum("ij,jk,ik->i", R, np.linalg.inv(psi), R)
    np.testing.assert_allclose(u, (nu + p) / (nu + delta), rtol=1e-8)
    np.testing.assert_allclose(psi, (R * (w * u)[:, None]).T @ R / w.sum(), rtol=1e-8)
    # outliers get small weights, the rest about (nu + p) / (nu + p) = 1
    moved = np.any(outliers()[0] != dirty, axis=1)
    assert u[moved].max() < 0.1 < 0.5 < np.median(u[~moved])


def test_weights_are_repeated_rows_and_refusals():
    _, dirty, y = outliers()
    w = np.resize([1.0, 2.0, 3.0], y.size)
    rows = np.repeat(np.arange(y.size), w.astype(int))
    a = LDA(method="t").fit(dirty, y, sample_weight=w)
    b = LDA(method="t").fit(dirty[rows], y[rows])
    np.testing.assert_allclose(a.predict_proba(dirty), b.predict_proba(dirty), atol=1e-9)
    assert not hasattr(LDA(method="t"), "partial_fit") and hasattr(LDA(), "partial_fit")
    with pytest.raises(ValueError, match="nu"):
        LDA(method="t", nu=2).fit(dirty, y)
    with pytest.raises(ValueError, match="shrinkage"):
        LDA(method="t", shrinkage=0.1).fit(dirty, y)
    with pytest.raises(ValueError, match="collinear"):
        LDA(method="t").fit(np.column_stack([dirty, dirty[:, 0]]), y)
