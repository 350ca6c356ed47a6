"""What the command shows of a long chunked fit or prediction: the passes over the data it makes
(counted, and with ``--verbose`` one line each on stderr) and, when stderr is a terminal and tqdm is
installed, a progress bar over the chunks of each pass: :class:`CountedSource`, the reporter of
:mod:`linclass.sources.pass_report` that estimators' ``verbose=`` uses too."""

from __future__ import annotations

import contextlib

from linclass.core.progress import IterationTicks, counting
from linclass.sources.pass_report import PassReport, say

__all__ = ["CountedSource", "say", "watching"]


class CountedSource(PassReport):
    """A chunk source (:class:`linclass.sources.files.FileSource`) whose complete passes over the
    data are counted in :attr:`passes`; ``verbose`` says each on stderr as it ends (rows, chunks,
    whether the files were decoded or the cache of decoded blocks read, seconds), and a progress
    bar shows the chunks of a pass on a terminal.  :attr:`rows` is the number of rows of a
    complete pass."""


# the models whose fits count their steps without callbacks: a path's fits tick their iterations
_TICKING = frozenset({"LogisticRegressionCV"})


def _parts(model):
    """The model and the estimators it wraps (--scale's StandardizedClassifier, one-vs-rest)."""
    inner = getattr(model, "estimator", None)
    return [model] + ([] if inner is None else _parts(inner))


@contextlib.contextmanager
def watching(model, desc: str):
    """A progress bar (:func:`linclass.core.progress.counting`) over an in-memory fit of
    ``model``: the iterations so far where the fit reports them (scikit-learn callbacks on a
    logistic model, also inside --scale's wrapper and one-vs-rest, which clone it with them; a
    path's fits for the cross-validated model), else its seconds only.  The callbacks are removed
    afterwards."""
    ticks = IterationTicks()
    attached = []
    for part in _parts(model):
        if hasattr(part, "set_callbacks") and type(part).__name__ not in _TICKING:
            try:
                part.set_callbacks(ticks)
            except TypeError:  # a scikit-learn without the callback API
                continue
            attached.append(part)
    counts = bool(attached) or any(type(p).__name__ in _TICKING for p in _parts(model))
    try:
        with counting(desc, unit="iterations" if counts else None):
            yield
    finally:
        for part in attached:
            part.set_callbacks()
