"""The inference methods of :class:`~linclass.LogisticRegression`: ``summary`` (the Wald, robust
and profile tables), ``marginal_effects`` and ``get_prediction``, each a call into
:mod:`linclass.estimators.logistic_summary` and :mod:`linclass.linear.inference`.  No mathematics
here.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from linclass.core.validation import validate_predict
from linclass.estimators.logistic_summary import margins_table, reported_parameters, summary_table
from linclass.linear.inference.prediction import predict_with_se
from linclass.linear.inference.summary import Summary
from linclass.linear.logistic.offsets import check_offset
from linclass.sources.dask import is_dask_collection

__all__ = ["LogisticInferenceMethods", "prediction_table"]


class LogisticInferenceMethods:
    """``summary``, ``marginal_effects`` and ``get_prediction`` of a fitted logistic regression."""

    def summary(self, alpha: float = 0.05, ci: str = "wald", *, cov_type: str = "nonrobust",
                groups=None, X=None, y=None, sample_weight=None, source=None, reference=None,
                offset=None, cluster_correction=None):
        """Coefficients with standard errors, z statistics, p-values and confidence intervals, and the
        model's log-likelihood, LR test against the intercept-only model, pseudo R², AIC and BIC.

        A fit by solver 'cd' (every fit with an L1 part) reports what it honestly can instead: the
        selected (non-zero) coefficients, the penalty, the log-likelihood and the optimality
        violation, without standard errors (inference after selection is not valid).

        Parameters
        ----------
        alpha : float, default=0.05
            The intervals are :math:`1-\\alpha` confidence intervals.
        ci : {'wald', 'profile'}, default='wald'
            'profile': profile-likelihood intervals and likelihood-ratio p-values in place of
            Wald's: for ``penalty='firth'`` fits the penalised ones, as R's logistf reports them
            (computed when first asked, any ``alpha``); for unpenalised fits (two or more classes)
            those of R's ``confint`` of a glm, for any ``alpha``, computed from the training rows
            ``X``, ``y``, ``sample_weight`` (:mod:`linclass.linear.inference.profile`).  Standard
            errors and z are Wald's either way.
        cov_type : {'nonrobust', 'HC0', 'HC1', 'cluster'}, default='nonrobust'
            The covariance of the standard errors, z, p-values and Wald intervals, as statsmodels'
            ``fit(cov_type=...)``: the inverse information, or the sandwich (heteroscedasticity
            robust HC0 and HC1 = HC0 times N/(N-k), R's ``vcovHC``; cluster robust with ``groups``,
            with the factor of ``cluster_correction``),
            :mod:`linclass.linear.inference.sandwich`.  Unpenalised fits only; the robust ones are
            computed from the training rows ``X``, ``y``, ``sample_weight`` (or ``source``), which
            the model does not keep.  Stata's ``vce(robust)`` of a logit, HC0 times N/(N-1), is
            ``cov_type='cluster'`` with ``groups=np.arange(n)`` (each row its own cluster).
        groups : array-like of shape (n_samples,), default=None
            The cluster of each row (cov_type='cluster'); with Dask X, a Dask series of X's data
            frame or the labels in row order.
        cluster_correction : {'stata', 'statsmodels', 'none'} or None, default=None
            The small-sample factor of cov_type='cluster' (None: 'stata'): 'stata' G/(G-1), as
            Stata's ``logit, vce(cluster g)`` and R's ``sandwich::vcovCL(m, cluster = g)`` on a glm;
            'statsmodels' G/(G-1) (N-1)/(N-k), statsmodels' default and R's ``vcovCL(m, cluster =
            g, type = "HC1")``; 'none' no factor.  The header prints the number of clusters and the
            factor.
        X, y, sample_weight : the training rows, default=None
            In memory or Dask collections (in memory for ``ci='profile'``), as given to ``fit``
            (weights are frequency weights; the fit's ``class_weight`` is applied to them as the
            fit did).
        offset : array-like, default=None
            The training rows' offset, for a model fitted with one (``fit(..., offset=)``): the
            robust covariance and the profile need it with the rows.
        source : chunk source, default=None
            The training rows as a :class:`linclass.core.chunks.ChunkSource` (as ``fit_source``),
            instead of ``X`` / ``y``: read once.
        reference : a class label or None, default=None
            Softmax fits: the class the others are contrasted with (None: ``classes_[0]``, as
            statsmodels' MNLogit); the covariance is mapped to the new contrasts.

        Returns
        -------
        Summary or PenalisedSummary
            :class:`linclass.linear.inference.summary.Summary` or
            :class:`linclass.linear.inference.penalised_summary.PenalisedSummary`; print them as
            tables, ``.to_frame()`` for pandas.
        """
        check_is_fitted(self)
        return summary_table(self, alpha, ci, cov_type=cov_type, groups=groups, X=X, y=y,
                             sample_weight=sample_weight, source=source, reference=reference,
                             offset=offset, cluster_correction=cluster_correction)

    def marginal_effects(self, X, at: str = "overall", method: str = "dydx", *, atexog=None,
                         dummy=False, count=False, sample_weight=None, y=None,
                         cov_type: str = "nonrobust", groups=None):
        """Marginal effects of the features on the class probabilities, with delta-method standard
        errors, as statsmodels' ``get_margeff`` of ``Logit`` / ``MNLogit``
        (:mod:`linclass.linear.inference.margins`).  Unpenalised fits only.

        One effect per column of X (a column is a variable here).  A model fitted by a formula
        (:func:`linclass.from_formula`) gives one effect per variable of the data instead, through
        every column built from it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows over which the effects are averaged ('overall') or whose mean / median is
            taken (statsmodels uses the training rows).
        at : {'overall', 'mean', 'median', 'zero'}, default='overall'
            The average of the rows' effects, or the effect at the features' (weighted) mean,
            median or zero (the intercept stays).
        method : {'dydx', 'eyex', 'dyex', 'eydx'}, default='dydx'
            :math:`\\partial P/\\partial x`, or the elasticities :math:`\\partial\\ln P/\\partial\\ln x`,
            :math:`\\partial P/\\partial\\ln x`, :math:`\\partial\\ln P/\\partial x`.
        atexog : dict or None, default=None
            Values at which the effects are taken, as statsmodels' ``atexog`` and Stata's
            ``margins, at()``: ``{column: value}``, a column by its name (``feature_names_in_``) or
            its index in X (0-based; statsmodels' keys count the constant column), a value a
            number or one number per row.  The columns are set in every row of X (after the
            dummies and counts are found, before ``at``).
        dummy, count : bool or list of columns, default=False
            The discrete change from 0 to 1 of each dummy column, and the centred change
            :math:`(P(x+1) - P(x-1))/2` of each count column, for 'dydx' / 'eydx' at 'overall' /
            'mean'.  True: the columns whose values in X are all 0 or 1 are dummies (rows that
            fix a dummy at 0 or 1 keep it one; its effect does not depend on the rows' values of
            it), the columns of non-negative integers that vary are counts (as statsmodels); a
            list names the columns.
        sample_weight : array-like of shape (n_samples,), default=None
            Frequency weights of the rows of X (also those of the fit for a robust ``cov_type``).
        y, cov_type, groups : as in :meth:`summary`
            The parameters' covariance: the fit's ('nonrobust'), or a robust one computed from the
            training rows ``X``, ``y``, ``sample_weight`` (and ``groups``).

        Returns
        -------
        :class:`linclass.linear.inference.margins.MarginalEffects`
            ``margeff``, ``margeff_se`` (shape (n_features,) for two classes: the effects on the
            probability of ``classes_[1]``; (n_features, n_classes) for softmax), ``margeff_cov``,
            ``tvalues``, ``pvalues``, ``conf_int(alpha)``, ``summary_frame(alpha)``; prints as a
            table.
        """
        check_is_fitted(self)
        return margins_table(self, X, at=at, method=method, dummy=dummy, count=count,
                             sample_weight=sample_weight, y=y, cov_type=cov_type, groups=groups,
                             atexog=atexog)

    def get_prediction(self, X, *, offset=None, cov_type: str = "nonrobust", groups=None,
                       X_train=None, y_train=None, sample_weight=None, offset_train=None):
        """Predicted probabilities of ``classes_[1]`` and log-odds with standard errors and
        confidence intervals, as statsmodels' ``GLMResults.get_prediction(exog)`` and R's
        ``predict(glm, newdata, se.fit = TRUE)`` (:mod:`linclass.linear.inference.prediction`).

        Two classes; fits whose :meth:`summary` has a covariance matrix (maximum likelihood, L2,
        Firth: the summary's ``cov_params()``).  A fit with an L1 part or bounds has none and is
        refused.

        Parameters
        ----------
        X : {array-like, scipy.sparse matrix} of shape (n_samples, n_features)
            The rows to predict.
        offset : array-like of shape (n_samples,), default=None
            The rows' offsets (added to the log-odds, with no variance; None: zero), for a model
            fitted with ``offset=``.
        cov_type, groups : as in :meth:`summary`
            The parameters' covariance: the fit's ('nonrobust'), or a robust one (unpenalised fits)
            computed from the training rows ``X_train``, ``y_train``, ``sample_weight``.
        X_train, y_train, sample_weight, offset_train : the training rows, default=None
            Needed only for a robust ``cov_type`` (the model does not keep its training data).

        Returns
        -------
        :class:`linclass.linear.inference.prediction.PredictionResults`
            ``predicted``, ``se_mean``, ``linpred``, ``se_linpred``, ``conf_int(alpha)`` and
            ``summary_frame(alpha)`` (columns ``mean``, ``mean_se``, ``mean_ci_lower``,
            ``mean_ci_upper``, then ``linpred``, ``linpred_se``, ``linpred_ci_lower``,
            ``linpred_ci_upper``).
        """
        check_is_fitted(self)
        return prediction_table(self, X, cov_type=cov_type, groups=groups, X_train=X_train,
                                y_train=y_train, sample_weight=sample_weight, offset=offset,
                                offset_train=offset_train)


def prediction_table(model, X, *, cov_type, groups, X_train, y_train, sample_weight, offset=None,
                     offset_train=None):
    """:meth:`LogisticInferenceMethods.get_prediction` of the fitted ``model``: the summary's
    covariance and the rows' predictions with their standard errors."""
    check_is_fitted(model)
    if len(model.classes_) != 2:
        raise ValueError(f"get_prediction is offered for two classes; this model has "
                         f"{len(model.classes_)} (softmax standard errors of the probabilities "
                         "are not implemented).")
    table = summary_table(model, 0.05, "wald", cov_type=cov_type, groups=groups, X=X_train,
                          y=y_train, sample_weight=sample_weight, offset=offset_train)
    if not isinstance(table, Summary) or table.covariance is None:
        raise ValueError("get_prediction needs the covariance matrix of the estimates; this fit "
                         "(a penalty with an L1 part, or bounds) has none. Refit with "
                         "penalty=None (or 'l2').")
    if is_dask_collection(X):
        raise ValueError("get_prediction needs the rows X in memory; call .compute() first.")
    rows = validate_predict(model, X, accept_sparse=True)
    coef, intercept = reported_parameters(model)
    covariance = np.nan_to_num(table.covariance, nan=0.0)  # aliased columns: coefficient 0, fixed
    return predict_with_se(rows, coef[0], intercept[0], covariance,
                           fit_intercept=model.fit_intercept,
                           row_labels=getattr(X, "index", None),
                           offset=check_offset(offset, rows.shape[0], 2))
