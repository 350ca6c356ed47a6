"""Data for the ``linclass`` command and for examples: the bundled data sets.

:func:`load_dataset` returns one of scikit-learn's bundled data sets (no network); an unknown name is
a :class:`DataError`, the error of every data problem (a file's too).
"""

from __future__ import annotations

import numpy as np


__all__ = ["DATASETS", "load_dataset"]

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
