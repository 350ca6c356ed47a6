"""What a penalised fit with an L1 part can honestly report: the selected features, the penalty, the
fit's log-likelihood and how far from the optimum the solver stopped; no standard errors.

After the lasso or the elastic net has selected features, the Wald statistics of the selected
coefficients are not valid: the selection used the same data, so the usual :math:`z` statistics are
not normal and their p-values are too small (Berk, Brown, Buja, Zhang and Zhao 2013, "Valid
post-selection inference"), and the estimates are shrunk towards zero besides.  The summary
therefore lists the selected coefficients without standard errors, tests or intervals, and says so.

:func:`penalised_state` records, at the end of a fit, everything the table needs besides the
coefficients (a plain dict, as model files store it); :func:`penalised_summary` builds the
:class:`PenalisedSummary` from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

__all__ = ["PenalisedSummary", "is_penalised_state", "penalised_state", "penalised_summary"]

_NOTE = ("No standard errors, tests or intervals: the penalty selected these features from the same "
         "data, so Wald statistics of the selected coefficients are not valid (post-selection "
         "inference), and the estimates are shrunk towards zero. For inference, fit the selected "
         "features on fresh data with C=np.inf.")


@dataclass(frozen=True)
class PenalisedSummary:
    """The selected coefficients of a penalised fit.

    ``str(summary)`` prints a readable table; :meth:`to_frame` gives a pandas DataFrame.

    Attributes
    ----------
    title : str
    penalty : str
        The penalty in words, e.g. ``"elastic net, C=0.5, l1_ratio=0.5"``.
    equations : list of str
        One name per row of coefficients ('' for the binary log-odds, else each class).
    selected : list of list of (str, float)
        Per equation, the non-zero coefficients by feature name, intercept first.
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
    notes: list = field(default_factory=list)

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

    def __str__(self) -> str:
        width = max([len(name) for block in self.selected for name, _ in block] + [12])
        rule = "=" * (width + 16)
        lines = [self.title, rule,
                 f"{'Penalty:':<24}{self.penalty}",
                 f"{'Selected features:':<24}{self.n_selected} of {self.n_features}",
                 f"{'No. observations:':<24}{self.n_obs:g}",
                 f"{'Log-likelihood:':<24}{self.log_likelihood:.6g}",
                 f"{'Null log-likelihood:':<24}{self.null_log_likelihood:.6g}",
                 f"{'Deviance explained:':<24}{self.deviance_explained:.4f}",
                 f"{'Penalised objective:':<24}{self.objective:.10g}",
                 f"{'Optimality violation:':<24}{self.violation:.3g}"
                 + ("" if self.converged else "  (did not converge)")]
        for equation, block in zip(self.equations, self.selected):
            lines += [rule] + ([equation] if equation else [])
            lines.append(f"{'':<{width}} {'coef':>14}")
            lines.append("-" * (width + 16))
            lines += [f"{name:<{width}} {value:>14.6g}" for name, value in block]
        lines.append(rule)
        lines += [f"Note: {note}" for note in self.notes]
        return "\n".join(line.rstrip() for line in lines)

    __repr__ = __str__


def describe_penalty(kind, C: float, l1_ratio: float) -> str:
    """The penalty in words."""
    if kind is None:
        return "none"
    name = {"l1": "L1 (lasso)", "l2": "L2 (ridge)", "elasticnet": "elastic net"}[kind]
    return f"{name}, C={C:g}" + (f", l1_ratio={l1_ratio:g}" if kind == "elasticnet" else "")


def penalised_state(*, penalty, objective: float, log_likelihood: float, null: float, n_obs: float,
                    violation: float, converged: bool) -> dict:
    """The state a fitted estimator keeps for :func:`penalised_summary` (plain data)."""
    return {"selection": describe_penalty(penalty.kind, penalty.C, penalty.l1_ratio),
            "objective": float(objective), "null": float(null), "n_obs": float(n_obs),
            "violation": float(violation), "converged": bool(converged),
            "log_likelihood": float(log_likelihood)}


def is_penalised_state(state) -> bool:
    """Whether an estimator's inference state came from :func:`penalised_state`."""
    return isinstance(state, dict) and "selection" in state


def penalised_summary(state: dict, *, coef, intercept, classes, feature_names,
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
        block = [("intercept", float(b))] if fit_intercept else []
        block += [(str(feature_names[j]), float(row[j])) for j in np.flatnonzero(row)]
        selected.append(block)
    ll, null = state["log_likelihood"], state["null"]
    notes = [_NOTE] + ([] if state["converged"] else
                       ["the solver did not converge: the optimality violation is above tol."])
    return PenalisedSummary(
        title=title, penalty=state["selection"], equations=equations, selected=selected,
        n_selected=int(np.count_nonzero(np.any(coef != 0, axis=0))), n_features=int(coef.shape[1]),
        log_likelihood=ll, null_log_likelihood=null,
        deviance_explained=float(1 - ll / null) if null else 0.0, objective=state["objective"],
        violation=state["violation"], converged=state["converged"], n_obs=state["n_obs"],
        notes=notes,
    )
