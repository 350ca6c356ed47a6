"""The relaxed lasso: a penalised fit with an L1 part, blended with the unpenalised refit on the
features it selected.

With :math:`\\hat\\beta(\\lambda)` the lasso (or elastic-net) fit and :math:`S_\\lambda` its support,
the columns with a non-zero coefficient in some row (for softmax: in some class), the relaxed fit is

.. math::

    \\hat\\beta_\\gamma(\\lambda) = \\gamma\\,\\hat\\beta(\\lambda) + (1-\\gamma)\\,\\tilde\\beta(S_\\lambda),
    \\qquad \\hat b_\\gamma = \\gamma\\,\\hat b(\\lambda) + (1-\\gamma)\\,\\tilde b(S_\\lambda),

where :math:`(\\tilde\\beta, \\tilde b)` is the maximum-likelihood fit (no penalty, the same weights
and intercept) on the columns :math:`S_\\lambda` alone, zero elsewhere, and :math:`\\gamma \\in [0, 1]`
is ``relax``: 1 is the lasso itself, 0 the refit.  The lasso selects and shrinks with one
:math:`\\lambda`; relaxing undoes part of the shrinkage of what it selected (Meinshausen 2007,
"Relaxed lasso", *Computational Statistics & Data Analysis* 52, 374-393, whose relaxation re-runs
the lasso on the support; the blend with the unpenalised fit is the simplified form of Hastie,
Tibshirani and Tibshirani 2020, "Best subset, forward stepwise or lasso? Analysis and
recommendations based on extensive comparisons", *Statistical Science* 35, 579-592, which glmnet
implements: ``glmnet(..., relax = TRUE)``, ``relax.glmnet`` and
``coef(fit, s, gamma)``).  Intercepts are blended as the coefficients are, as glmnet does, so the
scores (and the log-odds) are the same blend.

Where this differs from glmnet
    - glmnet's blend uses :math:`\\max(\\gamma, 10^{-5})` (``blend.relaxed``): its ``gamma = 0`` is not
      the refit; here ``relax=0`` is the refit itself.
    - glmnet skips the refit when the support has more than ``n - 3`` columns (``maxp``) and blends
      with the last refit along its path (at a larger lambda) there; here every support is
      refitted, and a refit whose maximum-likelihood estimate does not exist is reported (next
      point).
    - When the classes are separated on the support, the unpenalised refit does not exist: its
      coefficients diverge.  glmnet returns the large finite coefficients at which its iteration
      stops (fitted probabilities floored at ``pmin = 1e-9``), without a message.  Here the refit
      also stops at finite coefficients (the unpenalised fit's own rule,
      :mod:`linclass.linear.logistic.separation`), and a :class:`~linclass.SeparationWarning` says
      which fits it affects and that their relaxed coefficients are meaningless.
    - Softmax: the unpenalised refit has no unique coefficients (adding a vector to every class's
      row changes no probability); linclass reports them summing to zero over the classes, glmnet
      otherwise, so the relaxed coefficients of each column differ from glmnet's by the same amount
      in every class (the probabilities, the centred coefficients and the centred intercepts agree).

Bounds on the coefficients (``lower_bounds`` / ``upper_bounds``, glmnet's ``lower.limits`` /
``upper.limits``) bound the refit too, as glmnet's refit (``update`` of the original call) keeps
them; penalty factors play no part in a fit without penalty.

The fit record of a relaxed fit (:class:`~linclass.linear.fitting.records.PenalisedFacts`) keeps
the lasso's penalised objective and optimality violation, and holds the log-likelihood at the
relaxed coefficients and the blend (its summary names the penalty with ``relax=``).  A support
is refitted once, however many C (a path) or values of ``relax`` (cross-validation) share it, as
glmnet does.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field, replace
from numbers import Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from linclass.exceptions import SeparationWarning
from linclass.linear.fitting.fit import FitOptions, LogisticFit, LogisticProblem, fit_logistic
from linclass.linear.fitting.records import PenalisedFacts
from linclass.linear.penalties.elastic_net import ElasticNet
from linclass.linear.fitting.choice import make_penalty

__all__ = ["Relaxer", "check_relax", "relax_fit", "relax_values", "support", "warn_refits"]


def check_relax(relax, penalty, where: str = "relax") -> float:
    """``relax`` as a float in [0, 1], refused below 1 when ``penalty`` (a penalty object of
    :mod:`linclass.linear.fitting.choice`) has no L1 part: only a selection can be relaxed."""
    if isinstance(relax, bool) or not isinstance(relax, Real) or not 0.0 <= float(relax) <= 1.0:
        raise ValueError(f"{where} must be a number in [0, 1] (1: the penalised fit itself, 0: the "
                         f"unpenalised refit on the features it selects); got {relax!r}.")
    relax = float(relax)
    if relax < 1.0 and not getattr(penalty, "sparse", False):
        name = getattr(penalty, "name", None)
        raise ValueError(
            f"{where}={relax:g} needs a penalty with an L1 part (penalty='l1', or 'elasticnet' / "
            f"'auto' with l1_ratio > 0): the relaxed fit refits the features the L1 part selects, "
            f"and penalty={name!r} selects none. Use {where}=1.0 with this penalty.")
    return relax


def relax_values(relax, penalty, where: str = "relax") -> np.ndarray:
    """A value or a sequence of values of ``relax`` (each checked by :func:`check_relax`), as an
    increasing array without repeats."""
    if isinstance(relax, Real):
        values = [relax]
    else:
        values = list(np.asarray(relax, dtype=object).reshape(-1))
    if not values:
        raise ValueError(f"{where} must be a number in [0, 1] or a non-empty sequence of them; "
                         f"got {relax!r}.")
    return np.unique([check_relax(v.item() if hasattr(v, "item") else v, penalty, where)
                      for v in values])


def support(coef: np.ndarray) -> np.ndarray:
    """The columns of ``coef`` (shape (m, d)) with a non-zero entry in some row."""
    return np.flatnonzero(np.any(np.asarray(coef) != 0, axis=0))


@dataclass(eq=False)
class Relaxer:
    """Relaxed fits on one in-memory problem: the unpenalised refit of each support (computed once
    and kept) and its blends with penalised fits.

    Parameters
    ----------
    problem : LogisticProblem
        The rows the penalised fits were fitted on (in memory).
    tol, max_iter : float, int
        The refits' stopping rule (:func:`~linclass.linear.fitting.fit.fit_logistic`'s).
    penalty : penalty object or None
        The penalised fits' penalty: its bounds on the coefficients (``lower`` / ``upper``, if any)
        bound the refit too, as glmnet's refit keeps ``lower.limits`` / ``upper.limits`` (it is then
        fitted by 'cd'); its penalty factors do not matter without a penalty.
    """

    problem: LogisticProblem
    tol: float = 1e-6
    max_iter: int = 100
    penalty: object = None
    _refits: dict = field(default_factory=dict)
    _loss: object = None
    separated: list = field(default_factory=list)  # supports whose refit does not exist
    unconverged: list = field(default_factory=list)  # supports whose refit ran out of iterations

    def __post_init__(self):
        if self.problem.source is not None:
            raise ValueError("A relaxed fit needs the rows in memory (an L1 part does).")

    def refit(self, coef: np.ndarray) -> LogisticFit | None:
        """The unpenalised fit on the support of ``coef`` (coefficients zero elsewhere), or None
        when the support is empty (the penalised fit is then the intercept-only fit already)."""
        columns = support(coef)
        if columns.size == 0:
            return None
        key = columns.tobytes()
        if key not in self._refits:
            self._refits[key] = self._fit(columns)
        return self._refits[key]

    def _fit(self, columns: np.ndarray) -> LogisticFit:
        p = self.problem
        sub = replace(p, X=p.X[:, columns])
        lower, upper = (getattr(self.penalty, "lower", None), getattr(self.penalty, "upper", None))
        if lower is None and upper is None:
            penalty, solver = make_penalty(None, 1.0, None), "auto"
        else:  # the same box on the support's columns
            def on_support(bound):
                return bound if bound is None or np.ndim(bound) == 0 else np.asarray(bound)[columns]
            penalty = ElasticNet(math.inf, 0.0, lower=on_support(lower), upper=on_support(upper))
            solver = "cd"
        options = FitOptions(penalty=penalty, solver=solver, tol=self.tol, max_iter=self.max_iter)
        with warnings.catch_warnings():  # reported once, by warn(), in the relaxed fit's words
            warnings.simplefilter("ignore", SeparationWarning)
            warnings.simplefilter("ignore", ConvergenceWarning)
            fit = fit_logistic(sub, options)
        if fit.separation is not None:
            self.separated.append(int(columns.size))
        elif not fit.converged:
            self.unconverged.append(int(columns.size))
        coef = np.zeros((fit.coef.shape[0], p.n_features))
        coef[:, columns] = fit.coef
        return replace(fit, coef=coef)

    def only(self, coef: np.ndarray) -> Relaxer:
        """A relaxer that reports (:func:`warn_refits`) on the refit of the support of ``coef``
        alone (refitting it if needed), and this one forgets what it would have reported."""
        self.separated, self.unconverged = [], []
        refit = self.refit(coef)
        one = Relaxer(self.problem, tol=self.tol, max_iter=self.max_iter, penalty=self.penalty)
        if refit is not None and refit.separation is not None:
            one.separated.append(int(support(coef).size))
        elif refit is not None and not refit.converged:
            one.unconverged.append(int(support(coef).size))
        self.separated, self.unconverged = [], []
        return one

    def coefficients(self, coef: np.ndarray, intercept: np.ndarray,
                     relax: float) -> tuple[np.ndarray, np.ndarray]:
        """The relaxed ``(coef, intercept)`` of a penalised fit's ``(coef, intercept)`` (module
        docstring)."""
        refit = None if relax == 1.0 else self.refit(coef)
        if refit is None:
            return coef, intercept
        return (relax * coef + (1.0 - relax) * refit.coef,
                relax * intercept + (1.0 - relax) * refit.intercept)

    def blend(self, fit: LogisticFit, relax: float) -> LogisticFit:
        """The relaxed :class:`LogisticFit` of the penalised fit ``fit``: the blended coefficients,
        the log-likelihood there, both fits' iterations, converged when both did."""
        refit = None if relax == 1.0 else self.refit(fit.coef)
        if refit is None:
            return fit
        coef, intercept = self.coefficients(fit.coef, fit.intercept, relax)
        log_likelihood = (refit.log_likelihood if relax == 0.0
                          else self.log_likelihood(coef, intercept))
        record = fit.inference
        if isinstance(record, PenalisedFacts):
            record = replace(record, relax=relax, log_likelihood=float(log_likelihood),
                             converged=bool(record.converged and refit.converged))
        return replace(
            fit, coef=coef, intercept=intercept, n_iter=int(fit.n_iter + refit.n_iter),
            converged=bool(fit.converged and refit.converged),
            violation=float(max(fit.violation, refit.violation)),
            solver=f"{fit.solver}+{refit.solver}", separation=refit.separation,
            log_likelihood=float(log_likelihood), inference=record)

    def log_likelihood(self, coef: np.ndarray, intercept: np.ndarray) -> float:
        """The weighted log-likelihood of the problem's rows at ``(coef, intercept)``."""
        if self._loss is None:
            from linclass.linear.logistic.penalised import PenalisedObjective  # numba on first use

            p = self.problem
            X = p.X.astype(np.float64) if getattr(p.X, "dtype", None) == np.float32 else p.X
            self._loss = PenalisedObjective(X, p.y, p.n_classes, p.weight,
                                            make_penalty(None, 1.0, None),
                                            fit_intercept=p.fit_intercept,
                                            score_offset=p.offset)
        W, b = self._loss.internal(coef, intercept)
        return -float(self._loss.loss(self._loss.scores(W, b)))

    def warn(self, what: str, stacklevel: int = 3) -> None:
        """:func:`warn_refits` for this relaxer's refits."""
        warn_refits(what, [self], stacklevel=stacklevel + 1)


def warn_refits(what: str, relaxers, stacklevel: int = 3) -> None:
    """One :class:`~linclass.SeparationWarning` for the refits of ``relaxers`` whose
    maximum-likelihood estimate does not exist, one ConvergenceWarning for those that ran out of
    iterations; nothing when every refit is well defined.  Forgets what it reported."""
    relaxers = list(relaxers)
    separated = [s for r in relaxers for s in r.separated]
    unconverged = [s for r in relaxers for s in r.unconverged]
    if separated:
        sizes = ", ".join(str(s) for s in sorted(set(separated)))
        warnings.warn(
            f"{what}: the unpenalised refit on the selected features does not exist for "
            f"{len(separated)} support(s) (of {sizes} feature(s)): the classes are separated on "
            f"them and its coefficients diverge; they are finite only because the iteration "
            f"stopped (glmnet's relaxed fit does the same), so the relaxed coefficients there are "
            f"meaningless unless relax=1. Use a smaller C (fewer selected features) or relax "
            f"closer to 1.", SeparationWarning, stacklevel=stacklevel)
    if unconverged:
        max_iter = max(r.max_iter for r in relaxers)
        warnings.warn(
            f"{what}: the unpenalised refit on the selected features did not converge in "
            f"max_iter={max_iter} iterations for {len(unconverged)} support(s); increase "
            f"max_iter.", ConvergenceWarning, stacklevel=stacklevel)
    for r in relaxers:
        r.separated, r.unconverged = [], []


def relax_fit(fit: LogisticFit, problem: LogisticProblem, relax: float, *, tol: float = 1e-6,
              max_iter: int = 100, penalty=None, what: str = "LogisticRegression") -> LogisticFit:
    """The relaxed fit of one penalised fit ``fit`` of ``problem`` under ``penalty`` (whose bounds
    the refit keeps; ``relax=1``: ``fit`` itself), warning (:meth:`Relaxer.warn`) when the refit
    does not exist."""
    if relax == 1.0:
        return fit
    relaxer = Relaxer(problem, tol=tol, max_iter=max_iter, penalty=penalty)
    relaxed = relaxer.blend(fit, relax)
    relaxer.warn(f"{what} (relax={relax:g})", stacklevel=5)
    return relaxed
