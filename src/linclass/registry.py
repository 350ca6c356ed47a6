"""Every public estimator, once: its class, the command's name for it, and what it can do.

The model files (:mod:`linclass.io.persistence`: which classes a file may build), the command
(:mod:`linclass.cli`: ``--model`` names, which models apply to which data and figures), the geometry
and figures (:mod:`linclass.geometry`, :mod:`linclass.plot`), chunked fits
(:mod:`linclass.sources.chunks`) and the test suite (every entry and variant is run through the
estimator checks, the bad-input matrix, the property tests and the save / load round trip) all read
this table, and so do :mod:`linclass.estimators` and :mod:`linclass` for their public names (each
class imported from the module its entry names).  Adding an estimator is its modules and one
:class:`Entry` below.

Capabilities
------------
``proba``        ``predict_proba`` / ``predict_log_proba``
``transform``    ``transform`` (a projection)
``partial_fit``  ``partial_fit`` on batches gives the same model as ``fit`` on all of them
``chunks``       fits from a chunk source (Dask collections, files read in blocks):
                 :func:`linclass.chunks.fit_chunked`
``sparse``       accepts scipy.sparse X without densifying it (its default settings)
``counts``       models non-negative counts or binary features (not real-valued measurements)
``gaussian``     Gaussian class densities (``means_``, ``covariance_``): density figures
``linear``       its decision boundaries are hyperplanes in x (for some settings, see
                 :func:`linclass.geometry.hyperplanes`)
``curve``        records a training curve (``loss_curve_`` or ``errors_``)
``seeded``       has a ``random_state``
``meta``         wraps another estimator (the ``estimator`` parameter)
``inference``    ``summary()``: coefficients with standard errors, tests and intervals
``kernel``       works in a kernel's feature space (cost grows with n^2 unless approximated)
``units``        its default fit depends on the features' units (a penalty, a step size, a kernel's
                 width, a shrinkage target or a variance floor the same for every feature):
                 standardising the features (:class:`~linclass.StandardizedClassifier`, the
                 command's ``--scale``) changes it.  LDA, QDA, GDA and Fisher's discriminant are
                 unchanged by it (so is unpenalised logistic regression); regularised discriminant
                 analysis is not (its shrinkage target is :math:`\\mathrm{tr}(\\Sigma)/d\\, I`), nor
                 is Gaussian naive Bayes (``var_smoothing`` adds 1e-9 of the largest variance to
                 every variance: noticeable once the variances span nine orders of magnitude, as on
                 raw breast cancer).  Models of counts have no other units.
                 ``tests/test_registry_units.py`` derives the marks by refitting in other units.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

__all__ = ["CAPABILITIES", "ENTRIES", "Entry", "by_alias", "by_class", "by_name", "entries"]

CAPABILITIES = frozenset({
    "proba", "transform", "partial_fit", "chunks", "sparse", "counts", "gaussian", "linear",
    "curve", "seeded", "meta", "kernel", "inference", "units",
})


@dataclass(frozen=True)
class Entry:
    """One public estimator.

    Attributes
    ----------
    estimator : type or str
        The estimator class, or its name in :mod:`linclass.estimators` (imported on first use of
        :attr:`cls`, so that the command's help and model names cost no scikit-learn import).
    alias : str or None
        The command's ``--model`` name (None: not offered by the command).
    summary : str
        One line for the command's help.
    capabilities : frozenset of str
        See the module docstring.
    variants : tuple of dict
        Constructor settings that exercise distinct code (each solver, covariance structure,
        event model, ...); the first is the default model.  The test suite runs every one.
    inner : type, str or None
        For a meta-estimator, the class it wraps by default (the command and the tests build
        ``cls(inner())``), or its name.
    module : str or None
        The module of :mod:`linclass.estimators` that defines the class named ``estimator``
        (``'logistic.cv'``: ``linclass.estimators.logistic.cv``).  :mod:`linclass.estimators` and
        :mod:`linclass` take their public estimator names and homes from this table.
    """

    estimator: type | str
    alias: str | None
    summary: str
    capabilities: frozenset = field(default_factory=frozenset)
    variants: tuple = ({},)
    inner: type | str | None = None
    module: str | None = None

    def __post_init__(self):
        unknown = set(self.capabilities) - CAPABILITIES
        if unknown:
            raise ValueError(f"{self.name}: unknown capabilities {sorted(unknown)}")

    @property
    def cls(self) -> type:
        """The estimator class; ``cls.__name__`` is the name written in model files."""
        return _resolve(self.estimator)

    @property
    def name(self) -> str:
        return self.estimator if isinstance(self.estimator, str) else self.estimator.__name__

    @property
    def home(self) -> str:
        """The full path of the module that defines the class."""
        if self.module is not None:
            return f"linclass.estimators.{self.module}"
        if isinstance(self.estimator, type):
            return self.estimator.__module__
        return "linclass.estimators"

    def can(self, capability: str) -> bool:
        """Whether the estimator has ``capability``.

        Parameters
        ----------
        capability : str
            One of :data:`CAPABILITIES` (any other name raises ValueError).
        """
        if capability not in CAPABILITIES:
            raise ValueError(f"unknown capability {capability!r}; known: {sorted(CAPABILITIES)}")
        return capability in self.capabilities

    def make(self, **params):
        """A fresh estimator with ``params`` set (a meta-estimator wraps a fresh ``inner()``)."""
        inner = None if self.inner is None else _resolve(self.inner)
        model = self.cls(estimator=inner()) if inner is not None else self.cls()
        return model.set_params(**params)


def _resolve(estimator) -> type:
    """A class, or the public estimator class of that name (imported from its module)."""
    if isinstance(estimator, str):
        return getattr(importlib.import_module(_BY_NAME[estimator].home), estimator)
    return estimator


def _caps(*names: str) -> frozenset:
    return frozenset(names)


_STATS = ("proba", "partial_fit", "chunks")  # every model fitted from class statistics

ENTRIES: tuple[Entry, ...] = (
    Entry("LinearDiscriminantAnalysis", "lda", "Gaussian classes, shared covariance",
          _caps(*_STATS, "transform", "gaussian", "linear"),
          ({}, {"shrinkage": "ledoit-wolf"}, {"shrinkage": "oas", "n_components": 1}),
          module="linear_discriminant"),
    Entry("QuadraticDiscriminantAnalysis", "qda", "Gaussian classes, own covariance each",
          _caps(*_STATS, "gaussian"), ({}, {"reg_param": 0.01}, {"shrinkage": "ledoit-wolf"}),
          module="discriminant_analysis"),
    Entry("GaussianNB", "gnb", "Gaussian naive Bayes", _caps(*_STATS, "gaussian", "units"),
          module="naive_bayes"),
    Entry("GaussianDiscriminantAnalysis", "gda", "Gaussian, covariance_type=tied|full|diag|...",
          _caps(*_STATS, "gaussian", "linear"),
          tuple({"covariance_type": t} for t in ("tied", "full", "diag", "tied_diag", "spherical")),
          module="discriminant_analysis"),
    Entry("RegularizedDiscriminantAnalysis", "rda", "Friedman's regularised discriminant analysis",
          _caps(*_STATS, "gaussian", "units"),
          ({}, {"pooling": 0.0, "shrinkage": 0.2}, {"pooling": 1.0, "shrinkage": 0.05}),
          module="regularized_discriminant"),
    Entry("RegularizedDiscriminantAnalysisCV", "rda-cv",
          "regularised discriminant analysis, parameters cross-validated",
          _caps("proba", "chunks", "gaussian", "units"),
          ({}, {"cv": 3, "poolings": 4, "shrinkages": [0.1, 0.5], "scoring": "accuracy"}),
          module="regularized_discriminant"),
    Entry("BernoulliNB", "bernoulli-nb", "naive Bayes for binary features",
          _caps(*_STATS, "sparse", "counts", "linear"), ({}, {"binarize": None}),
          module="naive_bayes"),
    Entry("MultinomialNB", "multinomial-nb", "naive Bayes for counts",
          _caps(*_STATS, "sparse", "counts", "linear"), module="naive_bayes"),
    Entry("PoissonNB", "poisson-nb", "naive Bayes, Poisson counts",
          _caps(*_STATS, "sparse", "counts", "linear"), module="naive_bayes"),
    Entry("ComplementNB", "complement-nb", "complement naive Bayes for counts (imbalanced text)",
          _caps(*_STATS, "sparse", "counts", "linear"), ({}, {"norm": True}),
          module="naive_bayes"),
    Entry("CategoricalNB", "categorical-nb", "naive Bayes for categorical features (integer codes)",
          _caps("proba", "partial_fit", "counts"), module="categorical_nb"),
    Entry("LogisticRegression", "logistic", "logistic / softmax regression (L2, L1, elastic net)",
          _caps("proba", "chunks", "sparse", "linear", "curve", "seeded", "inference", "units"),
          tuple({"solver": s} for s in ("auto", "newton", "bohning", "lbfgs", "sgd", "cd"))
          + ({"class_weight": "balanced"}, {"fit_intercept": False}, {"penalty": "l1"},
             {"penalty": "elasticnet", "l1_ratio": 0.5},
             {"penalty": "elasticnet", "l1_ratio": 0.5, "penalty_factor": 0.5, "lower_bounds": -10.0,
              "upper_bounds": 10.0},
             {"penalty": "l1", "multinomial_penalty": "grouped"}),
          module="logistic.regression"),
    Entry("LogisticRegressionCV", "logistic-cv", "penalised logistic, C chosen by cross-validation",
          _caps("proba", "chunks", "sparse", "linear", "curve", "units"),
          # scored by the held-out log-loss, as scikit-learn runs its own checks of it (its default,
          # accuracy, ties across most of the grid on the test problems)
          ({"scoring": "neg_log_loss"}, {"Cs": 5, "penalty": "l1", "scoring": "neg_log_loss"},
           {"Cs": 4, "penalty": "elasticnet", "l1_ratios": (0.2, 0.8), "cv": 3,
            "scoring": "neg_log_loss"}), module="logistic.cv"),
    Entry("OrderedLogisticRegression", "polr", "ordinal regression, proportional odds (MASS's polr)",
          _caps("proba", "chunks", "inference"), ({}, {"link": "probit"}), module="ordinal"),
    Entry("Perceptron", "perceptron", "Rosenblatt's perceptron (no probabilities)",
          _caps("partial_fit", "linear", "curve", "seeded", "sparse", "units"),
          ({}, {"basis": "poly"}, {"shuffle": False, "pocket": True}), module="perceptron"),
    Entry("FisherDiscriminantAnalysis", "fisher", "Fisher's linear discriminant",
          _caps(*_STATS, "transform", "linear"),
          tuple({"solver": s} for s in ("svd", "eigen", "gsvd")) + ({"threshold": "midpoint"},),
          module="fisher_discriminant"),
    Entry("KernelFisherDiscriminantAnalysis", "kfda", "kernel Fisher discriminant",
          _caps("proba", "transform", "kernel", "seeded", "units"),
          tuple({"solver": s} for s in ("ridge", "pinv", "gsvd"))
          + ({"approximation": "nystroem", "n_landmarks": 40},), module="kernel_discriminant"),
    Entry("OneVsRestClassifier", "ovr-logistic", "one-vs-rest binary logistic",
          _caps("proba", "linear", "meta", "units"), inner="LogisticRegression",
          module="multiclass"),
    Entry("OneVsOneClassifier", "ovo-logistic", "one-vs-one binary logistic",
          _caps("proba", "linear", "meta", "units"), inner="LogisticRegression",
          module="multiclass"),
    Entry("KClassDiscriminant", None, "one K-class discriminant over a multi-class estimator",
          _caps("proba", "linear", "meta", "units"), inner="LogisticRegression",
          module="multiclass"),
    Entry("StandardizedClassifier", None, "standardised features, then the wrapped estimator "
          "(the command's --scale)", _caps("proba", "linear", "meta", "inference"),
          inner="LogisticRegression", module="standardized"),
    # (not 'meta' for the geometry: its boundaries are hyperplanes in the coded columns, not in the
    # frame's; without a formula, as here, the data are the coded columns)
    Entry("FormulaClassifier", None, "a formula on a data frame (formulaic's coding of factors), "
          "then the wrapped estimator", _caps("proba", "inference", "units"),
          inner="LogisticRegression", module="formula"),
)

_BY_NAME = {e.name: e for e in ENTRIES}
_BY_ALIAS = {e.alias: e for e in ENTRIES if e.alias is not None}


def entries(*capabilities: str) -> tuple[Entry, ...]:
    """The entries that have every one of ``capabilities`` (all entries when none is given).

    Parameters
    ----------
    *capabilities : str
        Names from :data:`CAPABILITIES`.
    """
    return tuple(e for e in ENTRIES if all(e.can(c) for c in capabilities))


def by_class(cls) -> Entry | None:
    """The entry of exactly this class (a subclass has none)."""
    entry = _BY_NAME.get(getattr(cls, "__name__", None))
    return entry if entry is not None and entry.cls is cls else None


def by_name(name: str) -> Entry | None:
    """The entry whose class is called ``name`` (the name model files record)."""
    return _BY_NAME.get(name)


def by_alias(alias: str) -> Entry | None:
    """The entry of a command-line model name."""
    return _BY_ALIAS.get(alias)
