"""A long-lived adelie process for ``bench_penalised.py --rows anchors``.

adelie 1.1 needs NumPy < 2, so it runs in its own virtual environment (``make bench`` makes
``.venv-adelie``) and answers requests on standard input, one JSON object per line:

``{"data": "problem.npz", "lmdas": "lmdas.npy", "alpha": 1.0, "tol": 1e-7, "out": "coefs.npz"}``

(``tol``: adelie's ``tol`` and ``irls_tol``; its default is 1e-7.)

It fits glmnet's objective (mean log-loss + lambda (alpha ||w||_1 + (1 - alpha)/2 ||w||^2)) at the
given lambdas (a path, or one value: adelie then fits lambda_max first, as its paths start there),
times the fit alone, writes the coefficients and intercepts, and prints ``{"seconds": ...}``.
The same problem stays loaded between requests, so rounds interleaved with the other systems time
only the fit.  adelie sets ``OMP_PROC_BIND=TRUE`` at import, which pins the process and every thread
it starts to one CPU: it is imported here with ``OMP_PROC_BIND=false`` and the CPU set restored.
"""

import json
import os
import sys
import time

os.environ["OMP_PROC_BIND"] = "false"
_cpus = os.sched_getaffinity(0)

import adelie  # noqa: E402
import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

os.sched_setaffinity(0, _cpus)


def _load(path):
    with np.load(path, allow_pickle=False) as f:
        if "indptr" in f:
            X = sp.csc_matrix((f["data"], f["indices"], f["indptr"]), shape=tuple(f["shape"]))
        else:
            X = np.asfortranarray(f["X"])
        return X, np.asarray(f["y"], dtype=np.float64)


def main():
    loaded = {}
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("quit"):
            break
        if request["data"] not in loaded:
            loaded.clear()
            loaded[request["data"]] = _load(request["data"])
        X, y = loaded[request["data"]]
        lmdas = np.load(request["lmdas"])
        start = time.perf_counter()
        Xm = adelie.matrix.sparse(X) if sp.issparse(X) else adelie.matrix.dense(X)
        tol = float(request.get("tol", 1e-7))  # adelie's default tol and irls_tol
        state = adelie.grpnet(X=Xm, glm=adelie.glm.binomial(y=y), alpha=float(request["alpha"]),
                              lmda_path=lmdas, early_exit=False, progress_bar=False,
                              intercept=True, tol=tol, irls_tol=tol)
        seconds = time.perf_counter() - start
        np.savez(request["out"], coefs=state.betas.toarray(), intercepts=state.intercepts,
                 lmdas=state.lmdas)
        print(json.dumps({"seconds": seconds}), flush=True)


if __name__ == "__main__":
    main()
