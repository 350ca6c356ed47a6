"""Safe model persistence: :func:`save` a linclass estimator to one file and :func:`load` it back.

Loading never executes code from the file: there is no pickle, no ``eval`` and no import of a name
taken from the file.  A file can only ever produce the objects of a fixed allowlist (below), built
from plain values and raw numeric arrays, and everything is checked before it is used.

File format ``linclass-model``, format_version 1
================================================

One file (suggested extension ``.linclass``) that is a ZIP archive with exactly these entries:

``arrays/<n>.npy``  (``n`` = 0, 1, 2, ...; stored uncompressed)
    One NumPy ``.npy`` file (format 1.0 or 2.0) per distinct array of the model.  Only the dtype
    kinds bool, signed / unsigned integer, float, complex and fixed-width unicode string are
    allowed (so never an object array, which would need pickle).  An array that appears several
    times in the model (the same object) is stored once and loaded as one object again.
``metadata.json``  (UTF-8 JSON; deflate-compressed, or stored when it is extremely repetitive)
    A JSON object with exactly the keys

    ``format``           ``"linclass-model"``
    ``format_version``   ``1`` (an integer; bumped on every incompatible change)
    ``linclass_version`` the version of linclass that wrote the file (informative)
    ``estimator``        class name of the top-level estimator (informative; equals ``model.class``)
    ``arrays``           ``{"arrays/<n>.npy": {"dtype": "<f8", "shape": [150, 4],
                         "fortran_order": false, "sha256": "<hex of the whole .npy entry>"}}``
    ``model``            the estimator as a tree of *nodes* (below)

Nodes of the ``model`` tree
---------------------------

* JSON ``null`` / ``true`` / ``false`` / integer / number / string: ``None`` / ``bool`` / ``int``
  (any size) / finite ``float`` (written with ``repr``, so exactly) / ``str``.
* JSON array: a ``list`` of nodes.
* Every JSON object is a tagged node, ``{"__type__": TAG, ...}`` with exactly these keys:

  ``{"__type__": "float", "value": "nan" | "inf" | "-inf"}``
      a non-finite float
  ``{"__type__": "tuple", "items": [node, ...]}``
      a tuple
  ``{"__type__": "dict", "items": {"key": node, ...}}``
      a dict with ``str`` keys
  ``{"__type__": "dict", "pairs": [[key node, value node], ...]}``
      a dict with other keys (None, bool, int, float, str, numpy scalars, tuples of those)
  ``{"__type__": "ndarray", "entry": "arrays/<n>.npy"}``
      a numpy array, one of the ``arrays``; with ``"as_object": true``, an object array of Python
      ``str`` (such as scikit-learn's ``feature_names_in_``), stored as a unicode array
  ``{"__type__": "numpy.scalar", "dtype": "<f8", "value": node}``
      a numpy bool / int / float (up to 64 bits) / str scalar
  ``{"__type__": "numpy.Generator", "bit_generator": "PCG64", "state": node}``
      a ``numpy.random.Generator``, by its bit generator's ``state`` dict
  ``{"__type__": "numpy.RandomState", "state": node}``
      a legacy ``numpy.random.RandomState``, by ``get_state(legacy=False)``
  ``{"__type__": "dataclass", "class": "linclass.stats.ClassStats", "fields": {"name": node}}``
      one of the allowlisted fitted-state records, by its fields
  ``{"__type__": "estimator", "class": "LogisticRegression", "params": {...}, "state": {...}}``
      an allowlisted estimator: ``params`` are ``get_params(deep=False)`` (passed to the
      constructor on load), ``state`` every other entry of the instance ``__dict__`` (fitted
      attributes, private ones such as ``_rng`` or ``_inference`` included)
  ``{"__type__": "ref", "index": k}``
      the same object as the k-th ``estimator`` / ``dataclass`` node (counted from 0 in the order
      the nodes start in the file): an object held in two places (``KClassDiscriminant.estimator_``
      and its ``estimators_[0]``) is stored once and is one object again after loading

Any other JSON object, tag, key or type is an error (so is a ``ref`` to a node that has not
finished: reference cycles cannot be stored).  Estimators nest (a meta-estimator's
``estimator`` parameter or ``estimators_`` list are ordinary nodes).

Allowlist
    Estimators: the classes of :mod:`linclass.registry` (every public estimator, the multi-class
    wrappers included).  Records (by the names written in files, which stay fixed wherever the
    classes live): :class:`linclass.kernels.Kernel`,
    :class:`linclass.stats.ClassStats`, :class:`linclass.gaussian.GaussianModel`,
    :class:`linclass.fisher.FisherModel`, :class:`linclass.kernel_fisher.KernelFisherModel`,
    :class:`linclass.naive_bayes.DiscreteModel`.  Bit generators: PCG64, PCG64DXSM, MT19937,
    Philox, SFC64.  The classes must match exactly (a subclass is refused on save).

What :func:`save` refuses (:class:`UnsupportedObjectError`, naming the attribute)
    callables (a callable ``kernel`` or ``basis``), object arrays other than arrays of ``str``,
    structured / datetime / bytes arrays, numpy subclasses (``np.matrix``, masked arrays), sparse
    matrices, and any object not in the table above.  It also refuses reference cycles and nesting
    deeper than 64 levels.  (Containers are copied, not shared: a list held in two attributes
    loads as two equal lists; arrays, estimators and records keep their sharing.)

What :func:`load` checks (:class:`ModelFileError`, naming the file and the problem) before using
anything: the file starts like a ZIP archive (a pickle, a CSV, ... are refused without being
parsed); the archive has ``metadata.json`` and exactly the ``arrays`` entries it declares, no
encrypted entry, only the stored / deflate methods; every entry's declared size and compression
ratio is within bounds (:data:`MAX_METADATA_BYTES`, :data:`MAX_COMPRESSION_RATIO`) *before* it is
decompressed, and decompression never yields more than the declared size; ``format`` and
``format_version``; each ``.npy`` header (parsed as a literal, at most :data:`MAX_NPY_HEADER_BYTES`)
agrees with the declared dtype and shape and the entry holds exactly the payload that implies; the
CRC-32 of each entry and the SHA-256 of each array; every node's tag, keys and types; that
estimator parameters pass the estimator's own parameter validation.  (The checksums detect
corruption and careless edits; they are not a signature.  Safety does not rest on them: whoever
writes a file can only ever make load() build allowlisted objects from checked plain data.)

Writing is atomic: the archive is written to a temporary file in the target's directory, flushed
and ``fsync``-ed, then moved over the target with :func:`os.replace`; a failed save leaves no
temporary file behind and the previous file (if any) untouched.

Compatibility: a file of format_version 1 will load in every later linclass (the tests keep golden
files of version 1); a file of a newer version is refused with a message saying which version it
has and which this linclass reads.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import math
import os
import re
import struct
import sys
import tokenize
import zipfile
import zlib
from pathlib import Path

import numpy as np

from linclass import registry
from linclass.core.class_stats import ClassStats
from linclass.io.atomic import atomic_write
from linclass.generative.discrete import DiscreteModel
from linclass.generative.fisher import FisherModel
from linclass.generative.gaussian import GaussianModel
from linclass.generative.kernel_fisher import KernelFisherModel
from linclass.generative.kernels import Kernel

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "ModelFileError",
    "UnsupportedObjectError",
    "load",
    "save",
]

FORMAT_NAME = "linclass-model"
FORMAT_VERSION = 1

#: Largest ``metadata.json`` accepted (uncompressed bytes).
MAX_METADATA_BYTES = 64 * 2**20
#: Largest ratio of uncompressed to compressed size of an entry, or of the whole archive to its
#: file size (beyond :data:`RATIO_SLACK_BYTES`); linclass itself writes arrays uncompressed.
MAX_COMPRESSION_RATIO = 100
#: Uncompressed bytes an entry may have whatever its compression ratio.
RATIO_SLACK_BYTES = 64 * 2**10
#: Largest ``.npy`` header accepted.
MAX_NPY_HEADER_BYTES = 64 * 2**10
#: Most entries an archive may have.
MAX_ENTRIES = 1_000_000
#: Deepest nesting of nodes (containers, records, estimators).
MAX_DEPTH = 64
_CHUNK_BYTES = 8 * 2**20  # arrays are read in pieces of this size

_METADATA = "metadata.json"
_ARRAY_NAME = re.compile(r"arrays/(0|[1-9][0-9]{0,8})\.npy")
_ZIP_MAGIC = b"PK\x03\x04"
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed, so that the same model gives the same bytes
_ARRAY_KINDS = frozenset("biufcU")
_SCALAR_KINDS = frozenset("biufU")
_NONFINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_ATTRIBUTE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# ------------------------------------------------------------------------------------- allowlists
# estimators: the classes of linclass.registry, by class name.  Fitted-state records: by the name
# written in the file, which is where the class lived when format version 1 was defined (a stable
# identifier, not an import path: the class may live elsewhere now).
_RECORDS = {
    "linclass.kernels.Kernel": Kernel,
    "linclass.stats.ClassStats": ClassStats,
    "linclass.gaussian.GaussianModel": GaussianModel,
    "linclass.fisher.FisherModel": FisherModel,
    "linclass.kernel_fisher.KernelFisherModel": KernelFisherModel,
    "linclass.naive_bayes.DiscreteModel": DiscreteModel,
}
_RECORD_NAMES = {cls: name for name, cls in _RECORDS.items()}
_BIT_GENERATORS = {
    name: getattr(np.random, name) for name in ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
}


def _estimator_class(name: str):
    entry = registry.by_name(name)
    return None if entry is None else entry.cls


def _record_class(name: str):
    return _RECORDS.get(name)


def _record_name(cls) -> str:
    return _RECORD_NAMES.get(cls, f"{cls.__module__}.{cls.__qualname__}")


def _linclass_version() -> str:
    package = sys.modules.get("linclass")
    return str(getattr(package, "__version__", "unknown"))


# ----------------------------------------------------------------------------------------- errors
class ModelFileError(ValueError):
    """A file that is not a valid linclass model file (or not one this linclass can read).

    Attributes
    ----------
    path : str
        The file.
    problem : str
        What is wrong with it.
    """

    def __init__(self, path, problem: str):
        self.path = os.fspath(path)
        self.problem = problem
        super().__init__(f"Cannot load the linclass model file {self.path!r}: {problem}")


class UnsupportedObjectError(TypeError):
    """:func:`save` met a value it cannot store safely; ``attribute`` says where (e.g.
    ``'KernelFisherDiscriminantAnalysis.kernel'``)."""

    def __init__(self, attribute: str, problem: str):
        self.attribute = attribute
        self.problem = problem
        super().__init__(f"Cannot save {attribute}: {problem}")


class _Invalid(Exception):
    """Internal: a problem in the file, raised with the place in the model tree."""


# ----------------------------------------------------------------------------------------- encode
def _describe(obj) -> str:
    cls = type(obj)
    text = repr(obj)
    if len(text) > 80:
        text = text[:77] + "..."
    return f"{cls.__module__}.{cls.__qualname__} ({text})"


class _Encoder:
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
        if depth > MAX_DEPTH:
            raise UnsupportedObjectError(
                where, f"nested more than {MAX_DEPTH} levels deep (a reference cycle?)"
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
            if state.get("bit_generator") not in _BIT_GENERATORS:
                raise UnsupportedObjectError(where, f"unsupported bit generator {state.get('bit_generator')!r}")
            return {"__type__": "numpy.RandomState", "state": self.encode(state, f"{where}.state", depth + 1)}
        if _estimator_class(cls.__name__) is cls:
            return self._shared(obj, where, lambda: self._estimator(obj, where, depth))
        if dataclasses.is_dataclass(obj) and _record_class(_record_name(cls)) is cls:
            return self._shared(obj, where, lambda: self._record(obj, where, depth))
        if callable(obj):
            raise UnsupportedObjectError(
                where, f"a callable ({_describe(obj)}) cannot be stored safely: loading it would mean "
                "running code from the file. Use one of the built-in options (a kernel or basis name) "
                "to save this model, or keep the callable's source and refit.",
            )
        raise UnsupportedObjectError(
            where, f"objects of type {_describe(obj)} cannot be stored safely (only None, bool, int, "
            "float, str, list, tuple, dict, numpy arrays and scalars, numpy random generators, and "
            "linclass estimators and their fitted-state records can).",
        )

    def _dict(self, obj: dict, where: str, depth: int):
        if all(type(k) is str for k in obj):
            return {"__type__": "dict",
                    "items": {k: self.encode(v, f"{where}[{k!r}]", depth + 1) for k, v in obj.items()}}
        pairs = []
        for k, v in obj.items():
            if not _is_key(k):
                raise UnsupportedObjectError(f"{where}[{k!r}]", f"dictionary key of type {_describe(k)} "
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
                if dtype.kind not in _ARRAY_KINDS or dtype.fields is not None or dtype.subdtype is not None:
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
        if dtype.kind not in _SCALAR_KINDS or (dtype.kind == "f" and dtype.itemsize > 8):
            raise UnsupportedObjectError(where, f"numpy scalars of dtype {dtype} cannot be stored")
        value = obj.item()
        if dtype.kind == "f":
            value = self.encode(float(value), where)
        return {"__type__": "numpy.scalar", "dtype": dtype.str, "value": value}

    def _generator(self, obj, where: str, depth: int):
        bit_generator = obj.bit_generator
        name = type(bit_generator).__name__
        if _BIT_GENERATORS.get(name) is not type(bit_generator):
            raise UnsupportedObjectError(where, f"unsupported bit generator {_describe(bit_generator)}")
        return {"__type__": "numpy.Generator", "bit_generator": name,
                "state": self.encode(bit_generator.state, f"{where}.bit_generator.state", depth + 1)}

    def _record(self, obj, where: str, depth: int):
        names = [f.name for f in dataclasses.fields(obj)]
        extra = sorted(set(vars(obj)) - set(names))
        if extra:
            raise UnsupportedObjectError(where, f"attributes {extra} are not fields of {type(obj).__name__}")
        return {"__type__": "dataclass", "class": _record_name(type(obj)),
                "fields": {n: self.encode(getattr(obj, n), f"{where}.{n}", depth + 1) for n in names}}

    def _estimator(self, obj, where: str, depth: int):
        cls = type(obj)
        _check_params(obj, lambda problem: UnsupportedObjectError(where, problem))
        params = obj.get_params(deep=False)
        state = {}
        for key, value in vars(obj).items():
            if type(key) is not str or not _ATTRIBUTE.fullmatch(key) or _is_dunder(key):
                raise UnsupportedObjectError(f"{where}.{key}", "not a plain attribute name")
            if key not in params:
                state[key] = value
        return {
            "__type__": "estimator",
            "class": cls.__name__,
            "params": {k: self.encode(v, f"{where}.{k}", depth + 1) for k, v in params.items()},
            "state": {k: self.encode(v, f"{where}.{k}", depth + 1) for k, v in state.items()},
        }


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _is_key(k) -> bool:
    cls = type(k)
    if k is None or cls in (bool, int, float, str):
        return True
    if isinstance(k, np.generic):
        return True
    return cls is tuple and all(_is_key(v) for v in k)


def _object_strings(arr: np.ndarray, where: str) -> np.ndarray:
    """An object array whose elements are all ``str``, as a unicode array that converts back to it."""
    flat = arr.ravel(order="K")
    for value in flat:
        if type(value) is not str:
            raise UnsupportedObjectError(
                where, f"object-dtype array holding {_describe(value)}: only object arrays whose "
                "elements are all str can be stored; convert it to a numeric or string dtype first",
            )
    data = np.asarray(arr, dtype=str if arr.size else "<U1", order="K")
    if data.astype(object).tolist() != arr.tolist():  # e.g. trailing NUL characters
        raise UnsupportedObjectError(where, "object-dtype array of str that a unicode array cannot hold exactly")
    return data


def _check_params(obj, error) -> None:
    """The estimator's own parameter validation (scikit-learn's ``_validate_params``), if it has one."""
    if getattr(type(obj), "_parameter_constraints", None) is None or not hasattr(obj, "_validate_params"):
        return
    try:
        obj._validate_params()
    except (ValueError, TypeError) as exc:
        raise error(f"invalid parameters: {exc}") from exc


# ------------------------------------------------------------------------------------------- save
class _HashingWriter:
    def __init__(self, fh):
        self._fh = fh
        self.sha256 = hashlib.sha256()

    def write(self, data) -> int:
        data = memoryview(data).cast("B")
        self.sha256.update(data)
        return self._fh.write(data)


def _zip_info(name: str, compress_type: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
    info.compress_type = compress_type
    info.external_attr = 0o644 << 16
    return info


def _write_archive(fh, encoder: _Encoder, metadata: dict) -> None:
    with zipfile.ZipFile(fh, "w", allowZip64=True) as zf:
        for entry, arr in encoder.arrays.items():
            big = arr.nbytes > 2**31 - 2**20
            with zf.open(_zip_info(entry, zipfile.ZIP_STORED), "w", force_zip64=big) as out:
                writer = _HashingWriter(out)
                np.lib.format.write_array(writer, arr, allow_pickle=False)
            encoder.table[entry]["sha256"] = writer.sha256.hexdigest()
        metadata["arrays"] = encoder.table
        text = json.dumps(metadata, allow_nan=False, ensure_ascii=True, indent=1).encode("ascii")
        # deflate, unless that would give a ratio that load() refuses (very repetitive metadata)
        compressor = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
        size = len(compressor.compress(text) + compressor.flush())
        method = zipfile.ZIP_DEFLATED if len(text) <= MAX_COMPRESSION_RATIO // 2 * size else zipfile.ZIP_STORED
        zf.writestr(_zip_info(_METADATA, method), text)


def save(model, path) -> Path:
    """Write an estimator (fitted or not) to one file, atomically.

    Parameters
    ----------
    model : a linclass estimator
        Any public linclass estimator (also meta-estimators of :mod:`linclass.estimators.multiclass` and
        estimators nested in them).
    path : str or os.PathLike
        The file to write (``.linclass`` suggested, not enforced); an existing file is replaced only
        once the new one is complete on disk.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    UnsupportedObjectError
        The model holds something that cannot be stored safely (a callable kernel or basis, an
        object array, an unknown object...); the message names the attribute.  Nothing is written.
    """
    path = Path(os.fspath(path))
    name = type(model).__name__
    if _estimator_class(name) is not type(model):
        raise UnsupportedObjectError(
            name, f"save() stores linclass estimators only; got {_describe(model)}"
        )
    encoder = _Encoder()
    tree = encoder.encode(model, name)  # every refusal happens here, before the disk is touched
    metadata = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "linclass_version": _linclass_version(),
        "estimator": name,
        "arrays": None,
        "model": tree,
    }
    atomic_write(path, lambda fh: _write_archive(fh, encoder, metadata))
    return path


# ------------------------------------------------------------------------------------------- load
def load(path):
    """Read an estimator written by :func:`save`.

    Nothing in the file is executed: no pickle, no eval, no import of a name from the file; only
    the allowlisted classes (see the module documentation) can be produced.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    estimator
        The estimator, with the same parameters and fitted state (identical predictions; training
        methods such as ``partial_fit`` continue where the saved one stopped).

    Raises
    ------
    FileNotFoundError
        No such file.
    ModelFileError
        The file is not a valid linclass model file: truncated, corrupted, tampered with, of another
        format, of a newer format version, or exceeding the size limits.  The message names the file
        and the problem.
    """
    path = os.fspath(path)
    with open(path, "rb") as fh:
        try:
            return _load(fh, path)
        except ModelFileError:
            raise
        except _Invalid as exc:
            raise ModelFileError(path, str(exc)) from None
        except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
            raise ModelFileError(path, f"the archive is corrupted or truncated ({exc})") from exc
        except (OSError, ValueError, TypeError, KeyError, IndexError, OverflowError, NotImplementedError,
                RecursionError, LookupError, ArithmeticError, AttributeError, MemoryError,
                struct.error) as exc:
            # anything else that reading damaged content can raise in zipfile / zlib / struct
            raise ModelFileError(path, f"unreadable ({type(exc).__name__}: {exc})") from exc


def _load(fh, path: str):
    start = fh.read(len(_ZIP_MAGIC))
    if start != _ZIP_MAGIC:
        raise _Invalid(f"not a linclass model file: it is not a ZIP archive ({_sniff(start + fh.read(60))})")
    fh.seek(0, os.SEEK_END)
    file_size = fh.tell()
    fh.seek(0)
    try:
        zf = zipfile.ZipFile(fh, "r")
    except zipfile.BadZipFile as exc:
        raise _Invalid(f"not a valid ZIP archive: the file is truncated or corrupted ({exc})") from None
    with zf:
        infos = _check_archive(zf, file_size)
        if _METADATA not in infos:
            raise _Invalid(f"not a linclass model file: the archive has no {_METADATA} "
                           f"(entries: {_list(sorted(infos))})")
        metadata = _read_metadata(zf, infos[_METADATA])
        table = _check_header(metadata, infos)
        if not _is_estimator_node(metadata["model"]) or metadata["model"]["class"] != metadata["estimator"]:
            raise _Invalid(f"'estimator' is {metadata['estimator']!r} but 'model' is not an estimator "
                           "node of that class")
        reader = _ArrayReader(zf, infos, table)
        try:
            model = _Decoder(reader).decode(metadata["model"], "model", 0)
        except RecursionError:
            raise _Invalid("the model tree is nested too deeply") from None
        unused = sorted(set(table) - reader.used)
        if unused:
            raise _Invalid(f"array entries that the model does not use: {_list(unused)}")
        return model


def _sniff(head: bytes) -> str:
    if not head:
        return "it is empty"
    if head[:1] == b"\x80" or head[:2] in (b"(d", b"(l", b"}q", b"]q", b"cc"):
        return "it looks like a Python pickle, which linclass never loads"
    if head.startswith(b"\x93NUMPY"):
        return "it is a bare .npy file"
    if head.startswith(b"\x89HDF"):
        return "it is an HDF5 file"
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return f"it starts with bytes {head[:8]!r}"
    return f"it starts with text {text[:20]!r}"


def _list(names) -> str:
    names = list(names)
    shown = ", ".join(repr(n) for n in names[:5])
    return shown + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _check_archive(zf: zipfile.ZipFile, file_size: int) -> dict:
    """Entry names, methods and declared sizes, checked before anything is decompressed."""
    infos = zf.infolist()
    if len(infos) > MAX_ENTRIES:
        raise _Invalid(f"the archive has {len(infos)} entries; at most {MAX_ENTRIES} are accepted")
    by_name = {}
    total = compressed = 0
    for info in infos:
        name = info.filename
        if name in by_name:
            raise _Invalid(f"the archive has two entries named {name!r}")
        by_name[name] = info
        if name != _METADATA and not _ARRAY_NAME.fullmatch(name):
            continue  # reported below, after it is known whether this is a linclass file at all
        if info.flag_bits & 0x1:
            raise _Invalid(f"entry {name!r} is encrypted")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise _Invalid(f"entry {name!r} uses an unsupported compression method ({info.compress_type})")
        if info.compress_type == zipfile.ZIP_STORED and info.compress_size != info.file_size:
            raise _Invalid(f"entry {name!r} is stored uncompressed but declares {info.file_size} bytes "
                           f"and holds {info.compress_size}")
        if info.file_size > MAX_COMPRESSION_RATIO * info.compress_size + RATIO_SLACK_BYTES:
            raise _Invalid(
                f"entry {name!r} declares {info.file_size} bytes compressed into {info.compress_size}: "
                f"a compression ratio above {MAX_COMPRESSION_RATIO} (a zip bomb?) is refused"
            )
        total += info.file_size
        compressed += info.compress_size
    if compressed > file_size:
        raise _Invalid(f"the entries declare {compressed} compressed bytes in a file of {file_size}")
    if total > MAX_COMPRESSION_RATIO * file_size + 16 * RATIO_SLACK_BYTES:
        raise _Invalid(f"the entries declare {total} bytes in a file of {file_size}: a compression "
                       f"ratio above {MAX_COMPRESSION_RATIO} (a zip bomb?) is refused")
    return by_name


def _read_entry_bounded(zf: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> bytes:
    if info.file_size > limit:
        raise _Invalid(f"entry {info.filename!r} declares {info.file_size} bytes; at most {limit} are accepted")
    with zf.open(info) as f:
        data = f.read(info.file_size + 1)
    if len(data) != info.file_size:
        raise _Invalid(f"entry {info.filename!r} holds {len(data)} bytes but declares {info.file_size}")
    return data


def _reject_constant(name):
    raise _Invalid(f"{_METADATA} is not strict JSON (it contains {name})")


def _no_duplicates(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise _Invalid(f"{_METADATA} repeats the key {key!r} in one object")
        obj[key] = value
    return obj


def _read_metadata(zf, info) -> dict:
    raw = _read_entry_bounded(zf, info, MAX_METADATA_BYTES)
    try:
        text = raw.decode("utf-8")
        metadata = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_no_duplicates)
    except UnicodeDecodeError:
        raise _Invalid(f"{_METADATA} is not UTF-8 text") from None
    except RecursionError:
        raise _Invalid(f"{_METADATA} is nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, too-long integers
        raise _Invalid(f"{_METADATA} is not valid JSON ({exc})") from None
    if type(metadata) is not dict:
        raise _Invalid(f"not a linclass model file: {_METADATA} is a JSON {_json_type(metadata)}, not an object")
    return metadata


def _json_type(value) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer",
            float: "number", type(None): "null"}.get(type(value), type(value).__name__)


def _check_header(metadata: dict, infos: dict) -> dict:
    """format, format_version, keys; the arrays table against the archive. Returns the table."""
    if metadata.get("format") != FORMAT_NAME:
        raise _Invalid(f"not a linclass model file: {_METADATA} has format {metadata.get('format')!r}, "
                       f"not {FORMAT_NAME!r}")
    version = metadata.get("format_version")
    if type(version) is not int:
        raise _Invalid(f"format_version must be an integer; got the JSON {_json_type(version)} {version!r}")
    if version != FORMAT_VERSION:
        written = metadata.get("linclass_version")
        by = f" by linclass {written}" if type(written) is str else ""
        if version > FORMAT_VERSION:
            raise _Invalid(
                f"the file has format_version {version} (written{by}), but this linclass "
                f"({_linclass_version()}) reads format_version {FORMAT_VERSION} only: upgrade linclass "
                "to load it"
            )
        raise _Invalid(f"the file has format_version {version}, which no linclass ever wrote; this "
                       f"linclass reads format_version {FORMAT_VERSION}")
    expected = {"format", "format_version", "linclass_version", "estimator", "arrays", "model"}
    if set(metadata) != expected:
        missing, extra = sorted(expected - set(metadata)), sorted(set(metadata) - expected)
        raise _Invalid(f"{_METADATA} has the wrong keys (missing {missing}, unexpected {extra})")
    for key in ("linclass_version", "estimator"):
        if type(metadata[key]) is not str:
            raise _Invalid(f"{key} must be a string; got the JSON {_json_type(metadata[key])}")
    table = metadata["arrays"]
    if type(table) is not dict:
        raise _Invalid(f"'arrays' must be a JSON object; got the JSON {_json_type(table)}")
    unexpected = sorted(set(infos) - set(table) - {_METADATA})
    if unexpected:
        raise _Invalid(f"the archive has entries that {_METADATA} does not declare: {_list(unexpected)}")
    for entry, spec in table.items():
        where = f"arrays[{entry!r}]"
        if not _ARRAY_NAME.fullmatch(entry):
            raise _Invalid(f"{where}: not a valid array entry name")
        if entry not in infos:
            raise _Invalid(f"{where}: the archive has no such entry (the file is incomplete)")
        if type(spec) is not dict or set(spec) != {"dtype", "shape", "fortran_order", "sha256"}:
            raise _Invalid(f"{where} must be an object with keys dtype, shape, fortran_order, sha256")
        dtype = _parse_dtype(spec["dtype"], _ARRAY_KINDS, where)
        shape = spec["shape"]
        if (type(shape) is not list or len(shape) > 64
                or not all(type(n) is int and 0 <= n < 2**63 for n in shape)):
            raise _Invalid(f"{where}: shape must be a list of non-negative integers; got {shape!r}")
        if type(spec["fortran_order"]) is not bool:
            raise _Invalid(f"{where}: fortran_order must be true or false")
        digest = spec["sha256"]
        if type(digest) is not str or not re.fullmatch(r"[0-9a-f]{64}", digest):
            raise _Invalid(f"{where}: sha256 must be 64 lowercase hexadecimal digits")
        nbytes = math.prod(shape) * dtype.itemsize
        size = infos[entry].file_size
        if not 0 < size - nbytes <= MAX_NPY_HEADER_BYTES + 16:
            raise _Invalid(
                f"{where}: the entry declares {size} bytes, which does not fit the declared dtype "
                f"{dtype.str} and shape {tuple(shape)} ({nbytes} bytes of data plus a header)"
            )
    return table


def _parse_dtype(text, kinds, where: str) -> np.dtype:
    if type(text) is not str or len(text) > 16:
        raise _Invalid(f"{where}: dtype must be a short string; got {text!r}")
    try:
        dtype = np.dtype(text)
    except (TypeError, ValueError, SyntaxError):  # numpy parses 'f8,(' with ast: a SyntaxError
        raise _Invalid(f"{where}: unknown dtype {text!r}") from None
    if dtype.str != text or dtype.kind not in kinds or dtype.fields is not None or dtype.subdtype is not None:
        raise _Invalid(f"{where}: dtype {text!r} is not allowed (only {''.join(sorted(kinds))} kinds)")
    return dtype


class _ArrayReader:
    """Reads each declared array once, with every check made before its memory is allocated."""

    def __init__(self, zf, infos, table):
        self.zf, self.infos, self.table = zf, infos, table
        self.cache: dict[tuple[str, bool], np.ndarray] = {}
        self.used: set[str] = set()

    def get(self, entry: str, as_object: bool, where: str) -> np.ndarray:
        if entry not in self.table:
            raise _Invalid(f"{where}: array entry {entry!r} is not declared in 'arrays'")
        key = (entry, as_object)
        if key not in self.cache:
            raw = self.cache.get((entry, not as_object))
            if raw is None:
                raw = self._read(entry)
            self.used.add(entry)
            if as_object:
                if raw.dtype.kind != "U":
                    raise _Invalid(f"{where}: as_object is only valid for unicode arrays, not {raw.dtype}")
                self.cache[key] = raw.astype(object)
            else:
                self.cache[key] = raw
        return self.cache[key]

    def _read(self, entry: str) -> np.ndarray:
        spec = self.table[entry]
        info = self.infos[entry]
        dtype = np.dtype(spec["dtype"])
        shape = tuple(spec["shape"])
        nbytes = math.prod(shape) * dtype.itemsize
        where = f"array entry {entry!r}"
        with self.zf.open(info) as f:
            digest = hashlib.sha256()
            magic = _read_exactly(f, 8, where, digest)
            if magic[:6] != b"\x93NUMPY" or magic[6:] not in (b"\x01\x00", b"\x02\x00"):
                raise _Invalid(f"{where} is not a .npy file of format 1.0 or 2.0")
            size_field = 2 if magic[6] == 1 else 4
            length_bytes = _read_exactly(f, size_field, where, digest)
            length = int.from_bytes(length_bytes, "little")
            if length > MAX_NPY_HEADER_BYTES:
                raise _Invalid(f"{where} has a .npy header of {length} bytes (at most {MAX_NPY_HEADER_BYTES})")
            header = _read_exactly(f, length, where, digest)
            read_header = (np.lib.format.read_array_header_1_0 if size_field == 2
                           else np.lib.format.read_array_header_2_0)
            try:  # numpy parses the header as a Python literal (ast.literal_eval), never as code
                h_shape, h_fortran, h_dtype = read_header(io.BytesIO(length_bytes + header),
                                                          max_header_size=MAX_NPY_HEADER_BYTES)
            except (ValueError, TypeError, SyntaxError, tokenize.TokenError) as exc:
                # (numpy tokenizes the header before parsing it: an unbalanced bracket is a
                # TokenError, which is none of the others)
                raise _Invalid(f"{where} has an invalid .npy header ({exc})") from None
            if h_dtype != dtype or h_dtype.str != dtype.str:
                raise _Invalid(f"{where} holds dtype {h_dtype} but {_METADATA} declares {dtype.str}")
            if tuple(h_shape) != shape:
                raise _Invalid(f"{where} holds shape {tuple(h_shape)} but {_METADATA} declares shape {shape}")
            if bool(h_fortran) != spec["fortran_order"]:
                raise _Invalid(f"{where}: fortran_order differs from what {_METADATA} declares")
            payload = info.file_size - 8 - size_field - length
            if payload != nbytes:
                raise _Invalid(f"{where} holds {payload} bytes of data; dtype {dtype.str} and shape "
                               f"{shape} need {nbytes}")
            buffer = bytearray(nbytes)
            view = memoryview(buffer)
            done = 0
            while done < nbytes:  # bounded chunks: ZipExtFile.readinto would copy the whole entry
                chunk = f.read(min(nbytes - done, _CHUNK_BYTES))
                if not chunk:
                    raise _Invalid(f"{where} is truncated")
                view[done:done + len(chunk)] = chunk
                done += len(chunk)
            if f.read(1):
                raise _Invalid(f"{where} holds more data than declared")
            digest.update(buffer)
        if digest.hexdigest() != spec["sha256"]:
            raise _Invalid(f"{where} does not match its SHA-256 checksum: the file was modified or corrupted")
        if dtype.itemsize == 0:
            arr = np.zeros(shape, dtype=dtype)
        else:
            arr = np.frombuffer(buffer, dtype=dtype).reshape(shape, order="F" if h_fortran else "C")
        _check_values(arr, where)
        return arr


def _read_exactly(f, n: int, where: str, digest) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise _Invalid(f"{where} is truncated")
    digest.update(data)
    return data


def _check_values(arr: np.ndarray, where: str) -> None:
    """Bytes that numpy would misread: booleans other than 0/1, invalid unicode code points."""
    if arr.dtype.kind == "b" and arr.size and arr.view(np.uint8).max() > 1:
        raise _Invalid(f"{where} holds boolean bytes other than 0 and 1")
    if arr.dtype.kind == "U" and arr.size:
        codes = np.ascontiguousarray(arr).view(np.dtype(arr.dtype.byteorder + "u4"))
        if arr.dtype.byteorder == ">" or (arr.dtype.byteorder == "=" and sys.byteorder == "big"):
            codes = codes.astype("<u4")
        if np.any(codes > 0x10FFFF) or np.any((codes >= 0xD800) & (codes <= 0xDFFF)):
            raise _Invalid(f"{where} holds invalid unicode code points")


def _is_estimator_node(node) -> bool:
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


class _Decoder:
    """Strict inverse of :class:`_Encoder`: every tag, key and type is checked."""

    def __init__(self, reader: _ArrayReader):
        self.reader = reader
        self.objects: list = []  # estimators and records in node order (_PENDING while decoding)

    def decode(self, node, where: str, depth: int):
        if depth > MAX_DEPTH:
            raise _Invalid(f"{where}: nested more than {MAX_DEPTH} levels deep")
        cls = type(node)
        if node is None or cls in (bool, int, float, str):
            return node
        if cls is list:
            return [self.decode(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(node)]
        if cls is not dict:  # pragma: no cover - json produces nothing else
            raise _Invalid(f"{where}: unexpected {cls.__name__}")
        tag = node.get("__type__")
        if type(tag) is not str or tag not in _TAG_KEYS:
            raise _Invalid(f"{where}: a JSON object must be a node with a known '__type__'; got "
                           f"__type__={tag!r}")
        keys = set(node) - {"__type__"}
        if keys not in _TAG_KEYS[tag]:
            allowed = " or ".join(str(sorted(k)) for k in _TAG_KEYS[tag])
            raise _Invalid(f"{where}: a {tag!r} node must have the keys {allowed}; got {sorted(keys)}")
        return getattr(self, "_" + tag.replace(".", "_"))(node, where, depth)

    # ----------------------------------------------------------------------------------- nodes
    def _float(self, node, where, depth):
        value = node["value"]
        if type(value) is not str or value not in _NONFINITE:
            raise _Invalid(f"{where}: a 'float' node holds 'nan', 'inf' or '-inf'; got {value!r}")
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
                raise _Invalid(f"{where}.pairs[{i}]: must be a [key, value] pair")
            key = self.decode(pair[0], f"{where}.pairs[{i}] (key)", depth + 1)
            if not _is_key(key):
                raise _Invalid(f"{where}.pairs[{i}]: key of type {type(key).__name__} is not allowed")
            if key in out:
                raise _Invalid(f"{where}.pairs[{i}]: the key {key!r} appears twice")
            out[key] = self.decode(pair[1], f"{where}[{key!r}]", depth + 1)
        return out

    def _ndarray(self, node, where, depth):
        entry = _typed(node["entry"], str, f"{where}.entry")
        as_object = node.get("as_object", False)
        if "as_object" in node and as_object is not True:
            raise _Invalid(f"{where}: as_object, when present, must be true")
        return self.reader.get(entry, as_object, where)

    def _numpy_scalar(self, node, where, depth):
        dtype = _parse_dtype(node["dtype"], _SCALAR_KINDS, where)
        if dtype.kind == "f" and dtype.itemsize > 8:
            raise _Invalid(f"{where}: dtype {dtype.str} is not allowed")
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
            raise _Invalid(f"{where}: a numpy scalar of dtype {dtype.str} cannot hold the JSON "
                           f"{_json_type(raw)} {raw!r}")
        try:
            with np.errstate(all="ignore"):
                scalar = dtype.type(value)
        except (OverflowError, ValueError, TypeError) as exc:
            raise _Invalid(f"{where}: {raw!r} does not fit dtype {dtype.str} ({exc})") from None
        if scalar.dtype.str != dtype.str:
            raise _Invalid(f"{where}: {raw!r} is not a value of dtype {dtype.str}")
        if kind in "biuU":
            exact = scalar.item() == value
        else:
            exact = float(scalar) == value or (math.isnan(value) and math.isnan(float(scalar)))
        if not exact:
            raise _Invalid(f"{where}: {raw!r} is not exactly representable in dtype {dtype.str}")
        return scalar

    def _numpy_Generator(self, node, where, depth):
        name = node["bit_generator"]
        cls = _BIT_GENERATORS.get(name) if type(name) is str else None
        if cls is None:
            raise _Invalid(f"{where}: unknown bit generator {name!r} (known: {sorted(_BIT_GENERATORS)})")
        state = self.decode(node["state"], f"{where}.state", depth + 1)
        bit_generator = cls()
        try:
            if type(state) is not dict or state.get("bit_generator") != name:
                raise ValueError("it is not a state of this bit generator")
            bit_generator.state = state
        except (ValueError, TypeError, KeyError, OverflowError) as exc:
            raise _Invalid(f"{where}: invalid {name} state ({exc})") from None
        return np.random.Generator(bit_generator)

    def _numpy_RandomState(self, node, where, depth):
        state = self.decode(node["state"], f"{where}.state", depth + 1)
        name = state.get("bit_generator") if type(state) is dict else None
        cls = _BIT_GENERATORS.get(name) if type(name) is str else None
        if cls is None:
            raise _Invalid(f"{where}: a RandomState state names the bit generator {name!r}")
        try:
            rs = np.random.RandomState(cls())
            rs.set_state(state)
        except (ValueError, TypeError, KeyError, OverflowError) as exc:
            raise _Invalid(f"{where}: invalid RandomState state ({exc})") from None
        return rs

    def _ref(self, node, where, depth):
        index = node["index"]
        if type(index) is not int or not 0 <= index < len(self.objects):
            raise _Invalid(f"{where}: 'ref' index {index!r} names no earlier estimator or record node")
        obj = self.objects[index]
        if obj is _PENDING:
            raise _Invalid(f"{where}: 'ref' {index} names a node that contains it (a reference cycle)")
        return obj

    def _dataclass(self, node, where, depth):
        slot = len(self.objects)
        self.objects.append(_PENDING)
        name = node["class"]
        cls = _record_class(name) if type(name) is str else None
        if cls is None:
            raise _Invalid(f"{where}: unknown record class {name!r} (only {sorted(_RECORDS)} can be loaded)")
        values = _typed(node["fields"], dict, f"{where}.fields")
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - set(fields))
        if unknown:
            raise _Invalid(f"{where}: {name} has no fields {unknown}")
        decoded = {k: self.decode(v, f"{where}.{k}", depth + 1) for k, v in values.items()}
        try:
            obj = cls(**{k: v for k, v in decoded.items() if fields[k].init})
        except TypeError as exc:
            raise _Invalid(f"{where}: cannot rebuild {name} ({exc})") from None
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
            raise _Invalid(f"{where}: estimator class must be a string")
        cls = _estimator_class(name)
        if cls is None:
            known = sorted(e.name for e in registry.ENTRIES)
            raise _Invalid(f"{where}: unknown estimator class {name!r}: only the estimators of "
                           f"linclass.registry can be loaded ({', '.join(known)}); a newer linclass "
                           "may know it")
        where = f"{where} ({name})"
        params = _typed(node["params"], dict, f"{where}.params")
        state = _typed(node["state"], dict, f"{where}.state")
        allowed = set(cls._get_param_names())
        unknown = sorted(set(params) - allowed)
        if unknown:
            raise _Invalid(f"{where}: {name} has no parameters {unknown}")
        for key in state:
            if not _ATTRIBUTE.fullmatch(key) or _is_dunder(key) or key in allowed:
                raise _Invalid(f"{where}.state: {key!r} is not a valid fitted attribute name")
        values = {k: self.decode(v, f"{where}.{k}", depth + 1) for k, v in params.items()}
        try:
            obj = cls(**values)
        except TypeError as exc:
            raise _Invalid(f"{where}: cannot rebuild {name} ({exc})") from None
        _check_params(obj, lambda problem: _Invalid(f"{where}: {problem}"))
        attributes = {k: self.decode(v, f"{where}.{k}", depth + 1) for k, v in state.items()}
        vars(obj).update(attributes)
        self.objects[slot] = obj
        return obj


def _typed(value, cls, where: str):
    if type(value) is not cls:
        expected = {list: "array", dict: "object", str: "string"}[cls]
        raise _Invalid(f"{where}: expected a JSON {expected}; got the JSON {_json_type(value)}")
    return value
