"""Module paths of the first release, kept importable after the package was arranged by role.

``import linclass.geometry`` or ``from linclass.stats import ClassStats`` still work: each old path
names the module that now holds that code (the table below), as one and the same module object.
New code should use the new paths.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["MOVED", "install"]

#: old module path -> the module that holds its code now
MOVED = {
    "linclass._progress": "linclass.core.progress",
    "linclass._validation": "linclass.core.validation",
    "linclass.stats": "linclass.core.class_stats",
    "linclass.covariance": "linclass.core.covariance",
    "linclass.priors": "linclass.core.priors",
    "linclass.posterior": "linclass.core.posterior",
    "linclass.gaussian": "linclass.generative.gaussian",
    "linclass.naive_bayes": "linclass.generative.discrete",
    "linclass.fisher": "linclass.generative.fisher",
    "linclass.kernel_fisher": "linclass.generative.kernel_fisher",
    "linclass.kernels": "linclass.generative.kernels",
    "linclass.perceptron": "linclass.linear.perceptron_training",
    "linclass.losses": "linclass.linear.losses",
    "linclass.objective": "linclass.linear.objective",
    "linclass.separation": "linclass.linear.separation",
    "linclass.inference": "linclass.linear.inference",
    "linclass.solvers": "linclass.linear.solvers",
    "linclass.chunks": "linclass.sources.chunks",
    "linclass.dask": "linclass.sources.dask",
    "linclass.datasets": "linclass.io.datasets",
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
        module = importlib.import_module(MOVED[spec.name])
        self._own_spec = module.__spec__
        return module

    def exec_module(self, module):
        # the import system stamped the old path's spec on the module: give it its own back
        module.__spec__ = self._own_spec


def install() -> None:
    """Register the finder (once)."""
    if not any(isinstance(f, _OldPaths) for f in sys.meta_path):
        sys.meta_path.insert(0, _OldPaths())
