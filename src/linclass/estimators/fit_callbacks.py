"""scikit-learn's callback API (``sklearn.callback``, scikit-learn >= 1.9) for iterative fits.

``model.set_callbacks(ProgressBar(), ScoringMonitor(...))`` works as on scikit-learn's estimators:
the fit is one task, each solver iteration a subtask whose ``fitted_estimator`` predicts with that
iteration's coefficients, and a callback that returns True from ``on_fit_task_end`` stops the
iteration there.  With an older scikit-learn, :class:`CallbackSupport` is an empty mixin and
:func:`fit_task` does nothing, so the estimators work unchanged.
"""

from __future__ import annotations

__all__ = ["CallbackSupport", "FitTask", "fit_task", "with_callbacks"]

try:  # scikit-learn >= 1.9
    from sklearn.callback import CallbackSupportMixin as CallbackSupport
    from sklearn.callback import with_callbacks
except ImportError:  # pragma: no cover - depends on the installed scikit-learn

    class CallbackSupport:
        """scikit-learn without ``sklearn.callback``: no callbacks to support."""

    def with_callbacks(method):
        return method


class FitTask:
    """One fit reported to the estimator's callbacks.

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

    def begin(self) -> None:
        self.context.call_on_fit_task_begin(estimator=self.estimator, **self.data)

    def observer(self, name: str, attributes):
        """The solver's ``on_iteration`` hook: each iteration a subtask ``name``, begun and ended
        with the fitted attributes ``attributes(theta)`` of the iteration's parameters (built only
        when a callback asks for a ``fitted_estimator``).  Returns True to stop."""
        previous = {"theta": None}

        def on_iteration(theta) -> bool:
            sub = self.context.subcontext(task_name=name)
            start = previous["theta"]
            sub.call_on_fit_task_begin(
                estimator=self.estimator, **self.data,
                reconstruction_attributes=None if start is None else (lambda: attributes(start)),
            )
            stop = sub.call_on_fit_task_end(
                estimator=self.estimator, **self.data,
                reconstruction_attributes=lambda: attributes(theta),
            )
            previous["theta"] = theta.copy()
            self.stopped |= bool(stop)
            return bool(stop)

        return on_iteration

    def end(self) -> None:
        # the estimator itself is fitted now: nothing to reconstruct
        self.context.call_on_fit_task_end(estimator=self.estimator, **self.data,
                                          reconstruction_attributes={})


def fit_task(estimator, X, y, sample_weight, max_subtasks) -> FitTask | None:
    """Start the fit task of ``estimator`` if callbacks are set on it (None otherwise, which costs
    nothing).  ``max_subtasks``: the most iterations the fit can take (None: not known)."""
    if not getattr(estimator, "_skl_callbacks", None) or not hasattr(estimator, "_init_callback_context"):
        return None
    context = estimator._init_callback_context(max_subtasks=max_subtasks)
    metadata = None if sample_weight is None else {"sample_weight": sample_weight}
    task = FitTask(context, estimator, X, y, metadata)
    task.begin()
    return task
