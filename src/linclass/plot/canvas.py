"""matplotlib plumbing shared by the figures: the optional import, figures and axes, colours,
legends, artist tags, and saving.

matplotlib is imported here only inside the functions, so importing the figures costs nothing until
one is drawn.  Figures are :class:`matplotlib.figure.Figure` objects (never pyplot's global state),
so they work headless and from threads.
"""

from __future__ import annotations

import os

import numpy as np

from linclass.io.atomic import atomic_write

__all__ = ["FORMATS", "begin", "check_path", "class_legend", "colours", "figure_class", "model_name",
           "new_axes", "root", "save", "tag"]

#: the file types a figure can be saved as
FORMATS = (".png", ".svg", ".pdf")


def figure_class():
    """:class:`matplotlib.figure.Figure`, or an ImportError that says how to install matplotlib."""
    try:
        import matplotlib  # noqa: F401  (first: its submodules may be cached while it is blocked)
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError(
            "linclass.plot needs matplotlib, an optional dependency: pip install linclass[plot]"
        ) from exc
    return Figure


def check_path(path) -> str | None:
    """``path`` as a string, refused unless it ends in one of :data:`FORMATS` (None passes)."""
    if path is None:
        return None
    path = os.fspath(path)
    if os.path.splitext(path)[1].lower() not in FORMATS:
        raise ValueError(f"path must end in one of {', '.join(FORMATS)}; got {path!r}.")
    return path


def begin(path) -> str | None:
    """What every figure function does first: an ImportError when matplotlib is missing
    (:func:`figure_class`), then ``path`` checked (:func:`check_path`) and returned."""
    figure_class()
    return check_path(path)


def save(fig, path: str | None) -> None:
    """Write ``fig`` to ``path`` (nothing when None) through :func:`linclass.io.atomic.atomic_write`,
    so a reader never sees a half-written figure; the format is the file's extension."""
    if path is None:
        return
    fmt = os.path.splitext(path)[1][1:].lower()
    atomic_write(path, lambda handle: fig.savefig(handle, format=fmt))


def root(ax):
    """The top-level Figure holding ``ax`` (also inside a SubFigure)."""
    try:
        return ax.get_figure(root=True)
    except TypeError:  # matplotlib < 3.10: a SubFigure's .figure is the root
        fig = ax.get_figure()
        return getattr(fig, "figure", fig)


def new_axes(ax, figsize=(6.4, 4.8)):
    """(figure, axes): a new Figure with one Axes, or the root figure of the given Axes."""
    Figure = figure_class()
    if ax is None:
        fig = Figure(figsize=figsize, layout="constrained")
        return fig, fig.add_subplot()
    return root(ax), ax


def model_name(model) -> str:
    """How a figure's title names ``model``: its class, or for a model inside the standardising
    wrapper (:class:`linclass.StandardizedClassifier`, the command's ``--scale``) the inner
    model's class, "(standardised features)" added."""
    inner = getattr(model, "estimator_", None)
    if inner is not None and hasattr(model, "scale_") and hasattr(model, "mean_"):
        return f"{type(inner).__name__} (standardised features)"
    return type(model).__name__


def tag(artist, gid: str) -> None:
    """Set the gid of a ContourSet (an Artist from matplotlib 3.8; a list of collections before)."""
    from matplotlib.artist import Artist

    for part in [artist] if isinstance(artist, Artist) else artist.collections:
        part.set_gid(gid)


def colours(n: int) -> list:
    """``n`` distinguishable class colours (tab10, tab20, then samples of turbo)."""
    import matplotlib

    if n <= 10:
        return [matplotlib.colormaps["tab10"](i) for i in range(n)]
    if n <= 20:
        return [matplotlib.colormaps["tab20"](i) for i in range(n)]
    return list(matplotlib.colormaps["turbo"](np.linspace(0.05, 0.95, n)))


def class_legend(ax, classes, class_colours, **kwargs) -> None:
    """A legend of one round marker per class."""
    from matplotlib.lines import Line2D

    handles = [
        Line2D([], [], linestyle="none", marker="o", markersize=7, markerfacecolor=c,
               markeredgecolor="k", label=str(label))
        for label, c in zip(classes, class_colours)
    ]
    ax.legend(handles=handles, title="class", **kwargs)
