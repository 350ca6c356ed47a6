"""Time Firth's logistic regression against R's brglm2 on two real data sets.

Rows: binary Firth on mlbench's Sonar (208 x 60, completely separated) against
``glm(Class ~ ., binomial, method = "brglmFit", type = "AS_mean")``, and multinomial Firth on MASS's
fgl (214 x 9, six classes, separated) against ``brmultinom(type ~ ., type = "AS_mean")``; the data
are tests/data/r/firth/sonar.csv and fgl.csv (written by firth_real.R there).  linclass's time is
the fit at default settings (the estimate, its standard errors and the separation check; on
separated data the search of several starts for the highest maximum,
:mod:`linclass.linear.firth.starts`), and separately the profile intervals that
``summary(ci='profile')`` computes at its first call (two classes).  R's time is ``system.time``
of the fit inside one Rscript process (brglm2's defaults: epsilon 1e-6, maxit 100; without Rscript
or brglm2 only linclass's row is printed).  The minimum of ``--repeat`` runs after one warm-up.
Absolute seconds drift a lot on shared machines.

Run from the repository root::

    .venv/bin/python benchmarks/bench_firth.py [--repeat 3] [--profile]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path

import numpy as np

from _timing import best_time

import linclass as lc

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "r" / "firth"

R_TIMING = """
suppressPackageStartupMessages(library(brglm2))
sonar <- read.csv("{sonar}"); sonar$Class <- factor(sonar$Class)
fgl <- read.csv("{fgl}"); fgl$type <- factor(fgl$type)
best <- function(expr) {{
  f <- function() suppressWarnings(eval(expr))
  f()
  min(sapply(seq_len({repeat}), function(i) system.time(f())[["elapsed"]]))
}}
cat("sonar", best(quote(glm(Class ~ ., family = binomial, data = sonar, method = "brglmFit",
                            type = "AS_mean"))), "\\n")
cat("fgl", best(quote(brmultinom(type ~ ., data = fgl, type = "AS_mean"))), "\\n")
"""


def r_times(repeat: int) -> dict:
    """R brglm2's fit times by case, or {} without Rscript / brglm2."""
    if shutil.which("Rscript") is None:
        return {}
    script = R_TIMING.format(sonar=DATA / "sonar.csv", fgl=DATA / "fgl.csv", repeat=repeat)
    with tempfile.NamedTemporaryFile("w", suffix=".R", delete=False) as handle:
        handle.write(script)
    try:
        out = subprocess.run(["Rscript", handle.name], capture_output=True, text=True,
                             timeout=3600, check=True).stdout
    except (subprocess.SubprocessError, OSError):
        return {}
    finally:
        Path(handle.name).unlink()
    return {line.split()[0]: float(line.split()[1]) for line in out.splitlines() if line.strip()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true",
                        help="also time the profile intervals of the binary fit (minutes)")
    args = parser.parse_args()
    import pandas as pd

    sonar = pd.read_csv(DATA / "sonar.csv")
    fgl = pd.read_csv(DATA / "fgl.csv")
    cases = {"sonar": (sonar.drop(columns="Class").to_numpy(float), sonar["Class"].to_numpy()),
             "fgl": (fgl.drop(columns="type").to_numpy(float), fgl["type"].to_numpy())}
    ours = {}
    for name, (X, y) in cases.items():
        def fit(X=X, y=y):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return lc.LogisticRegression(penalty="firth").fit(X, y)
        ours[name] = best_time(fit, args.repeat)
        if args.profile and name == "sonar":
            ours["sonar profile"] = best_time(
                lambda: lc.LogisticRegression(penalty="firth").fit(X, y).summary(ci="profile"),
                1) - ours[name]
    r = r_times(args.repeat)
    print(f"{'case':<16}{'rows x cols':>14}{'linclass s':>12}{'brglm2 s':>10}")
    for name, seconds in ours.items():
        X = cases[name.split()[0]][0]
        other = r.get(name)
        shown = "" if other is None else f"{other:10.3f}"
        print(f"{name:<16}{f'{X.shape[0]} x {X.shape[1]}':>14}{seconds:12.3f}{shown}")
    if not r:
        print("(R or brglm2 not found: linclass's times only)")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
