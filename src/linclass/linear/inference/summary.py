"""The inference table of a fitted logistic / softmax regression: :class:`Summary`, built by
:func:`summarize` (the one place a Summary is made), with statsmodels' names and layout.

A statsmodels user finds what ``Logit(...).fit()`` / ``MNLogit(...).fit()`` results offer, under
the same names: ``llf``, ``llnull``, ``llr``, ``llr_pvalue``, ``nobs``, ``df_model``, ``df_resid``,
``prsquared``, ``aic``, ``bic``, ``params``, ``bse``, ``tvalues`` (= ``zvalues``: Wald z statistics),
``pvalues`` and ``conf_int(alpha)``; ``print(summary)`` lays the table out as statsmodels' summary
does: the header's Dep. Variable, Model, Method, Date, Time, converged and Covariance Type rows
beside the statistics (and the solver and its iterations), the constant named ``const``,
coefficients to 4 decimals, the rest to 3, rules as wide as the widest line.  The first names of
this record (``coef``, ``std_err``, ``log_likelihood``, ``n_obs``, ``pseudo_r2``, ...) remain as
they were.

A table with profile intervals (``summary(ci='profile')``: Firth's penalised likelihood, or the
likelihood of an unpenalised fit, :mod:`linclass.linear.inference.profile`) has likelihood-ratio
tests in place of Wald's: its columns are ``chi2`` (the LR statistic) and ``P>chi2``, and
``conf_int()`` is the profile interval the table prints.  The header's Covariance Type names the
covariance of the standard errors (``summary(cov_type=...)``,
:mod:`linclass.linear.inference.sandwich`).

The formulas are in :mod:`linclass.linear.inference.wald`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.stats import chi2, norm

from linclass.linear.inference.table_formats import TableOutput
from linclass.linear.inference.table_layout import (
    HeaderFacts,
    decimals,
    fit_clock,
    header_lines,
    likelihood_facts,
)

__all__ = ["CONSTANT", "Summary", "binary_title", "level_name", "softmax_names", "summarize"]

CONSTANT = "const"  # the intercept's name in the tables, as statsmodels' add_constant names it


def _alias(name: str) -> property:
    """statsmodels' name for the record's field ``name``, read-only."""
    return property(lambda self: getattr(self, name),
                    doc=f"The field ``{name}`` under statsmodels' name.")


def _labelled_alias(name: str) -> property:
    """statsmodels' name for the column ``name`` of the table, labelled by parameter (and
    equation) as statsmodels gives it (:meth:`Summary._labelled`)."""
    return property(lambda self: self._labelled(getattr(self, name)),
                    doc=f"The column ``{name}``, labelled, under statsmodels' name.")


@dataclass(frozen=True)
class Summary(TableOutput, HeaderFacts):
    """Inference table of a fitted logistic / softmax regression.

    ``print(summary)`` gives statsmodels' layout; :meth:`to_frame` a pandas DataFrame; a notebook
    shows it as HTML (``_repr_html_``); ``as_text()``, ``as_html()`` and ``as_latex()`` as
    statsmodels' summaries (:class:`~linclass.linear.inference.table_formats.TableOutput`).

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
        Observations (the sum of the frequency weights; for a grouped binomial response, the rows
        of counts, as R's ``nobs``), :math:`(K-1)\\,d` and nobs minus the number of parameters.
    prsquared : float
        McFadden's :math:`1 - \\ell/\\ell_0`.
    aic, bic : float

    Attributes (the record's own)
    -----------------------------
    equations : list of str
        One name per block of parameters: '' for the log-odds of two classes, else the class each
        contrast is the log-odds of (against the reference the title names), by the response and
        its level: ``'PID=1'`` (as statsmodels' MNLogit, and the marginal effects' table).
    names : list of str
        Parameter names within a block ('const', then the feature names).
    coef, std_err, z, p_value, ci_lower, ci_upper : ndarray of shape (n_equations, n_names)
        ``z`` is Wald's statistic; ``p_value``, ``ci_lower`` and ``ci_upper`` are Wald's, or with
        ``ci='profile'`` the likelihood-ratio tests' p-values and the profile intervals.
    log_likelihood, null_log_likelihood, lr_statistic, lr_df, lr_p_value, pseudo_r2, n_obs
        ``llf``, ``llnull``, ``llr``, ``df_model``, ``llr_pvalue``, ``prsquared``, ``nobs``.
    alpha : float
        The intervals ``ci_lower`` / ``ci_upper`` (and the printed ones) are :math:`1-\\alpha`
        confidence intervals; :meth:`conf_int` takes any alpha.
    title : str
    notes : list of str
        Caveats (penalised fit, separation, non-convergence).
    ci : {'wald', 'profile'}
        Which intervals and tests the table holds.
    chi2 : ndarray of shape (n_equations, n_names) or None
        With ``ci='profile'``: the likelihood-ratio statistics of the tests.
    dep_variable, method, solver, n_iter, converged, covariance_type, fitted_at
        The header's facts: the name of y ('y' when it had none), the estimation method ('MLE',
        'L2-penalised ML', 'Firth-penalised ML'), the solver and its iterations, whether it
        converged, the covariance ('nonrobust': the inverse information; 'HC0', 'HC1', 'cluster':
        the sandwich of ``summary(cov_type=...)``) and the time of the fit
        (seconds since the epoch; printed as Date and Time).
    n_clusters, cluster_correction : int and str, or None
        With ``cov_type='cluster'``: the number of clusters and the small-sample factor's name
        ('stata': G/(G-1), 'statsmodels': G/(G-1) (N-1)/(N-k), 'none'), printed in the header
        (:data:`linclass.linear.inference.sandwich.CLUSTER_CORRECTIONS`).
    saturated_log_likelihood : float
        :math:`\\ell_{sat}`, the log-likelihood of the saturated model, from which ``deviance``
        and ``null_deviance`` are measured: 0 for rows of 0/1 labels; for a grouped binomial
        response (successes, failures), that of the groups' own proportions
        (:mod:`linclass.linear.logistic.grouped`).
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
    ci: str = "wald"
    chi2: np.ndarray | None = None
    converged: bool | None = None
    covariance_type: str = "nonrobust"
    n_clusters: int | None = None
    cluster_correction: str | None = None
    covariance: np.ndarray | None = field(default=None, repr=False)
    saturated_log_likelihood: float = 0.0

    # ------------------------------------------------------------------ statsmodels' names
    llf = _alias("log_likelihood")
    llnull = _alias("null_log_likelihood")
    llr = _alias("lr_statistic")
    llr_pvalue = _alias("lr_p_value")
    nobs = _alias("n_obs")
    prsquared = _alias("pseudo_r2")
    params = _labelled_alias("coef")
    bse = _labelled_alias("std_err")
    zvalues = _labelled_alias("z")
    tvalues = zvalues
    pvalues = _labelled_alias("p_value")

    @property
    def df_model(self) -> float:
        return float(self.lr_df)

    @property
    def df_resid(self) -> float:
        """Observations less the estimated parameters (aliased ones, NA, do not count)."""
        return float(self.n_obs - np.sum(np.isfinite(self.coef)))

    @property
    def deviance(self) -> float:
        """The residual deviance :math:`2(\\ell_{sat} - \\ell)` (R's summary.glm): :math:`-2\\ell`
        for rows of 0/1 labels, whose saturated model has log-likelihood 0; for grouped counts,
        against the saturated model of the groups (``saturated_log_likelihood``)."""
        return 2.0 * (self.saturated_log_likelihood - self.log_likelihood)

    @property
    def null_deviance(self) -> float:
        """The null deviance :math:`2(\\ell_{sat} - \\ell_0)`, of the intercept-only model."""
        return 2.0 * (self.saturated_log_likelihood - self.null_log_likelihood)

    @property
    def df_null(self) -> float:
        """The null model's residual degrees of freedom, the observations (the sum of the frequency
        weights, as statsmodels' ``freq_weights``) less its parameters (one intercept per
        equation; none without an intercept)."""
        return float(self.n_obs - (len(self.equations) if CONSTANT in self.names else 0))

    @property
    def aliased(self) -> list:
        """The names of the parameters R reports as NA (aliased, i.e. linear combinations of the
        columns before them; empty for a full-rank fit)."""
        bad = np.isnan(self.coef).any(axis=0)
        return [name for name, b in zip(self.names, bad) if b]

    def cov_params(self):
        """The covariance matrix of the parameters (R's ``vcov``, statsmodels' ``cov_params()``),
        the one the standard errors come from (robust with a ``cov_type``).

        Returns
        -------
        DataFrame or ndarray
            pandas DataFrame indexed (rows and columns) by parameter, or by (equation, parameter) for
            softmax; without pandas an ndarray in the same order.
        """
        if self.covariance is None:
            raise ValueError("This table holds no covariance matrix (made before it was recorded).")
        cov = np.array(self.covariance, dtype=np.float64)
        try:
            import pandas as pd
        except ImportError:
            return cov
        index = self._index()
        return pd.DataFrame(cov, index=index, columns=index)

    def wald_test(self, R, q=None):
        """Wald test of the linear hypothesis :math:`R\\beta = q` on the parameters, as statsmodels'
        ``wald_test`` (a chi-squared test): ``R`` an array (one column per parameter, in the
        table's order) with ``q`` (default 0), or text such as ``"age = 0, lwt = 0"`` or
        ``"smoke - ht = 0"`` on the parameters' names (two classes).  Returns a
        :class:`~linclass.linear.inference.hypotheses.WaldTest` (``statistic``, ``df``,
        ``pvalue``)."""
        from linclass.linear.inference.hypotheses import constraints, wald_test

        if self.covariance is None:
            raise ValueError("This table holds no covariance matrix (made before it was recorded).")
        if isinstance(R, str):
            if q is not None:
                raise ValueError("q goes with an array R; a text hypothesis carries its own "
                                 "right-hand sides.")
            if len(self.equations) > 1:
                raise ValueError("Text hypotheses name the parameters of two-class fits; for "
                                 "softmax give R as an array (one column per parameter, "
                                 "equation-major).")
            R, q = constraints(R, list(self.names))
        return wald_test(self.coef, self.covariance, R, q)

    def conf_int(self, alpha: float = 0.05):
        """:math:`1-\\alpha` confidence intervals: Wald's :math:`\\hat\\beta \\pm
        \\Phi^{-1}(1-\\alpha/2)\\,se`, or the profile intervals of a ``ci='profile'`` table (those
        it prints; computed for its ``alpha`` only).

        Returns
        -------
        DataFrame or ndarray
            pandas DataFrame with columns 0 (lower) and 1 (upper), indexed by parameter (two classes)
            or by (equation, parameter) (softmax); without pandas an ndarray of shape (n_names, 2) or
            (n_equations * n_names, 2) in the same order.
        """
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be in (0, 1); got {alpha!r}.")
        if self.ci == "profile":
            if abs(alpha - self.alpha) > 1e-12:
                raise ValueError(f"This table's profile intervals are for alpha={self.alpha:g}; "
                                 f"use conf_int(alpha={self.alpha:g}), or the Wald intervals of "
                                 f"summary(ci='wald').conf_int(alpha={alpha:g}).")
            lower, upper = self.ci_lower, self.ci_upper
        else:
            q = norm.ppf(1 - alpha / 2)
            lower, upper = self.coef - q * self.std_err, self.coef + q * self.std_err
        bounds = np.column_stack([lower.reshape(-1), upper.reshape(-1)])
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
        data = {k: np.asarray(v).reshape(-1) for k, v in zip(self._columns(), self._values())}
        return pd.DataFrame(data, index=self._index())

    def odds_ratios(self, alpha: float | None = None):
        """The coefficients as odds ratios, :math:`e^{\\hat\\beta}`, with their intervals
        :math:`[e^{l}, e^{u}]`: the table's intervals exponentiated, Wald's or, for a
        ``ci='profile'`` table, the profile likelihood's.  R's
        ``exp(cbind(coef(m), confint.default(m)))`` (Wald) and ``exp(cbind(coef(m),
        confint(m)))`` (profile), Stata's ``logit, or``; for softmax the relative-risk ratios of
        each class against the reference (Stata's ``mlogit, rrr``).

        Parameters
        ----------
        alpha : float or None, default=None
            :math:`1-\\alpha` intervals; None: the table's ``alpha``.  A profile table has its
            intervals for its own ``alpha`` only (:meth:`conf_int`).

        Returns
        -------
        DataFrame
            pandas DataFrame indexed as :meth:`to_frame`, with columns ``Odds Ratio``,
            ``std err`` (Stata's, by the delta method: :math:`e^{\\hat\\beta}\\,se`), the test's
            two columns (Wald's ``z``, ``P>|z|``, or the likelihood-ratio ``chi2``, ``P>chi2``: the
            tests of :math:`\\beta = 0`, i.e. an odds ratio of 1) and the interval's bounds.

        Raises
        ------
        ImportError
            Without pandas (``pip install linclass[pandas]``), as :meth:`to_frame`.
        """
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - pandas is in the test extras
            raise ImportError("Summary.odds_ratios() needs pandas: pip install "
                              "'linclass[pandas]'.") from exc
        alpha = self.alpha if alpha is None else float(alpha)
        bounds = np.asarray(self.conf_int(alpha), dtype=np.float64)
        coef = self.coef.reshape(-1)
        ratio = np.exp(coef)
        columns = self._columns()
        data = {"Odds Ratio": ratio, "std err": ratio * self.std_err.reshape(-1),
                columns[2]: self._values()[2].reshape(-1), columns[3]: self.p_value.reshape(-1),
                f"[{alpha / 2:g}": np.exp(bounds[:, 0]), f"{1 - alpha / 2:g}]": np.exp(bounds[:, 1])}
        return pd.DataFrame(data, index=self._index())

    def _columns(self) -> list:
        """The table's column names: Wald's ``z`` / ``P>|z|``, or the likelihood-ratio tests'
        ``chi2`` / ``P>chi2``."""
        tests = ["chi2", "P>chi2"] if self.ci == "profile" else ["z", "P>|z|"]
        return ["coef", "std err", *tests, f"[{self.alpha / 2:g}", f"{1 - self.alpha / 2:g}]"]

    def _values(self) -> list:
        statistic = self.chi2 if self.ci == "profile" else self.z
        return [self.coef, self.std_err, statistic, self.p_value, self.ci_lower, self.ci_upper]

    # ------------------------------------------------------------------------------ printing
    def _header(self) -> tuple[list, list]:
        """The header's (label, value) pairs: the left column and the right one."""
        date, clock = fit_clock(self.fitted_at)
        left = [("Dep. Variable:", self.dep_variable),
                ("Model:", "Logit" if len(self.equations) == 1 else "MNLogit"),
                ("Method:", self.method), ("Date:", date), ("Time:", clock),
                ("converged:", "" if self.converged is None else str(bool(self.converged))),
                ("Covariance Type:", self.covariance_type),
                *_cluster_facts(self.n_clusters, self.cluster_correction),
                ("Solver:", self.solver or ""),
                ("Iterations:", "" if self.n_iter is None else str(self.n_iter))]
        right = likelihood_facts(n_obs=self.n_obs, df_resid=self.df_resid, df_model=self.lr_df,
                                 pseudo_r2=self.pseudo_r2, log_likelihood=self.log_likelihood,
                                 null_log_likelihood=self.null_log_likelihood,
                                 lr_p_value=self.lr_p_value, aic=self.aic, bic=self.bic)
        return left, right

    def _blocks(self) -> list:
        """``(equation, rows)`` per equation, ``rows`` the printed ``(name, cells)``."""
        blocks = []
        for e, equation in enumerate(self.equations):
            rows = []
            for j, name in enumerate(self.names):
                cells = [decimals(self.coef[e, j], 4), decimals(self.std_err[e, j], 3),
                         decimals(self._values()[2][e, j], 3), f"{self.p_value[e, j]:.3f}",
                         decimals(self.ci_lower[e, j], 3), decimals(self.ci_upper[e, j], 3)]
                if np.isnan(self.coef[e, j]):  # aliased: R's NA
                    cells = ["NA"] * len(cells)
                rows.append((name, cells))
            blocks.append((equation, rows))
        return blocks

    def _footer(self) -> list:
        """The lines below the table: R's deviances (summary.glm), then each of ``notes``."""
        return [f"Null deviance: {self.null_deviance:.2f} on {self.df_null:g} degrees of freedom",
                f"Residual deviance: {self.deviance:.2f} on {self.df_resid:g} degrees of freedom",
                *[f"Note: {note}" for note in self.notes]]

    def __str__(self) -> str:
        left, right = self._header()
        width = max([len(n) for n in self.names] + [len(e) for e in self.equations] + [10]) + 2
        table = []
        for e, (equation, rows) in enumerate(self._blocks()):
            if e:
                table.append("-")
            table.append(f"{equation:>{width}}" + "".join(f"{c:>11}" for c in self._columns()))
            table.append("-")
            table += [f"{name:<{width}}" + "".join(f"{c:>11}" for c in cells)
                      for name, cells in rows]
        return "\n".join(header_lines(self.title, left, right, table) + self._footer())

    __repr__ = __str__


def _cluster_facts(n_clusters, correction) -> list:
    """The header's rows on a cluster covariance: the number of clusters and the factor."""
    if correction is None:
        return []
    from linclass.linear.inference.sandwich import CLUSTER_CORRECTIONS

    return [("No. Clusters:", "" if n_clusters is None else str(n_clusters)),
            ("Cluster Correction:", CLUSTER_CORRECTIONS[correction][0])]


def binary_title(classes) -> str:
    """What a two-class table's title says it models: "log-odds of class 1 against class 0"."""
    label = [repr(c) if isinstance(c, str) else str(c) for c in np.asarray(classes).tolist()]
    return f"log-odds of class {label[1]} against class {label[0]}"


def level_name(dep_variable: str, level) -> str:
    """A class as the tables name it, by the response and its level: ``PID=1``, ``type=WinF`` (as
    statsmodels' MNLogit and Stata's mlogit name their equations)."""
    level = level.item() if isinstance(level, np.generic) else level
    return f"{dep_variable}={level}"


def softmax_names(classes, dep_variable: str) -> tuple[str, list]:
    """The title and the equations' names of a softmax table whose first class of ``classes``
    is the reference: one equation per other class, named by the response and the level."""
    classes = list(np.asarray(classes).tolist())
    title = ("Softmax regression: log-odds of each class against the reference "
             f"{level_name(dep_variable, classes[0])}")
    return title, [level_name(dep_variable, c) for c in classes[1:]]


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
    names = ([CONSTANT] if fit_intercept else []) + [str(f) for f in feature_names]
    variance = np.diag(covariance).reshape(table.shape)
    aliased = np.isnan(variance)  # R's NA coefficients (linclass.linear.logistic.aliasing)
    table = np.where(aliased, np.nan, table)
    se = np.sqrt(np.clip(variance, 0.0, None))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(aliased, np.nan, np.where(se > 0, table / se, 0.0))
    p = 2 * norm.sf(np.abs(z))
    q = norm.ppf(1 - alpha / 2)
    k = int(np.sum(~aliased))  # the model's rank
    df = k - (n_eq if fit_intercept else 0)
    if np.any(aliased):
        count = int(aliased[0].sum()) if n_eq == 1 else int(aliased.sum())
        which = [names[j] for j in np.flatnonzero(aliased.any(axis=0))]
        notes = [*notes, f"{count} coefficient{'s' if count > 1 else ''} not defined because of "
                 f"singularities (NA, as R reports them): {', '.join(which)} "
                 f"{'is a linear combination' if len(which) == 1 else 'are linear combinations'} "
                 "of the columns before (0 in coef_, which leaves the fitted probabilities as they "
                 "are)."]
    lr = max(2 * (log_likelihood - null_log_likelihood), 0.0)
    if len(classes) == 2:
        title = f"Logistic regression: {binary_title(classes)}"
        equations = [""]
    else:
        title, equations = softmax_names(classes, "y")
    return Summary(
        equations=equations, names=names, coef=table, std_err=se, z=z, p_value=p,
        ci_lower=table - q * se, ci_upper=table + q * se,
        log_likelihood=float(log_likelihood), null_log_likelihood=float(null_log_likelihood),
        lr_statistic=float(lr), lr_df=int(df), lr_p_value=float(chi2.sf(lr, df)) if df else 1.0,
        pseudo_r2=float(1 - log_likelihood / null_log_likelihood) if null_log_likelihood else 0.0,
        aic=float(-2 * log_likelihood + 2 * k), bic=float(-2 * log_likelihood + k * np.log(n_obs)),
        n_obs=float(n_obs), alpha=float(alpha), title=title, notes=list(notes),
        covariance=np.asarray(covariance, dtype=np.float64),
    )
