"""Penalty paths on chunked data (Dask collections, files): every fit of a cross-validation, each
fold's path and the path on all rows, advanced together so that one pass over the data serves a
step of every one of them.

Each path is the in-memory one (:func:`linclass.linear.fitting.path.path_steps`): C increasing,
every fit warm-started from the fit before, here by chunked proximal Newton
(:func:`~linclass.linear.solvers.prox_newton_chunked.prox_newton_requests`) on the exact Hessian
(no screening: the model is small, and every column is checked in every pass), and each fit starts
from the terms the previous fit ended with (no pass to re-evaluate the same point).  The fits are
generators of pass requests; :func:`lockstep` gathers the pending request of every path, answers
them all with one pass (:meth:`~linclass.linear.logistic.penalised_folds.FoldedPenalised.evaluate`)
and sends each its answer, until every path has ended.  So a cross-validation makes about as many
passes as its longest path, not the sum over folds.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from linclass.linear.fitting.fit import LogisticFit, penalised_fit
from linclass.linear.inference.wald import MAX_PARAMS
from linclass.linear.solvers.prox_newton_chunked import Evaluation, prox_newton_requests

__all__ = ["PathStep", "check_width", "lockstep", "null_gradient", "path_requests"]


@dataclass(frozen=True)
class PathStep:
    """One fit of a chunked path: its C, the fit (coefficients on the original features), and the
    held-out sums at it (:data:`~linclass.linear.logistic.penalised_folds.HELD_OUT`; None for the
    path on every row)."""

    C: float
    fit: LogisticFit
    held_out: np.ndarray | None


def check_width(n_features: int, n_classes: int, owner: str) -> None:
    """Chunked proximal Newton forms the Hessian of m (d + 1) parameters per fit in every pass:
    refused above :data:`~linclass.linear.inference.wald.MAX_PARAMS`."""
    m = 1 if n_classes == 2 else n_classes
    n_params = m * (n_features + 1)
    if n_params > MAX_PARAMS:
        raise ValueError(
            f"{owner} on Dask or file input fits each C by proximal Newton, which forms the "
            f"Hessian of all {n_params} parameters ({m} x ({n_features} features + 1)) in each "
            f"pass, at most MAX_PARAMS={MAX_PARAMS}. Fit on arrays in memory, or select fewer "
            "features.")


def path_requests(folded, g, template, Cs, l1_ratio: float, *, tol: float, max_iter: int,
                  terms=None):
    """Fit g's path (g: a fold, None for every row) as a generator of :class:`Evaluation`
    requests; returns the list of :class:`PathStep`, one per C of ``Cs`` (increasing).
    ``template``: the penalty, moved to each C (``template.at(C, l1_ratio)``); ``terms``: the
    model's terms at the intercept-only start when already known."""
    W = b = None
    out = []
    for C in np.asarray(Cs, dtype=np.float64):
        penalty = template.at(float(C), l1_ratio)
        obj = folded.view(g, penalty)
        if W is None:
            W, b = obj.null_start()
        result, terms = yield from prox_newton_requests(obj, W, b, tol=tol, max_iter=max_iter,
                                                        terms=terms)
        W, b = result.W, result.b
        fit = penalised_fit(obj, result, penalty, folded.classes)
        out.append(PathStep(float(C), fit, None if g is None else np.asarray(terms[3])))
    return out


def lockstep(folded, paths: dict) -> dict:
    """Run the paths ``{key: (g, generator)}`` together, one pass per round answering the pending
    request of every path still running; returns ``{key: the generator's value}``."""
    pending, done = {}, {}
    for key, (_, gen) in paths.items():
        try:
            pending[key] = next(gen)
        except StopIteration as stop:
            done[key] = stop.value
    while pending:
        keys = list(pending)
        answers = folded.evaluate([(paths[k][0], pending[k]) for k in keys])
        for key, answer in zip(keys, answers):
            try:
                pending[key] = paths[key][1].send(answer)
            except StopIteration as stop:
                done[key] = stop.value
                del pending[key]
    return done


def null_gradient(folded, template, n_rows: int) -> tuple:
    """One pass: the terms of the fit on every row at its intercept-only start (the first step of
    its path) and a view for :func:`linclass.linear.cv.resolve_grid`, which lays out
    glmnet's grid from the loss gradient there (the largest C at which every coefficient is
    zero)."""
    obj = folded.view(None, template)
    W, b = obj.null_start()
    (_, terms), = folded.evaluate([(None, Evaluation(W, b))])
    return terms, _NullView(template, np.asarray(terms[1])[:, :folded.d],
                            SimpleNamespace(n=int(n_rows)), folded.d)


class _NullView:
    """What :func:`~linclass.linear.cv.resolve_grid` reads of an objective: its
    penalty, ``with_penalty``, ``c_at_null`` (from the gradient at the intercept-only fit),
    ``design.n`` and ``d``."""

    def __init__(self, penalty, G0, design, d):
        self.penalty, self.G0, self.design, self.d = penalty, G0, design, d

    def with_penalty(self, penalty):
        return _NullView(penalty, self.G0, self.design, self.d)

    def c_at_null(self) -> float:
        return self.penalty.c_at_null(self.G0)
