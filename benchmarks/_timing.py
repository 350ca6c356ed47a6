"""Timing helpers shared by the benchmark scripts (run them from the repository root)."""

from __future__ import annotations

import time
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


def best_time(fn: Callable[[], object], repeat: int) -> float:
    """Minimum wall time of ``fn()`` over ``repeat`` runs, after one untimed warm-up run."""
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def quiet(fn: Callable[[], object]) -> Callable[[], object]:
    """Wrap ``fn`` so that warnings it raises (scikit-learn's) are not printed."""

    def wrapped():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn()

    return wrapped


@dataclass
class Measurement:
    """Fit / predict_proba timings and quality of one fitted model."""

    fit_s: float
    proba_s: float
    accuracy: float
    proba_test: np.ndarray


def measure(factory: Callable[[], object], data, repeat: int, silence: bool = False) -> Measurement:
    """Time ``fit`` and ``predict_proba`` (both on X_train) and score on the held-out set."""
    X, y, X_test, y_test = data
    model = factory()
    fit = lambda: model.fit(X, y)  # noqa: E731
    proba = lambda: model.predict_proba(X)  # noqa: E731
    predict = lambda: model.predict(X_test)  # noqa: E731
    proba_test = lambda: model.predict_proba(X_test)  # noqa: E731
    if silence:
        fit, proba, predict, proba_test = quiet(fit), quiet(proba), quiet(predict), quiet(proba_test)
    fit_s = best_time(fit, repeat)
    proba_s = best_time(proba, repeat)
    return Measurement(
        fit_s=fit_s,
        proba_s=proba_s,
        accuracy=float(np.mean(predict() == y_test)),
        proba_test=np.asarray(proba_test()),
    )


def limit_blas_threads(threads: int | None):
    """A context in which BLAS uses ``threads`` threads (None: leave it as it is).

    On a machine shared with other jobs, threaded BLAS calls wait for every thread to be scheduled:
    one thread gives steadier ratios (``--threads 1``), the default shows what a user gets."""
    from contextlib import nullcontext

    if threads is None:
        return nullcontext()
    import scipy.linalg  # noqa: F401 - SciPy's own BLAS loaded first (linclass imports it lazily)
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=threads, user_api="blas")


def blas_threads() -> str:
    import scipy.linalg  # noqa: F401 - so that SciPy's BLAS is listed too
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "unknown (threadpoolctl not installed)"
    pools = [p for p in threadpool_info() if p.get("user_api") == "blas"]
    if not pools:
        return "unknown"
    return ", ".join(f"{p['prefix']} ({p['internal_api']})={p['num_threads']}" for p in pools)


def fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


@dataclass
class Row:
    """One linclass model and its scikit-learn peers (zero or more variants)."""

    name: str
    ours: Callable[[], object]
    theirs: dict[str, Callable[[], object]] = field(default_factory=dict)


@dataclass
class Result:
    """Everything measured for one row (``ours`` is None if the linclass model raised)."""

    name: str
    ours: Measurement | None
    theirs: dict[str, Measurement]
    error: str | None = None

    def best_theirs(self, attr: str) -> tuple[str, float] | None:
        """(variant, seconds) of the fastest scikit-learn variant for ``attr``, if any."""
        if not self.theirs:
            return None
        variant = min(self.theirs, key=lambda v: getattr(self.theirs[v], attr))
        return variant, getattr(self.theirs[variant], attr)

    def speedup(self, attr: str) -> float | None:
        best = self.best_theirs(attr)
        if best is None or self.ours is None:
            return None
        return best[1] / getattr(self.ours, attr)


def run_row(row: Row, data, repeat: int) -> Result:
    error = None
    try:
        ours = measure(row.ours, data, repeat)
    except Exception:  # report the traceback and go on with the other models
        error = traceback.format_exc()
        print(f"linclass {row.name} raised:\n{error}")
        ours = None
    theirs = {label: measure(f, data, repeat, silence=True) for label, f in row.theirs.items()}
    return Result(row.name, ours, theirs, error)


def bracketed_floor(floor: Callable[[], object], run: Callable[[], object], repeat: int) -> tuple:
    """Time ``floor`` before and after ``run()`` (the models); return ``(run(), before, after)``.

    A large gap between the two floor times means the machine was busy during the run; the
    smaller one is the floor to divide by.
    """
    before = best_time(floor, repeat)
    out = run()
    return out, before, best_time(floor, repeat)


def print_targets(targets: list[tuple[str, float | None, Callable[[float], bool]]], width: int) -> None:
    """Print ``(description, measured ratio or None, passes)`` rows as PASS / FAIL lines."""
    print("targets")
    for description, value, passes in targets:
        if value is None:
            print(f"  FAIL  {description:<{width}} measured - (linclass model raised)")
        else:
            print(f"  {'PASS' if passes(value) else 'FAIL'}  {description:<{width}} measured {value:.2f}x")
