"""One matrix: every public estimator x every bad input, each with its expected outcome written down.

An outcome is either

* ``Err(type, fragment)``: the call raises exactly that exception type (not a subclass such as
  numpy's LinAlgError) and the message names the problem (``fragment`` is a regular expression), or
* ``Ok(warnings, check)``: the call returns; the set of warning classes it emits (RuntimeWarning stays
  an error, as in the project's pytest configuration) is exactly ``warnings``; every available
  ``predict_proba`` is finite with rows summing to 1 within 1e-12; and ``check`` (the case's own
  soundness test: accuracy, equivalence with the clean problem, ...) holds.

The estimators are the registry's entries and variants (``conftest.CASES``); whether a row applies
(``partial_fit``, ``sample_weight``) and which data an estimator gets (Gaussian blobs, counts, 0/1
bits) are read from the registry's capabilities and the signature of ``fit``.  A row's default outcome
is what every estimator should do; outcomes that differ are written in the row's table for groups and
classes (and variants) of estimators, so a new estimator meets every row with the default outcomes.
The numerical stress tests (far points, rescaled data, float32) are at the end of the file.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.utils.validation import has_fit_parameter

import linclass
from conftest import CASES, Case, case_id, data_kind
from conftest import blobs as shared_blobs
from linclass import GridEdgeWarning, SeparationWarning, SingularCovarianceWarning

pd = pytest.importorskip("pandas")

SCW, CW, SW, GEW = SingularCovarianceWarning, ConvergenceWarning, SeparationWarning, GridEdgeWarning


# ============================================================================ the estimators
@dataclass(frozen=True)
class Spec:
    """A registry case and what the matrix needs to know of it (read from the registry's capabilities
    and the signature of ``fit``)."""
    case: Case
    partial_fit: bool
    sample_weight: bool
    proba: bool

    def make(self):
        return self.case.make()


ESTIMATORS = {
    c.id: Spec(c, partial_fit=c.can("partial_fit"), proba=c.can("proba"),
               sample_weight=has_fit_parameter(c.make(), "sample_weight"))
    for c in CASES
}
ALL = tuple(ESTIMATORS)
PARTIAL = tuple(k for k, s in ESTIMATORS.items() if s.partial_fit)
UNWEIGHTED = {k for k, s in ESTIMATORS.items() if not s.sample_weight}


def kind(name):
    """'gauss', 'counts' or 'binary': the data the estimator models (conftest.data_kind)."""
    return data_kind(ESTIMATORS[name].case)


_ABSENT = object()


def where(cls, **settings):
    """The ids of the cases of ``cls`` whose variant has these settings (every variant when none)."""
    return {k for k, s in ESTIMATORS.items()
            if s.case.cls is cls and all(s.case.variant.get(p, _ABSENT) == v for p, v in settings.items())}


RDA_CLASSES = (linclass.RegularizedDiscriminantAnalysis, linclass.RegularizedDiscriminantAnalysisCV)


def covariance(case):
    """The covariance structure of a Gaussian model: 'tied', 'full', 'diag', 'tied_diag', 'spherical'."""
    if case.cls in RDA_CLASSES:  # a full covariance per class, always regularised
        return "full"
    if case.cls is linclass.GaussianDiscriminantAnalysis:
        return case.variant.get("covariance_type", "tied")
    return {linclass.LinearDiscriminantAnalysis: "tied", linclass.QuadraticDiscriminantAnalysis: "full",
            linclass.GaussianNB: "diag"}.get(case.cls)


def regularised(case):
    return case.cls in RDA_CLASSES or bool(case.variant.get("shrinkage") or case.variant.get("reg_param"))


def _group(test):
    return {k for k, s in ESTIMATORS.items() if test(s.case)}


# groups used in the tables (keyed by class and variant)
DISCRETE = _group(lambda c: c.can("counts"))
TIED = _group(lambda c: covariance(c) == "tied" and not regularised(c))
FULL = _group(lambda c: covariance(c) == "full" and not regularised(c))
DIAG = _group(lambda c: covariance(c) in ("diag", "spherical", "tied_diag"))
QUADRATIC = _group(lambda c: covariance(c) in ("full", "diag", "spherical"))  # scores square x
# shrunk towards a multiple of the identity (the mean variance): no singular covariance, and an extra
# feature changes the target and the intensity (a little, for every feature)
SHRUNK = _group(lambda c: covariance(c) in ("tied", "full") and c.variant.get("shrinkage") is not None
                and c.cls not in RDA_CLASSES)
# regularised discriminant analysis: the shrinkage target tr(Sigma)/d I averages over every feature
RDA = where(linclass.RegularizedDiscriminantAnalysis) | where(linclass.RegularizedDiscriminantAnalysisCV)
RDA_CV_KFOLD = where(linclass.RegularizedDiscriminantAnalysisCV, cv=3)
RDA_CV_LOO = where(linclass.RegularizedDiscriminantAnalysisCV) - RDA_CV_KFOLD
GNB = where(linclass.GaussianNB)
GDA_TIED_DIAG = where(linclass.GaussianDiscriminantAnalysis, covariance_type="tied_diag")
GDA_DIAG = where(linclass.GaussianDiscriminantAnalysis, covariance_type="diag")
# standardises each feature in units of its largest deviation first: any magnitude is as clean data
STANDARDIZED = where(linclass.StandardizedClassifier)
GDA_SPHERICAL = where(linclass.GaussianDiscriminantAnalysis, covariance_type="spherical")
BERNOULLI = where(linclass.BernoulliNB)
BERNOULLI_BINARY = where(linclass.BernoulliNB, binarize=None)
BERNOULLI_THRESHOLD = BERNOULLI - BERNOULLI_BINARY
MULTINOMIAL = where(linclass.MultinomialNB)
POISSON = where(linclass.PoissonNB)
COMPLEMENT = where(linclass.ComplementNB)
CATEGORICAL = where(linclass.CategoricalNB)
# naive Bayes fits a single class, as scikit-learn's does (a defined answer), and needs `classes` on
# the first call to partial_fit
NAIVE_BAYES = _group(lambda c: c.cls in (linclass.GaussianNB, linclass.BernoulliNB, linclass.MultinomialNB,
                                         linclass.PoissonNB, linclass.ComplementNB, linclass.CategoricalNB))
FISHER = where(linclass.FisherDiscriminantAnalysis)
# LDA/GSVD keeps the directions in the null space of S_W: made for singular S_W, without a warning
FISHER_GSVD = where(linclass.FisherDiscriminantAnalysis, solver="gsvd")
KFDA = where(linclass.KernelFisherDiscriminantAnalysis)
LR_SLOW = where(linclass.LogisticRegression, solver="bohning") | where(linclass.LogisticRegression, solver="sgd")
# the boundary passes through the origin: the shifted classes below are not separable by it
NO_INTERCEPT = where(linclass.LogisticRegression, fit_intercept=False)
PERCEPTRON = where(linclass.Perceptron)
LR_CV = where(linclass.LogisticRegressionCV)
LR_CV_L1 = where(linclass.LogisticRegressionCV, penalty="l1")
LR_CV_ENET = where(linclass.LogisticRegressionCV, penalty="elasticnet")
# scikit-learn's QDA: a class of one row is a ValueError, a singular class covariance a LinAlgError
QDA_ALL = where(linclass.QuadraticDiscriminantAnalysis)
# unpenalised maximum likelihood with thresholds in place of an intercept: a constant column is
# collinear with them, a redundant one leaves the information singular (warned; the predictions are
# those of the fit without it)
ORDINAL = where(linclass.OrderedLogisticRegression)


def the(cls, **settings):
    """The id of the variant of ``cls`` with exactly these settings (the default one when none)."""
    name = case_id(cls.__name__, settings)
    assert name in ESTIMATORS, f"{name} is not a registry variant"
    return name


LDA = the(linclass.LinearDiscriminantAnalysis)
QDA = the(linclass.QuadraticDiscriminantAnalysis)
FISHER_SVD = the(linclass.FisherDiscriminantAnalysis, solver="svd")  # the default solver


# ============================================================================ data
def blobs(name, n=40, d=3, seed=0, shift=1.0, n_classes=2):
    """Two (or more) overlapping classes, balanced, in the form the estimator models: Gaussian blobs,
    non-negative integer counts for the discrete naive Bayes models, 0/1 bits for BernoulliNB with
    binarize=None (conftest.blobs)."""
    return shared_blobs(kind(name), n=n, d=d, seed=seed, shift=shift, n_classes=n_classes)


def _bits(X, name):
    """Counts cut at 2 for the models of 0/1 features; the counts themselves for the others."""
    return (X > 2).astype(float) if kind(name) == "binary" else X


def separable(name, n=40, d=3, seed=1, counts=None):
    """Perfectly separable classes (for the discrete models: disjoint supports / a 0-1 indicator).
    ``counts(X, y)`` edits the discrete models' counts before they are cut to bits."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    if name in DISCRETE:
        X = rng.poisson(2.0, size=(n, d)).astype(float)
        X[:, 0] = np.where(y == 1, 3.0 + X[:, 0], 0.0)
        X[:, 1] = np.where(y == 0, 3.0 + X[:, 1], 0.0)
        if counts is not None:
            counts(X, y)
        X = _bits(X, name)
    else:
        X = rng.normal(size=(n, d))
        X[:, 0] += 8.0 * y
    return X, y


def fit(name, X, y, **kw):
    return ESTIMATORS[name].make().fit(X, y, **kw)


def with_value(X, value, at=(1, 2)):
    X = X.copy()
    X[at] = value
    return X


# ============================================================================ outcomes
@dataclass(frozen=True)
class Err:
    type: type
    match: str


@dataclass(frozen=True)
class Ok:
    warns: frozenset = field(default_factory=frozenset)
    check: Callable | None = None  # check(result, name) -> None (asserts)


def ok(*warns, check=None):
    return Ok(frozenset(warns), check)


def _all_proba_sound(model, Xs):
    if not hasattr(model, "predict_proba"):
        return
    for X in Xs:
        P = model.predict_proba(X)
        assert P.dtype == np.float64
        assert np.all(np.isfinite(P)), "predict_proba holds NaN or infinity"
        np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)
        assert np.all(np.isfinite(model.predict_log_proba(X)[P > 0]))
        D = np.asarray(model.decision_function(X))  # -inf only for a class that cannot be predicted
        assert not np.any(np.isnan(D) | (D == np.inf)), "decision_function holds NaN or +inf"
        assert np.all(np.isfinite(D) if D.ndim == 1 else np.isfinite(D).any(axis=1))


@dataclass
class Result:
    """What an action returns for the checks: the model, the data it can be evaluated on, extras."""
    model: object
    X: np.ndarray | None = None
    y: np.ndarray | None = None
    extra: dict = field(default_factory=dict)


def run_case(action, expected, name):
    if isinstance(expected, Err):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", (SCW, CW, SW))
            with pytest.raises(Exception) as info:
                action(name)
        assert type(info.value) is expected.type, (
            f"expected {expected.type.__name__}, got {type(info.value).__name__}: {info.value}"
        )
        assert re.search(expected.match, str(info.value)), (
            f"message does not name the problem ({expected.match!r}): {info.value}"
        )
        return
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        warnings.simplefilter("error", RuntimeWarning)
        result = action(name)
        if result.X is not None:
            _all_proba_sound(result.model, [result.X])
    emitted = {w.category for w in record if issubclass(w.category, UserWarning)}
    assert emitted == set(expected.warns), (
        f"warnings {sorted(c.__name__ for c in emitted)} != expected "
        f"{sorted(c.__name__ for c in expected.warns)}: {[str(w.message)[:120] for w in record]}"
    )
    if expected.check is not None:
        expected.check(result, name)


# ============================================================================ soundness checks
def only_class(label):
    def check(r, name):
        np.testing.assert_array_equal(r.model.classes_, [label])
        np.testing.assert_array_equal(r.model.predict(r.X), label)
        np.testing.assert_array_equal(r.model.predict_proba(r.X), 1.0)
    return check


def never_predicts(label):
    def check(r, name):
        X = blobs(name)[0] if r.X is None else r.X
        assert not np.any(r.model.predict(X) == label)
        np.testing.assert_array_equal(r.model.predict_proba(X)[:, list(r.model.classes_).index(label)], 0.0)
    return check


def accuracy_at_least(level):
    def check(r, name):
        acc = np.mean(r.model.predict(r.X) == r.y)
        assert acc >= level, f"training accuracy {acc} < {level}"
    return check


def same_as_clean(proba_atol=None):
    """Predictions (and, when ``proba_atol`` is given, probabilities) equal those of the fit on the
    clean data (``r.extra['clean']`` model, ``r.extra['X_clean']``)."""
    def check(r, name):
        clean, Xc = r.extra["clean"], r.extra["X_clean"]
        np.testing.assert_array_equal(r.model.predict(r.X), clean.predict(Xc))
        if proba_atol is not None:
            np.testing.assert_allclose(r.model.predict_proba(r.X), clean.predict_proba(Xc),
                                       rtol=0, atol=proba_atol)
    return check


def agrees_with_clean(min_agreement):
    def check(r, name):
        clean, Xc = r.extra["clean"], r.extra["X_clean"]
        agreement = np.mean(r.model.predict(r.X) == clean.predict(Xc))
        assert agreement >= min_agreement, f"only {agreement:.2f} of the predictions agree"
    return check


def checks(*fns):
    def check(r, name):
        for fn in fns:
            fn(r, name)
    return check


def per(default, *overrides, over=ALL):
    """The table of one case: ``default`` outcome for every estimator (of ``over``), then
    ``(ids, outcome)`` pairs, in order (a later pair wins), for the groups and classes above."""
    table = {name: default for name in over}
    for names, outcome in overrides:
        names = set(names) & set(over)
        assert names, "an override that selects no estimator"
        for name in names:
            table[name] = outcome
    return table


# ============================================================================ actions
def fit_on(make_X, make_y=None, **kw):
    def action(name):
        X, y = blobs(name)
        Xb = make_X(X, name)
        yb = y if make_y is None else make_y(y)
        model = fit(name, Xb, yb, **kw)
        return Result(model, Xb, yb)
    return action


def predict_on(make_X):
    def action(name):
        X, y = blobs(name)
        model = fit(name, X, y)
        Xp = make_X(X, name)
        model.predict(Xp)
        return Result(model, Xp, y)
    return action


def singleton_class(name):
    def one_row_of_class_1(X, y):
        X[:20, 0] = 0.0
        X[20] = [6.0, 0.0, 0.0]

    X, y = separable(name, n=21, counts=one_row_of_class_1)
    y = np.r_[np.zeros(20, int), 1]
    if name not in DISCRETE:
        X[20] = [8.0, 8.0, 8.0]
    model = fit(name, X, y)
    return Result(model, X, y)


def d_greater_than_n(name):
    rng = np.random.default_rng(3)
    n, d = 30, 250
    y = np.arange(n) % 2
    if name in DISCRETE:
        X = rng.poisson(1.0, size=(n, d)).astype(float)
        X[:, :5] += 4.0 * y[:, None]
        X = _bits(X, name)
    else:
        X = rng.normal(size=(n, d))
        X[:, :5] += 2.0 * y[:, None]
    return Result(fit(name, X, y), X, y)


def extra_feature(what):
    """Fit with an added column (constant / duplicate / collinear) and keep the clean fit to compare."""
    def action(name):
        X, y = blobs(name, n=60)
        bits = kind(name) == "binary"
        if what == "constant":
            new = np.full(X.shape[0], 1.0 if bits else 3.0)
        elif what == "duplicate":
            new = X[:, 1]
        elif bits:  # collinear: an exact affine combination that stays 0/1
            new = 1.0 - X[:, 1]
        else:  # collinear: an exact combination (non-negative integers for the count models)
            new = 2.0 * X[:, 1] + X[:, 2]
        Xb = np.c_[X, new]
        clean = fit(name, X, y)
        return Result(fit(name, Xb, y), Xb, y, {"clean": clean, "X_clean": X})
    return action


def separable_fit(name):
    X, y = separable(name)
    return Result(fit(name, X, y), X, y)


def scaled(factor):
    def action(name):
        X, y = blobs(name, shift=2.0)
        clean = fit(name, X, y)
        Xs = X * factor
        return Result(fit(name, Xs, y), Xs, y, {"clean": clean, "X_clean": X})
    return action


def partial_absent(with_classes):
    """Two batches, each holding one class only (a third class, never seen, in ``classes=``)."""
    def action(name):
        X, y = blobs(name)
        model = ESTIMATORS[name].make()
        if with_classes:
            model.partial_fit(X[y == 0], y[y == 0], classes=[0, 1, 2])
        else:
            model.partial_fit(X[y == 0], y[y == 0])
        model.partial_fit(X[y == 1], y[y == 1])
        return Result(model, X, y)
    return action


def partial_new_label(name):
    """No ``classes=``: the first batch holds classes 0 and 1, a later one brings class 2."""
    X, y = blobs(name, n=60, n_classes=3)
    model = ESTIMATORS[name].make()
    first = y < 2
    model.partial_fit(X[first], y[first])
    model.partial_fit(X[~first], y[~first])
    return Result(model, X, y)


def partial_str_then_int(with_classes):
    def action(name):
        X, y = blobs(name)
        model = ESTIMATORS[name].make()
        labels = np.array(["a", "b"])[y]
        if with_classes:
            model.partial_fit(X, labels, classes=["a", "b"])
        else:
            model.partial_fit(X, labels)
        model.partial_fit(X, y)
        return Result(model)
    return action


def dataframe_predict(columns):
    def action(name):
        X, y = blobs(name)
        df = pd.DataFrame(X, columns=["a", "b", "c"])
        model = fit(name, df, y)
        model.predict(df[columns])
        return Result(model)
    return action


def not_fitted(name):
    X, _ = blobs(name)
    ESTIMATORS[name].make().predict(X)


def zero_weight_class(name):
    X, y = blobs(name)
    return Result(fit(name, X, y, sample_weight=(y == 0).astype(float)))


# ============================================================================ the matrix
NAN = Err(ValueError, r"NaN .*first at row 1, column 2")
INF = Err(ValueError, r"infinity .*first at row 1, column 2")
NO_WEIGHT = Err(TypeError, r"unexpected keyword argument 'sample_weight'")
NOT_BITS = Err(ValueError, r"needs features that are 0 or 1")
QDA_SINGULAR = Err(np.linalg.LinAlgError, r"not full rank.*Increase reg_param")
NO_CLASSES = Err(ValueError, r"classes must be passed on the first call to partial_fit")

def SINGLETON_CHECK_CLASSES(r, name):
    np.testing.assert_array_equal(r.model.classes_, [0, 1])


SINGLETON_CHECK = checks(accuracy_at_least(20 / 21), SINGLETON_CHECK_CLASSES)

# a sound fit on data with a redundant column: predictions as without it
REDUNDANT_SAME = same_as_clean(proba_atol=1e-6)

CASES = {
    # ---------------------------------------------------------------- X values / shape
    "nan_in_X_fit": (fit_on(lambda X, n: with_value(X, np.nan)), per(NAN)),
    "nan_in_X_predict": (predict_on(lambda X, n: with_value(X, np.nan)), per(NAN)),
    "posinf_in_X_fit": (fit_on(lambda X, n: with_value(X, np.inf)), per(INF)),
    "neginf_in_X_fit": (fit_on(lambda X, n: with_value(X, -np.inf)), per(INF)),
    "inf_in_X_predict": (predict_on(lambda X, n: with_value(X, -np.inf)), per(INF)),
    "empty_X": (fit_on(lambda X, n: X[:0], lambda y: y[:0]),
                per(Err(ValueError, r"0 sample\(s\) \(shape=\(0, 3\)\)"))),
    "X_1d": (fit_on(lambda X, n: X[:, 0]), per(Err(ValueError, r"Expected 2D array, got 1D array"))),
    "X_3d": (fit_on(lambda X, n: X[:, :, None]), per(Err(ValueError, r"dim 3, while dim <= 2"))),
    "X_1d_predict": (predict_on(lambda X, n: X[0]), per(Err(ValueError, r"Expected 2D array"))),
    "X_strings": (fit_on(lambda X, n: np.array([["a", "b", "c"]] * len(X), dtype=object)),
                  per(Err(ValueError, r"could not convert string to float: 'a'"))),
    "X_mixed_object": (fit_on(lambda X, n: np.c_[X[:, :2], np.array(["x"] * len(X))].astype(object)),
                       per(Err(ValueError, r"could not convert string to float: 'x'"))),
    # ---------------------------------------------------------------- classes
    "one_class": (fit_on(lambda X, n: X, lambda y: np.zeros_like(y)),
                  per(Err(ValueError, r"only one class \(0\)"),
                      (NAIVE_BAYES, ok(check=only_class(0))))),
    "one_class_with_positive_weight": (
        zero_weight_class,
        per(Err(ValueError, r"only one class \(0\) with positive sample_weight"), (UNWEIGHTED, NO_WEIGHT),
            # naive Bayes: the zero-weight class is a class that cannot be predicted
            (NAIVE_BAYES, ok(check=never_predicts(1)))),
    ),
    "class_with_single_row": (
        singleton_class,
        per(ok(check=SINGLETON_CHECK),
            (FULL | DIAG, ok(SCW, check=SINGLETON_CHECK)),
            (GNB, ok(check=SINGLETON_CHECK)),  # var_smoothing keeps the variance positive
            (GDA_TIED_DIAG, ok(check=SINGLETON_CHECK)),  # pooled variances: class 0 gives them
            # one row: its scatter is 0, and so is the shrinkage target (its mean variance)
            (SHRUNK & _group(lambda c: covariance(c) == "full"), ok(SCW, check=SINGLETON_CHECK)),
            # the slow solvers stop at max_iter on 20:1 classes
            (LR_SLOW, ok(CW, check=SINGLETON_CHECK)),
            (NO_INTERCEPT, ok(check=checks(accuracy_at_least(0.7), SINGLETON_CHECK_CLASSES))),
            # no pooling: its scatter is 0, and so is the shrinkage target (its mean variance)
            (where(linclass.RegularizedDiscriminantAnalysis, pooling=0.0), ok(SCW, check=SINGLETON_CHECK)),
            # leaving the row out removes its class; folds cannot all hold it
            (RDA_CV_LOO, Err(ValueError, r"single row")),
            (RDA_CV_KFOLD, Err(ValueError, r"rows of every class")),
            # stratified folds cannot all hold the class's one row: scikit-learn's splitter says so;
            # the classes are separable, so the weakest C of the grid scores best (GridEdgeWarning)
            (LR_CV, ok(UserWarning, GEW, check=SINGLETON_CHECK)),
            (QDA_ALL, Err(ValueError, r"only 1 sample in class 1"))),
    ),
    "more_features_than_samples": (
        d_greater_than_n,
        # the pseudo-inverse of the within-class covariance (rank n - K) discards the mean difference
        # outside its range: chance accuracy, as scikit-learn's LDA; the warning says to regularise
        # (see test_lda_more_features_than_samples_with_shrinkage)
        per(ok(check=accuracy_at_least(1.0)),
            (TIED, ok(SCW)),
            (FULL, ok(SCW, check=accuracy_at_least(1.0))),
            (FISHER, ok(SCW)),
            (FISHER_GSVD, ok(check=accuracy_at_least(1.0))),
            (LR_SLOW, ok(CW, check=accuracy_at_least(1.0))),
            (ORDINAL, ok(SCW, check=accuracy_at_least(1.0))),
            # separable: ridge and elastic net score best at the grid's weakest C (the lasso's sparse
            # fit does best inside it)
            (LR_CV - LR_CV_L1, ok(GEW, check=accuracy_at_least(1.0))),
            (QDA_ALL & FULL, QDA_SINGULAR)),
    ),
    # ---------------------------------------------------------------- degenerate features
    "constant_feature": (
        extra_feature("constant"),
        per(ok(check=REDUNDANT_SAME),
            (TIED | FULL, ok(SCW, check=REDUNDANT_SAME)),
            (GDA_DIAG, ok(SCW, check=REDUNDANT_SAME)),       # zero variances floored
            (GDA_TIED_DIAG, ok(SCW, check=REDUNDANT_SAME)),  # the feature is ignored
            (GDA_SPHERICAL, ok(check=agrees_with_clean(0.9))),  # one variance for all features
            (FISHER, ok(SCW, check=REDUNDANT_SAME)),
            (FISHER_GSVD, ok(check=REDUNDANT_SAME)),
            (SHRUNK, ok(check=agrees_with_clean(0.8))),
            (MULTINOMIAL | COMPLEMENT, ok(check=agrees_with_clean(0.9))),  # a count feature changes the totals
            # acts as a second bias; on these overlapping blobs the default rule (tol=1e-3) stops
            # after a few epochs wherever the last updates left the weights: the two fits agree
            # on 40-65% of the rows, and each is as accurate as the other
            (PERCEPTRON, ok(check=accuracy_at_least(0.5))),
            (NO_INTERCEPT, ok(check=agrees_with_clean(0.9))),  # acts as the intercept it lacks
            # gamma=None is 1/(d Var(X)) over all entries: a constant column changes the kernel width
            (KFDA, ok(check=agrees_with_clean(0.9))),
            (RDA, ok(check=agrees_with_clean(0.8))),
            (ORDINAL, ok(SCW, check=REDUNDANT_SAME)),
            (QDA_ALL & FULL, QDA_SINGULAR)),
    ),
    "duplicated_feature": (
        extra_feature("duplicate"),
        # naive Bayes models count a duplicated feature twice, by their independence assumption
        per(ok(check=agrees_with_clean(0.9)),
            (DIAG, ok(check=agrees_with_clean(0.75))),
            (TIED, ok(SCW, check=REDUNDANT_SAME)),
            (FULL, ok(SCW, check=agrees_with_clean(0.9))),
            (FISHER, ok(SCW, check=REDUNDANT_SAME)),
            (FISHER_GSVD, ok(check=REDUNDANT_SAME)),
            (SHRUNK, ok(check=agrees_with_clean(0.8))),
            (PERCEPTRON, ok(check=accuracy_at_least(0.5))),  # (see constant_feature)
            (ORDINAL, ok(SCW, check=REDUNDANT_SAME)),
            (QDA_ALL & FULL, QDA_SINGULAR)),
    ),
    "collinear_feature": (
        extra_feature("collinear"),
        per(ok(check=agrees_with_clean(0.85)),
            (DIAG, ok(check=agrees_with_clean(0.75))),
            (TIED, ok(SCW, check=REDUNDANT_SAME)),
            (FULL, ok(SCW, check=agrees_with_clean(0.85))),
            # one variance for all features: a wider extra feature changes it for every feature
            (GDA_SPHERICAL, ok(check=agrees_with_clean(0.6))),
            (FISHER, ok(SCW, check=REDUNDANT_SAME)),
            (FISHER_GSVD, ok(check=REDUNDANT_SAME)),
            (SHRUNK, ok(check=agrees_with_clean(0.8))),
            (RDA, ok(check=agrees_with_clean(0.75))),
            (PERCEPTRON, ok(check=accuracy_at_least(0.5))),  # (see constant_feature)
            (ORDINAL, ok(SCW, check=REDUNDANT_SAME)),
            (QDA_ALL & FULL, QDA_SINGULAR)),
    ),
    "perfectly_separable": (
        separable_fit,
        per(ok(check=accuracy_at_least(1.0)), (LR_SLOW, ok(CW, check=accuracy_at_least(1.0))),
            (NO_INTERCEPT, ok(check=accuracy_at_least(0.75))),
            # no finite C is best: cross-validation picks the grid's weakest and says so
            (LR_CV, ok(GEW, check=accuracy_at_least(1.0)))),
    ),
    # ---------------------------------------------------------------- extreme scales
    "features_at_1e-300": (
        scaled(1e-300),
        per(Err(ValueError, r"too small"),
            (BERNOULLI_THRESHOLD, ok(check=same_as_clean(proba_atol=1e-12))),  # binarized: only signs count
            # counts of 1e-300 are no events at all: the posterior is the prior, by the model
            (MULTINOMIAL | POISSON | COMPLEMENT, ok(check=lambda r, n: np.testing.assert_allclose(
                r.model.predict_proba(r.X), 0.5, atol=1e-12))),
            # codes are integers: 1e-300 truncates to category 0 everywhere (scikit-learn's rule)
            (CATEGORICAL, ok(UserWarning, check=lambda r, n: np.testing.assert_allclose(
                r.model.predict_proba(r.X), 0.5, atol=1e-12))),
            (BERNOULLI_BINARY, NOT_BITS),
            (STANDARDIZED, ok(check=same_as_clean(proba_atol=1e-9)))),
    ),
    "features_at_1e+300": (
        scaled(1e300),
        per(Err(ValueError, r"too large"),
            (BERNOULLI_THRESHOLD, ok(check=same_as_clean(proba_atol=1e-12))),
            (MULTINOMIAL | POISSON | COMPLEMENT, ok(check=accuracy_at_least(0.75))),  # 1e300 events
            (CATEGORICAL, Err(ValueError, r"too large to be a category code")),
            (BERNOULLI_BINARY, NOT_BITS),
            (STANDARDIZED, ok(check=same_as_clean(proba_atol=1e-9)))),
    ),
    # predicting far outside the training data: models linear in x give finite scores of ~1e300
    # (certain posteriors); quadratic ones would square 1e300 and refuse
    "predict_at_1e+300": (
        predict_on(lambda X, n: X * 1e300),
        per(ok(check=lambda r, n: np.testing.assert_array_equal(
                np.isin(r.model.predict_proba(r.X), [0.0, 1.0]).mean(axis=1) > 0, True)),
            (QUADRATIC, Err(ValueError, r"too large")),
            # codes far above the training ones are unseen categories: a defined, unsure posterior
            (GDA_TIED_DIAG | BERNOULLI_THRESHOLD | KFDA | CATEGORICAL, ok()),
            (PERCEPTRON, ok()),
            # on these overlapping blobs its 4-value grid's best is the intercept-only model (C=1e-4,
            # every coefficient zero): one posterior everywhere, however far
            (LR_CV_ENET, ok(check=lambda r, n: np.testing.assert_array_equal(r.model.coef_, 0.0))),
            # its degree-2 features are products of the inputs
            (where(linclass.Perceptron, basis="poly"), Err(ValueError, r"polynomial features of X overflow")),
            (BERNOULLI_BINARY, NOT_BITS)),
    ),
    # ---------------------------------------------------------------- sample_weight
    "sample_weight_negative": (
        fit_on(lambda X, n: X, sample_weight=-np.ones(40)),
        per(Err(ValueError, r"Negative values in sample_weight"), (UNWEIGHTED, NO_WEIGHT)),
    ),
    "sample_weight_all_zero": (
        fit_on(lambda X, n: X, sample_weight=np.zeros(40)),
        per(Err(ValueError, r"Every sample_weight is zero"), (UNWEIGHTED, NO_WEIGHT)),
    ),
    "sample_weight_wrong_length": (
        fit_on(lambda X, n: X, sample_weight=np.ones(39)),
        per(Err(ValueError, r"sample_weight.shape == \(39,\), expected \(40,\)"), (UNWEIGHTED, NO_WEIGHT)),
    ),
    "sample_weight_nan": (
        fit_on(lambda X, n: X, sample_weight=with_value(np.ones(40), np.nan, at=3)),
        per(Err(ValueError, r"sample_weight contains NaN"), (UNWEIGHTED, NO_WEIGHT)),
    ),
    # ---------------------------------------------------------------- labels
    "labels_with_nan": (fit_on(lambda X, n: X, lambda y: np.where(y == 1, np.nan, 0.0)),
                        per(Err(ValueError, r"y contains NaN"))),
    "labels_mixed_types": (fit_on(lambda X, n: X, lambda y: np.array(["a", 1] * 20, dtype=object)),
                           per(Err(ValueError, r"mix types \['int', 'str'\]"))),
    "labels_continuous": (fit_on(lambda X, n: X, lambda y: y + 0.5),
                          per(Err(ValueError, r"Unknown label type: continuous"))),
    "labels_wrong_length": (fit_on(lambda X, n: X, lambda y: y[:-1]),
                            per(Err(ValueError, r"X has 40 rows but y has 39 labels"))),
    # ---------------------------------------------------------------- predict time
    "wrong_n_features_at_predict": (
        predict_on(lambda X, n: X[:, :2]),
        per(Err(ValueError, r"X has 2 features, but \w+ is expecting 3 features")),
    ),
    "predict_before_fit": (not_fitted, per(Err(NotFittedError, r"not fitted yet"))),
    "dataframe_reordered_columns": (
        dataframe_predict(["c", "a", "b"]),
        per(Err(ValueError, r"Feature names must be in the same order")),
    ),
    "dataframe_missing_column": (
        dataframe_predict(["a", "b"]),
        per(Err(ValueError, r"Feature names seen at fit time, yet now missing:\n- c")),
    ),
}

# partial_fit rows: estimators with partial_fit only
PARTIAL_CASES = {
    "partial_fit_class_absent_from_chunk_with_classes": (
        partial_absent(with_classes=True),
        per(ok(check=lambda r, n: (
                np.testing.assert_array_equal(r.model.classes_, [0, 1, 2]),
                # the class never seen has no weight: probability exactly 0, never predicted
                np.testing.assert_array_equal(r.model.predict_proba(r.X)[:, 2], 0.0),
                np.testing.assert_array_equal(np.isin(r.model.predict(r.X), [0, 1]), True))),
            (PERCEPTRON, ok(check=lambda r, n: np.testing.assert_array_equal(r.model.classes_, [0, 1, 2]))),
            over=PARTIAL),
    ),
    "partial_fit_one_class_chunk_without_classes": (
        partial_absent(with_classes=False),
        # a stream may start with one class: the second batch brings the other, then it predicts
        per(ok(check=lambda r, n: np.testing.assert_array_equal(r.model.predict(r.X[:1]).shape, [1])),
            # as scikit-learn's: `classes` on the first call
            (PERCEPTRON | NAIVE_BAYES, NO_CLASSES),
            over=PARTIAL),
    ),
    "partial_fit_new_label_without_classes": (
        partial_new_label,
        per(ok(check=lambda r, n: np.testing.assert_array_equal(r.model.classes_, [0, 1, 2])),
            (PERCEPTRON | NAIVE_BAYES, NO_CLASSES),
            over=PARTIAL),
    ),
    "partial_fit_str_then_int_labels": (
        partial_str_then_int(with_classes=False),
        per(Err(ValueError, r"labels of type int.*str"),
            (PERCEPTRON | NAIVE_BAYES, NO_CLASSES),
            over=PARTIAL),
    ),
    "partial_fit_str_then_int_labels_with_classes": (
        partial_str_then_int(with_classes=True),
        per(Err(ValueError, r"label\(s\) \[0, 1\] that are not in classes=\['a', 'b'\]"), over=PARTIAL),
    ),
}


# rows whose fits take seconds (marked slow; `make quick` leaves them out): 250 features
SLOW_ROWS = {"more_features_than_samples"}


def _params(cases):
    out = []
    for case, (action, table) in cases.items():
        marks = [pytest.mark.slow] if case in SLOW_ROWS else []
        for name, expected in table.items():
            out.append(pytest.param(action, expected, name, id=f"{case}-{name}", marks=marks))
    return out


@pytest.mark.parametrize("action, expected, name", _params(CASES))
def test_bad_input(action, expected, name):
    run_case(action, expected, name)


@pytest.mark.parametrize("action, expected, name", _params(PARTIAL_CASES))
def test_bad_partial_fit(action, expected, name):
    run_case(action, expected, name)


def test_every_case_covers_every_estimator():
    for case, (_, table) in CASES.items():
        assert set(table) == set(ALL), case
    for case, (_, table) in PARTIAL_CASES.items():
        assert set(table) == set(PARTIAL), case


# ============================================================================ specific rows
@pytest.mark.parametrize("solver", ["newton", "bohning", "lbfgs", "sgd"])
def test_unpenalised_logistic_on_separable_data_warns_and_stays_finite(solver):
    X, y = separable(the(linclass.LogisticRegression, solver=solver))
    # the Gaussian start (linclass.linear.logistic.start) already separates the classes: every solver meets
    # its stopping rule there (the slow ones used to stop at max_iter from the intercept-only start)
    expected = {SW}
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        warnings.simplefilter("error", RuntimeWarning)
        model = linclass.LogisticRegression(C=np.inf, solver=solver, random_state=0).fit(X, y)
    assert {w.category for w in record} == expected
    assert np.all(np.isfinite(model.coef_))
    assert model.separation_ == "complete"
    assert model.score(X, y) == 1.0
    _all_proba_sound(model, [X])


WITHIN_CONSTANT = {
    # a feature constant within each class but different between them, once with values that make the
    # within-class scatter exactly zero and once with values whose rounding leaves ~1e-33 of it
    "exact": lambda y: y.astype(float),
    "rounded": lambda y: 0.1 + 0.6 * y,
    "offset": lambda y: np.where(y == 1, 0.3, 0.7) + 1e3,
}


@pytest.mark.parametrize("case", list(WITHIN_CONSTANT))
def test_qda_refuses_a_feature_constant_within_classes_in_every_case(case):
    """The same rank decision for QDA, scikit-learn's outcome: a LinAlgError naming the remedies."""
    X, y = blobs(QDA, n=40)
    with pytest.raises(np.linalg.LinAlgError, match=r"rank 3 of 4.*reg_param.*shrinkage"):
        fit(QDA, np.c_[X, WITHIN_CONSTANT[case](y)], y)


@pytest.mark.parametrize("case", list(WITHIN_CONSTANT))
@pytest.mark.parametrize("name", [
    LDA, *(the(linclass.GaussianDiscriminantAnalysis, covariance_type=t) for t in ("tied", "tied_diag")),
    FISHER_SVD, *(the(linclass.GaussianDiscriminantAnalysis, covariance_type=t) for t in ("full", "diag"))])
def test_feature_constant_within_classes_is_handled_consistently(name, case):
    """Rank decisions are made relative to each feature's total variance (as Fisher's discriminant
    does): the within-class variance of such a feature is zero, or at rounding level, either way the
    same outcome: a SingularCovarianceWarning, finite, moderate coefficients, and the scores of the
    exact case."""
    X, y = blobs(LDA, n=40)
    Xb = np.c_[X, WITHIN_CONSTANT[case](y)]
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        warnings.simplefilter("error", RuntimeWarning)
        model = fit(name, Xb, y)
        model.predict_proba(Xb)
    assert {w.category for w in record} == {SCW}
    _all_proba_sound(model, [Xb])
    X_exact = np.c_[X, y.astype(float)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SCW)
        reference = fit(name, X_exact, y)  # the exact case
    np.testing.assert_array_equal(model.predict(Xb), reference.predict(X_exact))
    # the quadratic models' scores are large (~1e10: the floored variance makes the feature decisive),
    # and the same in every case
    np.testing.assert_allclose(model.decision_function(Xb), reference.decision_function(X_exact),
                               rtol=1e-9, atol=1e-9)
    if hasattr(model, "coef_"):  # the linear ones (GDA full and diag have per-class quadratic terms)
        assert np.abs(model.coef_).max() < 1e6, model.coef_


@pytest.mark.slow
def test_lda_more_features_than_samples_with_shrinkage():
    """The remedy the SingularCovarianceWarning names: shrinkage separates the d > n training data."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SCW)
        r = d_greater_than_n(LDA)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = linclass.LinearDiscriminantAnalysis(shrinkage="ledoit-wolf").fit(r.X, r.y)
    assert model.score(r.X, r.y) == 1.0


# ============================================================================ numerical stress
PROBA = tuple(k for k, s in ESTIMATORS.items() if s.proba)


@pytest.mark.parametrize("distance", [1e6, 1e150])
@pytest.mark.parametrize("name", [k for k in PROBA if kind(k) != "binary"])  # 0/1 features have no far
def test_posteriors_far_from_every_class_mean(name, distance):
    X, y = blobs(name, n=40, shift=2.0)
    model = fit(name, X, y)
    spread = np.linalg.norm(X[y == 1].mean(0) - X[y == 0].mean(0))
    rng = np.random.default_rng(5)
    directions = np.abs(rng.normal(size=(6, X.shape[1]))) if name in DISCRETE else rng.normal(size=(6, X.shape[1]))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    far = X.mean(0) + distance * spread * directions
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        _all_proba_sound(model, [far, -far if name not in DISCRETE else far[::-1]])


# estimators whose fit is equivariant under x -> a x + b (same labels, same posteriors)
AFFINE = [LDA, QDA,
          *(the(linclass.GaussianDiscriminantAnalysis, covariance_type=t)
            for t in ("tied", "full", "diag", "tied_diag", "spherical")),
          the(linclass.GaussianNB), FISHER_SVD, the(linclass.KernelFisherDiscriminantAnalysis, solver="ridge")]


@pytest.mark.parametrize("name, transform", [
    (name, transform)
    for name in AFFINE + ["LR-unpenalised-newton", "LR-unpenalised-lbfgs", "LR-penalised"]
    for transform in ("scale_1e6", "shift_1e6")
    if not (name == "LR-penalised" and transform == "scale_1e6")  # an L2 penalty is not scale invariant
])
def test_rescaled_data_give_equivalent_predictions(name, transform):
    rng = np.random.default_rng(11)
    X, y = blobs(LDA, n=200, d=3, shift=1.5, seed=4)
    X[:, 1] += 0.5 * X[:, 0]  # correlated, well conditioned
    X_new = rng.normal(size=(50, 3)) + [0.75, 0.3, 0.0]
    f = (lambda A: A * 1e6) if transform == "scale_1e6" else (lambda A: A + 1e6)
    if name.startswith("LR-unpenalised"):
        make = lambda: linclass.LogisticRegression(C=np.inf, solver=name.rsplit("-", 1)[1])  # noqa: E731
    elif name == "LR-penalised":  # the intercept is not penalised: shifts change nothing
        make = lambda: linclass.LogisticRegression(C=1.0)  # noqa: E731
    else:
        make = ESTIMATORS[name].make
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        base = make().fit(X, y)
        moved = make().fit(f(X), y)
        P0, P1 = base.predict_proba(X_new), moved.predict_proba(f(X_new))
    np.testing.assert_array_equal(moved.predict(f(X_new)), base.predict(X_new))
    # shift_1e6 loses ~1e-10 relative precision in the inputs themselves (ulp(1e6) ~ 1e-10)
    np.testing.assert_allclose(P1, P0, rtol=0, atol=1e-6)


#: the estimators that keep a float32 X in float32 where scikit-learn's estimator of the same name
#: does (linclass.core.validation; tests/test_float32.py compares them with scikit-learn)
KEEPS_FLOAT32 = (linclass.LinearDiscriminantAnalysis, linclass.QuadraticDiscriminantAnalysis,
                 linclass.GaussianNB, linclass.LogisticRegression, linclass.Perceptron)


@pytest.mark.parametrize("name", ALL)
def test_float32_input(name):
    """float32 X: the estimators that keep float32 as scikit-learn does give float32 or float64 as
    scikit-learn does and the float64 answer to float32's rounding; every other estimator computes
    in float64 and gives exactly the float64 answer, in float64."""
    X, y = blobs(name, n=40)
    X32 = X.astype(np.float32)
    X64 = X32.astype(np.float64)  # the same numbers
    keeps = ESTIMATORS[name].case.cls in KEEPS_FLOAT32
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (CW, SCW))
        m32, m64 = fit(name, X32, y), fit(name, X64, y)
        outputs = ["predict", "decision_function"] + (["predict_proba", "predict_log_proba"]
                                                      if ESTIMATORS[name].proba else [])
        for method in outputs:
            r32, r64 = getattr(m32, method)(X32), getattr(m64, method)(X64)
            if method == "predict":
                np.testing.assert_array_equal(r32, r64)
            elif not keeps:
                assert r32.dtype == np.float64, (method, r32.dtype)
                np.testing.assert_array_equal(r32, r64)
            else:
                assert r32.dtype in (np.float32, np.float64), (method, r32.dtype)
                scale = 1.0 if method == "predict_proba" else 1.0 + np.abs(r64)
                np.testing.assert_array_less(np.abs(r32 - r64), 1e-5 * scale)
