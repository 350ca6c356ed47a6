"""Run scikit-learn's own test files with linclass's estimators swapped in.

The test files of the installed scikit-learn (its discriminant analysis, naive Bayes, logistic
regression and perceptron tests) are copied into a temporary folder at run time (they are
scikit-learn's, under its licence, and are not stored in this repository). In one copy the imports
of the estimators under test are rewritten to ``from linclass import ...``; the other copy is left
as it is. Both run under pytest with scikit-learn's own conftest (its fixtures and seeds), and the
script prints, per file, how many of the tests that pass for scikit-learn also pass for linclass.

    python scripts/sklearn_tests_trial.py               # all four files
    python scripts/sklearn_tests_trial.py logistic -v   # one file, listing each failure
    python scripts/sklearn_tests_trial.py --keep        # keep the folder to rerun a test by hand

Only the estimator classes are swapped; scikit-learn's private helpers that the tests import
(``_cov``, ``_log_reg_scoring_path``, ...) and every other class (``SGDClassifier``,
``OneVsRestClassifier``, scorers, splitters) stay scikit-learn's.
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

#: label -> the test file's path inside the installed sklearn package
FILES = {
    "discriminant": "tests/test_discriminant_analysis.py",
    "naive_bayes": "tests/test_naive_bayes.py",
    "logistic": "linear_model/tests/test_logistic.py",
    "perceptron": "linear_model/tests/test_perceptron.py",
}

#: the estimators whose imports are rewritten to linclass's
SWAPPED = {
    "LinearDiscriminantAnalysis", "QuadraticDiscriminantAnalysis",
    "BernoulliNB", "CategoricalNB", "ComplementNB", "GaussianNB", "MultinomialNB",
    "LogisticRegression", "LogisticRegressionCV", "Perceptron",
}

PYTEST_INI = "[pytest]\naddopts = -p no:cacheprovider\n"


def swap_imports(source: str) -> str:
    """``source`` with every ``from sklearn... import`` of a SWAPPED class split in two: the other
    names still from scikit-learn, the swapped ones from linclass."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    edits = []
    for node in tree.body:
        if not (isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sklearn")):
            continue
        names = [a for a in node.names if a.name in SWAPPED]
        if not names:
            continue
        kept = [a for a in node.names if a.name not in SWAPPED]
        text = ""
        if kept:
            text += f"from {node.module} import {', '.join(_alias(a) for a in kept)}\n"
        text += f"from linclass import {', '.join(_alias(a) for a in names)}\n"
        edits.append((node.lineno - 1, node.end_lineno, text))
    for start, end, text in sorted(edits, reverse=True):
        lines[start:end] = [text]
    return "".join(lines)


def _alias(a: ast.alias) -> str:
    return a.name if a.asname is None else f"{a.name} as {a.asname}"


def run_pytest(folder: Path, test_file: Path, report: Path, jobs: int) -> None:
    command = [sys.executable, "-m", "pytest", str(test_file), "-q", "-c", str(folder / "pytest.ini"),
               "--rootdir", str(folder), "-p", "sklearn.conftest", f"--junitxml={report}",
               "-o", "junit_family=xunit1", "--tb=line", "-W", "ignore::DeprecationWarning"]
    if jobs > 1:
        command += ["-n", str(jobs)]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", PYTHONHASHSEED="0")
    subprocess.run(command, cwd=folder, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)


def outcomes(report: Path, module: str) -> dict[str, tuple[str, str]]:
    """test id (without the module's name) -> (outcome, first line of the failure message)"""
    result = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        scope = case.get("classname", "").removeprefix(module).lstrip(".")
        key = f"{scope}::{case.get('name')}"
        outcome, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = child.tag
                message = (child.get("message") or "").strip().splitlines()[:1]
                message = message[0][:200] if message else ""
        result[key] = (outcome, message)
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("labels", nargs="*", metavar="FILE",
                        help=f"which test files, of {', '.join(FILES)} (default: all)")
    parser.add_argument("-v", "--verbose", action="store_true", help="list each failure")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("-n", "--jobs", type=int, default=1, help="pytest-xdist workers")
    args = parser.parse_args(argv)
    labels = args.labels or list(FILES)
    unknown = sorted(set(labels) - set(FILES))
    if unknown:
        parser.error(f"unknown test file(s) {unknown}; choose from {list(FILES)}")

    import sklearn

    package = Path(sklearn.__file__).parent
    folder = Path(tempfile.mkdtemp(prefix="sklearn_tests_trial_"))
    (folder / "pytest.ini").write_text(PYTEST_INI)
    print(f"scikit-learn {sklearn.__version__}: {package}")
    total_ref = total_ours = 0
    try:
        for label in labels:
            original = (package / FILES[label]).read_text()
            counts = {}
            for who, text in (("sklearn", original), ("linclass", swap_imports(original))):
                path = folder / f"test_{label}_{who}.py"
                path.write_text(text)
                report = folder / f"{label}_{who}.xml"
                run_pytest(folder, path, report, args.jobs)
                counts[who] = outcomes(report, path.stem)
            ref = {k for k, (o, _) in counts["sklearn"].items() if o == "passed"}
            ours = counts["linclass"]
            passed = {k for k in ref if ours.get(k, ("missing", ""))[0] == "passed"}
            total_ref += len(ref)
            total_ours += len(passed)
            print(f"{label:13s} {len(passed):4d} / {len(ref):4d}  ({100 * len(passed) / max(len(ref), 1):5.1f}%)")
            if args.verbose:
                for key in sorted(ref - passed):
                    outcome, message = ours.get(key, ("missing", ""))
                    print(f"    {outcome:8s} {key.split('::', 1)[1]}: {message}")
        print(f"{'overall':13s} {total_ours:4d} / {total_ref:4d}  ({100 * total_ours / max(total_ref, 1):5.1f}%)")
    finally:
        if args.keep:
            print(f"kept: {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
