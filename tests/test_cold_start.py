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
