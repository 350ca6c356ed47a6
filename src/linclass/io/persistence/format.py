"""The linclass model file: its specification, its limits and its two errors.

:func:`linclass.io.persistence.save` writes it and :func:`linclass.io.persistence.load` reads it.

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

Allowlist (:mod:`linclass.io.persistence.allowlist`)
    Estimators: the classes of :mod:`linclass.registry` (every public estimator, the multi-class
    wrappers included).  Records, by the names written in files, which are the first release's
    module paths and stay fixed wherever the classes live (those paths no longer import):
    ``"linclass.kernels.Kernel"`` (:class:`~linclass.projection.kernels.Kernel`),
    ``"linclass.stats.ClassStats"`` (:class:`~linclass.ClassStats`),
    ``"linclass.gaussian.GaussianModel"`` (:class:`~linclass.generative.gaussian.GaussianModel`),
    ``"linclass.fisher.FisherModel"`` (:class:`~linclass.projection.fisher.FisherModel`),
    ``"linclass.kernel_fisher.KernelFisherModel"``
    (:class:`~linclass.projection.kernel_fisher.KernelFisherModel`),
    ``"linclass.naive_bayes.DiscreteModel"`` (:class:`~linclass.generative.discrete.DiscreteModel`),
    :class:`linclass.formula.FormulaEncoding` (a
    formula model's encoding: the formula as text, factor levels as lists of strings, numbers or
    booleans, transforms' state as numbers; built only after every factor expression of the
    formula passes :mod:`linclass.formula.safety`, so that formulaic never evaluates Python from a
    file beyond column names, literals, arithmetic and the formula transforms).  Bit generators: PCG64, PCG64DXSM, MT19937,
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

import os
import re
import sys

import numpy as np

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "MAX_COMPRESSION_RATIO",
    "MAX_DEPTH",
    "MAX_ENTRIES",
    "MAX_METADATA_BYTES",
    "MAX_NPY_HEADER_BYTES",
    "RATIO_SLACK_BYTES",
    "ModelFileError",
    "UnsupportedObjectError",
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

# (the other modules read the limits above as ``format.NAME`` when they run, so that a test can
# lower one with monkeypatch)

#: The JSON entry of every file.
METADATA = "metadata.json"
#: The name of an array entry.
ARRAY_NAME = re.compile(r"arrays/(0|[1-9][0-9]{0,8})\.npy")
#: dtype kinds an array may have (object arrays of str are stored as unicode arrays).
ARRAY_KINDS = frozenset("biufcU")
#: dtype kinds a numpy scalar may have.
SCALAR_KINDS = frozenset("biufU")


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


class Invalid(Exception):
    """Internal: a problem in the file, raised with the place in the model tree; :func:`load`
    turns it into a :class:`ModelFileError` naming the file."""


def linclass_version() -> str:
    """The version of the running linclass (written into files, and named in messages)."""
    package = sys.modules.get("linclass")
    return str(getattr(package, "__version__", "unknown"))


def json_type(value) -> str:
    """The JSON name of a parsed value's type, for messages."""
    return {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer",
            float: "number", type(None): "null"}.get(type(value), type(value).__name__)


def parse_dtype(text, kinds, where: str) -> np.dtype:
    """The dtype a file names (``"<f8"``), refused unless it is plain, of one of ``kinds``, and
    written exactly as numpy writes it."""
    if type(text) is not str or len(text) > 16:
        raise Invalid(f"{where}: dtype must be a short string; got {text!r}")
    try:
        dtype = np.dtype(text)
    except (TypeError, ValueError, SyntaxError):  # numpy parses 'f8,(' with ast: a SyntaxError
        raise Invalid(f"{where}: unknown dtype {text!r}") from None
    if dtype.str != text or dtype.kind not in kinds or dtype.fields is not None or dtype.subdtype is not None:
        raise Invalid(f"{where}: dtype {text!r} is not allowed (only {''.join(sorted(kinds))} kinds)")
    return dtype

