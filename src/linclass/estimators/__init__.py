"""scikit-learn estimators: thin glue from validation to the spine, no mathematics.

The public classes are those of :data:`linclass.registry.ENTRIES`, each imported from the module
its entry names (the registry is the one list of them) on first use (a module ``__getattr__``), so
that importing one estimator's module, which imports this package first, does not import every
other estimator and what they need (numba's compiled loops, the logistic solvers).
"""

import importlib as _importlib

from linclass.registry import ENTRIES as _ENTRIES

_HOME = {entry.name: entry.home for entry in _ENTRIES}

__all__ = sorted(_HOME)


def __getattr__(name: str):
    """An estimator class, imported from its module on first use; else a submodule."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(home), name)
    globals()[name] = value  # later uses find it directly
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
