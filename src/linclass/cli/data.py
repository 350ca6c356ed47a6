"""The rows a command works on: ``--dataset NAME`` or ``--data FILE --target COLUMN``, with the
selections the command offers (features by name or index, classes)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from linclass.cli.errors import UsageError
from linclass.io.datasets import DataError, load_dataset, read_table

__all__ = ["Data", "feature_indices", "frame", "keep_classes", "load"]


@dataclass
class Data:
    """Features, labels (None when a file has no target) and where they came from."""

    X: np.ndarray
    y: np.ndarray | None
    feature_names: list[str]
    source: str

    def describe(self) -> str:
        """``'iris (150 rows, 4 features, 3 classes)'``."""
        text = f"{self.source} ({self.X.shape[0]} rows, {self.X.shape[1]} features"
        if self.y is not None:
            text += f", {np.unique(self.y).size} classes"
        return text + ")"


def load(args, *, need_target: bool = True, features=None) -> Data:
    """The data named by --dataset or by --data/--target (``features`` selects columns by name)."""
    if args.dataset is not None:
        if getattr(args, "target", None) is not None:
            raise UsageError("--target goes with --data; a --dataset has its own labels")
        X, y, names, target_names = load_dataset(args.dataset)
        if target_names is not None:
            y = np.asarray(target_names)[y]
        if features is not None:
            missing = [f for f in features if f not in names]
            if missing:
                raise DataError(f"data set {args.dataset!r} has no feature {missing[0]!r}; the model "
                                f"needs: {', '.join(map(repr, features))}")
            X = X[:, [names.index(f) for f in features]]
            names = list(features)
        return Data(X, y, names, args.dataset)
    if need_target and args.target is None:
        raise UsageError("--data needs --target COLUMN (the column of class labels)")
    X, y, names = read_table(args.data, args.target, features=features)
    return Data(X, y, names, args.data)


def frame(X: np.ndarray, names):
    """X with column names (a DataFrame, so a fitted model records ``feature_names_in_``) when
    pandas is installed; else X itself."""
    try:
        import pandas as pd
    except ImportError:
        return X
    return pd.DataFrame(X, columns=list(names))


def feature_indices(spec, names: list[str]) -> list[int]:
    """Column positions of ``--features`` items, each an index from 0 or a feature name."""
    out = []
    for item in spec:
        if re.fullmatch(r"\d+", item):
            j = int(item)
            if j >= len(names):
                raise UsageError(f"--features {item}: the data has features 0..{len(names) - 1}")
        elif item in names:
            j = names.index(item)
        else:
            raise UsageError(f"--features {item!r} is neither an index nor a feature name; features: "
                             f"{', '.join(map(repr, names))}")
        out.append(j)
    if len(set(out)) != len(out):
        raise UsageError("--features names the same feature twice")
    return out


def keep_classes(data: Data, classes: list[str]) -> Data:
    """The rows of ``classes`` (labels compared as text), or a DataError naming a class not found."""
    keep = np.isin(np.asarray(data.y).astype(str), classes)
    found = set(np.asarray(data.y)[keep].astype(str))
    lost = [c for c in classes if c not in found]
    if lost:
        raise DataError(f"--classes: no class {lost[0]!r} in {data.source}; classes: "
                        f"{', '.join(map(str, np.unique(data.y)))}")
    return Data(data.X[keep], data.y[keep], data.feature_names, data.source)
