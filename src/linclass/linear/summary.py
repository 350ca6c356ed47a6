"""The inference table of a fitted logistic / softmax regression: :class:`Summary`, built by
:func:`summarize` (the one place a Summary is made), with statsmodels' names and layout.

A statsmodels user finds what ``Logit(...).fit()`` / ``MNLogit(...).fit()`` results offer, under
the same names: ``llf``, ``llnull``, ``llr``, ``llr_pvalue``, ``nobs``, ``df_model``, ``df_resid``,
``prsquared``, ``aic``, ``bic``, ``params``, ``bse``, ``tvalues`` (= ``zvalues``: Wald z statistics),
``pvalues`` and ``conf_int(alpha)``; ``print(summary)`` lays the table out as statsmodels' summary
does (coefficients to 4 decimals, the rest to 3).  The first names of this record (``coef``,
``std_err``, ``log_likelihood``, ``n_obs``, ``pseudo_r2``, ...) remain as they were.

The formulas are in :mod:`linclass.linear.inference`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.stats import chi2, norm

__all__ = ["Summary", "summarize"]

_WIDTH = 78  # the statistics above the table: two columns of 39 characters, as statsmodels'


@dataclass(frozen=True)
class Summary:
    """Inference table of a fitted logistic / softmax regression.

    ``print(summary)`` gives statsmodels' layout; :meth:`to_frame` a pandas DataFrame.

    Attributes (statsmodels' names)
    -------------------------------
    params, bse, tvalues, zvalues, pvalues
        Coefficients, standard errors, Wald z statistics (``tvalues`` is statsmodels' name for them
        in ``Logit``), two-sided p-values: a pandas Series indexed by parameter (two classes) or a
        DataFrame of parameters x equations (softmax), as statsmodels gives them; NumPy arrays of
        those shapes when pandas is not installed.
    llf, llnull, llr, llr_pvalue : float
        :math:`\\ell`, :math:`\\ell_0`, :math:`LR = 2(\\ell - \\ell_0)` and its
        :math:`\\chi^2_{df\\_model}` p-value.
    nobs, df_model, df_resid : float
        Observations (the sum of the frequency weights), :math:`(K-1)\\,d` and nobs minus the number
        of parameters.
    prsquared : float
        McFadden's :math:`1 - \\ell/\\ell_0`.
    aic, bic : float

    Attributes (the record's own)
    -----------------------------
    equations : list of str
        One name per block of parameters: '' for the log-odds of two classes, else each contrast.
    names : list of str
        Parameter names within a block ('intercept', then the feature names).
    coef, std_err, z, p_value, ci_lower, ci_upper : ndarray of shape (n_equations, n_names)
    log_likelihood, null_log_likelihood, lr_statistic, lr_df, lr_p_value, pseudo_r2, n_obs
        ``llf``, ``llnull``, ``llr``, ``df_model``, ``llr_pvalue``, ``prsquared``, ``nobs``.
    alpha : float
        The intervals ``ci_lower`` / ``ci_upper`` (and the printed ones) are :math:`1-\\alpha`
        confidence intervals; :meth:`conf_int` takes any alpha.
    title : str
    notes : list of str
        Caveats (penalised fit, separation, non-convergence).
    """

    equations: list
    names: list
    coef: np.ndarray
    std_err: np.ndarray
    z: np.ndarray
    p_value: np.ndarray
    ci_lower: np.ndarray
    ci_upper: np.ndarray
    log_likelihood: float
    null_log_likelihood: float
    lr_statistic: float
    lr_df: int
    lr_p_value: float
    pseudo_r2: float
    aic: float
    bic: float
    n_obs: float
    alpha: float
    title: str
    notes: list = field(default_factory=list)

    # ------------------------------------------------------------------ statsmodels' names
    @property
    def llf(self) -> float:
        return self.log_likelihood

    @property
    def llnull(self) -> float:
        return self.null_log_likelihood

    @property
    def llr(self) -> float:
        return self.lr_statistic

    @property
    def llr_pvalue(self) -> float:
        return self.lr_p_value

    @property
    def nobs(self) -> float:
        return self.n_obs

    @property
    def df_model(self) -> float:
        return float(self.lr_df)

    @property
    def df_resid(self) -> float:
        return float(self.n_obs - self.coef.size)

    @property
    def prsquared(self) -> float:
        return self.pseudo_r2

    @property
    def params(self):
        return self._labelled(self.coef)

    @property
    def bse(self):
        return self._labelled(self.std_err)

    @property
    def zvalues(self):
        return self._labelled(self.z)

    tvalues = zvalues

    @property
    def pvalues(self):
        return self._labelled(self.p_value)

    def conf_int(self, alpha: float = 0.05):
        """:math:`1-\\alpha` Wald intervals :math:`\\hat\\beta \\pm \\Phi^{-1}(1-\\alpha/2)\\,se`.

        Returns
        -------
        pandas DataFrame with columns 0 (lower) and 1 (upper), indexed by parameter (two classes)
        or by (equation, parameter) (softmax); without pandas an ndarray of shape (n_names, 2) or
        (n_equations * n_names, 2) in the same order.
        """
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be in (0, 1); got {alpha!r}.")
        q = norm.ppf(1 - alpha / 2)
        bounds = np.column_stack([(self.coef - q * self.std_err).reshape(-1),
                                  (self.coef + q * self.std_err).reshape(-1)])
        try:
            import pandas as pd
        except ImportError:
            return bounds
        return pd.DataFrame(bounds, index=self._index())

    def _index(self):
        import pandas as pd

        if len(self.equations) == 1:
            return pd.Index(self.names, name="parameter")
        return pd.MultiIndex.from_product([self.equations, self.names], names=["equation", "parameter"])

    def _labelled(self, values: np.ndarray):
        """Two classes: a Series over the parameters; softmax: parameters x equations."""
        try:
            import pandas as pd
        except ImportError:
            return values[0].copy() if len(self.equations) == 1 else values.T.copy()
        if len(self.equations) == 1:
            return pd.Series(values[0], index=pd.Index(self.names, name="parameter"))
        return pd.DataFrame(values.T, index=pd.Index(self.names, name="parameter"),
                            columns=pd.Index(self.equations, name="equation"))

    def to_frame(self):
        """The coefficient table as a pandas DataFrame (index: parameter, or (equation, parameter)
        for softmax).  Requires pandas (``pip install linclass[pandas]``)."""
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - pandas is in the test extras
            raise ImportError("Summary.to_frame() needs pandas: pip install 'linclass[pandas]'.") from exc
        lo, hi = f"[{self.alpha / 2:g}", f"{1 - self.alpha / 2:g}]"
        columns = {"coef": self.coef, "std err": self.std_err, "z": self.z, "P>|z|": self.p_value,
                   lo: self.ci_lower, hi: self.ci_upper}
        data = {k: np.asarray(v).reshape(-1) for k, v in columns.items()}
        return pd.DataFrame(data, index=self._index())

    # ------------------------------------------------------------------------------ printing
    def __str__(self) -> str:
        facts = [
            ("Model:", "Logit" if len(self.equations) == 1 else "MNLogit"),
            ("No. Observations:", f"{self.n_obs:g}"),
            ("Df Residuals:", f"{self.df_resid:g}"),
            ("Df Model:", f"{self.lr_df}"),
            ("Pseudo R-squ.:", f"{self.pseudo_r2:#.4g}"),
            ("Log-Likelihood:", f"{self.log_likelihood:#.5g}"),
            ("LL-Null:", f"{self.null_log_likelihood:#.5g}"),
            ("LLR p-value:", f"{self.lr_p_value:#.4g}"),
            ("AIC:", f"{self.aic:#.5g}"),
            ("BIC:", f"{self.bic:#.5g}"),
        ]
        half = (len(facts) + 1) // 2
        left, right = facts[:half], facts[half:] + [("", "")] * (2 * half - len(facts))
        lines = [self.title.center(_WIDTH).rstrip(), "=" * _WIDTH]
        for (a, b), (c, d) in zip(left, right):
            lines.append(f"{a:<20}{b:>19}   {c:<20}{d:>16}")
        width = max([len(n) for n in self.names] + [len(e) for e in self.equations] + [10]) + 2
        q = 1 - self.alpha / 2
        columns = ["coef", "std err", "z", "P>|z|", f"[{1 - q:g}", f"{q:g}]"]
        rule = width + 11 * len(columns)
        lines.append("=" * rule)
        for e, equation in enumerate(self.equations):
            if e:
                lines.append("-" * rule)
            lines.append(f"{equation:>{width}}" + "".join(f"{c:>11}" for c in columns))
            lines.append("-" * rule)
            for j, name in enumerate(self.names):
                cells = [_decimals(self.coef[e, j], 4), _decimals(self.std_err[e, j], 3),
                         _decimals(self.z[e, j], 3), f"{self.p_value[e, j]:.3f}",
                         _decimals(self.ci_lower[e, j], 3), _decimals(self.ci_upper[e, j], 3)]
                lines.append(f"{name:<{width}}" + "".join(f"{c:>11}" for c in cells))
        lines.append("=" * rule)
        lines += [f"Note: {note}" for note in self.notes]
        return "\n".join(line.rstrip() for line in lines)

    __repr__ = __str__


def _decimals(value: float, places: int) -> str:
    """``value`` to ``places`` decimals, or to ``places`` significant digits where decimals would
    hide it or overflow the column (below 1e-4 or from 1e4 in size), as statsmodels prints."""
    size = abs(value)
    if np.isfinite(value) and (size >= 1e4 or 0 < size < 1e-4):
        return f"{value:.{places}g}"
    return f"{value:.{places}f}"


def summarize(*, coef, intercept, covariance, log_likelihood, null_log_likelihood, n_obs,
              classes, feature_names, fit_intercept, alpha=0.05, notes=()) -> Summary:
    """Build a :class:`Summary` from user-facing parameters and their covariance: the one place a
    Summary is made.

    Parameters
    ----------
    coef : ndarray of shape (n_equations, n_features)
        Binary: the log-odds coefficients (one equation); softmax: contrasts against class 0.
    intercept : ndarray of shape (n_equations,)
    covariance : ndarray of shape (n_params, n_params)
        Covariance of the parameters in the order (equation-major) intercept, coef_1, ..., coef_d.
    """
    n_eq, d = coef.shape
    table = np.hstack([intercept[:, None], coef]) if fit_intercept else coef
    names = (["intercept"] if fit_intercept else []) + [str(f) for f in feature_names]
    se = np.sqrt(np.clip(np.diag(covariance), 0.0, None)).reshape(table.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, table / se, 0.0)
    p = 2 * norm.sf(np.abs(z))
    q = norm.ppf(1 - alpha / 2)
    k = table.size
    df = n_eq * d
    lr = max(2 * (log_likelihood - null_log_likelihood), 0.0)
    label = [repr(c) if isinstance(c, str) else str(c) for c in np.asarray(classes).tolist()]
    if len(label) == 2:
        title = f"Logistic regression: log-odds of class {label[1]} against class {label[0]}"
        equations = [""]
    else:
        title = f"Softmax regression: log-odds of each class against the reference class {label[0]}"
        equations = [f"class {c} vs {label[0]}" for c in label[1:]]
    return Summary(
        equations=equations, names=names, coef=table, std_err=se, z=z, p_value=p,
        ci_lower=table - q * se, ci_upper=table + q * se,
        log_likelihood=float(log_likelihood), null_log_likelihood=float(null_log_likelihood),
        lr_statistic=float(lr), lr_df=int(df), lr_p_value=float(chi2.sf(lr, df)) if df else 1.0,
        pseudo_r2=float(1 - log_likelihood / null_log_likelihood) if null_log_likelihood else 0.0,
        aic=float(-2 * log_likelihood + 2 * k), bic=float(-2 * log_likelihood + k * np.log(n_obs)),
        n_obs=float(n_obs), alpha=float(alpha), title=title, notes=list(notes),
    )
