"""Decoding: the strict inverse of :mod:`~linclass.io.persistence.encode`, a node tree -> objects.

Every tag, key and type of every node is checked (:mod:`~linclass.io.persistence.format` lists
them); only the estimators, records and bit generators of
:mod:`~linclass.io.persistence.allowlist` can be built, estimators only from parameters that pass
their own validation.  A problem is an :class:`~linclass.io.persistence.format.Invalid` naming its
place in the tree (``model (LogisticRegression).coef_``).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from linclass import registry
from linclass.io.persistence import format as fmt
from linclass.io.persistence.allowlist import (
    ATTRIBUTE,
    BIT_GENERATORS,
    RECORDS,
    check_params,
    estimator_class,
    is_dunder,
    is_key,
    record_class,
)
from linclass.io.persistence.format import SCALAR_KINDS, Invalid, json_type, parse_dtype

__all__ = ["Decoder", "is_estimator_node"]

_NONFINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def is_estimator_node(node) -> bool:
    """An ``estimator`` node with a string class (what the top of a file's ``model`` must be)."""
    return type(node) is dict and node.get("__type__") == "estimator" and type(node.get("class")) is str


_TAG_KEYS = {
    "float": ({"value"},),
    "tuple": ({"items"},),
    "dict": ({"items"}, {"pairs"}),
    "ndarray": ({"entry"}, {"entry", "as_object"}),
    "numpy.scalar": ({"dtype", "value"},),
    "numpy.Generator": ({"bit_generator", "state"},),
    "numpy.RandomState": ({"state"},),
    "dataclass": ({"class", "fields"},),
    "estimator": ({"class", "params", "state"},),
    "ref": ({"index"},),
}
_PENDING = object()


class Decoder:
    """Strict inverse of :class:`~linclass.io.persistence.encode.Encoder`: every tag, key and type
    is checked.

    Parameters
    ----------
    reader : linclass.io.persistence.archive.ArrayReader
        Gives the arrays that ``ndarray`` nodes name: ``reader.get(entry, as_object, where)``.
    """

    def __init__(self, reader):
        self.reader = reader
        self.objects: list = []  # estimators and records in node order (_PENDING while decoding)

    def decode(self, node, where: str, depth: int):
        """The object of ``node``; ``where`` names it in messages, ``depth`` counts the nesting."""
        if depth > fmt.MAX_DEPTH:
            raise Invalid(f"{where}: nested more than {fmt.MAX_DEPTH} levels deep")
        cls = type(node)
        if node is None or cls in (bool, int, float, str):
            return node
        if cls is list:
            return [self.decode(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(node)]
        if cls is not dict:  # pragma: no cover - json produces nothing else
            raise Invalid(f"{where}: unexpected {cls.__name__}")
        tag = node.get("__type__")
        if type(tag) is not str or tag not in _TAG_KEYS:
            raise Invalid(f"{where}: a JSON object must be a node with a known '__type__'; got "
                          f"__type__={tag!r}")
        keys = set(node) - {"__type__"}
        if keys not in _TAG_KEYS[tag]:
            allowed = " or ".join(str(sorted(k)) for k in _TAG_KEYS[tag])
            raise Invalid(f"{where}: a {tag!r} node must have the keys {allowed}; got {sorted(keys)}")
        return getattr(self, "_" + tag.replace(".", "_"))(node, where, depth)

    # ----------------------------------------------------------------------------------- nodes
    def _float(self, node, where, depth):
        value = node["value"]
        if type(value) is not str or value not in _NONFINITE:
            raise Invalid(f"{where}: a 'float' node holds 'nan', 'inf' or '-inf'; got {value!r}")
        return _NONFINITE[value]

    def _tuple(self, node, where, depth):
        items = _typed(node["items"], list, f"{where}.items")
        return tuple(self.decode(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(items))

    def _dict(self, node, where, depth):
        if "items" in node:
            items = _typed(node["items"], dict, f"{where}.items")
            return {k: self.decode(v, f"{where}[{k!r}]", depth + 1) for k, v in items.items()}
        out = {}
        for i, pair in enumerate(_typed(node["pairs"], list, f"{where}.pairs")):
            if type(pair) is not list or len(pair) != 2:
                raise Invalid(f"{where}.pairs[{i}]: must be a [key, value] pair")
            key = self.decode(pair[0], f"{where}.pairs[{i}] (key)", depth + 1)
            if not is_key(key):
                raise Invalid(f"{where}.pairs[{i}]: key of type {type(key).__name__} is not allowed")
            if key in out:
                raise Invalid(f"{where}.pairs[{i}]: the key {key!r} appears twice")
            out[key] = self.decode(pair[1], f"{where}[{key!r}]", depth + 1)
        return out

    def _ndarray(self, node, where, depth):
        entry = _typed(node["entry"], str, f"{where}.entry")
        as_object = node.get("as_object", False)
        if "as_object" in node and as_object is not True:
            raise Invalid(f"{where}: as_object, when present, must be true")
        return self.reader.get(entry, as_object, where)

    def _numpy_scalar(self, node, where, depth):
        dtype = parse_dtype(node["dtype"], SCALAR_KINDS, where)
        if dtype.kind == "f" and dtype.itemsize > 8:
            raise Invalid(f"{where}: dtype {dtype.str} is not allowed")
        raw = node["value"]
        kind = dtype.kind
        if kind == "f":
            value = self.decode(raw, where, depth + 1) if type(raw) is dict else raw
            ok = type(value) is float
        elif kind == "b":
            value, ok = raw, type(raw) is bool
        elif kind in "iu":
            value, ok = raw, type(raw) is int
        else:
            value, ok = raw, type(raw) is str
        if not ok:
            raise Invalid(f"{where}: a numpy scalar of dtype {dtype.str} cannot hold the JSON "
                          f"{json_type(raw)} {raw!r}")
        try:
            with np.errstate(all="ignore"):
                scalar = dtype.type(value)
        except (OverflowError, ValueError, TypeError) as exc:
            raise Invalid(f"{where}: {raw!r} does not fit dtype {dtype.str} ({exc})") from None
        if scalar.dtype.str != dtype.str:
            raise Invalid(f"{where}: {raw!r} is not a value of dtype {dtype.str}")
        if kind in "biuU":
            exact = scalar.item() == value
        else:
            exact = float(scalar) == value or (math.isnan(value) and math.isnan(float(scalar)))
        if not exact:
            raise Invalid(f"{where}: {raw!r} is not exactly representable in dtype {dtype.str}")
        return scalar

    def _numpy_Generator(self, node, where, depth):
        name = node["bit_generator"]
        cls = BIT_GENERATORS.get(name) if type(name) is str else None
        if cls is None:
            raise Invalid(f"{where}: unknown bit generator {name!r} (known: {sorted(BIT_GENERATORS)})")
        state = self.decode(node["state"], f"{where}.state", depth + 1)
        bit_generator = cls()
        try:
            if type(state) is not dict or state.get("bit_generator") != name:
                raise ValueError("it is not a state of this bit generator")
            bit_generator.state = state
        except (ValueError, TypeError, KeyError, OverflowError) as exc:
            raise Invalid(f"{where}: invalid {name} state ({exc})") from None
        return np.random.Generator(bit_generator)

    def _numpy_RandomState(self, node, where, depth):
        state = self.decode(node["state"], f"{where}.state", depth + 1)
        name = state.get("bit_generator") if type(state) is dict else None
        cls = BIT_GENERATORS.get(name) if type(name) is str else None
        if cls is None:
            raise Invalid(f"{where}: a RandomState state names the bit generator {name!r}")
        try:
            rs = np.random.RandomState(cls())
            rs.set_state(state)
        except (ValueError, TypeError, KeyError, OverflowError) as exc:
            raise Invalid(f"{where}: invalid RandomState state ({exc})") from None
        return rs

    def _ref(self, node, where, depth):
        index = node["index"]
        if type(index) is not int or not 0 <= index < len(self.objects):
            raise Invalid(f"{where}: 'ref' index {index!r} names no earlier estimator or record node")
        obj = self.objects[index]
        if obj is _PENDING:
            raise Invalid(f"{where}: 'ref' {index} names a node that contains it (a reference cycle)")
        return obj

    def _dataclass(self, node, where, depth):
        slot = len(self.objects)
        self.objects.append(_PENDING)
        name = node["class"]
        cls = record_class(name) if type(name) is str else None
        if cls is None:
            raise Invalid(f"{where}: unknown record class {name!r} (only {sorted(RECORDS)} can be loaded)")
        values = _typed(node["fields"], dict, f"{where}.fields")
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - set(fields))
        if unknown:
            raise Invalid(f"{where}: {name} has no fields {unknown}")
        decoded = {k: self.decode(v, f"{where}.{k}", depth + 1) for k, v in values.items()}
        try:  # (a record checks its fields when it is built: FormulaEncoding)
            obj = cls(**{k: v for k, v in decoded.items() if fields[k].init})
        except (TypeError, ValueError) as exc:
            raise Invalid(f"{where}: cannot rebuild {name} ({exc})") from None
        for k, v in decoded.items():
            if not fields[k].init:
                object.__setattr__(obj, k, v)
        self.objects[slot] = obj
        return obj

    def _estimator(self, node, where, depth):
        slot = len(self.objects)
        self.objects.append(_PENDING)
        name = node["class"]
        if type(name) is not str:
            raise Invalid(f"{where}: estimator class must be a string")
        cls = estimator_class(name)
        if cls is None:
            known = sorted(e.name for e in registry.ENTRIES)
            raise Invalid(f"{where}: unknown estimator class {name!r}: only the estimators of "
                          f"linclass.registry can be loaded ({', '.join(known)}); a newer linclass "
                          "may know it")
        where = f"{where} ({name})"
        params = _typed(node["params"], dict, f"{where}.params")
        state = _typed(node["state"], dict, f"{where}.state")
        allowed = set(cls._get_param_names())
        unknown = sorted(set(params) - allowed)
        if unknown:
            raise Invalid(f"{where}: {name} has no parameters {unknown}")
        for key in state:
            if not ATTRIBUTE.fullmatch(key) or is_dunder(key) or key in allowed:
                raise Invalid(f"{where}.state: {key!r} is not a valid fitted attribute name")
        values = {k: self.decode(v, f"{where}.{k}", depth + 1) for k, v in params.items()}
        # a parameter added since the file was written takes the value its fit had, where a class
        # names one (its default changed since: e.g. the Perceptron's tol)
        values = {**getattr(cls, "_file_defaults", {}), **values}
        try:
            obj = cls(**values)
        except TypeError as exc:
            raise Invalid(f"{where}: cannot rebuild {name} ({exc})") from None
        check_params(obj, lambda problem: Invalid(f"{where}: {problem}"))
        attributes = {k: self.decode(v, f"{where}.{k}", depth + 1) for k, v in state.items()}
        vars(obj).update(attributes)
        if hasattr(obj, "_after_load"):  # state written in a file form of its own (STATE_FORMS)
            obj._after_load()
        self.objects[slot] = obj
        return obj


def _typed(value, cls, where: str):
    """``value`` if it is exactly of type ``cls``, else a message naming its JSON type."""
    if type(value) is not cls:
        expected = {list: "array", dict: "object", str: "string"}[cls]
        raise Invalid(f"{where}: expected a JSON {expected}; got the JSON {json_type(value)}")
    return value
