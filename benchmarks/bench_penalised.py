"""Penalised logistic regression (L1, elastic net, L2) against the field, side by side in one process.

Problems (issues 17 and 29): a sparse text-like X (n=50,000, d=20,000, ~30 stored entries per row
(``--per-row``; issue 17's figures used 60), Zipf word
frequencies, log(1 + count) values) and a dense one (n=200,000, d=100, correlated); a 100-value L1
path and 5-fold cross-validation on a smaller sparse problem (n=5,000, d=2,000).  Peers: scikit-learn
(liblinear, saga, lbfgs, newton-cg, newton-cholesky where they apply), glum, skglm, celer (each when
importable) and R's glmnet / cv.glmnet through Rscript, timed inside R (the data's transfer is not
counted).  Each system is warmed up once on a small slice, then timed once.

Peers run at tolerance 1e-6 in their own criteria (glum's gradient 1e-7; saga capped at 300
epochs), a setting at which each reaches the optimum on these problems or shows that it cannot
in reasonable time; every fit is judged by the objective it reached, computed here one way for all:
``sum_i log-loss_i + (rho ||w||_1 + (1 - rho)/2 ||w||^2) / C`` (scikit-learn's scale; glmnet's
lambda = 1 / (C n), glum's and skglm's alpha likewise).  A fit counts as "at the optimum" when its
objective is within 1e-6 (relative) of the lowest any system reached; the speed targets compare
linclass with the fastest system at the optimum.  liblinear penalises its intercept (run with
``intercept_scaling=100`` to make that penalty small); celer fits no intercept, so its objective is
that of another problem and is shown for information.

Run from the repository root (``--scale 0.25`` shrinks every n, and the sparse d, by that factor)::

    .venv/bin/python benchmarks/bench_penalised.py [--scale 1] [--rows sparse,dense,path,cv]
        [--no-r] [--budget 120] [--per-row 30] [--busy]

``--busy`` times the sparse rows (linclass and glmnet) again while another process spins on one
core: issue 29 asks for at least 1.5x glmnet in every sparse row, also then.  With ``--rows
anchors`` it times issue 43's rows again the same way (linclass at default threads and at one
thread, and adelie), and a last table gives each row's one thread / default threads ratio, quiet
and busy (issue 43: the default within 1.1x of one thread in both).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
import warnings

import numpy as np
import scipy.io
import scipy.sparse as sp

import linclass
from linclass import LogisticRegression, LogisticRegressionCV, logistic_path

from _timing import blas_threads  # benchmarks/ is on sys.path when run as a script

SAME = 1e-6
HERE = os.path.dirname(os.path.abspath(__file__))


# ----------------------------------------------------------------------------------------- data
def text_problem(n: int, d: int, per_row: int, seed: int = 0):
    """Bag-of-words shaped: Zipf-distributed word ids, log(1 + count) values, labels from 200 words."""
    rng = np.random.default_rng(seed)
    words = (rng.zipf(1.1, size=n * per_row * 2) - 1)
    words = words[words < d][: n * per_row]
    if words.size < n * per_row:  # (never at these sizes: Zipf draws above d are rare)
        words = np.concatenate([words, rng.integers(0, d, n * per_row - words.size)])
    perm = rng.permutation(d)  # frequent words spread over the columns
    rows = np.repeat(np.arange(n), per_row)
    X = sp.csr_matrix((np.ones(n * per_row), (rows, perm[words])), shape=(n, d))
    X.sum_duplicates()
    X.data = np.log1p(X.data)
    w = np.zeros(d)
    w[rng.choice(d, 200, replace=False)] = rng.normal(scale=2.0, size=200)
    s = X @ w - 0.5
    y = (rng.random(n) < 1 / (1 + np.exp(-s))).astype(np.int64)
    return X, y


def dense_problem(n: int, d: int, seed: int = 1):
    rng = np.random.default_rng(seed)
    mixing = rng.standard_normal((d, d)) * 0.3 + np.eye(d)
    X = rng.standard_normal((n, d)) @ mixing + rng.standard_normal(d)
    beta = rng.standard_normal(d) * (rng.random(d) < 0.3) * 2 / np.sqrt(d)
    s = (X - X.mean(0)) @ beta - 0.3
    y = (rng.random(n) < 1 / (1 + np.exp(-s))).astype(np.int64)
    return np.ascontiguousarray(X), y


def objective(coef, intercept, X, y, C, rho) -> float:
    s = np.asarray(X @ np.ravel(coef)).ravel() + float(np.ravel(intercept)[0] if np.size(intercept) else 0)
    loss = np.logaddexp(0.0, np.where(y == 1, -s, s)).sum()
    w = np.ravel(coef)
    return float(loss + (rho * np.abs(w).sum() + (1 - rho) / 2 * (w @ w)) / C)


# -------------------------------------------------------------------------------------- systems
# linclass runs at its default tol (1e-6): a fit stops when its duality gap certifies an objective
# within tol (relative) of the optimum, the criterion by which every system is judged here
def _linclass(X, y, C, rho, tol=1e-6):
    penalty = {1.0: "l1", 0.0: "l2"}.get(rho, "elasticnet")
    m = LogisticRegression(penalty=penalty, C=C, l1_ratio=rho if penalty == "elasticnet" else None,
                           solver="cd", tol=tol, max_iter=1000).fit(X, y)
    return m.coef_.ravel(), m.intercept_[0]


def _sklearn(solver, **extra):
    def fit(X, y, C, rho):
        from sklearn.linear_model import LogisticRegression as Sk

        m = Sk(solver=solver, C=C, l1_ratio=rho, **extra).fit(X, y)
        return m.coef_.ravel(), m.intercept_[0]
    return fit


def _glum(X, y, C, rho):
    from glum import GeneralizedLinearRegressor

    m = GeneralizedLinearRegressor(family="binomial", alpha=1.0 / (C * X.shape[0]), l1_ratio=rho,
                                   gradient_tol=1e-7, max_iter=1000).fit(X, y)
    return m.coef_, m.intercept_


def _skglm(X, y, C, rho):
    from skglm import SparseLogisticRegression

    m = SparseLogisticRegression(alpha=1.0 / (C * X.shape[0]), l1_ratio=rho, tol=1e-6,
                                 max_iter=100, fit_intercept=True).fit(X, y)
    return m.coef_.ravel(), float(np.ravel(m.intercept_)[0])


def _celer(X, y, C, rho):
    from celer import LogisticRegression as Celer

    m = Celer(C=C, penalty="l1", tol=1e-6).fit(X, y)
    return m.coef_.ravel(), 0.0


def sklearn_solvers(rho, sparse):
    out = {"scikit-learn saga": _sklearn("saga", tol=1e-6, max_iter=300)}
    if rho in (0.0, 1.0):
        out["scikit-learn liblinear"] = _sklearn("liblinear", tol=1e-6, max_iter=1000,
                                                 intercept_scaling=100.0)
    if rho == 0.0:
        out["scikit-learn lbfgs"] = _sklearn("lbfgs", tol=1e-10, max_iter=5000)
        out["scikit-learn newton-cg"] = _sklearn("newton-cg", tol=1e-10, max_iter=500)
        if not sparse:
            out["scikit-learn newton-cholesky"] = _sklearn("newton-cholesky", tol=1e-10, max_iter=500)
    return out


def peers(rho, sparse):
    out = dict(sklearn_solvers(rho, sparse))
    for name, fn, ok in (("glum", _glum, True), ("skglm", _skglm, True),
                         ("celer (no intercept)", _celer, rho == 1.0)):
        module = name.split()[0]
        try:
            __import__(module)
        except ImportError:
            continue
        if ok:
            out[name] = fn
    return out


# ------------------------------------------------------------------------------------------- R
R_FIT = r"""
suppressMessages(library(glmnet)); suppressMessages(library(Matrix))
args <- commandArgs(trailingOnly = TRUE)
X <- readMM(args[1]); if (args[6] == "dense") X <- as.matrix(X) else X <- as(X, "CsparseMatrix")
y <- scan(args[2], quiet = TRUE); lambda <- scan(args[3], quiet = TRUE)
alpha <- as.numeric(args[4]); mode <- args[5]
foldid <- if (mode == "cv") scan(args[7], quiet = TRUE) else NULL
run <- function(rows) {
  if (mode == "cv") cv.glmnet(X[rows, ], y[rows], family = "binomial", alpha = alpha,
                              lambda = lambda, foldid = foldid[rows], standardize = FALSE, thresh = 1e-9)
  else glmnet(X[rows, ], y[rows], family = "binomial", alpha = alpha, lambda = lambda,
              standardize = FALSE, thresh = 1e-9)
}
invisible(run(1:min(nrow(X), 500)))  # warm-up
t <- system.time(fit <- run(seq_len(nrow(X))))[["elapsed"]]
if (mode == "cv") fit <- fit$glmnet.fit
B <- as.matrix(coef(fit))
cat(t, "\n", file = args[8])
write.table(t(B), args[9], row.names = FALSE, col.names = FALSE)
"""


def glmnet(X, y, Cs, rho, mode="fit", foldid=None):
    """(seconds inside R, coefs (len(Cs), d), intercepts) or None without Rscript / glmnet."""
    n = X.shape[0]
    with tempfile.TemporaryDirectory() as tmp:
        paths = {k: os.path.join(tmp, k) for k in ("X.mtx", "y", "lambda", "fold", "time", "B", "f.R")}
        scipy.io.mmwrite(paths["X.mtx"], sp.coo_matrix(X))
        np.savetxt(paths["y"], y, fmt="%d")
        np.savetxt(paths["lambda"], np.sort(1.0 / (np.asarray(Cs) * n))[::-1])
        np.savetxt(paths["fold"], np.zeros(n) if foldid is None else foldid + 1, fmt="%d")
        with open(paths["f.R"], "w") as f:
            f.write(R_FIT)
        try:
            subprocess.run(["Rscript", paths["f.R"], paths["X.mtx"], paths["y"], paths["lambda"],
                            str(rho), mode, "sparse" if sp.issparse(X) else "dense", paths["fold"],
                            paths["time"], paths["B"]], check=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError) as exc:
            print(f"    glmnet: not run ({getattr(exc, 'stderr', b'')[-200:]!r})")
            return None
        seconds = float(open(paths["time"]).read().split()[0])
        B = np.atleast_2d(np.loadtxt(paths["B"]))[::-1]  # glmnet's order is decreasing lambda
    return seconds, B[:, 1:], B[:, 0]


# -------------------------------------------------------------------------------------- running
def timed(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        out = fn()
        return time.perf_counter() - start, out


SKIP: set = set()  # "system" or "row label: system" names left out (--skip)
PER_ROW = [30]     # stored entries per row of the sparse problems (--per-row)
BUSY_NOTE = [""]   # ", one core busy" while --busy's spinning process runs


def _spin():  # holds one core, as another user's job would
    while True:
        pass


class OneCoreBusy:
    """A process spinning on one core for the duration of a ``with`` block."""

    def __enter__(self):
        import multiprocessing

        self.process = multiprocessing.get_context("fork").Process(target=_spin, daemon=True)
        self.process.start()
        time.sleep(0.5)
        BUSY_NOTE[0] = ", one core busy"
        return self

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.join()
        BUSY_NOTE[0] = ""


def fit_row(label, X, y, C, rho, use_r, targets):
    print(f"\n{label}  (n={X.shape[0]:,}, d={X.shape[1]:,}, C={C:g}, l1_ratio={rho:g})")
    small = slice(0, min(2000, X.shape[0]))
    results = {}
    systems = {"linclass": _linclass, **peers(rho, sp.issparse(X))}
    for name, fn in systems.items():
        if name in SKIP or f"{label.split()[0]}: {name}" in SKIP:
            print(f"    {name:<30} skipped (--skip)")
            continue
        try:
            # warm-up (imports, compilation); linclass on the whole problem, since its threaded
            # kernels run (and are compiled, once per machine: numba's cache) only on large data
            rows = slice(None) if name == "linclass" else small
            timed(lambda: fn(X[rows], y[rows], C, rho))
            seconds, (coef, b) = timed(lambda: fn(X, y, C, rho))
            print(f"    ... {name}: {seconds:.2f} s", flush=True)
        except Exception as exc:  # noqa: BLE001 - a peer that cannot run this row is reported
            print(f"    {name:<30} failed: {type(exc).__name__}: {str(exc)[:80]}")
            continue
        results[name] = (seconds, objective(coef, b, X, y, C, rho), np.count_nonzero(coef))
    if use_r:
        out = glmnet(X, y, [C], rho)
        if out is not None:
            results["R glmnet"] = (out[0], objective(out[1][0], out[2][0], X, y, C, rho),
                                   np.count_nonzero(out[1][0]))
    best = min(f for name, (_, f, _) in results.items() if "celer" not in name)
    print(f"    {'system':<30} {'seconds':>9} {'objective':>20} {'rel. gap':>10} {'non-zero':>9}")
    for name, (seconds, f, nnz) in sorted(results.items(), key=lambda kv: kv[1][0]):
        gap = (f - best) / abs(best)
        print(f"    {name:<30} {seconds:9.3f} {f:20.10f} {gap:10.1e} {nnz:9d}"
              + ("" if gap <= SAME else "  (not at the optimum)"))
    ours = results.get("linclass")
    at_optimum = {k: v[0] for k, v in results.items()
                  if k != "linclass" and "celer" not in k and (v[1] - best) / abs(best) <= SAME}
    glm = results.get("R glmnet")
    if ours and glm and sp.issparse(X) and (glm[1] - best) / abs(best) <= SAME:
        targets.append((f"{label}{BUSY_NOTE[0]}: R glmnet / linclass (issue 29)", glm[0] / ours[0], 1.5))
    if ours and at_optimum:
        fastest = min(at_optimum, key=at_optimum.get)
        targets.append((f"{label}: fastest other at the optimum ({fastest}) / linclass",
                        at_optimum[fastest] / ours[0], 1.0))
        python = {k: v for k, v in at_optimum.items() if k != "R glmnet"}
        if sp.issparse(X) and C >= 1 and python:
            fastest = min(python, key=python.get)
            targets.append((f"{label}: fastest Python peer ({fastest}) / linclass",
                            python[fastest] / ours[0], 10.0))


def path_rows(scale, use_r, budget, targets, rows):
    n, d = max(int(5000 * scale), 500), max(int(2000 * scale), 200)
    X, y = text_problem(n, d, PER_ROW[0], seed=3)
    probe = logistic_path(X, y, Cs=100, penalty="l1")
    Cs = probe.Cs
    if "path" in rows:
        print(f"\nL1 path, 100 values  (n={n:,}, d={d:,}, C from {Cs[0]:.3g} to {Cs[-1]:.3g})")
        seconds, path = timed(lambda: logistic_path(X, y, Cs=Cs, penalty="l1"))
        ours = np.array([objective(path.coefs[k], path.intercepts[k], X, y, C, 1.0)
                         for k, C in enumerate(Cs)])
        print(f"    linclass logistic_path        {seconds:9.3f} s")
        times = {}
        if use_r:
            out = glmnet(X, y, Cs, 1.0)
            if out is not None:
                theirs = np.array([objective(out[1][k], out[2][k], X, y, C, 1.0)
                                   for k, C in enumerate(Cs)])
                gap = np.max((ours - theirs) / np.abs(theirs))
                print(f"    R glmnet (inside R)           {out[0]:9.3f} s   linclass's largest "
                      f"objective gap to glmnet's along the path: {gap:.1e}")
                times["R glmnet"] = out[0]
                targets.append(("L1 path: R glmnet / linclass (issue 29)", out[0] / seconds, 1.5))
        for name, fn in (("skglm", _skglm), ("glum", _glum)):
            try:
                __import__(name)
            except ImportError:
                continue
            start, done = time.perf_counter(), 0
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for C in Cs:
                    fn(X, y, C, 1.0)
                    done += 1
                    if time.perf_counter() - start > budget:
                        break
            spent = time.perf_counter() - start
            note = "" if done == Cs.size else f"  (stopped after {done} of 100 values)"
            print(f"    {name + ' (loop over C)':<30}{spent:9.3f} s{note}")
            if done == Cs.size:
                times[name] = spent
        start, done = time.perf_counter(), 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for C in Cs:
                _sklearn("liblinear", tol=1e-6, intercept_scaling=100.0)(X, y, C, 1.0)
                done += 1
                if time.perf_counter() - start > budget:
                    break
        spent = time.perf_counter() - start
        note = "" if done == Cs.size else f"  (stopped after {done} of 100 values)"
        print(f"    {'scikit-learn liblinear loop':<30}{spent:9.3f} s{note}")
        if done == Cs.size:
            times["scikit-learn liblinear"] = spent
        if times:
            fastest = min(times, key=times.get)
            targets.append((f"L1 path: fastest other ({fastest}) / linclass", times[fastest] / seconds, 1.0))
            python = {k: v for k, v in times.items() if k != "R glmnet"}
            lower = budget if not python else min(python.values())
            targets.append(("L1 path: fastest Python peer (or the budget) / linclass", lower / seconds, 10.0))
    if "cv" in rows:
        print(f"\n5-fold cross-validation of the L1 path  (n={n:,}, d={d:,}, 100 values)")
        foldid = np.arange(n) % 5
        folds = [(np.flatnonzero(foldid != f), np.flatnonzero(foldid == f)) for f in range(5)]
        def cross_validate(rows):  # scored as cv.glmnet, by the deviance
            fold_rows = [(np.flatnonzero(foldid[rows] != f), np.flatnonzero(foldid[rows] == f))
                         for f in range(5)]
            return LogisticRegressionCV(Cs=Cs, l1_ratios=(1.0,), scoring="neg_log_loss",
                                        use_legacy_attributes=False, cv=fold_rows).fit(X[rows], y[rows])

        timed(lambda: cross_validate(np.arange(min(n, 500))))  # a warm-up, as R's script has
        seconds, cv = timed(lambda: cross_validate(np.arange(n)))
        print(f"    linclass LogisticRegressionCV  {seconds:9.3f} s   (C_ = {cv.C_:.4g})")
        if use_r:
            out = glmnet(X, y, Cs, 1.0, mode="cv", foldid=foldid)
            if out is not None:
                print(f"    R cv.glmnet (inside R)         {out[0]:9.3f} s")
                targets.append(("5-fold CV: cv.glmnet / linclass (issue 29)", out[0] / seconds, 2.0))
        from sklearn.linear_model import LogisticRegressionCV as SkCV

        grid = Cs[::5]  # 20 of the 100 values: the full grid takes minutes
        spent, _ = timed(lambda: SkCV(Cs=grid, l1_ratios=(1.0,), solver="liblinear", cv=folds,
                                      intercept_scaling=100.0, tol=1e-6).fit(X, y))
        print(f"    scikit-learn LogisticRegressionCV (liblinear, 20 of the 100 values) {spent:9.3f} s")
        targets.append(("5-fold CV: scikit-learn LogisticRegressionCV (20 values only) / linclass "
                        "(100 values)", spent / seconds, 10.0))


# ------------------------------------------------------------------------------------- anchors
ADELIE_PYTHON = os.environ.get("ADELIE_PYTHON",
                               os.path.join(HERE, os.pardir, ".venv-adelie", "bin", "python"))


class Adelie:
    """adelie in its own process (``_adelie_worker.py``; it needs NumPy < 2), timed inside it."""

    def __init__(self):
        self.process = subprocess.Popen(
            [ADELIE_PYTHON, os.path.join(HERE, "_adelie_worker.py")], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True)
        self.tmp = tempfile.TemporaryDirectory()
        self.data = None

    @staticmethod
    def available() -> bool:
        return os.path.exists(ADELIE_PYTHON)

    def load(self, X, y):
        self.data = os.path.join(self.tmp.name, f"problem{id(X)}.npz")
        if sp.issparse(X):
            C = sp.csc_matrix(X)
            np.savez(self.data, data=C.data, indices=C.indices, indptr=C.indptr,
                     shape=np.array(C.shape), y=y)
        else:
            np.savez(self.data, X=X, y=y)

    def fit(self, lmdas, alpha, tol=1e-7):
        """``(seconds, coefs (k, d), intercepts (k,))`` at the lambdas (decreasing)."""
        lpath, out = (os.path.join(self.tmp.name, name) for name in ("lmdas.npy", "out.npz"))
        np.save(lpath, np.asarray(lmdas, dtype=np.float64))
        self.process.stdin.write(json.dumps({"data": self.data, "lmdas": lpath, "alpha": alpha,
                                             "tol": tol, "out": out}) + "\n")
        self.process.stdin.flush()
        seconds = json.loads(self.process.stdout.readline())["seconds"]
        with np.load(out) as f:
            return seconds, f["coefs"], f["intercepts"]

    def close(self):
        try:
            self.process.stdin.write(json.dumps({"quit": True}) + "\n")
            self.process.stdin.close()
            self.process.wait(timeout=30)
        finally:
            self.tmp.cleanup()


def _one_thread():
    import numba
    from threadpoolctl import threadpool_limits

    class OneThread:
        def __enter__(self):
            self.limits = threadpool_limits(1)
            self.numba = numba.get_num_threads()
            numba.set_num_threads(1)

        def __exit__(self, *exc):
            numba.set_num_threads(self.numba)
            self.limits.restore_original_limits()
    return OneThread()


def _lambda_max(X, y):
    """glmnet's lambda_max of the lasso: max_j |x_j^T (y - ybar)| / n (columns centred)."""
    r = y - y.mean()
    g = np.abs(np.asarray(X.T @ r).ravel())  # centring a column changes nothing: sum(r) = 0
    return float(g.max()) / X.shape[0]


def anchor_rows(scale, rounds, use_r, targets, only="", tol_ad=1e-7) -> dict:
    """Issue 43's eight rows and its threads row (dense L1 at 50,000 x 100): paired, interleaved
    rounds of linclass (default threads and one thread, in alternating order), adelie and R's
    glmnet; medians; every system judged by one objective function.  Returns each row's one
    thread / default threads ratio."""
    s = scale
    adelie = Adelie() if Adelie.available() else None
    if adelie is None:
        print(f"\nadelie: not run ({ADELIE_PYTHON} missing: `make bench` makes it)")
    rows = []
    Xs, ys = text_problem(max(int(50_000 * s), 1000), max(int(20_000 * s), 500), PER_ROW[0])
    Xd, yd = dense_problem(max(int(200_000 * s), 1000), 100)
    for X, y, kind in ((Xs, ys, "sparse"), (Xd, yd, "dense")):
        for rho, name in ((1.0, "L1"), (0.5, "EN"), (0.0, "L2")):
            rows.append((f"{kind} {name}, {X.shape[0]:,} x {X.shape[1]:,}, C=1", X, y, rho, None))
    Xp, yp = text_problem(max(int(5000 * s), 500), max(int(2000 * s), 200), PER_ROW[0], seed=3)
    Xq, yq = dense_problem(max(int(50_000 * s), 1000), 100)
    # issue 43's threads row: default threads were 2.3x (quiet) to 3.4x (one core busy) slower
    # than one thread here before the fits held one thread on small products
    rows.append((f"dense L1, {Xq.shape[0]:,} x {Xq.shape[1]:,}, C=1", Xq, yq, 1.0, None))
    for X, y, kind in ((Xp, yp, "sparse"), (Xq, yq, "dense")):
        top = _lambda_max(X, y)
        lmdas = top * np.logspace(0, -3, 100)
        rows.append((f"L1 path, 100 lambdas, {kind} {X.shape[0]:,} x {X.shape[1]:,}", X, y, 1.0,
                     lmdas))
    ratios = {}
    print(f"\nissue 43's rows: medians of {rounds} paired, interleaved rounds; adelie and glmnet "
          f"timed inside their own processes (one thread each; adelie at tol = irls_tol = "
          f"{tol_ad:g}, its default 1e-7 unless --adelie-tol); objective gaps: the largest over "
          f"the lambdas, relative to the best any system reached; load {_load()}")
    print(f"    {'row':<48} {'glmnet':>8} {'adelie':>8} {'linclass':>9} {'1 thread':>9} "
          f"{'adelie/lc':>9} {'1thr/lc':>8} {'lc gap':>8} {'ad gap':>8}")
    try:
        for label, X, y, rho, lmdas in rows:
            if only and not any(word.strip() in label for word in only.split(",")):
                continue
            n = X.shape[0]
            single = lmdas is None
            Cs = np.array([1.0]) if single else 1.0 / (lmdas * n)
            lm = 1.0 / (Cs * n)
            penalty = {1.0: "l1", 0.0: "l2"}.get(rho, "elasticnet")

            def ours():
                if single:
                    m = LogisticRegression(penalty=penalty, C=1.0,
                                           l1_ratio=rho if penalty == "elasticnet" else None)
                    m.fit(X, y)
                    return m.coef_.reshape(1, -1), m.intercept_.reshape(1)
                path = logistic_path(X, y, Cs=Cs, penalty="l1")
                return np.asarray(path.coefs).reshape(len(Cs), -1), np.ravel(path.intercepts)

            def one():
                with _one_thread():
                    return ours()
            timed(ours)  # warm-up
            if adelie is not None:
                adelie.load(X, y)
                adelie.fit(lm, rho, tol_ad)
            t_lc, t_one, t_ad = [], [], []
            for r in range(rounds):  # the two linclass runs in alternating order (ABBA)
                for which in ((ours, one) if r % 2 == 0 else (one, ours)):
                    sec, out = timed(which)
                    (t_lc if which is ours else t_one).append(sec)
                    if which is ours:
                        out_lc = out
                if adelie is not None:
                    sec, B, b0 = adelie.fit(lm, rho, tol_ad)
                    t_ad.append(sec)
            f_lc = np.array([objective(out_lc[0][k], out_lc[1][k], X, y, C, rho)
                             for k, C in enumerate(Cs)])
            best = f_lc.copy()
            f_ad = None
            if adelie is not None:
                B, b0 = B[-len(Cs):], b0[-len(Cs):]
                f_ad = np.array([objective(B[k], b0[k], X, y, C, rho) for k, C in enumerate(Cs)])
                best = np.minimum(best, f_ad)
            t_r = None
            if use_r:
                out = glmnet(X, y, Cs, rho)
                if out is not None:
                    t_r = out[0]
                    order = np.sort(Cs)[::-1]  # glmnet's rows, by decreasing C (increasing lambda)
                    f_r = np.array([objective(out[1][k], out[2][k], X, y, C, rho)
                                    for k, C in enumerate(order)])
                    best = np.minimum(best, f_r[np.searchsorted(-order, -Cs)])
            gap = lambda f: float(np.max((f - best) / np.abs(best)))  # noqa: E731
            med = lambda t: float(np.median(t)) if t else float("nan")  # noqa: E731
            lc, thr, ad = med(t_lc), med(t_one), med(t_ad)
            print(f"    {label:<48} {t_r if t_r is not None else float('nan'):8.3f} {ad:8.3f} "
                  f"{lc:9.3f} {thr:9.3f} {ad / lc:9.2f} {thr / lc:8.2f} {gap(f_lc):8.1e} "
                  f"{gap(f_ad) if f_ad is not None else float('nan'):8.1e}", flush=True)
            if adelie is not None:
                targets.append((f"{label}{BUSY_NOTE[0]}: adelie / linclass (issue 43)", ad / lc,
                                1.5))
            targets.append((f"{label}{BUSY_NOTE[0]}: one thread / default threads (issue 43: default within "
                            f"1.1x of one thread)", thr / lc, 1 / 1.1))
            ratios[label] = (thr / lc, sorted(o / d for o, d in zip(t_one, t_lc)))
    finally:
        if adelie is not None:
            adelie.close()
    print(f"    (load at the end: {_load()})")
    return ratios


def _load() -> str:
    """The 1, 5 and 15-minute load averages and the cores, to judge how quiet a run was."""
    try:
        return "/".join(f"{v:.2f}" for v in os.getloadavg()) + f" on {os.cpu_count()} cores"
    except OSError:
        return "unknown"


def print_threads(quiet: dict, busy: dict) -> None:
    """Issue 43's threads goal, row by row: one thread's seconds over default threads' (medians
    over the rounds; at least 1 / 1.1 = 0.91 to pass), quiet and with one core busy, and the
    rounds' own ratios (the spread shows how much of a difference is the machine's)."""
    print("\nthreads: one thread / default threads (issue 43: >= 0.91, i.e. the default within "
          "1.1x of one thread)")
    print(f"    {'row':<48} {'quiet':>6} {'busy':>6}   rounds (quiet | busy)")
    for label in quiet or busy:
        q, b = quiet.get(label), busy.get(label)
        cell = lambda r: f"{r[0]:6.2f}" if r else f"{'-':>6}"  # noqa: E731
        spread = lambda r: " ".join(f"{v:.2f}" for v in r[1]) if r else "-"  # noqa: E731
        print(f"    {label:<48} {cell(q)} {cell(b)}   {spread(q)} | {spread(b)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--rows", default="anchors,sparse,dense,path,cv")
    parser.add_argument("--rounds", type=int, default=6,
                        help="paired, interleaved rounds of the anchors rows (an even number: each "
                             "of the two linclass settings then runs first in as many rounds)")
    parser.add_argument("--adelie-tol", type=float, default=1e-7,
                        help="adelie's tol and irls_tol (its default 1e-7 stops up to ~1e-4 above "
                             "the optimum on the dense rows)")
    parser.add_argument("--only", default="",
                        help="anchors rows whose label contains one of these comma-separated words")
    parser.add_argument("--no-r", action="store_true")
    parser.add_argument("--budget", type=float, default=120.0,
                        help="seconds a peer's loop over the path's C values may take")
    parser.add_argument("--per-row", type=int, default=30,
                        help="stored entries per row of the sparse problems (issue 29: ~30)")
    parser.add_argument("--busy", action="store_true",
                        help="time the sparse rows (and the anchors rows) again while another "
                             "process spins on one core")
    parser.add_argument("--skip", default="",
                        help="comma-separated systems to leave out, e.g. 'dense: skglm,glum'")
    args = parser.parse_args()
    SKIP.update(name.strip() for name in args.skip.split(",") if name.strip())
    PER_ROW[0] = args.per_row
    rows = set(args.rows.split(","))
    print(f"linclass {linclass.__version__}; BLAS threads: {blas_threads()}; scale {args.scale:g}; "
          f"{os.cpu_count()} cores")
    targets: list = []
    s = args.scale
    if "anchors" in rows:
        quiet = anchor_rows(s, args.rounds, not args.no_r, targets, args.only, args.adelie_tol)
        busy = {}
        if args.busy:  # issue 43: the default threads within 1.1x of one thread here too
            with OneCoreBusy():
                print("\nthe same rows with one core busy (another process spinning on it)")
                busy = anchor_rows(s, args.rounds, False, targets, args.only, args.adelie_tol)
        print_threads(quiet, busy)
    if "sparse" in rows:
        X, y = text_problem(max(int(50_000 * s), 1000), max(int(20_000 * s), 500), args.per_row)
        print(f"sparse problem: {X.nnz / X.shape[0]:.1f} stored entries per row")
        settings = ((1.0, 1.0), (0.1, 1.0), (1.0, 0.5), (1.0, 0.0))
        for C, rho in settings:
            fit_row(f"sparse {'L1' if rho == 1 else 'L2' if rho == 0 else 'elastic net 0.5'} C={C:g}",
                    X, y, C, rho, not args.no_r, targets)
        if args.busy:
            with OneCoreBusy():
                for C, rho in settings:
                    name = 'L1' if rho == 1 else 'L2' if rho == 0 else 'elastic net 0.5'
                    SKIP_BUSY = {"scikit-learn saga", "scikit-learn liblinear", "glum", "skglm",
                                 "scikit-learn lbfgs", "scikit-learn newton-cg"}
                    SKIP.update(SKIP_BUSY)
                    fit_row(f"sparse {name} C={C:g}", X, y, C, rho, not args.no_r, targets)
                    SKIP.difference_update(SKIP_BUSY)
    if "dense" in rows:
        X, y = dense_problem(max(int(200_000 * s), 1000), 100)
        for C, rho in ((0.1, 1.0), (1.0, 0.0)):
            fit_row(f"dense {'L1' if rho == 1 else 'L2'} C={C:g}", X, y, C, rho, not args.no_r, targets)
    if rows & {"path", "cv"}:
        path_rows(s, not args.no_r, args.budget, targets, rows)
    print("\ntargets (ratio = other's seconds / linclass's seconds; at least the number shown)")
    for description, value, need in targets:
        print(f"  {'PASS' if value >= need else 'FAIL'}  {description:<95} {value:7.2f}x  (>= {need:g}x)")


if __name__ == "__main__":
    main()
