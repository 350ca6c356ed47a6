"""Time linclass's Perceptron against scikit-learn's in one process.

Synthetic data that are linearly separable with a margin: Gaussian inputs labelled by random
hyperplanes (two classes) or by the arg max of K random linear scores, with the points closer than
``--margin`` to a decision boundary dropped; ``--noise`` flips that fraction of the labels.

The two libraries stop differently: linclass runs Rosenblatt's rule until an epoch without a mistake
(or ``max_epochs``), scikit-learn (defaults, ``tol=1e-3``) stops once its loss has not improved for 5
epochs, usually before every training point is right, and treats K > 2 classes one-vs-rest.  So the
table shows, next to the fit times, the epochs each ran, the seconds per epoch and the training
accuracy; for two classes a scikit-learn run with ``tol=None`` and the same number of epochs as
linclass gives a like-for-like time.  The floors are one clean epoch's unavoidable work: ``X @ w``
over the training matrix (stored order) and ``X[permutation]`` (the random-order gather a shuffled
epoch needs).  Each fit is timed ``--repeat`` times after one warm-up fit; the minimum is reported.
Absolute seconds drift a lot on shared machines; read the in-process ratios.

Run from the repository root::

    .venv/bin/python benchmarks/bench_perceptron.py [--n 200000] [--d 50] [--k 2 5] [--margin 0.1]
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np
import scipy
import sklearn
from sklearn.linear_model import Perceptron as SkPerceptron

import linclass

from _timing import best_time, blas_threads, fmt, quiet  # benchmarks/ is on sys.path as a script


# --------------------------------------------------------------------------- data


def make_data(n: int, d: int, k: int, margin: float, noise: float, seed: int):
    """(X, y): separable by construction up to the flipped fraction ``noise`` of the labels."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    W = rng.standard_normal((1 if k == 2 else k, d))
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    S = X @ W.T + 0.1 * rng.standard_normal(W.shape[0])
    if k == 2:
        y, gap = (S[:, 0] >= 0).astype(np.int64), np.abs(S[:, 0])
    else:
        top = np.sort(S, axis=1)
        y, gap = S.argmax(axis=1), top[:, -1] - top[:, -2]
    X, y = X[gap >= margin], y[gap >= margin]
    flip = rng.random(y.size) < noise
    y[flip] = (y[flip] + rng.integers(1, k, flip.sum())) % k
    return np.ascontiguousarray(X), y


# --------------------------------------------------------------------------- models


def models(k: int, seed: int, ours_epochs: int | None):
    """(label, factory) pairs; the like-for-like scikit-learn run needs linclass's epoch count."""
    rows = [  # (label, linclass row it is compared with, factory)
        ("linclass", None, lambda: linclass.Perceptron(random_state=seed)),
        ("linclass shuffle=False", None, lambda: linclass.Perceptron(shuffle=False)),
        ("sklearn default", "linclass", lambda: SkPerceptron(random_state=seed)),
        ("sklearn shuffle=False", "linclass shuffle=False", lambda: SkPerceptron(shuffle=False)),
    ]
    if k == 2 and ours_epochs is not None:
        rows.append(
            (f"sklearn tol=None, {ours_epochs} epochs", "linclass",
             lambda: SkPerceptron(tol=None, max_iter=ours_epochs, random_state=seed))
        )
    return rows


def measure(factory, X, y, repeat: int):
    model = factory()
    fit = quiet(lambda: model.fit(X, y))  # ConvergenceWarnings are expected with noise
    seconds = best_time(fit, repeat)
    epochs = getattr(model, "n_epochs_", None) or int(np.max(model.n_iter_))
    return seconds, epochs, float(np.mean(model.predict(X) == y)), model


# --------------------------------------------------------------------------- report


def run_k(k: int, args) -> None:
    start = time.perf_counter()
    X, y = make_data(args.n, args.d, k, args.margin, args.noise, args.seed)
    print(
        f"K={k}: X {X.shape[0]} x {X.shape[1]} float64 (margin {args.margin:g}, noise {args.noise:g}), "
        f"class sizes {np.bincount(y).min()}..{np.bincount(y).max()}; generated in "
        f"{time.perf_counter() - start:.1f} s"
    )
    w = np.ones(X.shape[1])
    perm = np.random.default_rng(0).permutation(X.shape[0])
    gemv = best_time(lambda: X @ w, 5)
    gather = best_time(lambda: X[perm], 5)
    print(f"floors: X @ w {gemv * 1e3:.2f} ms, X[permutation] {gather * 1e3:.2f} ms")
    head = (
        f"{'model':<32} {'fit s':>8} {'epochs':>6} {'ms/epoch':>9} {'/floor':>7} {'train acc':>9}"
        f" {'x fit':>6} {'x epoch':>7}"
    )
    print(head)
    print("-" * len(head))
    seen: dict[str, tuple[float, int]] = {}
    for _ in range(2):  # the like-for-like row needs linclass's epoch count first
        for label, peer, factory in models(k, args.seed, seen.get("linclass", (None, None))[1]):
            if label in seen:
                continue
            seconds, epochs, accuracy, model = measure(factory, X, y, args.repeat)
            seen[label] = (seconds, epochs)
            per_epoch = seconds / epochs
            floor = gather if getattr(model, "shuffle", False) else gemv
            ratio = per_epoch_ratio = None
            if peer is not None:
                ours_s, ours_epochs = seen[peer]
                ratio, per_epoch_ratio = seconds / ours_s, per_epoch / (ours_s / ours_epochs)
            extra = f"  converged={model.converged_}" if peer is None else f"  (vs {peer})"
            print(
                f"{label:<32} {seconds:>8.3f} {epochs:>6d} {per_epoch * 1e3:>9.2f}"
                f" {per_epoch / floor:>7.1f} {accuracy:>9.5f} {fmt(ratio, '.2f'):>6}"
                f" {fmt(per_epoch_ratio, '.2f'):>7}{extra}"
            )
    print("(/floor: seconds per epoch over one clean epoch's floor, the gather when shuffling;"
          " x = sklearn / linclass seconds, per fit and per epoch: > 1 means linclass is faster)")
    print()


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200_000, help="samples drawn (before the margin)")
    parser.add_argument("--d", type=int, default=50, help="features")
    parser.add_argument("--k", type=int, nargs="+", default=[2, 5], help="numbers of classes")
    parser.add_argument("--margin", type=float, default=0.1, help="drop points this close to a boundary")
    parser.add_argument("--noise", type=float, default=0.0, help="fraction of labels flipped")
    parser.add_argument("--repeat", type=int, default=1, help="timed fits; the minimum is reported")
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args(argv)


def main(argv=None) -> None:
    args = parse_args(argv)
    print(
        f"python {platform.python_version()}  numpy {np.__version__}  scipy {scipy.__version__}  "
        f"scikit-learn {sklearn.__version__}  linclass {linclass.__version__}"
    )
    print(f"BLAS threads: {blas_threads()} (linclass's rule runs single-threaded)")
    print(f"repeat={args.repeat} (min, after one warm-up fit)  seed={args.seed}")
    print()
    for k in args.k:
        run_k(k, args)


if __name__ == "__main__":
    main()
