"""The inference table of a proportional odds model, as MASS's ``summary(polr(...))`` gives it:
the coefficients, then the thresholds (polr's "Intercepts", named ``Low|Medium``), each with its
value, standard error and t value (Wald's z: the estimate over its standard error), then the
residual deviance and AIC; with statsmodels' names for the same numbers (``params``, ``bse``,
``tvalues``, ``pvalues``, ``conf_int()``, ``cov_params()``, ``llf``, ``aic``, ...), as its
``OrderedModel`` results give them.  Laid out as the logistic tables are
(:mod:`linclass.linear.inference.table_layout`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np
from scipy.stats import chi2, norm

from linclass.linear.inference.table_layout import (
    decimals,
    fit_clock,
    header_lines,
    likelihood_facts,
)

__all__ = ["OrdinalSummary", "threshold_names"]


def threshold_names(classes) -> list:
    """polr's names of the thresholds: adjacent classes joined by '|' (``Low|Medium``)."""
    labels = [str(c) for c in np.asarray(classes).tolist()]
    return [f"{lo}|{hi}" for lo, hi in zip(labels[:-1], labels[1:])]


def _by_parameter(name: str, doc: str) -> property:
    """statsmodels' name for the array field ``name``: a pandas Series indexed by parameter name
    (the array itself where pandas is not installed)."""
    return property(lambda self: self._series(getattr(self, name)), doc=doc)


@dataclass(frozen=True)
class OrdinalSummary:
    """Inference table of a fitted :class:`~linclass.OrderedLogisticRegression`.

    ``print(summary)`` gives the table; :meth:`to_frame` a pandas DataFrame.

    Attributes
    ----------
    names : list of str
        The coefficients' names (the features').
    threshold_names : list of str
        The thresholds' names, ``'Low|Medium'`` (polr's).
    coef, std_err, z : ndarray of shape (n_features + n_classes - 1,)
        Estimates, standard errors (the inverse observed information's diagonal) and their ratio
        (polr's "t value"), coefficients first, then thresholds.
    p_value : ndarray of that shape
        Two-sided normal p-values of the ratios.
    covariance : ndarray of shape (n_params, n_params)
        polr's ``vcov``.
    log_likelihood, null_log_likelihood : float
    n_obs : float
        The sum of the frequency weights.
    link, dep_variable : str
    n_iter : int
    converged : bool
    alpha : float
        The printed intervals are :math:`1-\\alpha` Wald intervals.
    fitted_at : float
        Seconds since the epoch (printed as Date and Time).

    statsmodels' names: ``params``, ``bse``, ``tvalues``, ``pvalues`` (pandas Series indexed by
    parameter), ``llf``, ``llnull``, ``llr``, ``llr_pvalue``, ``prsquared``, ``nobs``,
    ``df_model``, ``df_resid``, ``aic``, ``bic``; R's ``deviance`` (the residual deviance,
    :math:`-2\\ell`) and ``edf``.
    """

    names: list
    threshold_names: list
    coef: np.ndarray
    std_err: np.ndarray
    z: np.ndarray
    p_value: np.ndarray
    covariance: np.ndarray = field(repr=False)
    log_likelihood: float
    null_log_likelihood: float
    n_obs: float
    link: str = "logit"
    dep_variable: str = "y"
    n_iter: int | None = None
    converged: bool | None = None
    alpha: float = 0.05
    fitted_at: float = field(default_factory=time.time)

    @classmethod
    def build(cls, *, coef, thresholds, covariance, log_likelihood, null_log_likelihood, n_obs,
              feature_names, classes, **facts) -> OrdinalSummary:
        """The table of a fit: parameters, their covariance and the fit's facts."""
        params = np.concatenate([coef, thresholds]).astype(np.float64)
        se = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(se > 0, params / se, np.nan)
        return cls(names=[str(f) for f in feature_names], threshold_names=threshold_names(classes),
                   coef=params, std_err=se, z=z, p_value=2 * norm.sf(np.abs(z)),
                   covariance=np.asarray(covariance, dtype=np.float64),
                   log_likelihood=float(log_likelihood),
                   null_log_likelihood=float(null_log_likelihood), n_obs=float(n_obs), **facts)

    def with_levels(self, levels) -> OrdinalSummary:
        """The table with the thresholds named by ``levels`` (a response fitted as level codes)."""
        return replace(self, threshold_names=threshold_names(levels))

    # ------------------------------------------------------------------------- statistics
    @property
    def edf(self) -> int:
        """The number of parameters (R's ``edf``)."""
        return int(self.coef.size)

    @property
    def deviance(self) -> float:
        """The residual deviance :math:`-2\\ell` (polr's)."""
        return -2.0 * self.log_likelihood

    @property
    def aic(self) -> float:
        return self.deviance + 2.0 * self.edf

    @property
    def bic(self) -> float:
        return self.deviance + np.log(self.n_obs) * self.edf

    @property
    def df_model(self) -> float:
        return float(len(self.names))

    @property
    def df_resid(self) -> float:
        """Observations less parameters (polr's ``df.residual``)."""
        return float(self.n_obs - self.edf)

    @property
    def llf(self) -> float:
        return self.log_likelihood

    @property
    def llnull(self) -> float:
        return self.null_log_likelihood

    @property
    def llr(self) -> float:
        """The likelihood-ratio statistic against the model without features."""
        return max(2.0 * (self.log_likelihood - self.null_log_likelihood), 0.0)

    @property
    def llr_pvalue(self) -> float:
        return float(chi2.sf(self.llr, self.df_model)) if self.df_model else 1.0

    @property
    def prsquared(self) -> float:
        """McFadden's :math:`1 - \\ell / \\ell_0`."""
        return 1.0 - self.log_likelihood / self.null_log_likelihood if self.null_log_likelihood else 0.0

    @property
    def nobs(self) -> float:
        return self.n_obs

    # ------------------------------------------------------------------ labelled columns
    def _index(self):
        import pandas as pd

        return pd.Index(self.names + self.threshold_names, name="parameter")

    def _series(self, values):
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - pandas is in the test extras
            return values.copy()
        return pd.Series(values, index=self._index())

    params = _by_parameter("coef", "Coefficients then thresholds, by name.")
    bse = _by_parameter("std_err", "Standard errors, by name.")
    tvalues = _by_parameter("z", "Wald's z, the estimates over their standard errors, by name.")
    pvalues = _by_parameter("p_value", "Two-sided normal p-values of ``tvalues``, by name.")

    def conf_int(self, alpha: float = 0.05):
        """Wald intervals :math:`\\hat\\theta \\pm \\Phi^{-1}(1-\\alpha/2)\\,se` (R's
        ``confint.default``): a DataFrame with columns 0 and 1 indexed by parameter."""
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be in (0, 1); got {alpha!r}.")
        q = norm.ppf(1 - alpha / 2)
        bounds = np.column_stack([self.coef - q * self.std_err, self.coef + q * self.std_err])
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover
            return bounds
        return pd.DataFrame(bounds, index=self._index())

    def cov_params(self):
        """polr's ``vcov``: a DataFrame indexed by parameter (rows and columns)."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover
            return self.covariance.copy()
        index = self._index()
        return pd.DataFrame(self.covariance, index=index, columns=index)

    def to_frame(self):
        """The table as a DataFrame: Value, Std. Error, t value, p value, one row per parameter."""
        import pandas as pd

        return pd.DataFrame({"Value": self.coef, "Std. Error": self.std_err, "t value": self.z,
                             "p value": self.p_value}, index=self._index())

    # ------------------------------------------------------------------------- printing
    def __str__(self) -> str:
        date, clock = fit_clock(self.fitted_at)
        left = [("Dep. Variable:", self.dep_variable), ("Model:", "OrderedModel"),
                ("Link:", self.link), ("Method:", "MLE"), ("Date:", date), ("Time:", clock),
                ("converged:", "" if self.converged is None else str(bool(self.converged))),
                ("Iterations:", "" if self.n_iter is None else str(self.n_iter))]
        right = likelihood_facts(n_obs=self.n_obs, df_resid=self.df_resid, df_model=self.df_model,
                                 pseudo_r2=self.prsquared, log_likelihood=self.log_likelihood,
                                 null_log_likelihood=self.null_log_likelihood,
                                 lr_p_value=self.llr_pvalue, aic=self.aic, bic=self.bic)
        labels = self.names + self.threshold_names
        width = max([len(n) for n in labels] + [12]) + 2
        columns = ["Value", "Std. Error", "t value", "p value"]
        table = []
        for title, rows in (("Coefficients", range(len(self.names))),
                            ("Intercepts", range(len(self.names), len(labels)))):
            if table:
                table.append("-")
            table.append(f"{title:<{width}}" + "".join(f"{c:>12}" for c in columns))
            table.append("-")
            for j in rows:
                cells = [decimals(self.coef[j], 4), decimals(self.std_err[j], 4),
                         decimals(self.z[j], 3), f"{self.p_value[j]:.3f}"]
                table.append(f"{labels[j]:<{width}}" + "".join(f"{c:>12}" for c in cells))
        title = f"Proportional odds model ({self.link} link): P(y <= k) = F(zeta_k - x'beta)"
        tail = [f"Residual Deviance: {self.deviance:.3f}", f"AIC: {self.aic:.3f}"]  # polr's
        return "\n".join(header_lines(title, left, right, table) + tail)

    __repr__ = __str__
