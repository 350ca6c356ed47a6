"""The one compatibility module: the module paths of the first release, kept importable.

``import linclass.geometry``, ``linclass.plot.decision_regions(...)`` or ``from linclass.stats import
ClassStats`` still work: each old path names the module that now holds that code (the table below),
as one and the same module object, imported on first use (so ``import linclass`` costs no
matplotlib or Dask).  They are kept because the first release documented them as public
(``linclass.plot`` and ``linclass.geometry`` are still the paths the README uses) and model files
and user code name them.  Module paths below the top level that were never documented as public
(``linclass.linear.*``, ``linclass.generative.*``, ...) are not kept when code moves: import public
names from ``linclass`` itself.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["MOVED", "install", "module_getattr"]

#: old module path -> the module that holds its code now, or the modules its code was split into
#: (the old path is then one module holding the public names of each)
MOVED = {
    "linclass._progress": "linclass.core.progress",
    "linclass._validation": "linclass.core.validation",
    "linclass.stats": "linclass.core.class_stats",
    "linclass.covariance": "linclass.core.covariance",
    "linclass.priors": "linclass.core.priors",
    "linclass.posterior": "linclass.core.posterior",
    "linclass.gaussian": "linclass.generative.gaussian",
    "linclass.naive_bayes": "linclass.generative.discrete",
    "linclass.fisher": "linclass.projection.fisher",
    "linclass.kernel_fisher": "linclass.projection.kernel_fisher",
    "linclass.kernels": "linclass.projection.kernels",
    "linclass.perceptron": ("linclass.linear.perceptron.training", "linclass.linear.perceptron.rule",
                            "linclass.linear.perceptron.basis_functions"),
    "linclass.losses": "linclass.linear.logistic.losses",
    "linclass.objective": "linclass.linear.logistic.objective",
    "linclass.separation": "linclass.linear.logistic.separation",
    "linclass.inference": "linclass.linear.inference.wald",
    "linclass.solvers": "linclass.linear.solvers",
    "linclass.chunks": ("linclass.sources.chunks", "linclass.core.chunks",
                        "linclass.linear.logistic.chunked"),
    "linclass.dask": "linclass.sources.dask",
    "linclass.datasets": ("linclass.io.datasets", "linclass.sources.tables", "linclass.sources.files"),
    "linclass.persistence": "linclass.io.persistence",
    "linclass.geometry": "linclass.inspect.geometry",
    "linclass.plot": "linclass.inspect.plot",
    "linclass.multiclass": "linclass.estimators.multiclass",
}


class _OldPaths(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path and hands back the new module itself (no second copy is executed)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        target = MOVED[spec.name]
        if isinstance(target, tuple):  # split since: a module of the parts' public names
            return None
        module = importlib.import_module(target)
        self._own_spec = module.__spec__
        return module

    def exec_module(self, module):
        target = MOVED.get(module.__name__)  # a moved module keeps its own name
        if isinstance(target, tuple):
            names = []
            for part in map(importlib.import_module, target):
                for name in getattr(part, "__all__", ()):
                    setattr(module, name, getattr(part, name))
                    names.append(name)
            module.__all__ = names
            module.__doc__ = f"First-release path of {', '.join(target)}."
            return
        # the import system stamped the old path's spec on the module: give it its own back
        module.__spec__ = self._own_spec


def install() -> None:
    """Register the finder (once)."""
    if not any(isinstance(f, _OldPaths) for f in sys.meta_path):
        sys.meta_path.insert(0, _OldPaths())


def module_getattr(name: str):
    """The package's ``__getattr__``: ``linclass.plot``, ``linclass.geometry``, ... without importing
    them first (imported on first use)."""
    old = f"linclass.{name}"
    if old in MOVED:
        return importlib.import_module(old)
    raise AttributeError(f"module 'linclass' has no attribute {name!r}")
