"""Time linclass's discrete naive Bayes classifiers against scikit-learn in one process.

Synthetic data: a sparse document-term count matrix (CSR, float64) whose term frequencies are
Zipf-like, with class-dependent term preferences so the classes can be learned.  Every time is
the minimum over ``--repeat`` runs after one warm-up run, and is reported next to the "floor":
a single sparse product ``X.T @ Y`` with the dense n x K one-hot label matrix Y, which is the
product every fit here has to compute.  Absolute seconds drift a lot on shared machines; the
in-process ratios are what to read.

Run from the repository root::

    .venv/bin/python benchmarks/bench_naive_bayes.py [--n 100000] [--d 50000] [--k 20] [--nnz 100]
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np
import scipy
import scipy.sparse as sp
import sklearn
from sklearn.naive_bayes import BernoulliNB as SkBernoulliNB
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

import linclass

from _timing import (  # benchmarks/ is on sys.path when run as a script
    Result,
    Row,
    blas_threads,
    bracketed_floor,
    fmt,
    run_row,
)
from _timing import print_targets as report_targets

N_TEST = 10_000
ZIPF_EXPONENT = 1.1
ZIPF_OFFSET = 2.7  # Zipf-Mandelbrot: p(rank r) ~ 1 / (r + offset)^exponent
CLASS_SHARE = 0.06  # fraction of a document's tokens drawn from its class's own term ranking


# --------------------------------------------------------------------------- data


class Corpus:
    """Draws documents: each token comes from a global Zipf ranking of the vocabulary or, with
    probability CLASS_SHARE, from the same Zipf law over a class-specific ranking of the terms."""

    def __init__(self, d: int, k: int, rng: np.random.Generator):
        self.d, self.k, self.rng = d, k, rng
        weights = 1.0 / (np.arange(d) + ZIPF_OFFSET) ** ZIPF_EXPONENT
        self.cdf = np.cumsum(weights / weights.sum())
        self.cdf[-1] = 1.0
        global_rank = rng.permutation(d).astype(np.int32)
        # Class rankings: independent permutations, so each class favours its own terms.
        self.rankings = np.vstack([global_rank] + [rng.permutation(d).astype(np.int32) for _ in range(k)])

    def draw(self, m: int, mean_tokens: float):
        """m documents with ~mean_tokens tokens each: (CSR counts as float64, labels)."""
        rng = self.rng
        y = rng.integers(0, self.k, size=m, dtype=np.int64)
        # Document lengths vary log-normally around mean_tokens (at least one token).
        lengths = np.maximum(1, np.rint(mean_tokens * rng.lognormal(-0.125, 0.5, size=m))).astype(np.int64)
        rows = np.repeat(np.arange(m, dtype=np.int32), lengths)
        ranks = np.searchsorted(self.cdf, rng.random(rows.size))
        # Row 0 of self.rankings is the global ranking, row 1 + c the ranking of class c.
        which = np.where(rng.random(rows.size) < CLASS_SHARE, y[rows] + 1, 0)
        cols = self.rankings[which, ranks]
        X = sp.csr_matrix(
            (np.ones(rows.size, dtype=np.float64), (rows, cols)), shape=(m, self.d), dtype=np.float64
        )  # duplicates are summed: integer counts stored as float64
        X.sum_duplicates()
        X.sort_indices()
        return X, y


def make_data(n: int, d: int, k: int, nnz: float, seed: int):
    """Return (X_train, y_train, X_test, y_test) with ~nnz distinct terms per document."""
    rng = np.random.default_rng(seed)
    corpus = Corpus(d, k, rng)
    # Repeated terms make a document's distinct-term count smaller than its token count: calibrate
    # the token count on a small pilot so the average stored non-zeros per row is about nnz.
    pilot, _ = corpus.draw(2_000, nnz)
    mean_tokens = nnz * nnz / max(pilot.nnz / pilot.shape[0], 1e-12)
    pilot, _ = corpus.draw(2_000, mean_tokens)
    mean_tokens *= nnz / max(pilot.nnz / pilot.shape[0], 1e-12)
    X_train, y_train = corpus.draw(n, mean_tokens)
    X_test, y_test = corpus.draw(N_TEST, mean_tokens)
    return X_train, y_train, X_test, y_test


def one_hot(y: np.ndarray, k: int) -> np.ndarray:
    """Dense n x K float64 one-hot matrix of the labels."""
    Y = np.zeros((y.size, k), dtype=np.float64)
    Y[np.arange(y.size), y] = 1.0
    return Y


# --------------------------------------------------------------------------- timing


# --------------------------------------------------------------------------- models


ROWS = [
    Row("MultinomialNB", lambda: linclass.MultinomialNB(alpha=1.0),
        {"default": lambda: SkMultinomialNB(alpha=1.0)}),
    Row("BernoulliNB", lambda: linclass.BernoulliNB(alpha=1.0, binarize=0.0),
        {"default": lambda: SkBernoulliNB(alpha=1.0, binarize=0.0)}),
    Row("PoissonNB", lambda: linclass.PoissonNB(alpha=1.0)),
]


# --------------------------------------------------------------------------- report


def print_header(args) -> None:
    print(
        f"python {platform.python_version()}  numpy {np.__version__}  scipy {scipy.__version__}  "
        f"scikit-learn {sklearn.__version__}  linclass {linclass.__version__}"
    )
    print(f"BLAS threads: {blas_threads()}")
    print(
        f"n={args.n}  d={args.d}  K={args.k}  nnz/row~{args.nnz:g}  n_test={N_TEST}  "
        f"repeat={args.repeat} (min)  seed={args.seed}"
    )


def describe_data(data, gen_s: float) -> None:
    X, y, X_test, _ = data
    nnz_row = X.nnz / X.shape[0]
    print(
        f"X_train: {X.shape[0]} x {X.shape[1]} CSR float64, nnz={X.nnz} ({nnz_row:.1f}/row, "
        f"density {X.nnz / (X.shape[0] * X.shape[1]):.2e}), tokens={X.sum():.0f}, "
        f"max count={X.data.max():.0f}; X_test: {X_test.shape[0]} rows, nnz={X_test.nnz}"
    )
    print(f"class sizes: min {np.bincount(y).min()}, max {np.bincount(y).max()}; generated in {gen_s:.1f} s")
    print()


def print_table(results: list[Result], floor_s: float) -> None:
    print()
    head = (
        f"{'model':<14} {'fit s':>8} {'fit/floor':>9} {'sk fit s':>9} {'fit x':>6}"
        f" {'proba s':>8} {'sk proba s':>10} {'proba x':>7}"
    )
    print(head)
    print("-" * len(head))
    for r in results:
        sk_fit = r.best_theirs("fit_s")
        sk_proba = r.best_theirs("proba_s")
        ours = r.ours
        print(
            f"{r.name:<14} {fmt(ours and ours.fit_s, '.4f'):>8}"
            f" {fmt(ours and ours.fit_s / floor_s, '.2f'):>9}"
            f" {fmt(sk_fit and sk_fit[1], '.4f'):>9} {fmt(r.speedup('fit_s'), '.2f'):>6}"
            f" {fmt(ours and ours.proba_s, '.4f'):>8} {fmt(sk_proba and sk_proba[1], '.4f'):>10}"
            f" {fmt(r.speedup('proba_s'), '.2f'):>7}"
        )
    print("(x = sklearn seconds / linclass seconds; PoissonNB has no scikit-learn peer)")
    print()

    print("agreement on the held-out set")
    head = f"{'model':<14} {'acc ours':>9} {'acc sk':>7} {'max|dP|':>9}"
    print(head)
    print("-" * len(head))
    for r in results:
        acc = fmt(r.ours and r.ours.accuracy, ".4f")
        if not r.theirs:
            print(f"{r.name:<14} {acc:>9} {'-':>7} {'-':>9}")
        for m in r.theirs.values():
            diff = None if r.ours is None else float(np.max(np.abs(r.ours.proba_test - m.proba_test)))
            print(f"{r.name:<14} {acc:>9} {m.accuracy:>7.4f} {fmt(diff, '.2e'):>9}")
    print()


def print_targets(results: list[Result], floor_s: float) -> None:
    by_name = {r.name: r for r in results}

    def ratio_to_floor(name: str) -> float | None:
        ours = by_name[name].ours
        return None if ours is None else ours.fit_s / floor_s

    # (description, measured value, passes?)
    targets = []
    for name in ("MultinomialNB", "BernoulliNB"):
        targets.append((f"{name} fit no slower than sklearn (x >= 1.0)",
                        by_name[name].speedup("fit_s"), lambda v: v >= 1.0))
    for name in ("MultinomialNB", "BernoulliNB"):
        targets.append((f"{name} predict_proba no slower than sklearn (x >= 1.0)",
                        by_name[name].speedup("proba_s"), lambda v: v >= 1.0))
    for name in ("MultinomialNB", "BernoulliNB", "PoissonNB"):
        targets.append((f"{name} fit <= 1.2x floor", ratio_to_floor(name), lambda v: v <= 1.2))
    report_targets(targets, width=64)


# --------------------------------------------------------------------------- main


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="training documents")
    parser.add_argument("--d", type=int, default=50_000, help="terms (features)")
    parser.add_argument("--k", type=int, default=20, help="classes")
    parser.add_argument("--nnz", type=float, default=100.0, help="average non-zeros (distinct terms) per row")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs; the minimum is reported")
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args(argv)


def main(argv=None) -> None:
    args = parse_args(argv)
    print_header(args)
    start = time.perf_counter()
    data = make_data(args.n, args.d, args.k, args.nnz, args.seed)
    describe_data(data, time.perf_counter() - start)
    X = data[0]
    Y = one_hot(data[1], args.k)  # built outside the timing
    floor = lambda: X.T @ Y  # noqa: E731
    results, floor_before, floor_after = bracketed_floor(
        floor, lambda: [run_row(row, data, args.repeat) for row in ROWS], args.repeat
    )
    floor_s = min(floor_before, floor_after)
    print(f"floor (X.T @ Y, Y dense n x K one-hot): before {floor_before:.4f} s, after {floor_after:.4f} s; "
          f"using the minimum")
    print_table(results, floor_s)
    print_targets(results, floor_s)


if __name__ == "__main__":
    main()
