"""Fuzz :func:`linclass.load` with hostile model files.

The property: whatever the bytes of the file, ``load`` either returns an allowlisted linclass
estimator or raises :class:`linclass.ModelFileError` (the documented exception for a file that is
not a valid model).  Any other exception, or a crash, is a bug.

Two modes:

``python fuzz/fuzz_load.py -max_total_time=60 [CORPUS_DIR ...] [libFuzzer flags]``
    Coverage-guided fuzzing with atheris (``pip install atheris``).  Without a corpus directory a
    temporary one is seeded with a few valid model files, so that libFuzzer starts from real models.

``python fuzz/fuzz_load.py --random N [--seed S] [--save-failures DIR]``
    Pure Python, no extra dependency: N mutations of valid model files (bit flips, truncations,
    insertions, deletions, duplicated ranges, and "repacked" archives in which metadata.json or an
    array entry is mutated and every CRC-32 / SHA-256 recomputed, so that the mutation reaches the
    JSON and node checks instead of stopping at a checksum).  Exits with status 1 and prints the
    reproducer of the first failure.  ``tests/test_hostile_files.py`` runs this loop in-process.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import random
import sys
import tempfile
import traceback
import warnings
import zipfile
from pathlib import Path

# A checkout without an installed linclass: make ``src`` importable.
_SRC = Path(__file__).resolve().parent.parent / "src"
if _SRC.is_dir() and str(_SRC) not in sys.path:
    sys.path.insert(0, str(_SRC))

__all__ = ["check_one", "mutate", "run_random", "seed_models"]


# --------------------------------------------------------------------------------------- seeds
def seed_models() -> dict[str, bytes]:
    """A few small valid model files covering the node types (arrays, object arrays of str, numpy
    scalars, records, nested estimators, refs, random generators, non-finite floats)."""
    import numpy as np

    import linclass

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(loc, 1.0, size=(8, 3)) for loc in (0.0, 2.0, 4.0)])
    y = np.repeat(["a", "b", "c"], 8).astype(object)
    counts = rng.poisson(3.0, size=(24, 3))
    models = {
        "logistic": linclass.LogisticRegression(C=np.inf, max_iter=20),
        "gaussian-nb": linclass.GaussianNB(),
        "perceptron": linclass.Perceptron(random_state=0, max_epochs=3),
        "kclass": linclass.KClassDiscriminant(linclass.LogisticRegression(max_iter=20)),
        "multinomial-nb": linclass.MultinomialNB(alpha=0.5),
    }
    out = {}
    with warnings.catch_warnings(), tempfile.TemporaryDirectory() as tmp:
        warnings.simplefilter("ignore")
        for name, model in models.items():
            model.fit(counts if name == "multinomial-nb" else X, y)
            path = linclass.save(model, Path(tmp) / f"{name}.linclass")
            out[name] = path.read_bytes()
    return out


# ------------------------------------------------------------------------------------ mutations
def _random_json_value(rnd: random.Random):
    return rnd.choice([
        None, True, False, 0, -1, 1, 2**63, 2**64 + 1, -(2**70), 1.5, -0.0, 1e308, "", "x", "nan",
        "arrays/0.npy", "../../etc/passwd", "LogisticRegression", "<f8", "|O", [], [1, 2], {},
        {"__type__": "float", "value": "nan"}, {"__type__": "ref", "index": 0},
        {"__type__": "ndarray", "entry": "arrays/0.npy"},
        {"__type__": "ndarray", "entry": "arrays/0.npy", "as_object": True},
        {"__type__": "tuple", "items": [1, {"__type__": "tuple", "items": []}]},
        {"__type__": "dict", "pairs": [[{"__type__": "tuple", "items": [1]}, 2]]},
        {"__type__": "numpy.scalar", "dtype": "<i8", "value": 2**63},
        {"__type__": "numpy.scalar", "dtype": "<U3", "value": "abcd"},
        {"__type__": "numpy.Generator", "bit_generator": "PCG64", "state": None},
        {"__type__": "numpy.RandomState", "state": {"__type__": "dict", "items": {}}},
        {"__type__": "dataclass", "class": "linclass.stats.ClassStats", "fields": {"kind": 1}},
        {"__type__": "estimator", "class": "GaussianNB", "params": {}, "state": {}},
        {"__type__": "estimator", "class": "GaussianNB", "params": {"var_smoothing": "x"}, "state": {}},
    ])


def _json_paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _json_paths(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _json_paths(value, path + (i,))


def _mutate_json(metadata, rnd: random.Random):
    paths = list(_json_paths(metadata))
    path = rnd.choice(paths[1:]) if len(paths) > 1 else ()
    if not path:
        return _random_json_value(rnd)
    parent = metadata
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    action = rnd.random()
    if action < 0.6:
        parent[key] = _random_json_value(rnd)
    elif action < 0.75 and isinstance(parent, dict):
        del parent[key]
    elif action < 0.85 and isinstance(parent, dict):
        parent[rnd.choice(["__type__", "extra", "as_object", "__class__", "coef_", "C"])] = \
            _random_json_value(rnd)
    elif isinstance(parent[key], (int, float)) and not isinstance(parent[key], bool):
        parent[key] = rnd.choice([parent[key] + 1, -parent[key], parent[key] * 1000, 0])
    else:
        parent[key] = [parent[key], parent[key]]
    return metadata


def _random_npy(rnd: random.Random) -> bytes:
    import numpy as np

    dtype = rnd.choice(["<f8", "<i8", "|b1", "<U3", "<c16", "|u1", ">f4", "<f2"])
    shape = tuple(rnd.randint(0, 4) for _ in range(rnd.randint(0, 3)))
    arr = np.zeros(shape, dtype=dtype)
    buffer = io.BytesIO()
    np.save(buffer, arr, allow_pickle=False)
    data = bytearray(buffer.getvalue())
    if rnd.random() < 0.5 and len(data) > 10:  # corrupt the header or the payload, checksums kept valid
        i = rnd.randrange(8, len(data))
        data[i] = rnd.randrange(256)
    return bytes(data)


def _repack(original: bytes, rnd: random.Random) -> bytes:
    """Mutate the archive's content, then recompute every checksum, so that the mutation is seen by
    the checks behind them."""
    with zipfile.ZipFile(io.BytesIO(original)) as zf:
        entries = {info.filename: zf.read(info) for info in zf.infolist()}
    metadata = json.loads(entries.pop("metadata.json"))
    arrays = [name for name in entries if name.startswith("arrays/")]
    choice = rnd.random()
    text = None
    if choice < 0.45:
        for _ in range(rnd.randint(1, 3)):
            metadata = _mutate_json(metadata, rnd)
    elif choice < 0.65 and arrays:
        name = rnd.choice(arrays)
        entries[name] = _random_npy(rnd)
        if rnd.random() < 0.7 and isinstance(metadata, dict) and isinstance(metadata.get("arrays"), dict):
            import numpy as np

            try:  # declare it honestly, so that only the model tree can object
                arr = np.load(io.BytesIO(entries[name]), allow_pickle=False)
                metadata["arrays"][name] = {"dtype": arr.dtype.str, "shape": list(arr.shape),
                                            "fortran_order": False,
                                            "sha256": hashlib.sha256(entries[name]).hexdigest()}
            except Exception:  # noqa: BLE001 - the corrupted ones stay undeclared
                pass
    elif choice < 0.8:
        raw = bytearray(json.dumps(metadata).encode())
        for _ in range(rnd.randint(1, 4)):
            raw[rnd.randrange(len(raw))] = rnd.choice(b'{}[]",:0123456789.-eE \\\x00\xff')
        text = bytes(raw)
    elif arrays:  # flip a payload byte and fix its SHA-256: load must still give an allowlisted model
        name = rnd.choice(arrays)
        data = bytearray(entries[name])
        data[rnd.randrange(len(data))] ^= 1 << rnd.randrange(8)
        entries[name] = bytes(data)
        spec = metadata.get("arrays", {}).get(name) if isinstance(metadata, dict) else None
        if isinstance(spec, dict):
            spec["sha256"] = hashlib.sha256(entries[name]).hexdigest()
    buffer = io.BytesIO()
    method = rnd.choice([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
    with zipfile.ZipFile(buffer, "w", compression=method) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
        zf.writestr("metadata.json", text if text is not None else json.dumps(metadata))
    return buffer.getvalue()


def mutate(original: bytes, rnd: random.Random) -> bytes:
    """One random mutation of a model file's bytes."""
    data = bytearray(original)
    kind = rnd.random()
    if kind < 0.3:  # bit flips
        for _ in range(rnd.choice([1, 1, 2, 8])):
            i = rnd.randrange(len(data))
            data[i] ^= 1 << rnd.randrange(8)
    elif kind < 0.4:  # truncation
        del data[rnd.randrange(len(data)):]
    elif kind < 0.5:  # insertion
        i = rnd.randrange(len(data) + 1)
        data[i:i] = bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 16)))
    elif kind < 0.57:  # deletion
        i = rnd.randrange(len(data))
        del data[i:i + rnd.randint(1, 64)]
    elif kind < 0.62:  # a duplicated range (e.g. two central directories)
        i = rnd.randrange(len(data))
        j = min(len(data), i + rnd.randint(1, 256))
        data[j:j] = data[i:j]
    elif kind < 0.67:  # overwrite a 4-byte field with an extreme value (sizes, offsets, counts)
        i = rnd.randrange(max(1, len(data) - 4))
        data[i:i + 4] = rnd.choice([b"\xff\xff\xff\xff", b"\x00\x00\x00\x00", b"\x00\x00\x00\x80"])
    else:
        return _repack(original, rnd)
    return bytes(data)


# ------------------------------------------------------------------------------------- property
def _allowlisted(model) -> bool:
    from linclass.io.persistence.allowlist import estimator_class

    return estimator_class(type(model).__name__) is type(model)


def check_one(data: bytes, path: Path) -> str:
    """Write ``data`` to ``path`` and load it: 'loaded' or 'refused'; anything else raises."""
    from linclass import ModelFileError, load

    path.write_bytes(data)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = load(path)
    except ModelFileError as exc:
        if str(path) not in str(exc):
            raise AssertionError(f"ModelFileError does not name the file: {exc}") from exc
        return "refused"
    if not _allowlisted(model):
        raise AssertionError(f"load() returned a {type(model)!r}, which is not an allowlisted estimator")
    return "loaded"


def run_random(n: int, seed: int = 0, save_failures: str | os.PathLike | None = None) -> dict:
    """``n`` random mutations of the seed models; returns the count of each outcome.  Raises
    AssertionError (naming the seed model, the iteration and the exception) on the first mutation
    for which load() raises anything but ModelFileError."""
    seeds = seed_models()
    names = sorted(seeds)
    rnd = random.Random(seed)
    outcomes = {"loaded": 0, "refused": 0}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fuzzed.linclass"
        for i in range(n):
            name = rnd.choice(names)
            data = mutate(seeds[name], rnd)
            try:
                outcomes[check_one(data, path)] += 1
            except Exception as exc:  # noqa: BLE001 - the property under test
                where = ""
                if save_failures is not None:
                    Path(save_failures).mkdir(parents=True, exist_ok=True)
                    target = Path(save_failures) / f"failure-seed{seed}-iter{i}.linclass"
                    target.write_bytes(data)
                    where = f"; the file is saved as {target}"
                raise AssertionError(
                    f"mutation {i} of the {name!r} model (seed {seed}): load() raised "
                    f"{type(exc).__name__}: {exc}{where}\n{traceback.format_exc()}"
                ) from exc
    return outcomes


# --------------------------------------------------------------------------------------- atheris
def _atheris_main(argv: list[str]) -> None:
    import atheris

    with atheris.instrument_imports(include=["linclass"]):  # coverage feedback from linclass's code
        import linclass.io.persistence  # noqa: F401

    tmp = tempfile.mkdtemp(prefix="linclass-fuzz-")
    path = Path(tmp) / "input.linclass"
    if not any(not a.startswith("-") for a in argv[1:]):  # no corpus given: seed one with real models
        corpus = Path(tmp) / "corpus"
        corpus.mkdir()
        for name, data in seed_models().items():
            (corpus / name).write_bytes(data)
        argv = [*argv, str(corpus)]

    def test_one_input(data: bytes) -> None:
        check_one(data, path)

    atheris.Setup(argv, test_one_input)
    atheris.Fuzz()


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv if argv is None else argv)
    if "--random" in argv:
        parser = argparse.ArgumentParser(description="random mutations of valid model files")
        parser.add_argument("--random", type=int, required=True, metavar="N")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--save-failures", metavar="DIR")
        args = parser.parse_args(argv[1:])
        try:
            outcomes = run_random(args.random, args.seed, args.save_failures)
        except AssertionError as exc:
            print(f"FAILED: {exc}", file=sys.stderr)
            return 1
        print(f"{args.random} mutations: {outcomes['loaded']} loaded, {outcomes['refused']} refused "
              "with ModelFileError, no other outcome")
        return 0
    try:
        import atheris  # noqa: F401
    except ImportError:
        print("atheris is not installed (pip install atheris); use --random N for the pure-Python "
              "fuzzer", file=sys.stderr)
        return 2
    _atheris_main(argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
