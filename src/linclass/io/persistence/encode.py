"""Encoding: an estimator -> a JSON-able tree of nodes plus the arrays it references.

The node tree is the ``model`` of a file's ``metadata.json`` (:mod:`~linclass.io.persistence.format`
describes every node); the arrays become the ``arrays/<n>.npy`` entries that
:mod:`~linclass.io.persistence.archive` writes.  Every refusal (:class:`UnsupportedObjectError`,
naming the attribute) happens here, before anything is written.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from linclass.io.persistence import format as fmt
from linclass.io.persistence.allowlist import (
    ATTRIBUTE,
    BIT_GENERATORS,
    check_params,
    estimator_class,
    is_dunder,
    is_key,
    STATE_FORMS,
    record_class,
    record_name,
)
from linclass.io.persistence.format import ARRAY_KINDS, SCALAR_KINDS, UnsupportedObjectError

__all__ = ["Encoder", "describe"]

#: attributes an estimator holds only while the program runs, never saved: scikit-learn's
#: callbacks (``set_callbacks``; progress bars and monitors hold threads and open listeners)
RUNTIME_ONLY = frozenset({"_skl_callbacks"})


def describe(obj) -> str:
    """``module.Class (repr)``, the repr cut to 80 characters, for messages."""
    cls = type(obj)
    text = repr(obj)
    if len(text) > 80:
        text = text[:77] + "..."
    return f"{cls.__module__}.{cls.__qualname__} ({text})"


class Encoder:
    """Turns an estimator into a JSON-able node tree plus the arrays it references."""

    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}  # entry name -> array to write
        self.table: dict[str, dict] = {}  # entry name -> descriptor (sha256 filled in at write)
        self._entry_of: dict[int, tuple[str, bool]] = {}  # id(array) -> (entry, as_object)
        self._keep: list = []  # the objects seen, so that their ids stay unique
        self._objects: dict[int, int] = {}  # id(estimator or record) -> its index in node order
        self._active: set[int] = set()  # ids of the estimators / records being encoded

    def _shared(self, obj, where: str, build):
        """``build()`` for the first occurrence of an estimator / record, a ``ref`` node after."""
        key = id(obj)
        if key in self._active:
            raise UnsupportedObjectError(where, f"a reference cycle: it holds the {type(obj).__name__} "
                                         "that contains it")
        if key in self._objects:
            return {"__type__": "ref", "index": self._objects[key]}
        self._objects[key] = len(self._objects)
        self._active.add(key)
        self._keep.append(obj)
        try:
            return build()
        finally:
            self._active.discard(key)

    def encode(self, obj, where: str, depth: int = 0):
        """The node of ``obj``; ``where`` names it in messages (``'LogisticRegression.coef_'``)."""
        if depth > fmt.MAX_DEPTH:
            raise UnsupportedObjectError(
                where, f"nested more than {fmt.MAX_DEPTH} levels deep (a reference cycle?)"
            )
        cls = type(obj)
        if obj is None or cls is bool or cls is int or cls is str:
            return obj
        if cls is float:
            if math.isfinite(obj):
                return obj
            return {"__type__": "float", "value": "nan" if math.isnan(obj) else ("inf" if obj > 0 else "-inf")}
        if cls is list:
            return [self.encode(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(obj)]
        if cls is tuple:
            return {"__type__": "tuple",
                    "items": [self.encode(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(obj)]}
        if cls is dict:
            return self._dict(obj, where, depth)
        if cls is np.ndarray:
            return self._array(obj, where)
        if isinstance(obj, np.generic):
            return self._scalar(obj, where)
        if cls is np.random.Generator:
            return self._generator(obj, where, depth)
        if cls is np.random.RandomState:
            state = obj.get_state(legacy=False)
            if state.get("bit_generator") not in BIT_GENERATORS:
                raise UnsupportedObjectError(where, f"unsupported bit generator {state.get('bit_generator')!r}")
            return {"__type__": "numpy.RandomState", "state": self.encode(state, f"{where}.state", depth + 1)}
        if estimator_class(cls.__name__) is cls:
            return self._shared(obj, where, lambda: self._estimator(obj, where, depth))
        if cls in STATE_FORMS:  # written as format version 1 wrote it: a plain dict
            return self.encode(obj.as_state(), where, depth)
        if dataclasses.is_dataclass(obj) and record_class(record_name(cls)) is cls:
            return self._shared(obj, where, lambda: self._record(obj, where, depth))
        if callable(obj):
            raise UnsupportedObjectError(
                where, f"a callable ({describe(obj)}) cannot be stored safely: loading it would mean "
                "running code from the file. Use one of the built-in options (a kernel or basis name) "
                "to save this model, or keep the callable's source and refit.",
            )
        raise UnsupportedObjectError(
            where, f"objects of type {describe(obj)} cannot be stored safely (only None, bool, int, "
            "float, str, list, tuple, dict, numpy arrays and scalars, numpy random generators, and "
            "linclass estimators and their fitted-state records can).",
        )

    def _dict(self, obj: dict, where: str, depth: int):
        if all(type(k) is str for k in obj):
            return {"__type__": "dict",
                    "items": {k: self.encode(v, f"{where}[{k!r}]", depth + 1) for k, v in obj.items()}}
        pairs = []
        for k, v in obj.items():
            if not is_key(k):
                raise UnsupportedObjectError(f"{where}[{k!r}]", f"dictionary key of type {describe(k)} "
                                             "cannot be stored (keys must be None, bool, int, float, "
                                             "str, numpy scalars or tuples of those)")
            pairs.append([self.encode(k, f"{where}[{k!r}] (key)", depth + 1),
                          self.encode(v, f"{where}[{k!r}]", depth + 1)])
        return {"__type__": "dict", "pairs": pairs}

    def _array(self, arr: np.ndarray, where: str):
        as_object = arr.dtype.kind == "O"
        known = self._entry_of.get(id(arr))
        if known is not None:
            entry, as_object = known
        else:
            if as_object:
                data = _object_strings(arr, where)
            else:
                data = arr
                dtype = arr.dtype
                if dtype.kind not in ARRAY_KINDS or dtype.fields is not None or dtype.subdtype is not None:
                    raise UnsupportedObjectError(
                        where, f"arrays of dtype {dtype} cannot be stored (only bool, integer, float, "
                        "complex and unicode string arrays, and object arrays of str, can)",
                    )
                if dtype.itemsize == 0:  # '<U0': give it a width so that the .npy has one
                    data = arr.astype("<U1")
            entry = f"arrays/{len(self.arrays)}.npy"
            header = np.lib.format.header_data_from_array_1_0(data)
            self.arrays[entry] = data
            self.table[entry] = {"dtype": np.dtype(header["descr"]).str, "shape": list(header["shape"]),
                                 "fortran_order": bool(header["fortran_order"]), "sha256": None}
            self._entry_of[id(arr)] = (entry, as_object)
            self._keep.append(arr)
        node = {"__type__": "ndarray", "entry": entry}
        if as_object:
            node["as_object"] = True
        return node

    def _scalar(self, obj: np.generic, where: str):
        dtype = obj.dtype
        if dtype.kind not in SCALAR_KINDS or (dtype.kind == "f" and dtype.itemsize > 8):
            raise UnsupportedObjectError(where, f"numpy scalars of dtype {dtype} cannot be stored")
        value = obj.item()
        if dtype.kind == "f":
            value = self.encode(float(value), where)
        return {"__type__": "numpy.scalar", "dtype": dtype.str, "value": value}

    def _generator(self, obj, where: str, depth: int):
        bit_generator = obj.bit_generator
        name = type(bit_generator).__name__
        if BIT_GENERATORS.get(name) is not type(bit_generator):
            raise UnsupportedObjectError(where, f"unsupported bit generator {describe(bit_generator)}")
        return {"__type__": "numpy.Generator", "bit_generator": name,
                "state": self.encode(bit_generator.state, f"{where}.bit_generator.state", depth + 1)}

    def _record(self, obj, where: str, depth: int):
        names = [f.name for f in dataclasses.fields(obj)]
        extra = sorted(set(vars(obj)) - set(names))
        if extra:
            raise UnsupportedObjectError(where, f"attributes {extra} are not fields of {type(obj).__name__}")
        return {"__type__": "dataclass", "class": record_name(type(obj)),
                "fields": {n: self.encode(getattr(obj, n), f"{where}.{n}", depth + 1) for n in names}}

    def _estimator(self, obj, where: str, depth: int):
        cls = type(obj)
        check_params(obj, lambda problem: UnsupportedObjectError(where, problem))
        params = obj.get_params(deep=False)
        state = {}
        for key, value in vars(obj).items():
            if type(key) is not str or not ATTRIBUTE.fullmatch(key) or is_dunder(key):
                raise UnsupportedObjectError(f"{where}.{key}", "not a plain attribute name")
            if key not in params and key not in RUNTIME_ONLY:
                state[key] = value
        return {
            "__type__": "estimator",
            "class": cls.__name__,
            "params": {k: self.encode(v, f"{where}.{k}", depth + 1) for k, v in params.items()},
            "state": {k: self.encode(v, f"{where}.{k}", depth + 1) for k, v in state.items()},
        }


def _object_strings(arr: np.ndarray, where: str) -> np.ndarray:
    """An object array whose elements are all ``str``, as a unicode array that converts back to it."""
    flat = arr.ravel(order="K")
    for value in flat:
        if type(value) is not str:
            raise UnsupportedObjectError(
                where, f"object-dtype array holding {describe(value)}: only object arrays whose "
                "elements are all str can be stored; convert it to a numeric or string dtype first",
            )
    data = np.asarray(arr, dtype=str if arr.size else "<U1", order="K")
    if data.astype(object).tolist() != arr.tolist():  # e.g. trailing NUL characters
        raise UnsupportedObjectError(where, "object-dtype array of str that a unicode array cannot hold exactly")
    return data
