"""The link functions of the proportional odds model: a symmetric cumulative distribution
:math:`F` (the logistic for ``'logit'``, the standard normal for ``'probit'``), with what the
likelihood needs of it in log space: :math:`\\log F`, :math:`\\log f` and
:math:`f'/f` (McCullagh, 1980; Agresti, *Categorical Data Analysis*, 3rd ed., 2013, sec. 8.2).

Both distributions are symmetric, :math:`1 - F(x) = F(-x)`, which the likelihood uses to take
every interval probability from the side where it does not cancel.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy import special

__all__ = ["LINKS", "Link", "get_link"]

_LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)


@dataclass(frozen=True)
class Link:
    """A symmetric cumulative distribution and its derivatives.

    Attributes
    ----------
    name : str
    log_cdf : callable
        :math:`\\log F(x)`, finite for every finite x (no underflow to -inf in the far tail).
    log_pdf : callable
        :math:`\\log f(x)`.
    pdf_slope : callable
        :math:`f'(x) / f(x)` (finite for finite x).
    ppf : callable
        :math:`F^{-1}(p)`.
    """

    name: str
    log_cdf: Callable
    log_pdf: Callable
    pdf_slope: Callable
    ppf: Callable


def _logit_log_pdf(x):
    return special.log_expit(x) + special.log_expit(-x)


def _logit_slope(x):
    return -np.tanh(0.5 * x)  # f'/f = 1 - 2 F(x)


def _probit_log_pdf(x):
    return -0.5 * x * x - _LOG_SQRT_2PI


def _probit_slope(x):
    return -x


LINKS = {
    "logit": Link("logit", special.log_expit, _logit_log_pdf, _logit_slope, special.logit),
    "probit": Link("probit", special.log_ndtr, _probit_log_pdf, _probit_slope, special.ndtri),
}


def get_link(name: str) -> Link:
    """The :class:`Link` called ``name`` ('logit' or 'probit')."""
    try:
        return LINKS[name]
    except KeyError:
        raise ValueError(f"link must be one of {sorted(LINKS)}; got {name!r}.") from None
