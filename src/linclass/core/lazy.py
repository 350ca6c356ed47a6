"""Names of a package imported from their submodules on first use (a module ``__getattr__``, PEP
562): importing the package then costs none of what its submodules import (numba, matplotlib);
and the size of problem below which a fit loads none of numba's compiled loops
(:data:`COMPILED_MIN`)."""

from __future__ import annotations

import importlib
import importlib.util

__all__ = ["COMPILED_MIN", "lazy_getattr"]

#: entries of a dense X (n x d) below which a penalised two-class fit runs its passes over the
#: rows in NumPy and BLAS and loads none of numba's compiled loops (the magnitude check at the
#: door, the datafit's per-sample terms, the model Hessian's scaled columns, the model's solve):
#: the first compiled loop a process calls costs numba's one-time set-up and the loading of each
#: cached function, 0.3 to 0.8 s for the eight an L1 fit of breast cancer (569 x 30) called,
#: where the fit itself takes 6 ms.  The NumPy forms cost a few more array passes and a model
#: solve in Python, about 1 to 3 ms more per fit at this size (more at 2,000 x 30), so above it
#: the compiled loops pay.
COMPILED_MIN = 32_768


def lazy_getattr(package: str, homes: dict, namespace: dict, base: str | None = None,
                 submodules: bool = False):
    """The ``__getattr__`` of ``package`` (its ``__name__``) whose names are found in
    ``<base>.<homes[name]>`` (``base`` is ``package`` unless given: a public module such as
    :mod:`linclass.datasets` names modules of another package; ``base=""``: ``homes`` holds whole
    module paths); each is kept in ``namespace`` (the package's ``globals()``) after its first use,
    so that later uses find it directly.  With ``submodules``, a name that is not in ``homes`` but
    is a submodule of ``package`` is imported (``linclass.plot`` after ``import linclass``)."""
    base = package if base is None else base

    def __getattr__(name: str):
        home = homes.get(name)
        if home is None:
            if submodules and importlib.util.find_spec(f"{package}.{name}") is not None:
                return importlib.import_module(f"{package}.{name}")
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{base}.{home}" if base else home), name)
        namespace[name] = value
        return value

    return __getattr__
