"""Cross-estimator properties, checked with hypothesis on small, well-conditioned data.

Every property is parametrised over every estimator configuration it applies to: every registry
entry and variant (``conftest.CASES``, with the settings of ``exact``) and the settings of ``EXTRA``;
which properties apply is read from the registry's capabilities and the signature of ``fit``, less
the exclusions by design (``by_design_not``).  The data (``conftest.random_problem``) are Gaussian
blobs (or Poisson counts / Bernoulli bits for the discrete naive Bayes models)
with enough rows per class, drawn from a seed that hypothesis chooses, so that the equalities below
are meaningful and must hold to rounding error (``RTOL``, ``ATOL``), far tighter than what a real bug
(a wrong weight, a dropped row, a misaligned column) would give.

1. Row-permutation invariance: fitting on the rows in another order gives the same model (fitted
   coefficients, probabilities, decision values, projections).
2. Label relabelling equivariance: renaming the classes (integers -> strings, or a permutation of
   integers, which changes the sorted order of ``classes_``) gives the same probabilities with the
   columns permuted accordingly, and the renamed predictions.
3. Duplicated rows == integer sample_weight: repeating row i w_i times (w_i in 1..3, so "doubled"
   is among the cases) equals one fit with ``sample_weight=w``.
4. Chunked ``partial_fit`` == ``fit``: random chunk boundaries, with ``classes=`` on the first call
   (chunks that miss classes included; rows sorted by class make that the rule) or without it (the
   classes then grow as they arrive; not for naive Bayes, which needs ``classes``, as scikit-learn's),
   optionally weighted.
5. Refits are reproducible: a fit gives the same model, bit for bit, as a fit of a clone and as a
   fit of an estimator fitted on other data first (often another number of classes and features):
   nothing is carried over from an earlier fit, and the seeded estimators draw the same numbers.
   It holds for every estimator.

Excluded, and why:

* ``LogisticRegression(solver='sgd')`` from 1-3: its mini-batches are drawn by row index, so another
  row order, another label order or repeated rows give another (unconverged) trajectory, by design.
* ``Perceptron`` from 1-4: the perceptron rule's result depends on the order in which patterns are
  visited (permutation, duplicated rows), the tie a = 0 is broken towards +1 / the first class
  (relabelling), and ``partial_fit`` is one epoch, not a fit.
* ``KernelFisherDiscriminantAnalysis`` from 3 and 4 (no ``sample_weight``, no ``partial_fit``), and
  its Nystroem approximation from 1 and 2 (landmarks are drawn by row index).
* Logistic regression and the multi-class wrappers from 4 (no ``partial_fit``).
* ``RegularizedDiscriminantAnalysisCV`` from 3 (cross-validation leaves a repeated row out one copy
  at a time, a weighted row with all its weight, so another grid point may win) and, with K-fold,
  from 1 (the folds follow the row order); from 4 (no ``partial_fit``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.utils.validation import has_fit_parameter

from conftest import CASES, case_id, data_kind, random_problem
from linclass import registry
from linclass import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    FisherDiscriminantAnalysis,
    GaussianDiscriminantAnalysis,
    GaussianNB,
    KernelFisherDiscriminantAnalysis,
    LinearDiscriminantAnalysis,
    LogisticRegression,
    LogisticRegressionCV,
    OneVsRestClassifier,
    Perceptron,
    MultinomialNB,
    PoissonNB,
    QuadraticDiscriminantAnalysis,
    RegularizedDiscriminantAnalysisCV,
)

RTOL = 1e-10
ATOL = 1e-10
NAIVE_BAYES = (GaussianNB, MultinomialNB, PoissonNB, BernoulliNB, ComplementNB, CategoricalNB)
SETTINGS = dict(max_examples=10, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _lr(**kw):
    # tol far below the default so that every solver's answer is the optimum to rounding error
    return LogisticRegression(**{"C": 1.0, "tol": 1e-11, "max_iter": 300, **kw})


def exact(model):
    """Settings (by class) under which the comparisons below are meaningful to rounding error."""
    if isinstance(model, LogisticRegression):
        # with an L1 part, C=1 zeroes every coefficient of these small problems (all test points
        # tie): a weaker penalty leaves a model to compare
        weak = model.penalty in ("l1", "elasticnet")
        return model.set_params(C=100.0 if weak else 1.0, tol=1e-11, max_iter=300)
    if isinstance(model, LogisticRegressionCV):
        return model.set_params(tol=1e-11, max_iter=300)
    if "estimator" in model.get_params(deep=False):  # the multi-class wrappers: a converged inner fit
        return model.set_params(estimator=_lr(solver="newton"))
    if isinstance(model, Perceptron):  # on data it cannot separate it runs every epoch: 50 will do
        return model.set_params(max_epochs=50)
    if isinstance(model, KernelFisherDiscriminantAnalysis):
        model.set_params(gamma=0.3)
        if model.solver in ("pinv", "gsvd"):
            # 'pinv' and 'gsvd' cut the spectrum of the (near-singular) kernel matrices at the relative
            # `tol`: rounding errors of ~eps are amplified by 1/tol, so a cut-off far from eps is needed
            # for two fits of the same data to agree to 1e-10 (at the default 1e-10 they agree to ~1e-4)
            model.set_params(tol=1e-3)
    return model


# Properties that do not hold, by design (keyed by class and settings):
# P = permutation, L = relabelling, W = sample_weight, C = chunked partial_fit (R holds for all)
def by_design_not(model) -> str:
    if isinstance(model, LogisticRegression) and model.solver == "sgd":
        return "PLW"  # mini-batches drawn by row index
    if isinstance(model, LogisticRegressionCV):
        return "PLW"  # the folds are drawn by row order within each class (stratified k-fold)
    if isinstance(model, Perceptron):
        return "PLWC"  # visiting order, ties towards the first class, partial_fit is one epoch
    if isinstance(model, KernelFisherDiscriminantAnalysis) and model.approximation == "nystroem":
        return "PL"  # landmarks drawn by row index
    if type(model).__name__ == "OrderedLogisticRegression":
        return "L"  # the classes' order is the model: relabelling reorders them and changes it
    if isinstance(model, RegularizedDiscriminantAnalysisCV):
        # cross-validation leaves rows out: a repeated row one copy at a time (K-fold: its copies in
        # several folds), a weighted row with all its weight; K-fold folds follow the row order
        return "W" + ("" if model.cv is None else "P")
    return ""


def properties(model) -> str:
    """The properties that apply: R, P and L to every estimator, W to those whose fit takes
    sample_weight, C to those with partial_fit (the registry's capability), less the exclusions."""
    partial_fit = registry.by_class(type(model)).can("partial_fit")
    props = "RPL" + ("W" if has_fit_parameter(model, "sample_weight") else "") + ("C" if partial_fit else "")
    return "".join(p for p in props if p not in by_design_not(model))


def kind_of(model) -> str:
    """The data: BernoulliNB gets 0/1 features unless it binarizes at a threshold above 0 (then
    counts); the others what they model (conftest.data_kind)."""
    if isinstance(model, BernoulliNB):
        return "counts" if model.binarize else "binary"
    return data_kind(model)


def configuration(factory):
    """(factory, kind of data, properties it applies to)."""
    return factory, kind_of(factory()), properties(factory())


# id -> configuration: every registry entry and variant ...
ESTIMATORS = {c.id: configuration(lambda c=c: exact(c.make())) for c in CASES}
# ... and settings outside the registry that exercise other code
EXTRA = [
    (LinearDiscriminantAnalysis, {"shrinkage": "oas", "unbiased": True}),
    (LinearDiscriminantAnalysis, {"shrinkage": 0.3}),
    (QuadraticDiscriminantAnalysis, {"reg_param": 0.1, "unbiased": True}),
    (GaussianDiscriminantAnalysis, {"covariance_type": "full", "shrinkage": "ledoit-wolf"}),
    (GaussianNB, {"var_smoothing": 1e-2}),
    (BernoulliNB, {"alpha": 0.5, "binarize": 2.5}),  # a threshold above 0, on counts
    (PoissonNB, {"alpha": 0.1}),
    (MultinomialNB, {"alpha": 0.4, "fit_prior": False}),
    (ComplementNB, {"alpha": 0.3, "norm": True}),
    (FisherDiscriminantAnalysis, {"threshold": "midpoint", "n_components": 1}),
    (OneVsRestClassifier, {"estimator": LinearDiscriminantAnalysis()}),
]
ESTIMATORS |= {case_id(cls.__name__, p): configuration(lambda cls=cls, p=p: clone(cls(**p))) for cls, p in EXTRA}


# First-order solvers stop when the objective stalls at rounding level (gradient <= sqrt(tol)), so
# their optimum is determined to ~sqrt(eps), not to eps; a real bug moves probabilities by >= 1e-3.
# The kernel Fisher 'pinv' / 'gsvd' fits interpolate the training data, so the projected class
# variances are tiny and log-probabilities reach -1e9: rounding is amplified accordingly.
# Proximal Newton ('cd', every fit with an L1 part) stops as soon as the optimality violation is below
# tol, with inexact inner solves, so its answer is the optimum to ~tol / curvature, not to eps.
TOLERANCE = {
    "LogisticRegression-solver=lbfgs": (1e-7, 1e-7), "LogisticRegression-solver=bohning": (1e-7, 1e-7),
    "LogisticRegression-solver=cd": (1e-7, 1e-7), "LogisticRegression-penalty=l1": (1e-7, 1e-7),
    "LogisticRegression-penalty=elasticnet-l1_ratio=0.5": (1e-7, 1e-7),
    "LogisticRegression-penalty=l1-multinomial_penalty=grouped": (1e-7, 1e-7),
    ("LogisticRegression-penalty=elasticnet-l1_ratio=0.5-penalty_factor=0.5-lower_bounds=-10.0-"
     "upper_bounds=10.0"): (1e-7, 1e-7),
    **{c.id: (1e-7, 1e-7) for c in CASES if c.name == "LogisticRegressionCV"},
    "KernelFisherDiscriminantAnalysis-solver=pinv": (1e-8, 1e-8),
    "KernelFisherDiscriminantAnalysis-solver=gsvd": (1e-8, 1e-8),
}

# States of a stream that have no estimate (fit on the same rows refuses them alike): a class seen
# with total weight <= 1 has no unbiased covariance, a single class seen has no Fisher direction.
# partial_fit keeps the batch without a model and predict refuses them (test_no_model_yet_is_not_fitted
# at the end of this file); these messages stay accepted should a call refuse them.
MIDSTREAM_REFUSALS = (
    "is not full rank",  # QDA: a class with fewer rows than features so far (scikit-learn's LinAlgError)
    "needs a total weight above 1",  # unbiased=True, per-class covariances
    "needs more samples than classes",  # unbiased=True, pooled covariance
    "cannot be larger than min(n_features, n_classes - 1)",  # Fisher, n_components given
    "The class means coincide",  # Fisher, 'eigen' solver, one row per class so far (S_W = 0)
)


# configurations whose property tests take seconds each (marked slow; `make quick` leaves them out):
# lbfgs needs hundreds of iterations to reach tol=1e-11; kernel Fisher's gsvd is an SVD of (K + n) x n
SLOW = {"LogisticRegression-solver=lbfgs", "KernelFisherDiscriminantAnalysis-solver=gsvd"}


def applies(prop):
    """The configurations ``prop`` applies to, as parameters (the slow ones marked)."""
    return [pytest.param(name, marks=pytest.mark.slow) if name in SLOW else name
            for name, (_, _, props) in ESTIMATORS.items() if prop in props]


def make(name):
    return ESTIMATORS[name][0]()


# ------------------------------------------------------------------------------------------- data
def blobs(kind, seed, K, d, n_per_class, extra=0):
    """conftest.random_problem: ``X, y, X_test``."""
    return random_problem(kind, seed, K, d, n_per_class, extra)


data_shapes = dict(
    seed=st.integers(0, 2**32 - 1),
    K=st.integers(2, 4),
    d=st.integers(1, 4),
    n_per_class=st.integers(12, 25),
)


# -------------------------------------------------------------------------------------- comparison
def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        # a SingularCovarianceWarning / SeparationWarning on some draw is not the point here; both
        # sides of every comparison meet the same data, so they warn alike
        warnings.simplefilter("ignore", UserWarning)
        return function(*args, **kwargs)


def identifiable_directions(model):
    """Whether the projection of ``transform`` is unique (up to the documented sign rule): not when
    two of the eigenvalues it keeps tie (the kernel Fisher fits that interpolate have them all 1),
    since then any rotation within their eigenspace is as good."""
    lam = getattr(model, "eigenvalues_", None)
    if lam is None:
        return True
    kept = np.sort(np.asarray(lam, dtype=float)[: model.transform(np.zeros((1, model.n_features_in_))).shape[1]])
    return kept.size < 2 or np.min(np.diff(kept)) > 1e-6 * max(1.0, kept[-1])


def outputs(model, X_test):
    """What a fitted model says about X_test, and its linear coefficients when it has them."""
    out = {}
    for method in ("predict_proba", "predict_log_proba", "decision_function", "transform"):
        if method == "transform" and not identifiable_directions(model):
            continue
        if hasattr(model, method):
            out[method] = np.asarray(getattr(model, method)(X_test), dtype=float)
    for attribute in ("coef_", "intercept_", "means_", "priors_", "class_count_"):
        value = getattr(model, attribute, None)
        if isinstance(value, np.ndarray) and value.dtype.kind in "fiu":
            out[attribute] = value.astype(float)
    out["predict"] = model.predict(X_test)
    return out


def close(a, b, what, rtol=RTOL, atol=ATOL):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, f"{what}: shapes {a.shape} != {b.shape}"
    # relative to the array's own scale, so that log-probabilities of -700 and coefficients of 1e3
    # are compared at the same relative precision as probabilities
    scale = max(1.0, float(np.max(np.abs(a), initial=0.0)))
    np.testing.assert_allclose(b, a, rtol=rtol, atol=atol * scale, err_msg=what)


def decisive(out):
    """Rows whose predicted class is not a (near) tie: there, rounding may pick either class."""
    scores = out.get("predict_proba", out.get("decision_function"))
    if scores is None or scores.ndim == 1:
        margin = np.abs(scores) if scores is not None else np.ones(out["predict"].shape)
    else:
        top = np.sort(scores, axis=1)
        margin = top[:, -1] - top[:, -2]
    return margin > 1e-8


def assert_same_predictions(expected, got, keep, label):
    assert keep.mean() > 0.5, f"{label}: most test points are ties; the data generator is broken"
    np.testing.assert_array_equal(got[keep], expected[keep], err_msg=f"{label} predict")


def assert_same_outputs(expected, got, label=""):
    assert set(expected) == set(got), label
    rtol, atol = TOLERANCE.get(label, (RTOL, ATOL))
    for key in expected:
        if key == "predict":
            assert_same_predictions(expected[key], got[key], decisive(expected), label)
        else:
            close(expected[key], got[key], f"{label} {key}", rtol, atol)


# ------------------------------------------------------------------------ 1. row permutation
@pytest.mark.parametrize("name", applies("P"))
@settings(**SETTINGS)
@given(**data_shapes, perm_seed=st.integers(0, 2**32 - 1))
def test_row_permutation_invariance(name, seed, K, d, n_per_class, perm_seed):
    X, y, X_test = blobs(ESTIMATORS[name][1], seed, K, d, n_per_class)
    perm = np.random.default_rng(perm_seed).permutation(y.size)
    assume(not np.array_equal(perm, np.arange(y.size)))
    a = quiet(make(name).fit, X, y)
    b = quiet(make(name).fit, X[perm], y[perm])
    assert_same_outputs(outputs(a, X_test), outputs(b, X_test), name)


# -------------------------------------------------------------------- 2. relabelling equivariance
NAMES = np.array(["zeta", "alpha", "mu", "beta", "omega"])


@pytest.mark.parametrize("name", applies("L"))
@settings(**SETTINGS)
@given(**data_shapes, perm_seed=st.integers(0, 2**32 - 1), as_strings=st.booleans())
def test_label_relabelling_equivariance(name, seed, K, d, n_per_class, perm_seed, as_strings):
    X, y, X_test = blobs(ESTIMATORS[name][1], seed, K, d, n_per_class)
    perm = np.random.default_rng(perm_seed).permutation(K)
    assume(not np.array_equal(perm, np.arange(K)))  # the sorted order of the classes must change
    new_of = NAMES[perm] if as_strings else perm + 10  # old label k -> new label new_of[k]
    if as_strings:
        assume(not np.array_equal(np.argsort(new_of[:K]), np.arange(K)))
    a = quiet(make(name).fit, X, y)
    b = quiet(make(name).fit, X, new_of[y])
    np.testing.assert_array_equal(b.classes_, np.sort(new_of[:K]))
    column = np.searchsorted(b.classes_, new_of[:K])  # b's column of old class k
    out_a = outputs(a, X_test)
    assert_same_predictions(new_of[out_a["predict"]], b.predict(X_test), decisive(out_a), name)
    rtol, atol = TOLERANCE.get(name, (RTOL, ATOL))
    for method in ("predict_proba", "predict_log_proba"):
        if hasattr(a, method):
            close(out_a[method], getattr(b, method)(X_test)[:, column], f"{name} {method}", rtol, atol)
    df_a, df_b = out_a["decision_function"], b.decision_function(X_test)
    if df_a.ndim == 1:  # two classes: the score of classes_[1] minus that of classes_[0]
        sign = 1.0 if column[1] > column[0] else -1.0
        close(df_a, sign * df_b, f"{name} decision_function", rtol, atol)
    else:  # class scores, up to a term shared by all classes (sum-to-zero for softmax)
        df_b = df_b[:, column]
        close(df_a - df_a.mean(axis=1, keepdims=True), df_b - df_b.mean(axis=1, keepdims=True),
              f"{name} decision_function", rtol, atol)


# --------------------------------------------------------- 3. duplicated rows == sample_weight
@pytest.mark.parametrize("name", applies("W"))
@settings(**SETTINGS)
@given(**data_shapes, weight_seed=st.integers(0, 2**32 - 1), max_weight=st.integers(2, 3))
def test_duplicated_rows_equal_integer_sample_weight(name, seed, K, d, n_per_class, weight_seed, max_weight):
    X, y, X_test = blobs(ESTIMATORS[name][1], seed, K, d, n_per_class)
    w = np.random.default_rng(weight_seed).integers(1, max_weight + 1, size=y.size)
    assume(np.any(w > 1))
    repeated = quiet(make(name).fit, np.repeat(X, w, axis=0), np.repeat(y, w))
    weighted = quiet(make(name).fit, X, y, sample_weight=w.astype(float))
    expected, got = outputs(repeated, X_test), outputs(weighted, X_test)
    assert_same_outputs(expected, got, name)


def test_weights_that_differ_from_repetition_are_detected():
    """The comparison of test 3 is sharp: weighting one row 2 instead of 3 is caught."""
    X, y, X_test = blobs("gauss", 0, 3, 2, 15)
    w = np.ones(y.size, dtype=int)
    w[0] = 3
    repeated = LinearDiscriminantAnalysis().fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    w[0] = 2
    weighted = LinearDiscriminantAnalysis().fit(X, y, sample_weight=w.astype(float))
    with pytest.raises(AssertionError):
        assert_same_outputs(outputs(repeated, X_test), outputs(weighted, X_test))


# --------------------------------------------------------------- 4. chunked partial_fit == fit
@pytest.mark.parametrize("name", applies("C"))
@settings(**SETTINGS)
@given(**data_shapes, extra=st.integers(0, 10), sort_by_class=st.booleans(), give_classes=st.booleans(),
       weighted=st.booleans(), cuts=st.lists(st.floats(0, 1), min_size=1, max_size=6))
def test_chunked_partial_fit_equals_fit(name, seed, K, d, n_per_class, extra, sort_by_class, give_classes,
                                        weighted, cuts):
    X, y, X_test = blobs(ESTIMATORS[name][1], seed, K, d, n_per_class, extra)
    n = y.size
    if sort_by_class:  # chunks then miss classes
        order = np.argsort(y, kind="stable")
        X, y = X[order], y[order]
    w = np.random.default_rng(seed).uniform(0.2, 3.0, size=n) if weighted else None
    bounds = sorted({int(round(c * n)) for c in cuts} - {0, n})
    chunks = np.split(np.arange(n), bounds)
    if isinstance(make(name), NAIVE_BAYES):  # `classes` on the first call, as scikit-learn's
        give_classes = True
    if not give_classes:  # classes grow as they arrive: the first chunk must hold two of them
        assume(np.unique(y[chunks[0]]).size >= 2)
    whole = quiet(make(name).fit, X, y, sample_weight=w)
    streamed = make(name)
    for i, rows in enumerate(chunks):
        extra_args = {"classes": np.arange(K)} if give_classes and i == 0 else {}
        try:
            quiet(streamed.partial_fit, X[rows], y[rows], sample_weight=None if w is None else w[rows],
                  **extra_args)
        except ValueError as exc:  # a refused intermediate state (documented above): the batch is kept
            if not any(r in str(exc) for r in MIDSTREAM_REFUSALS) or i == len(chunks) - 1:
                raise
    np.testing.assert_array_equal(streamed.classes_, whole.classes_)
    assert_same_outputs(outputs(whole, X_test), outputs(streamed, X_test), name)


@pytest.mark.parametrize("name", ["LinearDiscriminantAnalysis", "GaussianNB", "MultinomialNB"])
def test_partial_fit_with_a_chunk_missing_is_detected(name):
    """The comparison of test 4 is sharp: leaving out one chunk is caught."""
    X, y, X_test = blobs(ESTIMATORS[name][1], 1, 3, 3, 15)
    whole = make(name).fit(X, y)
    streamed = make(name)
    for rows in np.array_split(np.arange(y.size), 5)[:-1]:
        streamed.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
    with pytest.raises(AssertionError):
        assert_same_outputs(outputs(whole, X_test), outputs(streamed, X_test))


# ------------------------------------------------------------------------- 5. reproducible refits
#: the cross-validated models fit a whole grid of folds per fit (4 fits an example): fewer examples
CROSS_VALIDATED = ("LogisticRegressionCV", "RegularizedDiscriminantAnalysisCV")


def refit_cases(cross_validated: bool):
    return [case for case in applies("R")
            if (getattr(case, "values", [case])[0].startswith(CROSS_VALIDATED)) == cross_validated]


@pytest.mark.parametrize("name", refit_cases(False))
@settings(**SETTINGS)
@given(**data_shapes, other_seed=st.integers(0, 2**32 - 1), other_K=st.integers(2, 4),
       other_d=st.integers(1, 4))
def test_refit_is_reproducible(name, seed, K, d, n_per_class, other_seed, other_K, other_d):
    check_refit_is_reproducible(name, seed, K, d, n_per_class, other_seed, other_K, other_d)


@pytest.mark.parametrize("name", refit_cases(True))
@settings(**dict(SETTINGS, max_examples=4))
@given(**data_shapes, other_seed=st.integers(0, 2**32 - 1), other_K=st.integers(2, 4),
       other_d=st.integers(1, 4))
def test_cross_validated_refit_is_reproducible(name, seed, K, d, n_per_class, other_seed, other_K,
                                               other_d):
    check_refit_is_reproducible(name, seed, K, d, n_per_class, other_seed, other_K, other_d)


def check_refit_is_reproducible(name, seed, K, d, n_per_class, other_seed, other_K, other_d):
    kind = ESTIMATORS[name][1]
    X, y, X_test = blobs(kind, seed, K, d, n_per_class)
    X_other, y_other, _ = blobs(kind, other_seed, other_K, other_d, 15)
    fresh = quiet(make(name).fit, X, y)
    refitted = quiet(make(name).fit, X_other, y_other)
    quiet(refitted.fit, X, y)
    again = quiet(clone(fresh).fit, X, y)
    expected = outputs(fresh, X_test)
    for model in (refitted, again):
        got = outputs(model, X_test)
        assert set(got) == set(expected), name
        for key in expected:
            np.testing.assert_array_equal(got[key], expected[key], err_msg=f"{name} {key}")


@pytest.mark.parametrize("factory, cuts", [
    # the 2nd batch brings class 1 with a single row: no unbiased covariance for it yet
    (lambda: QuadraticDiscriminantAnalysis(unbiased=True), (9, 11)),
    # the 1st batch holds class 0 only: no Fisher direction yet
    (lambda: FisherDiscriminantAnalysis(n_components=1), (5, 15)),
], ids=["qda-unbiased", "fisher-n_components"])
def test_a_refused_intermediate_state_does_not_lose_the_batch(factory, cuts):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20, 2)), np.repeat([0, 1], 10)
    X[y == 1] += 1.0
    whole = quiet(factory().fit, X, y)
    streamed = factory()
    for rows in np.split(np.arange(20), cuts):
        try:
            quiet(streamed.partial_fit, X[rows], y[rows], classes=[0, 1])
        except ValueError as exc:  # refusing the intermediate state is acceptable; losing the batch is not
            assert any(r in str(exc) for r in MIDSTREAM_REFUSALS), exc
    np.testing.assert_array_equal(streamed.class_count_, whole.class_count_)
    close(whole.predict_proba(X), streamed.predict_proba(X), "predict_proba")


def test_no_model_yet_is_not_fitted():
    """An intermediate state that determines no model keeps the statistics, without an error, and
    there is no model to use until more data come."""
    from sklearn.exceptions import NotFittedError

    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 2))
    model = QuadraticDiscriminantAnalysis(unbiased=True)
    quiet(model.partial_fit, X[:9], np.r_[np.zeros(8, int), 1], classes=[0, 1])
    np.testing.assert_array_equal(model.stats_.counts, [8, 1])
    with pytest.raises(NotFittedError, match=r"no model yet.*class\(es\) \[1\] needs a total weight"):
        model.predict_proba(X)
    quiet(model.partial_fit, X[9:], [1, 1, 1])  # (two rows in 2-D would be a singular covariance)
    assert model.predict_proba(X).shape == (12, 2)
