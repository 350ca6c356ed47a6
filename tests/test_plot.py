"""Figures of ``linclass.plot`` (Agg, headless): what is drawn, not only that it runs.

* decision_regions: one legend entry per class, every point scattered, boundary contours that lie on
  the model's own boundary (two-class LDA: |w^T x + w_0| / ||w|| within a grid cell; three classes:
  the two best linear scores tie there), the exact hyperplane for binary linear models only, the
  ambiguous shading (stub with ``ambiguous``; the real one-vs-rest / one-vs-one wrappers) and its
  fraction in the title; errors for X without two features.
* fisher_figure: two panels whose J values equal Fisher's criterion computed here from the raw data
  (J_fisher = d^T S_W^{-1} d is the maximum, >= J of the mean difference), histograms of every point.
* gaussian_contours: three ellipses per class at Mahalanobis distance 1, 2, 3 under the covariance
  read from each documented ``covariance_`` shape (and, for LDA / QDA, the MLE computed here).
* gaussian_surface: a 3-D surface whose height is the class density's / mixture's peak, coloured by
  class (one hue per class), its axes named after the features, drawn into a given 3-D Axes.
* training_curve: the line's y-data is ``loss_curve_`` / ``errors_``; whole epochs on the x axis.
* cv_curve: the top axis counts the non-zero features at each C (the folds' median).
* A standardised model (the command's --scale) is titled by the model inside.
* coefficient_path: only the top-k features by |coefficient| at the weakest penalty, never an all-zero
  one, each path's y-data the coefficients; labels that do not overlap (text boxes after drawing);
  one panel per class titled with it; thousands of features as one collection per panel.
* Saving: .png / .svg / .pdf written atomically (non-empty, no temporary files left, also on failure);
  importing linclass.plot does not import matplotlib; a missing matplotlib names ``linclass[plot]``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

pytest.importorskip("matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg")
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Ellipse  # noqa: E402

import linclass  # noqa: E402
from linclass import plot  # noqa: E402
from linclass.plot import canvas  # noqa: E402

RES = 150  # grid resolution used in the tests (the default 300 is only slower)


# ---------------------------------------------------------------------------------------------- helpers
def blobs(K=3, n=40, seed=0, d=2):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [3.0, 1.0], [0.5, 3.5], [4.0, 4.0]])[:K]
    if d > 2:
        centres = np.hstack([centres, np.zeros((K, d - 2))])
    X = np.vstack([rng.normal(c, 1.0, size=(n, d)) for c in centres])
    return X, np.repeat(np.arange(K), n)


def correlated(n=200, seed=1):
    """Bishop fig. 4.6-style classes: strongly correlated shared covariance."""
    rng = np.random.default_rng(seed)
    cov = np.array([[1.0, 0.9], [0.9, 1.0]])
    X = np.vstack([rng.multivariate_normal([0, 0], cov, n), rng.multivariate_normal([1.5, 0.3], cov, n)])
    return X, np.repeat(["a", "b"], n)


def by_gid(ax, gid):
    found = [a for a in ax.get_children() if a.get_gid() == gid]
    return found + [p for p in ax.patches if p.get_gid() == gid and p not in found]


def boundary_vertices(ax):
    sets = by_gid(ax, "boundary")
    assert sets, "no decision-boundary contour drawn"
    segs = [s for cs in sets for level in cs.allsegs for s in level if len(s)]
    assert segs, "the boundary contour has no segments"
    return np.vstack(segs)


def legend_labels(ax):
    legend = ax.get_legend()
    assert legend is not None
    return [t.get_text() for t in legend.get_texts()]


def grid_step(X, res=RES):
    lo, hi = X.min(axis=0), X.max(axis=0)
    return 1.1 * (hi - lo) / (res - 1)


# ---------------------------------------------------------------------------------------------- imports
def test_import_does_not_import_matplotlib():
    code = "import sys, linclass.plot; assert 'matplotlib' not in sys.modules, 'imported matplotlib'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_missing_matplotlib_names_the_extra():
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "import numpy as np, linclass.plot as p\n"
        "class M: loss_curve_ = np.ones(3)\n"
        "try:\n    p.training_curve(M())\nexcept ImportError as e:\n"
        "    assert 'pip install linclass[plot]' in str(e), e\nelse:\n    raise SystemExit('no ImportError')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------------------------------------- regions
def test_decision_regions_three_classes():
    X, y = blobs(K=3)
    lda = linclass.LinearDiscriminantAnalysis().fit(X, y)
    fig = plot.decision_regions(lda, X, y, feature_names=["height", "weight"], resolution=RES)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert legend_labels(ax) == ["0", "1", "2"]
    (points,) = by_gid(ax, "data")
    assert len(points.get_offsets()) == len(X)
    assert np.allclose(points.get_offsets(), X)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("height", "weight")
    (regions,) = by_gid(ax, "regions")
    assert set(np.unique(regions.get_array())) == {0, 1, 2}
    # on every drawn boundary the two best class scores tie (to within one grid cell)
    V = boundary_vertices(ax)
    S = V @ lda.coef_.T + lda.intercept_
    top2 = np.sort(S, axis=1)[:, -2:]
    slope = max(np.linalg.norm(lda.coef_[i] - lda.coef_[j]) for i in range(3) for j in range(3))
    assert np.all(top2[:, 1] - top2[:, 0] <= slope * np.linalg.norm(grid_step(X)))
    assert not by_gid(ax, "hyperplane")  # the K-class rows of coef_ are not boundaries
    assert not by_gid(ax, "ambiguous") and "ambiguous" not in ax.get_title()
    # the boundaries cover all three pairs: vertices near each class pair's equal-score line
    best = np.argsort(S, axis=1)[:, -2:]
    assert {tuple(sorted(p)) for p in best} == {(0, 1), (0, 2), (1, 2)}


def test_decision_regions_two_class_lda_boundary_is_the_hyperplane():
    X, y = correlated(n=80)
    lda = linclass.LinearDiscriminantAnalysis().fit(X, y)
    fig = plot.decision_regions(lda, X, y, resolution=RES)
    ax = fig.axes[0]
    assert legend_labels(ax) == ["a", "b"]
    V = boundary_vertices(ax)
    assert len(V) > 10
    distance = np.abs(lda.decision_function(V)) / np.linalg.norm(lda.coef_)
    # a vertex sits midway between the centres of two grid cells of different classes, and the
    # hyperplane crosses the segment joining them: it is at most half a step away
    assert distance.max() <= 0.5 * grid_step(X).max() * (1 + 1e-9)
    # the boundary spans the plot, not a fragment of it
    assert np.ptp(V, axis=0).max() > 0.5 * np.ptp(X, axis=0).max()
    (line,) = by_gid(ax, "hyperplane")
    p1, p2 = np.array(line._xy1), np.array(line._xy2)
    assert np.allclose(lda.decision_function(np.vstack([p1, p2])), 0.0, atol=1e-9)


def test_decision_regions_hyperplane_only_when_it_is_the_boundary():
    X, y = blobs(K=2)
    lda = linclass.LinearDiscriminantAnalysis().fit(X, y)

    class Expanded:  # coef_ of a feature expansion, not of the plotted plane
        classes_ = lda.classes_
        coef_, intercept_ = np.array([[1.0, -1.0]]), np.array([50.0])

        def predict(self, Z):
            return lda.predict(Z)

    ax = plot.decision_regions(Expanded(), X, y, resolution=RES).axes[0]
    assert not by_gid(ax, "hyperplane")
    assert boundary_vertices(ax).size


def test_decision_regions_hyperplane_comes_from_the_geometry():
    """Any two-class model whose boundary linclass.geometry reads as a hyperplane gets it
    drawn, a one-versus-rest wrapper (no coef_ of its own) included."""
    from linclass.estimators.multiclass import OneVsRestClassifier
    from linclass.geometry import hyperplanes

    X, y = correlated(n=60)
    for model in (linclass.LogisticRegression(), OneVsRestClassifier(linclass.LogisticRegression()),
                  linclass.GaussianDiscriminantAnalysis("tied_diag")):
        model.fit(X, y)
        H = hyperplanes(model)
        ax = plot.decision_regions(model, X, y, resolution=RES).axes[0]
        (line,) = by_gid(ax, "hyperplane")
        ends = np.vstack([line._xy1, line._xy2])
        np.testing.assert_allclose(ends @ H.w[0] + H.w0[0], 0.0, atol=1e-9 * np.abs(H.w0[0]) + 1e-9)
    # a two-class model with a quadric boundary gets none
    ax = plot.decision_regions(linclass.GaussianNB().fit(X, y), X, y, resolution=RES).axes[0]
    assert not by_gid(ax, "hyperplane")


def test_decision_regions_non_linear_model_y_none_and_dataframe():
    pd = pytest.importorskip("pandas")
    X, y = blobs(K=2, n=50)
    df = pd.DataFrame(X, columns=["u", "v"])
    qda = linclass.QuadraticDiscriminantAnalysis().fit(df, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "X does not have valid feature names" from the grid
        fig = plot.decision_regions(qda, df, resolution=RES)
    ax = fig.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("u", "v")
    assert len(legend_labels(ax)) == 2
    (points,) = by_gid(ax, "data")
    assert len(points.get_offsets()) == len(X)
    # y=None: points coloured by the model's prediction
    colours = matplotlib.colormaps["tab10"]
    expected = np.array([colours(int(k)) for k in qda.predict(df)])
    assert np.allclose(points.get_facecolors(), expected)
    assert not by_gid(ax, "hyperplane")  # QDA has no coef_
    V = boundary_vertices(ax)
    margin = np.abs(np.diff(qda.predict_log_proba(pd.DataFrame(V, columns=["u", "v"])), axis=1))  # log-odds, 0 on the boundary
    assert np.median(margin) < 0.2


class AmbiguousStub:
    """A one-vs-rest-like wrapper: LDA's predictions, ambiguous where no class is confident."""

    def __init__(self, X, y):
        self.inner = linclass.LinearDiscriminantAnalysis().fit(X, y)
        self.classes_ = self.inner.classes_
        self.fractions = []

    def predict(self, X):
        return self.inner.predict(X)

    def ambiguous(self, X):
        mask = self.inner.predict_proba(X).max(axis=1) < 0.7
        self.fractions.append(mask.mean())
        return mask


def test_decision_regions_ambiguous_shading_and_fraction():
    X, y = blobs(K=3)
    stub = AmbiguousStub(X, y)
    fig = plot.decision_regions(stub, X, y, resolution=RES)
    ax = fig.axes[0]
    shades = by_gid(ax, "ambiguous")
    assert len(shades) == 1
    assert any(len(s) for level in shades[0].allsegs for s in level)
    assert shades[0].hatches and shades[0].hatches[0]
    frac = float(re.search(r"ambiguous region ([\d.]+)%", ax.get_title()).group(1)) / 100
    assert stub.fractions and 0 < stub.fractions[-1] < 1
    assert frac == pytest.approx(stub.fractions[-1], abs=6e-4)
    assert len(legend_labels(ax)) == 3  # the shading adds no legend entry
    # a wrapper reporting no ambiguity: no shading, 0.0% in the title
    stub.ambiguous = lambda Z: np.zeros(len(Z), dtype=bool)
    ax = plot.decision_regions(stub, X, y, resolution=RES).axes[0]
    assert not by_gid(ax, "ambiguous") and "ambiguous region 0.0%" in ax.get_title()


def test_decision_regions_real_multiclass_wrappers():
    X, y = blobs(K=3)
    for cls in (linclass.OneVsRestClassifier, linclass.OneVsOneClassifier):
        model = cls(linclass.LogisticRegression()).fit(X, y)
        ax = plot.decision_regions(model, X, y, resolution=RES).axes[0]
        assert re.search(r"ambiguous region [\d.]+%", ax.get_title())
        assert len(legend_labels(ax)) == 3
        assert len(by_gid(ax, "data")[0].get_offsets()) == len(X)


@pytest.mark.parametrize("bad", [np.zeros((10, 3)), np.zeros(10), np.zeros((10, 1))])
def test_decision_regions_needs_two_features(bad):
    X, y = blobs(K=2)
    lda = linclass.LinearDiscriminantAnalysis().fit(X, y)
    with pytest.raises(ValueError, match="two features"):
        plot.decision_regions(lda, bad)


def test_decision_regions_input_errors():
    X3, y = blobs(K=2, d=3)
    lda3 = linclass.LinearDiscriminantAnalysis().fit(X3, y)
    with pytest.raises(ValueError, match="fitted on 3"):
        plot.decision_regions(lda3, X3[:, :2])
    X, y = blobs(K=2)
    lda = linclass.LinearDiscriminantAnalysis().fit(X, y)
    with pytest.raises(ValueError, match="does not know"):
        plot.decision_regions(lda, X, np.where(y == 0, 0, 7), resolution=20)
    with pytest.raises(ValueError, match="resolution"):
        plot.decision_regions(lda, X, y, resolution=1)
    with pytest.raises(ValueError, match="NaN"):
        plot.decision_regions(lda, np.where(X > 3, np.nan, X), y)
    with pytest.raises(ValueError, match="no rows"):
        plot.decision_regions(lda, np.empty((0, 2)))


def test_draws_into_a_given_axes_and_threads():
    X, y = blobs(K=2)
    lda = linclass.LinearDiscriminantAnalysis().fit(X, y)
    fig = Figure()
    ax = fig.add_subplot(1, 2, 2)
    assert plot.decision_regions(lda, X, y, ax=ax, resolution=40) is fig
    assert by_gid(ax, "data")
    with ThreadPoolExecutor(2) as pool:
        figs = list(pool.map(lambda r: plot.decision_regions(lda, X, y, resolution=r), [30, 40]))
    assert all(len(by_gid(f.axes[0], "data")[0].get_offsets()) == len(X) for f in figs)


# ---------------------------------------------------------------------------------------------- Fisher
def fisher_criterion(z, y, labels):
    """Bishop 2006 eq. 4.25: (m_2 - m_1)^2 / (s_1^2 + s_2^2) of the projections z, by loops."""
    m = [z[y == c].mean() for c in labels]
    s2 = [np.sum((z[y == c] - z[y == c].mean()) ** 2) for c in labels]
    return (m[1] - m[0]) ** 2 / (s2[0] + s2[1])


def test_fisher_figure_values():
    X, y = correlated()
    labels = np.unique(y)
    fig = plot.fisher_figure(X, y)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    m1, m2 = X[y == labels[0]].mean(0), X[y == labels[1]].mean(0)
    Sw = sum((X[y == c] - X[y == c].mean(0)).T @ (X[y == c] - X[y == c].mean(0)) for c in labels)
    d = m2 - m1
    w_fisher = np.linalg.solve(Sw, d)
    J_mean, J_fisher = fisher_criterion(X @ d, y, labels), fisher_criterion(X @ w_fisher, y, labels)
    assert J_fisher == pytest.approx(d @ np.linalg.solve(Sw, d))  # the closed-form maximum
    assert J_fisher > 2 * J_mean  # these data: the mean difference projection overlaps badly
    shown = [float(re.search(r"\$J\$ = ([0-9.e+-]+)", ax.get_title()).group(1)) for ax in fig.axes]
    assert shown[0] == pytest.approx(J_mean, rel=1e-3)
    assert shown[1] == pytest.approx(J_fisher, rel=1e-3)
    assert shown[1] >= shown[0]
    assert "m_2 - m_1" in fig.axes[0].get_title() and "S_W^{-1}" in fig.axes[1].get_title()
    for ax, w in zip(fig.axes, [d, w_fisher]):
        z = X @ (w / np.linalg.norm(w))
        assert legend_labels(ax) == list(labels)
        for k, c in enumerate(labels):
            bars = [p for p in ax.patches if p.get_gid() == f"hist-{k}"]
            assert sum(b.get_height() for b in bars) == np.sum(y == c)
            lefts = [b.get_x() for b in bars]
            rights = [b.get_x() + b.get_width() for b in bars]
            assert min(lefts) == pytest.approx(z.min()) and max(rights) == pytest.approx(z.max())


def test_fisher_figure_errors_and_axes():
    X, y = blobs(K=3)
    with pytest.raises(ValueError, match="two classes"):
        plot.fisher_figure(X, y)
    X, y = correlated(n=30)
    fig = Figure()
    axes = fig.subplots(1, 2)
    assert plot.fisher_figure(X, y, ax=axes) is fig
    with pytest.raises(ValueError, match="two Axes"):
        plot.fisher_figure(X, y, ax=[axes[0]])


# ---------------------------------------------------------------------------------------------- Gaussians
def expected_covariances(model, K, d=2):
    """Full (K, d, d) covariances from the shapes documented in estimators/gaussian.py."""
    cov = np.asarray(model.covariance_)
    kind = getattr(model, "covariance_type", None) or {
        "LinearDiscriminantAnalysis": "tied", "QuadraticDiscriminantAnalysis": "full",
        "GaussianNB": "diag"}[type(model).__name__]
    if kind == "tied":
        assert cov.shape == (d, d)
        return np.array([cov] * K)
    if kind == "full":
        assert cov.shape == (K, d, d)
        return cov
    if kind == "diag":
        assert cov.shape == (K, d)
        return np.array([np.diag(v) for v in cov])
    if kind == "tied_diag":
        assert cov.shape == (d,)
        return np.array([np.diag(cov)] * K)
    assert kind == "spherical" and cov.shape == (K,)
    return np.array([s * np.eye(d) for s in cov])


GAUSSIAN_MODELS = [  # (the figures read model_; covariance_ is for the expected ellipses)
    lambda: linclass.LinearDiscriminantAnalysis(store_covariance=True),
    lambda: linclass.QuadraticDiscriminantAnalysis(store_covariance=True),
    linclass.GaussianNB,
    *[lambda t=t: linclass.GaussianDiscriminantAnalysis(t)
      for t in ("tied", "full", "diag", "tied_diag", "spherical")],
]


@pytest.mark.parametrize("K", [2, 3])  # K = d = 2 makes 'diag' (K, d) look like 'tied' (d, d)
@pytest.mark.parametrize("make", GAUSSIAN_MODELS)
def test_gaussian_contours_ellipses(make, K):
    X, y = blobs(K=K, n=60, seed=K)
    X[:, 1] += 0.6 * X[:, 0] * (y == 0)  # class 0 correlated, so the structures differ
    model = make().fit(X, y)
    fig = plot.gaussian_contours(model, X, y)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    covs = expected_covariances(model, K)
    assert len([p for p in ax.patches if isinstance(p, Ellipse)]) == 3 * K
    t = np.linspace(0, 2 * np.pi, 50)
    for k in range(K):
        for n in (1, 2, 3):
            (e,) = [p for p in ax.patches if p.get_gid() == f"ellipse-{k}-{n}"]
            a = np.radians(e.angle)
            R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
            pts = np.column_stack([e.width / 2 * np.cos(t), e.height / 2 * np.sin(t)]) @ R.T
            maha = np.einsum("ij,jk,ik->i", pts, np.linalg.inv(covs[k]), pts)
            assert np.allclose(maha, n**2, rtol=1e-6)
            assert np.allclose(e.center, model.means_[k])
    (means,) = by_gid(ax, "means")
    assert np.allclose(means.get_offsets(), model.means_)
    (points,) = by_gid(ax, "data")
    assert len(points.get_offsets()) == len(X)
    assert len(legend_labels(ax)) == K


def test_gaussian_contours_against_raw_covariances():
    X, y = blobs(K=2, n=60)
    X[:, 1] += 0.8 * X[:, 0]
    within = [np.cov(X[y == k].T, bias=True) for k in (0, 1)]
    pooled = sum(np.sum(y == k) * within[k] for k in (0, 1)) / len(X)
    for model, covs in [(linclass.LinearDiscriminantAnalysis().fit(X, y), [pooled, pooled]),
                        (linclass.QuadraticDiscriminantAnalysis().fit(X, y), within)]:
        ax = plot.gaussian_contours(model).axes[0]  # without data
        assert not by_gid(ax, "data")
        for k in (0, 1):
            (e,) = [p for p in ax.patches if p.get_gid() == f"ellipse-{k}-1"]
            evals = np.linalg.eigvalsh(covs[k])
            assert sorted([e.width / 2, e.height / 2]) == pytest.approx(np.sqrt(evals))


def test_gaussian_errors():
    X3, y = blobs(K=2, d=3)
    with pytest.raises(ValueError, match="two features"):
        plot.gaussian_contours(linclass.LinearDiscriminantAnalysis().fit(X3, y))
    with pytest.raises(ValueError, match="two features"):
        plot.gaussian_surface(linclass.QuadraticDiscriminantAnalysis().fit(X3, y))
    X, y = blobs(K=2)
    with pytest.raises(ValueError, match="means_ and covariance_"):
        plot.gaussian_contours(linclass.LogisticRegression().fit(X, y))
    with pytest.raises(ValueError, match="class_index"):
        plot.gaussian_surface(linclass.GaussianNB().fit(X, y), class_index=2)


def test_gaussian_surface_heights():
    X, y = blobs(K=2, n=80)
    X[:, 1] += 0.5 * X[:, 0]
    qda = linclass.QuadraticDiscriminantAnalysis(store_covariance=True).fit(X, y)
    peaks = 1 / (2 * np.pi * np.sqrt(np.linalg.det(qda.covariance_)))
    for k in (0, 1):
        fig = plot.gaussian_surface(qda, class_index=k)
        assert isinstance(fig, Figure)
        (ax,) = fig.axes
        assert ax.name == "3d"
        assert by_gid(ax, "density")
        assert str(qda.classes_[k]) in ax.get_title()
        assert ax.get_zlim()[1] / 1.05 == pytest.approx(peaks[k], rel=5e-3)
    ax = plot.gaussian_surface(qda).axes[0]  # the mixture, weighted by the priors
    top = ax.get_zlim()[1] / 1.05
    assert np.max(qda.priors_ * peaks) * 0.99 <= top <= np.sum(qda.priors_ * peaks)


def test_gaussian_figures_read_the_fitted_record():
    """The densities come from the model's GaussianModel record (model_), not from attributes that
    merely look like a Gaussian model's."""
    from scipy.stats import multivariate_normal

    X, y = blobs(K=2, n=60)
    gda = linclass.GaussianDiscriminantAnalysis("spherical").fit(X, y)
    ax = plot.gaussian_surface(gda, class_index=1).axes[0]
    peak = multivariate_normal(gda.means_[1], gda.covariance_[1] * np.eye(2)).pdf(gda.means_[1])
    assert ax.get_zlim()[1] / 1.05 == pytest.approx(peak, rel=5e-3)

    class LooksGaussian:
        classes_ = gda.classes_
        means_, covariance_ = gda.means_, gda.covariance_

    with pytest.raises(ValueError, match="means_ and covariance_"):
        plot.gaussian_contours(LooksGaussian())


def test_gaussian_surface_of_a_singular_class_is_refused():
    X, y = blobs(K=2, n=30)
    X[y == 0, 1] = 2 * X[y == 0, 0]  # class 0 on a line
    with pytest.warns(linclass.SingularCovarianceWarning):  # (QDA itself refuses it, as scikit-learn's)
        qda = linclass.GaussianDiscriminantAnalysis("full").fit(X, y)
    with pytest.raises(ValueError, match="singular"):
        plot.gaussian_surface(qda, class_index=0)
    assert by_gid(plot.gaussian_surface(qda, class_index=1).axes[0], "density")


# ---------------------------------------------------------------------------------------------- training
def test_training_curve_logistic_and_perceptron():
    X, y = blobs(K=2, n=40)
    lr = linclass.LogisticRegression().fit(X, y)
    ax = plot.training_curve(lr).axes[0]
    (line,) = by_gid(ax, "curve")
    assert np.array_equal(line.get_ydata(), lr.loss_curve_)
    assert np.array_equal(line.get_xdata(), np.arange(len(lr.loss_curve_)))
    Xs = np.vstack([X[y == 0] - 3, X[y == 1] + 3])  # separable: the perceptron converges
    ys = np.repeat([0, 1], 40)
    pc = linclass.Perceptron().fit(Xs, ys)
    assert pc.converged_
    ax = plot.training_curve(pc).axes[0]
    (line,) = by_gid(ax, "curve")
    assert np.array_equal(line.get_ydata(), pc.errors_)
    assert line.get_xdata()[0] == 1 and ax.get_xlabel() == "epoch"


def test_training_curve_needs_a_curve():
    X, y = blobs(K=2)
    with pytest.raises(ValueError, match="loss_curve_"):
        plot.training_curve(linclass.LinearDiscriminantAnalysis().fit(X, y))
    with pytest.raises(ValueError, match="not fitted"):
        plot.training_curve(linclass.LogisticRegression())


# ---------------------------------------------------------------------------------------------- saving
@pytest.mark.parametrize("ext", ["png", "svg", "pdf"])
def test_saving_is_atomic(tmp_path, ext):
    X, y = blobs(K=2, n=20)
    lr = linclass.LogisticRegression().fit(X, y)
    target = tmp_path / f"curve.{ext}"
    target.write_bytes(b"old")
    fig = plot.training_curve(lr, path=target)
    assert isinstance(fig, Figure)
    assert os.listdir(tmp_path) == [target.name]  # replaced, and no temporary file left behind
    data = target.read_bytes()
    assert len(data) > 1000 and data != b"old"
    assert data.startswith({"png": b"\x89PNG", "svg": b"<?xml", "pdf": b"%PDF"}[ext])


def test_saving_every_figure(tmp_path):
    X, y = correlated(n=30)
    lda = linclass.LinearDiscriminantAnalysis().fit(X, y)
    plot.decision_regions(lda, X, y, resolution=60, path=tmp_path / "regions.png")
    plot.fisher_figure(X, y, path=str(tmp_path / "fisher.svg"))
    plot.gaussian_contours(lda, X, y, path=tmp_path / "contours.svg")
    plot.gaussian_surface(lda, path=tmp_path / "surface.png")
    names = sorted(os.listdir(tmp_path))
    assert names == ["contours.svg", "fisher.svg", "regions.png", "surface.png"]
    assert all((tmp_path / n).stat().st_size > 1000 for n in names)


def test_saving_errors_leave_nothing(tmp_path):
    X, y = blobs(K=2, n=20)
    lr = linclass.LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match=r"\.png"):
        plot.training_curve(lr, path=tmp_path / "curve.jpg")
    with pytest.raises(FileNotFoundError) as missing:
        plot.training_curve(lr, path=tmp_path / "missing" / "curve.png")
    # the message names the directory the user gave, not a temporary file
    assert f"directory {str(tmp_path / 'missing')!r} does not exist" in str(missing.value)
    assert ".tmp" not in str(missing.value)
    fig = plot.training_curve(lr)

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    fig.savefig = broken
    with pytest.raises(RuntimeError, match="disk full"):
        canvas.save(fig, str(tmp_path / "curve.png"))
    assert os.listdir(tmp_path) == []


# ------------------------------------------------------------------------------------ coefficient_path
def fake_path(n_rows, d=40, n_Cs=30, seed=0, zero_every=3):
    """A LogisticPath of known coefficients: feature j enters at a random C and grows linearly
    after; every ``zero_every``-th feature is zero along the whole path (in every class)."""
    rng = np.random.default_rng(seed)
    Cs = np.geomspace(1e-3, 10, n_Cs)
    enter = rng.integers(0, n_Cs - 1, size=(n_rows, d))
    slope = rng.normal(size=(n_rows, d)) * rng.pareto(2.0, size=(n_rows, d))
    slope[:, ::zero_every] = 0.0
    k = np.arange(n_Cs)[:, None, None]
    coefs = np.where(k >= enter[None], slope[None] * (k - enter[None]) / n_Cs, 0.0)
    z = np.zeros(n_Cs)
    return linclass.LogisticPath(
        Cs=Cs, coefs=coefs, intercepts=np.zeros((n_Cs, n_rows)),
        classes=np.array([f"class {c}" for c in range(max(n_rows, 2))]), penalty="l1", l1_ratio=1.0,
        n_iter=z.astype(int), violation=z, converged=z.astype(bool), objective=z, log_likelihood=z,
        deviance_explained=z, n_nonzero=np.count_nonzero(np.any(coefs != 0, axis=1), axis=1))


def drawn_paths(ax):
    """The coefficient paths drawn in ``ax``: {feature index: y values along the increasing Cs}."""
    (lines,) = by_gid(ax, "path")  # one collection, not one artist per feature
    return {int(j): seg[:, 1] for j, seg in zip(lines.features, lines.get_segments())}


def label_boxes(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas_ = FigureCanvasAgg(fig)
    canvas_.draw()
    renderer = canvas_.get_renderer()
    from matplotlib.text import Text

    # the text's own box (an Annotation's would include its leader line)
    return [(ax, t.get_text(), Text.get_window_extent(t, renderer)) for ax in fig.axes
            for t in ax.texts if t.get_gid() == "label"]


@pytest.mark.parametrize("top", [10, 4, None])
def test_coefficient_path_draws_the_top_features_and_no_all_zero_one(top):
    path = fake_path(1)
    names = [f"feature {j}" for j in range(40)]
    fig = plot.coefficient_path(path, feature_names=names, top=top)
    (ax,) = fig.axes[:1]
    drawn = drawn_paths(ax)
    nonzero = np.flatnonzero(np.any(path.coefs[:, 0] != 0, axis=0))
    assert set(drawn) <= set(nonzero) and len(nonzero) < 40
    weak_end = np.abs(path.coefs[-1, 0])
    expected = nonzero if top is None else np.argsort(-weak_end, kind="stable")[:top]
    assert set(drawn) == set(expected)
    for j, ys in drawn.items():
        np.testing.assert_array_equal(ys, path.coefs[:, 0, j])
    labels = {text for _, text, _ in label_boxes(fig)}
    assert labels == {names[j] for j in (expected if top is not None else
                                         np.argsort(-weak_end, kind="stable")[:10])}
    assert "class 1" in ax.get_ylabel()  # a binary path's coefficients are the second class's


def test_coefficient_path_labels_do_not_overlap():
    # 12 features that end at almost the same value: their labels must be spread apart
    path = fake_path(1, d=12, zero_every=100)
    coefs = np.array(path.coefs)
    coefs[-1, 0] = 1.0 + 1e-3 * np.arange(12)
    path = linclass.LogisticPath(**{**path.__dict__, "coefs": coefs})
    fig = plot.coefficient_path(path, feature_names=[f"a long feature name {j}" for j in range(12)],
                                top=12)
    boxes = label_boxes(fig)
    assert len(boxes) == 12
    figure_box = fig.bbox
    for i, (_, _, a) in enumerate(boxes):
        assert figure_box.x0 <= a.x0 and a.x1 <= figure_box.x1 + 1  # inside the figure
        assert figure_box.y0 <= a.y0 and a.y1 <= figure_box.y1 + 1
        for _, _, b in boxes[i + 1:]:
            assert not a.overlaps(b)


def test_coefficient_path_multinomial_one_panel_per_class():
    path = fake_path(4, d=60)
    names = [f"w{j}" for j in range(60)]
    fig = plot.coefficient_path(path, feature_names=names, top=5)
    panels = [ax for ax in fig.axes if by_gid(ax, "path")]
    assert [ax.get_title() for ax in panels] == [f"class {k}" for k in range(4)]  # the classes named
    for k, ax in enumerate(panels):
        drawn = drawn_paths(ax)
        assert len(drawn) == 5
        weak_end = np.abs(path.coefs[-1, k])
        assert set(drawn) == set(np.argsort(-weak_end, kind="stable")[:5])
        assert all(np.any(path.coefs[:, k, j] != 0) for j in drawn)
    boxes = label_boxes(fig)
    assert len(boxes) == 4 * 5
    for i, (ax_a, _, a) in enumerate(boxes):
        for ax_b, _, b in boxes[i + 1:]:
            assert not a.overlaps(b)
    # a chosen subset of classes, drawn into given axes
    given = Figure().subplots(1, 2)
    fig = plot.coefficient_path(path, classes=["class 2", "class 0"], ax=given)
    assert [ax.get_title() for ax in given] == ["class 2", "class 0"]
    with pytest.raises(ValueError, match="one Axes per class"):
        plot.coefficient_path(path, ax=given)
    with pytest.raises(ValueError, match="'class 9'"):
        plot.coefficient_path(path, classes=["class 9"])


def test_coefficient_path_of_thousands_of_features_is_a_few_artists():
    path = fake_path(13, d=3000, n_Cs=50)
    fig = plot.coefficient_path(path, top=None)
    panels = [ax for ax in fig.axes if by_gid(ax, "path")]
    assert len(panels) == 13
    for k, ax in enumerate(panels):
        assert len(ax.lines) <= 2  # the collection holds the paths; at most a zero line besides
        assert len(drawn_paths(ax)) == np.count_nonzero(np.any(path.coefs[:, k] != 0, axis=0))


# ------------------------------------------------------------------- issue 44: the figures' details
def _drawn(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig).draw()
    return fig


@pytest.mark.parametrize("legacy", [True, False])
def test_cv_curve_counts_the_non_zero_features_on_top(legacy):
    """plot.cv.glmnet's top axis: the non-zero features at each C (here the folds' median)."""
    from linclass.datasets import load_dataset

    X, y, _, _ = load_dataset("wine")
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cv = linclass.LogisticRegressionCV(penalty="l1", solver="cd", Cs=8, cv=3,
                                           use_legacy_attributes=legacy).fit(X, y)
    ax = plot.cv_curve(cv).axes[0]
    (top,) = ax.child_axes  # the secondary x axis
    assert top.get_xlabel() == "non-zero features"
    ticks = top.get_xticks()
    np.testing.assert_allclose(ticks, np.log10(np.sort(cv.Cs_)))  # 8 values: every one labelled
    counts = [int(t.get_text()) for t in top.get_xticklabels()]
    paths = cv.coefs_paths_
    if legacy:
        W = np.stack([np.asarray(paths[c])[..., :13] for c in paths])  # (classes, folds, Cs, 13)
        folds = np.any(W != 0, axis=0).sum(axis=-1)
    else:
        folds = np.any(np.asarray(paths)[:, 0, ..., :13] != 0, axis=2).sum(axis=-1)
    expected = np.round(np.median(folds, axis=0)).astype(int)[np.argsort(cv.Cs_)]
    assert counts == expected.tolist()
    assert counts[0] < counts[-1] <= 13  # the strongest penalty keeps fewer features


def test_cv_curve_top_axis_labels_at_most_twelve():
    from linclass.plot.paths import _TOP_TICKS

    X, y = blobs(K=2, n=60, d=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cv = linclass.LogisticRegressionCV(penalty="l1", solver="cd", Cs=40, cv=3).fit(X, y)
    (top,) = plot.cv_curve(cv).axes[0].child_axes
    ticks = top.get_xticks()
    assert 1 < len(ticks) <= _TOP_TICKS
    assert np.allclose(np.diff(ticks), np.diff(ticks)[0])  # evenly spaced


def test_gaussian_surface_names_its_axes_and_draws_into_a_given_axes():
    X, y = blobs(K=3, n=40)
    gnb = linclass.GaussianNB().fit(X, np.array(["setosa", "versicolor", "virginica"])[y])
    ax = plot.gaussian_surface(gnb, feature_names=["petal length", "petal width"]).axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_zlabel()) == ("petal length", "petal width",
                                                                  "density")
    assert legend_labels(ax) == ["setosa", "versicolor", "virginica"]
    fig = Figure()
    left, right = fig.add_subplot(1, 2, 1, projection="3d"), fig.add_subplot(1, 2, 2, projection="3d")
    assert plot.gaussian_surface(gnb, class_index=2, ax=right) is fig
    assert by_gid(right, "density") and not by_gid(left, "density")
    assert legend_labels(right) == ["virginica"]
    with pytest.raises(ValueError, match="3-D Axes"):
        plot.gaussian_surface(gnb, ax=Figure().add_subplot())
    import pandas as pd  # the model's own names by default

    named = linclass.GaussianNB().fit(pd.DataFrame(X, columns=["u", "v"]), y)
    ax = plot.gaussian_surface(named).axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("u", "v")


def _hue(rgb):
    import colorsys

    return colorsys.rgb_to_hsv(*rgb[:3])[0]


def test_gaussian_surface_is_coloured_by_class():
    """Not by height: one class's surface in its colour (shaded, the same hue everywhere); the
    mixture's in the colours of the classes, each where its weighted density is the largest."""
    X, y = blobs(K=3, n=60)
    qda = linclass.QuadraticDiscriminantAnalysis().fit(X, y)
    colours = canvas.colours(3)
    for k in range(3):
        (surface,) = by_gid(plot.gaussian_surface(qda, class_index=k).axes[0], "density")
        hues = {round(_hue(c), 2) for c in surface.get_facecolor()}
        assert hues == {round(_hue(colours[k]), 2)}
    (surface,) = by_gid(plot.gaussian_surface(qda).axes[0], "density")
    hues = {round(_hue(c), 2) for c in surface.get_facecolor()}
    assert hues == {round(_hue(c), 2) for c in colours}


def test_training_curve_ticks_whole_epochs():
    X, y = blobs(K=2, n=40)
    with warnings.catch_warnings():  # three epochs do not converge
        warnings.simplefilter("ignore")
        pc = linclass.Perceptron(max_iter=3, tol=None).fit(X, y)
    ax = _drawn(plot.training_curve(pc)).axes[0]
    ticks = ax.get_xticks()
    assert np.array_equal(ticks, np.round(ticks))  # 1, 2, 3: no 1.25, 1.5, ...
    labels = [t.get_text().replace("\u2212", "-") for t in ax.get_xticklabels()]
    assert all(re.fullmatch(r"-?\d+", text) for text in labels), labels


def test_a_standardised_model_is_titled_by_the_model_inside():
    """A --scale figure: the title names the inner model, not the wrapper."""
    X, y = blobs(K=2, n=40)
    model = linclass.StandardizedClassifier(linclass.LogisticRegression()).fit(X * [1, 1000], y)
    title = plot.decision_regions(model, X * [1, 1000], y, resolution=RES).axes[0].get_title()
    assert title.startswith("LogisticRegression (standardised features)")
    assert "StandardizedClassifier" not in title
    ax = plot.training_curve(model).axes[0]  # the inner model's curve
    assert ax.get_title().startswith("LogisticRegression (standardised features): ")
    (line,) = by_gid(ax, "curve")
    assert np.array_equal(line.get_ydata(), model.estimator_.loss_curve_)
