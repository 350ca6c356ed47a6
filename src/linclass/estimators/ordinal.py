"""scikit-learn glue for the proportional odds model of ordered classes (MASS's ``polr``):
validate -> the likelihood of :mod:`linclass.linear.ordinal.likelihood` over the rows (in memory,
or read from a chunk source) -> :func:`~linclass.linear.ordinal.newton.fit_ordinal` -> the fitted
attributes; the predictions and the summary table from them.  No mathematics here.
"""

from __future__ import annotations

import time
import warnings
from numbers import Integral, Real
from typing import Self

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from linclass.core.validation import check_magnitude, validate_fit, validate_predict
from linclass.estimators.fitted_state import clear_fitted_state
from linclass.sources.dask import is_dask_collection, lazy_on_dask

__all__ = ["OrderedLogisticRegression"]


def _categorical_levels(y):
    """The categories of a pandas Categorical ``y`` (Series or array) and its codes, else None."""
    if not type(y).__module__.startswith("pandas"):
        return None
    import pandas as pd

    if not isinstance(getattr(y, "dtype", None), pd.CategoricalDtype):
        return None
    values = pd.Categorical(y)
    if np.any(values.codes < 0):
        n = int(np.sum(values.codes < 0))
        raise ValueError(f"y has {n} missing label{'s' * (n != 1)} (NaN in the Categorical): every "
                         "sample needs a class label; drop those rows or give them one.")
    return np.asarray(values.categories), values.codes.astype(np.intp)


class OrderedLogisticRegression(ClassifierMixin, BaseEstimator):
    """Ordinal regression: the proportional odds model of MASS's ``polr``.

    .. math::

        P(y \\le k \\mid x) = F(\\zeta_k - x^T\\beta), \\qquad k = 1, \\dots, K-1,

    with :math:`F` the logistic distribution (``link='logit'``: the proportional odds model of
    McCullagh, 1980) or the standard normal (``link='probit'``), increasing thresholds
    :math:`\\zeta_1 < \\dots < \\zeta_{K-1}` and no intercept in :math:`\\beta` (the thresholds hold
    it).  A larger :math:`x^T\\beta` moves probability to the higher classes.  Fitted by maximum
    likelihood (Newton's method on :math:`(\\beta, \\zeta)` with the analytic Hessian, the
    thresholds kept in order; :mod:`linclass.linear.ordinal`), unpenalised, as ``polr`` fits:
    ``coef_`` is polr's ``coef(m)``, ``thresholds_`` its ``m$zeta``, ``summary()`` its
    ``summary(m)`` (Venables & Ripley, *Modern Applied Statistics with S*, 4th ed., 2002,
    sec. 7.3; Agresti, *Categorical Data Analysis*, 3rd ed., 2013, ch. 8).

    The order of the classes: the categories' order for a pandas Categorical ``y`` (ordered or
    not; categories absent from y are left out), else the sorted labels (integers ascending,
    strings alphabetically: give an ordered Categorical, or integer codes, when that is not the
    order of the levels).

    Parameters
    ----------
    link : {'logit', 'probit'}, default='logit'
        :math:`F`: polr's ``method = "logistic"`` or ``"probit"``.
    tol : float, default=1e-8
        The iteration stops one Newton step after the predicted gain of the log-likelihood (the
        Newton decrement) falls to ``tol``; the estimates are then accurate to about 1e-8 relative
        or better.
    max_iter : int, default=100
        Newton steps at most.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        :math:`\\beta`.
    thresholds_ : ndarray of shape (n_classes - 1,)
        :math:`\\zeta`, strictly increasing (polr's ``zeta``).
    classes_ : ndarray of shape (n_classes,)
        The classes in their order.
    n_iter_ : int
        Newton steps taken.
    converged_ : bool
    log_likelihood_, null_log_likelihood_ : float
        At the estimate, and of the model without features.
    cov_params_ : ndarray of shape (n_features + n_classes - 1, n_features + n_classes - 1)
        The inverse observed information (polr's ``vcov``), coefficients then thresholds.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        When X has feature names.

    Notes
    -----
    ``linear_predictor(X)`` gives the latent score :math:`x^T\\beta` (polr's ``m$lp``);
    ``decision_function`` keeps scikit-learn's contract for it (positive scores for the second of
    two classes, or one score per class whose largest is the prediction), which the latent score
    does not meet: :math:`x^T\\beta - \\zeta_1` for two classes, the log-probabilities for more.  ``sample_weight`` are frequency weights (polr's
    ``weights``); every class present in y needs a positive total weight.  Two classes are
    allowed (the model is then logistic or probit regression with intercept
    :math:`-\\zeta_1`); polr requires three.  When the features separate the classes the
    maximum-likelihood estimate does not exist: the iteration stops with large coefficients and
    standard errors, as polr's does (no warning is given; look for them in ``summary()``).
    Collinear or constant features (a constant is collinear with the thresholds) leave the
    information singular: the fit warns, the predictions are those without the redundant
    columns, and the covariance is a pseudo-inverse.

    See Also
    --------
    linclass.LogisticRegression : Unordered classes (softmax), penalties, robust covariances.
    linclass.from_formula : Fit by a formula on a data frame, as ``polr(Sat ~ Infl + Type, data)``;
        an ordered Categorical response gives the classes' order.

    Examples
    --------
    >>> import numpy as np
    >>> import linclass
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(500, 2))
    >>> latent = X @ [1.0, -0.5] + rng.logistic(size=500)
    >>> y = np.digitize(latent, [-1.0, 0.5])  # classes 0 < 1 < 2
    >>> model = linclass.OrderedLogisticRegression().fit(X, y)
    >>> model.coef_.round(1), model.thresholds_.round(1)
    (array([ 1.1, -0.5]), array([-0.7,  0.4]))
    """

    _parameter_constraints: dict = {
        "link": [StrOptions({"logit", "probit"})],
        "tol": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, link: str = "logit", tol: float = 1e-8, max_iter: int = 100):
        self.link = link
        self.tol = tol
        self.max_iter = max_iter

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # one latent score orders the classes: on classes that are not ordered along one direction
        # (scikit-learn's checks draw blobs in the plane) its accuracy can be low by design
        tags.classifier_tags.poor_score = True
        return tags

    # ------------------------------------------------------------------------------------ fit
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Maximum-likelihood fit.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Or a Dask array / data frame: then fitted from its blocks, as :meth:`fit_source`
            (y and sample_weight Dask collections aligned with it, or None).
        y : array-like of shape (n_samples,)
            Class labels; a pandas Categorical's categories give their order.
        sample_weight : array-like of shape (n_samples,), default=None
            Frequency weights.

        Returns
        -------
        self
        """
        from linclass.linear.ordinal.likelihood import derivatives, log_likelihood

        if is_dask_collection(X, y, sample_weight):
            from linclass.sources.dask import DaskSource

            return self.fit_source(DaskSource(X, y, sample_weight))
        self._validate_params()
        clear_fitted_state(self)
        categorical = _categorical_levels(y)
        name = getattr(y, "name", None)
        data = validate_fit(self, X, y if categorical is None else categorical[1], sample_weight)
        classes = data.classes if categorical is None else categorical[0][data.classes]
        Xf, yi, w = data.X, data.y, data.sample_weight
        check_magnitude(self, Xf)  # the Hessian sums squares of X's values
        totals = np.bincount(yi, w, classes.size)
        link = self._link()
        fit = self._solve(lambda c, z: log_likelihood(Xf, yi, w, c, z, link),
                          lambda c, z: derivatives(Xf, yi, w, c, z, link), classes, totals)
        return self._set_fitted(fit, classes, name)

    def fit_source(self, source) -> Self:
        """Fit from a chunk source (:class:`linclass.sources.chunks.ChunkFittable`): one pass for
        the labels (sorted) and class weights, then one pass per log-likelihood the iteration
        evaluates (about two per Newton step).  Equals ``fit`` on all rows at once to the
        iteration's tolerance.  Returns the fitted estimator."""
        from linclass.linear.ordinal.chunked import (class_weights, source_derivatives,
                                                     source_log_likelihood)
        from linclass.sources.chunks import record_features

        self._validate_params()
        clear_fitted_state(self)
        record_features(self, source)
        classes, totals = class_weights(source, self)
        link = self._link()
        fit = self._solve(
            lambda c, z: source_log_likelihood(source, classes, c, z, link),
            lambda c, z: source_derivatives(source, classes, c, z, link), classes, totals)
        return self._set_fitted(fit, classes, getattr(source, "target", None))

    def _link(self):
        from linclass.linear.ordinal.links import get_link

        return get_link(self.link)

    def _solve(self, value, derivatives, classes, totals):
        from linclass.linear.ordinal.likelihood import null_log_likelihood, null_thresholds
        from linclass.linear.ordinal.newton import fit_ordinal

        active = totals > 0
        if active.sum() < 2:
            raise ValueError(f"{type(self).__name__} needs samples of at least two classes with "
                             "positive sample_weight. A classifier cannot be trained on a single "
                             "class.")
        if not active.all():
            empty = [c.item() if isinstance(c, np.generic) else c for c in classes[~active]]
            raise ValueError(f"Class(es) {empty} of y have no sample with positive sample_weight: "
                             "their thresholds cannot be estimated. Drop those rows, or merge the "
                             "class with a neighbour.")
        fit = fit_ordinal(value, derivatives, n_features=self.n_features_in_,
                          start=null_thresholds(totals, self._link()),
                          null_log_likelihood=null_log_likelihood(totals), n_obs=float(totals.sum()),
                          link=self.link, tol=self.tol, max_iter=self.max_iter)
        if not fit.converged:
            warnings.warn(f"{type(self).__name__} did not converge in {fit.n_iter} Newton steps "
                          f"(max_iter={self.max_iter}); when the classes are separated by the "
                          "features the maximum-likelihood estimate does not exist and the "
                          "coefficients grow without bound.", ConvergenceWarning, stacklevel=3)
        return fit

    def _set_fitted(self, fit, classes, name) -> Self:
        self.classes_ = classes
        self.coef_ = fit.coef
        self.thresholds_ = fit.thresholds
        self.n_iter_ = fit.n_iter
        self.converged_ = fit.converged
        self.log_likelihood_ = fit.log_likelihood
        self.null_log_likelihood_ = fit.null_log_likelihood
        self.cov_params_ = fit.covariance
        self._n_obs = fit.n_obs
        self._dep_variable = str(name) if name is not None else "y"
        self._fitted_at = time.time()
        return self

    # ------------------------------------------------------------------------ predictions
    @lazy_on_dask
    def linear_predictor(self, X: ArrayLike) -> np.ndarray:
        """The latent score :math:`x^T\\beta` of each row (polr's ``m$lp``), shape (n_samples,)."""
        check_is_fitted(self)
        return validate_predict(self, X) @ self.coef_

    @lazy_on_dask
    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """scikit-learn's class scores: for two classes :math:`x^T\\beta - \\zeta_1`, of shape
        (n_samples,), positive where the second class is predicted (the log-odds of it for the
        logit link); for more, the log-probabilities of :meth:`predict_log_proba`, of shape
        (n_samples, n_classes), whose largest is the prediction.  The latent score
        :math:`x^T\\beta` itself is :meth:`linear_predictor`."""
        if getattr(self, "thresholds_", np.empty(2)).size == 1:
            return self.linear_predictor(X) - self.thresholds_[0]
        return self.predict_log_proba(X)

    @lazy_on_dask
    def predict_log_proba(self, X: ArrayLike) -> np.ndarray:
        """:math:`\\log P(y = k \\mid x)`, shape (n_samples, n_classes), computed in log space
        (finite in the far tails)."""
        from linclass.linear.ordinal.likelihood import class_log_proba

        return class_log_proba(self.linear_predictor(X), self.thresholds_, self._link())

    @lazy_on_dask
    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """:math:`P(y = k \\mid x) = F(\\zeta_{k+1} - x^T\\beta) - F(\\zeta_k - x^T\\beta)`, shape
        (n_samples, n_classes) (polr's ``fitted``, ``predict(type = "probs")``)."""
        return np.exp(self.predict_log_proba(X))

    @lazy_on_dask
    def predict(self, X: ArrayLike) -> np.ndarray:
        """The most probable class of each row (polr's ``predict(type = "class")``)."""
        log_proba = self.predict_log_proba(X)  # (checks that the model is fitted)
        return self.classes_[np.argmax(log_proba, axis=1)]

    # ---------------------------------------------------------------------------- inference
    def summary(self, alpha: float = 0.05, ci: str = "wald", cov_type: str = "nonrobust", *,
                X=None, y=None, sample_weight=None, groups=None, cluster_correction=None):
        """The coefficients, then the thresholds, with standard errors and t values (Wald's z), as
        MASS's ``summary(polr(...))`` prints them; log-likelihood, residual deviance and AIC.

        Parameters
        ----------
        alpha : float, default=0.05
            The intervals of ``conf_int()`` by default.
        ci : {'wald'}, default='wald'
            Wald's tests and intervals (profile intervals are not implemented for this model).
        cov_type : {'nonrobust'}, default='nonrobust'
            The inverse observed information, polr's ``vcov`` (robust covariances are not
            implemented for this model).
        X, y, sample_weight, groups, cluster_correction : default=None
            The training rows that the logistic summary's profile intervals and robust
            covariances read; the Wald table does not need them (the signature is
            :meth:`LogisticRegression.summary`'s, so that the formula interface and the command
            call both alike).

        Returns
        -------
        :class:`~linclass.linear.ordinal.summary.OrdinalSummary`
        """
        from linclass.linear.ordinal.summary import OrdinalSummary

        check_is_fitted(self)
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be in (0, 1); got {alpha!r}.")
        if ci != "wald" or cov_type != "nonrobust":
            raise ValueError(f"{type(self).__name__}.summary has Wald's table only (ci='wald', "
                             f"cov_type='nonrobust'); got ci={ci!r}, cov_type={cov_type!r}.")
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            names = [f"x{j}" for j in range(self.n_features_in_)]
        return OrdinalSummary.build(
            coef=self.coef_, thresholds=self.thresholds_, covariance=self.cov_params_,
            log_likelihood=self.log_likelihood_, null_log_likelihood=self.null_log_likelihood_,
            n_obs=self._n_obs, feature_names=names, classes=self.classes_, link=self.link,
            dep_variable=self._dep_variable, n_iter=self.n_iter_, converged=self.converged_,
            alpha=alpha, fitted_at=self._fitted_at)
