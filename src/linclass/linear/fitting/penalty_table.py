"""Every penalty a logistic fit takes, by the name ``LogisticRegression(penalty=...)`` gives it, and
the protocol each one follows.

A penalty is an object with

==================================  ==============================================================
``name`` / ``kind``                 its name (a key of :data:`PENALTIES`)
``smooth``                          whether the smooth solvers minimise it (else proximal Newton,
                                    solver 'cd', on the penalised objective)
``sparse``                          whether it sets coefficients exactly to zero (an L1 part)
``solvers``                         the linclass solvers that minimise it
``in_memory``                       whether its fit needs every row at once (no chunked design)
``l2``                              its share of the curvature (the ridge coefficient on the summed
                                    loss), what a smooth objective adds to its Hessian
``C``, ``l1_ratio``                 scikit-learn's scale, for the reports
``final_step``                      whether a converged smooth fit ends with one exact Newton step
``certifiable``                     whether a smooth fit is certified by a duality gap
``score``                           the name of the vector a smooth fit drives to zero (messages)
``value(W)``                        its value at the coefficients (intercepts excluded)
``check(problem)``                  refuses a problem it does not cover, naming what does
==================================  ==============================================================

and, for the proximal solvers, its value, the change and slope of a step, the coordinate update,
the proximal step, the optimality violation and the largest useful penalty
(:class:`~linclass.linear.penalties.elastic_net.ElasticNet`; the compiled loops take it through
``kernel(d)``, :mod:`linclass.linear.penalties.kernel`).  The objective it is minimised through,
where a smooth fit starts and what it records are the fit's
(:mod:`linclass.linear.fitting.fit`); a fit that modifies the likelihood (Firth's, liblinear's)
brings its own ``objective``, ``start``, ``coefficients`` and ``finish``.

Adding a penalty is one module holding a class with this protocol, and its name in
:data:`PENALTIES`; :func:`linclass.linear.fitting.fit.fit_logistic` and the estimators' parameter
checks read the table.  It lives with the fit, not with the penalties: it names liblinear's and
Firth's fits too, which stand above the penalties.
"""

from __future__ import annotations

import importlib
import math
import warnings

import numpy as np

from linclass.linear.penalties.elastic_net import ElasticNet
from linclass.linear.firth.inference import Firth
from linclass.linear.penalties.grouped import GroupedElasticNet
from linclass.linear.fitting.liblinear import PenalisedIntercept

__all__ = ["PENALTIES", "grouped", "make_penalty", "with_columns", "with_penalised_intercept"]

def _imported(module: str, name: str):
    """The penalty class ``name`` of ``module``, imported when first asked for (the folded concave
    penalties compile their kernels with numba at import)."""
    def make(C, l1_ratio, gamma):
        return getattr(importlib.import_module(module), name)(C, gamma)
    return make


#: penalty name -> its object, from scikit-learn's ``C`` and ``l1_ratio`` (and ``gamma``, the
#: concavity of the folded concave penalties)
PENALTIES = {
    "l2": lambda C, l1_ratio, gamma: ElasticNet(C, 0.0),
    "l1": lambda C, l1_ratio, gamma: ElasticNet(C, 1.0),
    "elasticnet": lambda C, l1_ratio, gamma: ElasticNet(C, l1_ratio),
    None: lambda C, l1_ratio, gamma: ElasticNet(math.inf, 0.0),
    "firth": lambda C, l1_ratio, gamma: Firth(),
    "mcp": _imported("linclass.linear.penalties.mcp", "MCP"),
    "scad": _imported("linclass.linear.penalties.scad", "SCAD"),
}
#: the penalties that take ``gamma``
CONCAVE = ("mcp", "scad")


def make_penalty(penalty, C: float, l1_ratio, gamma=None):
    """The penalty object of scikit-learn 1.9's ``penalty`` / ``C`` / ``l1_ratio`` combination.

    ``penalty='auto'`` (scikit-learn's default, which it spells 'deprecated', also accepted) takes
    the penalty from ``l1_ratio``: 0 is L2, 1 is L1, in between the elastic net; ``C=np.inf`` is no
    penalty.  'l1' and 'l2' fix the ratio, None and 'firth' have none (an ``l1_ratio`` that says
    otherwise is ignored with a UserWarning, as scikit-learn warns); 'elasticnet' uses
    ``l1_ratio``; the folded concave penalties (:data:`CONCAVE`) use ``gamma`` (None: their
    default), which the others ignore with a UserWarning.  ``penalty=None`` is no penalty whatever C (a C other than the default 1 is
    ignored with a UserWarning, as in scikit-learn); 'firth' does not use C.
    """
    fixed = {"l1": 1.0, "l2": 0.0}
    if penalty in ("auto", "deprecated"):
        return ElasticNet(C, 0.0 if l1_ratio is None else float(l1_ratio))
    if (penalty != "elasticnet" and l1_ratio is not None
            and float(l1_ratio) not in (0.0, fixed.get(penalty, 0.0))):
        # scikit-learn's words first (its two warnings for such a pair), then what happens
        theirs = (f"l1_ratio parameter is only used when penalty is 'elasticnet'. Got "
                  f"(penalty={penalty})" if 0 < float(l1_ratio) < 1 else
                  f"Inconsistent values: penalty={penalty} with l1_ratio={l1_ratio}")
        warnings.warn(f"{theirs}: l1_ratio={l1_ratio} is ignored with penalty={penalty!r} (it "
                      "mixes the penalties only with penalty='elasticnet' or the default penalty).",
                      UserWarning, stacklevel=4)
    if penalty == "elasticnet" and l1_ratio is None:
        raise ValueError("penalty='elasticnet' needs l1_ratio, a number in [0, 1] (1: the lasso, "
                         "0: ridge).")
    if penalty is None and C != 1.0:
        warnings.warn(f"Setting penalty=None will ignore the C and l1_ratio parameters: "
                      f"penalty=None fits without penalty, and C={C} is ignored.", UserWarning,
                      stacklevel=4)
    if penalty not in PENALTIES:
        raise ValueError(f"Unknown penalty {penalty!r}.")
    if gamma is not None and penalty not in CONCAVE:
        warnings.warn(f"gamma={gamma} is ignored with penalty={penalty!r} (it is the concavity of "
                      f"the penalties {', '.join(map(repr, CONCAVE))}).", UserWarning,
                      stacklevel=4)
    return PENALTIES[penalty](C, None if l1_ratio is None else float(l1_ratio), gamma)


def with_penalised_intercept(penalty, scaling: float | None):
    """scikit-learn's ``solver='liblinear'``: ``penalty`` (L2 or L1) with the intercept the weight
    of a penalised constant feature of value ``scaling`` (None without an intercept).  The other
    penalties are refused as scikit-learn refuses them: liblinear has neither the elastic net nor
    an unpenalised fit."""
    kind = getattr(penalty, "kind", penalty.name)
    if not isinstance(penalty, ElasticNet) or kind not in ("l1", "l2"):
        theirs = ""  # scikit-learn's words, first
        if kind == "elasticnet":
            theirs = "Only 'saga' solver supports elasticnet penalty, got solver=liblinear. "
            what = f"the elastic net (l1_ratio={penalty.l1_ratio:g})"
            instead = "solver='saga' (or 'cd', 'auto')"
        elif kind is None:
            theirs = "penalty=None is not supported for the liblinear solver. "
            what = "no penalty (penalty=None or C=np.inf)"
            instead = "a finite C, or another solver (liblinear penalises the intercept)"
        else:
            what = f"penalty={penalty.name!r}"
            instead = "another solver"
        raise ValueError(f"{theirs}solver='liblinear' takes the penalty 'l2' (l1_ratio=0) or 'l1' "
                         f"(l1_ratio=1) with a finite C, not {what}; use {instead}.")
    return PenalisedIntercept(penalty, scaling)


def with_columns(penalty, factor, lower, upper):
    """``penalty`` (an elastic net, L2, L1 or none) with per-feature penalty factors and bounds on
    the coefficients (glmnet's ``penalty.factor``, ``lower.limits`` and ``upper.limits``): an
    :class:`~linclass.linear.penalties.elastic_net.ElasticNet` that only solver 'cd' fits.  The
    values are checked here (finite factors >= 0, lower <= upper, no NaN); their length against
    the features when the fit starts (:meth:`ElasticNet.check`)."""
    if not isinstance(penalty, ElasticNet):
        raise ValueError(f"penalty={penalty.name!r} takes no penalty_factor, lower_bounds or "
                         "upper_bounds (they apply to the L1, L2 and elastic-net penalties and to "
                         "none).")
    f = _values("penalty_factor", factor)
    lo = _values("lower_bounds", lower)
    hi = _values("upper_bounds", upper)
    if f is not None and (not np.all(np.isfinite(f)) or np.any(f < 0)):
        raise ValueError("penalty_factor must be finite and >= 0 (0: the feature is never "
                         "penalised).")
    if (lo is not None and np.any(lo == np.inf)) or (hi is not None and np.any(hi == -np.inf)):
        raise ValueError("lower_bounds cannot be +inf and upper_bounds cannot be -inf.")
    if lo is not None and hi is not None and (lo.ndim == 0 or hi.ndim == 0 or lo.shape == hi.shape):
        if np.any(lo > hi):
            raise ValueError("lower_bounds must be <= upper_bounds for every feature.")
    return ElasticNet(penalty.C, penalty.l1_ratio, factor=f, lower=lo, upper=hi)


def _values(name: str, value):
    """``value`` as a float array of at most one dimension (None stays None), or a ValueError
    naming the parameter."""
    if value is None:
        return None
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number or a 1-D array of numbers; got "
                         f"{type(value).__name__}.") from None
    if a.ndim > 1:
        raise ValueError(f"{name} must be a number or a 1-D array (one entry per feature); got "
                         f"shape {a.shape}.")
    if np.isnan(a).any():
        raise ValueError(f"{name} contains NaN.")
    return a


def grouped(penalty):
    """``penalty`` with one group norm per feature across the classes (glmnet's
    ``type.multinomial="grouped"``, :mod:`linclass.linear.penalties.grouped`).  Only an L1 part
    changes: the L2 part's sum of squares is the same grouped or not, so a penalty without one is
    returned as it is."""
    if not isinstance(penalty, ElasticNet):
        raise ValueError(f"multinomial_penalty='grouped' applies to the L1 and elastic-net "
                         f"penalties, not penalty={penalty.name!r}.")
    if penalty.bounded:
        raise ValueError("multinomial_penalty='grouped' does not take lower_bounds or "
                         "upper_bounds.")
    if not penalty.sparse:
        return penalty
    return GroupedElasticNet(penalty.C, penalty.l1_ratio, factor=penalty.factor)
