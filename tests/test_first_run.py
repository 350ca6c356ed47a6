"""What a reader who follows only the README meets on a first run (issue 24, finding 11): the command
they are told to type, the extras ``make demo`` installs for the README's examples, the models the
README lists, the input formats it promises and what ``make bench`` runs."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import linclass
from linclass.registry import ENTRIES

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
GUIDE = ROOT / "docs" / "guide"  # where the README's longer sections went (issue 44)
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")


def _recipe(target: str) -> str:
    """The lines of a Makefile rule whose target line starts with ``target``."""
    match = re.search(rf"^{re.escape(target)}[^\n]*\n((?:\t[^\n]*\n)+)", MAKEFILE, re.M)
    assert match, f"no rule for {target} in the Makefile"
    return match.group(1)


def test_the_readme_says_where_the_command_lives():
    section = README.split("## The `linclass` command", 1)[1].split("\n## ", 1)[0]
    assert ".venv/bin/activate" in section and ".venv/bin/linclass" in section


def test_make_demo_installs_what_the_readme_examples_import():
    extras = re.search(r"-e '\.\[([\w,]+)\]'", _recipe("$(VENV)/.demo")).group(1).split(",")
    # DataFrames (as_frame=True, summary().to_frame()), Parquet files, figures
    assert {"pandas", "parquet", "plot"} <= set(extras)
    assert "as_frame=True" in README


def test_the_readme_lists_every_command_alias():
    section = README.split("models are named by short aliases (", 1)[1].split(")", 1)[0]
    listed = re.findall(r"`([\w-]+)`", section)
    assert sorted(listed) == sorted(e.alias for e in ENTRIES if e.alias)


def test_make_bench_runs_every_benchmark_script():
    recipe = _recipe("bench:")
    scripts = sorted(p.name for p in (ROOT / "benchmarks").glob("bench_*.py"))
    assert scripts and [s for s in scripts if f"benchmarks/{s}" not in recipe] == []


def test_the_input_contract_matches_what_logistic_regression_accepts():
    contract = (GUIDE / "input_contract.md").read_text(encoding="utf-8")
    dense_only = contract.split("take dense", 1)[0]
    rng = np.random.default_rng(0)
    X = sp.random(60, 5, density=0.5, format="csr", random_state=1)
    y = rng.integers(0, 2, 60)
    linclass.LogisticRegression().fit(X, y)  # CSR is accepted ...
    assert "`LogisticRegression`" not in dense_only  # ... so the README must not call it dense-only


def test_summary_params_are_series_with_pandas_as_the_readme_says():
    import pandas as pd
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    X = X[["mean radius", "mean texture", "mean smoothness"]]
    result = linclass.LogisticRegression(C=np.inf).fit(X, y).summary()
    assert isinstance(result.params, pd.Series)
    assert "arrays without pandas" in (GUIDE / "logistic.md").read_text(encoding="utf-8")
