"""``linclass.diagnostics``, ``linclass.lr_test`` and ``linclass.drop1`` for formula models as well.

A :class:`~linclass.FormulaClassifier` is read through its fitted estimator: its training frame is
coded by its formula (the labels are the response's, a weight may name a column) and handed to
:func:`linclass.estimators.diagnostics.diagnostics` and
:func:`linclass.estimators.model_comparison.lr_test`.  ``drop1`` drops whole terms, as R's
``drop1`` does for a glm: every column of ``C(race)`` at once, and only the terms that no other
term contains (:func:`linclass.formula.terms.droppable`); the reduced fits are the full model's
columns less the term's, refitted.  Other models go to the functions unchanged.  No mathematics
here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from linclass.estimators.diagnostics import diagnostics as _diagnostics
from linclass.estimators.formula import FormulaClassifier
from linclass.estimators.model_comparison import _table, drop1_row, drop1_table
from linclass.estimators.model_comparison import drop1 as _drop1
from linclass.estimators.model_comparison import lr_test as _lr_test

if TYPE_CHECKING:
    import pandas as pd
    from numpy.typing import ArrayLike
    from sklearn.base import BaseEstimator

    from linclass.linear.inference.diagnostics import Diagnostics
    from linclass.linear.inference.hypotheses import LikelihoodRatioTest

__all__ = ["diagnostics", "drop1", "lr_test"]


def _inner(model):
    if not isinstance(model, FormulaClassifier):
        return model
    check_is_fitted(model)
    return model.estimator_


def diagnostics(model: BaseEstimator, X: ArrayLike, y: ArrayLike | None = None,
                sample_weight: ArrayLike | str | None = None, **kwargs: Any) -> Diagnostics:
    """Case diagnostics of a fitted unpenalised binary logistic model over its training rows, as
    :func:`linclass.estimators.diagnostics.diagnostics`; for a formula model ``X`` is its training
    frame (``y`` defaults to the response, ``sample_weight`` may name a column), and the rows keep
    the frame's index.  Other keywords go to that function.

    Parameters
    ----------
    model : LogisticRegression or FormulaClassifier
        Fitted, unpenalised, on two classes.
    X : array-like of shape (n_samples, n_features) or DataFrame
        The training rows (the model does not keep them); a formula model's training frame.
    y : array-like of shape (n_samples,), default=None
        Their labels; for a formula model, the response by default.
    sample_weight : array-like of shape (n_samples,) or str, default=None
        The fit's sample weights; for a formula model, may name a column of ``X``.
    **kwargs
        Passed on to :func:`linclass.estimators.diagnostics.diagnostics` (``offset``).

    Returns
    -------
    :class:`~linclass.linear.inference.diagnostics.Diagnostics`

    See Also
    --------
    linclass.drop1 : One likelihood-ratio test per term.
    linclass.lr_test : The likelihood-ratio test of nested models.
    linclass.LogisticRegression.summary : The coefficient table.
    statsmodels.genmod.generalized_linear_model.GLMResults.get_influence : statsmodels' case
        diagnostics; R's counterparts are ``hatvalues``, ``rstandard`` and ``cooks.distance``.

    Examples
    --------
    >>> import numpy as np, pandas as pd, linclass
    >>> dose = np.repeat([1.0, 2.0, 3.0, 4.0], 30)
    >>> died = np.random.default_rng(0).random(120) < 1 / (1 + np.exp(5 - 2 * dose))
    >>> data = pd.DataFrame({'dose': dose, 'died': died.astype(int)})
    >>> diag = linclass.diagnostics(linclass.from_formula('died ~ dose', data), data)
    >>> diag.hat.shape
    (120,)
    >>> round(float(diag.hat.sum()), 6)  # the leverages add up to the number of coefficients
    2.0
    """
    if not isinstance(model, FormulaClassifier):
        return _diagnostics(model, X, y, sample_weight, **kwargs)
    check_is_fitted(model)
    rows, labels, weights = model.training_rows(X, y, sample_weight)
    return _diagnostics(model.estimator_, rows, labels, weights, **model._offset(X), **kwargs)


def lr_test(smaller: BaseEstimator, larger: BaseEstimator) -> LikelihoodRatioTest:
    """The likelihood-ratio test of ``smaller`` nested in ``larger``, as
    :func:`linclass.estimators.model_comparison.lr_test` (formula models are compared through
    their fitted estimators, whose features are the coded columns).

    Parameters
    ----------
    smaller, larger : LogisticRegression or FormulaClassifier
        Fitted unpenalised models on the same rows, ``smaller`` nested in ``larger``.

    Returns
    -------
    :class:`~linclass.linear.inference.hypotheses.LikelihoodRatioTest`
        ``statistic``, ``df``, ``pvalue``, ``deviance_small``, ``deviance_large``.

    See Also
    --------
    linclass.drop1 : One test per term of one model.
    linclass.LogisticRegression.summary : Wald tests of each coefficient.
    statsmodels.discrete.discrete_model.LogitResults.compare_lr_test : statsmodels'
        likelihood-ratio test; R's counterpart is ``anova(smaller, larger, test="Chisq")``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import linclass
    >>> rng = np.random.default_rng(1)
    >>> data = pd.DataFrame(rng.normal(size=(300, 3)), columns=['x1', 'x2', 'x3'])
    >>> data['y'] = (data['x1'] - data['x2'] + rng.logistic(size=300) > 0).astype(int)
    >>> smaller = linclass.from_formula('y ~ x1', data)
    >>> test = linclass.lr_test(smaller, linclass.from_formula('y ~ x1 + x2 + x3', data))
    >>> test.df, bool(test.pvalue < 0.001)  # x2 matters
    (2, True)
    """
    return _lr_test(_inner(smaller), _inner(larger))


def drop1(model: BaseEstimator, X: ArrayLike, y: ArrayLike | None = None,
          sample_weight: ArrayLike | str | None = None, **kwargs: Any) -> pd.DataFrame:
    """R's ``drop1(model, test="Chisq")``.  For a formula model, one row per term that may be dropped
    (all of its columns at once; ``X`` is the training frame, ``y`` defaults to the response,
    ``sample_weight`` may name a column); for other models, one row per feature
    (:func:`linclass.estimators.model_comparison.drop1`).

    Parameters
    ----------
    model : LogisticRegression or FormulaClassifier
        Fitted, unpenalised.
    X, y, sample_weight
        The training rows, their labels and the fit's sample weights, as for :func:`diagnostics`.
    **kwargs
        For other models, passed on to :func:`linclass.estimators.model_comparison.drop1`
        (``offset``); a formula model takes none.

    Returns
    -------
    DataFrame
        pandas DataFrame indexed by ``'<none>'`` and the terms, with columns ``Df``, ``Deviance``,
        ``AIC``, ``LRT``, ``Pr(>Chi)``.

    See Also
    --------
    linclass.lr_test : The likelihood-ratio test of two nested models.
    linclass.diagnostics : Case diagnostics.
    linclass.from_formula : Fit a model by a formula.
    statsmodels.stats.anova.anova_lm : statsmodels' analysis of deviance is for linear models;
        R's counterpart is ``drop1(model, test="Chisq")``.

    Examples
    --------
    >>> import numpy as np, pandas as pd, linclass
    >>> rng = np.random.default_rng(2)
    >>> data = pd.DataFrame({'age': rng.uniform(20, 70, 250),
    ...                      'smoker': rng.choice(['no', 'yes'], 250)})
    >>> data['sick'] = rng.random(250) < 1 / (1 + np.exp(4 - data['age'] / 15))
    >>> table = linclass.drop1(linclass.from_formula('sick ~ age * smoker', data), data)
    >>> list(table.index)  # only the interaction may be dropped: it contains the main effects
    ['<none>', 'age:smoker']
    >>> list(table.columns)
    ['Df', 'Deviance', 'AIC', 'LRT', 'Pr(>Chi)']
    """
    if not isinstance(model, FormulaClassifier):
        return _drop1(model, X, y, sample_weight, **kwargs)
    if kwargs:
        raise TypeError(f"drop1 of a formula model takes no {sorted(kwargs)}.")
    from linclass.formula.terms import droppable, term_columns

    check_is_fitted(model)
    full = model.estimator_
    rows, labels, weights = model.training_rows(X, y, sample_weight)
    table = _table(full, "model")  # (an unpenalised logistic fit, or a message saying why not)
    out = {"<none>": drop1_row(full, table, None)}
    owned = term_columns(model.encoding_)
    extra = dict(model._offset(X), **({} if weights is None else {"sample_weight": weights}))
    for term in droppable(model.encoding_):
        drop = set(owned[term])
        keep = [j for j in range(rows.shape[1]) if j not in drop]
        if not keep and not model.encoding_.intercept:
            continue
        reduced = clone(full).fit(rows.iloc[:, keep], labels, **extra) if keep else None
        out[term] = drop1_row(full, table, reduced, dropped=True)
    return drop1_table(out)
