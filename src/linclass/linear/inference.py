"""Statistical inference for fitted logistic / softmax regression: standard errors, Wald tests,
confidence intervals, the likelihood-ratio test against the null model, pseudo R², AIC and BIC.

For the maximum-likelihood estimate :math:`\\hat\\theta` the asymptotic covariance is the inverse of
the observed information, :math:`\\widehat{\\mathrm{Cov}}(\\hat\\theta) = H(\\hat\\theta)^{-1}` with
:math:`H = X^TWX` (seed 000 sec. 2.3; for logistic regression the observed and expected information
coincide).  A reported parameter :math:`\\beta = J\\theta` (coefficients on the original features,
softmax contrasts against the reference class) has covariance :math:`J H^{-1} J^T`.  Then

.. math::

    z_j = \\hat\\beta_j / \\mathrm{se}_j, \\qquad p_j = 2\\,\\Phi(-|z_j|), \\qquad
    \\hat\\beta_j \\pm \\Phi^{-1}(1-\\alpha/2)\\,\\mathrm{se}_j,

    LR = 2(\\ell - \\ell_0) \\sim \\chi^2_{df}, \\quad R^2_{McF} = 1 - \\ell/\\ell_0, \\quad
    AIC = -2\\ell + 2k, \\quad BIC = -2\\ell + k\\ln N.

Softmax parameters are reported as statsmodels' ``MNLogit`` reports them: for each class
:math:`k \\ge 1`, the contrast :math:`\\theta_k - \\theta_0` against the first class, which is
identifiable (the sum-to-zero coefficients themselves are not separately estimable without the
constraint).  Penalised fits use the penalised Hessian (the covariance of the Gaussian-prior posterior
approximation); their estimates are shrunk towards zero, so the tests and intervals are not valid
frequentist inference, and the summary says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.stats import chi2, norm

__all__ = ["Summary", "summarize"]


@dataclass(frozen=True)
class Summary:
    """Inference table of a fitted logistic / softmax regression.

    ``str(summary)`` prints a readable table; :meth:`to_frame` gives a pandas DataFrame.

    Attributes
    ----------
    equations : list of str
        One name per block of parameters: the class of the log-odds (binary) or of each contrast.
    names : list of str
        Parameter names within a block ('intercept', then the feature names).
    coef, std_err, z, p_value, ci_lower, ci_upper : ndarray of shape (n_equations, n_names)
    log_likelihood, null_log_likelihood : float
    lr_statistic, lr_df, lr_p_value : float, int, float
    pseudo_r2 : float
        McFadden's :math:`1 - \\ell/\\ell_0`.
    aic, bic : float
    n_obs : float
        Number of observations (sum of the frequency weights).
    alpha : float
        The intervals are :math:`1-\\alpha` confidence intervals.
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
        if len(self.equations) == 1:
            index = pd.Index(self.names, name="parameter")
        else:
            index = pd.MultiIndex.from_product([self.equations, self.names],
                                               names=["equation", "parameter"])
        return pd.DataFrame(data, index=index)

    def __str__(self) -> str:
        width = max([len(n) for n in self.names] + [12])
        lines = [self.title, "=" * (width + 68)]
        facts = [
            ("No. observations", f"{self.n_obs:g}"), ("Log-likelihood", f"{self.log_likelihood:.6g}"),
            ("Df model", f"{self.lr_df}"), ("Null log-likelihood", f"{self.null_log_likelihood:.6g}"),
            ("Pseudo R-squ. (McFadden)", f"{self.pseudo_r2:.4f}"),
            (f"LR chi2({self.lr_df})", f"{self.lr_statistic:.6g}"),
            ("AIC", f"{self.aic:.6g}"), ("LR p-value", f"{self.lr_p_value:.4g}"),
            ("BIC", f"{self.bic:.6g}"), ("", ""),
        ]
        for left, right in zip(facts[::2], facts[1::2]):
            lines.append(f"{left[0] + ':':<26}{left[1]:>12}      {right[0] + ':' if right[0] else '':<22}"
                         f"{right[1]:>12}")
        q = 1 - self.alpha / 2
        header = (f"{'':<{width}} {'coef':>11} {'std err':>11} {'z':>8} {'P>|z|':>8} "
                  f"{f'[{1 - q:g}':>11} {f'{q:g}]':>11}")
        for e, equation in enumerate(self.equations):
            lines += ["=" * (width + 68), f"{equation}" if equation else header]
            if equation:
                lines.append(header)
            lines.append("-" * (width + 68))
            for j, name in enumerate(self.names):
                lines.append(
                    f"{name:<{width}} {self.coef[e, j]:>11.4g} {self.std_err[e, j]:>11.4g} "
                    f"{self.z[e, j]:>8.3f} {self.p_value[e, j]:>8.3f} {self.ci_lower[e, j]:>11.4g} "
                    f"{self.ci_upper[e, j]:>11.4g}"
                )
        lines.append("=" * (width + 68))
        lines += [f"Note: {note}" for note in self.notes]
        return "\n".join(line.rstrip() for line in lines)

    __repr__ = __str__


def summarize(*, coef, intercept, covariance, log_likelihood, null_log_likelihood, n_obs,
              classes, feature_names, fit_intercept, alpha=0.05, notes=()) -> Summary:
    """Build a :class:`Summary` from user-facing parameters and their covariance.

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
