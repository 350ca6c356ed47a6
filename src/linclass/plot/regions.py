"""The decision-regions figure: the predicted class over the plane, its boundaries, the exact
hyperplane of a two-class linear model, a wrapper's ambiguous region, and the data."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from linclass.geometry import hyperplanes
from linclass.plot import canvas
from linclass.plot.points import as_two_features, axis_names, class_positions, model_input

if TYPE_CHECKING:
    import os

    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from numpy.typing import ArrayLike

__all__ = ["decision_regions"]


def decision_regions(model: Any, X: ArrayLike, y: ArrayLike | None = None, *,
                     feature_names: Sequence[str] | None = None, resolution: int = 300,
                     ax: Axes | None = None, path: str | os.PathLike[str] | None = None) -> Figure:
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
        The predicted classes are a mesh with gid ``'regions'``, the points a collection with gid
        ``'data'``, the exact hyperplane (when drawn) a line with gid ``'hyperplane'``.

    See Also
    --------
    linclass.plot.gaussian_contours : The class densities of a Gaussian model.
    linclass.geometry.hyperplanes : The boundaries of a linear model as equations.
    sklearn.inspection.DecisionBoundaryDisplay : scikit-learn's decision-boundary figure.

    Notes
    -----
    Boundaries are contours of the predicted-class map, so they are right for any classifier.  When
    the model has two classes and one hyperplane :math:`w^Tx + w_0 = 0` in the plotted plane
    (:func:`linclass.geometry.hyperplanes`, Bishop 2006 sec. 4.1.1) whose sides agree with
    ``predict`` on the grid, that exact hyperplane is drawn as well (dashed).  A model with
    ``ambiguous(X) -> bool mask`` (the one-versus-rest and one-versus-one wrappers, Bishop 2006
    fig. 4.2) gets its ambiguous cells hatched grey and their share of the plotted area in the title.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> import linclass
    >>> X, y = load_iris(return_X_y=True)
    >>> X2 = X[:, 2:]  # two features: petal length and width
    >>> model = linclass.LogisticRegression().fit(X2, y)
    >>> fig = linclass.plot.decision_regions(model, X2, y,
    ...                                      feature_names=['petal length', 'petal width'])
    >>> fig.axes[0].get_xlabel()
    'petal length'
    """
    path = canvas.begin(path)
    names = axis_names(feature_names, model, X)
    X = as_two_features(X, "decision_regions")
    n_in = getattr(model, "n_features_in_", 2)
    if n_in != 2:
        raise ValueError(f"decision_regions draws two features, but the model was fitted on {n_in}.")
    if int(resolution) != resolution or resolution < 2:
        raise ValueError(f"resolution must be an integer >= 2; got {resolution!r}.")
    resolution = int(resolution)
    fig, ax = canvas.new_axes(ax)

    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = np.where(hi > lo, 0.05 * (hi - lo), 0.5)
    xs = np.linspace(lo[0] - pad[0], hi[0] + pad[0], resolution)
    ys = np.linspace(lo[1] - pad[1], hi[1] + pad[1], resolution)
    xx, yy = np.meshgrid(xs, ys)
    grid = np.column_stack([xx.ravel(), yy.ravel()])
    predicted = np.asarray(model.predict(model_input(model, grid)))
    if hasattr(model, "classes_"):
        classes = np.asarray(model.classes_)
    else:
        classes = np.unique(predicted if y is None else np.concatenate([predicted, np.asarray(y)]))
    K = len(classes)
    colours = canvas.colours(K)
    Z = class_positions(classes, predicted, "the model's predictions").reshape(xx.shape)

    from matplotlib.colors import ListedColormap

    mesh = ax.pcolormesh(xs, ys, Z, cmap=ListedColormap(colours), vmin=-0.5, vmax=K - 0.5,
                         alpha=0.25, shading="nearest", rasterized=True)
    mesh.set_gid("regions")
    # contours of the class indicators at 1/2: each boundary lies midway between cells of two
    # classes (with two classes present one indicator draws them all)
    present = np.unique(Z)
    for k in present[:1] if present.size == 2 else present if present.size > 2 else []:
        cs = ax.contour(xs, ys, (Z == k).astype(float), levels=[0.5], colors="k", linewidths=1.2)
        canvas.tag(cs, "boundary")
    if K == 2:
        _hyperplane(ax, model, grid, Z.ravel())

    title = canvas.model_name(model)
    if callable(getattr(model, "ambiguous", None)):
        mask = np.asarray(model.ambiguous(model_input(model, grid)), dtype=bool).reshape(xx.shape)
        if mask.any():
            shade = ax.contourf(xs, ys, mask.astype(float), levels=[0.5, 1.5], colors=["0.55"],
                                alpha=0.45, hatches=["///"])
            canvas.tag(shade, "ambiguous")
        title += f": ambiguous region {mask.mean():.1%} of the plotted area"

    if y is None:
        labels = class_positions(classes, np.asarray(model.predict(model_input(model, X))), "predict(X)")
    else:
        labels = class_positions(classes, np.asarray(y), "y")
    if len(labels) != len(X):
        raise ValueError(f"X has {len(X)} rows but y has {len(labels)} labels.")
    points = ax.scatter(X[:, 0], X[:, 1], c=[colours[i] for i in labels], s=18, edgecolors="k",
                        linewidths=0.5, zorder=3)
    points.set_gid("data")
    canvas.class_legend(ax, classes, colours, loc="best", fontsize="small")
    ax.set_xlim(xs[0], xs[-1])
    ax.set_ylim(ys[0], ys[-1])
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    ax.set_title(title)
    canvas.save(fig, path)
    return fig


def _hyperplane(ax, model, grid: np.ndarray, Z: np.ndarray) -> None:
    """Draw the two-class model's hyperplane :math:`w^Tx + w_0 = 0`, as
    :func:`~linclass.geometry.hyperplanes` gives it, when its positive side is where the
    model predicts ``classes_[1]`` (``Z == 1``) on the grid."""
    try:
        H = hyperplanes(model)
    except (TypeError, ValueError, AttributeError):
        return  # not a linear classifier (or not one the geometry can read): no hyperplane
    if len(H) != 1 or H.w.shape[1] != 2 or not np.any(H.w):
        return
    w, b = H.w[0], float(H.w0[0])
    if np.mean((grid @ w + b > 0) == (Z == 1)) < 0.99:  # w lives in another space than the plane
        return
    p0 = -b * w / (w @ w)
    line = ax.axline(tuple(p0), tuple(p0 + np.array([-w[1], w[0]])), color="k", linestyle="--",
                     linewidth=1.0)
    line.set_gid("hyperplane")
