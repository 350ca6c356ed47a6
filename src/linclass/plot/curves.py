"""The training-curve figure: a fitted model's objective per iteration or mistakes per epoch."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from linclass.plot import canvas

if TYPE_CHECKING:
    import os

    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["training_curve"]


def training_curve(model: Any, *, ax: Axes | None = None,
                   path: str | os.PathLike[str] | None = None) -> Figure:
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
        One Axes: the values as a line with gid ``'curve'`` against the iteration or epoch, the
        title saying whether the fit converged.

    See Also
    --------
    linclass.Perceptron : Its ``errors_`` per epoch are drawn.
    linclass.LogisticRegression : Its ``loss_curve_`` is drawn.
    sklearn.neural_network.MLPClassifier : scikit-learn's models record ``loss_curve_`` too, with
        no figure of it.

    Examples
    --------
    >>> import linclass
    >>> X, y, *_ = linclass.datasets.load_dataset('wine')
    >>> fig = linclass.plot.training_curve(linclass.Perceptron(random_state=0).fit(X, y))
    >>> len(fig.axes), fig.axes[0].get_xlabel()
    (1, 'epoch')
    """
    path = canvas.begin(path)
    title = canvas.model_name(model)
    if getattr(model, "loss_curve_", None) is None and getattr(model, "errors_", None) is None:
        model = getattr(model, "estimator_", model)  # inside StandardizedClassifier: its curve
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
    from matplotlib.ticker import MaxNLocator

    fig, ax = canvas.new_axes(ax)
    (line,) = ax.plot(steps, values, marker="o", markersize=3)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # iterations and epochs are whole
    line.set_gid("curve")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    converged = getattr(model, "converged_", None)
    note = "" if converged is None else (", converged" if converged else ", not converged")
    ax.set_title(f"{title}: {values.size} {xlabel}s recorded{note}")
    ax.grid(True, alpha=0.3)
    canvas.save(fig, path)
    return fig
