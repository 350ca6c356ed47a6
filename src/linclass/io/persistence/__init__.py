"""Safe model persistence: :func:`save` a linclass estimator to one file and :func:`load` it back.

Loading never executes code from the file: there is no pickle, no ``eval`` and no import of a name
taken from the file.  A file can only ever produce the objects of a fixed allowlist, built from plain
values and raw numeric arrays, and everything is checked before it is used.

The package, one job per module:

:mod:`~linclass.io.persistence.format`     the file format's specification (read it there), its
                                           version, limits and errors
:mod:`~linclass.io.persistence.allowlist`  which estimators, records, bit generators and names a
                                           file may hold
:mod:`~linclass.io.persistence.encode`     estimator -> node tree + arrays (every refusal of save)
:mod:`~linclass.io.persistence.archive`    the ZIP container: writing it; reading it with its size,
                                           ratio, CRC-32, SHA-256 and ``.npy`` header checks
:mod:`~linclass.io.persistence.decode`     node tree -> objects, strictly
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
import os
import struct
import zipfile
import zlib
from pathlib import Path

from linclass.io.atomic import atomic_write
from linclass.io.persistence import archive
from linclass.io.persistence.allowlist import estimator_class
from linclass.io.persistence.decode import Decoder, is_estimator_node
from linclass.io.persistence.encode import Encoder, describe
from linclass.io.persistence.format import (
    FORMAT_NAME,
    FORMAT_VERSION,
    Invalid,
    ModelFileError,
    UnsupportedObjectError,
    linclass_version,
)

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "ModelFileError",
    "UnsupportedObjectError",
    "load",
    "save",
]

# ------------------------------------------------------------------------------------------- save
def save(model: BaseEstimator, path: str | os.PathLike[str]) -> Path:
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

    See Also
    --------
    linclass.load : Read the file back.
    linclass.to_onnx : Export a fitted classifier to ONNX, for other runtimes.
    skops.io.dump : scikit-learn's documentation recommends skops's safe format over pickle; this
        format, too, builds only the classes it allows.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> import linclass
    >>> X, y = load_iris(return_X_y=True)
    >>> import tempfile, pathlib
    >>> model = linclass.LinearDiscriminantAnalysis().fit(X, y)
    >>> path = linclass.save(model, pathlib.Path(tempfile.mkdtemp()) / 'lda.lcm')
    >>> linclass.load(path).predict(X[[0, 50, 100]])
    array([0, 1, 2])
    """
    path = Path(os.fspath(path))
    name = type(model).__name__
    if estimator_class(name) is not type(model):
        raise UnsupportedObjectError(
            name, f"save() stores linclass estimators only; got {describe(model)}"
        )
    encoder = Encoder()
    tree = encoder.encode(model, name)  # every refusal happens here, before the disk is touched
    metadata = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "linclass_version": linclass_version(),
        "estimator": name,
        "arrays": None,
        "model": tree,
    }
    atomic_write(path, lambda fh: archive.write_archive(fh, encoder.arrays, encoder.table, metadata))
    return path


# ------------------------------------------------------------------------------------------- load
def load(path: str | os.PathLike[str]) -> Any:
    """Read an estimator written by :func:`save`.

    Nothing in the file is executed: no pickle, no eval, no import of a name from the file; only
    the allowlisted classes (:mod:`~linclass.io.persistence.format`) can be produced.

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

    See Also
    --------
    linclass.save : Write an estimator to a file.
    linclass.ModelFileError : Raised for a file that is not a model file.
    skops.io.load : skops's loader, the nearest in scikit-learn's world; pickle runs any code.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import linclass
    >>> X, y, *_ = linclass.datasets.load_dataset('iris')
    >>> path = pathlib.Path(tempfile.mkdtemp()) / 'nb.lcm'
    >>> loaded = linclass.load(linclass.save(linclass.GaussianNB().fit(X, y), path))
    >>> type(loaded).__name__, loaded.predict(X[[0, 50, 100]])
    ('GaussianNB', array([0, 1, 2]))
    """
    path = os.fspath(path)
    with open(path, "rb") as fh:
        try:
            return _load(fh)
        except ModelFileError:
            raise
        except Invalid as exc:
            raise ModelFileError(path, str(exc)) from None
        except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
            raise ModelFileError(path, f"the archive is corrupted or truncated ({exc})") from exc
        except (OSError, ValueError, TypeError, KeyError, IndexError, OverflowError, NotImplementedError,
                RecursionError, LookupError, ArithmeticError, AttributeError, MemoryError,
                struct.error) as exc:
            # anything else that reading damaged content can raise in zipfile / zlib / struct
            raise ModelFileError(path, f"unreadable ({type(exc).__name__}: {exc})") from exc


def _load(fh):
    """The checks in the order that gives the clearest message: container, metadata, header, tree,
    arrays (each read when a node names it), then that no array was left over."""
    zf, file_size = archive.open_zip(fh)
    with zf:
        infos = archive.check_archive(zf, file_size)
        metadata = archive.read_metadata(zf, infos)
        table = archive.check_header(metadata, infos)
        if not is_estimator_node(metadata["model"]) or metadata["model"]["class"] != metadata["estimator"]:
            raise Invalid(f"'estimator' is {metadata['estimator']!r} but 'model' is not an estimator "
                          "node of that class")
        reader = archive.ArrayReader(zf, infos, table)
        try:
            model = Decoder(reader).decode(metadata["model"], "model", 0)
        except RecursionError:
            raise Invalid("the model tree is nested too deeply") from None
        reader.check_all_used()
        return model
