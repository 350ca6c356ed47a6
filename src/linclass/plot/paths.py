"""Regularisation-path figures, as glmnet users know them: the coefficients along a path of C
(:func:`coefficient_path`) and the cross-validation curve with its standard-error band
(:func:`cv_curve`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from linclass.plot import canvas

if TYPE_CHECKING:
    import os
    from collections.abc import Sequence

    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["coefficient_path", "cv_curve"]


#: labels at most, per panel, when every non-zero feature is drawn (``top=None``)
MAX_LABELS = 10
#: the vertical room of one label, in multiples of its font size
_LABEL_PITCH = 1.4


def coefficient_path(result: Any, *, feature_names: Sequence[str] | None = None,
                     top: int | None = 10, classes: Sequence[Any] | None = None,
                     ax: Axes | None = None, path: str | os.PathLike[str] | None = None) -> Figure:
    """The coefficients against :math:`\\log_{10} C` along a path (:func:`linclass.logistic_path`),
    the penalty weakening to the right; the number of non-zero features on the top axis.

    Only the ``top`` features of largest absolute coefficient at the weakest penalty (the path's
    largest C) are drawn, each labelled at its right end (labels are spread apart so that none
    overlap, with a thin leader to their line); a feature that is zero along the whole path is never
    drawn.  Two classes: one panel, the coefficients of the second class (its log-odds).  More
    classes: one panel per class, titled with the class, each with its own top features.

    Parameters
    ----------
    result : :class:`linclass.LogisticPath`
        ``coefs`` of shape (n_Cs, n_rows, n_features).
    feature_names : sequence of str, default=None
        Labels of the features (None: no labels).
    top : int or None, default=10
        Features drawn per panel, ranked by :math:`|w_j|` at the largest C (ties: the lower index).
        None: every feature that is non-zero somewhere on the path (thousands are cheap: each panel
        is one :class:`~matplotlib.collections.LineCollection`), in grey, the largest
        ``MAX_LABELS`` in colour and labelled.  Labels that do not fit a panel's height are left
        out, the smallest first.
    classes : sequence or None, default=None
        With more than two classes, the classes to draw (one panel each, in this order); None: all.
    ax : matplotlib Axes or sequence of Axes, default=None
        Where to draw: one Axes per panel (None: a new figure, panels in rows of four).
    path : str or path-like ending in .png, .svg or .pdf, default=None

    Returns
    -------
    matplotlib.figure.Figure
        Each panel's paths are one LineCollection with gid ``'path'`` whose ``features``
        attribute holds the drawn features' indices; the labels are texts with gid ``'label'``.

    See Also
    --------
    linclass.logistic_path : Computes the path.
    linclass.plot.cv_curve : The cross-validation curve along C.
    sklearn.linear_model.lars_path : scikit-learn's examples draw paths by hand; R's counterpart
        is ``plot(glmnet_fit)``.

    Examples
    --------
    >>> import linclass
    >>> X, y, *_ = linclass.datasets.load_dataset('breast_cancer')
    >>> path = linclass.logistic_path((X - X.mean(axis=0)) / X.std(axis=0), y, Cs=20)
    >>> fig = linclass.plot.coefficient_path(path, top=5)
    >>> type(fig).__name__
    'Figure'
    """
    path = canvas.begin(path)
    coefs, Cs = np.asarray(getattr(result, "coefs", None)), np.asarray(getattr(result, "Cs", None))
    if coefs.ndim != 3 or coefs.shape[0] != Cs.size:
        raise ValueError("coefficient_path needs a LogisticPath (linclass.logistic_path's result).")
    if top is not None and (not isinstance(top, (int, np.integer)) or top < 1):
        raise ValueError(f"top must be a positive int or None; got {top!r}.")
    if feature_names is not None and len(feature_names) != coefs.shape[2]:
        raise ValueError(f"feature_names has {len(feature_names)} names for {coefs.shape[2]} features.")
    order = np.argsort(Cs)
    x, coefs = np.log10(Cs[order]), coefs[order]
    labels = np.asarray(result.classes)
    rows, titles = _panels_of(coefs.shape[1], labels, classes)
    fig, axes = _axes(ax, len(rows))
    single = len(rows) == 1 and titles[0] is None
    placed = [_draw_panel(panel, x, coefs[:, k, :], top, feature_names, single)
              for panel, k in zip(axes, rows)]
    penalty = getattr(result, "penalty", None)
    heading = f"coefficient path ({penalty}, {Cs.size} values of C)"
    if single:
        axes[0].set_title(heading)
        axes[0].set_ylabel(f"coefficient (log-odds of class {labels[-1]})")
    else:
        for panel, title in zip(axes, titles):
            panel.set_title(title, fontsize=9)
        fig.suptitle(f"{heading}: one panel per class, its non-zero features counted on top")
        fig.supxlabel("log10 C  (weaker penalty to the right)", fontsize=9)
        fig.supylabel("coefficient", fontsize=9)
    fig.draw_without_rendering()  # the panels' final sizes, which the labels' spacing needs
    for panel, (ends, names, colours) in zip(axes, placed):
        _label_ends(panel, x[-1], ends, names, colours)
    canvas.save(fig, path)
    return fig


def _panels_of(n_rows: int, labels: np.ndarray, classes) -> tuple[list, list]:
    """(coefficient rows, panel titles): the single row of a binary path, or the chosen classes."""
    if n_rows == 1:
        return [0], [None]
    if classes is None:
        return list(range(n_rows)), [str(c) for c in labels]
    rows = []
    for c in classes:
        found = np.flatnonzero(labels.astype(str) == str(c))
        if found.size == 0:
            raise ValueError(f"class {c!r} is not one of the path's classes {list(labels)}.")
        rows.append(int(found[0]))
    return rows, [str(labels[k]) for k in rows]


def _axes(ax, n: int):
    """(figure, list of n Axes): the given ones, or a new figure of panels in rows of four."""
    Figure = canvas.figure_class()
    if ax is None:
        cols = min(n, 4)
        grid_rows = -(-n // cols)
        size = (6.4, 4.8) if n == 1 else (3.6 * cols + 0.8, 2.9 * grid_rows + 0.6)
        fig = Figure(figsize=size, layout="constrained")
        axes = list(np.ravel(fig.subplots(grid_rows, cols, squeeze=False)))
        for extra in axes[n:]:
            extra.remove()
        return fig, axes[:n]
    axes = list(np.ravel(ax)) if np.iterable(ax) else [ax]
    if len(axes) != n:
        raise ValueError(f"ax: one Axes per class drawn is needed ({n}); got {len(axes)}. Choose "
                         "the classes with classes=[...].")
    return canvas.root(axes[0]), axes


def _draw_panel(ax, x: np.ndarray, W: np.ndarray, top, feature_names, single: bool):
    """The paths of one row of coefficients ``W`` (n_Cs, n_features) in ``ax`` (``single``: the
    figure's only panel, with its own axis titles); returns what the labels need: (end values,
    names, colours) of the labelled features."""
    from matplotlib.collections import LineCollection

    weak = np.abs(W[-1])
    nonzero = np.flatnonzero(np.any(W != 0, axis=0))
    ranked = nonzero[np.argsort(-weak[nonzero], kind="stable")]
    drawn = ranked if top is None else ranked[:top]
    shown = drawn if top is not None else drawn[:MAX_LABELS]
    palette = canvas.colours(max(min(shown.size, 20), 1))
    colours = [palette[i % len(palette)] for i in range(shown.size)]
    colours += [(0.6, 0.6, 0.6, 0.6)] * (drawn.size - shown.size)
    segments = np.stack([np.broadcast_to(x, (drawn.size, x.size)), W[:, drawn].T], axis=-1)
    lines = LineCollection(segments[::-1], colors=colours[::-1], linewidths=1.0)  # largest on top
    lines.set_gid("path")
    lines.features = drawn[::-1]
    ax.add_collection(lines)
    ax.axhline(0.0, color="0.5", linewidth=0.5)
    ax.set_xlim(x[0], x[-1] if x[-1] > x[0] else x[0] + 1)
    low, high = (min(W[:, drawn].min(), 0.0), max(W[:, drawn].max(), 0.0)) if drawn.size else (0, 0)
    pad = 0.05 * (high - low) or 1.0
    ax.set_ylim(low - pad, high + pad)
    ax.grid(True, alpha=0.3)
    counts = np.count_nonzero(W, axis=1)
    top_axis = ax.secondary_xaxis("top")
    ticks = np.unique(np.linspace(0, x.size - 1, min(5, x.size)).astype(int))
    top_axis.set_xticks(x[ticks])
    top_axis.set_xticklabels([str(int(v)) for v in counts[ticks]], fontsize=7)
    ax.tick_params(labelsize=7)
    if single:
        ax.set_xlabel("log10 C  (weaker penalty to the right)")
        top_axis.set_xlabel("non-zero features")
    if feature_names is None:
        return W[-1, shown[:0]], [], []
    return W[-1, shown], [str(feature_names[j]) for j in shown], colours[:shown.size]


def _label_ends(ax, x_end: float, ends: np.ndarray, names: list, colours: list) -> None:
    """Each name to the right of the panel, as near its line's end as the others allow: spread in
    axes fraction so that none overlap (the largest kept when not all fit), with a leader line."""
    if not names:
        return
    fontsize = 7
    height_pt = ax.get_window_extent().height * 72.0 / canvas.root(ax).dpi
    pitch = _LABEL_PITCH * fontsize / max(height_pt, 1.0)  # one label's height, in axes fraction
    fit = min(len(names), int(1.0 // pitch))
    low, high = ax.get_ylim()
    target = (np.asarray(ends[:fit]) - low) / (high - low)
    order = np.argsort(target, kind="stable")
    y = _spread(target[order], pitch)
    for slot, i in zip(y, order):
        ax.annotate(names[i], xy=(x_end, ends[i]), xycoords="data", xytext=(1.03, slot),
                    textcoords="axes fraction", va="center", ha="left", fontsize=fontsize,
                    color="0.15", annotation_clip=False, gid="label",
                    arrowprops=dict(arrowstyle="-", color=colours[i], linewidth=0.6, shrinkA=0,
                                    shrinkB=0))


def _spread(y: np.ndarray, pitch: float) -> np.ndarray:
    """Increasing positions in [pitch/2, 1 - pitch/2], each at least ``pitch`` above the last and
    as close to the sorted targets ``y`` as that allows (one pass up, one pass down)."""
    y = np.clip(np.asarray(y, dtype=np.float64), pitch / 2, 1 - pitch / 2)
    for i in range(1, y.size):
        y[i] = max(y[i], y[i - 1] + pitch)
    y[-1] = min(y[-1], 1 - pitch / 2)
    for i in range(y.size - 2, -1, -1):
        y[i] = min(y[i], y[i + 1] - pitch)
    return y


def _chosen_ratio(model) -> int:
    """The row of ``cv_mean_`` of the chosen l1_ratio (``l1_ratios_`` may be ``[None]`` and
    ``l1_ratio_`` a float or an array, as ``use_legacy_attributes`` lays them out)."""
    ratios = np.ravel(model.l1_ratios_)
    if ratios.size == 1:
        return 0
    chosen = np.ravel(model.l1_ratio_)[0]
    found = [i for i, v in enumerate(ratios) if v is not None and chosen is not None
             and np.isclose(float(v), float(chosen))]
    return found[0] if found else 0


def _nonzero_counts(model, r: int) -> np.ndarray | None:
    """The number of features with a non-zero coefficient (for some class) at each C of
    ``Cs_`` (in its order) at ratio row ``r``: the median over the folds' paths, rounded (cv.glmnet
    counts them on its fit to all rows, which LogisticRegressionCV does not keep along the path).
    None when the model holds no paths."""
    paths = getattr(model, "coefs_paths_", None)
    n_features = getattr(model, "n_features_in_", None)
    if paths is None or n_features is None:
        return None
    if isinstance(paths, dict):  # class -> (n_folds, n_Cs, [n_l1_ratios,] n_dof)
        W = np.stack([np.asarray(a, dtype=float) for a in paths.values()])
        if W.ndim == 5:
            W = W[:, :, :, r, :]
        nonzero = np.any(W[..., :n_features] != 0, axis=0)  # (n_folds, n_Cs, n_features)
    else:  # (n_folds, n_l1_ratios, n_Cs, n_rows, n_dof)
        W = np.asarray(paths, dtype=float)[:, r]
        nonzero = np.any(W[..., :n_features] != 0, axis=2)
    return np.round(np.median(nonzero.sum(axis=-1), axis=0)).astype(int)


#: the most non-zero counts labelled on cv_curve's top axis (more would overlap)
_TOP_TICKS = 12


def cv_curve(model: Any, *, ax: Axes | None = None,
             path: str | os.PathLike[str] | None = None) -> Figure:
    """The mean held-out score against :math:`\\log_{10} C` with a band of one standard error of
    the mean over the folds (glmnet's ``plot(cv.glmnet)``), the best C (``C_min_``: glmnet's
    ``lambda.min``) and the most penalised C within one standard error of it (``C_1se_``) marked;
    ``C_`` is one of the two (``refit_rule``).  The top axis counts the non-zero features at each
    C, as ``plot.cv.glmnet``'s does (the median over the folds' fits; at most 12 values of C are
    labelled, evenly spaced along the path).

    Parameters
    ----------
    model : fitted :class:`linclass.LogisticRegressionCV`
    ax : matplotlib Axes, default=None
    path : str or path-like ending in .png, .svg or .pdf, default=None

    Returns
    -------
    matplotlib.figure.Figure
        The mean score is a line with gid ``'curve'``, the band around it has gid ``'band'``; the
        top axis of non-zero counts is a secondary x axis (``ax.child_axes``).

    See Also
    --------
    linclass.LogisticRegressionCV : The model whose curve it draws.
    linclass.plot.coefficient_path : The coefficients along C.
    sklearn.model_selection.ValidationCurveDisplay : scikit-learn's validation curve; R's
        counterpart is ``plot(cv.glmnet(...))``.

    Examples
    --------
    >>> import linclass
    >>> from sklearn.preprocessing import scale
    >>> X, y, *_ = linclass.datasets.load_dataset('breast_cancer')
    >>> model = linclass.LogisticRegressionCV(Cs=5, cv=3, l1_ratios=(1.0,))
    >>> fig = linclass.plot.cv_curve(model.fit(scale(X), y))
    >>> type(fig).__name__
    'Figure'
    """
    path = canvas.begin(path)
    scores = getattr(model, "relax_scores_", getattr(model, "scores_", None))
    if scores is None:
        raise ValueError("cv_curve needs a fitted LogisticRegressionCV (scores_ is missing).")
    # the best C: C_min_ (a model file of an earlier version: C_, a float or repeated per class)
    C = float(getattr(model, "C_min_", np.ravel(model.C_)[0]))
    r = _chosen_ratio(model)
    if hasattr(model, "cv_mean_"):  # cv.glmnet's cvm / cvsd (folds weighted by their weights)
        mean, se = model.cv_mean_[r], model.cv_se_[r]
    else:  # a model file of an earlier version
        folds = scores[:, r, :]
        mean = folds.mean(axis=0)
        se = folds.std(axis=0, ddof=1) / np.sqrt(folds.shape[0]) if folds.shape[0] > 1 else 0 * mean
    order = np.argsort(np.asarray(model.Cs_, dtype=float))  # Cs as given may be in any order
    x, mean, se = np.log10(np.asarray(model.Cs_, dtype=float))[order], mean[order], np.asarray(se)[order]
    counts = _nonzero_counts(model, r)
    fig, ax = canvas.new_axes(ax)
    if counts is not None:
        counts = counts[order]
        top_axis = ax.secondary_xaxis("top")
        ticks = np.arange(0, x.size, -(-x.size // _TOP_TICKS))  # evenly spaced along the path
        top_axis.set_xticks(x[ticks])
        top_axis.set_xticklabels([str(int(v)) for v in counts[ticks]], fontsize=8)
        top_axis.set_xlabel("non-zero features", fontsize=9)
    band = ax.fill_between(x, mean - se, mean + se, alpha=0.25, color="C0")
    band.set_gid("band")
    (line,) = ax.plot(x, mean, marker="o", markersize=3, color="C0")
    line.set_gid("curve")
    ax.axvline(np.log10(C), color="C3", linestyle="--", label=f"best C = {C:.3g}")
    ax.axvline(np.log10(model.C_1se_), color="C2", linestyle=":",
               label=f"C_1se_ = {model.C_1se_:.3g}")
    ax.set_xlabel("log10 C  (weaker penalty to the right)")
    scoring = model.scoring
    if not isinstance(scoring, str) and scoring is not None:
        ax.set_ylabel("held-out score")
    elif scoring == "neg_log_loss":
        ax.set_ylabel("held-out mean log-likelihood")
    else:
        ax.set_ylabel(f"held-out {'accuracy' if scoring in (None, 'warn') else scoring}")
    ax.set_title(f"{scores.shape[0]}-fold cross-validation, mean ± 1 standard error")
    ax.legend(loc="best", fontsize=8)
    ax.grid(True, alpha=0.3)
    canvas.save(fig, path)
    return fig
