"""What a model file may hold: which estimators, fitted-state records and bit generators, and which
names and dictionary keys.

:mod:`~linclass.io.persistence.encode` refuses anything else on save and
:mod:`~linclass.io.persistence.decode` on load; nothing here imports a name taken from a file.

Estimators are the classes of :mod:`linclass.registry`, by class name.  Fitted-state records are
known by the name written in the file, which is where the class lived when format version 1 was
defined: a fixed identifier, not an import path (the class may live elsewhere now).
"""

from __future__ import annotations

import re

import numpy as np

from linclass import registry
from linclass.generative.class_stats import ClassStats
from linclass.formula.encoding import FormulaEncoding
from linclass.generative.discrete import DiscreteModel
from linclass.linear.fitting.records import FirthRecord, LogisticInference, PenalisedRecord
from linclass.projection.fisher import FisherModel
from linclass.generative.gaussian import GaussianModel
from linclass.projection.kernel_fisher import KernelFisherModel
from linclass.projection.kernels import Kernel

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

#: record name written in files (format version 1) -> the class
RECORDS = {
    "linclass.kernels.Kernel": Kernel,
    "linclass.stats.ClassStats": ClassStats,
    "linclass.gaussian.GaussianModel": GaussianModel,
    "linclass.fisher.FisherModel": FisherModel,
    "linclass.kernel_fisher.KernelFisherModel": KernelFisherModel,
    "linclass.naive_bayes.DiscreteModel": DiscreteModel,
    "linclass.formula.FormulaEncoding": FormulaEncoding,
}

#: records written in their format-version-1 form, the plain dict their ``as_state()`` returns (the
#: form files held before these records existed, so that every linclass of format version 1 reads
#: them); a fitted model reads them back through
#: :func:`linclass.linear.fitting.records.inference_record`
STATE_FORMS = (LogisticInference, FirthRecord, PenalisedRecord)
_RECORD_NAMES = {cls: name for name, cls in RECORDS.items()}

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
    return RECORDS.get(name)


def record_name(cls) -> str:
    """The name a file uses for the record class ``cls`` (its import path if it is not a record,
    which :func:`record_class` then does not know)."""
    return _RECORD_NAMES.get(cls, f"{cls.__module__}.{cls.__qualname__}")


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
