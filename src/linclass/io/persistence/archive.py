"""The ZIP container of a model file: writing it, and reading it with every check made before
anything is decompressed or allocated.

Writing: the arrays as stored ``.npy`` entries (their SHA-256 taken as they are written), then
``metadata.json``, with a fixed date so that the same model always gives the same bytes.
Reading: entry names, methods, declared sizes and compression ratios (:func:`check_archive`),
``metadata.json`` as strict JSON within :data:`~linclass.io.persistence.format.MAX_METADATA_BYTES`
(:func:`read_metadata`), its header and array table (:func:`check_header`), and each array's
``.npy`` header, size, CRC-32 and SHA-256 (:class:`ArrayReader`).  A problem is an
:class:`~linclass.io.persistence.format.Invalid` naming the entry.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import re
import sys
import tokenize
import zipfile
import zlib

import numpy as np

from linclass.io.persistence import format as fmt
from linclass.io.persistence.format import (
    ARRAY_KINDS,
    ARRAY_NAME,
    FORMAT_NAME,
    FORMAT_VERSION,
    METADATA,
    Invalid,
    json_type,
    linclass_version,
    parse_dtype,
)

__all__ = ["ArrayReader", "check_archive", "check_header", "open_zip", "read_metadata", "write_archive"]

_ZIP_MAGIC = b"PK\x03\x04"
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed, so that the same model gives the same bytes
_CHUNK_BYTES = 8 * 2**20  # arrays are read in pieces of this size


# ------------------------------------------------------------------------------------------ write
class _HashingWriter:
    """A binary file that takes the SHA-256 of what is written to it."""

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


def write_archive(fh, arrays: dict, table: dict, metadata: dict) -> None:
    """Write the archive into the open binary file ``fh``.

    Parameters
    ----------
    fh : binary file
    arrays : dict
        Entry name -> array, in entry order.
    table : dict
        Entry name -> its descriptor; the ``sha256`` of each is filled in here.
    metadata : dict
        The ``metadata.json`` object; its ``arrays`` becomes ``table``.
    """
    with zipfile.ZipFile(fh, "w", allowZip64=True) as zf:
        for entry, arr in arrays.items():
            big = arr.nbytes > 2**31 - 2**20
            with zf.open(_zip_info(entry, zipfile.ZIP_STORED), "w", force_zip64=big) as out:
                writer = _HashingWriter(out)
                np.lib.format.write_array(writer, arr, allow_pickle=False)
            table[entry]["sha256"] = writer.sha256.hexdigest()
        metadata["arrays"] = table
        text = json.dumps(metadata, allow_nan=False, ensure_ascii=True, indent=1).encode("ascii")
        # deflate, unless that would give a ratio that load() refuses (very repetitive metadata)
        compressor = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
        size = len(compressor.compress(text) + compressor.flush())
        deflate = len(text) <= fmt.MAX_COMPRESSION_RATIO // 2 * size
        method = zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
        zf.writestr(_zip_info(METADATA, method), text)


# ------------------------------------------------------------------------------------------- read
def open_zip(fh) -> tuple[zipfile.ZipFile, int]:
    """The archive of an open binary file, and the file's size; a file that does not start like a
    ZIP archive is refused unparsed, with a guess at what it is."""
    start = fh.read(len(_ZIP_MAGIC))
    if start != _ZIP_MAGIC:
        raise Invalid(f"not a linclass model file: it is not a ZIP archive ({_sniff(start + fh.read(60))})")
    fh.seek(0, os.SEEK_END)
    file_size = fh.tell()
    fh.seek(0)
    try:
        zf = zipfile.ZipFile(fh, "r")
    except zipfile.BadZipFile as exc:
        raise Invalid(f"not a valid ZIP archive: the file is truncated or corrupted ({exc})") from None
    return zf, file_size


def _sniff(head: bytes) -> str:
    """What a file that is not a ZIP archive seems to be, from its first bytes."""
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


def _names(names) -> str:
    """The first five names and how many more, for messages."""
    names = list(names)
    shown = ", ".join(repr(n) for n in names[:5])
    return shown + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def check_archive(zf: zipfile.ZipFile, file_size: int) -> dict:
    """Entry names, methods and declared sizes, checked before anything is decompressed."""
    infos = zf.infolist()
    if len(infos) > fmt.MAX_ENTRIES:
        raise Invalid(f"the archive has {len(infos)} entries; at most {fmt.MAX_ENTRIES} are accepted")
    by_name = {}
    total = compressed = 0
    for info in infos:
        name = info.filename
        if name in by_name:
            raise Invalid(f"the archive has two entries named {name!r}")
        by_name[name] = info
        if name != METADATA and not ARRAY_NAME.fullmatch(name):
            continue  # reported below, after it is known whether this is a linclass file at all
        if info.flag_bits & 0x1:
            raise Invalid(f"entry {name!r} is encrypted")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise Invalid(f"entry {name!r} uses an unsupported compression method ({info.compress_type})")
        if info.compress_type == zipfile.ZIP_STORED and info.compress_size != info.file_size:
            raise Invalid(f"entry {name!r} is stored uncompressed but declares {info.file_size} bytes "
                          f"and holds {info.compress_size}")
        if info.file_size > fmt.MAX_COMPRESSION_RATIO * info.compress_size + fmt.RATIO_SLACK_BYTES:
            raise Invalid(
                f"entry {name!r} declares {info.file_size} bytes compressed into {info.compress_size}: "
                f"a compression ratio above {fmt.MAX_COMPRESSION_RATIO} (a zip bomb?) is refused"
            )
        total += info.file_size
        compressed += info.compress_size
    if compressed > file_size:
        raise Invalid(f"the entries declare {compressed} compressed bytes in a file of {file_size}")
    if total > fmt.MAX_COMPRESSION_RATIO * file_size + 16 * fmt.RATIO_SLACK_BYTES:
        raise Invalid(f"the entries declare {total} bytes in a file of {file_size}: a compression "
                      f"ratio above {fmt.MAX_COMPRESSION_RATIO} (a zip bomb?) is refused")
    return by_name


def _read_entry_bounded(zf: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int) -> bytes:
    if info.file_size > limit:
        raise Invalid(f"entry {info.filename!r} declares {info.file_size} bytes; at most {limit} are accepted")
    with zf.open(info) as f:
        data = f.read(info.file_size + 1)
    if len(data) != info.file_size:
        raise Invalid(f"entry {info.filename!r} holds {len(data)} bytes but declares {info.file_size}")
    return data


def _reject_constant(name):
    raise Invalid(f"{METADATA} is not strict JSON (it contains {name})")


def _no_duplicates(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise Invalid(f"{METADATA} repeats the key {key!r} in one object")
        obj[key] = value
    return obj


def read_metadata(zf: zipfile.ZipFile, infos: dict) -> dict:
    """``metadata.json`` as strict JSON (no NaN, no repeated key), at most
    :data:`~linclass.io.persistence.format.MAX_METADATA_BYTES`; it must be a JSON object."""
    if METADATA not in infos:
        raise Invalid(f"not a linclass model file: the archive has no {METADATA} "
                      f"(entries: {_names(sorted(infos))})")
    raw = _read_entry_bounded(zf, infos[METADATA], fmt.MAX_METADATA_BYTES)
    try:
        text = raw.decode("utf-8")
        metadata = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_no_duplicates)
    except UnicodeDecodeError:
        raise Invalid(f"{METADATA} is not UTF-8 text") from None
    except RecursionError:
        raise Invalid(f"{METADATA} is nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, too-long integers
        raise Invalid(f"{METADATA} is not valid JSON ({exc})") from None
    if type(metadata) is not dict:
        raise Invalid(f"not a linclass model file: {METADATA} is a JSON {json_type(metadata)}, not an object")
    return metadata


def check_header(metadata: dict, infos: dict) -> dict:
    """format, format_version, keys; the arrays table against the archive. Returns the table."""
    if metadata.get("format") != FORMAT_NAME:
        raise Invalid(f"not a linclass model file: {METADATA} has format {metadata.get('format')!r}, "
                      f"not {FORMAT_NAME!r}")
    version = metadata.get("format_version")
    if type(version) is not int:
        raise Invalid(f"format_version must be an integer; got the JSON {json_type(version)} {version!r}")
    if version != FORMAT_VERSION:
        written = metadata.get("linclass_version")
        by = f" by linclass {written}" if type(written) is str else ""
        if version > FORMAT_VERSION:
            raise Invalid(
                f"the file has format_version {version} (written{by}), but this linclass "
                f"({linclass_version()}) reads format_version {FORMAT_VERSION} only: upgrade linclass "
                "to load it"
            )
        raise Invalid(f"the file has format_version {version}, which no linclass ever wrote; this "
                      f"linclass reads format_version {FORMAT_VERSION}")
    expected = {"format", "format_version", "linclass_version", "estimator", "arrays", "model"}
    if set(metadata) != expected:
        missing, extra = sorted(expected - set(metadata)), sorted(set(metadata) - expected)
        raise Invalid(f"{METADATA} has the wrong keys (missing {missing}, unexpected {extra})")
    for key in ("linclass_version", "estimator"):
        if type(metadata[key]) is not str:
            raise Invalid(f"{key} must be a string; got the JSON {json_type(metadata[key])}")
    table = metadata["arrays"]
    if type(table) is not dict:
        raise Invalid(f"'arrays' must be a JSON object; got the JSON {json_type(table)}")
    unexpected = sorted(set(infos) - set(table) - {METADATA})
    if unexpected:
        raise Invalid(f"the archive has entries that {METADATA} does not declare: {_names(unexpected)}")
    for entry, spec in table.items():
        where = f"arrays[{entry!r}]"
        if not ARRAY_NAME.fullmatch(entry):
            raise Invalid(f"{where}: not a valid array entry name")
        if entry not in infos:
            raise Invalid(f"{where}: the archive has no such entry (the file is incomplete)")
        if type(spec) is not dict or set(spec) != {"dtype", "shape", "fortran_order", "sha256"}:
            raise Invalid(f"{where} must be an object with keys dtype, shape, fortran_order, sha256")
        dtype = parse_dtype(spec["dtype"], ARRAY_KINDS, where)
        shape = spec["shape"]
        if (type(shape) is not list or len(shape) > 64
                or not all(type(n) is int and 0 <= n < 2**63 for n in shape)):
            raise Invalid(f"{where}: shape must be a list of non-negative integers; got {shape!r}")
        if type(spec["fortran_order"]) is not bool:
            raise Invalid(f"{where}: fortran_order must be true or false")
        digest = spec["sha256"]
        if type(digest) is not str or not re.fullmatch(r"[0-9a-f]{64}", digest):
            raise Invalid(f"{where}: sha256 must be 64 lowercase hexadecimal digits")
        nbytes = math.prod(shape) * dtype.itemsize
        size = infos[entry].file_size
        if not 0 < size - nbytes <= fmt.MAX_NPY_HEADER_BYTES + 16:
            raise Invalid(
                f"{where}: the entry declares {size} bytes, which does not fit the declared dtype "
                f"{dtype.str} and shape {tuple(shape)} ({nbytes} bytes of data plus a header)"
            )
    return table


class ArrayReader:
    """Reads each declared array once, with every check made before its memory is allocated."""

    def __init__(self, zf, infos, table):
        self.zf, self.infos, self.table = zf, infos, table
        self.cache: dict[tuple[str, bool], np.ndarray] = {}
        self.used: set[str] = set()

    def get(self, entry: str, as_object: bool, where: str) -> np.ndarray:
        """The array of ``entry`` (read once; ``as_object``: as an object array of str)."""
        if entry not in self.table:
            raise Invalid(f"{where}: array entry {entry!r} is not declared in 'arrays'")
        key = (entry, as_object)
        if key not in self.cache:
            raw = self.cache.get((entry, not as_object))
            if raw is None:
                raw = self._read(entry)
            self.used.add(entry)
            if as_object:
                if raw.dtype.kind != "U":
                    raise Invalid(f"{where}: as_object is only valid for unicode arrays, not {raw.dtype}")
                self.cache[key] = raw.astype(object)
            else:
                self.cache[key] = raw
        return self.cache[key]

    def check_all_used(self) -> None:
        """Every declared array was asked for (a file holds nothing that the model does not use)."""
        unused = sorted(set(self.table) - self.used)
        if unused:
            raise Invalid(f"array entries that the model does not use: {_names(unused)}")

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
                raise Invalid(f"{where} is not a .npy file of format 1.0 or 2.0")
            size_field = 2 if magic[6] == 1 else 4
            length_bytes = _read_exactly(f, size_field, where, digest)
            length = int.from_bytes(length_bytes, "little")
            if length > fmt.MAX_NPY_HEADER_BYTES:
                raise Invalid(f"{where} has a .npy header of {length} bytes "
                              f"(at most {fmt.MAX_NPY_HEADER_BYTES})")
            header = _read_exactly(f, length, where, digest)
            read_header = (np.lib.format.read_array_header_1_0 if size_field == 2
                           else np.lib.format.read_array_header_2_0)
            try:  # numpy parses the header as a Python literal (ast.literal_eval), never as code
                h_shape, h_fortran, h_dtype = read_header(io.BytesIO(length_bytes + header),
                                                          max_header_size=fmt.MAX_NPY_HEADER_BYTES)
            except (ValueError, TypeError, SyntaxError, tokenize.TokenError) as exc:
                # (numpy tokenizes the header before parsing it: an unbalanced bracket is a
                # TokenError, which is none of the others)
                raise Invalid(f"{where} has an invalid .npy header ({exc})") from None
            if h_dtype != dtype or h_dtype.str != dtype.str:
                raise Invalid(f"{where} holds dtype {h_dtype} but {METADATA} declares {dtype.str}")
            if tuple(h_shape) != shape:
                raise Invalid(f"{where} holds shape {tuple(h_shape)} but {METADATA} declares shape {shape}")
            if bool(h_fortran) != spec["fortran_order"]:
                raise Invalid(f"{where}: fortran_order differs from what {METADATA} declares")
            payload = info.file_size - 8 - size_field - length
            if payload != nbytes:
                raise Invalid(f"{where} holds {payload} bytes of data; dtype {dtype.str} and shape "
                              f"{shape} need {nbytes}")
            buffer = bytearray(nbytes)
            view = memoryview(buffer)
            done = 0
            while done < nbytes:  # bounded chunks: ZipExtFile.readinto would copy the whole entry
                chunk = f.read(min(nbytes - done, _CHUNK_BYTES))
                if not chunk:
                    raise Invalid(f"{where} is truncated")
                view[done:done + len(chunk)] = chunk
                done += len(chunk)
            if f.read(1):
                raise Invalid(f"{where} holds more data than declared")
            digest.update(buffer)
        if digest.hexdigest() != spec["sha256"]:
            raise Invalid(f"{where} does not match its SHA-256 checksum: the file was modified or corrupted")
        if dtype.itemsize == 0:
            arr = np.zeros(shape, dtype=dtype)
        else:
            arr = np.frombuffer(buffer, dtype=dtype).reshape(shape, order="F" if h_fortran else "C")
        _check_values(arr, where)
        return arr


def _read_exactly(f, n: int, where: str, digest) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise Invalid(f"{where} is truncated")
    digest.update(data)
    return data


def _check_values(arr: np.ndarray, where: str) -> None:
    """Bytes that numpy would misread: booleans other than 0/1, invalid unicode code points."""
    if arr.dtype.kind == "b" and arr.size and arr.view(np.uint8).max() > 1:
        raise Invalid(f"{where} holds boolean bytes other than 0 and 1")
    if arr.dtype.kind == "U" and arr.size:
        codes = np.ascontiguousarray(arr).view(np.dtype(arr.dtype.byteorder + "u4"))
        if arr.dtype.byteorder == ">" or (arr.dtype.byteorder == "=" and sys.byteorder == "big"):
            codes = codes.astype("<u4")
        if np.any(codes > 0x10FFFF) or np.any((codes >= 0xD800) & (codes <= 0xDFFF)):
            raise Invalid(f"{where} holds invalid unicode code points")
