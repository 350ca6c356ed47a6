"""Logistic regression on Dask: linclass vs dask-ml's LogisticRegression on one LocalCluster.

Binary data from a logistic model, generated on the workers and persisted there (neither library pays
for creating or moving X).  Every fit starts from the same persisted arrays; the training log-loss is
computed the same way for every model, so "same log-loss" can be read off the table.

    python benchmarks/bench_dask.py [--n 2000000] [--d 50] [--workers 2] [--skip-memory]

dask-ml is needed only here (``pip install dask-ml``); it is not a dependency of linclass.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def log_loss(model_proba, X, y) -> float:
    """Mean binary log-loss of p = P(y = 1 | x) given as a lazy Dask array."""
    import dask.array as da

    p = da.clip(model_proba, 1e-15, 1 - 1e-15)
    return float((-(y * da.log(p) + (1 - y) * da.log1p(-p))).mean().compute())


def _import_libraries() -> None:
    import linclass  # noqa: F401
    import linclass.sources.chunks  # noqa: F401
    import linclass.sources.dask  # noqa: F401

    try:
        import dask_ml.linear_model  # noqa: F401
    except ImportError:
        pass


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=2_000_000)
    parser.add_argument("--d", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunks", type=int, default=16)
    parser.add_argument("--skip-memory", action="store_true", help="skip the in-memory comparison")
    parser.add_argument("--peer-solvers", default="admm,lbfgs,newton",
                        help="dask-ml solvers to time (admm, its default, takes minutes)")
    args = parser.parse_args()

    import dask
    import dask.array as da
    from distributed import Client, LocalCluster

    import linclass

    try:
        from dask_ml.linear_model import LogisticRegression as DaskMLLogistic
    except ImportError:
        DaskMLLogistic = None

    n, d = args.n, args.d
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        rs = da.random.RandomState(0)
        X = rs.normal(size=(n, d), chunks=(n // args.chunks, d))
        w_true = np.random.default_rng(1).normal(size=d) / np.sqrt(d) * 2
        y = (rs.uniform(size=n, chunks=n // args.chunks) < 1 / (1 + da.exp(-(X @ w_true - 0.5))))
        y = y.astype("i8")
        X, y = dask.persist(X, y)
        client.wait_for_workers(args.workers)
        # warm-up: every worker imports both libraries (and their SciPy / scikit-learn) before any
        # timing, so the first model timed does not pay the imports for the others
        client.run(_import_libraries)
        print(f"n = {n:,}, d = {d}, {X.numblocks[0]} row blocks, LocalCluster with {args.workers} "
              f"workers x 1 thread; X ({X.nbytes / 1e6:.0f} MB) persisted on the workers")
        rows = []

        def run(name, make, proba):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                start = time.perf_counter()
                model = make().fit(X, y)
                seconds = time.perf_counter() - start
                loss = log_loss(proba(model), X, y)
            iters = getattr(model, "n_iter_", None)
            rows.append((name, seconds, loss, iters))
            print(f"  {name:<44} {seconds:8.2f} s   log-loss {loss:.10f}   iterations {iters}",
                  flush=True)

        for solver in ("newton", "lbfgs", "bohning"):
            run(f"linclass LogisticRegression({solver!r})",
                lambda solver=solver: linclass.LogisticRegression(solver=solver, C=1.0, tol=1e-6),
                lambda m: m.predict_proba(X)[:, 1])
        if DaskMLLogistic is None:
            print("  dask-ml is not installed: pip install dask-ml")
        else:
            for solver in args.peer_solvers.split(","):
                run(f"dask-ml LogisticRegression({solver!r})",
                    lambda solver=solver: DaskMLLogistic(solver=solver, C=1.0),
                    lambda m: m.predict_proba(X)[:, 1])

        ours = min(r[1] for r in rows if r[0].startswith("linclass"))
        peers = [r for r in rows if r[0].startswith("dask-ml")]
        if peers:
            best = min(peers, key=lambda r: r[1])
            print(f"\nfastest linclass fit {ours:.2f} s; fastest dask-ml fit {best[1]:.2f} s "
                  f"({best[0]}); ratio {best[1] / ours:.1f}x")
            default = [r for r in peers if "admm" in r[0]]
            if default:
                print(f"vs dask-ml's default solver (admm): {default[0][1] / ours:.1f}x")
        if not args.skip_memory:
            Xn, yn = X.compute(), y.compute()
            start = time.perf_counter()
            model = linclass.LogisticRegression(solver="newton").fit(Xn, yn)
            seconds = time.perf_counter() - start
            p = np.clip(model.predict_proba(Xn)[:, 1], 1e-15, 1 - 1e-15)
            loss = float(-np.mean(yn * np.log(p) + (1 - yn) * np.log1p(-p)))
            print(f"\nlinclass in memory (NumPy, this process): {seconds:.2f} s, log-loss {loss:.10f}")


if __name__ == "__main__":
    main()
