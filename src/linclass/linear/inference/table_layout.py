"""How an inference table is printed, as statsmodels prints its summaries: the centred title, the
header's two columns of facts, the rules as wide as the widest line, numbers to a fixed number of
decimals (:class:`~linclass.linear.inference.summary.Summary`,
:class:`~linclass.linear.inference.penalised_summary.PenalisedSummary`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

__all__ = ["HeaderFacts", "decimals", "fit_clock", "header_lines", "likelihood_facts"]

_WIDTH = 78  # the statistics above the table: two columns of 39 and 36 characters, as statsmodels'


@dataclass(frozen=True, kw_only=True)
class HeaderFacts:
    """What a summary says about the fit besides its statistics, shared by
    :class:`~linclass.linear.inference.summary.Summary` and
    :class:`~linclass.linear.inference.penalised_summary.PenalisedSummary`: the remarks printed
    below the table (``notes``), the name of y ('y' when it had none), the estimation method, the solver and
    its iterations, and the time of the fit (seconds since the epoch; printed as Date and Time).
    Keyword-only, so that each summary keeps its own fields' order."""

    notes: list = field(default_factory=list)
    dep_variable: str = "y"
    method: str = "MLE"
    solver: str | None = None
    n_iter: int | None = None
    fitted_at: float = field(default_factory=time.time)


def fit_clock(fitted_at: float) -> tuple[str, str]:
    """The Date and Time rows of a header, as statsmodels prints them, in local time."""
    moment = time.localtime(fitted_at)
    return time.strftime("%a, %d %b %Y", moment), time.strftime("%H:%M:%S", moment)


def likelihood_facts(*, n_obs: float, df_resid: float, df_model: float, pseudo_r2: float,
                     log_likelihood: float, null_log_likelihood: float, lr_p_value: float,
                     aic: float, bic: float) -> list:
    """The right column of the header of a maximum-likelihood fit, as statsmodels prints it for
    ``Logit``, ``MNLogit`` and ``OrderedModel``: the counts, McFadden's pseudo R-squared, the
    log-likelihoods, the likelihood-ratio test's p-value and the information criteria."""
    return [("No. Observations:", f"{n_obs:g}"), ("Df Residuals:", f"{df_resid:g}"),
            ("Df Model:", f"{df_model:g}"), ("Pseudo R-squ.:", f"{pseudo_r2:#.4g}"),
            ("Log-Likelihood:", f"{log_likelihood:#.5g}"),
            ("LL-Null:", f"{null_log_likelihood:#.5g}"),
            ("LLR p-value:", f"{lr_p_value:#.4g}"), ("AIC:", f"{aic:#.5g}"),
            ("BIC:", f"{bic:#.5g}")]


def header_lines(title: str, left: list, right: list, table: list) -> list:
    """statsmodels' layout: the title centred, a rule, the (label, value) pairs of ``left`` and
    ``right`` side by side (39 and 36 characters, wider where a value needs it), a rule, the
    table's lines (a line ``"-"`` is a thin rule) and a closing rule, every rule as wide as the
    widest line."""
    left = left + [("", "")] * (len(right) - len(left))
    right = right + [("", "")] * (len(left) - len(right))
    lw = max([39] + [len(a) + len(b) + 1 for a, b in left])
    rw = max([36] + [len(c) + len(d) + 1 for c, d in right])
    facts = [(f"{a}{b:>{lw - len(a)}}   {c}{d:>{rw - len(c)}}").rstrip()
             for (a, b), (c, d) in zip(left, right)]
    width = max([_WIDTH, len(title)] + [len(line) for line in facts + table])
    rule = "=" * width
    body = [("-" * width) if line == "-" else line.rstrip() for line in table]
    return [title.center(width).rstrip(), rule, *facts, rule, *body, rule]


def decimals(value: float, places: int) -> str:
    """``value`` to ``places`` decimals, or to ``places`` significant digits where decimals would
    hide it or overflow the column (below 1e-4 or from 1e4 in size), as statsmodels prints."""
    size = abs(value)
    if np.isfinite(value) and (size >= 1e4 or 0 < size < 1e-4):
        return f"{value:.{places}g}"
    return f"{value:.{places}f}"
