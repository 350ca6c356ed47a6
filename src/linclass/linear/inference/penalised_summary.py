"""What a penalised fit with an L1 part can honestly report: the selected features, the penalty, the
fit's log-likelihood and how far from the optimum the solver stopped; no standard errors.

After the lasso or the elastic net has selected features, the Wald statistics of the selected
coefficients are not valid: the selection used the same data, so the usual :math:`z` statistics are
not normal and their p-values are too small (Berk, Brown, Buja, Zhang and Zhao 2013, "Valid
post-selection inference"), and the estimates are shrunk towards zero besides.  The summary
therefore lists the selected coefficients without standard errors, tests or intervals, and says so.

:class:`PenalisedRecord` holds everything the table needs besides the coefficients; a summary
builds it from the numbers the fit kept (:class:`linclass.linear.fitting.records.PenalisedFacts`),
or reads it from a model file, and :func:`penalised_summary` builds the :class:`PenalisedSummary`
from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from linclass.linear.inference.summary import CONSTANT
from linclass.linear.inference.table_formats import TableOutput
from linclass.linear.inference.table_layout import HeaderFacts, fit_clock, header_lines

__all__ = ["PenalisedRecord", "PenalisedSummary", "describe_penalty", "penalised_summary"]

_NOTE = ("No standard errors, tests or intervals: the penalty selected these features from the same "
         "data, so Wald statistics of the selected coefficients are not valid (post-selection "
         "inference), and the estimates are shrunk towards zero. For inference, fit the selected "
         "features on fresh data with C=np.inf.")


@dataclass(frozen=True)
class PenalisedSummary(TableOutput, HeaderFacts):
    """The selected coefficients of a penalised fit.

    ``str(summary)`` prints it in statsmodels' layout (the header's Dep. Variable, Model, Method,
    Penalty, Date, Time, converged, Solver and Iterations beside the statistics, the constant named
    'const', rules as wide as the widest line); :meth:`to_frame` gives a pandas DataFrame; a
    notebook shows it as HTML, and ``as_text()``, ``as_html()``, ``as_latex()`` are statsmodels'
    (:class:`~linclass.linear.inference.table_formats.TableOutput`).

    Attributes
    ----------
    title : str
    penalty : str
        The penalty in words, e.g. ``"elastic net, C=0.5, l1_ratio=0.5"``.
    equations : list of str
        One name per row of coefficients ('' for the binary log-odds, else each class).
    selected : list of list of (str, float)
        Per equation, the non-zero coefficients by feature name, the constant ('const') first.
    n_selected : int
        Features with a non-zero coefficient in some equation.
    n_features : int
    log_likelihood, null_log_likelihood : float
    deviance_explained : float
        :math:`1 - \\ell/\\ell_0` (glmnet's ``dev.ratio``; McFadden's pseudo R²).
    objective : float
        The penalised objective (summed log-loss plus penalty) at the fit.
    violation : float
        Largest violation of the optimality conditions per unit of sample weight: how far from the
        optimum the solver stopped (0 at the exact optimum).
    converged : bool
    n_obs : float
    notes : list of str
    dep_variable, method, solver, n_iter, fitted_at
        The header's facts: the name of y, the estimation method ('L1-penalised ML', ...), the
        solver and its iterations, the time of the fit (seconds since the epoch).
    """

    title: str
    penalty: str
    equations: list
    selected: list
    n_selected: int
    n_features: int
    log_likelihood: float
    null_log_likelihood: float
    deviance_explained: float
    objective: float
    violation: float
    converged: bool
    n_obs: float
    method: str = field(default="Penalised ML", kw_only=True)

    def renamed(self, mapping: dict) -> PenalisedSummary:
        """The same table with parameters renamed by ``mapping`` (names it lacks are kept)."""
        selected = [[(mapping.get(name, name), value) for name, value in block]
                    for block in self.selected]
        return replace(self, selected=selected)

    def to_frame(self):
        """The selected coefficients as a pandas DataFrame (index: (equation, parameter) or
        parameter).  Requires pandas."""
        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - pandas is in the test extras
            raise ImportError("PenalisedSummary.to_frame() needs pandas: pip install "
                              "'linclass[pandas]'.") from exc
        rows = [(e, name, value) for e, block in zip(self.equations, self.selected)
                for name, value in block]
        frame = pd.DataFrame(rows, columns=["equation", "parameter", "coef"])
        if len(self.equations) == 1:
            return frame.drop(columns="equation").set_index("parameter")
        return frame.set_index(["equation", "parameter"])

    def _header(self) -> tuple[list, list]:
        """The header's (label, value) pairs: the left column and the right one."""
        date, clock = fit_clock(self.fitted_at)
        left = [("Dep. Variable:", self.dep_variable),
                ("Model:", "Logit" if len(self.equations) == 1 else "MNLogit"),
                ("Method:", self.method), ("Penalty:", self.penalty), ("Date:", date),
                ("Time:", clock), ("converged:", str(bool(self.converged))),
                ("Solver:", self.solver or ""),
                ("Iterations:", "" if self.n_iter is None else str(self.n_iter))]
        right = [("No. Observations:", f"{self.n_obs:g}"),
                 ("Selected features:", f"{self.n_selected} of {self.n_features}"),
                 ("Pseudo R-squ.:", f"{self.deviance_explained:#.4g}"),
                 ("Log-Likelihood:", f"{self.log_likelihood:#.6g}"),
                 ("LL-Null:", f"{self.null_log_likelihood:#.6g}"),
                 ("Penalised objective:", f"{self.objective:.10g}"),
                 ("Optimality violation:", f"{self.violation:.3g}")]
        return left, right

    def _columns(self) -> list:
        return ["coef"]

    def _blocks(self) -> list:
        """``(equation, rows)`` per equation, ``rows`` the printed ``(name, [coef])``."""
        return [(equation, [(name, [f"{value:.6g}"]) for name, value in block])
                for equation, block in zip(self.equations, self.selected)]

    def _footer(self) -> list:
        return [f"Note: {note}" for note in self.notes]

    def __str__(self) -> str:
        left, right = self._header()
        width = max([len(name) for block in self.selected for name, _ in block] + [12]) + 2
        table = []
        for e, (equation, rows) in enumerate(self._blocks()):
            if e:
                table.append("-")
            table += [f"{equation:>{width}}{'coef':>14}", "-"]
            table += [f"{name:<{width}}{cells[0]:>14}" for name, cells in rows]
        return "\n".join(header_lines(self.title, left, right, table) + self._footer())

    __repr__ = __str__

    def cov_params(self):
        raise ValueError("A penalised selection has no covariance matrix of its estimates (the "
                         "penalty chose the features from the same data); fit the selected "
                         "features with penalty=None for one.")

    def wald_test(self, R, q=None):
        raise ValueError("No Wald tests after a penalised selection; fit the selected features with "
                         "penalty=None (on fresh data) to test them.")


def describe_penalty(kind, C: float, l1_ratio: float) -> str:
    """The penalty in words."""
    if kind is None:
        return "none"
    name = {"l1": "L1 (lasso)", "l2": "L2 (ridge)", "elasticnet": "elastic net"}[kind]
    return f"{name}, C={C:g}" + (f", l1_ratio={l1_ratio:g}" if kind == "elasticnet" else "")


@dataclass(frozen=True, eq=False)
class PenalisedRecord:
    """A fit with an L1 part: what can honestly be said of a selection (the penalty in words, the
    objective, the log-likelihoods, how far from the optimum it stopped), without standard
    errors."""

    selection: str
    objective: float
    log_likelihood: float
    null_log_likelihood: float
    n_obs: float
    violation: float
    converged: bool

    def as_state(self) -> dict:
        """The dict model files of format version 1 hold (read back by
        :func:`linclass.linear.fitting.records.inference_record`)."""
        return {"selection": self.selection, "objective": self.objective,
                "null": self.null_log_likelihood, "n_obs": self.n_obs, "violation": self.violation,
                "converged": self.converged, "log_likelihood": self.log_likelihood}

    def table(self, *, coef, intercept, classes, feature_names, fit_intercept, alpha=0.05,
              ci="wald") -> PenalisedSummary:
        return penalised_summary(self, coef=coef, intercept=intercept, classes=classes,
                                 feature_names=feature_names, fit_intercept=fit_intercept)


def penalised_summary(state: PenalisedRecord, *, coef, intercept, classes, feature_names,
                      fit_intercept: bool) -> PenalisedSummary:
    """The :class:`PenalisedSummary` of a fit's coefficients (shapes (1, d) / (1,) for two classes,
    (K, d) / (K,) for K)."""
    coef, intercept = np.asarray(coef), np.asarray(intercept)
    label = [repr(c) if isinstance(c, str) else str(c) for c in np.asarray(classes).tolist()]
    if coef.shape[0] == 1:
        title = f"Penalised logistic regression: log-odds of class {label[1]} against class {label[0]}"
        equations = [""]
    else:
        title = "Penalised softmax regression: one row of coefficients per class"
        equations = [f"class {c}" for c in label]
    selected = []
    for row, b in zip(coef, intercept):
        block = [(CONSTANT, float(b))] if fit_intercept else []
        block += [(str(feature_names[j]), float(row[j])) for j in np.flatnonzero(row)]
        selected.append(block)
    ll, null = state.log_likelihood, state.null_log_likelihood
    notes = [_NOTE] + ([] if state.converged else
                       ["the solver did not converge: the optimality violation is above tol."])
    return PenalisedSummary(
        title=title, penalty=state.selection, equations=equations, selected=selected,
        n_selected=int(np.count_nonzero(np.any(coef != 0, axis=0))), n_features=int(coef.shape[1]),
        log_likelihood=ll, null_log_likelihood=null,
        deviance_explained=float(1 - ll / null) if null else 0.0, objective=state.objective,
        violation=state.violation, converged=state.converged, n_obs=state.n_obs,
        notes=notes,
    )
