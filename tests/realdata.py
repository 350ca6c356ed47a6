"""Real problems for the tests, built at test time: scikit-learn's bundled data sets and a text corpus
made from the Python standard library's own source (nothing prepared by hand, nothing downloaded).

``stdlib_corpus`` turns every function of a few standard-library packages into one document (its
source text) labelled by its package; TF-IDF over those documents gives a sparse, wide, nearly
separable problem of the kind text classification meets (thousands of columns, a few dozen non-zeros
per row, classes that share most of their vocabulary).
"""

from __future__ import annotations

import ast
import functools
import os
import sysconfig

import numpy as np

PACKAGES = ("asyncio", "email", "importlib", "multiprocessing", "xml", "tkinter", "idlelib",
            "lib2to3", "distutils", "unittest", "urllib", "logging", "http")


@functools.lru_cache(maxsize=None)
def stdlib_corpus(packages: tuple[str, ...] = PACKAGES) -> tuple[tuple[str, ...], np.ndarray]:
    """``(texts, labels)``: the source of every function and method of ``packages`` (their test
    folders left out), labelled by package, in a fixed order.  Packages this Python lacks are
    skipped."""
    root = sysconfig.get_paths()["stdlib"]
    texts, labels = [], []
    for package in packages:
        top = os.path.join(root, package)
        for folder, subfolders, files in os.walk(top):
            subfolders[:] = sorted(d for d in subfolders
                                   if not d.startswith(("test", "idle_test", "__pycache__")))
            for name in sorted(files):
                if not name.endswith(".py"):
                    continue
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as fh:
                    source = fh.read()
                try:
                    tree = ast.parse(source)
                except SyntaxError:
                    continue
                lines = source.splitlines()
                for node in ast.walk(tree):
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        texts.append("\n".join(lines[node.lineno - 1:node.end_lineno]))
                        labels.append(package)
    return tuple(texts), np.array(labels)


@functools.lru_cache(maxsize=None)
def text_problem(kind: str, every: int = 1, min_df: int = 2):
    """TF-IDF of the corpus (CSR) and labels: ``kind='multinomial'`` the packages,
    ``'binary'`` whether a function belongs to the GUI packages (tkinter, idlelib).  ``every``
    keeps one document in that many (smaller problems for quick tests)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts, labels = stdlib_corpus()
    texts, labels = texts[::every], labels[::every]
    X = TfidfVectorizer(min_df=min_df).fit_transform(texts)
    if kind == "binary":
        return X, np.isin(labels, ["tkinter", "idlelib"]).astype(int)
    return X, labels


@functools.lru_cache(maxsize=None)
def bundled(name: str):
    """scikit-learn's bundled data sets by name; ``'digits_std'`` is digits standardised (its constant
    pixels stay zero)."""
    from sklearn import datasets
    from sklearn.preprocessing import StandardScaler

    if name in ("digits", "digits_std"):
        X, y = datasets.load_digits(return_X_y=True)
        return (StandardScaler().fit_transform(X) if name == "digits_std" else X), y
    loader = {"wine": datasets.load_wine, "breast_cancer": datasets.load_breast_cancer,
              "iris": datasets.load_iris}[name]
    return loader(return_X_y=True)


def problem(name: str):
    """``(X, y)`` of a named real problem: a bundled data set or ``'text_binary'`` /
    ``'text_multinomial'`` (one function in three of the corpus)."""
    if name.startswith("text_"):
        return text_problem(name[len("text_"):], every=3)
    return bundled(name)


def docstring_counts():
    """Word counts (log(1 + count)) of the public callables' docstrings of five standard-library
    modules, labelled by module."""
    import inspect
    import json
    import re
    import string
    import textwrap

    import scipy.sparse as sp

    docs, labels = [], []
    for k, module in enumerate((json, re, string, inspect, textwrap)):
        for name, obj in sorted(vars(module).items()):
            doc = getattr(obj, "__doc__", None)
            if doc and not name.startswith("_") and callable(obj):
                docs.append(doc.lower())
                labels.append(k)
    vocab = sorted({w for d in docs for w in re.findall("[a-z]+", d)})
    index = {w: j for j, w in enumerate(vocab)}
    rows, cols = [], []
    for i, d in enumerate(docs):
        for w in re.findall("[a-z]+", d):
            rows.append(i)
            cols.append(index[w])
    X = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(docs), len(vocab)))
    X.sum_duplicates()
    X.data = np.log1p(X.data)
    return X, np.asarray(labels)
