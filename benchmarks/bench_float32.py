"""float32 X against float64 X, in one process: LDA and LogisticRegression fits (issue 29's goal row).

The problem: n=200,000 rows, d=100 standardised Gaussian features, two classes a small mean shift
apart.  The float64 fits are given the float32 values converted to float64 (the same numbers), so that
the comparison measures the arithmetic only.  Each round fits float64 then float32 (interleaved, so
that a busy machine slows both alike), with one BLAS thread, timing CPU seconds
(``time.process_time``); the ratios reported are float64 / float32 of the fastest round of each
and the median over rounds of each round's ratio.  The floor (``X.T @ X`` in each dtype) is timed
in the same rounds.  Also printed: the largest difference of ``predict_proba`` between the two fits
and the dtype of ``coef_``.

Run from the repository root::

    .venv/bin/python benchmarks/bench_float32.py [--n 200000] [--d 100] [--rounds 15]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import linclass

from _timing import blas_threads, limit_blas_threads  # benchmarks/ is on sys.path when run as a script
from _timing import print_targets

GOAL = 1.7  # float64 time / float32 time
MODELS = {
    "LDA": lambda: linclass.LinearDiscriminantAnalysis(),
    "LogisticRegression": lambda: linclass.LogisticRegression(),
}


def make_problem(n: int, d: int, seed: int):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.standard_normal((n, d)) + 0.3 * y[:, None] * rng.standard_normal(d)
    X32 = X.astype(np.float32)
    return X32, X32.astype(np.float64), y


def cpu_seconds(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--d", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    X32, X64, y = make_problem(args.n, args.d, args.seed)
    with limit_blas_threads(1):
        print(f"n={args.n} d={args.d}, one BLAS thread ({blas_threads()}), CPU seconds, "
              f"{args.rounds} interleaved rounds")
        tasks = {"floor": (lambda: X64.T @ X64, lambda: X32.T @ X32)}
        for name, make in MODELS.items():
            tasks[name] = (lambda make=make: make().fit(X64, y), lambda make=make: make().fit(X32, y))
        for f64, f32 in tasks.values():  # warm-up (compiled loops, caches)
            f64(), f32()
        times = {name: ([], []) for name in tasks}
        for _ in range(args.rounds):
            for name, (f64, f32) in tasks.items():
                times[name][0].append(cpu_seconds(f64))
                times[name][1].append(cpu_seconds(f32))
        print(f"{'':20s} {'float64 s':>10s} {'float32 s':>10s} {'ratio (min)':>12s} "
              f"{'ratio (median)':>15s} {'max |dP|':>10s} {'coef_':>8s}")
        targets = []
        for name in tasks:
            t64, t32 = np.array(times[name][0]), np.array(times[name][1])
            ratio_min, ratio_median = t64.min() / t32.min(), float(np.median(t64 / t32))
            extra = f"{'':>10s} {'':>8s}"
            if name in MODELS:
                m64, m32 = MODELS[name]().fit(X64, y), MODELS[name]().fit(X32, y)
                dp = np.max(np.abs(m64.predict_proba(X64) - m32.predict_proba(X32)))
                extra = f"{dp:10.1e} {str(m32.coef_.dtype):>8s}"
                targets.append((f"{name} fit: float32 >= {GOAL}x faster (min)", ratio_min,
                                lambda r: r >= GOAL))
            print(f"{name:20s} {t64.min():10.4f} {t32.min():10.4f} {ratio_min:12.2f} "
                  f"{ratio_median:15.2f} {extra}")
        print_targets(targets, 46)


if __name__ == "__main__":
    main()
