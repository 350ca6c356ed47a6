"""From a fitted linclass classifier to its :class:`~linclass.export.forms.Plan`: which fitted
attributes hold its scoring form.  The one place that knows where each estimator keeps them; a
model whose scores have no linear or Gaussian form is refused here, saying why.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from linclass import estimators as est
from linclass.export.forms import (
    Binarize,
    CategoricalScores,
    DiagonalScores,
    LinearScores,
    Monomials,
    OneVsOne,
    OneVsRest,
    Project,
    Single,
    Standardize,
    WhitenedScores,
    with_steps,
)
from linclass.generative import categorical
from linclass.linear.perceptron.basis_functions import poly_powers

__all__ = ["NotExportableError", "read_plan"]


class NotExportableError(ValueError):
    """A fitted model whose predictions cannot be written as a graph of the scoring forms of
    :mod:`linclass.export.forms`; the message says why and what can be exported instead."""


def read_plan(model):
    """The :class:`~linclass.export.forms.Plan` of a fitted linclass classifier.

    Raises
    ------
    NotExportableError
        ``model`` is not a linclass classifier, or its scores have no linear or Gaussian form.
    sklearn.exceptions.NotFittedError
        ``model`` is not fitted.
    """
    reader = _READERS.get(type(model))
    if reader is None:
        raise NotExportableError(
            f"{type(model).__module__}.{type(model).__name__} is not a linclass classifier: "
            "linclass exports its own estimators (skl2onnx converts scikit-learn's)."
        )
    check_is_fitted(model)
    return reader(model)


def _name(model) -> str:
    return type(model).__name__


# ------------------------------------------------------------------------------ generative models
def _fitted_model(model):
    if not hasattr(model, "model_"):
        raise NotExportableError(
            f"This {_name(model)} has statistics but no model yet (partial_fit has not seen enough "
            "data to determine one); give it more data first."
        )
    return model.model_


def _gaussian(model) -> Single:
    """LDA, QDA, Gaussian naive Bayes, GDA, RDA: the scoring form of their
    :class:`~linclass.generative.gaussian.GaussianModel`."""
    posterior = getattr(model, "posterior", "plug-in")
    if posterior != "plug-in":
        raise NotExportableError(
            f"{_name(model)}(posterior={posterior!r}) cannot be exported: only the plug-in "
            "posterior has a linear or Gaussian form (MASS's predictive posterior is a multivariate "
            "t, the debiased one corrects the distances per class size); fit with "
            "posterior='plug-in'."
        )
    m = _fitted_model(model)
    K = m.means.shape[0]
    if m.coef is not None:
        scores = LinearScores(m.coef, m.centred_intercept, m.center)
    elif m.whiten is not None:
        scores = WhitenedScores(m.whiten, m.offsets, m.const, m.center)
    else:
        scores = DiagonalScores(m.offsets, m.inv_var, m.const, m.center)
    return Single(scores, K)


def _discrete(model) -> Single:
    """Bernoulli (after its threshold), multinomial, Poisson and complement naive Bayes: linear
    class scores in the counts (the terms shared by all classes left out, as in ``predict_proba``)."""
    m = _fitted_model(model)
    steps = ()
    if getattr(model, "binarize", None) is not None:
        steps = (Binarize(float(model.binarize)),)
    return Single(LinearScores(m.coef, m.intercept), m.coef.shape[0], steps=steps)


def _categorical(model) -> Single:
    """Categorical naive Bayes: per feature, the log-probabilities of its categories and, last, of a
    category never seen in training."""
    m = _fitted_model(model)
    n_categories = model.n_categories_
    per_feature = categorical.regroup(m.log_params, n_categories)
    unseen = categorical.unseen_log_params(m, n_categories, model.class_count_)
    table = np.vstack([np.vstack([block.T, unseen[:, j]]) for j, block in enumerate(per_feature)])
    starts = np.concatenate([[0], np.cumsum(n_categories + 1)[:-1]])
    return Single(CategoricalScores(table, starts.astype(np.int64), n_categories.astype(np.int64),
                                    m.intercept), m.intercept.size)


def _fisher(model) -> Single:
    """Fisher's discriminant: the projection, then :math:`\\bar z_k^Tz - \\tfrac12\\lVert\\bar z_k
    \\rVert^2 + \\ln p(C_k)` (:func:`linclass.projection.fisher.scores`)."""
    m = _fitted_model(model)
    M = m.projected_means
    project = Project(m.center, m.directions[:, : m.n_components])
    intercept = m.log_priors - 0.5 * np.sum(M**2, axis=1)
    return Single(LinearScores(M, intercept), M.shape[0], steps=(project,))


# --------------------------------------------------------------------------- discriminative models
def _two_class_rows(coef: np.ndarray, intercept: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One score :math:`s` (two classes) read as the class scores :math:`(0, s)`."""
    if coef.shape[0] != 1:
        return coef, intercept
    return np.vstack([np.zeros_like(coef), coef]), np.concatenate([[0.0], intercept])


def _dense(coef) -> np.ndarray:
    return coef.toarray() if sp.issparse(coef) else np.asarray(coef, dtype=np.float64)


def _logistic(model) -> Single:
    """Logistic and softmax regression (the scores without an offset, as ``predict_proba(X)``)."""
    coef, intercept = _two_class_rows(_dense(model.coef_), np.asarray(model.intercept_, np.float64))
    return Single(LinearScores(coef, intercept), model.classes_.size)


def _perceptron(model) -> Single:
    """The perceptron: activations in its basis; no probabilities."""
    steps = ()
    if callable(model.basis):
        raise NotExportableError(
            f"Perceptron(basis={model.basis!r}) cannot be exported: its basis functions are Python "
            "code. Use basis=None or basis='poly', or compute the basis yourself and fit on it."
        )
    if model.basis == "poly":
        steps = (_monomials(model.n_features_in_, model.degree),)
    coef, intercept = _two_class_rows(_dense(model.coef_), np.asarray(model.intercept_, np.float64))
    K = model.classes_.size
    return Single(LinearScores(coef, intercept), K, proba=False,
                  rule="nonnegative" if K == 2 else "argmax", steps=steps)


def _monomials(n_features: int, degree: int) -> Monomials:
    """Each monomial of degree k >= 2 (in the order of
    :func:`~linclass.linear.perceptron.basis_functions.poly_powers`) as one of degree k - 1 times
    its highest-indexed variable."""
    powers = poly_powers(n_features, degree)
    total = powers.sum(axis=1)
    position = {}  # exponent tuple -> column within its degree's block
    for k in range(1, degree + 1):
        for i, row in enumerate(powers[total == k]):
            position[tuple(row)] = i
    parents, variables = [], []
    for k in range(2, degree + 1):
        block = powers[total == k]
        last = np.array([np.flatnonzero(row)[-1] for row in block])
        lower = block.copy()
        lower[np.arange(block.shape[0]), last] -= 1
        parents.append(np.array([position[tuple(row)] for row in lower], dtype=np.int64))
        variables.append(last.astype(np.int64))
    return Monomials(tuple(parents), tuple(variables))


# ------------------------------------------------------------------------------- meta-estimators
def _standardized(model):
    """Standardisation, then the wrapped estimator."""
    return with_steps((Standardize(model.mean_, model.scale_),), read_plan(model.estimator_))


def _formula(model):
    """Without a formula, the wrapped estimator on the columns as they are."""
    if model.encoding_ is not None:
        raise NotExportableError(
            f"FormulaClassifier({model.formula!r}) cannot be exported: formulaic codes the data "
            "frame's factors and transforms in Python, outside any graph. Export its estimator_ "
            "(linclass.to_onnx(model.estimator_, ...)) and give the graph the coded columns "
            "(model.training_rows(frame)[0])."
        )
    return read_plan(model.estimator_)


def _members(model) -> tuple:
    """The two-class plans of a one-vs-rest / one-vs-one model's estimators."""
    members = []
    for inner in model.estimators_:
        plan = read_plan(inner)
        if not isinstance(plan, Single) or plan.n_classes != 2:
            raise NotExportableError(
                f"{_name(model)} over {_name(model.estimator)} cannot be exported: its estimators "
                "must be two-class models of a single scoring form (not multi-class schemes "
                "themselves)."
            )
        members.append(plan)
    return tuple(members)


def _one_vs_rest(model) -> OneVsRest:
    return OneVsRest(_members(model), model.classes_.size, proba=hasattr(model, "predict_proba"))


def _one_vs_one(model) -> OneVsOne:
    return OneVsOne(_members(model), np.asarray(model.pairs_, dtype=np.int64), model.classes_.size,
                    proba=hasattr(model, "predict_proba"))


def _k_class(model):
    """The arg max of the estimator's class scores (a two-class perceptron's tie goes to the first
    class here), with the estimator's probabilities."""
    plan = read_plan(model.estimator_)
    if isinstance(plan, Single):
        return Single(plan.scores, plan.n_classes, plan.proba, "argmax", plan.steps)
    return plan


def _kernel(model):
    raise NotExportableError(
        "KernelFisherDiscriminantAnalysis cannot be exported: its projection is a kernel expansion "
        "over the training rows (or the Nystroem landmarks), not a linear or Gaussian form in x."
    )


def _ordinal(model):
    raise NotExportableError(
        "OrderedLogisticRegression cannot be exported: its probabilities are differences of a "
        "cumulative distribution at the thresholds, F(zeta_k - x'beta) - F(zeta_(k-1) - x'beta), "
        "not one of the linear or Gaussian scoring forms the graphs are built from."
    )


_READERS = {
    est.LinearDiscriminantAnalysis: _gaussian,
    est.QuadraticDiscriminantAnalysis: _gaussian,
    est.GaussianNB: _gaussian,
    est.GaussianDiscriminantAnalysis: _gaussian,
    est.RegularizedDiscriminantAnalysis: _gaussian,
    est.RegularizedDiscriminantAnalysisCV: _gaussian,
    est.BernoulliNB: _discrete,
    est.MultinomialNB: _discrete,
    est.PoissonNB: _discrete,
    est.ComplementNB: _discrete,
    est.CategoricalNB: _categorical,
    est.LogisticRegression: _logistic,
    est.LogisticRegressionCV: _logistic,
    est.Perceptron: _perceptron,
    est.FisherDiscriminantAnalysis: _fisher,
    est.KernelFisherDiscriminantAnalysis: _kernel,
    est.OrderedLogisticRegression: _ordinal,
    est.OneVsRestClassifier: _one_vs_rest,
    est.OneVsOneClassifier: _one_vs_one,
    est.KClassDiscriminant: _k_class,
    est.StandardizedClassifier: _standardized,
    est.FormulaClassifier: _formula,
}
