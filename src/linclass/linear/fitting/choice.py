"""The table of the penalties a logistic fit takes and of the solvers that minimise them, and the
choice among them: which penalty ``LogisticRegression(penalty=...)`` names, which solver a fit
runs.  The two tables are one concept: a penalty lists its solvers (``penalty.solvers``), and the
choice reads that list beside the solvers' own table (what each asks of a design).

*The penalties.*  Every penalty a logistic fit takes, by the name ``LogisticRegression(penalty=...)`` gives it, and
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

and, for the proximal solvers, its value (in all and per column, ``column_values``), the change
and slope of a step, the coordinate update, the proximal step, the optimality violation and the
largest useful penalty
(:class:`~linclass.linear.penalties.elastic_net.ElasticNet`; the compiled loops take it through
``kernel(d)``, :mod:`linclass.linear.penalties.kernel`).  The objective it is minimised through,
where a smooth fit starts and what it records are the fit's
(:mod:`linclass.linear.fitting.fit`); a fit that modifies the likelihood (Firth's, liblinear's)
brings its own ``objective``, ``start``, ``coefficients`` and ``finish`` (liblinear's penalised
intercept wraps an L1 or L2 penalty of the table:
:func:`linclass.linear.fitting.liblinear.with_penalised_intercept`).

Adding a penalty is one module holding a class with this protocol, and its name in
:data:`PENALTIES`; :func:`linclass.linear.fitting.fit.fit_logistic` and the estimators' parameter
checks read the table.  It lives with the fit, not with the penalties: it names Firth's fit too,
which stands above the penalties.

*The solvers.*  Which solver a logistic fit runs: the one place where scikit-learn's solver names are mapped,
``solver='auto'`` is decided, a choice that cannot work is refused with the one that does, and an
unconverged L-BFGS run of 'auto' goes on with Newton.

:func:`choose_solver` decides from the penalty and the design's shape; on dense X 'auto' is decided
on the objective itself by :func:`auto_solver`, the solver with the lower predicted cost from a
count of floating-point work:

Per row of X, with p = d (+1) columns, m = 1 (two classes) or K - 1 blocks, and :math:`K_w` = 1 or
K residual columns:

* one evaluation (value and gradient: two products with X and the loss) costs about
  :math:`4pK_w + 30K` flops;
* one Hessian (:mod:`linclass.linear.logistic.curvature`) :math:`p^2m(m+1)/2` (half in float32, which Newton
  uses on large X), and its factorisation :math:`(pm)^3/3` once per iteration.

* one L-BFGS iteration, beside its evaluation, :math:`30\\,(pm)^2` for the solve with the start's
  metric (a triangular solve runs at memory speed, far below a product's) and :math:`4 \\cdot 10\\,pm`
  for the two-loop recursion.

The evaluation's :math:`30K` counts the elementwise work of the softmax (exponentials, logarithms,
normalisation), which runs at memory speed too.

From the Gaussian start (:mod:`linclass.linear.logistic.start`), on the benchmarks and the test problems,
Newton needs about 4 iterations and L-BFGS (in the metric of a sampled Hessian) about 8 evaluations;
either ends with the same exact final step.  With those counts Newton wins only when a Hessian costs
about as little as an evaluation: a handful of features (p up to about 10 for two classes, fewer
with more classes).  Measured on n = 100,000-200,000 rows (one BLAS thread, CPU time), L-BFGS was
1.1x (two classes, d = 5-20) to 2.7x (K = 5, d = 10) faster than Newton, and Newton's margin below
p = 10 is within the noise.

The start cannot tell an ill-conditioned problem: on raw pixel counts (digits, 64 features, 10
classes) L-BFGS needs hundreds of iterations where Newton needs about ten (939 against 12 at tol
1e-9: 2.1 s against 0.5 s).  So 'auto' watches L-BFGS (:class:`HandOver`): once the gradient's
decrease over the last iterations predicts more work to ``tol`` than a few Newton iterations, the
fit goes on with Newton from there, when the Hessian is one that the inference table forms anyway
(at most ``MAX_PARAMS`` parameters).
"""

from __future__ import annotations

import importlib
import math
import warnings

import numpy as np

from linclass.linear.firth.inference import Firth
from linclass.linear.inference.wald import MAX_PARAMS
from linclass.linear.logistic.layout import DENSE_BOUND_MAX, LOW_PRECISION_MIN
from linclass.linear.penalties.elastic_net import ElasticNet
from linclass.linear.penalties.grouped import GroupedElasticNet
from linclass.linear.solvers.prox_newton import prox_newton
from linclass.linear.solvers.prox_newton_softmax import prox_newton_softmax

__all__ = ["AUTO_NEWTON_MAX_PARAMS", "CONCAVE", "DESIGN_OFFERS", "HandOver", "LINCLASS_SOLVERS",
           "PENALTIES", "SKLEARN_SMOOTH", "SKLEARN_SOLVERS", "SOLVER_DESIGNS", "SOLVER_NEEDS",
           "auto_solver", "check_chunked", "choose_solver", "continues_with_newton",
           "coordinate_descent", "grouped",
           "hand_over", "iteration_costs", "make_penalty", "sklearn_name", "subtask_bound",
           "with_columns"]


# ------------------------------------------------------------------------------- the penalties
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


# -------------------------------------------------------------------------------- the solvers
#: scikit-learn's solver names -> the linclass solver that reaches the same optimum
SKLEARN_SOLVERS = {
    "lbfgs": "lbfgs",
    "newton-cg": "newton",
    "newton-cholesky": "newton",
    "sag": "auto",
    "saga": "auto",
    "liblinear": "newton",  # on liblinear's objective, whose intercept is penalised ('cd' for L1)
}
#: scikit-learn's solvers of smooth objectives only (the L2 penalty or none), which refuse an L1 part
SKLEARN_SMOOTH = ("lbfgs", "newton-cg", "newton-cholesky", "sag")
LINCLASS_SOLVERS = ("auto", "cd", "newton", "bohning", "lbfgs", "sgd")

#: what each solver asks of the objective over a design: ``passes`` (value and gradient, a pass over
#: the rows each), ``hessian`` (its exact Hessian in the same pass), ``bound`` (Böhning's bound,
#: the Gram matrix), ``rows`` (mini-batches of rows at will), ``columns`` (X column by column)
SOLVER_NEEDS = {
    "newton": {"passes", "hessian"},
    "bohning": {"passes", "bound"},
    "lbfgs": {"passes"},
    "sgd": {"rows"},  # shuffled mini-batches
    "cd": {"columns"},  # coordinate descent
}
#: what each kind of design offers (:mod:`linclass.linear.logistic`: LinearObjective on dense and
#: sparse X, ChunkedObjective on a chunk source, PenalisedObjective's column storage)
DESIGN_OFFERS = {
    "dense": {"passes", "hessian", "bound", "rows", "columns"},
    "sparse": {"passes", "hessian", "bound", "rows", "columns"},
    "chunked": {"passes", "hessian", "bound"},
}
#: the designs each solver runs on, through the same code; any other pair is refused with what
#: works instead
SOLVER_DESIGNS = {solver: tuple(d for d, offers in DESIGN_OFFERS.items() if needs <= offers)
                  for solver, needs in SOLVER_NEEDS.items()}
# 'cd' on a chunked design: proximal Newton on the model's exact Hessian ("hessian"), one pass per
# iteration (linclass.linear.solvers.prox_newton_chunked), up to MAX_PARAMS parameters; OWL-QN's
# gradient passes above (linclass.linear.solvers.owlqn)
SOLVER_DESIGNS["cd"] = (*SOLVER_DESIGNS["cd"], "chunked")

# 'auto' uses newton up to this many parameters, lbfgs above: a softmax Hessian costs K(K-1)/2
# weighted Gram products, so its limit is lower (measured: K=10, d=50 fits 1.6x faster with lbfgs)
AUTO_NEWTON_MAX_PARAMS = {True: 1000, False: 200}  # keyed by "two classes?"

_NEWTON_ITERATIONS = 4
_LBFGS_EVALUATIONS = 8
_LBFGS_MEMORY = 10
_METRIC_SOLVE = 30  # flops per entry of the metric's factor, solved at memory speed
_WINDOW = 10        # L-BFGS iterations over which HandOver measures the rate
_NEWTON_AFTER = 6   # Newton iterations HandOver expects from L-BFGS's point (raw digits: 7-8,
                    # standardised: 3-4, from the 20th to the 40th iteration)


def iteration_costs(objective, n_rows: int) -> tuple[float, float, float]:
    """``(newton, lbfgs, metric)``: the flops of one Newton iteration and of one L-BFGS iteration
    of ``objective`` over ``n_rows`` rows, and of L-BFGS's start (its metric on a sample of rows and
    the factorisation); see the module docstring."""
    p, m = objective.shape
    K = objective.n_classes
    n_params = p * m
    evaluation = 4 * p * (1 if m == 1 else K) + 30 * K
    hessian = p * p * m * (m + 1) / 2 * (0.5 if n_rows * (p - 1) >= LOW_PRECISION_MIN else 1.0)
    factor = n_params**3 / 3
    newton = n_rows * (evaluation + hessian) + factor
    lbfgs = n_rows * evaluation + 4 * _LBFGS_MEMORY * n_params + _METRIC_SOLVE * n_params**2
    sample = min(n_rows, max(2000, 100 * p))  # LinearObjective.curvature_metric's rows
    return newton, lbfgs, sample * p * p * m * (m + 1) / 2 + factor


def auto_solver(objective, n_rows: int) -> str:
    """'newton' or 'lbfgs' for ``objective`` over ``n_rows`` rows, whichever costs fewer flops."""
    newton, lbfgs, metric = iteration_costs(objective, n_rows)
    return ("newton" if _NEWTON_ITERATIONS * newton <= _LBFGS_EVALUATIONS * lbfgs + metric
            else "lbfgs")


class HandOver:
    """When 'auto' stops L-BFGS for Newton: called with the largest gradient entry after each
    L-BFGS iteration, true once the remaining L-BFGS work it predicts exceeds
    :data:`_NEWTON_AFTER` Newton iterations.

    The prediction: over the last :data:`_WINDOW` iterations the smallest gradient so far fell by
    ``rate`` decades per iteration; reaching ``tol`` from the smallest gradient now takes
    :math:`\\log_{10}(g/\\mathrm{tol}) / \\mathrm{rate}` more iterations (L-BFGS converges
    linearly at best on an ill-conditioned problem; a stall, rate 0, hands over at once).  Each
    costs :func:`iteration_costs`' L-BFGS iteration, against its Newton iteration.  Checked from
    the :data:`_WINDOW`-th iteration on, so a well-conditioned fit, done in a few iterations, is
    never handed over.

    Parameters
    ----------
    objective : LinearObjective or ChunkedObjective
    n_rows : int
    tol : float
        The fit's gradient tolerance.
    """

    def __init__(self, objective, n_rows: int, tol: float):
        newton, lbfgs, _ = iteration_costs(objective, n_rows)
        self.ratio = newton / lbfgs  # L-BFGS iterations per Newton iteration, in flops
        self.tol = float(tol)
        self.best: list[float] = []  # the smallest gradient entry so far, after each iteration
        self.handed_over = False

    def __call__(self, gradient: float) -> bool:
        best = min(gradient, self.best[-1]) if self.best else gradient
        self.best.append(best)
        if best <= self.tol or len(self.best) <= _WINDOW:
            return False
        rate = np.log10(self.best[-1 - _WINDOW] / best) / _WINDOW
        left = np.log10(best / self.tol)
        self.handed_over = bool(left > rate * _NEWTON_AFTER * self.ratio)
        return self.handed_over


def hand_over(requested: str, solver: str, objective, n_rows: int, tol: float) -> HandOver | None:
    """The :class:`HandOver` of an L-BFGS run that 'auto' chose, when Newton may go on from it (at
    most ``MAX_PARAMS`` parameters: :func:`continues_with_newton`); None otherwise."""
    if sklearn_name(requested) != "auto" or solver != "lbfgs" or objective.n_params > MAX_PARAMS:
        return None
    return HandOver(objective, n_rows, tol)


def sklearn_name(solver: str) -> str:
    """The linclass solver a (scikit-learn or linclass) solver name runs."""
    return SKLEARN_SOLVERS.get(solver, solver)


def choose_solver(solver: str, penalty, *, n_features: int, n_classes: int, sparse: bool,
                  max_iter: int = 1) -> str:
    """The linclass solver a fit runs: 'cd', 'newton', 'bohning', 'lbfgs', 'sgd', or 'auto' on dense
    X (decided on the objective by :func:`auto_solver`).

    scikit-learn's names map through :data:`SKLEARN_SOLVERS` ('saga' / 'sag' to 'auto').  'auto'
    picks 'cd' (proximal Newton with coordinate descent) for an L1 part, and for a penalised sparse
    X with more than :data:`AUTO_NEWTON_MAX_PARAMS` parameters; other sparse X 'newton' up to that
    many parameters and 'lbfgs' above.  A choice that cannot minimise the penalty, or would form a
    matrix too large to hold, is refused with the solver to use instead (what a chunked design
    cannot fit: :func:`check_chunked`).
    """
    name, given = penalty.name, solver
    if penalty.smooth and len(penalty.solvers) == 1:  # a solver of its own (Firth: Newton / IRLS)
        only = penalty.solvers[0]
        if sklearn_name(solver) not in ("auto", only):
            raise ValueError(f"penalty={name!r} is fitted by solver={only!r} only; use "
                             f"solver={only!r} or 'auto', not {solver!r}.")
        return only
    per_feature = getattr(penalty, "per_feature", False)
    if max_iter == 0 and "newton" in penalty.solvers:
        return "newton"  # no iteration: any solver returns its starting point
    if penalty.sparse and solver == "sag":  # runs 'auto', but scikit-learn's 'sag' refuses L1
        raise ValueError(
            f"Solver sag supports only 'l2' or None penalties, got {penalty.kind} penalty: "
            f"solver='sag' minimises smooth objectives only (the L2 penalty or none), as in "
            f"scikit-learn; penalty={penalty.kind!r} needs solver='saga' (or 'cd', 'auto')."
        )
    # liblinear's objective (fitting.liblinear): Newton for L2, proximal Newton for L1
    solver = "cd" if solver == "liblinear" and penalty.sparse else sklearn_name(solver)
    if solver == "auto":
        small = (n_features + 1) * (1 if n_classes == 2 else n_classes - 1) <= (
            AUTO_NEWTON_MAX_PARAMS[n_classes == 2])
        if penalty.sparse or per_feature or (sparse and penalty.kind is not None and not small
                              and "cd" in penalty.solvers):
            return "cd"
        if not sparse:  # dense X: the cost model, once the objective exists
            return "auto"
        return "newton" if small else "lbfgs"
    if solver not in penalty.solvers:
        if per_feature:
            raise ValueError(f"penalty_factor, lower_bounds and upper_bounds are fitted by "
                             f"solver='cd' (or 'auto', 'saga'), not {solver!r}.")
        if penalty.sparse:
            raise ValueError(
                f"Solver {given} supports only 'l2' or None penalties, got {penalty.kind} penalty: "
                f"solver={given!r} minimises smooth objectives only (the L2 penalty or none); "
                f"penalty={penalty.kind!r} needs solver='cd' (or 'auto', 'saga')."
            )
        raise ValueError(f"penalty={name!r} is minimised by solver "
                         f"{' or '.join(map(repr, penalty.solvers))}, not {solver!r}.")
    p, m = n_features + 1, (1 if n_classes == 2 else n_classes - 1)
    if sparse and solver in ("newton", "bohning", "sgd") and p > DENSE_BOUND_MAX:
        gigabytes = 8.0 * (p * m) ** 2 / 1e9
        raise ValueError(
            f"solver={solver!r} forms and factors a {p * m} x {p * m} matrix on this sparse X with "
            f"{n_features} features (about {gigabytes:.3g} GB). Use solver='cd' or 'lbfgs', which "
            "never form it."
        )
    return solver


def coordinate_descent(obj, W0, b0, **options):
    """Solver 'cd' in memory: minimise the penalised objective ``obj`` (a
    :class:`~linclass.linear.logistic.penalised.PenalisedObjective`) from ``(W0, b0)``, two classes
    by :func:`~linclass.linear.solvers.prox_newton.prox_newton`, K classes by
    :func:`~linclass.linear.solvers.prox_newton_softmax.prox_newton_softmax`; ``options`` as
    :func:`~linclass.linear.solvers.prox_newton.prox_newton` takes them.  The choice lives here,
    above both: the K-class fits build on the skeleton of :mod:`linclass.linear.solvers.prox_newton`
    (which therefore cannot name them), and a two-class fit never enters the K-class module.
    Returns a :class:`~linclass.linear.solvers.prox_newton.PenalisedResult`."""
    if obj.binary:
        return prox_newton(obj, W0, b0, **options)
    options.pop("warm", None)  # a warm state is the two-class fit's
    return prox_newton_softmax(obj, W0, b0, **options)


def subtask_bound(solver: str, max_iter: int, penalty) -> int:
    """The most subtasks a fit reports to scikit-learn's callbacks
    (:mod:`linclass.estimators.logistic.callbacks`): its iterations, at least one, and the one left
    open after the last, as scikit-learn's L-BFGS counts them (``max(max_iter, 1) + 1``); 'auto'
    may run Newton for up to ``max_iter`` more after an unconverged L-BFGS run
    (:func:`continues_with_newton`), and a fit without ``penalty`` may be refitted without its
    aliased columns (:mod:`linclass.linear.logistic.aliasing`)."""
    runs = (2 if sklearn_name(solver) == "auto" else 1) * (2 if penalty.kind is None else 1)
    return runs * max(int(max_iter), 1) + 1


def check_chunked(solver: str, penalty) -> None:
    """What a chunked design (Dask, files) cannot fit: every pass reads the data once, so the
    solvers and penalties that need the rows at once are refused with what works.  An L1 part (and
    solver 'cd') is fitted by proximal Newton on the model's Hessian, one pass per iteration
    (:mod:`linclass.linear.solvers.prox_newton_chunked`), up to :data:`MAX_PARAMS` parameters, and
    by OWL-QN's gradient passes above (:mod:`linclass.linear.solvers.owlqn`)."""
    if getattr(penalty, "grouped", False):
        raise ValueError("multinomial_penalty='grouped' needs the rows in memory; on Dask or file "
                         "input use multinomial_penalty='ungrouped'.")
    if getattr(penalty, "per_feature", False):
        raise ValueError("penalty_factor, lower_bounds and upper_bounds need the rows in memory "
                         "(solver 'cd'); fit on arrays.")
    if penalty.in_memory and getattr(penalty, "scaling", None) is None:
        raise ValueError(f"penalty={penalty.name!r} needs the rows in memory; fit on arrays, or use "
                         "penalty='l2' on Dask or file input.")
    if penalty.in_memory:
        raise ValueError("solver='liblinear' (a penalised intercept) needs the rows in memory; on "
                         "Dask or file input use solver='newton', 'bohning' or 'lbfgs' (or 'cd' "
                         "with an L1 part).")
    name = sklearn_name(solver)
    if penalty.sparse:
        if name not in ("auto", "cd"):
            raise ValueError(
                f"solver={solver!r} minimises smooth objectives only (the L2 penalty or none); "
                f"penalty={penalty.kind!r} needs solver='cd' (or 'auto', 'saga'), which on Dask "
                "or file input reads the data once per iteration.")
        return
    if "chunked" not in SOLVER_DESIGNS.get(name, ("chunked",)):
        raise ValueError(f"solver={solver!r} needs the rows in memory; on Dask or file input use "
                         "solver='newton', 'bohning', 'lbfgs' or 'cd' (each pass reads the data "
                         "once).")


def continues_with_newton(requested: str, solver: str, result, objective) -> bool:
    """'auto': an L-BFGS run that stopped at ``max_iter`` or was handed over (:class:`HandOver`:
    an ill-conditioned problem, such as unscaled pixel counts) goes on with Newton from where it
    stopped, when the Hessian is one that the inference table forms anyway (at most
    ``MAX_PARAMS`` parameters)."""
    return (sklearn_name(requested) == "auto" and solver == "lbfgs" and not result.converged
            and objective.n_params <= MAX_PARAMS)
