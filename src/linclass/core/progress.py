"""Progress bars for long work: tqdm when it is installed (``pip install linclass[progress]``), shown
only on a terminal and only once the work has taken more than :data:`DELAY` seconds; otherwise
nothing.

Two kinds: :func:`progress` wraps an iterable whose length is known (the folds of a
cross-validation, the chunks of a pass over a file); :func:`counting` follows one fit whose steps
are counted as they happen: the fitting loops call :func:`tick` (a path's fits add their solver
iterations), and :class:`IterationTicks`, a scikit-learn callback (``set_callbacks``), ticks at
each iteration of a fit that reports them.  :func:`silenced` turns every bar off (the command's
``--quiet``).
"""

from __future__ import annotations

import contextlib
import sys
import threading

__all__ = ["DELAY", "IterationTicks", "counting", "progress", "silenced", "tick"]

#: seconds of work before a bar shows (shorter work shows none)
DELAY = 2.0
#: seconds between the redraws of a :func:`counting` bar that no tick has moved
_REFRESH = 0.5

_silent = False
_active = None  # the counter of the fit under way (see counting), or None
_lock = threading.Lock()


@contextlib.contextmanager
def silenced(on: bool = True):
    """No bar while inside (with ``on``): the command's ``--quiet``."""
    global _silent
    before, _silent = _silent, bool(on) or _silent
    try:
        yield
    finally:
        _silent = before


def _tqdm():
    """tqdm's class, or None when tqdm is not installed or the bars are silenced."""
    if _silent:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm


def progress(iterable, *, desc: str, enabled: bool = True, total: int | None = None):
    """Wrap ``iterable`` in a tqdm bar when tqdm is available and ``enabled``; else return it."""
    tqdm = _tqdm() if enabled else None
    if tqdm is None:
        return iterable
    # disable=None: off when stderr is not a terminal; delay: only for work that takes a while
    return tqdm(iterable, desc=desc, total=total, disable=None, delay=DELAY, leave=False)


def tick(n: int = 1) -> None:
    """Count ``n`` steps (iterations, fits, passes) of the work a :func:`counting` bar follows;
    nothing when none does (one global read: cheap enough for a solver's loop).  Safe from the
    threads that work for the fit (a cross-validation's folds)."""
    counter = _active
    if counter is not None and n:
        with _lock:
            counter.update(int(n))


@contextlib.contextmanager
def counting(desc: str, *, unit: str | None = "it", enabled: bool = True):
    """A bar for one piece of work of unknown length (a fit): the steps :func:`tick` counts, the
    seconds so far and the rate, on stderr when it is a terminal, from :data:`DELAY` seconds on
    (redrawn while no step is counted, so that a fit without steps to count still shows it is
    running); removed at the end.  ``unit`` None: work that counts no steps, only its seconds are
    shown.  Yields the bar (None without one)."""
    global _active
    tqdm = _tqdm() if enabled else None
    shape = {} if unit is not None else {"bar_format": "{desc}: {elapsed}"}
    bar = None if tqdm is None else tqdm(desc=desc, total=None, unit=f" {unit}", disable=None,
                                         delay=DELAY, leave=False, file=sys.stderr, **shape)
    if bar is not None and bar.disable:  # stderr is not a terminal
        bar.close()
        bar = None
    if bar is None:
        yield None
        return
    before, _active = _active, bar
    done = threading.Event()

    def redraw():  # tqdm draws only when it counts; a long step between counts would look stuck
        if done.wait(DELAY):
            return
        while not done.is_set():
            with _lock:
                bar.refresh()
            done.wait(_REFRESH)

    painter = threading.Thread(target=redraw, name="linclass-progress", daemon=True)
    painter.start()
    try:
        yield bar
    finally:
        done.set()
        painter.join()
        _active = before
        bar.close()


class IterationTicks:
    """A scikit-learn callback (``estimator.set_callbacks(IterationTicks())``, scikit-learn >= 1.9)
    that calls :func:`tick` at the end of each iteration (each subtask of the fit: see
    :mod:`linclass.estimators.logistic.callbacks`); it never stops the fit."""

    def setup(self, estimator, context):
        pass

    def teardown(self, estimator, context):
        pass

    def on_fit_task_begin(self, estimator, context):
        pass

    def on_fit_task_end(self, estimator, context, *, X=None):
        # an iteration (a subtask), not the whole fit nor the empty subtask left after the last
        if context.parent is not None and X is not None:
            tick()
        return False
