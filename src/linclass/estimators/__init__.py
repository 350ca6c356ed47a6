"""scikit-learn estimators: thin glue from validation to the spine, no mathematics.

The public classes are those of :data:`linclass.registry.ENTRIES`, each imported from the module
its entry names (the registry is the one list of them).
"""

import importlib as _importlib

from linclass.registry import ENTRIES as _ENTRIES

for _entry in _ENTRIES:
    globals()[_entry.name] = getattr(_importlib.import_module(_entry.home), _entry.name)
del _entry

__all__ = sorted(entry.name for entry in _ENTRIES)
