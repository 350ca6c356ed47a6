"""What every suite shares: the registry's estimators as test cases, and the problems they are fitted on.

Registry cases
--------------
:data:`CASES` holds one :class:`Case` per ``(entry, variant)`` of :data:`linclass.registry.ENTRIES`,
with an id such as ``LogisticRegression-solver=lbfgs`` (the class name, then the variant's settings).
``case.make()`` builds a fresh estimator through ``entry.make(**variant)``, with ``random_state=0`` for
the "seeded" entries.  The suites that run every estimator (scikit-learn's estimator checks, the
bad-input matrix, the property tests, the save / load round trip) generate their parameters from
:data:`CASES`, so that a new registry entry, or a new variant, is run through all of them; expectations
that differ by estimator stay in the suites, keyed by class (and variant).
``tests/test_registry_coverage.py`` checks that no case drops out of any of the four.

A test that wants every case as a fixture asks for ``registry_case``.

Problems
--------
:func:`data_kind` says which data a case models ('gauss': real-valued measurements; 'counts':
non-negative integer counts, for the "counts" entries; 'binary': 0/1 features, for
``BernoulliNB(binarize=None)``, which refuses anything else).  :func:`blobs` (small, balanced, classes
shifted apart along one feature) and :func:`random_problem` (random centres, scales and rates, in
random order, with test points) build each kind.
"""

from __future__ import annotations

from dataclasses import dataclass

import os

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from linclass import registry

if os.environ.get("PYTEST_XDIST_WORKER"):
    # `make test` runs two workers on two cores: BLAS threads in each would oversubscribe the cores
    # (OpenBLAS threads spin while they wait), which doubled the CPU time of the heavier tests.
    # SciPy's own BLAS is loaded first: linclass imports SciPy on first use, and a limit set before
    # a library loads does not reach it
    import scipy.linalg  # noqa: F401

    _ONE_BLAS_THREAD = threadpool_limits(limits=1, user_api="blas")

__all__ = ["CASES", "CASE_IDS", "Case", "blobs", "case_id", "data_kind", "params", "random_problem"]


# ------------------------------------------------------------------------------------ registry cases
def _value_id(value) -> str:
    if isinstance(value, type):
        return value.__name__
    if hasattr(value, "get_params"):  # an estimator (the inner one of a meta-estimator)
        return type(value).__name__
    if isinstance(value, float) and np.isinf(value):
        return "inf" if value > 0 else "-inf"
    return str(value).replace(" ", "")


def case_id(name: str, variant: dict) -> str:
    """``Class`` for the default variant, ``Class-key=value-key=value`` for the others."""
    return "-".join([name, *(f"{key}={_value_id(value)}" for key, value in variant.items())])


@dataclass(frozen=True, eq=False)
class Case:
    """One registry entry with one of its variants."""

    entry: registry.Entry
    variant: dict

    @property
    def id(self) -> str:
        return case_id(self.entry.name, self.variant)

    @property
    def cls(self) -> type:
        return self.entry.cls

    @property
    def name(self) -> str:
        return self.entry.name

    def can(self, capability: str) -> bool:
        return self.entry.can(capability)

    @property
    def params(self) -> dict:
        """The constructor settings of :meth:`make` (the variant, and the seed of seeded entries)."""
        seed = {"random_state": 0} if self.entry.can("seeded") else {}
        return {**seed, **self.variant}

    def make(self, **overrides):
        """A fresh estimator: the variant, ``random_state=0`` if seeded, then ``overrides``."""
        return self.entry.make(**{**self.params, **overrides})

    def __repr__(self) -> str:
        return f"Case({self.id})"


CASES: tuple[Case, ...] = tuple(Case(e, dict(v)) for e in registry.ENTRIES for v in e.variants)
CASE_IDS: tuple[str, ...] = tuple(c.id for c in CASES)
assert len(set(CASE_IDS)) == len(CASE_IDS), "two registry variants share an id"


def params(selected=CASES) -> list:
    """``pytest.param(case, id=case.id)`` for each case (for ``@pytest.mark.parametrize("case", ...)``)."""
    return [pytest.param(c, id=c.id) for c in selected]


@pytest.fixture(params=params())
def registry_case(request) -> Case:
    """Every registry entry x variant, in turn."""
    return request.param


# ------------------------------------------------------------------------------------------ problems
def data_kind(case_or_model) -> str:
    """'gauss', 'counts' or 'binary': the data a case (or an estimator) models."""
    if isinstance(case_or_model, Case):
        entry, binarize = case_or_model.entry, case_or_model.variant.get("binarize", 0.0)
    else:
        entry = registry.by_class(type(case_or_model))
        binarize = getattr(case_or_model, "binarize", 0.0)
    if entry is None or not entry.can("counts"):
        return "gauss"
    return "binary" if binarize is None else "counts"


def blobs(kind: str, n: int = 40, d: int = 3, seed: int = 0, shift: float = 1.0, n_classes: int = 2):
    """``n`` rows of ``n_classes`` balanced, overlapping classes (labels ``arange(n) % n_classes``),
    in the form ``kind`` describes: Gaussian rows with class k shifted by ``shift * k`` along the first
    feature; Poisson counts with rate 2, raised to ``2 + 2 shift`` on one feature per class; or those
    counts cut at 2 (0/1 bits).  Returns ``X, y``."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    if kind == "gauss":
        X = rng.normal(size=(n, d))
        X[:, 0] += shift * y
        return X, y
    rates = np.full((n_classes, d), 2.0)
    rates[np.arange(n_classes), np.arange(n_classes) % d] = 2.0 + 2.0 * shift
    X = rng.poisson(rates[y]).astype(float)
    if kind == "binary":
        X = (X > 2).astype(float)
    elif kind != "counts":
        raise ValueError(f"unknown kind of data {kind!r}")
    return X, y


def random_problem(kind: str, seed: int, K: int, d: int, n_per_class: int, extra: int = 0):
    """Rows of ``K`` classes, ``n_per_class`` each (plus ``extra`` random extra rows), in random order,
    and 25 test points from the same distribution: Gaussian classes with random centres, features on
    (mildly) different scales and an offset; Poisson counts with random rates (one more feature, since
    MultinomialNB learns nothing from a single count); or Bernoulli bits with random probabilities
    (two more features: with one or two bits, classes of equal counts tie on most test points).
    Returns ``X, y, X_test``."""
    rng = np.random.default_rng(seed)
    counts = np.full(K, n_per_class) + np.bincount(rng.integers(0, K, size=extra), minlength=K)
    y = np.repeat(np.arange(K), counts)
    n = y.size
    if kind == "gauss":
        centres = rng.normal(scale=1.5, size=(K, d))
        scale = rng.uniform(0.5, 2.0, size=d)
        offset = rng.normal(scale=3.0, size=d)

        def draw(labels):
            return offset + scale * (centres[labels] + rng.normal(size=(labels.size, d)))
    elif kind == "counts":
        d += 1
        rates = rng.uniform(0.5, 6.0, size=(K, d))

        def draw(labels):
            return rng.poisson(rates[labels]).astype(float)
    elif kind == "binary":
        d += 2
        probs = rng.uniform(0.15, 0.85, size=(K, d))

        def draw(labels):
            return (rng.random((labels.size, d)) < probs[labels]).astype(float)
    else:
        raise ValueError(f"unknown kind of data {kind!r}")
    X = draw(y)
    order = rng.permutation(n)
    X_test = draw(rng.integers(0, K, size=25))
    return X[order], y[order], X_test


# ------------------------------------------------------------------ the command, in-process
def cli(args, capsys):
    """Run ``linclass ARGS`` in this process: ``(exit code, stdout, stderr)``."""
    from linclass.cli import main

    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(code, err, out=""):
    """A failed command printed exactly one 'linclass: error: ...' line and no traceback."""
    assert code != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("linclass: error: ")
    assert "Traceback" not in err + out
    return lines[0]
