"""Names of a package imported from their submodules on first use (a module ``__getattr__``, PEP
562): importing the package then costs none of what its submodules import (numba, matplotlib)."""

from __future__ import annotations

import importlib
import importlib.util

__all__ = ["lazy_getattr"]


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
