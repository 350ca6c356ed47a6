"""What a model file may hold: which estimators, fitted-state records and bit generators, and which
names and dictionary keys.

:mod:`~linclass.io.persistence.encode` refuses anything else on save and
:mod:`~linclass.io.persistence.decode` on load; nothing here imports a name taken from a file.

Estimators are the classes of :mod:`linclass.registry`, by class name.  Fitted-state records are
known by the name written in the file, which is where the class lived when format version 1 was
defined: a fixed identifier, not an import path (the class may live elsewhere now).

The tables name each record class by the module that defines it, imported when a file names the
record (or a model being saved holds one): saving or loading an LDA imports no logistic, Firth or
formula module.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping

import numpy as np

from linclass import registry

__all__ = [
    "ATTRIBUTE",
    "BIT_GENERATORS",
    "RECORDS",
    "STATE_FORMS",
    "check_params",
    "estimator_class",
    "is_dunder",
    "is_key",
    "record_class",
    "record_name",
]

#: record name written in files (format version 1) -> the module and name of its class now
_RECORD_HOMES = {
    "linclass.kernels.Kernel": "linclass.projection.kernels.Kernel",
    "linclass.stats.ClassStats": "linclass.generative.class_stats.ClassStats",
    "linclass.gaussian.GaussianModel": "linclass.generative.gaussian.GaussianModel",
    "linclass.fisher.FisherModel": "linclass.projection.fisher.FisherModel",
    "linclass.kernel_fisher.KernelFisherModel": "linclass.projection.kernel_fisher.KernelFisherModel",
    "linclass.naive_bayes.DiscreteModel": "linclass.generative.discrete.DiscreteModel",
    "linclass.formula.FormulaEncoding": "linclass.formula.encoding.FormulaEncoding",
}
_RECORD_NAMES = {home: name for name, home in _RECORD_HOMES.items()}


def _class_at(path: str):
    """The class whose module and name are ``path``, imported."""
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _path(cls) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


class _Records(Mapping):
    """record name -> class, each class imported on its first lookup."""

    def __getitem__(self, name):
        return _class_at(_RECORD_HOMES[name])

    def __contains__(self, name) -> bool:
        return name in _RECORD_HOMES

    def __iter__(self):
        return iter(_RECORD_HOMES)

    def __len__(self) -> int:
        return len(_RECORD_HOMES)


class _Classes:
    """A fixed set of classes, named by module and name: ``cls in`` it imports nothing."""

    def __init__(self, *paths: str):
        self._paths = frozenset(paths)

    def __contains__(self, cls) -> bool:
        return isinstance(cls, type) and _path(cls) in self._paths and _class_at(_path(cls)) is cls

    def __iter__(self):
        return (_class_at(p) for p in sorted(self._paths))


#: record name written in files (format version 1) -> the class (a mapping that imports it)
RECORDS = _Records()

#: records written in their format-version-1 form, the plain dict their ``as_state()`` returns (the
#: form files held before these records existed, so that every linclass of format version 1 reads
#: them); a fitted model reads them back through
#: :func:`linclass.linear.fitting.records.inference_record`
STATE_FORMS = _Classes(
    "linclass.linear.inference.wald.LogisticInference",
    "linclass.linear.firth.inference.FirthRecord",
    "linclass.linear.inference.penalised_summary.PenalisedRecord",
    "linclass.linear.fitting.records.PenalisedFacts",
)

#: bit generator name written in files -> the numpy class
BIT_GENERATORS = {
    name: getattr(np.random, name) for name in ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
}

#: an attribute name an estimator's state may use
ATTRIBUTE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def estimator_class(name: str):
    """The registry's estimator class called ``name``, or None."""
    entry = registry.by_name(name)
    return None if entry is None else entry.cls


def record_class(name: str):
    """The record class a file calls ``name``, or None."""
    return RECORDS[name] if name in _RECORD_HOMES else None


def record_name(cls) -> str:
    """The name a file uses for the record class ``cls`` (its import path if it is not a record,
    which :func:`record_class` then does not know)."""
    path = _path(cls)
    name = _RECORD_NAMES.get(path)
    return name if name is not None and RECORDS[name] is cls else path


def is_dunder(name: str) -> bool:
    """``__name__``-style names, never a fitted attribute."""
    return name.startswith("__") and name.endswith("__")


def is_key(k) -> bool:
    """A dictionary key a file may hold: None, bool, int, float, str, a numpy scalar, or a tuple
    of those."""
    cls = type(k)
    if k is None or cls in (bool, int, float, str):
        return True
    if isinstance(k, np.generic):
        return True
    return cls is tuple and all(is_key(v) for v in k)


def check_params(obj, error) -> None:
    """The estimator's own parameter validation (scikit-learn's ``_validate_params``), if it has one.

    Parameters
    ----------
    obj : estimator
    error : callable
        Builds the exception to raise from the problem's text.
    """
    if getattr(type(obj), "_parameter_constraints", None) is None or not hasattr(obj, "_validate_params"):
        return
    try:
        obj._validate_params()
    except (ValueError, TypeError) as exc:
        raise error(f"invalid parameters: {exc}") from exc
