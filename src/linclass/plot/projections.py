"""Fisher's figure: two classes projected on the mean difference and on Fisher's direction."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from linclass import registry
from linclass.plot import canvas
from linclass.plot.points import class_positions

if TYPE_CHECKING:
    import os
    from collections.abc import Sequence

    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from numpy.typing import ArrayLike

__all__ = ["fisher_figure"]


def _fisher_criterion(w: np.ndarray, m1: np.ndarray, m2: np.ndarray, Sw: np.ndarray) -> float:
    """:math:`J(w) = (w^T(m_2 - m_1))^2 / w^TS_Ww`, Bishop 2006 eq. 4.26 with eq. 4.27 and 4.28
    (:math:`S_W` the summed within-class scatter)."""
    return float((w @ (m2 - m1)) ** 2 / (w @ Sw @ w))


def fisher_figure(X: ArrayLike, y: ArrayLike, *, ax: Sequence[Axes] | None = None,
                  path: str | os.PathLike[str] | None = None) -> Figure:
    """As in Bishop 2006 figure 4.6: class histograms of the projections on the mean difference
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
        Two panels, mean difference then Fisher's direction; class k's histogram has gid
        ``'hist-k'``.

    See Also
    --------
    linclass.FisherDiscriminantAnalysis : Fisher's discriminant as a classifier.
    linclass.plot.decision_regions : The regions of any classifier on two features.
    sklearn.discriminant_analysis.LinearDiscriminantAnalysis : its ``transform`` gives the
        projection drawn here; scikit-learn has no such figure.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> import linclass
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> fig = linclass.plot.fisher_figure(X, y)
    >>> len(fig.axes)
    2
    """
    path = canvas.begin(path)
    Figure = canvas.figure_class()
    labels = np.unique(np.asarray(y))
    if labels.size != 2:
        raise ValueError(
            f"fisher_figure compares two classes; y has {labels.size}: {labels.tolist()[:10]}. "
            "Select two classes, or plot FisherDiscriminantAnalysis().fit_transform(X, y) instead."
        )
    fda = registry.by_alias("fisher").cls().fit(X, y)
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
        fig = canvas.root(axes[0])
    colours = canvas.colours(2)
    index = class_positions(fda.classes_, np.asarray(y), "y")
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
    canvas.save(fig, path)
    return fig
