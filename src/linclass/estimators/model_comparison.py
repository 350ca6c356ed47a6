"""Comparing fitted logistic models: ``lr_test(smaller, larger)`` (R's ``anova(small, large,
test="Chisq")``) and ``drop1(model, X, y)`` (R's ``drop1(model, test="Chisq")``), from the models'
log-likelihoods (:func:`linclass.linear.inference.hypotheses.likelihood_ratio_test`).  The checks
here make sure the test means something: both fits unpenalised, on the same rows and classes, the
smaller one's features among the larger one's.  No mathematics here.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from linclass.estimators.logistic.summary import fit_offset
from linclass.linear.inference.hypotheses import likelihood_ratio_test

__all__ = ["drop1", "lr_test"]


def lr_test(smaller, larger):
    """The likelihood-ratio test of ``smaller`` nested in ``larger`` (two fitted unpenalised
    :class:`~linclass.LogisticRegression` models on the same rows): statistic
    :math:`2(\\ell_{large} - \\ell_{small})`, its degrees of freedom (the difference in parameters)
    and p-value, as R's ``anova(small, large, test="Chisq")``.  Models that are not nested on the
    same rows are refused, saying why.

    Returns
    -------
    :class:`~linclass.linear.inference.hypotheses.LikelihoodRatioTest` (``statistic``, ``df``,
    ``pvalue``, ``deviance_small``, ``deviance_large``)
    """
    small, large = _table(smaller, "smaller"), _table(larger, "larger")
    if not np.array_equal(np.asarray(smaller.classes_), np.asarray(larger.classes_)):
        raise ValueError(f"The models were fitted to different classes ({list(smaller.classes_)} "
                         f"and {list(larger.classes_)}): not the same rows.")
    if fit_offset(smaller) != fit_offset(larger):
        raise ValueError("The models were fitted with different offsets (or one with an offset and "
                         "one without): their likelihoods are not comparable; refit both with "
                         "the same offset=.")
    if abs(small.nobs - large.nobs) > 1e-9 * max(small.nobs, 1.0):
        raise ValueError(f"The models were fitted to different rows ({small.nobs:g} and "
                         f"{large.nobs:g} observations, weights summed): refit both on the same.")
    if smaller.fit_intercept and larger.fit_intercept and (
            abs(small.llnull - large.llnull) > 1e-9 * max(abs(large.llnull), 1.0)):
        raise ValueError("The models were fitted to different rows (their intercept-only "
                         "log-likelihoods differ): refit both on the same rows.")
    if smaller.fit_intercept and not larger.fit_intercept:
        raise ValueError("The smaller model has an intercept and the larger one has none: not "
                         "nested.")
    df = _rank(large) - _rank(small)
    if df <= 0:
        raise ValueError(f"The larger model has {_rank(large)} estimated parameters, the smaller "
                         f"{_rank(small)}: pass the smaller model first"
                         f"{' (aliased columns, NA, do not count)' if large.aliased else ''}.")
    _check_features(smaller, larger)
    if large.llf < small.llf - 1e-8 * max(abs(small.llf), 1.0):
        raise ValueError(f"The larger model fits worse (log-likelihood {large.llf:.6g} < "
                         f"{small.llf:.6g}): the models are not nested, or a fit did not converge.")
    # the residual deviances as the summaries measure them (grouped counts: from the saturated
    # model of the groups, as R's anova)
    return replace(likelihood_ratio_test(small.llf, large.llf, df),
                   deviance_small=small.deviance, deviance_large=large.deviance)


def drop1(model, X, y, sample_weight=None, offset=None):
    """R's ``drop1(model, test="Chisq")``: for each feature, the model refitted without it, with
    the degrees of freedom it takes, the deviance and AIC without it, the likelihood-ratio
    statistic and its p-value (``model``: a fitted unpenalised LogisticRegression; ``X``, ``y``,
    ``sample_weight``, ``offset``: its training rows, which the model does not keep).

    Returns
    -------
    pandas DataFrame indexed by ``'<none>'`` and the feature names, with columns ``Df``,
    ``Deviance``, ``AIC``, ``LRT``, ``Pr(>Chi)``.
    """
    full = _table(model, "model")
    names = _names(model)
    if len(names) != getattr(X, "shape", (0, 0))[1]:
        raise ValueError(f"X has {getattr(X, 'shape', ('?', '?'))[1]} features; the model was "
                         f"fitted on {len(names)}.")
    rows = {"<none>": drop1_row(model, full, None)}
    for j, name in enumerate(names):
        keep = [k for k in range(len(names)) if k != j]
        if not keep and not model.fit_intercept:
            continue
        reduced = None  # the intercept-only model
        if keep:
            Xj = X.iloc[:, keep] if hasattr(X, "iloc") else np.asarray(X)[:, keep]
            reduced = clone(model).fit(Xj, y, sample_weight=sample_weight, offset=offset)
        rows[name] = drop1_row(model, full, reduced, dropped=True)
    return drop1_table(rows)


def drop1_row(model, full, reduced, dropped: bool = False) -> list:
    """One row of a drop1 table: ``[Df, Deviance, AIC, LRT, Pr(>Chi)]`` of the fitted ``reduced``
    model against ``model`` (whose summary is ``full``), or of the intercept-only model when
    ``reduced`` is None and ``dropped``; the full model's own row (``'<none>'``) when not
    ``dropped``.  A reduced model of the same rank (an aliased column dropped) changes nothing: Df
    0, as R reports it."""
    if not dropped:
        return [np.nan, full.deviance, full.aic, np.nan, np.nan]
    if reduced is None:
        k = full.coef.shape[0]
        test = likelihood_ratio_test(full.llnull, full.llf, _rank(full) - k)
        return [test.df, full.null_deviance, -2 * full.llnull + 2 * k, test.statistic,
                test.pvalue]
    small = reduced.summary()
    if _rank(small) == _rank(full):
        return [0, small.deviance, small.aic, 0.0, np.nan]
    test = lr_test(reduced, model)
    return [test.df, small.deviance, small.aic, test.statistic, test.pvalue]


def drop1_table(rows: dict):
    """The drop1 table of ``{label: row}`` (:func:`drop1_row`), R's columns."""
    import pandas as pd

    return pd.DataFrame.from_dict(rows, orient="index",
                                  columns=["Df", "Deviance", "AIC", "LRT", "Pr(>Chi)"])


def _table(model, role: str):
    """The summary of a fitted unpenalised logistic model (its log-likelihoods and parameters)."""
    check_is_fitted(model)
    if not hasattr(model, "summary") or not hasattr(model, "_penalty"):
        raise ValueError(f"The {role} model is a {type(model).__name__}: likelihood-ratio tests "
                         "compare fitted LogisticRegression models.")
    penalty = model._penalty()
    if penalty.name is not None or getattr(penalty, "per_feature", False) or getattr(
            model, "relax", 1.0) != 1.0:
        raise ValueError(f"The {role} model is penalised (penalty={penalty.name!r}): a "
                         "likelihood-ratio test compares maximum-likelihood fits; refit with "
                         "penalty=None.")
    return model.summary()


def _rank(table) -> int:
    """The number of estimated parameters of a summary (aliased ones, NA, left out)."""
    return int(np.sum(np.isfinite(table.coef)))


def _names(model) -> list[str]:
    names = getattr(model, "feature_names_in_", None)
    return ([str(n) for n in names] if names is not None
            else [f"x{j}" for j in range(model.n_features_in_)])


def _check_features(smaller, larger) -> None:
    """The smaller model's features among the larger one's (by name when both have names)."""
    a, b = getattr(smaller, "feature_names_in_", None), getattr(larger, "feature_names_in_", None)
    if a is not None and b is not None:
        extra = sorted(set(map(str, a)) - set(map(str, b)))
        if extra:
            raise ValueError(f"The smaller model has features the larger one lacks ({extra}): "
                             "not nested.")
    elif smaller.n_features_in_ > larger.n_features_in_:
        raise ValueError(f"The smaller model has {smaller.n_features_in_} features, the larger "
                         f"{larger.n_features_in_}: not nested.")
