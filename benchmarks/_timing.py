"""Timing helpers shared by the benchmark scripts (run them from the repository root)."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

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


def blas_threads() -> str:
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
