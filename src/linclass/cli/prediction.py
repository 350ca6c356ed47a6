"""``linclass predict``: a saved model's predictions (and probabilities) as CSV, on stdout or in a
file written atomically, for the whole file at once or streamed a block of rows at a time
(``--chunksize``), so that memory stays bounded whatever the file's size."""

from __future__ import annotations

import csv
import sys
import time
import warnings
from collections.abc import Iterator

import numpy as np

from linclass.cli.data import frame, load
from linclass.cli.errors import UsageError
from linclass.cli.evaluation import accuracy
from linclass.cli.model_files import load_model, uses_model_file
from linclass.cli.passes import say
from linclass.cli.stdin import named
from linclass.io.atomic import atomic_write
from linclass.sources.tables import DataError

__all__ = ["predict"]


@uses_model_file
def predict(args) -> int:
    """Predictions (and probabilities) of a saved model as CSV, on stdout or written to --out."""
    model = load_model(args.model_file)
    if args.proba and not hasattr(model, "predict_proba"):
        raise DataError(f"{type(model).__name__} gives no probabilities; drop --proba")
    names = getattr(model, "feature_names_in_", None)
    names = None if names is None else [str(n) for n in names]
    blocks = _blocks(args, model, names)
    tally = {"rows": 0, "right": 0, "labelled": False}
    started = time.perf_counter()

    def write(handle) -> None:
        writer = csv.writer(handle, lineterminator="\n")
        for i, (X, y, ids) in enumerate(blocks):
            predicted, proba = _predict_block(model, X, names, args.proba)
            if i == 0:  # after the first block's predictions: a model that fails writes nothing
                header = ["prediction"] + ([f"proba_{c}" for c in model.classes_] if args.proba else [])
                writer.writerow(([args.id_column] if ids is not None else []) + header)
            rows = ([label] for label in predicted.tolist()) if proba is None else (
                [label, *map(repr, row)] for label, row in zip(predicted.tolist(), proba.tolist()))
            if ids is not None:
                rows = ([_cell(value), *row] for value, row in zip(ids.tolist(), rows))
            writer.writerows(rows)
            tally["rows"] += len(predicted)
            if args.verbose:
                say(f"predicted rows {tally['rows'] - len(predicted) + 1}-{tally['rows']} "
                    f"({time.perf_counter() - started:.3g} s)")
            if y is not None:
                tally["labelled"] = True
                tally["right"] += round(accuracy(predicted, y) * len(predicted))

    if args.out:
        atomic_write(args.out, write, text=True)
        if not args.quiet:
            print(f"wrote {tally['rows']} predictions to {args.out}", file=sys.stderr)
    else:
        write(sys.stdout)
    if tally["labelled"]:
        print(f"accuracy: {tally['right'] / tally['rows']:.4f} on {tally['rows']} rows", file=sys.stderr)
    return 0


def _blocks(args, model, names) -> Iterator[tuple]:
    """``(X, y, ids)`` blocks of --data (one block without --chunksize; ``ids`` the values of
    --id-column, or None); the features are the model's, by name, and their number is checked
    before the first prediction."""
    expected = getattr(model, "n_features_in_", None)
    if args.id_column is not None and args.data is None:
        raise UsageError("--id-column goes with --data FILE (a bundled --dataset has no ID column)")
    if args.chunksize is None and args.id_column is None:
        data = load(args, need_target=False, features=names)
        _check_width(expected, data.X.shape[1], data.source, data.feature_names)
        return iter([(data.X, data.y, None)])
    if args.data is None:
        raise UsageError("--chunksize goes with --data FILE (a bundled --dataset is small)")
    from linclass.sources.file_sets import describe_files
    from linclass.sources.tables import read_table

    if args.chunksize is None:
        pieces = iter([read_table(args.data, args.target, features=names, carry=args.id_column)])
    else:
        pieces = read_table(args.data, args.target, chunksize=args.chunksize, features=names,
                            carry=args.id_column)

    def checked():
        for i, (X, y, columns, *ids) in enumerate(pieces):
            if i == 0:
                _check_width(expected, X.shape[1], named(describe_files(args.data)), columns)
            yield X, y, (ids[0] if ids else None)

    stream = checked()
    first = next(stream, None)  # read (and check) the first block before any output is written
    if first is None:
        return iter(())
    return _chain(first, stream)


def _cell(value):
    """An --id-column value as a CSV field: empty where it is missing."""
    return "" if value is None or (isinstance(value, float) and value != value) else value


def _chain(first, rest):
    yield first
    yield from rest


def _check_width(expected, width: int, source: str, columns) -> None:
    if expected is not None and width != expected:
        raise DataError(f"the model expects {expected} features; {source} has {width} "
                        f"({', '.join(columns)})")


def _predict_block(model, X: np.ndarray, names, proba: bool):
    X = frame(X, names) if names is not None else X
    with warnings.catch_warnings():  # columns were matched by name already
        warnings.filterwarnings("ignore", message=".*feature names.*", category=UserWarning)
        return model.predict(X), (model.predict_proba(X) if proba else None)
