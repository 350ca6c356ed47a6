"""The rows a command works on: ``--dataset NAME`` or ``--data FILE --target COLUMN`` (several files,
a directory or a glob read as one table), with the
selections the command offers (``--features`` / ``--drop`` by name or position, ``--classes``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from linclass.cli.errors import UsageError
from linclass.cli.stdin import named
from linclass.datasets import load_dataset
from linclass.sources.file_sets import describe_files
from linclass.sources.tables import DataError, read_table
from linclass.sources.tables import feature_columns

__all__ = ["Data", "choose_features", "chosen_file_features", "feature_indices", "frame", "keep_classes",
           "labels", "load"]


@dataclass
class Data:
    """Features, labels (None when a file has no target), where they came from, and the name of
    the labels' column (``--target``; None for a bundled data set)."""

    X: np.ndarray
    y: np.ndarray | None
    feature_names: list[str]
    source: str
    target: str | None = None

    def describe(self) -> str:
        """``'iris (150 rows, 4 features, 3 classes)'``."""
        text = f"{self.source} ({self.X.shape[0]} rows, {self.X.shape[1]} features"
        if self.y is not None:
            text += f", {np.unique(self.y).size} classes"
        return text + ")"


def load(args, *, need_target: bool = True, features=None) -> Data:
    """The data named by --dataset or by --data/--target, with the columns --features / --drop
    choose (``features``: exactly these names, as a saved model needs them)."""
    if args.dataset is not None:
        if getattr(args, "target", None) is not None:
            raise UsageError("--target goes with --data; a --dataset has its own labels")
        if getattr(args, "na_values", None):
            raise UsageError("--na-values goes with --data (CSV files); a --dataset has no missing "
                             "values")
        if getattr(args, "sep", None) is not None or getattr(args, "decimal", ".") != ".":
            raise UsageError("--sep and --decimal go with --data (CSV files), not --dataset")
        X, y, names, target_names = load_dataset(args.dataset)
        if target_names is not None:
            y = np.asarray(target_names)[y]
        if features is not None:
            missing = [f for f in features if f not in names]
            if missing:
                raise DataError(f"data set {args.dataset!r} has no feature"
                                f"{'s' * (len(missing) > 1)} {', '.join(map(repr, missing))}; the "
                                f"model needs: {', '.join(map(repr, features))}")
        else:
            features = choose_features(names, getattr(args, "features", None), getattr(args, "drop", ()))
        if list(features) != list(names):
            X = X[:, [names.index(f) for f in features]]
            names = list(features)
        return Data(X, y, names, args.dataset)
    if need_target and args.target is None:
        raise UsageError("--data needs --target COLUMN (the column of class labels)")
    if features is None:
        features = chosen_file_features(args)
    X, y, names = read_table(args.data, args.target, features=features)
    return Data(X, y, names, named(describe_files(args.data)), args.target)


def chosen_file_features(args) -> list[str] | None:
    """The feature columns of --data that --features / --drop choose (None without them: every
    column but the target and a row index pandas wrote)."""
    if not getattr(args, "features", None) and not getattr(args, "drop", None):
        return None
    columns = feature_columns(args.data)
    if args.target is not None and args.target not in columns:  # with unknown --features, if any
        unknown = [f for f in args.features or () if f not in columns and not re.fullmatch(r"\d+", f)]
        missing = [args.target, *unknown]
        raise DataError(f"{named(describe_files(args.data))!r} has no column"
                        f"{'s' * (len(missing) > 1)} {', '.join(map(repr, missing))}; its columns "
                        f"are: {', '.join(map(repr, columns))}.")
    return choose_features([c for c in columns if c != args.target], args.features, args.drop)


def choose_features(names: list[str], features=None, drop=()) -> list[str]:
    """The features named by ``--features`` (all of ``names`` without it), less those of ``--drop``;
    each item a name or a position from 0 in ``names``."""
    chosen = ([names[j] for j in feature_indices(features, names, "--features")] if features
              else list(names))
    dropped = {names[j] for j in feature_indices(drop or (), names, "--drop")}
    chosen = [n for n in chosen if n not in dropped]
    if not chosen:
        raise UsageError("--features and --drop leave no feature to use")
    return chosen


def labels(data: Data, model_name: str):
    """The labels as the fit of the command's model ``model_name`` takes them: for a model with an
    inference table (registry capability ``inference``), a pandas Series named after ``--target``,
    the name its summary shows as the Dep. Variable; else the array itself (a Series of text
    would make ``classes_`` an object array)."""
    from linclass.cli.models import MODELS

    if data.target is None or data.y is None or not MODELS[model_name].can("inference"):
        return data.y
    try:
        import pandas as pd
    except ImportError:
        return data.y
    return pd.Series(data.y, name=data.target)


def frame(X: np.ndarray, names):
    """X with column names (a DataFrame, so a fitted model records ``feature_names_in_``) when
    pandas is installed; else X itself."""
    try:
        import pandas as pd
    except ImportError:
        return X
    return pd.DataFrame(X, columns=list(names))


def feature_indices(spec, names: list[str], option: str = "--features") -> list[int]:
    """Column positions of the items of ``option`` (``--features``, ``--drop``), each a feature name
    or a position from 0."""
    out, unknown = [], []
    for item in spec:
        if item in names:
            j = names.index(item)
        elif re.fullmatch(r"\d+", item):
            j = int(item)
            if j >= len(names):
                raise UsageError(f"{option} {item}: the data has features 0..{len(names) - 1}")
        else:
            unknown.append(item)
            continue
        out.append(j)
    if len(unknown) == 1:
        raise UsageError(f"{option} {unknown[0]!r} is neither a feature name nor a position; "
                         f"features: {', '.join(map(repr, names))}")
    if unknown:  # every one in one message
        raise UsageError(f"{option} {', '.join(map(repr, unknown))} are neither feature names nor "
                         f"positions; features: {', '.join(map(repr, names))}")
    if len(set(out)) != len(out):
        raise UsageError(f"{option} names the same feature twice")
    return out


def keep_classes(data: Data, classes: list[str]) -> Data:
    """The rows of ``classes`` (labels compared as text), or a DataError naming a class not found."""
    keep = np.isin(np.asarray(data.y).astype(str), classes)
    found = set(np.asarray(data.y)[keep].astype(str))
    lost = [c for c in classes if c not in found]
    if lost:
        raise DataError(f"--classes: no class {lost[0]!r} in {data.source}; classes: "
                        f"{', '.join(map(str, np.unique(data.y)))}")
    return Data(data.X[keep], data.y[keep], data.feature_names, data.source, data.target)
