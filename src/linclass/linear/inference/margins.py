"""Marginal effects of a logistic / softmax fit and their delta-method standard errors, as
statsmodels' ``get_margeff(at=, method=, dummy=, count=)`` of ``Logit`` / ``MNLogit`` defines them.

With the reported parameters of :mod:`linclass.linear.inference.sandwich` (per equation
:math:`l = 1..K-1` the intercept and coefficients of the contrast against class 0, :math:`B_0 = 0`),
:math:`P_k(x) = \\mathrm{softmax}_k(b + Bx)` (two classes: :math:`P_1 = \\sigma`, and only class 1
is reported) and :math:`\\bar\\beta(x) = \\sum_m P_m B_m`,

.. math::

    \\frac{\\partial P_k}{\\partial x_j} = P_k\\,(B_{kj} - \\bar\\beta_j) = P_k D_{kj},

(Greene 2012, *Econometric Analysis*, eq. 18-12) and the four ``method``\\ s transform it per row:
``dydx`` :math:`P_kD_{kj}`, ``eydx`` :math:`D_{kj}` (:math:`\\partial\\ln P_k/\\partial x_j`),
``dyex`` :math:`P_kD_{kj}x_j`, ``eyex`` :math:`D_{kj}x_j`.  ``at`` says where: 'overall' averages
the rows' effects (weighted by the frequency weights), 'mean' / 'median' / 'zero' evaluate them at
the (weighted) mean, median or zero of the features (the constant stays 1).  A binary (0/1) column
with ``dummy=True`` takes the discrete change :math:`g(P_k|_{x_j=1}) - g(P_k|_{x_j=0})`, a count
column with ``count=True`` :math:`(g(P_k|_{x_j+1}) - g(P_k|_{x_j-1}))/2`, with :math:`g` the identity
('dydx') or the logarithm ('eydx').

Standard errors by the delta method, :math:`\\mathrm{Cov}(\\hat m) = G\\,V\\,G^T` with :math:`V` the
covariance of the reported parameters and :math:`G = \\partial m/\\partial\\theta` analytic: with
:math:`A_k = P_k` (dy) or 1 (ey), :math:`s = 1` (dy) or 0 (ey), :math:`c_j = x_j` (ex) or 1,

.. math::

    \\frac{\\partial m_{kj}}{\\partial\\theta_l} = \\mathrm{avg}_i\\Big(A_k c_j\\big[s(\\delta_{kl} - P_l)
    D_{kj} - P_l D_{lj}\\big]\\,\\tilde x\\Big) + \\mathrm{avg}_i\\big(A_k(\\delta_{kl} - P_l)c_j\\big)
    \\,e_{j},

(:math:`\\partial P_k/\\partial\\theta_l = P_k(\\delta_{kl} - P_l)\\tilde x`, :math:`\\partial D_{kj}/
\\partial\\theta_l = (\\delta_{kl} - P_l)e_j - P_lD_{lj}\\tilde x`), formed by one (rows x features)
by (rows x parameters) product per pair of classes.  statsmodels differentiates the same functions
by complex steps, which agree to rounding.  (statsmodels 0.15's ``MNLogit`` fails on the
elasticities 'eyex' / 'dyex' and on ``dummy=True`` / ``count=True``; here they are the formulas
above for every number of classes.)

:func:`variable_effects` generalises the derivative to a variable on which several columns depend
(a formula's ``age`` through ``age``, ``I(age ** 2)`` and ``age:smoke``): with :math:`J =
\\partial x/\\partial v` in place of :math:`e_j`, :math:`D_k = (B_k - \\bar\\beta)J`, and the
discrete changes go between any two sets of points (a factor's reference level and another level
with every column built from it), as Stata's ``margins`` defines them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.stats import norm

from linclass.linear.inference.sandwich import reported_probabilities
from linclass.linear.inference.summary import header_lines

__all__ = ["AT", "METHODS", "NAMES", "MarginalEffects", "column_indices", "discrete_columns",
           "evaluation_rows", "marginal_effects", "set_columns", "variable_effects"]

AT = ("overall", "mean", "median", "zero")
METHODS = ("dydx", "eyex", "dyex", "eydx")
NAMES = {"dydx": "dy/dx", "eyex": "d(lny)/d(lnx)", "dyex": "dy/d(lnx)", "eydx": "d(lny)/dx"}


# ------------------------------------------------------------------------------------- where
def _weighted_median(X: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Per column, the median of the rows repeated by their (frequency) weights: NumPy's median of
    the repeated rows for integer weights (the mean of the two middle values when the weight below
    a value is exactly half)."""
    order = np.argsort(X, axis=0, kind="stable")
    values = np.take_along_axis(X, order, axis=0)
    below = np.cumsum(weight[order], axis=0)
    half = below[-1] / 2.0
    first = np.argmax(below >= half - 1e-12 * below[-1], axis=0)
    cols = np.arange(X.shape[1])
    at = values[first, cols]
    exact = np.abs(below[first, cols] - half) <= 1e-12 * below[-1]
    if np.any(exact):  # the next value of positive weight
        nxt = np.array([values[first[j] + 1 + np.argmax(weight[order[first[j] + 1:, j]] > 0), j]
                        if exact[j] else at[j] for j in cols])
        at = np.where(exact, (at + nxt) / 2.0, at)
    return at


def evaluation_rows(X: np.ndarray, weight: np.ndarray, at: str) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, row weights summing to 1)`` where ``at`` evaluates the effects: every row
    ('overall'), or one row: the weighted mean, the weighted median or zero."""
    w = weight / weight.sum()
    if at == "overall":
        return X, w
    if at == "mean":
        row = w @ X
    elif at == "median":
        keep = weight > 0
        row = _weighted_median(X[keep], weight[keep])
    else:
        row = np.zeros(X.shape[1])
    return row[None, :], np.ones(1)


def column_indices(keys, names, what: str) -> np.ndarray:
    """The indices of the columns ``keys`` names (a column's name in ``names`` or its index,
    0-based, the intercept not counted), refusing a key that names none."""
    out = []
    for key in keys:
        if isinstance(key, (bool, np.bool_)):
            raise TypeError(f"{what}: {key!r} names no column; give column names or indices.")
        if isinstance(key, (int, np.integer)):
            if not 0 <= key < len(names):
                raise ValueError(f"{what}: column index {key} is outside 0..{len(names) - 1} (the "
                                 "model's columns, the intercept not counted).")
            out.append(int(key))
        elif isinstance(key, str) and key in names:
            out.append(names.index(key))
        else:
            raise ValueError(f"{what}: {key!r} is not one of the model's columns {names}.")
    return np.asarray(out, dtype=int)


def set_columns(X: np.ndarray, atexog, names) -> tuple[np.ndarray, list]:
    """``X`` with the columns ``atexog`` names set to its values (statsmodels' ``atexog``, Stata's
    ``margins, at()``): a dict from a column (name or index) to a number or one number per row.
    Returns the new rows and the note that says where the effects are evaluated."""
    if atexog is None:
        return X, []
    if not isinstance(atexog, dict):
        raise TypeError(f"atexog must be a dict from a column (name or index) to a value, such as "
                        f"{{{names[0]!r}: 1.0}}; got {type(atexog).__name__}.")
    X = np.array(X, dtype=np.float64, copy=True)
    shown = []
    for key, j in zip(atexog, column_indices(list(atexog), names, "atexog")):
        value = np.asarray(atexog[key], dtype=np.float64)
        if value.ndim > 1 or (value.ndim == 1 and value.size != X.shape[0]):
            raise ValueError(f"atexog[{key!r}] must be a number or one number per row "
                             f"({X.shape[0]}); got shape {value.shape}.")
        if not np.all(np.isfinite(value)):
            raise ValueError(f"atexog[{key!r}] holds values that are not finite numbers.")
        X[:, j] = value
        shown.append(f"{names[j]} = {value.item():g}" if value.ndim == 0 else
                     f"{names[j]} = the values given")
    return X, [f"at {', '.join(shown)} (atexog), in every row."]


def discrete_columns(X: np.ndarray, dummy, count, names=None) -> tuple[np.ndarray, np.ndarray]:
    """The columns taken as dummies and as counts; empty unless asked for.

    ``dummy=True``: the columns whose values in ``X`` are all 0 or 1 (statsmodels asks for both in
    its training rows; rows that fix a dummy at 0 or at 1 keep it a dummy here, so its effect is
    the change from 0 to 1 whatever the rows hold).  ``count=True``: the columns of non-negative
    integers that vary and are not dummies, as statsmodels finds them.  A list names the columns
    (names or indices) instead."""
    names = [f"x{j}" for j in range(X.shape[1])] if names is None else list(names)
    integer = np.all(X % 1.0 == 0, axis=0)
    lo, hi = X.min(axis=0), X.max(axis=0)
    binary = integer & (lo >= 0) & (hi <= 1)
    counts = integer & (lo >= 0) & (hi > lo) & ~binary

    def chosen(flag, found, what):
        if flag is None or isinstance(flag, (bool, np.bool_)):
            return np.flatnonzero(found) if flag else np.array([], dtype=int)
        return column_indices([flag] if isinstance(flag, (str, int)) else list(flag), names, what)

    dummies, counted = chosen(dummy, binary, "dummy"), chosen(count, counts, "count")
    both = sorted(set(dummies.tolist()) & set(counted.tolist()))
    if both and isinstance(count, (bool, np.bool_)):  # (a column named as a dummy is one)
        counted = np.setdiff1d(counted, dummies)
    elif both:
        raise ValueError(f"The column(s) {[names[j] for j in both]} are named both as dummies "
                         "and as counts.")
    return dummies, counted


# ------------------------------------------------------------------------------ the effects
def _contrasts(coef: np.ndarray, intercept: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """B (K x d) and b (K,) with the reference class's row 0."""
    return (np.vstack([np.zeros(coef.shape[1]), coef]), np.concatenate([[0.0], intercept]))


def _complements(P: np.ndarray) -> np.ndarray:
    """:math:`1 - P_l` of every class as the sum of the other probabilities (no cancellation where
    :math:`P_l` is near 1), shape (r, K)."""
    K = P.shape[1]
    return np.column_stack([P[:, np.arange(K) != l].sum(axis=1) for l in range(K)])


def _log_probabilities(P_eta: np.ndarray) -> np.ndarray:
    """:math:`\\ln P` from the scores (r, K) (class 0's column included): :math:`\\eta_k - t -
    \\mathrm{log1p}(\\sum_{m \\ne \\arg\\max}e^{\\eta_m - t})` with :math:`t` the top score."""
    top = P_eta.max(axis=1, keepdims=True)
    E = np.exp(P_eta - top)
    E[np.arange(E.shape[0]), np.argmax(P_eta, axis=1)] = 0.0
    return P_eta - top - np.log1p(E.sum(axis=1, keepdims=True))


def _continuous(Z, v, coef, intercept, method: str, fit_intercept: bool):
    """Effects (K, d) and their Jacobian (K, d, m, p) of every class and feature at the rows Z
    (r, d) averaged with weights v (r,).  :math:`D_k = \\sum_m P_m(B_k - B_m)` and
    :math:`1 - P_l` are summed from the small probabilities (no cancellation near 0 or 1)."""
    B, _ = _contrasts(coef, intercept)
    K, d = B.shape
    P = reported_probabilities(Z, coef, intercept)
    Q = _complements(P)
    Xt = np.hstack([np.ones((Z.shape[0], 1)), Z]) if fit_intercept else Z
    c = Z if "ex" in method else np.ones_like(Z)
    dy = method.startswith("dy")
    D = [P @ (B[k] - B) for k in range(K)]  # each (r, d)
    A = [P[:, k:k + 1] if dy else np.ones((Z.shape[0], 1)) for k in range(K)]
    effects = np.array([v @ (A[k] * D[k] * c) for k in range(K)])
    jac = np.zeros((K, d, K - 1, Xt.shape[1]))
    for k in range(K):
        Ac = A[k] * c
        for l in range(1, K):
            change = Q[:, l:l + 1] if k == l else -P[:, l:l + 1]  # delta_kl - P_l
            T = -P[:, l:l + 1] * D[l]
            if dy:
                T = T + change * D[k]
            jac[k, :, l - 1, :] = (Ac * T * v[:, None]).T @ Xt
            own = v @ (Ac * change)  # the e_j part, (d,)
            jac[k, np.arange(d), l - 1, np.arange(d) + int(fit_intercept)] += own
    return effects, jac


def _slope(Z, J, value, v, coef, intercept, method: str, fit_intercept: bool):
    """The effect of one variable on which the columns at the points Z (r, d) depend with the
    derivatives J (r, d) (:math:`\\partial x/\\partial v`: a column of the variable itself 1, a
    column of no other variable 0, ``I(age ** 2)`` :math:`2\\,age`, ``age:smoke`` smoke), the
    variable's values ``value`` (r,) (for the elasticities), averaged with weights v (r,):
    effects (K,) and Jacobian (K, m, p).  With :math:`G_k = B_k J`,
    :math:`D_k = \\sum_m P_m (G_k - G_m)` and the derivatives of the module docstring with
    :math:`e_j` replaced by :math:`\\tilde J` (J with 0 for the intercept)."""
    B, _ = _contrasts(coef, intercept)
    K = B.shape[0]
    P = reported_probabilities(Z, coef, intercept)
    Q = _complements(P)
    Xt = np.hstack([np.ones((Z.shape[0], 1)), Z]) if fit_intercept else Z
    Jt = np.hstack([np.zeros((J.shape[0], 1)), J]) if fit_intercept else J
    c = value if "ex" in method else np.ones(Z.shape[0])
    dy = method.startswith("dy")
    G = J @ B.T  # (r, K)
    D = np.column_stack([(P * (G[:, k:k + 1] - G)).sum(axis=1) for k in range(K)])
    effects, jac = np.zeros(K), np.zeros((K, K - 1, Xt.shape[1]))
    for k in range(K):
        Ac = (P[:, k] if dy else 1.0) * c * v
        effects[k] = Ac @ D[:, k]
        for l in range(1, K):
            change = Q[:, l] if k == l else -P[:, l]  # delta_kl - P_l
            T = -P[:, l] * D[:, l] + (change * D[:, k] if dy else 0.0)
            jac[k, l - 1] = (Ac * T) @ Xt + (Ac * change) @ Jt
    return effects, jac


def _change(before, after, v, coef, intercept, method: str, fit_intercept: bool, scale: float):
    """The discrete change of the probabilities from the points ``before`` to ``after`` (r, d) (the
    same rows with one variable changed), averaged with weights v (r,), times ``scale``: effects
    (K,) and Jacobian (K, m, p)."""
    K = coef.shape[0] + 1
    dy = method.startswith("dy")
    effects, jac = np.zeros(K), None
    for sign, Zj in ((-1.0, before), (1.0, after)):
        P = reported_probabilities(Zj, coef, intercept)
        Q = _complements(P)
        Xt = np.hstack([np.ones((Zj.shape[0], 1)), Zj]) if fit_intercept else Zj
        if jac is None:
            jac = np.zeros((K, K - 1, Xt.shape[1]))
        if dy:
            effects += sign * (v @ P)
        else:
            eta = np.hstack([np.zeros((Zj.shape[0], 1)), np.asarray(Zj @ coef.T) + intercept])
            effects += sign * (v @ _log_probabilities(eta))
        for k in range(K):
            A = P[:, k] if dy else np.ones(P.shape[0])
            for l in range(1, K):
                change = Q[:, l] if k == l else -P[:, l]
                jac[k, l - 1] += sign * ((v * A * change) @ Xt)
    return effects * scale, jac * scale


def _discrete(Z, v, coef, intercept, method: str, fit_intercept: bool, j: int, before, after,
              half):
    """The discrete change of column j from ``before`` to ``after`` (functions of the column)
    times ``half``: effects (K,) and Jacobian (K, m, p)."""
    Z_before, Z_after = Z.copy(), Z.copy()
    Z_before[:, j], Z_after[:, j] = before(Z[:, j]), after(Z[:, j])
    return _change(Z_before, Z_after, v, coef, intercept, method, fit_intercept, half)


@dataclass(frozen=True)
class MarginalEffects:
    """Marginal effects with statsmodels' ``DiscreteMargins`` names.

    Attributes
    ----------
    margeff, margeff_se : ndarray of shape (n_features,) (two classes: of class 1) or
        (n_features, n_classes) (softmax: every class, the first included)
    margeff_cov : ndarray of shape (n_effects, n_effects)
        In the order of ``margeff.ravel(order='F')`` (class by class).
    names : list of str
        The features.
    classes : list of str
        The classes' names in the tables (softmax: ``'y=label'``).
    method, at : str
    dummy_idx, count_idx : ndarray of int or None
        The columns taken as discrete changes.
    dep_variable, model, covariance_type : str
    """

    margeff: np.ndarray
    margeff_se: np.ndarray
    margeff_cov: np.ndarray
    names: list
    classes: list
    method: str
    at: str
    dummy_idx: np.ndarray | None = None
    count_idx: np.ndarray | None = None
    dep_variable: str = "y"
    model: str = "Logit"
    covariance_type: str = "nonrobust"
    notes: list = field(default_factory=list)

    @property
    def tvalues(self) -> np.ndarray:
        """z statistics :math:`m/\\mathrm{se}` (0 where the standard error is 0)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.margeff_se > 0, self.margeff / self.margeff_se, 0.0)

    @property
    def pvalues(self) -> np.ndarray:
        return 2 * norm.sf(np.abs(self.tvalues))

    def conf_int(self, alpha: float = 0.05) -> np.ndarray:
        """Wald intervals :math:`m \\pm \\Phi^{-1}(1-\\alpha/2)\\,\\mathrm{se}`: shape (n_features, 2),
        or (n_features, 2, n_classes) for softmax, as statsmodels gives them."""
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be in (0, 1); got {alpha!r}.")
        q = norm.ppf(1 - alpha / 2)
        return np.stack([self.margeff - q * self.margeff_se, self.margeff + q * self.margeff_se],
                        axis=1)

    def summary_frame(self, alpha: float = 0.05):
        """A pandas DataFrame with statsmodels' columns ('dy/dx' or the method's name,
        'Std. Err.', 'z', 'Pr(>|z|)', 'Conf. Int. Low', 'Cont. Int. Hi.' -- statsmodels' spelling)
        indexed by feature, or by (endog, exog) for softmax."""
        import pandas as pd

        columns = [NAMES[self.method], "Std. Err.", "z", "Pr(>|z|)", "Conf. Int. Low",
                   "Cont. Int. Hi."]
        ci = self.conf_int(alpha)
        values = [self.margeff, self.margeff_se, self.tvalues, self.pvalues, ci[:, 0], ci[:, 1]]
        table = np.column_stack([np.asarray(v).ravel(order="F") for v in values])
        if self.margeff.ndim == 1:
            index = pd.Index(self.names)
        else:
            index = pd.MultiIndex.from_tuples(
                [(c, n) for c in self.classes for n in self.names], names=["endog", "exog"])
        return pd.DataFrame(table, columns=columns, index=index)

    def __str__(self) -> str:
        alpha = 0.05
        left = [("Dep. Variable:", self.dep_variable), ("Method:", self.method), ("At:", self.at),
                ("Covariance Type:", self.covariance_type)]
        cells = ["", NAMES[self.method], "std err", "z", "P>|z|", f"[{alpha / 2:g}",
                 f"{1 - alpha / 2:g}]"]
        width = max([len(n) for n in self.names] + [len(c) for c in self.classes] + [10]) + 2
        ci = self.conf_int(alpha)
        blocks = [(self.classes[0] if self.margeff.ndim == 1 else c, e)
                  for e, c in enumerate(self.classes)]
        table = []
        for b, (title, e) in enumerate(blocks):
            if b:
                table.append("-")
            column = (slice(None),) if self.margeff.ndim == 1 else (slice(None), e)
            table.append(f"{title:>{width}}" + "".join(f"{c:>14}" for c in cells[1:]))
            table.append("-")
            for j, name in enumerate(self.names):
                row = [self.margeff[column][j], self.margeff_se[column][j],
                       self.tvalues[column][j], self.pvalues[column][j],
                       ci[(slice(None), 0) + column[1:]][j], ci[(slice(None), 1) + column[1:]][j]]
                table.append(f"{name:<{width}}" + "".join(
                    f"{value:>14.4f}" if i != 3 else f"{value:>14.3f}" for i, value in enumerate(row)))
        return "\n".join(header_lines(f"{self.model} Marginal Effects", left, [], table)
                         + [f"Note: {note}" for note in self.notes])

    __repr__ = __str__


def _asks(flag) -> bool:
    """Whether ``dummy`` / ``count`` asks for discrete changes (True, or columns named)."""
    if flag is None or isinstance(flag, (bool, np.bool_)):
        return bool(flag)
    return isinstance(flag, (str, int)) or len(list(flag)) > 0


def _check(at: str, method: str, discrete: bool, ats=AT) -> None:
    if at not in ats:
        raise ValueError(f"at must be one of {', '.join(map(repr, ats))}; got {at!r}.")
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(map(repr, METHODS))}; got {method!r}.")
    if discrete and (method in ("dyex", "eyex") or at in ("median", "zero")):
        raise ValueError(f"dummy=True and count=True are discrete changes: they go with method "
                         f"'dydx' or 'eydx' at 'overall' or 'mean' (as statsmodels); got "
                         f"method={method!r}, at={at!r}.")


def _table(effects, jac, covariance, names, *, m: int, method: str, at: str, classes,
           dep_variable: str, covariance_type: str, dummy_idx=None, count_idx=None,
           notes=()) -> MarginalEffects:
    """The :class:`MarginalEffects` of ``effects`` (K, e) with Jacobian ``jac`` (K, e, m, p):
    the delta method's covariance, and the two-class table of class 1 only."""
    if m == 1:  # two classes: the effects on P(class 1)
        effects, jac = effects[1:], jac[1:]
    K, e = effects.shape
    G = jac.reshape(K * e, -1)  # class-major rows, equation-major parameters
    cov = G @ covariance @ G.T
    cov = (cov + cov.T) / 2
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None)).reshape(K, e)
    label = ["1", "0"] if classes is None else [str(c) for c in classes]
    if m == 1:
        margeff, margeff_se, shown = effects[0], se[0], [dep_variable]
    else:
        margeff, margeff_se = effects.T.copy(), se.T.copy()
        shown = [f"{dep_variable}={c}" for c in label]
    return MarginalEffects(
        margeff=margeff, margeff_se=margeff_se, margeff_cov=cov, names=list(names), classes=shown,
        method=method, at=at, dummy_idx=dummy_idx, count_idx=count_idx,
        dep_variable=dep_variable, model="Logit" if m == 1 else "MNLogit",
        covariance_type=covariance_type, notes=list(notes))


def marginal_effects(X: np.ndarray, weight: np.ndarray, coef: np.ndarray, intercept: np.ndarray,
                     covariance: np.ndarray, *, fit_intercept: bool, at: str = "overall",
                     method: str = "dydx", dummy=False, count=False, atexog=None,
                     names=None, classes=None, dep_variable: str = "y",
                     covariance_type: str = "nonrobust") -> MarginalEffects:
    """The :class:`MarginalEffects` of the reported parameters ``coef`` (m, d) / ``intercept``
    (m,) (contrasts against class 0) with covariance ``covariance`` (k, k) (equation-major,
    intercept first) at ``at`` over the rows ``X`` (n, d) with frequency weights ``weight`` (n,),
    one effect per column.

    The dummies and counts are found in ``X`` (:func:`discrete_columns`), then the columns that
    ``atexog`` names are set to its values (:func:`set_columns`), then ``at`` is applied, as
    statsmodels' ``get_margeff(at=, atexog=, dummy=, count=)`` does (whose ``atexog`` keys count
    the constant column; here a key is a column's index in ``X`` or its name).

    Raises
    ------
    ValueError
        For an unknown ``at`` / ``method``, and for dummy / count changes with 'dyex' / 'eyex' or
        at 'median' / 'zero' (as statsmodels).
    """
    _check(at, method, _asks(dummy) or _asks(count))
    m, d = coef.shape
    names = [f"x{j}" for j in range(d)] if names is None else [str(n) for n in names]
    dummies, counts = discrete_columns(X, dummy, count, names)
    X, notes = set_columns(X, atexog, names)
    Z, v = evaluation_rows(X, weight, at)
    effects, jac = _continuous(Z, v, coef, intercept, method, fit_intercept)
    for j in dummies:
        effects[:, j], jac[:, j] = _discrete(Z, v, coef, intercept, method, fit_intercept, j,
                                             lambda x: 0.0 * x, lambda x: 0.0 * x + 1.0, 1.0)
    for j in counts:
        effects[:, j], jac[:, j] = _discrete(Z, v, coef, intercept, method, fit_intercept, j,
                                             lambda x: x - 1.0, lambda x: x + 1.0, 0.5)
    if dummies.size:
        notes = [*notes, "discrete change from 0 to 1: " + ", ".join(names[j] for j in dummies)
                 + "."]
    if counts.size:
        notes = [*notes, "change from x - 1 to x + 1, halved: " + ", ".join(
            names[j] for j in counts) + "."]
    return _table(effects, jac, covariance, names, m=m, method=method, at=at, classes=classes,
                  dep_variable=dep_variable, covariance_type=covariance_type,
                  dummy_idx=dummies if dummies.size else None,
                  count_idx=counts if counts.size else None, notes=notes)


def variable_effects(X: np.ndarray, weight: np.ndarray, designs, coef: np.ndarray,
                     intercept: np.ndarray, covariance: np.ndarray, *, fit_intercept: bool,
                     at: str = "overall", method: str = "dydx", classes=None,
                     dep_variable: str = "y", covariance_type: str = "nonrobust",
                     notes=()) -> MarginalEffects:
    """The :class:`MarginalEffects` of variables on which several of the model's columns depend
    (a formula's ``age`` through ``age``, ``I(age ** 2)`` and ``age:smoke``), as Stata's
    ``margins, dydx()`` defines them.

    ``X`` (r, d) holds the model's columns at the points where the effects are taken, averaged
    with ``weight`` (r,) (summing to 1).  ``designs`` lists one effect each:

    ``("slope", name, J, value)``
        the derivative through every column: ``J`` (r, d) the derivatives of the columns with
        respect to the variable at the points, ``value`` (r,) the variable's values there (for
        the elasticities);
    ``("change", name, before, after, scale)``
        the discrete change from the points ``before`` (r, d) to ``after`` (r, d) (the same points
        with the variable at two values: a factor at its reference level and at another, a 0/1
        variable at 0 and at 1), times ``scale``.

    Standard errors by the delta method through the same map (the Jacobians of :func:`_slope`
    and :func:`_change`).
    """
    _check(at, method, any(e[0] == "change" for e in designs), ats=("overall", "mean"))
    m = coef.shape[0]
    K = m + 1
    effects = np.zeros((K, len(designs)))
    jac = np.zeros((K, len(designs), m, coef.shape[1] + int(fit_intercept)))
    for e, design in enumerate(designs):
        if design[0] == "slope":
            effects[:, e], jac[:, e] = _slope(X, design[2], design[3], weight, coef, intercept,
                                              method, fit_intercept)
        else:
            effects[:, e], jac[:, e] = _change(design[2], design[3], weight, coef, intercept,
                                               method, fit_intercept, design[4])
    changes = [e for e, design in enumerate(designs) if design[0] == "change"]
    counts = [e for e in changes if designs[e][4] != 1.0]
    dummies = [e for e in changes if designs[e][4] == 1.0]
    return _table(effects, jac, covariance, [design[1] for design in designs], m=m, method=method,
                  at=at, classes=classes, dep_variable=dep_variable,
                  covariance_type=covariance_type,
                  dummy_idx=np.asarray(dummies, dtype=int) if dummies else None,
                  count_idx=np.asarray(counts, dtype=int) if counts else None, notes=notes)
