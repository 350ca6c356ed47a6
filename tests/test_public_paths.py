"""The public module paths are real modules, cheap to import; the first release's other paths are gone.

``linclass.plot``, ``linclass.geometry``, ``linclass.datasets`` and ``linclass.chunks`` import as
themselves (no finder stands in for them), each name of their ``__all__`` is there, and the readers
and chunked fits are the objects their implementation modules define.  The module paths that the
first release had and that went in 0.x (CHANGELOG.md lists them) raise ModuleNotFoundError.
"""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

PUBLIC = ("linclass.plot", "linclass.geometry", "linclass.datasets", "linclass.chunks")

#: first-release paths that no longer import (CHANGELOG.md says where their names live now)
REMOVED = (
    "linclass._progress", "linclass._validation", "linclass.stats", "linclass.covariance",
    "linclass.priors", "linclass.posterior", "linclass.gaussian", "linclass.naive_bayes",
    "linclass.fisher", "linclass.kernel_fisher", "linclass.kernels", "linclass.perceptron",
    "linclass.losses", "linclass.objective", "linclass.separation", "linclass.inference",
    "linclass.solvers", "linclass.dask", "linclass.persistence", "linclass.multiclass",
    "linclass.compat", "linclass.inspect", "linclass.io.datasets",
)


@pytest.mark.parametrize("path", PUBLIC)
def test_public_path_is_a_real_module(path):
    module = importlib.import_module(path)
    assert module.__name__ == path and module.__spec__.name == path
    assert module.__spec__.origin.endswith(path.replace(".", "/") + (
        "/__init__.py" if path == "linclass.plot" else ".py"))
    for name in module.__all__:
        assert getattr(module, name) is not None, f"{path}.{name}"


@pytest.mark.parametrize("path, name, home", [
    ("linclass.datasets", "FileSource", "linclass.sources.files"),
    ("linclass.datasets", "read_table", "linclass.sources.tables"),
    ("linclass.datasets", "read_chunks", "linclass.sources.tables"),
    ("linclass.datasets", "feature_columns", "linclass.sources.tables"),
    ("linclass.datasets", "DataError", "linclass.exceptions"),
    ("linclass.chunks", "fit_chunked", "linclass.sources.chunks"),
    ("linclass.chunks", "supports_chunks", "linclass.sources.chunks"),
    ("linclass.chunks", "ChunkFittable", "linclass.sources.chunks"),
    ("linclass.chunks", "Chunk", "linclass.core.chunks"),
    ("linclass.chunks", "ChunkSource", "linclass.core.chunks"),
])
def test_public_names_are_the_implementation_objects(path, name, home):
    assert getattr(importlib.import_module(path), name) is getattr(importlib.import_module(home), name)


def test_star_import_gives_the_public_names():
    namespace = {}
    exec("from linclass.datasets import *\nfrom linclass.chunks import *", namespace)
    assert {"DATASETS", "DataError", "FileSource", "load_dataset", "read_table", "fit_chunked",
            "ChunkSource"} <= set(namespace)
    with pytest.raises(AttributeError, match="'linclass.datasets' has no attribute 'nope'"):
        importlib.import_module("linclass.datasets").nope


def test_public_modules_import_no_heavy_package():
    code = ("import sys, linclass.plot, linclass.datasets, linclass.chunks\n"
            "print(','.join(m for m in ('sklearn', 'scipy', 'numba', 'pandas', 'matplotlib', 'dask')"
            " if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


@pytest.mark.parametrize("path", REMOVED)
def test_removed_path_does_not_import(path):
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(path)
