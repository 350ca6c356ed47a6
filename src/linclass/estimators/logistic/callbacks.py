"""scikit-learn's callback API (``sklearn.callback``, scikit-learn >= 1.9) for iterative fits.

``model.set_callbacks(ProgressBar(), ScoringMonitor(...))`` works as on scikit-learn's estimators,
with the task tree scikit-learn 1.9's ``LogisticRegression(solver='lbfgs')`` reports, for every
solver:

* the fit is the root task, of at most ``max_subtasks`` subtasks
  (:func:`linclass.linear.fitting.choice.subtask_bound`: ``max(max_iter, 1) + 1`` as
  scikit-learn's, twice the iterations for 'auto', which may go on with Newton after L-BFGS, and
  for an unpenalised fit, which may be refitted without its aliased columns);
* each solver iteration is a subtask named after its solver ('lbfgs-iter', 'newton-iter',
  'cd-iter', ...), begun with the fitted attributes where the iteration starts and ended with those
  where it ends, so the subtask's ``fitted_estimator`` at its end predicts as the same fit with
  ``max_iter`` equal to the iterations done (the first begins at the starting point);
* after the last iteration one more subtask is begun and ended empty (no data, no
  ``fitted_estimator``), as scikit-learn's L-BFGS leaves one, so a fit of n iterations reports
  ``max(n, 1) + 1`` subtasks (a fit of none reports its start as one);
* a callback that returns True from ``on_fit_task_end`` stops the iteration there (no subtask is
  begun after it).

With an older scikit-learn, :class:`CallbackSupport` is an empty mixin and :func:`fit_task` does
nothing, so the estimators work unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

__all__ = ["CallbackSupport", "FitTask", "fit_task", "with_callbacks"]

try:  # scikit-learn >= 1.9
    from sklearn.callback import CallbackSupportMixin as CallbackSupport
    from sklearn.callback import with_callbacks as _with_callbacks
except ImportError:  # pragma: no cover - depends on the installed scikit-learn

    class CallbackSupport:
        """scikit-learn without ``sklearn.callback``: no callbacks to support."""

    def _with_callbacks(method):
        return method

_Method = TypeVar("_Method", bound=Callable[..., Any])


def with_callbacks(method: _Method) -> _Method:
    """scikit-learn's ``with_callbacks`` (the method itself without it), typed so that type
    checkers keep the decorated method's signature (scikit-learn ships no type hints)."""
    return _with_callbacks(method)


def _frozen(state):
    """A copy of a solver's state (an array, or a tuple of arrays), kept past the iteration."""
    if isinstance(state, tuple):
        return tuple(np.array(s, copy=True) for s in state)
    return np.array(state, copy=True)


class FitTask:
    """One fit reported to the estimator's callbacks (the module docstring says what it reports).

    Parameters
    ----------
    context : sklearn.callback.CallbackContext
        The root context of the fit.
    estimator : the estimator being fitted
    X, y, metadata : what the hooks receive as the training data (``metadata`` holds
        ``sample_weight`` when it is given)
    """

    def __init__(self, context, estimator, X, y, metadata):
        self.context, self.estimator = context, estimator
        self.data = {"X": X, "y": y, "metadata": metadata}
        self.stopped = False  # a callback asked the iteration to stop
        self.iterations = 0  # reported so far
        self._open = None  # the subtask begun and not yet ended
        self._begun = 0  # subtasks begun
        self._start = None  # (name, attributes at the start) of the first subtask

    def begin(self) -> None:
        self.context.call_on_fit_task_begin(estimator=self.estimator, **self.data)

    def _begin_subtask(self, name: str, attributes) -> None:
        """Begin the next subtask, unless the root's bound is reached (an unpenalised fit that is
        refitted without its aliased columns reports the refit's iterations after the first
        fit's; any iteration past the bound is not reported)."""
        limit = self.context.max_subtasks
        if limit is not None and self._begun >= limit:
            return
        self._begun += 1
        self._open = self.context.subcontext(task_name=name)
        self._open.call_on_fit_task_begin(estimator=self.estimator, **self.data,
                                          reconstruction_attributes=attributes)

    def start(self, name: str, state, attributes) -> None:
        """The iteration starts at ``state`` (the solver's parameters): begin the first subtask,
        ``name``, with ``attributes(state)`` (the fitted attributes there, built only when a
        callback asks for a ``fitted_estimator``).  Nothing when a subtask is open already (a
        refit goes on where the fit before it stopped)."""
        if self._open is not None or self.stopped:
            return
        state = _frozen(state)
        self._start = (name, lambda: attributes(state))
        self._begin_subtask(name, self._start[1])

    def observer(self, name: str, attributes):
        """The solver's ``on_iteration`` hook: end the open subtask at the iteration's parameters
        ``state`` with ``attributes(state)``, then begin the next subtask, ``name``, there.
        Returns True to stop (nothing is begun then)."""

        def on_iteration(state) -> bool:
            at = lambda: attributes(state)  # noqa: E731 (evaluated inside the hooks)
            self.iterations += 1
            if self._open is not None:
                stop = bool(self._open.call_on_fit_task_end(
                    estimator=self.estimator, **self.data, reconstruction_attributes=at))
                self._open = None
                self.stopped |= stop
            if self.stopped:
                return True
            self._begin_subtask(name, at)
            return False

        return on_iteration

    def end(self) -> None:
        """End the fit: a fit without iterations ends its first subtask at the start and begins
        one more; the subtask left open is ended empty (as scikit-learn's L-BFGS ends the one its
        last iteration began); then the fit itself, whose estimator is fitted now (nothing to
        reconstruct)."""
        if self.iterations == 0 and self._open is not None and self._start is not None:
            name, at = self._start
            self._open.call_on_fit_task_end(estimator=self.estimator, **self.data,
                                            reconstruction_attributes=at)
            self._open = None
            self._begin_subtask(name, at)
        if self._open is not None:
            self._open.call_on_fit_task_end(estimator=self.estimator)
            self._open = None
        self.context.call_on_fit_task_end(estimator=self.estimator, **self.data,
                                          reconstruction_attributes={})


def fit_task(estimator, X, y, sample_weight, max_subtasks) -> FitTask | None:
    """Start the fit task of ``estimator`` if callbacks are set on it (None otherwise, which costs
    nothing).  ``max_subtasks``: the most subtasks the fit reports (None: not known)."""
    if not getattr(estimator, "_skl_callbacks", None) or not hasattr(estimator, "_init_callback_context"):
        return None
    context = estimator._init_callback_context(max_subtasks=max_subtasks)
    metadata = None if sample_weight is None else {"sample_weight": sample_weight}
    task = FitTask(context, estimator, X, y, metadata)
    task.begin()
    return task
