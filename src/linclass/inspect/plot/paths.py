"""Regularisation-path figures, as glmnet users know them: the coefficients along a path of C
(:func:`coefficient_path`) and the cross-validation curve with its standard-error band
(:func:`cv_curve`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from linclass.inspect.plot import canvas

__all__ = ["coefficient_path", "cv_curve"]


def coefficient_path(result: Any, *, feature_names=None, ax=None, path=None):
    """Each coefficient against :math:`\\log_{10} C` along a path (:func:`linclass.logistic_path`),
    the penalty weakening to the right; the number of non-zero features on the top axis.

    Parameters
    ----------
    result : :class:`linclass.LogisticPath`
        ``coefs`` of shape (n_Cs, n_rows, n_features): one line per feature (and class, for K > 2,
        drawn in the class's colour).
    feature_names : sequence of str, default=None
        Label the features that are non-zero at the weakest penalty (at most 10).
    ax : matplotlib Axes, default=None
    path : str or path-like ending in .png, .svg or .pdf, default=None

    Returns
    -------
    matplotlib.figure.Figure
    """
    canvas.figure_class()
    path = canvas.check_path(path)
    coefs, Cs = np.asarray(getattr(result, "coefs", None)), np.asarray(getattr(result, "Cs", None))
    if coefs.ndim != 3 or coefs.shape[0] != Cs.size:
        raise ValueError("coefficient_path needs a LogisticPath (linclass.logistic_path's result).")
    order = np.argsort(Cs)
    x = np.log10(Cs[order])
    fig, ax = canvas.new_axes(ax)
    rows = coefs.shape[1]
    for k in range(rows):
        colour = None if rows == 1 else f"C{k}"
        lines = ax.plot(x, coefs[order, k, :], color=colour, linewidth=1)
        for line in lines:
            line.set_gid("path")
    if feature_names is not None and rows == 1:
        last = coefs[order[-1], 0]
        for j in np.argsort(-np.abs(last))[:10]:
            if last[j] != 0:
                ax.annotate(str(feature_names[j]), (x[-1], last[j]), fontsize=7,
                            xytext=(3, 0), textcoords="offset points", va="center")
    ax.axhline(0.0, color="0.5", linewidth=0.5)
    ax.set_xlabel("log10 C  (weaker penalty to the right)")
    ax.set_ylabel("coefficient")
    top = ax.secondary_xaxis("top")
    ticks = np.linspace(0, x.size - 1, min(6, x.size)).astype(int)
    top.set_xticks(x[ticks])
    top.set_xticklabels([str(int(v)) for v in np.asarray(result.n_nonzero)[order][ticks]])
    top.set_xlabel("non-zero features")
    penalty = getattr(result, "penalty", None)
    ax.set_title(f"coefficient path ({penalty}, {Cs.size} values of C)")
    ax.grid(True, alpha=0.3)
    canvas.save(fig, path)
    return fig


def cv_curve(model: Any, *, ax=None, path=None):
    """The mean held-out score against :math:`\\log_{10} C` with a band of one standard error of
    the mean over the folds (glmnet's ``plot(cv.glmnet)``), the chosen ``C_`` and the most
    penalised C within one standard error of it (``C_1se_``) marked.

    Parameters
    ----------
    model : fitted :class:`linclass.LogisticRegressionCV`
    ax : matplotlib Axes, default=None
    path : str or path-like ending in .png, .svg or .pdf, default=None

    Returns
    -------
    matplotlib.figure.Figure
    """
    canvas.figure_class()
    path = canvas.check_path(path)
    scores = getattr(model, "scores_", None)
    if scores is None:
        raise ValueError("cv_curve needs a fitted LogisticRegressionCV (scores_ is missing).")
    r = int(np.flatnonzero(np.asarray(model.l1_ratios_) == model.l1_ratio_)[0])
    folds = scores[:, r, :]
    mean = folds.mean(axis=0)
    se = folds.std(axis=0, ddof=1) / np.sqrt(folds.shape[0]) if folds.shape[0] > 1 else 0 * mean
    x = np.log10(model.Cs_)
    fig, ax = canvas.new_axes(ax)
    band = ax.fill_between(x, mean - se, mean + se, alpha=0.25, color="C0")
    band.set_gid("band")
    (line,) = ax.plot(x, mean, marker="o", markersize=3, color="C0")
    line.set_gid("curve")
    ax.axvline(np.log10(model.C_), color="C3", linestyle="--", label=f"C_ = {model.C_:.3g}")
    ax.axvline(np.log10(model.C_1se_), color="C2", linestyle=":",
               label=f"C_1se_ = {model.C_1se_:.3g}")
    ax.set_xlabel("log10 C  (weaker penalty to the right)")
    ax.set_ylabel("held-out score" if model.scoring is not None else "held-out mean log-likelihood")
    ax.set_title(f"{folds.shape[0]}-fold cross-validation, mean ± 1 standard error")
    ax.legend(loc="best", fontsize=8)
    ax.grid(True, alpha=0.3)
    canvas.save(fig, path)
    return fig
