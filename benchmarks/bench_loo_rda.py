"""Closed-form leave-one-out and cross-validated regularised discriminant analysis, timed against
one QDA fit in the same process (issue 19's targets).

Synthetic data: K Gaussian classes with their own random covariances (n=20,000, d=30, K=5 by
default).  Every time is the minimum over ``--repeat`` runs after one warm-up run.  Printed:

* one QDA fit (linclass, and scikit-learn's for reference) and the floor ``X.T @ X``;
* ``linclass.loo_predict_proba(QDA)``: leave-one-out posteriors of every row by rank-one downdates
  (brute force would be n QDA fits: the "n fits" column is that estimate, not run), and the largest
  difference from real refits without a sample of rows;
* ``RegularizedDiscriminantAnalysisCV`` over the 10 x 10 (pooling, shrinkage) grid: the default
  (closed-form leave-one-out, scoring='neg_log_loss'), 5-fold with the same scoring, and 5-fold with
  scoring='log_likelihood' (the whole grid from the folds' class statistics alone);
* the targets, PASS / FAIL with the measured ratio to one QDA fit + predict_proba (issue 29: the
  default RDA-CV within 15 of them, ten poolings at 1.5 each, the median of the ratios of
  ``--repeat`` interleaved rounds; leave-one-out QDA within 1.5), and to one QDA fit (issue 19's).

Run from the repository root::

    .venv/bin/python benchmarks/bench_loo_rda.py [--n 20000] [--d 30] [--k 5] [--repeat 5] [--threads 1 --cpu]
"""

from __future__ import annotations

import argparse
import platform

import numpy as np
import sklearn
from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis as SkQDA

import linclass

import time

from _timing import best_time, blas_threads, limit_blas_threads, print_targets, quiet


def paired(fns: dict, repeat: int, clock=time.perf_counter) -> dict:
    """Minimum time of each callable, the callables run in turn ``repeat`` times after one
    warm-up each: on a busy machine every one meets the same quiet and noisy moments, so their
    ratios are fairer than those of separate best-of runs."""
    return {name: min(times) for name, times in rounds(fns, repeat, clock).items()}


def rounds(fns: dict, repeat: int, clock=time.perf_counter) -> dict:
    """Every round's time of each callable (run in turn ``repeat`` times after one warm-up)."""
    for fn in fns.values():
        fn()
    out = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            start = clock()
            fn()
            out[name].append(clock() - start)
    return out


def make_data(n: int, d: int, k: int, seed: int):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    means = rng.normal(scale=1.5 / np.sqrt(d) * 3, size=(k, d))
    roots = [np.linalg.qr(rng.normal(size=(d, d)))[0] * rng.uniform(0.5, 1.5, d) for _ in range(k)]
    X = rng.normal(size=(n, d))
    for c in range(k):
        rows = y == c
        X[rows] = X[rows] @ roots[c].T + means[c]
    return X, y


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--d", type=int, default=30)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=None,
                        help="BLAS threads (default: as configured; 1: steadier ratios on a busy machine)")
    parser.add_argument("--cpu", action="store_true",
                        help="CPU seconds (time.process_time) for the RDA-CV target's rounds: with "
                             "--threads 1, steadier than wall time on a machine others keep busy")
    args = parser.parse_args()
    with limit_blas_threads(args.threads):
        run(args)


def run(args) -> None:
    X, y = make_data(args.n, args.d, args.k, args.seed)
    print(f"n={args.n} d={args.d} K={args.k} | Python {platform.python_version()}, numpy "
          f"{np.__version__}, scikit-learn {sklearn.__version__}, linclass {linclass.__version__}")
    print(f"BLAS threads: {blas_threads()}")
    QDA = linclass.QuadraticDiscriminantAnalysis
    floor = best_time(lambda: X.T @ X, args.repeat)
    sk_fit = best_time(quiet(lambda: SkQDA().fit(X, y)), args.repeat)
    times = paired({"fit": lambda: QDA().fit(X, y),
                    "fit + predict_proba": lambda: QDA().fit(X, y).predict_proba(X),
                    "loo": lambda: linclass.loo_predict_proba(QDA(), X, y)}, 3 * args.repeat)
    fit, fit_proba, loo = times["fit"], times["fit + predict_proba"], times["loo"]

    # correctness on a sample of rows: refit without each
    P = linclass.loo_predict_proba(QDA(), X, y)
    worst = 0.0
    for i in np.random.default_rng(1).choice(args.n, 5, replace=False):
        keep = np.arange(args.n) != i
        ref = QDA().fit(X[keep], y[keep]).predict_proba(X[i:i + 1])[0]
        worst = max(worst, float(np.abs(P[i] - ref).max()))

    grid = dict(poolings=10, shrinkages=10)
    RDACV = linclass.RegularizedDiscriminantAnalysisCV
    cv_runs = {
        "RDA-CV leave-one-out, neg_log_loss (default)": lambda: RDACV(**grid).fit(X, y),
        "RDA-CV 5-fold, neg_log_loss": lambda: RDACV(**grid, cv=5).fit(X, y),
        "RDA-CV 5-fold, log_likelihood (statistics only)":
            lambda: RDACV(**grid, cv=5, scoring="log_likelihood").fit(X, y),
    }
    cv_times = {name: best_time(run, max(1, args.repeat // 2)) for name, run in cv_runs.items()
                if "leave-one-out" in name}
    # the default search timed in turn with the unit it is measured in (one fit + predict_proba):
    # interleaved rounds, the median of the rounds' ratios
    unit = rounds({"fit + predict_proba": lambda: QDA().fit(X, y).predict_proba(X),
                   "RDA-CV": cv_runs["RDA-CV leave-one-out, neg_log_loss (default)"]},
                  args.repeat, time.process_time if args.cpu else time.perf_counter)
    unit_ratio = float(np.median(np.array(unit["RDA-CV"]) / np.array(unit["fit + predict_proba"])))
    fast = paired({"fit": lambda: QDA().fit(X, y)} | {k: v for k, v in cv_runs.items()
                                                      if k not in cv_times}, args.repeat)
    cv_times |= {k: v / fast["fit"] * fit for k, v in fast.items() if k != "fit"}

    width = 50
    print(f"\n{'':<{width}} {'seconds':>10} {'/ QDA fit':>10} {'/ floor':>10}")
    rows = [("floor: X.T @ X", floor), ("QDA fit (linclass)", fit), ("QDA fit (scikit-learn)", sk_fit),
            ("QDA fit + predict_proba (linclass)", fit_proba),
            ("loo_predict_proba(QDA)", loo), ("brute-force leave-one-out (n fits, estimated)",
                                              fit * args.n)]
    rows += list(cv_times.items())
    for name, seconds in rows:
        print(f"{name:<{width}} {seconds:>10.4f} {seconds / fit:>10.2f} {seconds / floor:>10.1f}")
    print(f"\nleave-one-out vs refits without 5 sampled rows: max |difference| = {worst:.1e}")
    best = RDACV(**grid).fit(X, y)
    print(f"RDA-CV (leave-one-out) chose pooling={best.pooling_:.3f}, shrinkage={best.shrinkage_:.3f}")
    print(f"RDA-CV / (QDA fit + predict_proba), {args.repeat} interleaved rounds "
          f"({'CPU' if args.cpu else 'wall'} seconds): median of the rounds' ratios {unit_ratio:.2f}, "
          f"medians {np.median(unit['RDA-CV']):.4f} s / {np.median(unit['fit + predict_proba']):.4f} s")
    print()
    print_targets([
        ("RDA-CV 10x10 grid (default) within 15x one QDA fit + predict_proba",
         unit_ratio, lambda r: r <= 15.0),
        ("loo_predict_proba(QDA) within 1.5x one QDA fit + predict_proba", loo / fit_proba,
         lambda r: r <= 1.5),
        ("loo_predict_proba(QDA) within 3x one QDA fit", loo / fit, lambda r: r <= 3.0),
        ("RDA-CV 10x10 grid (default: leave-one-out) within 5x one QDA fit",
         cv_times["RDA-CV leave-one-out, neg_log_loss (default)"] / fit, lambda r: r <= 5.0),
        ("RDA-CV 10x10 grid (5-fold, log_likelihood) within 5x one QDA fit",
         cv_times["RDA-CV 5-fold, log_likelihood (statistics only)"] / fit, lambda r: r <= 5.0),
    ], 72)


if __name__ == "__main__":
    main()
