"""Data: the bundled data sets, CSV and Parquet tables, and files read in chunks.

:func:`load_dataset` returns one of scikit-learn's bundled data sets (no network).
:func:`read_table` reads a CSV or Parquet file (or a folder or glob of them) into ``X, y,
feature_names``, :func:`read_chunks` the same in chunks, and :func:`feature_columns` names its
feature columns; :class:`FileSource` is such a file as a chunk source, for
:func:`linclass.chunks.fit_chunked`.  Every data problem (an unknown data set, a file's missing
column or unreadable value) is a :class:`DataError`.

The readers live in :mod:`linclass.sources` and are imported on first use (module ``__getattr__``):
the command's help reads :data:`DATASETS` without importing SciPy or pandas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from linclass.core.lazy import lazy_getattr

if TYPE_CHECKING:  # what type checkers see: the names the module __getattr__ imports on first use
    from linclass.sources.files import FileSource
    from linclass.sources.tables import DataError, feature_columns, read_chunks, read_table

__all__ = ["DATASETS", "DataError", "FileSource", "feature_columns", "load_dataset", "read_chunks",
           "read_table"]

#: each reader -> its module under linclass.sources, imported on first use
_HOME = {
    "DataError": "tables", "FileSource": "files", "feature_columns": "tables",
    "read_chunks": "tables", "read_table": "tables",
}

if not TYPE_CHECKING:  # type checkers read the imports above instead
    __getattr__ = lazy_getattr(__name__, _HOME, globals(), base="linclass.sources")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


#: Bundled data sets: name -> one-line description.
DATASETS = {
    "iris": "3 iris species, 4 measurements, 150 rows",
    "wine": "3 wine cultivars, 13 chemical measurements, 178 rows",
    "breast_cancer": "malignant / benign tumours, 30 real features, 569 rows",
    "digits": "handwritten digits 0-9, 8x8 pixel counts 0-16, 1797 rows",
}


def load_dataset(name: str) -> tuple[np.ndarray, np.ndarray, list[str], list | None]:
    """Load a data set bundled with scikit-learn (read from the installed package, no network).

    Parameters
    ----------
    name : {'iris', 'wine', 'breast_cancer', 'digits'}
        ``'breast-cancer'`` is accepted too.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
    y : ndarray of shape (n_samples,), int
        Class indices; ``target_names[y]`` are the class names.
    feature_names : list of str
    target_names : list or None

    See Also
    --------
    linclass.datasets.read_table : Read a CSV or Parquet file instead.
    sklearn.datasets.load_iris : scikit-learn's loaders, which this one reads (no network).

    Examples
    --------
    >>> from linclass.datasets import load_dataset
    >>> X, y, feature_names, target_names = load_dataset('iris')
    >>> X.shape, y.shape
    ((150, 4), (150,))
    >>> list(target_names)
    ['setosa', 'versicolor', 'virginica']
    """
    from sklearn import datasets as sk

    loaders = {"iris": sk.load_iris, "wine": sk.load_wine,
               "breast_cancer": sk.load_breast_cancer, "digits": sk.load_digits}
    key = str(name).strip().lower().replace("-", "_")
    if key not in loaders:
        from linclass.exceptions import DataError  # (not at import: the command's help reads DATASETS)

        raise DataError(f"unknown data set {name!r}; choose from: {', '.join(DATASETS)}.")
    bunch = loaders[key]()
    X = np.asarray(bunch.data, dtype=np.float64)
    y = np.asarray(bunch.target)
    names = getattr(bunch, "feature_names", None)
    feature_names = [str(n) for n in names] if names is not None else [f"x{j}" for j in range(X.shape[1])]
    targets = getattr(bunch, "target_names", None)
    target_names = np.asarray(targets).tolist() if targets is not None else None
    return X, y, feature_names, target_names
