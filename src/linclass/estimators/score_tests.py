"""``linclass.score_test(smaller, larger, X, y)`` (R's ``anova(small, large, test = "Rao")``) and
``linclass.anova(model, X, y)`` (R's sequential ``anova(glm, test = "Chisq")``, or ``"Rao"``) for
fitted unpenalised logistic models, plain or formula ones.

The score test needs only the smaller model's fit: its estimate is embedded in the larger model's
parameters and the larger model's score and information there are summed over the training rows
(:mod:`linclass.linear.inference.rao`).  The smaller model's features are found among the
larger one's by name (both fitted on DataFrames, or formula models, whose coded columns have
names), else they are the first columns of ``X``; that its own score is zero at its estimate on
these rows is checked, which catches rows or a column order that are not the fits'.  The analysis
of deviance refits the model term by term in the order of its terms (a formula's terms ordered by
degree, as R's; each feature of a plain model), as R's ``anova.glm`` does.  No mathematics here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy.stats import chi2
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from linclass.estimators.formula import FormulaClassifier
from linclass.estimators.logistic.summary import (
    estimable,
    fit_offset,
    reported_parameters,
    training_rows,
)
from linclass.estimators.model_comparison import _rank, _table
from linclass.linear.inference.rao import ScoreTest, embed, newton_drift, score_test_of
from linclass.linear.logistic.offsets import null_fit

if TYPE_CHECKING:
    import pandas as pd
    from numpy.typing import ArrayLike
    from sklearn.base import BaseEstimator

__all__ = ["anova", "score_test"]

_DRIFT = 0.05  # a Newton step of the smaller model of more standard errors: not its fit's rows


def score_test(smaller: BaseEstimator | None, larger: BaseEstimator, X: ArrayLike,
               y: ArrayLike | None = None, sample_weight: ArrayLike | str | None = None,
               offset: ArrayLike | None = None) -> ScoreTest:
    """The score (Rao) test of ``smaller`` nested in ``larger``, as R's ``anova(small, large,
    test = "Rao")`` of two glms: the larger model's score and information at the smaller model's
    estimate (:mod:`linclass.linear.inference.rao`).

    Parameters
    ----------
    smaller, larger : LogisticRegression or FormulaClassifier
        Fitted unpenalised models on the same rows, ``smaller``'s features among ``larger``'s.
        Only ``smaller``'s estimate is used; ``larger`` gives the design and the checks.
        ``smaller=None``: the intercept-only model (R's ``glm(y ~ 1)``; with the fit's offset).
    X : array-like of shape (n_samples, n_features) or DataFrame
        The training rows as the larger model reads them (its features; a formula model's
        training frame).
    y : array-like of shape (n_samples,), default=None
        Their labels (a formula model's response by default).
    sample_weight : array-like of shape (n_samples,) or str, default=None
        The fits' sample weights (a formula model may name a column).
    offset : array-like, default=None
        The fits' offset (a formula's ``offset(...)`` terms are read from the frame).

    Returns
    -------
    :class:`~linclass.linear.inference.rao.ScoreTest`
        ``statistic``, ``df``, ``pvalue``.

    Raises
    ------
    ValueError
        For models that are not unpenalised fits nested on the same rows, and for rows on which
        the smaller model's score is not zero (not the rows, or the column order, of its fit).

    See Also
    --------
    linclass.lr_test : The likelihood-ratio test of the same hypothesis.
    linclass.anova : Score tests of each term in turn (``test='Rao'``).
    statsmodels.discrete.discrete_model.LogitResults.score_test : statsmodels' score test; R's
        counterpart is ``anova(smaller, larger, test="Rao")``.

    Examples
    --------
    >>> import numpy as np, pandas as pd, linclass
    >>> rng = np.random.default_rng(0)
    >>> x, g = rng.normal(size=200), rng.choice(['a', 'b', 'c'], size=200)
    >>> data = pd.DataFrame({'x': x, 'g': g, 'y': (x + rng.normal(size=200) > 0).astype(int)})
    >>> smaller, larger = (linclass.from_formula(f, data) for f in ('y ~ x', 'y ~ x + C(g)'))
    >>> test = linclass.score_test(smaller, larger, data)
    >>> test.df, bool(0 <= test.pvalue <= 1)
    (2, True)
    """
    small, large = (None if smaller is None else _inner(smaller)), _inner(larger)
    X, y, sample_weight, offset = _rows_of(larger, X, y, sample_weight, offset)
    return _score_test(small, large, X, y, sample_weight, offset)


def anova(model: BaseEstimator, X: ArrayLike, y: ArrayLike | None = None,
          sample_weight: ArrayLike | str | None = None, test: str = "Chisq",
          offset: ArrayLike | None = None) -> pd.DataFrame:
    """The sequential analysis of deviance of R's ``anova(glm, test = "Chisq")``: the model
    refitted with its terms added one at a time, in order (a formula's terms, whole: every column
    of ``C(race)`` at once; each feature of a plain model), one row per term.

    Parameters
    ----------
    model : LogisticRegression or FormulaClassifier
        Fitted, unpenalised.
    X, y, sample_weight, offset
        The training rows, as for :func:`score_test` (``X``: the model's training frame or
        features).
    test : {'Chisq', 'Rao'}, default='Chisq'
        'Chisq': p-values of the deviance differences (likelihood-ratio tests); 'Rao': a column
        ``Rao`` of score tests of each model in the next (R's ``test = "Rao"``) and their
        p-values.

    Returns
    -------
    DataFrame
        pandas DataFrame indexed by ``'NULL'`` and the terms, with R's columns ``Df``,
        ``Deviance``, ``Resid. Df``, ``Resid. Dev`` (then ``Rao``) and ``Pr(>Chi)``.

    See Also
    --------
    linclass.drop1 : Each term dropped from the full model (R's ``drop1``).
    linclass.score_test : The score test of two nested models.
    linclass.lr_test : The likelihood-ratio test of two nested models.
    statsmodels.stats.anova.anova_lm : statsmodels' sequential analysis is for linear models;
        R's counterpart is ``anova(glm_fit, test="Chisq")``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import linclass
    >>> data = pd.DataFrame({'x': np.tile(np.linspace(-2, 2, 50), 4),
    ...                      'g': np.repeat(['a', 'b', 'c', 'd'], 50)})
    >>> data['y'] = (data['x'] + np.random.default_rng(1).logistic(size=200) > 0).astype(int)
    >>> table = linclass.anova(linclass.from_formula('y ~ x + C(g)', data), data)
    >>> list(table.index)
    ['NULL', 'x', 'C(g)']
    >>> [int(df) for df in table['Df'][1:]]
    [1, 3]
    """
    import pandas as pd

    if test not in ("Chisq", "Rao"):
        raise ValueError(f"test must be 'Chisq' or 'Rao'; got {test!r}.")
    inner = _inner(model)
    full = _table(inner, "model")
    rows, labels, weights, offset = _rows_of(model, X, y, sample_weight, offset)
    terms = _terms(model, inner)
    fit_kw = {} if weights is None else {"sample_weight": weights}
    if offset is not None:
        fit_kw["offset"] = offset
    null_df = full.df_resid + _rank(full) - int(inner.fit_intercept)
    table = {"NULL": [np.nan, np.nan, null_df, full.null_deviance]}
    scores = [np.nan]
    previous, previous_dev, previous_df, columns = None, full.null_deviance, null_df, []
    for i, (term, owned) in enumerate(terms):
        columns = columns + owned
        last = i == len(terms) - 1
        design = _columns(rows, columns)
        fitted = inner if last else clone(inner).fit(design, labels, **fit_kw)
        summary = full if last else fitted.summary()
        df = previous_df - summary.df_resid
        table[term] = [df, max(previous_dev - summary.deviance, 0.0), summary.df_resid,
                       summary.deviance]
        if test == "Rao":
            scores.append(_score_test(previous, fitted, design, labels, weights, offset,
                                      df=df).statistic if df > 0 else np.nan)
        previous, previous_dev, previous_df = fitted, summary.deviance, summary.df_resid
    out = pd.DataFrame.from_dict(table, orient="index",
                                 columns=["Df", "Deviance", "Resid. Df", "Resid. Dev"])
    statistic = out["Deviance"].to_numpy(float)
    if test == "Rao":
        out["Rao"] = statistic = np.asarray(scores, dtype=float)
    df = out["Df"].to_numpy(float)
    positive = np.nan_to_num(df) > 0
    p = np.full(len(out), np.nan)
    p[positive] = chi2.sf(statistic[positive], df[positive])
    out["Pr(>Chi)"] = p
    return out


# ------------------------------------------------------------------------------------ helpers
def _inner(model):
    if isinstance(model, FormulaClassifier):
        check_is_fitted(model)
        return model.estimator_
    return model


def _rows_of(model, X, y, sample_weight, offset):
    """``(X, y, sample_weight, offset)`` as the (wrapped) estimator of ``model`` reads them."""
    if not isinstance(model, FormulaClassifier):
        return X, y, sample_weight, offset
    check_is_fitted(model)
    rows, labels, weights = model.training_rows(X, y, sample_weight)
    return rows, labels, weights, model._offset(X).get("offset", offset)


def _terms(model, inner) -> list[tuple[str, list[int]]]:
    """``[(term, its columns)]`` in the order R adds them."""
    if isinstance(model, FormulaClassifier) and model.encoding_ is not None:
        from linclass.formula.terms import term_columns

        return list(term_columns(model.encoding_).items())
    names = getattr(inner, "feature_names_in_", None)
    names = [str(n) for n in names] if names is not None else \
        [f"x{j}" for j in range(inner.n_features_in_)]
    return [(name, [j]) for j, name in enumerate(names)]


def _columns(X, columns):
    return X.iloc[:, columns] if hasattr(X, "iloc") else np.asarray(X)[:, columns]


def _positions(small, large) -> np.ndarray:
    """Where each of the smaller model's features is among the larger one's."""
    a, b = getattr(small, "feature_names_in_", None), getattr(large, "feature_names_in_", None)
    if a is not None and b is not None:
        where = {str(name): j for j, name in enumerate(b)}
        missing = [str(name) for name in a if str(name) not in where]
        if missing:
            raise ValueError(f"The smaller model has features the larger one lacks ({missing}): "
                             "not nested.")
        return np.array([where[str(name)] for name in a], dtype=int)
    if small.n_features_in_ > large.n_features_in_:
        raise ValueError(f"The smaller model has {small.n_features_in_} features, the larger "
                         f"{large.n_features_in_}: not nested.")
    return np.arange(small.n_features_in_)


def _score_test(small, large, X, y, sample_weight, offset, df=None) -> ScoreTest:
    """The score test of ``small`` (a fitted model, or None: the null model) within ``large``
    (fitted) over its rows ``X`` (the larger model's features)."""
    large_table = _table(large, "larger")
    rows = training_rows(large, X, y, sample_weight, purpose="score_test", in_memory=True,
                         offset=offset)
    keep = estimable(large)
    m = 1 if np.asarray(large.classes_).size == 2 else np.asarray(large.classes_).size - 1
    if small is None:  # the intercept-only model (with the offset), R's first anova row
        width = m if m == 1 else m + 1
        base = np.zeros((rows.X.shape[0], width)) if rows.offset is None else rows.offset
        b, _ = null_fit(base, rows.y, rows.weight, large.fit_intercept)
        intercept = b if m == 1 else b[1:] - b[0]
        coef = np.zeros((m, int(keep.sum())))
        own_features, small_intercept, small_rank = np.zeros(0, dtype=int), \
            large.fit_intercept, m * int(large.fit_intercept)
    else:
        small_table = _table(small, "smaller")
        _check_pair(small, large, small_table, large_table)
        positions = _positions(small, large)
        coef_s, intercept = reported_parameters(small)
        coef = embed(np.nan_to_num(coef_s), positions, large.n_features_in_)[:, keep]
        if not small.fit_intercept:
            intercept = np.zeros(m)
        kept_index = np.cumsum(keep) - 1  # a feature's column among the estimable ones
        small_keep = estimable(small)
        own_features = kept_index[positions[small_keep & keep[positions]]]
        small_intercept, small_rank = small.fit_intercept, _rank(small_table)
    sums = rows.score_sums(coef, np.asarray(intercept, dtype=np.float64), keep)
    _check_small_score(sums, m, int(keep.sum()), large.fit_intercept, own_features,
                       small_intercept)
    if df is None:
        df = _rank(large_table) - small_rank
        if df <= 0:
            raise ValueError(f"The larger model has {_rank(large_table)} estimated parameters, "
                             f"the smaller {small_rank}: pass the smaller model first.")
    return score_test_of(sums.score, sums.hessian, df)


def _check_pair(small, large, small_table, large_table) -> None:
    if not np.array_equal(np.asarray(small.classes_), np.asarray(large.classes_)):
        raise ValueError(f"The models were fitted to different classes ({list(small.classes_)} "
                         f"and {list(large.classes_)}): not the same rows.")
    if fit_offset(small) != fit_offset(large):
        raise ValueError("The models were fitted with different offsets (or one with an offset and "
                         "one without); refit both with the same offset=.")
    if abs(small_table.nobs - large_table.nobs) > 1e-9 * max(small_table.nobs, 1.0):
        raise ValueError(f"The models were fitted to different rows ({small_table.nobs:g} and "
                         f"{large_table.nobs:g} observations, weights summed): refit both on the "
                         "same.")
    if small.fit_intercept and not large.fit_intercept:
        raise ValueError("The smaller model has an intercept and the larger one has none: not "
                         "nested.")


def _check_small_score(sums, m, d, fit_intercept, own_features, small_intercept) -> None:
    """The smaller model's own score is zero at its estimate on its fit's rows: refuse rows (or a
    column order) on which a Newton step of the smaller model would move it by more than
    ``_DRIFT`` standard errors."""
    width = d + int(fit_intercept)
    index = []
    for j in range(m):
        if fit_intercept and small_intercept:
            index.append(j * width)
        index.extend(j * width + int(fit_intercept) + own_features)
    drift = newton_drift(sums.score, sums.hessian, np.asarray(index, dtype=int))
    if drift > _DRIFT:
        moved = ("its information matrix is singular there" if np.isinf(drift) else
                 f"a Newton step would move one of its coefficients by {drift:.3g} standard errors")
        raise ValueError(f"The smaller model's score is not zero on these rows ({moved}): pass the "
                         "rows both models were fitted on, with the larger model's columns (the "
                         "smaller model's are found by name, or are X's first columns).")
