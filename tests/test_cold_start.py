"""``import linclass`` and the command's help load no scikit-learn, SciPy, numba or pandas: the
public names, the estimators of the registry, the compiled loops and the figures are imported on
first use (module ``__getattr__``), so ``linclass --help`` starts in a fraction of the 1.5 s or
more that those imports take."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("sklearn", "scipy", "numba", "pandas", "pyarrow", "matplotlib", "dask")

_PROBE = """
import contextlib, io, sys
import linclass
from linclass.cli import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    main({argv!r})
assert "usage: linclass" in out.getvalue(), out.getvalue()
print(",".join(m for m in {heavy!r} if m in sys.modules))
"""


def _loaded(argv: list[str]) -> list[str]:
    code = _PROBE.format(argv=argv, heavy=HEAVY)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return [m for m in done.stdout.strip().split(",") if m]


def test_help_loads_no_heavy_package():
    assert _loaded(["--help"]) == []
    assert _loaded(["fit", "--help"]) == []


def test_public_names_load_on_first_use():
    import linclass

    assert set(linclass.__all__) <= set(dir(linclass))
    for name in linclass.__all__:
        assert getattr(linclass, name) is not None
    from linclass.estimators import LogisticRegression

    assert linclass.LogisticRegression is LogisticRegression
    assert linclass.registry.by_alias("logistic").cls is LogisticRegression
    assert linclass.registry.by_class(LogisticRegression).alias == "logistic"


_FIT_PROBE = """
import sys
import numpy as np
import linclass
rng = np.random.default_rng(0)
X = rng.normal(size=(500, 10))
y = (X[:, 0] + rng.normal(size=500) > 0).astype(int)
for name in {names!r}:
    Xn = np.abs(X) if name.endswith(("MultinomialNB", "ComplementNB", "PoissonNB")) else X
    getattr(linclass, name)().fit(Xn, y).predict_proba(Xn)
print(",".join(m for m in ("numba", "llvmlite") if m in sys.modules))
"""


def test_gaussian_and_naive_bayes_fits_load_no_numba():
    """LDA, QDA and the naive Bayes models fit a small X with NumPy and SciPy alone: numba (and its
    first-use setup, about 0.3 s) is imported by a compiled loop's first use, which their passes make
    only on an X of :data:`linclass.generative.scatter_passes.COMPILED_MIN` entries or more."""
    names = ["LinearDiscriminantAnalysis", "QuadraticDiscriminantAnalysis", "GaussianNB",
             "MultinomialNB", "BernoulliNB", "ComplementNB", "PoissonNB"]
    code = _FIT_PROBE.format(names=names)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_the_compiled_passes_start_at_compiled_min():
    import numpy as np

    from linclass.generative import scatter_passes

    rows = scatter_passes.COMPILED_MIN // 8
    assert scatter_passes.compiled(np.zeros((rows, 8)))
    assert not scatter_passes.compiled(np.zeros((rows - 1, 8)))
    assert not scatter_passes.compiled(np.zeros((rows, 8), order="F"))
    assert not scatter_passes.compiled(np.zeros((rows, 8), dtype=np.float32))


_SAVE_PROBE = """
import sys, tempfile, os
import numpy as np
import linclass
rng = np.random.default_rng(0)
X = rng.normal(size=(200, 4))
y = (X[:, 0] > 0).astype(int)
path = os.path.join(tempfile.mkdtemp(), "lda.lcm")
linclass.save(linclass.LinearDiscriminantAnalysis().fit(X, y), path)
assert (linclass.load(path).predict(X) == y).mean() > 0.8
print(",".join(m for m in sys.modules if m.startswith(("numba", "linclass.linear", "linclass.formula"))))
"""


def test_saving_and_loading_an_lda_imports_no_logistic_module():
    """A model file's allowlist names its record classes by module: an LDA's file is written and
    read without importing the logistic, Firth or formula modules (or numba)."""
    done = subprocess.run([sys.executable, "-c", _SAVE_PROBE], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == ""
