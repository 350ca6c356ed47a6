"""scikit-learn estimators: thin glue from validation to the spine, no mathematics.

The public classes are those of :data:`linclass.registry.ENTRIES`, each imported from the module
its entry names (the registry is the one list of them) on first use (a module ``__getattr__``), so
that importing one estimator's module, which imports this package first, does not import every
other estimator and what they need (numba's compiled loops, the logistic solvers).
"""

from linclass.core.lazy import lazy_getattr as _lazy_getattr
from linclass.registry import ENTRIES as _ENTRIES

_HOME = {entry.name: entry.home for entry in _ENTRIES}

__all__ = sorted(_HOME)

__getattr__ = _lazy_getattr(__name__, _HOME, globals(), base="")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
