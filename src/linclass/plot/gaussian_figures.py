"""Figures of Gaussian class densities: ellipses at 1, 2 and 3 standard deviations, and the 3-D
density surface of one class or of the mixture.

Both read the fitted :class:`~linclass.generative.gaussian.GaussianModel` record (``model_``) through
:mod:`linclass.generative.densities`: the covariance of every structure as a full matrix, and the
exact log density.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from linclass.generative.densities import class_log_density, covariance_matrices
from linclass.generative.gaussian import GaussianModel
from linclass.plot import canvas
from linclass.plot.points import as_two_features, axis_names, class_positions

if TYPE_CHECKING:
    import os

    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from numpy.typing import ArrayLike

__all__ = ["gaussian_contours", "gaussian_surface"]

_SIGMAS = (1, 2, 3)
_SURFACE_GRID = 120


def _record(model, what: str) -> GaussianModel:
    """The fitted Gaussian record of a model of two features, or a ValueError saying what to pass."""
    record = getattr(model, "model_", None)
    if not isinstance(record, GaussianModel):
        raise ValueError(
            f"{type(model).__name__} has no fitted means_ and covariance_: pass a fitted Gaussian model "
            "(LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis, GaussianNB or "
            "GaussianDiscriminantAnalysis)."
        )
    d = np.shape(record.means)[1]
    if d != 2:
        raise ValueError(f"{what} draws models of two features; this one has {d}.")
    return record


def _classes(model, K: int) -> np.ndarray:
    return np.asarray(getattr(model, "classes_", np.arange(K)))


def gaussian_contours(model: Any, X: ArrayLike | None = None, y: ArrayLike | None = None, *,
                      feature_names: Sequence[str] | None = None, ax: Axes | None = None,
                      path: str | os.PathLike[str] | None = None) -> Figure:
    """Contours of each class-conditional density :math:`\\mathcal N(x \\mid \\mu_k, \\Sigma_k)` at 1, 2
    and 3 standard deviations (Mahalanobis distance), the class means, and optionally the data.

    Parameters
    ----------
    model : fitted LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis, GaussianNB or
        GaussianDiscriminantAnalysis on two features
    X : array-like of shape (n_samples, 2), default=None
    y : array-like of shape (n_samples,), default=None
        Labels colouring X (grey without).
    feature_names : sequence of two str, default=None
        Axis labels; default the model's ``feature_names_in_``, X's columns, or x1, x2.
    ax : matplotlib Axes, default=None
    path : str or path-like ending in .png, .svg or .pdf, default=None

    Returns
    -------
    matplotlib.figure.Figure
        The ellipses have gids ``'ellipse-k-n'`` (class index k, n standard deviations), the class
        means ``'means'`` and the data (when given) ``'data'``.

    See Also
    --------
    linclass.plot.gaussian_surface : One class density as a 3-D surface.
    linclass.plot.decision_regions : The predicted classes over the plane.
    linclass.QuadraticDiscriminantAnalysis : A model whose densities it draws.
    sklearn.mixture.GaussianMixture : scikit-learn's examples draw such ellipses by hand.

    Notes
    -----
    The contour :math:`(x-\\mu)^T\\Sigma^{-1}(x-\\mu) = n^2` is the ellipse with semi-axes
    :math:`n\\sqrt{\\lambda_i}` along the eigenvectors of :math:`\\Sigma` (Bishop 2006 sec. 2.3).

    Examples
    --------
    >>> import linclass
    >>> X, y, *_ = linclass.datasets.load_dataset('iris')
    >>> petals = X[:, 2:]  # length and width
    >>> model = linclass.QuadraticDiscriminantAnalysis().fit(petals, y)
    >>> fig = linclass.plot.gaussian_contours(model, petals, y)
    >>> len([a for a in fig.axes[0].get_children() if str(a.get_gid()).startswith('ellipse-')])
    9
    """
    path = canvas.begin(path)
    from matplotlib.patches import Ellipse

    record = _record(model, "gaussian_contours")
    means, covs = np.asarray(record.means, dtype=float), covariance_matrices(record)
    columns = X if hasattr(X, "columns") else np.empty((0, 2))
    if X is not None:
        X = as_two_features(X, "gaussian_contours")
    classes = _classes(model, len(means))
    colours = canvas.colours(len(means))
    fig, ax = canvas.new_axes(ax)
    if X is not None:
        if y is None:
            c = "0.6"
        else:
            c = [colours[i] for i in class_positions(classes, np.asarray(y), "y")]
        points = ax.scatter(X[:, 0], X[:, 1], c=c, s=12, alpha=0.7, edgecolors="none")
        points.set_gid("data")
    for k, (mu, sigma) in enumerate(zip(means, covs)):
        evals, evecs = np.linalg.eigh(sigma)
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
    canvas.class_legend(ax, classes, colours, loc="best", fontsize="small")
    names = axis_names(feature_names, model, columns)
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    ax.set_title(f"{type(model).__name__}: class densities at {', '.join(map(str, _SIGMAS))} sigma")
    canvas.save(fig, path)
    return fig


def gaussian_surface(model: Any, *, class_index: int | None = None,
                     feature_names: Sequence[str] | None = None, ax=None,
                     path: str | os.PathLike[str] | None = None) -> Figure:
    """3-D surface of a class-conditional density :math:`\\mathcal N(x \\mid \\mu_k, \\Sigma_k)`, or of
    the mixture :math:`p(x) = \\sum_k \\pi_k \\mathcal N(x \\mid \\mu_k, \\Sigma_k)`, (Bishop 2006 sec.
    2.3.9), drawn with mplot3d (``plot_surface``, view 30/30), coloured by class: the mixture's
    surface takes at each point the colour of the class of largest
    :math:`\\pi_k \\mathcal N(x \\mid \\mu_k, \\Sigma_k)` (the class the model predicts there), one
    class's surface its colour; the colours are those of :func:`gaussian_contours` and
    :func:`decision_regions`, with a legend.

    Parameters
    ----------
    model : fitted Gaussian model on two features (see :func:`gaussian_contours`)
    class_index : int, default=None
        Position in ``classes_`` of the class to draw; None draws the mixture, weighted by the
        model's priors (classes of prior zero left out).
    feature_names : sequence of two str, default=None
        Axis labels; default the model's ``feature_names_in_``, or x1, x2.
    ax : matplotlib 3-D Axes, default=None
        Where to draw (made with ``fig.add_subplot(projection='3d')``); None: a new figure.
    path : str or path-like ending in .png, .svg or .pdf, default=None

    Returns
    -------
    matplotlib.figure.Figure
        The surface has gid ``'density'``.

    Raises
    ------
    ValueError
        When a class drawn has a singular covariance (no density; regularise the model), or
        ``ax`` is not a 3-D Axes.

    See Also
    --------
    linclass.plot.gaussian_contours : The densities' contours on the plane.
    linclass.GaussianNB : A model whose densities it draws.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> import linclass
    >>> X, y = load_iris(return_X_y=True)
    >>> fig = linclass.plot.gaussian_surface(linclass.GaussianNB().fit(X[:, 2:], y), class_index=0,
    ...                                   feature_names=['petal length', 'petal width'])
    >>> fig.axes[0].name, fig.axes[0].get_xlabel()
    ('3d', 'petal length')
    """
    path = canvas.begin(path)
    Figure = canvas.figure_class()
    from scipy.special import logsumexp

    record = _record(model, "gaussian_surface")
    names = axis_names(feature_names, model, np.empty((0, 2)))
    if ax is not None and getattr(ax, "name", None) != "3d":
        raise ValueError("gaussian_surface draws on a 3-D Axes: make it with "
                         "fig.add_subplot(projection='3d').")
    means, covs = np.asarray(record.means, dtype=float), covariance_matrices(record)
    K = len(means)
    if class_index is not None and not (isinstance(class_index, (int, np.integer)) and 0 <= class_index < K):
        raise ValueError(f"class_index must be an integer in [0, {K}); got {class_index!r}.")
    log_priors = np.asarray(record.log_priors, dtype=float)
    if class_index is None:
        shown = [k for k in range(K) if np.isfinite(log_priors[k])]
    else:
        shown = [int(class_index)]
    sd = np.sqrt(np.array([np.diag(covs[k]) for k in shown]))
    lo = np.min(means[shown] - 3.5 * sd, axis=0)
    hi = np.max(means[shown] + 3.5 * sd, axis=0)
    xs, ys = np.linspace(lo[0], hi[0], _SURFACE_GRID), np.linspace(lo[1], hi[1], _SURFACE_GRID)
    xx, yy = np.meshgrid(xs, ys)
    points = np.column_stack([xx.ravel(), yy.ravel()])
    logp = class_log_density(record, points, classes=shown)
    classes = _classes(model, K)
    colours = np.asarray(canvas.colours(K))
    if class_index is None:
        joint = logp + log_priors[shown]
        owner = np.asarray(shown)[np.argmax(joint, axis=1)]  # the class of largest pi_k N_k(x)
        logp = logsumexp(joint, axis=1)
        title = r"mixture $p(x) = \sum_k \pi_k\,\mathcal{N}(x \mid \mu_k, \Sigma_k)$"
    else:
        logp = logp[:, 0]
        owner = np.full(points.shape[0], shown[0])
        title = rf"$p(x \mid C_k) = \mathcal{{N}}(x \mid \mu_k, \Sigma_k)$, class {classes[shown[0]]}"
    density = np.exp(logp).reshape(xx.shape)
    if ax is None:
        fig = Figure(figsize=(7, 6), layout="constrained")
        ax = fig.add_subplot(projection="3d")
    else:
        fig = canvas.root(ax)
    faces = colours[owner].reshape(xx.shape + (4,))
    surf = ax.plot_surface(xx, yy, density, facecolors=faces, edgecolor="none", alpha=0.85,
                           rcount=60, ccount=60, shade=True)
    surf.set_gid("density")
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    ax.set_zlabel("density")
    ax.set_zlim(0, float(density.max()) * 1.05)
    ax.view_init(30, 30)
    ax.set_title(title)
    canvas.class_legend(ax, classes[shown], colours[shown], loc="upper left", fontsize="small")
    # matplotlib 3.11 pads the surface's ragged faces with np.empty, and projecting that unset
    # memory may overflow (masked out afterwards, but warned about first, at random)
    with np.errstate(over="ignore", invalid="ignore"):
        canvas.save(fig, path)
    return fig
