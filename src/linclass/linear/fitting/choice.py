"""Which solver a logistic fit runs: the one place where scikit-learn's solver names are mapped,
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

From the Gaussian start (:mod:`linclass.linear.logistic.start`), on the benchmarks and the test problems,
Newton needs about 4 iterations and L-BFGS (in the metric of a sampled Hessian) about 8 evaluations;
either ends with the same exact final step.  With those counts Newton wins only when a Hessian costs
about as little as an evaluation: a handful of features (p up to about 10 for two classes, fewer
with more classes).  Measured on n = 100,000-200,000 rows (one BLAS thread, CPU time), L-BFGS was
1.1x (two classes, d = 5-20) to 2.7x (K = 5, d = 10) faster than Newton, and Newton's margin below
p = 10 is within the noise.
"""

from __future__ import annotations

from linclass.linear.inference.wald import MAX_PARAMS
from linclass.linear.logistic.layout import DENSE_BOUND_MAX, LOW_PRECISION_MIN

__all__ = ["AUTO_NEWTON_MAX_PARAMS", "DESIGN_OFFERS", "LINCLASS_SOLVERS", "SKLEARN_SMOOTH",
           "SKLEARN_SOLVERS", "SOLVER_DESIGNS", "SOLVER_NEEDS", "auto_solver", "check_chunked",
           "check_chunked_width",
           "choose_solver", "continues_with_newton", "sklearn_name", "subtask_bound"]

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
# iteration (linclass.linear.solvers.prox_newton_chunked), up to MAX_PARAMS parameters
SOLVER_DESIGNS["cd"] = (*SOLVER_DESIGNS["cd"], "chunked")

# 'auto' uses newton up to this many parameters, lbfgs above: a softmax Hessian costs K(K-1)/2
# weighted Gram products, so its limit is lower (measured: K=10, d=50 fits 1.6x faster with lbfgs)
AUTO_NEWTON_MAX_PARAMS = {True: 1000, False: 200}  # keyed by "two classes?"

_NEWTON_ITERATIONS = 4
_LBFGS_EVALUATIONS = 8
_LBFGS_MEMORY = 10


def auto_solver(objective, n_rows: int) -> str:
    """'newton' or 'lbfgs' for ``objective`` over ``n_rows`` rows, whichever costs fewer flops."""
    p, m = objective.shape
    K = objective.n_classes
    n_params = p * m
    evaluation = 4 * p * (1 if m == 1 else K) + 30 * K
    hessian = p * p * m * (m + 1) / 2 * (0.5 if n_rows * (p - 1) >= LOW_PRECISION_MIN else 1.0)
    factor = n_params**3 / 3
    newton = _NEWTON_ITERATIONS * (n_rows * (evaluation + hessian) + factor)
    sample = min(n_rows, max(2000, 100 * p))  # LinearObjective.curvature_metric's rows
    lbfgs = (_LBFGS_EVALUATIONS * (n_rows * evaluation + 4 * _LBFGS_MEMORY * n_params)
             + sample * p * p * m * (m + 1) / 2 + factor)
    return "newton" if newton <= lbfgs else "lbfgs"


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
    name = penalty.name
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
            f"solver='sag' minimises smooth objectives only (the L2 penalty or none), as in "
            f"scikit-learn; penalty={penalty.kind!r} needs solver='saga' (or 'cd', 'auto')."
        )
    # liblinear's objective (penalties.intercept): Newton for L2, proximal Newton for L1
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
                f"solver={solver!r} minimises smooth objectives only (the L2 penalty or none); "
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


def subtask_bound(solver: str, max_iter: int, penalty) -> int:
    """The most subtasks a fit reports to scikit-learn's callbacks
    (:mod:`linclass.estimators.fit_callbacks`): its iterations, at least one, and the one left
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
    (:mod:`linclass.linear.solvers.prox_newton_chunked`), up to :data:`MAX_PARAMS` parameters
    (:func:`check_chunked_width`)."""
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


def check_chunked_width(penalty, n_features: int, n_classes: int | None) -> None:
    """Proximal Newton on a chunked design forms the Hessian of m (d + 1) parameters (m = 1 for
    two classes, K for K) in every pass: refused above :data:`MAX_PARAMS` (``n_classes`` None:
    before the classes are known, two assumed)."""
    m = 1 if n_classes is None or n_classes == 2 else n_classes
    n_params = m * (n_features + 1)
    if n_params > MAX_PARAMS:
        what = f"penalty={penalty.kind!r}" if penalty.sparse else "solver='cd'"
        raise ValueError(
            f"{what} on Dask or file input is fitted by proximal Newton, which forms the Hessian "
            f"of all {n_params} parameters ({m} x ({n_features} features + 1)) in each pass, at "
            f"most MAX_PARAMS={MAX_PARAMS}. Fit on arrays in memory (solver='cd' reads columns), "
            "select fewer features, or use penalty='l2' with solver='lbfgs'.")


def continues_with_newton(requested: str, solver: str, result, objective) -> bool:
    """'auto': an L-BFGS run that stopped at ``max_iter`` (an ill-conditioned problem, such as
    unscaled pixel counts) goes on with Newton from where it stopped, when the Hessian is one
    that the inference table forms anyway (at most ``MAX_PARAMS`` parameters)."""
    return (sklearn_name(requested) == "auto" and solver == "lbfgs" and not result.converged
            and objective.n_params <= MAX_PARAMS)
