"""Figures of the fitted models: decision regions, Fisher's projections, Gaussian densities, training
curves.

matplotlib is optional (``pip install linclass[plot]``) and imported only inside the functions, so
``import linclass.plot`` costs nothing.  Every function builds on :class:`matplotlib.figure.Figure`
(never pyplot's global state), so it works headless and from threads; none calls ``show``.  Each
returns the Figure, and with ``path`` (ending in .png, .svg or .pdf) also writes it atomically: to a
temporary file in the same directory, then :func:`os.replace`.

Drawn artists carry a ``gid`` so that callers (and the tests) can find them: ``'regions'``,
``'boundary'``, ``'hyperplane'``, ``'ambiguous'``, ``'data'``, ``'means'``, ``'ellipse-k-n'``
(class index k, n standard deviations), ``'density'``, ``'curve'``.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "decision_regions",
    "fisher_figure",
    "gaussian_contours",
    "gaussian_surface",
    "training_curve",
]

_FORMATS = (".png", ".svg", ".pdf")
_SIGMAS = (1, 2, 3)
_SURFACE_GRID = 120


# ---------------------------------------------------------------------------------------------- plumbing
def _matplotlib():
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError(
            "linclass.plot needs matplotlib, an optional dependency: pip install linclass[plot]"
        ) from exc
    return matplotlib, Figure


def _check_path(path) -> str | None:
    if path is None:
        return None
    path = os.fspath(path)
    if os.path.splitext(path)[1].lower() not in _FORMATS:
        raise ValueError(f"path must end in one of {', '.join(_FORMATS)}; got {path!r}.")
    return path


def _save(fig, path: str | None) -> None:
    """Write ``fig`` to ``path`` atomically: a temporary file in the same directory, then
    :func:`os.replace`, so a reader never sees a half-written figure."""
    if path is None:
        return
    folder, name = os.path.split(os.path.abspath(path))
    fmt = os.path.splitext(name)[1][1:].lower()
    tmp = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # mode 0o666 & ~umask
    try:
        with os.fdopen(fd, "wb") as handle:
            fig.savefig(handle, format=fmt)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _root(ax):
    """The top-level Figure holding ``ax`` (also inside a SubFigure)."""
    try:
        return ax.get_figure(root=True)
    except TypeError:  # matplotlib < 3.10: a SubFigure's .figure is the root
        fig = ax.get_figure()
        return getattr(fig, "figure", fig)


def _tag(artist, gid: str) -> None:
    """Set the gid of a ContourSet (an Artist from matplotlib 3.8; a list of collections before)."""
    from matplotlib.artist import Artist

    for part in [artist] if isinstance(artist, Artist) else artist.collections:
        part.set_gid(gid)


def _axes(ax, figsize=(6.4, 4.8)):
    """(figure, axes): a new Figure with one Axes, or the root figure of the given Axes."""
    _, Figure = _matplotlib()
    if ax is None:
        fig = Figure(figsize=figsize, layout="constrained")
        return fig, fig.add_subplot()
    return _root(ax), ax


def _colours(n: int) -> list:
    import matplotlib

    if n <= 10:
        return [matplotlib.colormaps["tab10"](i) for i in range(n)]
    if n <= 20:
        return [matplotlib.colormaps["tab20"](i) for i in range(n)]
    return list(matplotlib.colormaps["turbo"](np.linspace(0.05, 0.95, n)))


def _class_legend(ax, classes, colours, **kwargs) -> None:
    from matplotlib.lines import Line2D

    handles = [
        Line2D([], [], linestyle="none", marker="o", markersize=7, markerfacecolor=c,
               markeredgecolor="k", label=str(label))
        for label, c in zip(classes, colours)
    ]
    ax.legend(handles=handles, title="class", **kwargs)


def _as_2d(X, what: str, name: str = "X") -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(
            f"{what} draws two features, but {name} has shape {X.shape}. Pick two columns "
            "(X[:, [i, j]]) or project first, e.g. with "
            "LinearDiscriminantAnalysis(n_components=2).fit_transform(X, y)."
        )
    if len(X) == 0:
        raise ValueError(f"{name} has no rows; {what} needs data to draw.")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains NaN or infinite values; drop or impute those rows first.")
    return X


def _class_index(classes: np.ndarray, labels: np.ndarray, what: str) -> np.ndarray:
    """Position of each label in ``classes`` (which need not be sorted)."""
    order = np.argsort(classes, kind="stable")
    pos = np.clip(np.searchsorted(classes[order], labels), 0, len(classes) - 1)
    idx = order[pos]
    unknown = classes[idx] != labels
    if np.any(unknown):
        raise ValueError(
            f"{what} contains labels the model does not know: {np.unique(labels[unknown]).tolist()}; "
            f"the model's classes are {classes.tolist()}."
        )
    return idx


def _model_input(model, Z: np.ndarray):
    """Grid points as the model expects them: a DataFrame when it was fitted on named columns (so
    scikit-learn does not warn about missing feature names)."""
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        return Z
    import pandas as pd

    return pd.DataFrame(Z, columns=list(names))


def _feature_names(feature_names, model, X) -> list[str]:
    if feature_names is None:
        feature_names = getattr(model, "feature_names_in_", None)
    if feature_names is None and hasattr(X, "columns"):
        feature_names = X.columns
    names = ["x1", "x2"] if feature_names is None else [str(f) for f in feature_names]
    if len(names) != 2:
        raise ValueError(f"feature_names needs two names, one per axis; got {names}.")
    return names


# ---------------------------------------------------------------------------------------------- regions
def decision_regions(model: Any, X, y=None, *, feature_names: Sequence[str] | None = None,
                     resolution: int = 300, ax=None, path=None):
    """Predicted class over the plane, the decision boundaries and the data.

    Parameters
    ----------
    model : fitted classifier on two features (``predict``, and ``classes_`` for the legend)
    X : array-like of shape (n_samples, 2)
        The grid covers X with a 5% margin; the points are drawn on top.
    y : array-like of shape (n_samples,), default=None
        True labels, colouring the points; None colours them by prediction.
    feature_names : sequence of two str, default=None
        Axis labels; default the model's ``feature_names_in_``, X's columns, or x1, x2.
    resolution : int, default=300
        Grid points per axis; boundaries are exact to about range / resolution.
    ax : matplotlib Axes, default=None
    path : str or path-like ending in .png, .svg or .pdf, default=None

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    Boundaries are contours of the predicted-class map, so they are right for any classifier.  When
    the model is binary with ``coef_`` of shape (1, 2) and ``sign(coef_ x + intercept_)`` agrees with
    ``predict`` on the grid, the exact hyperplane :math:`w^Tx + w_0 = 0` (seed 003 sec. 4.1.1) is
    drawn as well (dashed).  A model with ``ambiguous(X) -> bool mask`` (the one-versus-rest and
    one-versus-one wrappers, seed 003 fig. 4.2) gets its ambiguous cells hatched grey and their share
    of the plotted area in the title.
    """
    _matplotlib()
    path = _check_path(path)
    names = _feature_names(feature_names, model, X)
    X = _as_2d(X, "decision_regions")
    n_in = getattr(model, "n_features_in_", 2)
    if n_in != 2:
        raise ValueError(f"decision_regions draws two features, but the model was fitted on {n_in}.")
    if int(resolution) != resolution or resolution < 2:
        raise ValueError(f"resolution must be an integer >= 2; got {resolution!r}.")
    resolution = int(resolution)
    fig, ax = _axes(ax)

    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = np.where(hi > lo, 0.05 * (hi - lo), 0.5)
    xs = np.linspace(lo[0] - pad[0], hi[0] + pad[0], resolution)
    ys = np.linspace(lo[1] - pad[1], hi[1] + pad[1], resolution)
    xx, yy = np.meshgrid(xs, ys)
    grid = np.column_stack([xx.ravel(), yy.ravel()])
    predicted = np.asarray(model.predict(_model_input(model, grid)))
    if hasattr(model, "classes_"):
        classes = np.asarray(model.classes_)
    else:
        classes = np.unique(predicted if y is None else np.concatenate([predicted, np.asarray(y)]))
    K = len(classes)
    colours = _colours(K)
    Z = _class_index(classes, predicted, "the model's predictions").reshape(xx.shape)

    from matplotlib.colors import ListedColormap

    mesh = ax.pcolormesh(xs, ys, Z, cmap=ListedColormap(colours), vmin=-0.5, vmax=K - 0.5,
                         alpha=0.25, shading="nearest", rasterized=True)
    mesh.set_gid("regions")
    # contours of the class indicators at 1/2: each boundary lies midway between cells of two
    # classes (with two classes present one indicator draws them all)
    present = np.unique(Z)
    for k in present[:1] if present.size == 2 else present if present.size > 2 else []:
        cs = ax.contour(xs, ys, (Z == k).astype(float), levels=[0.5], colors="k", linewidths=1.2)
        _tag(cs, "boundary")
    _hyperplane(ax, model, grid, Z.ravel(), K)

    title = type(model).__name__
    if callable(getattr(model, "ambiguous", None)):
        mask = np.asarray(model.ambiguous(_model_input(model, grid)), dtype=bool).reshape(xx.shape)
        if mask.any():
            shade = ax.contourf(xs, ys, mask.astype(float), levels=[0.5, 1.5], colors=["0.55"],
                                alpha=0.45, hatches=["///"])
            _tag(shade, "ambiguous")
        title += f": ambiguous region {mask.mean():.1%} of the plotted area"

    if y is None:
        labels = _class_index(classes, np.asarray(model.predict(_model_input(model, X))), "predict(X)")
    else:
        labels = _class_index(classes, np.asarray(y), "y")
    if len(labels) != len(X):
        raise ValueError(f"X has {len(X)} rows but y has {len(labels)} labels.")
    points = ax.scatter(X[:, 0], X[:, 1], c=[colours[i] for i in labels], s=18, edgecolors="k",
                        linewidths=0.5, zorder=3)
    points.set_gid("data")
    _class_legend(ax, classes, colours, loc="best", fontsize="small")
    ax.set_xlim(xs[0], xs[-1])
    ax.set_ylim(ys[0], ys[-1])
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    ax.set_title(title)
    _save(fig, path)
    return fig


def _hyperplane(ax, model, grid, Z, K) -> None:
    """Draw :math:`w^Tx + w_0 = 0` for a binary linear model whose predictions it reproduces."""
    coef = np.asarray(getattr(model, "coef_", np.empty(0)), dtype=float)
    intercept = np.ravel(np.asarray(getattr(model, "intercept_", 0.0), dtype=float))
    if K != 2 or coef.shape != (1, 2) or intercept.size != 1 or not np.any(coef):
        return
    w, b = coef[0], float(intercept[0])
    if np.mean((grid @ w + b > 0) == (Z == 1)) < 0.99:  # coef_ is not in the plotted space
        return
    p0 = -b * w / (w @ w)
    line = ax.axline(tuple(p0), tuple(p0 + np.array([-w[1], w[0]])), color="k", linestyle="--",
                     linewidth=1.0)
    line.set_gid("hyperplane")


# ---------------------------------------------------------------------------------------------- Fisher
def _fisher_criterion(w: np.ndarray, m1: np.ndarray, m2: np.ndarray, Sw: np.ndarray) -> float:
    """:math:`J(w) = (w^T(m_2 - m_1))^2 / w^TS_Ww`, seed 003 eq. 4.26 with eq. 4.27 and 4.28
    (:math:`S_W` the summed within-class scatter)."""
    return float((w @ (m2 - m1)) ** 2 / (w @ Sw @ w))


def fisher_figure(X, y, *, ax=None, path=None):
    """Seed 003 figure 4.6: class histograms of the projections on the mean difference
    :math:`m_2 - m_1` (left) and on Fisher's direction :math:`S_W^{-1}(m_2 - m_1)` (right).

    Both directions have unit length; each panel's title gives Fisher's criterion
    :math:`J(w) = (m_2 - m_1)^2 / (s_1^2 + s_2^2)` of its projection (eq. 4.25, with
    :math:`s_k^2 = \\sum_{n \\in C_k}(y_n - m_k)^2`), so the right one is the larger.  The directions
    come from :class:`linclass.FisherDiscriminantAnalysis`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), exactly two classes
    ax : sequence of two matplotlib Axes, default=None
    path : str or path-like ending in .png, .svg or .pdf, default=None

    Returns
    -------
    matplotlib.figure.Figure
    """
    _, Figure = _matplotlib()
    path = _check_path(path)
    labels = np.unique(np.asarray(y))
    if labels.size != 2:
        raise ValueError(
            f"fisher_figure compares two classes; y has {labels.size}: {labels.tolist()[:10]}. "
            "Select two classes, or plot FisherDiscriminantAnalysis().fit_transform(X, y) instead."
        )
    from linclass.estimators import FisherDiscriminantAnalysis

    fda = FisherDiscriminantAnalysis().fit(X, y)
    X = np.asarray(X, dtype=float)
    m1, m2 = fda.means_
    Sw = fda.stats_.pooled_scatter()
    directions = {"mean difference $m_2 - m_1$": m2 - m1,
                  "Fisher $S_W^{-1}(m_2 - m_1)$": fda.scalings_[:, 0]}
    if ax is None:
        fig = Figure(figsize=(10, 4), layout="constrained")
        axes = fig.subplots(1, 2)
    else:
        axes = list(np.ravel(np.asarray(ax, dtype=object)))
        if len(axes) != 2:
            raise ValueError(f"fisher_figure draws two panels; ax must hold two Axes, got {len(axes)}.")
        fig = _root(axes[0])
    colours = _colours(2)
    index = _class_index(fda.classes_, np.asarray(y), "y")
    for panel, (name, w) in zip(axes, directions.items()):
        w = w / np.linalg.norm(w)
        z = X @ w
        bins = np.histogram_bin_edges(z, bins=30)
        for k in range(2):
            panel.hist(z[index == k], bins=bins, color=colours[k], alpha=0.6, edgecolor="k",
                       linewidth=0.4, label=str(fda.classes_[k]), gid=f"hist-{k}")
        panel.set_title(f"{name}\n$J$ = {_fisher_criterion(w, m1, m2, Sw):.4g}")
        panel.set_xlabel("$y = w^T x$, $\\|w\\| = 1$")
        panel.set_ylabel("count")
        panel.legend(title="class", fontsize="small")
    _save(fig, path)
    return fig


# ---------------------------------------------------------------------------------------------- Gaussians
def _class_covariances(model) -> tuple[np.ndarray, np.ndarray]:
    """Means (K, d) and full covariances (K, d, d) of a fitted Gaussian model, whatever the
    structure of ``covariance_``: (d, d) tied, (K, d, d) full, (K, d) diag, (d,) tied_diag, (K,)
    spherical."""
    means = getattr(model, "means_", getattr(model, "theta_", None))
    cov = getattr(model, "covariance_", getattr(model, "var_", None))
    if means is None or cov is None:
        raise ValueError(
            f"{type(model).__name__} has no fitted means_ and covariance_: pass a fitted Gaussian model "
            "(LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis, GaussianNB or "
            "GaussianDiscriminantAnalysis)."
        )
    means, cov = np.asarray(means, dtype=float), np.asarray(cov, dtype=float)
    K, d = means.shape
    kind = getattr(getattr(model, "model_", None), "covariance_type", None)
    if kind is None:
        kind = "diag" if hasattr(model, "var_") else {
            (d, d): "tied", (K, d, d): "full", (K, d): "diag", (d,): "tied_diag", (K,): "spherical"
        }.get(cov.shape)
    if kind == "tied":
        full = np.broadcast_to(cov, (K, d, d))
    elif kind == "full":
        full = cov
    elif kind == "diag":
        full = cov[:, :, None] * np.eye(d)
    elif kind == "tied_diag":
        full = np.broadcast_to(np.diag(cov), (K, d, d))
    elif kind == "spherical":
        full = cov[:, None, None] * np.eye(d)
    else:
        raise ValueError(f"cannot read a covariance of shape {cov.shape} for {K} classes in {d} features.")
    if full.shape != (K, d, d):
        raise ValueError(f"covariance_ of shape {cov.shape} does not fit covariance_type={kind!r}.")
    return means, np.array(full)


def _two_features(model, what: str) -> tuple[np.ndarray, np.ndarray]:
    means, covs = _class_covariances(model)
    if means.shape[1] != 2:
        raise ValueError(f"{what} draws models of two features; this one has {means.shape[1]}.")
    return means, covs


def gaussian_contours(model: Any, X=None, y=None, *, ax=None, path=None):
    """Contours of each class-conditional density :math:`\\mathcal N(x \\mid \\mu_k, \\Sigma_k)` at 1, 2
    and 3 standard deviations (Mahalanobis distance), the class means, and optionally the data.

    Parameters
    ----------
    model : fitted LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis, GaussianNB or
        GaussianDiscriminantAnalysis on two features
    X : array-like of shape (n_samples, 2), default=None
    y : array-like of shape (n_samples,), default=None
        Labels colouring X (grey without).
    ax : matplotlib Axes, default=None
    path : str or path-like ending in .png, .svg or .pdf, default=None

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    The contour :math:`(x-\\mu)^T\\Sigma^{-1}(x-\\mu) = n^2` is the ellipse with semi-axes
    :math:`n\\sqrt{\\lambda_i}` along the eigenvectors of :math:`\\Sigma` (seed 002).
    """
    _matplotlib()
    from matplotlib.patches import Ellipse

    path = _check_path(path)
    means, covs = _two_features(model, "gaussian_contours")
    if X is not None:
        X = _as_2d(X, "gaussian_contours")
    classes = np.asarray(getattr(model, "classes_", np.arange(len(means))))
    colours = _colours(len(means))
    fig, ax = _axes(ax)
    if X is not None:
        if y is None:
            c = "0.6"
        else:
            c = [colours[i] for i in _class_index(classes, np.asarray(y), "y")]
        points = ax.scatter(X[:, 0], X[:, 1], c=c, s=12, alpha=0.7, edgecolors="none")
        points.set_gid("data")
    for k, (mu, sigma) in enumerate(zip(means, covs)):
        evals, evecs = np.linalg.eigh((sigma + sigma.T) / 2)
        evals = np.maximum(evals, 0.0)
        angle = np.degrees(np.arctan2(evecs[1, 1], evecs[0, 1]))  # the major axis
        for n in _SIGMAS:
            ellipse = Ellipse(tuple(mu), 2 * n * np.sqrt(evals[1]), 2 * n * np.sqrt(evals[0]),
                              angle=angle, fill=False, edgecolor=colours[k], linewidth=1.4 / n ** 0.5,
                              gid=f"ellipse-{k}-{n}")
            ax.add_patch(ellipse)
    centres = ax.scatter(means[:, 0], means[:, 1], c=colours, marker="X", s=90, edgecolors="k",
                         zorder=3)
    centres.set_gid("means")
    ax.autoscale_view()
    _class_legend(ax, classes, colours, loc="best", fontsize="small")
    names = _feature_names(None, model, np.empty((0, 2)))
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    ax.set_title(f"{type(model).__name__}: class densities at {', '.join(map(str, _SIGMAS))} sigma")
    _save(fig, path)
    return fig


def _log_density(points: np.ndarray, mu: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """:math:`\\ln\\mathcal N(x \\mid \\mu, \\Sigma)` through the eigendecomposition of :math:`\\Sigma`."""
    evals, evecs = np.linalg.eigh((sigma + sigma.T) / 2)
    if evals[0] <= 1e-12 * max(evals[-1], 0.0) or evals[-1] <= 0:
        raise ValueError(
            "a class covariance is singular, so its density has no surface; regularise the model "
            "(reg_param, shrinkage or var_smoothing)."
        )
    z = (points - mu) @ evecs / np.sqrt(evals)
    return -0.5 * np.sum(z**2, axis=1) - 0.5 * np.sum(np.log(evals)) - np.log(2 * np.pi)


def gaussian_surface(model: Any, *, class_index: int | None = None, path=None):
    """3-D surface of a class-conditional density :math:`\\mathcal N(x \\mid \\mu_k, \\Sigma_k)`, or of
    the mixture :math:`p(x) = \\sum_k \\pi_k \\mathcal N(x \\mid \\mu_k, \\Sigma_k)`, as in seed 002's
    plotting code (mplot3d ``plot_surface``, 'Spectral' colours, view 30/30).

    Parameters
    ----------
    model : fitted Gaussian model on two features (see :func:`gaussian_contours`)
    class_index : int, default=None
        Position in ``classes_`` of the class to draw; None draws the mixture, weighted by
        ``priors_``.
    path : str or path-like ending in .png, .svg or .pdf, default=None

    Returns
    -------
    matplotlib.figure.Figure
    """
    _, Figure = _matplotlib()
    from scipy.special import logsumexp

    path = _check_path(path)
    means, covs = _two_features(model, "gaussian_surface")
    K = len(means)
    if class_index is not None and not (isinstance(class_index, (int, np.integer)) and 0 <= class_index < K):
        raise ValueError(f"class_index must be an integer in [0, {K}); got {class_index!r}.")
    shown = range(K) if class_index is None else [int(class_index)]
    sd = np.sqrt(np.array([np.diag(covs[k]) for k in shown]))
    lo = np.min(means[list(shown)] - 3.5 * sd, axis=0)
    hi = np.max(means[list(shown)] + 3.5 * sd, axis=0)
    xs, ys = np.linspace(lo[0], hi[0], _SURFACE_GRID), np.linspace(lo[1], hi[1], _SURFACE_GRID)
    xx, yy = np.meshgrid(xs, ys)
    points = np.column_stack([xx.ravel(), yy.ravel()])
    if class_index is None:
        priors = np.asarray(getattr(model, "priors_", np.full(K, 1.0 / K)), dtype=float)
        with np.errstate(divide="ignore"):
            log_priors = np.log(priors)
        logp = logsumexp([log_priors[k] + _log_density(points, means[k], covs[k])
                          for k in range(K) if priors[k] > 0], axis=0)
        title = r"mixture $p(x) = \sum_k \pi_k\,\mathcal{N}(x \mid \mu_k, \Sigma_k)$"
    else:
        k = int(class_index)
        logp = _log_density(points, means[k], covs[k])
        label = np.asarray(getattr(model, "classes_", np.arange(K)))[k]
        title = rf"$p(x \mid C_k) = \mathcal{{N}}(x \mid \mu_k, \Sigma_k)$, class {label}"
    density = np.exp(logp).reshape(xx.shape)
    fig = Figure(figsize=(7, 6), layout="constrained")
    ax = fig.add_subplot(projection="3d")
    surf = ax.plot_surface(xx, yy, density, cmap="Spectral", edgecolor="none", alpha=0.8,
                           rcount=60, ccount=60)
    surf.set_gid("density")
    names = _feature_names(None, model, np.empty((0, 2)))
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    ax.set_zlabel("density")
    ax.set_zlim(0, float(density.max()) * 1.05)
    ax.view_init(30, 30)
    ax.set_title(title)
    _save(fig, path)
    return fig


# ---------------------------------------------------------------------------------------------- training
def training_curve(model: Any, *, ax=None, path=None):
    """The objective per iteration (``loss_curve_``, :class:`linclass.LogisticRegression`: the mean
    penalised log-loss at the start and after each iteration) or the mistakes per epoch
    (``errors_``, :class:`linclass.Perceptron`).

    Parameters
    ----------
    model : fitted model with ``loss_curve_`` or ``errors_``
    ax : matplotlib Axes, default=None
    path : str or path-like ending in .png, .svg or .pdf, default=None

    Returns
    -------
    matplotlib.figure.Figure
    """
    _matplotlib()
    path = _check_path(path)
    if getattr(model, "loss_curve_", None) is not None:
        values = np.asarray(model.loss_curve_, dtype=float)
        steps, xlabel, ylabel = np.arange(values.size), "iteration", "objective (mean log-loss + penalty)"
    elif getattr(model, "errors_", None) is not None:
        values = np.asarray(model.errors_, dtype=float)
        steps, xlabel, ylabel = np.arange(1, values.size + 1), "epoch", "training errors (updates)"
    else:
        raise ValueError(
            f"training_curve needs a fitted model with loss_curve_ (linclass.LogisticRegression) or "
            f"errors_ (linclass.Perceptron); {type(model).__name__} has neither (not fitted yet?)."
        )
    fig, ax = _axes(ax)
    (line,) = ax.plot(steps, values, marker="o", markersize=3)
    line.set_gid("curve")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    converged = getattr(model, "converged_", None)
    note = "" if converged is None else (", converged" if converged else ", not converged")
    ax.set_title(f"{type(model).__name__}: {values.size} {xlabel}s recorded{note}")
    ax.grid(True, alpha=0.3)
    _save(fig, path)
    return fig
