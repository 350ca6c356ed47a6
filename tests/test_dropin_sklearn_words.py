"""scikit-learn's own tests match its errors' and warnings' words (``pytest.raises(match=...)``);
linclass's messages carry those words as well as their own (scripts/sklearn_tests_trial.py runs
scikit-learn's test files against linclass).  Each case makes the same call on scikit-learn 1.9's
estimator and on linclass's: scikit-learn's pattern must match both messages (so the phrase is
really scikit-learn's) and linclass's own pattern must still match linclass's.  Then the behaviours
adopted for scikit-learn's tests: partial_fit of one class in the discrete naive Bayes models, a
failed fit that keeps the earlier model, and the private helpers those tests call."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from sklearn import discriminant_analysis as skda
from sklearn import linear_model as sklm
from sklearn import naive_bayes as sknb
from sklearn.datasets import load_iris
from sklearn.exceptions import ConvergenceWarning

import linclass

X4 = np.array([[-2, -1], [-1, -1], [-1, -2], [1, 1], [1, 2], [2, 1.0]])
Y4 = np.array([1, 1, 1, 2, 2, 2])
COUNTS = np.array([[1, 0, 2], [0, 3, 1], [2, 1, 0], [0, 0, 4]], dtype=float)
YC = np.array([0, 1, 1, 0])


def iris_binary():
    X, y = load_iris(return_X_y=True)
    return X, (y == 1).astype(int)


# (id, call(lib) -> None, expected exception or warning class, scikit-learn's pattern, ours)
ERRORS = [
    ("lda-priors-negative",
     lambda m: m.LinearDiscriminantAnalysis(priors=[2.0, -1.0]).fit(X4, Y4),
     ValueError, "priors must be non-negative", r"Priors must be non-negative and finite"),
    ("gnb-priors-negative", lambda m: m.GaussianNB(priors=[-0.5, 1.5]).fit(X4, Y4),
     ValueError, "Priors must be non-negative", r"priors must be non-negative numbers"),
    ("gnb-priors-count", lambda m: m.GaussianNB(priors=[0.25, 0.25, 0.25, 0.25]).fit(X4, Y4),
     ValueError, "Number of priors must match number of classes",
     "priors has 4 entries but there are 2 classes"),
    ("gnb-priors-sum", lambda m: m.GaussianNB(priors=[2.0, 1.0]).fit(X4, Y4),
     ValueError, "The sum of the priors should be 1", "priors must sum to 1; they sum to 3"),
    ("mnb-class-prior-count",
     lambda m: m.MultinomialNB(class_prior=[0.5, 0.5]).fit(COUNTS, [0, 1, 2, 0]),
     ValueError, "Number of priors must match number of classes",
     "class_prior has 2 entries but there are 3 classes"),
    ("lda-n-components",
     lambda m: m.LinearDiscriminantAnalysis(n_components=2).fit(X4, Y4),
     ValueError, "n_components cannot be larger than ",
     r"n_components=2 cannot be larger than min\(n_features, n_classes - 1\) = 1"),
    ("lda-samples-vs-classes",
     lambda m: m.LinearDiscriminantAnalysis().fit([[0.5, 0.6], [0.6, 0.5]], ["a", "b"]),
     ValueError, "The number of samples must be more",
     r"\(2 samples, 2 classes\): the shared covariance"),
    ("qda-not-full-rank",
     lambda m: m.QuadraticDiscriminantAnalysis().fit(
         np.random.default_rng(0).normal(size=(9, 4)), [1, 1, 1, 1, 1, 1, 2, 2, 2]),
     np.linalg.LinAlgError, "The covariance matrix of class .+ is not full rank.",
     r"class\(es\) \[2\] is not full rank \(rank 2 of 4.*Increase reg_param"),
    ("cnb-negative", lambda m: m.ComplementNB().fit(-COUNTS, YC),
     ValueError, r"Negative values in data passed to ComplementNB \(input X\)", "it models counts"),
    ("catnb-negative", lambda m: m.CategoricalNB().fit([[0, -1]], [1]),
     ValueError, r"Negative values in data passed to CategoricalNB \(input X\)",
     r"category codes are integers >= 0.*X\[0, 1\] = -1\.0\.$"),
    ("catnb-min-categories", lambda m: m.CategoricalNB(min_categories=[[3, 2], [2, 4]]).fit(
        [[0, 0], [0, 1], [0, 0], [1, 1]], [1, 1, 2, 2]),
     ValueError, "'min_categories' should have shape",
     r"min_categories must be an integer >= 1 or 2 of them"),
    ("mnb-alpha-negative",
     lambda m: m.MultinomialNB(alpha=np.array([1.0, -0.1, 1.0]), force_alpha=False).fit(COUNTS, YC),
     ValueError, "All values in alpha must be greater than 0.",
     r"alpha must hold finite values >= 0; got alpha=\[1.0, -0.1, 1.0\]"),
    ("mnb-alpha-shape",
     lambda m: m.MultinomialNB(alpha=np.array([1.0, 2.0]), force_alpha=False).fit(COUNTS, YC),
     ValueError, "When alpha is an array, it should contains `n_features`",
     r"array of shape \(n_features,\) = \(3,\); got shape \(2,\)"),
    ("gnb-unknown-label",
     lambda m: m.GaussianNB().partial_fit(X4, Y4, classes=[1, 2]).partial_fit(X4[:1], [3]),
     ValueError, "The target label.* in y do not exist in the initial classes",
     r"label\(s\) \[3\] that are not in classes=\[1, 2\]"),
    ("nb-classes-changed",
     lambda m: m.BernoulliNB().partial_fit(COUNTS, YC, classes=[0, 1]).partial_fit(
         COUNTS, YC, classes=[0, 1, 2]),
     ValueError, "is not the same as on last call to partial_fit",
     "is not the same as on the first call"),
    ("lr-inconsistent-rows", lambda m: m.LogisticRegression().fit(X4, Y4[:5]),
     ValueError, "Found input variables with inconsistent number",
     "X has 6 rows but y has 5 labels"),
    ("lr-liblinear-multiclass",
     lambda m: m.LogisticRegression(solver="liblinear").fit(*load_iris(return_X_y=True)),
     ValueError, "The 'liblinear' solver does not support multiclass classification",
     r"fits two classes only \(y has 3\)"),
    ("lr-lbfgs-l1", lambda m: m.LogisticRegression(solver="lbfgs", l1_ratio=1).fit(X4, Y4),
     ValueError, "Solver lbfgs supports only 'l2' or None penalties,",
     "minimises smooth objectives only"),
    ("lr-newton-cg-l1",
     lambda m: m.LogisticRegression(solver="newton-cg", l1_ratio=1).fit(X4, Y4),
     ValueError, "Solver newton-cg supports only 'l2' or None penalties,",
     "solver='newton-cg' minimises smooth objectives only"),
    ("lr-sag-l1", lambda m: m.LogisticRegression(solver="sag", l1_ratio=1).fit(X4, Y4),
     ValueError, "Solver sag supports only 'l2' or None penalties,",
     "minimises smooth objectives only"),
    ("lr-dual", lambda m: m.LogisticRegression(solver="lbfgs", dual=True).fit(X4, Y4),
     ValueError, "Solver lbfgs supports only dual=False, got dual=True",
     "dual=True is defined only for solver='liblinear'"),
    ("lr-liblinear-elasticnet",
     lambda m: m.LogisticRegression(solver="liblinear", l1_ratio=0.5).fit(X4, Y4),
     ValueError, "Only 'saga' solver supports elasticnet penalty, got solver=liblinear.",
     "solver='liblinear' takes the penalty 'l2'"),
    ("lr-liblinear-no-penalty",
     lambda m: m.LogisticRegression(solver="liblinear", C=np.inf).fit(X4, Y4),
     ValueError, "penalty=None is not supported for the liblinear solver",
     "solver='liblinear' takes the penalty 'l2'"),
    ("lr-liblinear-large", lambda m: m.LogisticRegression(solver="liblinear").fit(X4 * 1e31, Y4),
     ValueError, "Using the 'liblinear' solver while X contains a maximum value > 1e30 results "
     "in a frozen fit. Please choose another solver or rescale the input X.",
     "largest value is at most 1e30"),
]

WARNINGS = [
    ("bnb-alpha-small", lambda m: m.BernoulliNB(alpha=0.0, force_alpha=False).fit(COUNTS > 0, YC),
     UserWarning, "alpha too small will result in numeric errors, setting alpha = 1.0e-10",
     "alpha=0.0 is too small"),
    ("lr-penalty-none-C",
     lambda m: m.LogisticRegression(penalty=None, C=4).fit(*iris_binary()),
     UserWarning, "Setting penalty=None will ignore the C", "C=4 is ignored"),
    ("lr-l1-ratio-not-elasticnet",
     lambda m: m.LogisticRegression(penalty="l1", solver="saga", l1_ratio=0.5).fit(X4, Y4),
     UserWarning, r"l1_ratio parameter is only used when penalty is 'elasticnet'\. Got "
     r"\(penalty=l1\)", "l1_ratio=0.5 is ignored with penalty='l1'"),
    ("lr-l1-ratio-inconsistent",
     lambda m: m.LogisticRegression(penalty="l2", solver="saga", l1_ratio=1.0).fit(X4, Y4),
     UserWarning, "Inconsistent values: penalty=l2 with l1_ratio=1.0",
     "l1_ratio=1.0 is ignored with penalty='l2'"),
    ("lr-l1-ratio-none", lambda m: m.LogisticRegression(l1_ratio=None).fit(X4, Y4),
     FutureWarning, "'l1_ratio=None' was deprecated", "0, the L2 penalty, is what None meant"),
    ("lr-n-jobs", lambda m: m.LogisticRegression(n_jobs=1).fit(X4, Y4),
     FutureWarning, "'n_jobs' has no effect", "you gave n_jobs=1"),
]

#: scikit-learn's convergence warning for each solver name (its test_max_iter's patterns)
CONVERGENCE = [
    ("lbfgs", "lbfgs failed to converge"),
    ("newton-cg", "newton-cg failed to converge.* Increase the number of iterations."),
    ("newton-cholesky", "Newton solver did not converge after [0-9]* iterations"),
    ("liblinear", "Liblinear failed to converge, increase the number of iterations."),
    ("sag", "The max_iter was reached which means the coef_ did not converge"),
    ("saga", "The max_iter was reached which means the coef_ did not converge"),
]


def sk_namespace(name):
    for module in (skda, sknb, sklm):
        if hasattr(module, name):
            return getattr(module, name)
    raise AttributeError(name)


class _Lib:
    def __init__(self, getter):
        self._get = getter

    def __getattr__(self, name):
        return self._get(name)


SK, OURS = _Lib(sk_namespace), _Lib(lambda name: getattr(linclass, name))


@pytest.mark.parametrize("case", ERRORS, ids=[c[0] for c in ERRORS])
def test_errors_carry_sklearn_words_and_ours(case):
    _, call, kind, theirs, ours = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(kind, match=theirs):
            call(SK)
        with pytest.raises(kind, match=theirs) as info:
            call(OURS)
    assert info.match(ours)


@pytest.mark.parametrize("case", WARNINGS, ids=[c[0] for c in WARNINGS])
def test_warnings_carry_sklearn_words_and_ours(case):
    _, call, kind, theirs, ours = case
    for lib in (SK, OURS):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            call(lib)
        texts = [str(w.message) for w in seen if issubclass(w.category, kind)]
        assert any(re.search(theirs, t) for t in texts), (lib, texts)
    assert any(re.search(ours, t) for t in texts), texts


@pytest.mark.parametrize("solver, theirs", CONVERGENCE, ids=[c[0] for c in CONVERGENCE])
def test_convergence_warning_names_the_solver_as_sklearn_does(solver, theirs):
    X, y = iris_binary()
    with pytest.warns(ConvergenceWarning, match=theirs) as seen:
        linclass.LogisticRegression(solver=solver, max_iter=1, tol=1e-15).fit(X, y)
    message = next(str(w.message) for w in seen if issubclass(w.category, ConvergenceWarning))
    # linclass's own sentence follows: which solver ran and how far from the optimum it stopped
    assert "did not converge in max_iter=1 iterations: the largest entry of the gradient" in message
    if "(solver='newton'," in message:  # no advice to use the solver that just ran
        assert "or use solver='newton'" not in message


def test_partial_fit_of_one_class_as_fit_of_one_class():
    """The discrete models fit a single class (every prediction is it); partial_fit with
    classes of one label does the same, as scikit-learn's does."""
    X, y = [[1, 0, 0], [0, 1, 0]], [1, 1]
    for name in ("BernoulliNB", "MultinomialNB", "ComplementNB", "CategoricalNB"):
        ours = getattr(linclass, name)().partial_fit(X, y, classes=[1])
        ref = getattr(sknb, name)().partial_fit(X, y, classes=[1])
        assert ours.predict(X[:1]) == ref.predict(X[:1]) == 1
        np.testing.assert_allclose(ours.class_count_, ref.class_count_)
    with pytest.raises(ValueError, match="at least two class labels"):  # the others still refuse
        linclass.Perceptron().partial_fit(X, y, classes=[1])
    with pytest.raises(ValueError, match="classes is empty"):
        linclass.MultinomialNB().partial_fit(X, y, classes=[])


def test_a_failed_fit_keeps_the_earlier_model():
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    y = np.array([1, 1, 2, 2])
    model = linclass.CategoricalNB().fit(X, y)
    before = model.predict_proba(X)
    with pytest.raises(ValueError, match="Negative values"):
        model.fit(np.array([[0, -1]]), np.array([1]))
    np.testing.assert_array_equal(model.predict_proba(X), before)
    assert model.n_features_in_ == 2
    unfitted = linclass.CategoricalNB()
    with pytest.raises(ValueError):
        unfitted.fit(np.array([[0, -1]]), np.array([1]))
    assert not hasattr(unfitted, "n_features_in_")  # still unfitted


def test_private_helpers_of_sklearn_tests():
    rng = np.random.default_rng(0)
    X, w = rng.normal(size=(7, 3)), rng.random(7)
    mu, var = np.array([1.0, 2.0, 3.0]), np.array([0.5, 1.0, 2.0])
    for n_past in (0, 5):
        for weights in (None, w):
            ours = linclass.GaussianNB._update_mean_variance(n_past, mu, var, X, weights)
            ref = sknb.GaussianNB._update_mean_variance(n_past, mu, var, X, weights)
            np.testing.assert_allclose(ours, ref, rtol=1e-12)
    empty = linclass.GaussianNB._update_mean_variance(100, 0.0, 1.0, np.empty((0, 3)))
    assert empty == (0.0, 1.0)
    model = linclass.MultinomialNB(alpha=np.array([1e-10 / 2, 0.5]), force_alpha=False)
    with pytest.warns(UserWarning, match="alpha too small"):
        model.partial_fit([[1, 0], [0, 1]], [0, 1], classes=[0, 1])
    with pytest.warns(UserWarning, match="alpha too small"):
        np.testing.assert_allclose(model._check_alpha(), [1e-10, 0.5], rtol=1e-12)
    X, y = load_iris(return_X_y=True)
    ours = linclass.LogisticRegression(tol=1e-10, max_iter=1000).fit(X, y)
    ref = sklm.LogisticRegression(tol=1e-10, max_iter=10_000).fit(X, y)
    np.testing.assert_allclose(ours._predict_proba_lr(X), ref._predict_proba_lr(X), atol=1e-5)
    np.testing.assert_allclose(ours._predict_proba_lr(X).sum(axis=1), 1.0)
    binary = linclass.LogisticRegression().fit(X, y == 1)
    np.testing.assert_array_equal(binary._predict_proba_lr(X), binary.predict_proba(X))


@pytest.mark.parametrize("solver, shrinkage", [("lsqr", None), ("eigen", None), ("lsqr", "auto")])
def test_lda_two_classes_on_float32_keep_float32_coefficients(solver, shrinkage):
    """scikit-learn's 'lsqr' and 'eigen' cast a two-class ``coef_`` and ``intercept_`` to X's
    dtype (so its scores and probabilities are float32); with more classes they stay float64."""
    X, y = load_iris(return_X_y=True)
    X32 = X.astype(np.float32)
    for labels in ((y == 1).astype(int), y):
        ours = linclass.LinearDiscriminantAnalysis(solver=solver, shrinkage=shrinkage).fit(X32, labels)
        ref = skda.LinearDiscriminantAnalysis(solver=solver, shrinkage=shrinkage).fit(X32, labels)
        for name in ("coef_", "intercept_"):
            assert getattr(ours, name).dtype == getattr(ref, name).dtype, (name, len(set(labels)))
        assert ours.predict_proba(X32).dtype == ref.predict_proba(X32).dtype
        np.testing.assert_allclose(ours.predict_proba(X32), ref.predict_proba(X32), atol=1e-5)
