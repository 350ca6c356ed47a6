"""linclass: the classic linear classifiers, exact to the math and fast.

Public names only.  The package is arranged by role, in the order data flows through it:

``core``        validation, the chunk protocol, the float32 policy, posteriors
``generative``  class statistics, covariance estimates, priors, Gaussian models, regularised
                discriminant analysis, discrete naive Bayes
``projection``  Fisher's discriminant and kernel Fisher (discriminative projections)
``linear``      the logistic objective over dense, sparse and chunked designs, its penalties,
                solvers, inference and fit; the perceptron
``selection``   leave-one-out and cross-validated model selection by downdates
``strategies``  the meta-estimators' arithmetic: multi-class votes, standardised features
``sources``     where rows come from: CSV / Parquet tables, Dask collections, files
``formula``     formulas on data frames (formulaic's coding of factors, kept as plain data)
``estimators``  the scikit-learn classes (thin glue: validate -> spine -> fitted attributes)
``io``          model files (``save`` / ``load``), the atomic writer
``export``      deployment: ONNX graphs of fitted classifiers (``to_onnx``)
``geometry``    the hyperplanes of linear boundaries, signed distances to them
``plot``        figures (matplotlib, imported only when a figure is drawn)
``datasets``    the bundled data sets, CSV / Parquet tables and files read in chunks
``chunks``      fitting from a chunk source (``fit_chunked``) and the chunk protocol
``cli``         the ``linclass`` command
``registry``    every estimator once, with what it can do

Users import from ``linclass`` itself and from the public modules ``linclass.plot``,
``linclass.geometry``, ``linclass.datasets`` and ``linclass.chunks``; the other module paths are the
implementation's and may move (CHANGELOG.md lists the first release's paths that went).
"""

from typing import TYPE_CHECKING

from linclass import registry as _registry
from linclass.core.lazy import lazy_getattr as _lazy_getattr

if TYPE_CHECKING:
    # What type checkers see: the names that the module ``__getattr__`` below imports on first use
    # (it is hidden from them, or every misspelt name would pass as Any).  Kept equal to ``__all__``
    # by tests/test_typing.py.
    from linclass.estimators.categorical_nb import CategoricalNB
    from linclass.estimators.discriminant_analysis import (
        GaussianDiscriminantAnalysis, QuadraticDiscriminantAnalysis)
    from linclass.estimators.fisher_discriminant import FisherDiscriminantAnalysis
    from linclass.estimators.formula import FormulaClassifier, from_formula
    from linclass.estimators.formula_comparison import diagnostics, drop1, lr_test
    from linclass.estimators.kernel_discriminant import KernelFisherDiscriminantAnalysis
    from linclass.estimators.linear_discriminant import LinearDiscriminantAnalysis
    from linclass.estimators.logistic.cv import LogisticRegressionCV
    from linclass.estimators.logistic.path import LogisticPath, logistic_path
    from linclass.estimators.logistic.regression import LogisticRegression
    from linclass.estimators.loo_posteriors import loo_predict_proba, loo_score
    from linclass.estimators.multiclass import (
        KClassDiscriminant, OneVsOneClassifier, OneVsRestClassifier)
    from linclass.estimators.naive_bayes import (
        BernoulliNB, ComplementNB, GaussianNB, MultinomialNB, PoissonNB)
    from linclass.estimators.ordinal import OrderedLogisticRegression
    from linclass.estimators.perceptron import Perceptron
    from linclass.estimators.regularized_discriminant import (
        RegularizedDiscriminantAnalysis, RegularizedDiscriminantAnalysisCV)
    from linclass.estimators.score_tests import anova, score_test
    from linclass.estimators.standardized import StandardizedClassifier
    from linclass.exceptions import (
        AliasedColumnsWarning, GridEdgeWarning, SeparationWarning, SingularCovarianceWarning)
    from linclass.export.onnx import to_onnx
    from linclass.generative.class_stats import ClassStats
    from linclass.io.persistence import ModelFileError, load, save

__version__ = "0.1.0"

#: the public estimators: the registry's list (:data:`linclass.registry.ENTRIES`)
_ESTIMATORS = tuple(sorted(entry.name for entry in _registry.ENTRIES))
#: every public name -> the module that defines it, imported on first use (module ``__getattr__``),
#: so that ``import linclass`` and the command's ``--help`` pay for no scikit-learn, SciPy or numba
#: import; ``from linclass import X`` imports X's module then
_HOME = {
    **{entry.name: entry.home for entry in _registry.ENTRIES},
    "AliasedColumnsWarning": "linclass.exceptions",
    "GridEdgeWarning": "linclass.exceptions",
    "SeparationWarning": "linclass.exceptions",
    "SingularCovarianceWarning": "linclass.exceptions",
    "ClassStats": "linclass.generative.class_stats",
    "LogisticPath": "linclass.estimators.logistic.path",
    "logistic_path": "linclass.estimators.logistic.path",
    "loo_predict_proba": "linclass.estimators.loo_posteriors",
    "loo_score": "linclass.estimators.loo_posteriors",
    "from_formula": "linclass.estimators.formula",
    "diagnostics": "linclass.estimators.formula_comparison",
    "drop1": "linclass.estimators.formula_comparison",
    "lr_test": "linclass.estimators.formula_comparison",
    "anova": "linclass.estimators.score_tests",
    "score_test": "linclass.estimators.score_tests",
    "to_onnx": "linclass.export.onnx",
    "ModelFileError": "linclass.io.persistence",
    "load": "linclass.io.persistence",
    "save": "linclass.io.persistence",
}

__all__ = sorted(set(_HOME) - set(_ESTIMATORS)) + ["__version__"] + list(_ESTIMATORS)


if not TYPE_CHECKING:  # a type checker would give every unknown name __getattr__'s type
    # a public name, imported from its module on first use; else a submodule (``linclass.plot``
    # after ``import linclass``), imported then
    __getattr__ = _lazy_getattr(__name__, _HOME, globals(), base="", submodules=True)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
