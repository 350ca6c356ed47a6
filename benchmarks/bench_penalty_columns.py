"""Per-feature penalty factors and bounds on the coefficients, against glum and R's glmnet, side by
side in one process.

Rows: the sparse text-like problem of bench_penalised.py (L1, and the elastic net 0.5, with penalty
factors drawn in [0.5, 2] and the 20 most frequent words unpenalised; a rare word without penalty
would make the optimum infinite) and the dense correlated one (L1 with
non-negative coefficients, and a box [-0.05, 0.05] under the L2 penalty).  Each system is judged by
the objective it reached, computed here one way for all:
``sum_i log-loss_i + sum_j f_j (rho |w_j| + (1 - rho)/2 w_j^2) / C`` within the bounds; glum's
``alpha = 1 / (C n)`` with ``P1 = P2 = f``; glmnet's ``lambda = sum(f) / (C n p)`` (it rescales its
penalty factors to sum to p), timed inside R.  The ratio is the fastest other system at the optimum
(objective within 1e-6, relative, of the lowest reached) over linclass.

Run from the repository root::

    .venv/bin/python benchmarks/bench_penalty_columns.py [--scale 1] [--no-r] [--skip 'sparse: glum']

(glum's fits of the sparse rows at scale 1 take many minutes: ``--skip`` leaves systems out, by name
or as ``'row kind: name'``.)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile

import numpy as np
import scipy.io
import scipy.sparse as sp

import linclass
from _timing import blas_threads  # benchmarks/ is on sys.path when run as a script
from bench_penalised import dense_problem, text_problem, timed

SAME = 1e-6


def objective(coef, intercept, X, y, C, rho, f):
    w = np.ravel(coef)
    s = np.asarray(X @ w).ravel() + float(np.ravel(intercept)[0])
    loss = np.logaddexp(0.0, np.where(y == 1, -s, s)).sum()
    return float(loss + np.sum(f * (rho * np.abs(w) + (1 - rho) / 2 * w * w)) / C)


def _linclass(X, y, C, rho, f, lower, upper):
    penalty = {1.0: "l1", 0.0: "l2"}.get(rho, "elasticnet")
    m = linclass.LogisticRegression(penalty=penalty, C=C, l1_ratio=rho if penalty == "elasticnet"
                                    else None, penalty_factor=f, lower_bounds=lower,
                                    upper_bounds=upper, max_iter=1000).fit(X, y)
    return m.coef_.ravel(), m.intercept_[0]


def _glum(X, y, C, rho, f, lower, upper):
    from glum import GeneralizedLinearRegressor

    m = GeneralizedLinearRegressor(family="binomial", alpha=1.0 / (C * X.shape[0]), l1_ratio=rho,
                                   P1=f, P2=f, lower_bounds=lower, upper_bounds=upper,
                                   gradient_tol=1e-7, max_iter=1000).fit(X, y)
    return m.coef_, m.intercept_


R_FIT = r"""
suppressMessages(library(glmnet)); suppressMessages(library(Matrix))
a <- commandArgs(trailingOnly = TRUE)
X <- readMM(a[1]); if (a[5] == "dense") X <- as.matrix(X) else X <- as(X, "CsparseMatrix")
y <- scan(a[2], quiet = TRUE); f <- scan(a[3], quiet = TRUE); box <- scan(a[4], quiet = TRUE)
lambda <- as.numeric(a[6]); alpha <- as.numeric(a[7])
run <- function(rows, cols) glmnet(X[rows, cols], y[rows], family = "binomial", alpha = alpha,
                                   lambda = lambda, penalty.factor = f[cols],
                                   lower.limits = box[1], upper.limits = box[2],
                                   standardize = FALSE, thresh = 1e-9)
invisible(run(1:min(nrow(X), 500), 1:min(ncol(X), 20)))  # warm-up (unpenalised columns < rows)
t <- system.time(fit <- run(seq_len(nrow(X)), seq_len(ncol(X))))[["elapsed"]]
cat(t, "\n", file = a[8])
write.table(t(as.matrix(coef(fit))), a[9], row.names = FALSE, col.names = FALSE)
"""


def _glmnet(X, y, C, rho, f, lower, upper):
    """(seconds inside R, coef, intercept) or None without Rscript / glmnet."""
    n, p = X.shape
    with tempfile.TemporaryDirectory() as tmp:
        path = {k: os.path.join(tmp, k) for k in ("X.mtx", "y", "f", "box", "t", "B", "r.R")}
        scipy.io.mmwrite(path["X.mtx"], sp.coo_matrix(X))
        np.savetxt(path["y"], y, fmt="%d")
        np.savetxt(path["f"], f)
        np.savetxt(path["box"], [-np.inf if lower is None else lower,
                                 np.inf if upper is None else upper])
        with open(path["r.R"], "w") as out:
            out.write(R_FIT)
        lam = f.sum() / (C * n * p)
        try:
            subprocess.run(["Rscript", path["r.R"], path["X.mtx"], path["y"], path["f"], path["box"],
                            "sparse" if sp.issparse(X) else "dense", str(float(lam)), str(float(rho)), path["t"],
                            path["B"]], check=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError) as exc:
            print(f"    glmnet: not run ({getattr(exc, 'stderr', b'')[-200:]!r})")
            return None
        seconds = float(open(path["t"]).read().split()[0])
        B = np.loadtxt(path["B"])
    return seconds, B[1:], B[0]


SKIP: set = set()  # "system" or "row kind: system" names left out (--skip)


def row(label, X, y, C, rho, f, lower, upper, use_r, targets):
    print(f"\n{label}  (n={X.shape[0]:,}, d={X.shape[1]:,}, C={C:g}, l1_ratio={rho:g})")
    results = {}
    small = slice(0, min(2000, X.shape[0]))
    for name, fn in (("linclass", _linclass), ("glum", _glum)):
        if name in SKIP or f"{label.split()[0]}: {name}" in SKIP:
            print(f"    {name:<12} skipped (--skip)")
            continue
        try:
            rows = slice(None) if name == "linclass" else small  # warm-up (numba's compilation)
            timed(lambda: fn(X[rows], y[rows], C, rho, f, lower, upper))
            seconds, (coef, b) = timed(lambda: fn(X, y, C, rho, f, lower, upper))
        except Exception as exc:  # noqa: BLE001 - a peer that cannot run this row is reported
            print(f"    {name:<12} failed: {type(exc).__name__}: {str(exc)[:80]}")
            continue
        results[name] = (seconds, objective(coef, b, X, y, C, rho, f))
    if use_r:
        out = _glmnet(X, y, C, rho, f, lower, upper)
        if out is not None:
            results["R glmnet"] = (out[0], objective(out[1], out[2], X, y, C, rho, f))
    best = min(v[1] for v in results.values())
    print(f"    {'system':<12} {'seconds':>9} {'objective':>20} {'rel. gap':>10}")
    for name, (seconds, value) in sorted(results.items(), key=lambda kv: kv[1][0]):
        gap = (value - best) / abs(best)
        print(f"    {name:<12} {seconds:9.3f} {value:20.10f} {gap:10.1e}"
              + ("" if gap <= SAME else "  (not at the optimum)"))
    ours = results.get("linclass")
    others = {k: v[0] for k, v in results.items()
              if k != "linclass" and (v[1] - best) / abs(best) <= SAME}
    if ours and others:
        fastest = min(others, key=others.get)
        targets.append((f"{label}: {fastest} / linclass", others[fastest] / ours[0]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--no-r", action="store_true")
    parser.add_argument("--skip", default="", help="comma-separated systems to leave out")
    args = parser.parse_args()
    SKIP.update(name.strip() for name in args.skip.split(",") if name.strip())
    print(f"linclass {linclass.__version__}; BLAS threads: {blas_threads()}; scale {args.scale:g}")
    s, targets = args.scale, []
    X, y = text_problem(max(int(50_000 * s), 1000), max(int(20_000 * s), 500), 30)
    rng = np.random.default_rng(5)
    f = rng.uniform(0.5, 2.0, X.shape[1])
    f[np.argsort(-X.getnnz(axis=0))[:20]] = 0.0  # the 20 most frequent words: never penalised
    row("sparse L1, factors", X, y, 1.0, 1.0, f, None, None, not args.no_r, targets)
    row("sparse elastic net 0.5, factors", X, y, 1.0, 0.5, f, None, None, not args.no_r, targets)
    X, y = dense_problem(max(int(200_000 * s), 1000), 100)
    ones = np.ones(X.shape[1])
    row("dense L1, non-negative", X, y, 0.1, 1.0, ones, 0.0, None, not args.no_r, targets)
    row("dense L2, box [-0.05, 0.05]", X, y, 1.0, 0.0, ones, -0.05, 0.05, not args.no_r, targets)
    print("\nratios (the fastest other system at the optimum / linclass; > 1: linclass faster)")
    for description, value in targets:
        print(f"  {description:<60} {value:7.2f}x")


if __name__ == "__main__":
    main()
