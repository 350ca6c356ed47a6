"""Every example of the documentation's gallery (``examples/plot_*.py``) runs as a script and draws.

Each example runs with :func:`runpy.run_path` as ``__main__`` in a temporary working directory, with
matplotlib's non-interactive Agg backend, as sphinx-gallery runs it when the site is built (which
``tests/test_docs_build.py`` does without running the examples).  An example passes when it finishes
without an error and leaves at least one figure open in pyplot, where sphinx-gallery's matplotlib
scraper finds its figures; the figures are closed afterwards.

The examples that take more than about three seconds here are marked ``slow`` (they still run in
``make test``; ``make quick`` leaves them out).
"""

from __future__ import annotations

import runpy
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg", force=True)

import matplotlib.pyplot as plt  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SCRIPTS = sorted(EXAMPLES.glob("plot_*.py"))

# measured on a 2-core machine shared with other work: above ~3 s each
SLOW = {
    "plot_cross_validation_curve",
    "plot_dask_cluster",
    "plot_kernel_fisher",
    "plot_rda_grid",
    "plot_text_stdlib_docstrings",
}


def _param(script: Path):
    marks = [pytest.mark.slow] if script.stem in SLOW else []
    return pytest.param(script, id=script.stem, marks=marks)


def test_the_gallery_has_examples():
    assert len(SCRIPTS) >= 10, [script.name for script in SCRIPTS]
    assert not SLOW - {script.stem for script in SCRIPTS}, "SLOW names an example that is gone"


@pytest.mark.parametrize("script", [_param(script) for script in SCRIPTS])
def test_example_runs_and_draws(script, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.argv", [str(script)])
    plt.close("all")
    try:
        runpy.run_path(str(script), run_name="__main__")
        figures = plt.get_fignums()
        assert figures, f"{script.name} drew no figure that pyplot (and sphinx-gallery) can see"
    finally:
        plt.close("all")
