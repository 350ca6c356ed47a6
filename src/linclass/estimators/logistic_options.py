"""scikit-learn's option names for logistic regression, resolved to linclass's: the penalty from
``penalty`` / ``C`` / ``l1_ratio`` (an :class:`~linclass.linear.penalties.elastic_net.ElasticNet`), and the solver
that reaches the same optimum as each of scikit-learn's solvers.  No mathematics here."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from linclass.linear.penalties import intercept as intercept_penalty
from linclass.linear.logistic.layout import DENSE_BOUND_MAX
from linclass.linear.penalties.elastic_net import ElasticNet

__all__ = ["AUTO_NEWTON_MAX_PARAMS", "LINCLASS_SOLVERS", "SKLEARN_SOLVERS", "liblinear_problem",
           "resolve_penalty", "resolve_solver"]

#: scikit-learn's solver names -> the linclass solver that reaches the same optimum
SKLEARN_SOLVERS = {
    "lbfgs": "lbfgs",
    "newton-cg": "newton",
    "newton-cholesky": "newton",
    "sag": "auto",
    "saga": "auto",
    "liblinear": "newton",  # on liblinear's objective, whose intercept is penalised (L2 only)
}
LINCLASS_SOLVERS = ("auto", "cd", "newton", "bohning", "lbfgs", "sgd")

# 'auto' uses newton up to this many parameters, lbfgs above: a softmax Hessian costs K(K-1)/2
# weighted Gram products, so its limit is lower (measured: K=10, d=50 fits 1.6x faster with lbfgs)
AUTO_NEWTON_MAX_PARAMS = {True: 1000, False: 200}  # keyed by "two classes?"


def resolve_penalty(penalty, C: float, l1_ratio) -> ElasticNet:
    """The :class:`~linclass.linear.penalties.elastic_net.ElasticNet` of scikit-learn 1.9's ``penalty`` / ``C`` /
    ``l1_ratio`` combination (``penalty='firth'`` is not an elastic net: its callers handle it).

    ``penalty='auto'`` (scikit-learn's default, which it spells 'deprecated', also accepted) takes
    the penalty from ``l1_ratio``: 0 is L2, 1 is L1, in between the elastic net; ``C=np.inf`` is no
    penalty.  'l1' and 'l2' fix the ratio (an ``l1_ratio`` that says otherwise is ignored with a
    warning); 'elasticnet' uses ``l1_ratio``.  ``penalty=None`` is no penalty whatever C.
    """
    fixed = {"l1": 1.0, "l2": 0.0}
    if penalty in ("auto", "deprecated"):
        return ElasticNet(C, 0.0 if l1_ratio is None else float(l1_ratio))
    if penalty in fixed:
        if l1_ratio is not None and float(l1_ratio) not in (0.0, fixed[penalty]):
            warnings.warn(f"l1_ratio={l1_ratio} is ignored with penalty={penalty!r} (it mixes the "
                          "penalties only with penalty='elasticnet' or the default penalty).",
                          UserWarning, stacklevel=4)
        return ElasticNet(C, fixed[penalty])
    if penalty == "elasticnet":
        if l1_ratio is None:
            raise ValueError("penalty='elasticnet' needs l1_ratio, a number in [0, 1] (1: the lasso, "
                             "0: ridge).")
        return ElasticNet(C, float(l1_ratio))
    if penalty is None:
        if C != 1.0:
            warnings.warn(f"penalty=None fits without penalty: C={C} is ignored.", UserWarning,
                          stacklevel=4)
        return ElasticNet(float("inf"), 0.0)
    raise ValueError(f"Unknown penalty {penalty!r}.")


def resolve_solver(solver: str, penalty: ElasticNet, *, n_params: int, n_features: int,
                   n_classes: int, sparse: bool) -> str:
    """The linclass solver a fit runs.

    scikit-learn's names map through :data:`SKLEARN_SOLVERS` ('saga' / 'sag' to 'auto', which is
    'cd' under an L1 part).  'auto' picks 'cd' (proximal Newton with coordinate descent) for an L1
    part, and for a penalised sparse X with more than :data:`AUTO_NEWTON_MAX_PARAMS` parameters; other
    sparse X 'newton' up to that many parameters and 'lbfgs' above; on dense X it stays 'auto', for
    :func:`linclass.linear.fitting.choice.auto_solver` to decide on the objective.  A choice that cannot minimise the penalty, or would form a matrix too large
    to hold, is refused with the solver to use instead.
    """
    if penalty.sparse and solver == "liblinear":
        raise ValueError(
            "solver='liblinear' penalises the intercept; linclass's L1 and elastic-net fits leave it "
            "unpenalised, as scikit-learn's 'saga' does: use solver='saga' (or 'cd', the same "
            "optimum, reached by coordinate descent)."
        )
    solver = SKLEARN_SOLVERS.get(solver, solver)
    if solver == "auto":
        small = n_params <= AUTO_NEWTON_MAX_PARAMS[n_classes == 2]
        if penalty.sparse or (sparse and penalty.kind is not None and not small):
            return "cd"
        if not sparse:  # dense X: the cost model of linear.solvers.choice, once the objective exists
            return "auto"
        return "newton" if small else "lbfgs"
    if penalty.sparse and solver != "cd":
        raise ValueError(
            f"solver={solver!r} minimises smooth objectives only (the L2 penalty or none); "
            f"penalty={penalty.kind!r} needs solver='cd' (or 'auto', 'saga')."
        )
    p, m = n_features + 1, (1 if n_classes == 2 else n_classes - 1)
    if sparse and solver in ("newton", "bohning", "sgd") and p > DENSE_BOUND_MAX:
        gigabytes = 8.0 * (p * m) ** 2 / 1e9
        raise ValueError(
            f"solver={solver!r} forms and factors a {p * m} x {p * m} matrix on this sparse X with "
            f"{n_features} features (about {gigabytes:.3g} GB). Use solver='cd' or 'lbfgs', which "
            "never form it."
        )
    return solver


def liblinear_problem(model, data, previous):
    """solver='liblinear': two classes only, and with an intercept, liblinear's objective, whose
    intercept is the weight of a penalised constant feature ``intercept_scaling``
    (:mod:`linclass.linear.penalties.intercept`).  Returns ``(X, fit_intercept, scaling, previous)``
    for the smooth fit (``previous``, a warm start, in the augmented layout)."""
    if data.classes.size > 2:
        raise ValueError(
            f"solver='liblinear' fits two classes only (y has {data.classes.size}), as in "
            "scikit-learn; use another solver for softmax regression, or wrap the model in "
            "linclass.OneVsRestClassifier."
        )
    if not model.fit_intercept:
        return data.X, False, None, previous
    scaling = float(model.intercept_scaling)
    if previous is not None:
        previous = (previous[0], np.hstack([previous[1], previous[2][:, None] / scaling]),
                    np.zeros(1))
    if sp.issparse(data.X):  # the constant column appended to the stored entries
        column = sp.csr_matrix(np.full((data.X.shape[0], 1), scaling))
        return sp.hstack([data.X, column], format="csr"), False, scaling, previous
    return intercept_penalty.augment(data.X, scaling), False, scaling, previous
