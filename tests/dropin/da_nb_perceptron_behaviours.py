"""scikit-learn 1.9's documented behaviours of LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis,
GaussianNB, BernoulliNB, MultinomialNB, ComplementNB, CategoricalNB and Perceptron, as cases run
against both libraries.

A case is one action on one class (build with these arguments, fit, predict, ...), given the class
of either library; :func:`observe` records what happened: the exception (class and message), the
warnings' classes, and the value the action returns (a fitted attribute's shape and dtype, the
predictions, the weights).  :func:`compare` says whether linclass's observation agrees with
scikit-learn's:

* scikit-learn raises E: linclass raises E or a subclass (so ``except E`` catches it), and names the
  parameter when scikit-learn's message does;
* scikit-learn warns W: linclass warns W or a subclass, and warns nothing else (numpy's floating-point
  RuntimeWarnings are left out: they are incidental, not part of either API);
* the returned values are equal (numbers to 1e-6 relative).

The cases: the signature (every parameter, its default, the positional order); every parameter value
scikit-learn refuses (among a fixed list of bad values); invalid combinations; errors of use (NaN,
shapes, labels, one sample, one class, ``n_samples == n_classes``); ``partial_fit`` sequences
(``classes`` on the first call, unknown labels, changed features); priors; alpha; every fitted
attribute's presence, shape and dtype for two and three classes, with and without sample_weight,
for several settings; the outputs' shapes; ``store_covariance``; covariance estimator objects with and
without ``get_params``; the Perceptron's weights in a fixed order for every penalty.
``tests/test_dropin_da_nb_perceptron_contract.py`` asserts them case by case, and

    python tests/dropin/da_nb_perceptron_behaviours.py [ClassName ...]

prints the count per class, with each case that differs and the reason it does (:data:`DIFFERENCES`).
"""

from __future__ import annotations

import inspect
import sys
import warnings
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np
import scipy.sparse as sp
from sklearn import discriminant_analysis as skda
from sklearn import linear_model as sklm
from sklearn import naive_bayes as sknb
from sklearn.covariance import OAS, EmpiricalCovariance

import linclass

__all__ = ["CASES", "DIFFERENCES", "NAMES", "Case", "Observation", "compare", "observe", "reference"]

NAMES = ("LinearDiscriminantAnalysis", "QuadraticDiscriminantAnalysis", "GaussianNB", "BernoulliNB",
         "MultinomialNB", "ComplementNB", "CategoricalNB", "Perceptron")
LDA, QDA = ("LinearDiscriminantAnalysis",), ("QuadraticDiscriminantAnalysis",)
DISCRETE = ("BernoulliNB", "MultinomialNB", "ComplementNB", "CategoricalNB")
NB = ("GaussianNB", *DISCRETE)
PARTIAL = (*NB, "Perceptron")
WEIGHTED = PARTIAL  # scikit-learn 1.9's LDA and QDA take no sample_weight


def reference(name: str) -> type:
    """scikit-learn's class of this name."""
    module = skda if "Discriminant" in name else sklm if name == "Perceptron" else sknb
    return getattr(module, name)


# ---------------------------------------------------------------------------------------- data
def data(name, K=3, n=120, d=4, seed=0):
    """Rows of the kind the class models (Gaussian blobs, counts, 0/1 bits, category codes)."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % K
    if name in ("MultinomialNB", "ComplementNB"):
        X = rng.poisson(rng.uniform(0.5, 4, (K, d))[y]).astype(float)
    elif name == "CategoricalNB":
        X = rng.integers(0, 3, (n, d)).astype(float)
    elif name == "BernoulliNB":
        X = (rng.random((n, d)) < rng.uniform(0.2, 0.8, (K, d))[y]).astype(float)
    else:
        X = 3 * rng.normal(size=(K, d))[y] + rng.normal(size=(n, d))
    return X, y


# ---------------------------------------------------------------------------------------- observing
@dataclass
class Observation:
    """What one action did: ``error`` (the exception or None), ``warns`` (warning classes), ``value``."""

    error: BaseException | None
    warns: tuple
    messages: str
    value: object = None

    def __repr__(self):
        warned = f" warns {[w.__name__ for w in self.warns]}" if self.warns else ""
        if self.error is not None:
            return f"raises {type(self.error).__name__}: {str(self.error)[:140]!r}{warned}"
        return f"returns {str(self.value)[:140]}{warned}"


def observe(action: Callable, cls: type) -> Observation:
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        error, value = None, None
        try:
            value = action(cls)
        except Exception as exc:  # noqa: BLE001 - any exception is an observation
            error = exc
    warns = tuple(sorted({w.category for w in record
                          if not issubclass(w.category, RuntimeWarning)
                          and (not issubclass(w.category, DeprecationWarning)
                               or issubclass(w.category, FutureWarning))}, key=lambda c: c.__name__))
    return Observation(error, warns, "; ".join(str(w.message)[:100] for w in record), value)


def _same(a, b) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):  # the keys scikit-learn has (linclass may have more)
        return a.keys() <= b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        if a.dtype.kind in "fc" or b.dtype.kind in "fc":
            return bool(np.allclose(a.astype(float), b.astype(float), rtol=1e-6, atol=1e-8, equal_nan=True))
        return bool(np.array_equal(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return bool(np.isclose(a, b, rtol=1e-6, atol=1e-8) or (np.isnan(a) and np.isnan(b)))
    return a == b


def compare(theirs: Observation, ours: Observation, param: str | None = None,
            warnings_count: bool = True) -> str | None:
    """None when linclass's observation agrees with scikit-learn's, else what differs."""
    if theirs.error is not None:
        expected = type(theirs.error)
        if ours.error is None:
            return f"scikit-learn raises {expected.__name__}, linclass does not"
        if not isinstance(ours.error, expected):
            return f"linclass raises {type(ours.error).__name__}, not a {expected.__name__}"
        if param and param in str(theirs.error) and param not in str(ours.error):
            return f"the message does not name {param!r}: {str(ours.error)[:120]!r}"
        return None
    if ours.error is not None:
        return f"linclass raises {type(ours.error).__name__}: {str(ours.error)[:160]}"
    if warnings_count:
        for w in theirs.warns:
            if not any(issubclass(v, w) for v in ours.warns):
                return f"linclass does not warn {w.__name__}"
        extra = [v.__name__ for v in ours.warns if not any(issubclass(v, w) for w in theirs.warns)]
        if extra:
            return f"linclass also warns {extra}: {ours.messages[:160]}"
    if not _same(theirs.value, ours.value):
        return f"the values differ: scikit-learn {str(theirs.value)[:160]} / linclass {str(ours.value)[:160]}"
    return None


# ---------------------------------------------------------------------------------------- cases
@dataclass(frozen=True)
class Case:
    name: str  # the class
    label: str
    action: Callable  # action(cls) -> value
    param: str | None = None  # a parameter the message must name (when scikit-learn's does)
    warnings_count: bool = True

    @property
    def id(self) -> str:
        return f"{self.name}: {self.label}"


CASES: list[Case] = []


def case(names, label, param=None, warnings_count=True):
    """Decorator: ``fn(cls, name)`` becomes one case per class of ``names``."""
    def register(fn):
        for name in names:
            CASES.append(Case(name, label, lambda cls, fn=fn, name=name: fn(cls, name), param,
                              warnings_count))
        return fn
    return register


def _describe(value):
    if isinstance(value, np.ndarray):
        return ("array", value.shape, value.dtype.kind)
    if isinstance(value, list):
        return ("list", len(value), tuple(np.shape(v) for v in value))
    return (type(value).__name__,)


def public_attributes(est) -> dict:
    """Every fitted attribute (properties too) by name: its kind, shape and dtype kind."""
    return {k: _describe(getattr(est, k)) for k in dir(est)
            if k.endswith("_") and not k.startswith("_") and hasattr(est, k)}


# ---- the signature
for _name in NAMES:
    _params = inspect.signature(reference(_name).__init__).parameters
    for _p, _par in _params.items():
        if _p != "self":
            CASES.append(Case(_name, f"default {_p}", lambda cls, p=_p: repr(
                inspect.signature(cls.__init__).parameters[p].default)))
    _positional = [p for p, par in _params.items() if p != "self" and par.kind == par.POSITIONAL_OR_KEYWORD]
    CASES.append(Case(_name, "positional parameters", lambda cls, n=len(_positional): [
        p for p, par in inspect.signature(cls.__init__).parameters.items()
        if p != "self" and par.kind == par.POSITIONAL_OR_KEYWORD][:n]))


# ---- every parameter value scikit-learn refuses, among these
class _Opaque:
    def __repr__(self):
        return "an object"


BAD_VALUES = ("bogus", -1.5, 2.5, -1, 0, 1.5, [1, 2], _Opaque())


def _invalid(cls, name, p, bad):
    X, y = data(name)
    cls(**{p: bad}).fit(X, y)
    return "fitted"


for _name in NAMES:
    for _p in inspect.signature(reference(_name).__init__).parameters:
        if _p in ("self", "verbose", "n_jobs"):
            continue
        for _bad in BAD_VALUES:
            _action = (lambda cls, name=_name, p=_p, bad=_bad: _invalid(cls, name, p, bad))
            if observe(_action, reference(_name)).error is not None:
                CASES.append(Case(_name, f"invalid {_p}={_bad!r}", _action, param=_p))


# ---- fitted attributes, outputs and predictions, for several settings
SETTINGS = {
    "LinearDiscriminantAnalysis": [{}, {"solver": "lsqr"}, {"solver": "eigen"},
                                   {"solver": "svd", "store_covariance": True}, {"priors": [0.2, 0.3, 0.5]},
                                   {"solver": "lsqr", "shrinkage": "auto"}, {"n_components": 1}],
    "QuadraticDiscriminantAnalysis": [{}, {"solver": "eigen"}, {"store_covariance": True}, {"reg_param": 0.1},
                                      {"priors": [0.2, 0.3, 0.5]}, {"solver": "eigen", "shrinkage": 0.2}],
    "GaussianNB": [{}, {"priors": [0.2, 0.3, 0.5]}, {"var_smoothing": 1e-3}],
    "BernoulliNB": [{}, {"alpha": 0.5}, {"fit_prior": False}, {"class_prior": [0.2, 0.3, 0.5]},
                    {"binarize": None}],
    "MultinomialNB": [{}, {"alpha": 0.5}, {"fit_prior": False}, {"class_prior": [0.2, 0.3, 0.5]}],
    "ComplementNB": [{}, {"norm": True}, {"fit_prior": False}],
    "CategoricalNB": [{}, {"min_categories": 5}, {"fit_prior": False}],
    "Perceptron": [{}, {"penalty": "l2"}, {"penalty": "l1"}, {"penalty": "elasticnet"},
                   {"early_stopping": True}, {"fit_intercept": False}, {"class_weight": "balanced"},
                   {"tol": None}],
}
OUTPUTS = ("predict", "predict_proba", "predict_log_proba", "decision_function", "predict_joint_log_proba",
           "transform")


@lru_cache(maxsize=None)
def _fitted(cls, name, settings, K, weighted):
    X, y = data(name, K)
    est = cls(**dict(settings))
    if name == "Perceptron":
        est.set_params(random_state=0)
    w = np.random.default_rng(0).uniform(0.5, 2, len(y)) if weighted else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y, **({"sample_weight": w} if weighted else {}))


def _settings_key(settings):
    return tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in settings.items())


def _outputs(est, name, K, methods):
    X, _ = data(name, K, seed=1)
    out = {}
    for m in methods:
        try:
            out[m] = _describe(np.asarray(getattr(est, m)(X)))
        except Exception as exc:  # noqa: BLE001
            out[m] = ("raises", type(exc).__name__)
    return out


for _name in NAMES:
    for _settings in SETTINGS[_name]:
        for _K in (2, 3):
            if _K == 2 and ("priors" in _settings or "class_prior" in _settings):
                continue
            for _weighted in ((False, True) if _name in WEIGHTED else (False,)):
                _key = (_name, _settings_key(_settings), _K, _weighted)
                _label = f"{_settings} K={_K}{' weighted' if _weighted else ''}"
                _ref = _fitted(reference(_name), *_key)
                for _attr in sorted(a for a in vars(_ref) if a.endswith("_") and not a.startswith("_")):
                    CASES.append(Case(_name, f"attribute {_attr} {_label}",
                                      lambda cls, key=_key, a=_attr: _describe(
                                          getattr(_fitted(cls, *key), a)), warnings_count=False))
                if "Discriminant" in _name and not hasattr(_ref, "covariance_"):
                    CASES.append(Case(_name, f"no covariance_ {_label}",
                                      lambda cls, key=_key: hasattr(_fitted(cls, *key), "covariance_"),
                                      warnings_count=False))
                _methods = tuple(m for m in OUTPUTS if hasattr(_ref, m))
                CASES.append(Case(_name, f"outputs {_label}",
                                  lambda cls, key=_key, K=_K, m=_methods: _outputs(
                                      _fitted(cls, *key), key[0], K, m), warnings_count=False))
                if _name != "Perceptron":  # (its visiting orders differ: see its own cases)
                    CASES.append(Case(_name, f"predictions {_label}", lambda cls, key=_key, K=_K: _fitted(
                        cls, *key).predict(data(key[0], K, seed=1)[0]), warnings_count=False))


# ---- errors of use
@case(NAMES, "predict before fit")
def _(cls, name):
    return cls().predict(data(name)[0])


@case(NAMES, "predict with other n_features")
def _(cls, name):
    X, y = data(name)
    return cls().fit(X, y).predict(X[:, :2])


@case(NAMES, "fit with NaN")
def _(cls, name):
    X, y = data(name)
    X[0, 0] = np.nan
    return cls().fit(X, y)


@case(NAMES, "fit with inf")
def _(cls, name):
    X, y = data(name)
    X[0, 0] = np.inf
    return cls().fit(X, y)


@case(NAMES, "fit with mismatched lengths")
def _(cls, name):
    X, y = data(name)
    return cls().fit(X, y[:-1])


@case(NAMES, "fit with continuous y")
def _(cls, name):
    X, y = data(name)
    return cls().fit(X, y + 0.5 * np.random.default_rng(0).random(len(y)))


@case(NAMES, "fit with a column y")
def _(cls, name):
    X, y = data(name)
    return cls().fit(X, y[:, None]).predict(X[:3]).shape


@case(NAMES, "fit with one sample")
def _(cls, name):
    X, y = data(name)
    return cls().fit(X[:1], y[:1]).predict(X[:3])


@case(NAMES, "fit on empty X")
def _(cls, name):
    X, y = data(name)
    return cls().fit(X[:0], y[:0])


@case(NAMES, "fit with 3-D X")
def _(cls, name):
    X, y = data(name)
    return cls().fit(X[:, :, None], y)


@case(NAMES, "string labels")
def _(cls, name):
    X, y = data(name)
    est = cls().fit(X, np.array(["a", "b", "c"])[y])
    return est.classes_.tolist(), est.predict(X[:5]).dtype.kind


@case(NAMES, "fit on one class")
def _(cls, name):
    X, y = data(name)
    est = cls().fit(X, np.zeros_like(y))
    out = {"classes_": est.classes_.tolist(), "predict": est.predict(X[:4]).tolist()}
    if hasattr(est, "predict_proba"):
        out["proba"] = est.predict_proba(X[:4])
    for a in ("class_count_", "class_log_prior_", "class_prior_", "feature_count_"):
        if hasattr(est, a):
            out[a] = np.shape(getattr(est, a))
    return out


@case(WEIGHTED, "negative sample_weight")
def _(cls, name):
    X, y = data(name)
    w = np.ones(len(y))
    w[0] = -1
    return cls().fit(X, y, sample_weight=w)


@case(WEIGHTED, "sample_weight of the wrong length")
def _(cls, name):
    X, y = data(name)
    return cls().fit(X, y, sample_weight=np.ones(len(y) - 1))


@case(LDA + QDA, "n_samples == n_classes")
def _(cls, name):
    X, y = data(name)
    return cls().fit(X[:3], y[:3])


@case(NB, "sample_weight zero for a whole class")
def _(cls, name):
    X, y = data(name)
    est = cls().fit(X, y, sample_weight=np.where(y == 2, 0.0, 1.0))
    return est.classes_.tolist(), est.predict_proba(X[:4]).shape


# ---- partial_fit
@case(PARTIAL, "partial_fit without classes on the first call")
def _(cls, name):
    X, y = data(name)
    return cls().partial_fit(X, y)


@case(PARTIAL, "partial_fit sequence with classes")
def _(cls, name):
    X, y = data(name)
    est = cls(shuffle=False) if name == "Perceptron" else cls()
    for chunk in np.array_split(np.arange(len(y)), 3):
        est.partial_fit(X[chunk], y[chunk], classes=[0, 1, 2])
    return public_attributes(est) | {"classes_": est.classes_.tolist()}


@case(PARTIAL, "partial_fit with other classes later")
def _(cls, name):
    X, y = data(name)
    return cls().partial_fit(X, y, classes=[0, 1, 2]).partial_fit(X, y, classes=[0, 1])


@case(PARTIAL, "partial_fit with a label not in classes")
def _(cls, name):
    X, y = data(name)
    return cls().partial_fit(X, y, classes=[0, 1, 2]).partial_fit(X[:2], np.array([5, 5]))


@case(PARTIAL, "partial_fit with other n_features")
def _(cls, name):
    X, y = data(name)
    return cls().partial_fit(X, y, classes=[0, 1, 2]).partial_fit(X[:, :2], y)


@case(PARTIAL, "partial_fit first call with one class present")
def _(cls, name):
    X, y = data(name)
    est = cls().partial_fit(X[y == 0], y[y == 0], classes=[0, 1, 2])
    return {"classes_": est.classes_.tolist(), "predict": est.predict(X[:4]).tolist()}


@case(PARTIAL, "partial_fit after fit keeps classes")
def _(cls, name):
    X, y = data(name)
    return cls().fit(X, y).partial_fit(X[:10], y[:10]).classes_.tolist()


@case(PARTIAL, "partial_fit with classes duplicated and unsorted")
def _(cls, name):
    X, y = data(name)
    return cls().partial_fit(X, y, classes=[2, 0, 1, 0]).classes_.tolist()


# ---- priors
@case(LDA + QDA + ("GaussianNB",), "priors of the wrong length")
def _(cls, name):
    X, y = data(name)
    return cls(priors=[0.5, 0.5]).fit(X, y)


@case(LDA + QDA + ("GaussianNB",), "negative priors")
def _(cls, name):
    X, y = data(name)
    return cls(priors=[-0.2, 0.6, 0.6]).fit(X, y)


@case(LDA + QDA + ("GaussianNB",), "priors not summing to 1")
def _(cls, name):
    X, y = data(name)
    est = cls(priors=[1.0, 1.0, 2.0]).fit(X, y)
    return est.priors_ if hasattr(est, "priors_") else est.class_prior_


@case(DISCRETE, "class_prior of the wrong length")
def _(cls, name):
    X, y = data(name)
    return cls(class_prior=[0.5, 0.5]).fit(X, y)


@case(DISCRETE, "class_prior not summing to 1")
def _(cls, name):
    X, y = data(name)
    return cls(class_prior=[1.0, 1.0, 2.0]).fit(X, y).predict_proba(X[:5])


# ---- naive Bayes
@case(DISCRETE, "alpha=0 with force_alpha=True")
def _(cls, name):
    X, y = data(name)
    return cls(alpha=0.0).fit(X, y).predict(X[:5])


@case(DISCRETE, "alpha=0 with force_alpha=False")
def _(cls, name):
    X, y = data(name)
    return cls(alpha=0.0, force_alpha=False).fit(X, y).predict(X[:5])


@case(DISCRETE[:3], "alpha array of the wrong length")
def _(cls, name):
    X, y = data(name)
    return cls(alpha=np.ones(2)).fit(X, y)


@case(DISCRETE[:3], "alpha array with a negative entry")
def _(cls, name):
    X, y = data(name)
    return cls(alpha=np.r_[-1.0, np.ones(X.shape[1] - 1)]).fit(X, y)


@case(DISCRETE[:3], "alpha array")
def _(cls, name):
    X, y = data(name)
    return cls(alpha=np.linspace(0.1, 2, X.shape[1])).fit(X, y).predict_proba(X[:5])


@case(("MultinomialNB", "ComplementNB", "CategoricalNB"), "negative X")
def _(cls, name):
    X, y = data(name)
    X[0, 0] = -1
    return cls().fit(X, y)


@case(("CategoricalNB",), "min_categories of the wrong length")
def _(cls, name):
    X, y = data(name)
    return cls(min_categories=[3, 3]).fit(X, y)


@case(("CategoricalNB",), "min_categories below the categories seen")
def _(cls, name):
    X, y = data(name)
    return cls(min_categories=[1, 2, 5, 1]).fit(X, y).n_categories_


@case(("CategoricalNB",), "unseen category at predict")
def _(cls, name):
    X, y = data(name)
    Z = X[:3].copy()
    Z[0, 0] = 7
    return cls().fit(X, y).predict(Z)


@case(("BernoulliNB", "MultinomialNB", "ComplementNB"), "sparse X")
def _(cls, name):
    X, y = data(name)
    return cls().fit(sp.csr_matrix(X), y).predict_proba(sp.csr_matrix(X[:5]))


@case(("GaussianNB", "CategoricalNB") + LDA + QDA, "sparse X")
def _(cls, name):
    X, y = data(name)
    return cls().fit(sp.csr_matrix(X), y)


@case(("GaussianNB",), "var_smoothing=0 with a constant feature")
def _(cls, name):
    X, y = data(name)
    X[:, 0] = 1.0
    return cls(var_smoothing=0.0).fit(X, y).predict(X[:5])


@case(("BernoulliNB",), "binarize=None with non-binary X")
def _(cls, name):
    X, y = data(name)
    X[0, 0] = 3
    return cls(binarize=None).fit(X, y).predict(X[:5])


# ---- discriminant analysis
def _collinear(name):
    X, y = data(name)
    return np.c_[X, X[:, 0]], y


@case(LDA, "svd with shrinkage")
def _(cls, name):
    X, y = data(name)
    return cls(solver="svd", shrinkage=0.1).fit(X, y).predict(X[:5])


@case(LDA + QDA, "svd with covariance_estimator")
def _(cls, name):
    X, y = data(name)
    return cls(solver="svd", covariance_estimator=OAS()).fit(X, y).predict(X[:5])


@case(LDA + QDA, "shrinkage and covariance_estimator together")
def _(cls, name):
    X, y = data(name)
    return cls(solver="eigen", shrinkage=0.1, covariance_estimator=OAS()).fit(X, y)


@case(LDA, "n_components above n_classes - 1")
def _(cls, name):
    X, y = data(name)
    return cls(n_components=3).fit(X, y)


@case(LDA, "n_components above n_classes - 1 for two classes")
def _(cls, name):
    X, y = data(name, K=2)
    return cls(n_components=2).fit(X, y)


@case(LDA, "n_components above n_features")
def _(cls, name):
    X, y = data(name, d=1)
    return cls(n_components=2).fit(X, y)


@case(LDA, "n_components within bounds")
def _(cls, name):
    X, y = data(name)
    return cls(n_components=1).fit(X, y).transform(X).shape


@case(LDA, "lsqr transform")
def _(cls, name):
    X, y = data(name)
    return cls(solver="lsqr").fit(X, y).transform(X).shape


for _solver in ("svd", "lsqr", "eigen"):
    CASES.append(Case(LDA[0], f"{_solver} with a singular covariance", lambda cls, s=_solver: cls(
        solver=s).fit(*_collinear(LDA[0])).predict(_collinear(LDA[0])[0][:5])))


@case(QDA, "svd with shrinkage")
def _(cls, name):
    X, y = data(name)
    return cls(solver="svd", shrinkage=0.1).fit(X, y).predict(X[:5])


for _solver in ("svd", "eigen"):
    CASES.append(Case(QDA[0], f"{_solver} with a singular covariance", lambda cls, s=_solver: cls(
        solver=s).fit(*_collinear(QDA[0]))))
    CASES.append(Case(QDA[0], f"{_solver} with fewer rows than features in a class",
                      lambda cls, s=_solver: cls(solver=s).fit(*data(QDA[0], n=30, d=12))))


@case(QDA, "eigen, singular but shrunk")
def _(cls, name):
    X, y = _collinear(name)
    return cls(solver="eigen", shrinkage=0.3).fit(X, y).predict(X[:5])


@case(QDA, "svd, singular but regularised by reg_param")
def _(cls, name):
    X, y = _collinear(name)
    return cls(solver="svd", reg_param=0.3).fit(X, y).predict(X[:5])


@case(LDA + QDA, "a class with one sample")
def _(cls, name):
    X, y = data(name)
    keep = np.r_[np.flatnonzero(y == 0)[:1], np.flatnonzero(y > 0)]
    return cls().fit(X[keep], y[keep]).predict(X[:5])


for _name in LDA + QDA:
    for _store in (False, True):
        for _solver in (("svd", "lsqr", "eigen") if _name in LDA else ("svd", "eigen")):
            CASES.append(Case(_name, f"store_covariance={_store} solver={_solver}",
                              lambda cls, name=_name, st=_store, s=_solver: hasattr(
                                  cls(solver=s, store_covariance=st).fit(*data(name)), "covariance_")))


class BareOAS:
    """A covariance estimator without get_params: not a full scikit-learn estimator."""

    def fit(self, X, y=None):
        self.covariance_ = OAS().fit(X).covariance_
        return self


class NoCovariance:
    def fit(self, X, y=None):
        return self


def _with_estimator(cls, name, make):
    X, y = data(name)
    solver = "lsqr" if name in LDA else "eigen"
    return cls(solver=solver, covariance_estimator=make()).fit(X, y).predict_proba(X[:5])


def _bare_is_used(cls, name):
    X, y = data(name)
    obj = BareOAS()
    cls(solver="lsqr" if name in LDA else "eigen", covariance_estimator=obj).fit(X, y)
    return hasattr(obj, "covariance_")


for _name in LDA + QDA:
    for _label, _make in (("OAS", OAS), ("EmpiricalCovariance", EmpiricalCovariance),
                          ("without get_params", BareOAS), ("without covariance_", NoCovariance)):
        CASES.append(Case(_name, f"covariance_estimator {_label}",
                          lambda cls, name=_name, make=_make: _with_estimator(cls, name, make)))
    CASES.append(Case(_name, "covariance_estimator without get_params is used as given",
                      lambda cls, name=_name: _bare_is_used(cls, name)))


# ---- the Perceptron
P = ("Perceptron",)
_START = np.random.default_rng(1)
COEF0, INTERCEPT0 = _START.normal(size=(1, 4)), _START.normal(size=1)


def _weights(cls, settings):
    X, y = data("Perceptron", K=2, n=200)
    X = X + np.random.default_rng(5).normal(scale=3.0, size=X.shape)
    est = cls(shuffle=False, max_iter=8, **({"tol": None} | settings))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # (scikit-learn writes its fit into coef_init: each library gets a copy)
        est.fit(X, y, coef_init=COEF0.copy(), intercept_init=INTERCEPT0.copy())
    return est.coef_, est.intercept_, est.n_iter_, est.t_


for _settings in ({}, {"tol": 1e-3}, {"penalty": "l2"}, {"penalty": "l1"}, {"penalty": "l1", "alpha": 0.01},
                  {"penalty": "elasticnet"}, {"penalty": "elasticnet", "alpha": 0.01, "l1_ratio": 0.5},
                  {"penalty": "l1", "tol": 1e-3}, {"penalty": "elasticnet", "eta0": 0.3, "alpha": 0.003},
                  {"penalty": "l2", "alpha": 2.0}, {"class_weight": {0: 2.0, 1: 0.5}}):
    CASES.append(Case("Perceptron", f"weights {_settings}", lambda cls, s=_settings: _weights(cls, s)))


@case(P, "partial_fit with class_weight='balanced'")
def _(cls, name):
    X, y = data(name)
    return cls(class_weight="balanced").partial_fit(X, y, classes=[0, 1, 2])


@case(P, "class_weight naming an unknown label")
def _(cls, name):
    X, y = data(name)
    return cls(class_weight={7: 2.0}).fit(X, y)


@case(P, "coef_init of the wrong shape")
def _(cls, name):
    X, y = data(name)
    return cls().fit(X, y, coef_init=np.zeros((2, 2)))


@case(P, "intercept_init of the wrong shape")
def _(cls, name):
    X, y = data(name)
    return cls().fit(X, y, intercept_init=np.zeros(5))


@case(P, "early_stopping with a validation_fraction too small")
def _(cls, name):
    X, y = data(name)
    return cls(early_stopping=True, validation_fraction=0.01).fit(X[:30], y[:30])


@case(P, "tol=None and max_iter reached")
def _(cls, name):
    X, y = data(name, K=2)
    X = X + np.random.default_rng(0).normal(scale=5, size=X.shape)
    return cls(max_iter=2, tol=None).fit(X, y).n_iter_


@case(P, "default fit")
def _(cls, name):
    X, y = data(name, K=2)
    est = cls().fit(X, y)
    return est.score(X, y), est.n_iter_


@case(P, "eta0 * alpha above 1 with l2")
def _(cls, name):
    X, y = data(name, K=2)
    return cls(penalty="l2", alpha=2.0, eta0=1.0, max_iter=5).fit(X, y).coef_.shape


@case(P, "check_class_weight_classifiers (3 classes)", warnings_count=False)
def _(cls, name):
    from sklearn.datasets import make_blobs
    from sklearn.model_selection import train_test_split

    X, y = make_blobs(centers=3, random_state=0, cluster_std=20)
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.5, random_state=0)
    est = cls(class_weight={0: 1000, 1: 0.0001, 2: 0.0001}, max_iter=1000, n_iter_no_change=20,
              random_state=0).fit(X_train, y_train)
    return bool(np.mean(est.predict(X_test) == 0) > 0.87)


@case(P, "warm_start with tol=None")
def _(cls, name):
    X, y = data(name)
    est = cls(warm_start=True, max_iter=3, tol=None, shuffle=False).fit(X, y)
    return est.fit(X, y).coef_.shape


# ---------------------------------------------------------------------------------------- differences
_EXTENSION = "linclass does more"
#: (class, case label) -> why linclass differs there on purpose
DIFFERENCES = {
    # one model behind every solver name (README: drop-in section)
    **{(n, label): f"{_EXTENSION}: every solver accepts shrinkage and covariance_estimator (one closed "
                   "form from the class statistics)"
       for n in LDA + QDA for label in ("svd with shrinkage", "svd with covariance_estimator",
                                        "invalid shrinkage=0")},
    **{(LDA[0], f"outputs {s} K={K}"): f"{_EXTENSION}: 'lsqr' has transform (the 'svd' projection)"
       for s in ({"solver": "lsqr"}, {"solver": "lsqr", "shrinkage": "auto"}) for K in (2, 3)},
    (LDA[0], "lsqr transform"): f"{_EXTENSION}: 'lsqr' has transform (the 'svd' projection)",
    **{(LDA[0], f"{s} with a singular covariance"): "a SingularCovarianceWarning says the pseudo-inverse "
       "is used and how to regularise instead (scikit-learn is silent)"
       for s in ("svd", "lsqr", "eigen")},
    **{(LDA[0], f"invalid tol={t}"): "scikit-learn fails with an IndexError (every singular value below "
       "tol: no direction kept); linclass keeps the rank rule's fallback" for t in (1.5, 2.5)},
    (LDA[0], "fit on one class"): "scikit-learn fails with numpy's AxisError; linclass raises a "
                                  "ValueError saying a classifier needs two classes",
    # priors are checked and renormalised for LDA and QDA alike
    (QDA[0], "priors of the wrong length"): "scikit-learn's QDA does not check priors (predict fails "
                                            "later); linclass refuses them at fit, as its LDA does",
    (QDA[0], "negative priors"): "as above: refused at fit, as scikit-learn's LDA does",
    (QDA[0], "priors not summing to 1"): "renormalised with a UserWarning, as scikit-learn's LDA does "
                                         "(its QDA uses them as given: the same probabilities)",
    # naive Bayes
    **{(n, "negative sample_weight"): "sample_weight are frequencies: negative ones are refused "
       "(scikit-learn accepts them)" for n in WEIGHTED},
    **{(n, "alpha=0 with force_alpha=True"): "alpha below 1e-10 is raised to 1e-10 with a warning "
       "(an exact 0 makes the posterior 0/0 for a row holding a feature never seen in a class, where "
       "scikit-learn returns NaN)" for n in DISCRETE},
    **{(n, "class_prior not summing to 1"): "divided by their sum with a UserWarning, as LDA's priors "
       "(scikit-learn uses them as given, which shifts predict_joint_log_proba)" for n in DISCRETE},
    **{(n, "partial_fit with a label not in classes"): "refused with a ValueError naming the label "
       "(scikit-learn's discrete naive Bayes ignores those rows silently)" for n in DISCRETE},
    ("BernoulliNB", "alpha array"): f"{_EXTENSION}: a per-feature alpha array (scikit-learn's "
                                    "BernoulliNB fails on one)",
    ("BernoulliNB", "binarize=None with non-binary X"): "binarize=None means X is 0/1: other values "
                                                        "are refused (scikit-learn counts them as is)",
    ("CategoricalNB", "unseen category at predict"): f"{_EXTENSION}: an unseen category counts zero "
                                                     "in every class (scikit-learn: IndexError)",
    ("CategoricalNB", "fit with one sample"): f"{_EXTENSION}: the categories predict sees that fit did "
                                              "not count zero in every class (scikit-learn: IndexError)",
    ("ComplementNB", "partial_fit first call with one class present"): "a class without training "
                    "weight is never predicted (scikit-learn's complement scores leave the prior "
                    "out, so an unseen class can win)",
    ("ComplementNB", "predictions {'norm': True} K=3 weighted"): "an exact tie: a row of equal counts "
                    "scores 2.0 in every class with norm=True, and rounding picks the class",
    **{("GaussianNB", label): "a zero variance is floored with a SingularCovarianceWarning (scikit-"
       "learn divides by it: inf and NaN with RuntimeWarnings)"
       for label in ("fit with one sample", "var_smoothing=0 with a constant feature")},
    **{(n, "partial_fit with classes duplicated and unsorted"): "classes with a repeated label are "
       "refused (scikit-learn takes their unique values; its discrete naive Bayes fails on them)"
       for n in ("GaussianNB", "Perceptron")},
    # the Perceptron
    ("Perceptron", "partial_fit first call with one class present"): "K > 2 classes use the multi-class "
                   "perceptron (one weight vector per class), scikit-learn one-vs-rest perceptrons",
    ("Perceptron", "default fit"): "shuffled orders come from NumPy's Generator (scikit-learn's own "
                                   "generator): other paths, the same rule",
    **{("Perceptron", label): "tol=None is Rosenblatt's rule, train until an epoch without mistakes: a "
       "ConvergenceWarning when max_iter comes first (scikit-learn's tol=None runs max_iter epochs "
       "without a warning)" for label in ("tol=None and max_iter reached", "warm_start with tol=None")},
}


def main(selected=()) -> None:
    totals = [0, 0]
    for name in NAMES:
        if selected and name not in selected:
            continue
        ours, theirs = getattr(linclass, name), reference(name)
        held = agreed = 0
        lines = []
        for c in (c for c in CASES if c.name == name):
            why = compare(observe(c.action, theirs), observe(c.action, ours), c.param, c.warnings_count)
            held += 1
            agreed += why is None
            if why is not None:
                reason = DIFFERENCES.get((name, c.label), "NOT LISTED")
                lines.append(f"  - {c.label}: {why}\n      reason: {reason}")
        totals[0] += agreed
        totals[1] += held
        print(f"{name}: {agreed}/{held} = {100 * agreed / held:.1f}%")
        print("\n".join(lines))
    print(f"total: {totals[0]}/{totals[1]} = {100 * totals[0] / totals[1]:.1f}%")


if __name__ == "__main__":
    main(tuple(sys.argv[1:]))
