"""Proximal Newton for the penalised softmax (K > 2 classes), one class's row at a time.

The softmax Hessian couples the classes (:math:`\\mathrm{diag}(\\mu_i) - \\mu_i\\mu_i^T` per sample);
coordinate descent on the full K x d quadratic model is what fails to converge on simple problems.
Here the coefficients are updated by blocks, one class k at a time, each by the step of
:mod:`.prox_newton` on the exact Hessian of that block: with the other classes' scores fixed, class
k's row sees score gradients and curvatures

.. math::  g_i = w_i(\\mu_{ik} - [y_i = k]), \\qquad h_i = w_i\\mu_{ik}(1 - \\mu_{ik}),

the same quadratic model as a two-class fit; its step is found by coordinate descent (or the exact
small-model solve on dense X), and a backtracking line search on the full softmax objective along
that block accepts it.  This is block coordinate descent with a sufficient-decrease line search on
each block (Tseng and Yun 2009, "A coordinate gradient descent method for nonsmooth separable
minimization"), which converges to the optimum from any start; glmnet's multinomial fit takes the
same per-class steps without the line search (Friedman, Hastie and Tibshirani 2010, sec. 4).

Blocks converge only linearly, slowly where the classes are strongly coupled (nearly separable data,
weak penalty); on dense X with a small working set the fit takes proximal Newton steps on the full,
coupled K x d model instead (:mod:`.prox_newton_coupled`), and comes here when its working set
outgrows that model.

A pass over the classes is one outer iteration.  The fit stops when, in a pass that had to move no
class, every class's working set meets the tolerance, and then every column does (the full check of
:mod:`.prox_newton`).
"""

from __future__ import annotations

import numpy as np

from linclass.linear import compiled
from linclass.linear.solvers.prox_newton import (
    _FORCING,
    GRAM_MAX,
    MAX_SWEEPS,
    PenalisedResult,
    RowModel,
    line_search,
    screen,
    working_set_violation,
)

__all__ = ["prox_newton_softmax"]


def prox_newton_softmax(obj, W0, b0, *, tol: float = 1e-6, max_iter: int = 100, working_set=None,
                        max_sweeps: int = MAX_SWEEPS, gram_max: int = GRAM_MAX,
                        coupled: bool = True) -> PenalisedResult:
    """Minimise the K-class objective ``obj`` from ``(W0, b0)`` (internal layout, shapes (K, d) and
    (K,)); the parameters are those of :func:`.prox_newton`.  On dense X whose working set, in all
    classes together, fits the explicit model (``K x columns <= gram_max``) the coupled model of
    :mod:`.prox_newton_coupled` is used instead of blocks (``coupled=False``: blocks always)."""
    design, pen = obj.design, obj.penalty
    l1, l2 = pen.scalars()
    N, intercept = obj.total, obj.fit_intercept
    limit = tol * N
    K = obj.n_classes
    W = np.array(W0, dtype=np.float64).reshape(K, design.d).copy()
    b = np.array(b0, dtype=np.float64).reshape(K).copy() if intercept else np.zeros(K)
    S = obj.scores(W, b)
    P = np.empty_like(S)
    y, sw = obj.y, obj.sw
    onehot = np.zeros_like(S)
    onehot[y, np.arange(y.size)] = 1.0
    loss = compiled.softmax_terms(S, y, sw, P)
    F = loss + pen.value(W)
    history, sweeps_total, converged, n_iter = [F / N], 0, False, 0
    if working_set is None:
        G0 = design.gradient((P - onehot) * sw).T
        start = [screen(pen, W[k], G0[k], design.all_columns, 0.0) for k in range(K)]
    elif isinstance(working_set, (list, tuple)):
        start = [np.asarray(c, dtype=np.int64) for c in working_set]
    else:
        start = [np.asarray(working_set, dtype=np.int64)] * K
    ws = [np.union1d(np.flatnonzero(W[k]), start[k]) for k in range(K)]
    shared = np.unique(np.concatenate(ws))
    if coupled and not design.sparse and K * shared.size <= gram_max:
        from linclass.linear.solvers.prox_newton_coupled import prox_newton_coupled

        result, grown = prox_newton_coupled(obj, W, b, shared, tol=tol, max_iter=max_iter,
                                            max_sweeps=max_sweeps, gram_max=gram_max)
        if result is not None:
            return result
        # the working set outgrew the coupled model: go on by class blocks from this point
        return prox_newton_softmax(obj, W, b, tol=tol, max_iter=max_iter, working_set=grown,
                                   max_sweeps=max_sweeps, gram_max=gram_max, coupled=False)
    violation = np.inf
    while True:
        moved = False
        worst = 0.0
        for k in range(K):
            g = sw * (P[k] - onehot[k])
            h = sw * P[k] * (1.0 - P[k])
            model = RowModel(design, ws[k], g, h, intercept=intercept, gram_max=gram_max)
            v = working_set_violation(pen, W[k], model, intercept)
            worst = max(worst, v)
            if v <= limit:
                continue
            delta, db, z, sweeps = model.solve(W[k], l1, l2, max(_FORCING * v, 0.1 * limit),
                                               max_sweeps)
            sweeps_total += sweeps
            D = model.slope(W[k], delta, l1, l2, db)
            if not D < 0:
                continue
            zb = z + db
            wk = ws[k]
            w_ws, d_ws = W[k, wk], delta[wk]
            rest = pen.value(W) - pen.value(w_ws)

            def evaluate(t, k=k, zb=zb, rest=rest, w_ws=w_ws, d_ws=d_ws):
                return compiled.softmax_loss(S, k, zb, t, y, sw) + rest + pen.value(w_ws + t * d_ws)

            t, F_new = line_search(F, D, evaluate)
            if t == 0.0:
                continue
            moved = True
            W[k, wk] += t * d_ws
            b[k] += t * db
            S[k] += t * zb
            loss = compiled.softmax_terms(S, y, sw, P)
            F = loss + pen.value(W)
        if moved and pen.l1 + pen.l2 > 0:  # the flat direction of the loss: the penalty's best shift
            shift = pen.best_shift(W)
            W -= shift  # the scores move by the same amount in every class: the loss is unchanged
            F = loss + pen.value(W)
        if not moved:
            violation = worst
            if worst <= limit:  # every working set is solved at this one point: check every column
                V = (P - onehot) * sw
                G = design.gradient(V).T
                grew = False
                for k in range(K):
                    outside = screen(pen, W[k], G[k], design.all_columns, limit)
                    if outside.size:
                        ws[k] = np.union1d(ws[k], outside)
                        grew = True
                if not grew:
                    converged = True
                    violation = max(worst, float(pen.violation(W, G).max()) if G.size else 0.0)
                    break
            else:
                break  # no class can move although some violate: stalled at rounding level
        if n_iter >= max_iter:
            break
        n_iter += 1
        history.append(F / N)
    if pen.l1 + pen.l2 > 0:  # the reported point: the penalty's own shift (unique, see best_shift)
        W -= pen.best_shift(W)
    if not converged:
        V = (P - onehot) * sw
        G = design.gradient(V).T
        violation = max(float(pen.violation(W, G).max()) if G.size else 0.0,
                        float(np.abs(V.sum(axis=1)).max()) if intercept else 0.0)
    return PenalisedResult(W, b, n_iter, converged, violation / N, F, np.asarray(history),
                           sweeps_total, G)
