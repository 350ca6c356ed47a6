"""Proximal Newton with coordinate descent on the quadratic model (glmnet / newGLMNET), for the
penalised objective of :mod:`linclass.linear.logistic.penalised`: the one skeleton every penalised
fit runs (working set, quadratic model and its solve, damped step, certificate), and its two-class
strategy.

The columns it works on form a *working set*: at the start, the columns that are non-zero or violate
their optimality condition (or a path's strong set, :mod:`linclass.linear.fitting.path`); the others would
stay at zero in coordinate descent's first pass.  Each outer iteration, at the current point
:math:`(w, b)` with score gradients :math:`g` and curvatures :math:`h` (two classes:
:math:`g_i = w_i(\\mu_i - y_i)`, :math:`h_i = w_i\\mu_i(1-\\mu_i)`):

1. **working set and check**: :math:`G = \\tilde X^Tg` on the working set (one read of its columns,
   which also gives the model's curvatures).  When the largest violation of the optimality
   conditions there (:meth:`~linclass.linear.logistic.penalised.PenalisedObjective.violation`), per unit of
   sample weight, is at most ``tol``, every column is checked (one pass over X); columns that
   violate theirs join the working set (the KKT check of Tibshirani et al. 2012; :class:`Growth`).
2. **quadratic model** :math:`q(\\delta) = g^Tz + \\frac12\\sum_i h_iz_i^2 + r(w + \\delta)`,
   :math:`z = \\tilde X\\delta + \\delta_b`, minimised approximately by coordinate descent
   (:func:`~linclass.linear.compiled.cd_naive`: glmnet's inner loop with its active-set cycling, the
   intercept profiled out, Anderson extrapolation) to an inner tolerance that shrinks with the outer
   violation (an inexact Newton method's forcing sequence; Yuan, Ho and Lin 2012, "An Improved
   GLMNET", sec. 3).  On dense X with a small working set the model's Hessian is formed once with
   BLAS and the model is solved exactly (:func:`~.small_model.solve_small_model`: coordinate descent, glmnet's
   covariance updates, then the feature-sign search).
3. **damped step**: backtracking (halving) until :math:`F(w + t\\delta) \\le F(w) + \\sigma t D`,
   :math:`D = \\nabla f^T\\delta + r(w + \\delta) - r(w)` (newGLMNET eq. 10, Tseng and Yun 2009),
   :math:`\\sigma = 0.01` (:func:`line_search`).  The step is usually accepted at :math:`t = 1`;
   the line search is what makes the iteration converge from any start.  Where the model cannot be
   trusted (curvatures near zero on rows predicted confidently and wrongly, as on nearly separable
   real data) the model is damped until a step is accepted (Levenberg-Marquardt's rule, "Damped
   steps" below).
4. **certificate**: at a point where no column violates its condition by more than the current
   limit (a KKT point) a duality gap, or two KKT points a decade apart that agree, bounds the
   objective's distance to the optimum (:class:`Certificate`); when it is not yet close enough the
   limit tightens and the fit goes on.  The reported violation is the largest over every column.

The loop is written once (:func:`newton_loop`); what differs between fits is a *strategy*: the
point, its working set and its model.  Two classes: :class:`TwoClass` (below); K classes: the
coupled K x d model by feature blocks (:class:`.prox_newton_softmax.ByFeature`) or formed
explicitly for small dense working sets (:class:`.prox_newton_coupled.Coupled`), both over the
K-class point of :mod:`.softmax_point`; solver 'cd'
(:func:`linclass.linear.fitting.choice.coordinate_descent`) chooses by the number of classes.  The
chunked fit (:mod:`.prox_newton_chunked`) takes the same damped steps and certificate over a model
of every column formed in passes over the data.

Damped steps
------------
The quadratic model of the log-loss at the current point has the curvatures
:math:`h_i = w_i\\mu_i(1 - \\mu_i)` in the scores.  A row the model predicts confidently *and wrongly*
(:math:`\\mu_i \\approx 0` for its own class) has a gradient near :math:`-w_i` but a curvature near
zero: the loss there is almost linear, and the model extrapolates that line without bound.  On nearly
separable real data (digits, text) whole directions of the model then have curvature at rounding level,
its minimiser lies at :math:`10^{19}` or beyond, and no backtracking from the full step reaches a
step length that lowers the objective: the undamped iteration stops where it is, far from the
optimum.

The remedy is the Levenberg-Marquardt one (Levenberg 1944, Marquardt 1963), for proximal Newton
methods analysed by Yue, Zhou and So (2019, "A family of inexact SQA methods for non-smooth convex
minimization with provable convergence guarantees based on the Luo-Tseng error bound property"):
minimise the damped model

.. math::

    q_\\nu(\\delta) = \\nabla f^T\\delta + \\tfrac12\\delta^TQ\\delta + \\tfrac\\nu2\\lVert\\delta\\rVert^2
                    + r(w + \\delta)

instead.  With :math:`\\nu = 0` it is the Newton model; as :math:`\\nu` grows the step becomes a
proximal gradient step of length :math:`1/\\nu`, which lowers the objective with the full step once
:math:`\\nu` exceeds the gradient's Lipschitz constant (the model then majorises the objective).  So a
step always exists, and the rule below (:class:`Damping`) finds it in a few tries:

* start each fit undamped (:math:`\\nu = 0`): on well-conditioned problems nothing changes;
* when the line search finds no step (or the step is not finite), raise :math:`\\nu` to
  :math:`\\max(10\\nu,\\ 10^{-6}\\bar a)` and solve the model again, :math:`\\bar a` being the mean
  curvature of the model's coordinates (a scale in the model's own units);
* after an accepted full step, lower :math:`\\nu` tenfold (to 0 once below the floor), so that near
  the optimum the iteration is proximal Newton again, with its fast local convergence; after an
  accepted step of length :math:`t < 1/8`, raise it for the next model, to at least the floor
  over :math:`t` (the model overshot by about :math:`1/t`).

The line search measures the decrease against the *undamped* directional derivative
:math:`D = \\nabla f^T\\delta + r(w + \\delta) - r(w)`, which the damped minimiser makes negative
(:math:`D \\le -\\delta^T(Q + \\nu I)\\delta`), so every accepted step satisfies the sufficient-decrease
condition of Tseng and Yun (2009).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from linclass.linear import compiled
from linclass.linear.solvers.small_model import (kernel_on, solve_small_model,
                                                 solve_small_model_uncompiled)

__all__ = ["CHECK_EVERY", "OBJECTIVE_SHARE", "Certificate", "Damping", "Growth", "PenalisedResult",
           "Step", "TwoClass", "WarmState", "damped_step", "damped_steps",
           "line_search", "look_outside", "newton_loop", "prox_newton", "row_step", "run_requests"]

# what tunes 1. the working set
_STRONG_EXTRA = 0.25  # a fit from zero starts from the strong set if it adds at most this share of
# entries to the violators' (:func:`_strong_start`)
_GROWTH_MIN = 64  # columns a working set grows by at least
CHECK_EVERY = 10  # iterations on a working set between checks of every column
_EARLY = 0.3      # look outside once the working set's violation is this far below the outside's

# 2. the quadratic model and its solve
_FORCING = 0.1           # inner tolerance = _FORCING x the outer violation
_GRAM_FORCING = 0.01     # an explicit model is solved this much tighter still: a pass of its
# coordinate descent costs q^2 for q columns, not a read of X, and its nearly exact steps save outer
# iterations (the dense 100-value L1 path, 20,000 x 100: 336 -> 256 iterations in all)
GRAM_MAX = 500           # dense working sets up to this size use the explicit model Hessian
SPARSE_GRAM_MAX = 1000   # and sparse ones (a sparse product), when coordinate descent is slow:
MAX_SWEEPS = 200         # coordinate-descent passes per outer iteration
_NAIVE_FIRST = MAX_SWEEPS  # it took all its passes on the data (fewer: 5x slower on a text path)
STALE_START = 0.1  # a fit's first model may use the Hessian its start point was left with (a path's
# previous penalty's) while no score has moved more than this since it was formed: each curvature
# h_i is then within about 10% of its own (:class:`WarmState`)
STALE_SCORES = 1e-3  # later models keep theirs while no score has moved more than this, so that
# the last steps of a fit stay Newton's (within 0.1%: the fit ends as close to the optimum)

# 3. the damped step
_SIGMA = 0.01            # sufficient-decrease constant of the line search
_MAX_HALVINGS = 50
_DAMPING_FLOOR = 1e-6    # the first damping, relative to the model's mean curvature
_DAMPING_GROWTH = 10.0
_MAX_TRIES = 16      # floor x 10^15: far past any Lipschitz constant of a log-loss model
_SHORT = 0.125       # an accepted step shorter than this raises the damping for the next model
_CEILING = 1e16      # the largest damping, relative to the floor (a step no model should need)

# 4. the certificate
_GAP_DECADES = 5  # how much tighter than tol the violation may be asked to be, for the gap's sake
_GAP_FLOOR = 1e-13  # and never below this, per unit of sample weight (the gradient's rounding)
OBJECTIVE_SHARE = 1e-2  # the objective's relative distance to the optimum asked for, per unit of tol


# ---- the fit, its result and the loop every strategy runs
@dataclass
class PenalisedResult:
    """The outcome of a penalised fit.

    Attributes
    ----------
    W, b : ndarrays of shape (m, d) and (m,)
        Coefficients and internal (shifted-design) intercepts.
    n_iter : int
        Outer (Newton) iterations; for softmax, passes over the classes.
    converged : bool
    violation : float
        Largest violation of the optimality conditions per unit of sample weight at (W, b).
    value : float
        The objective :math:`F` (summed scale) at (W, b).
    history : ndarray
        :math:`F` per unit weight at the start and after each outer iteration.
    n_sweeps : int
        Coordinate-descent passes in total (the work done, in units of one pass over the working set).
    gradient : ndarray of shape (m, d)
        Summed-loss gradient at (W, b) on the columns last checked (the working set or all).
    stalled : bool
        Whether the fit stopped before ``max_iter`` without converging because no step lowers the
        objective at working precision (more iterations cannot help).
    gap : float
        The duality gap at the last point certified (summed scale; an upper bound on the distance
        of the objective from its optimum), ``inf`` when none was.
    """

    W: np.ndarray
    b: np.ndarray
    n_iter: int
    converged: bool
    violation: float
    value: float
    history: np.ndarray
    n_sweeps: int = 0
    gradient: np.ndarray = field(default=None, repr=False)
    stalled: bool = False
    gap: float = float("inf")


def prox_newton(obj, W0, b0, *, tol: float = 1e-6, max_iter: int = 100, working_set=None,
                max_sweeps: int = MAX_SWEEPS, gram_max: int = GRAM_MAX,
                on_iteration=None, warm=None) -> PenalisedResult:
    """Minimise the two-class objective ``obj`` from ``(W0, b0)`` (internal layout); see the
    module docstring.

    Parameters
    ----------
    obj : :class:`~linclass.linear.logistic.penalised.PenalisedObjective`
    W0, b0 : ndarrays of shape (m, d) and (m,)
    tol : float
        Stop when the largest optimality violation per unit of sample weight is at most ``tol``.
    max_iter : int
        Outer iterations (passes over the classes for softmax).
    working_set : ndarray of int, or list of them (one per class), or None
        The columns to start from (a path's strong set, Tibshirani et al. 2012); None: the columns
        non-zero at the start or violating their condition there (one pass over X).  Columns left
        out are checked at the end and join when they violate their conditions.
    max_sweeps : int
        Coordinate-descent passes per quadratic model.
    gram_max : int
        Largest dense working set whose model Hessian is formed explicitly.
    on_iteration : callable or None
        Called with ``(W, b)`` (internal layout) after each outer iteration; a true result stops
        the run.
    warm : :class:`WarmState` or None
        What a previous fit of the same data left (a path's previous penalty): used where this
        fit starts at its end point and while its Hessian is near, and updated.
    """
    if not obj.binary:
        raise ValueError("prox_newton fits two classes; K classes: coordinate_descent")
    return newton_loop(TwoClass(obj, W0, b0, working_set, max_sweeps, gram_max, warm),
                       tol=tol, max_iter=max_iter, on_iteration=on_iteration)


def newton_loop(strategy, *, tol: float, max_iter: int, on_iteration=None):
    """The proximal Newton iteration every penalised in-memory fit runs (module docstring), over a
    ``strategy`` that holds the point and its working set and knows its model: two classes
    (:class:`TwoClass`), K classes by feature (:mod:`.prox_newton_softmax`) or on the explicit
    coupled model (:mod:`.prox_newton_coupled`).

    Each iteration: the model on the working set and its largest violation; when due, a look at
    every column (:func:`look_outside`: the certificate at a KKT point, or columns that join); the
    damped step (:func:`row_step`, :class:`Damping`); when no step lowers the objective, a last
    look outside before the fit is declared stalled; the move.  A strategy has

    ``obj``, ``growth``, ``ws``, ``F``   the objective, its :class:`Growth`, the working
                                         set and the objective's value at the point
    ``model()``                          ``(violation, step)``: the largest violation on the set and
                                         ``step(inner_tol, F, damping) -> Step``
    ``gradient()``, ``point()``          the loss gradient of every column (m, d); ``(W, b)``
    ``bare_scores()``                    the scores at ``(W, 0)`` (m, n), or None when not held
    ``held_products()``                  ``(X^T g, X^T h)`` at the point (two classes, dense X),
                                         or None when not held: the certificate's bound on
                                         :math:`X^Tr` without reading X
    ``add(columns)``                     grows the set; False when the strategy cannot hold it
    ``move(step)``                       takes the step, returns the objective there
    ``finish(...)``, ``outgrown()``      the result; the answer when ``add`` said False
    """
    N = strategy.obj.total
    limit = tol * N
    F = strategy.F
    history, sweeps_total, converged, stalled, n_iter = [F / N], 0, False, False, 0
    damping, certificate, growth = Damping(), Certificate(strategy.obj, tol), strategy.growth
    G = None
    while True:
        violation, step_of = strategy.model()
        if growth.due(violation, limit):  # look at every column
            G = strategy.gradient()
            W, b = strategy.point()
            converged, limit, outside, violation = look_outside(
                growth, certificate, W, b, F, G, strategy.ws, limit, violation,
                strategy.bare_scores(), strategy.held_products())
            if converged:
                break
            if outside.size:
                if not strategy.add(outside):
                    return strategy.outgrown()
                continue
        if n_iter >= max_iter:
            break
        n_iter += 1
        growth.iterated()
        inner_tol = max(_FORCING * violation, 0.1 * limit)
        step = step_of(inner_tol, F, damping)
        sweeps_total += step.sweeps
        if step.t == 0.0:  # no step lowers F on this working set: does a column outside violate?
            G = strategy.gradient()
            outside = growth.grow(strategy.point()[0], G, strategy.ws, limit)
            if outside.size:
                damping = Damping()
                if not strategy.add(outside):
                    return strategy.outgrown()
                continue
            stalled = True  # no step lowers F at working precision, however damped
            break
        F = strategy.move(step)
        history.append(F / N)
        if on_iteration is not None and on_iteration(strategy.point()):
            break
    return strategy.finish(n_iter=n_iter, converged=converged, stalled=stalled,
                           violation=violation, F=F, history=np.asarray(history),
                           sweeps=sweeps_total, G=G, gap=certificate.gap, tol=tol)


# ---- the two-class strategy
@dataclass(frozen=True)
class _Ahead:
    """What :meth:`TwoClass._step_ahead` formed in one read of X for the step ``delta``: its score
    change ``z``, and at its full step the products ``(X^T g, X^T h)``, the loss, g and h."""

    delta: np.ndarray
    z: np.ndarray
    products: tuple
    loss: float
    g: np.ndarray
    h: np.ndarray


class TwoClass:
    """The two-class strategy of :func:`newton_loop`: one row of coefficients ``w``, its model
    :class:`RowModel` on the score gradients g and curvatures h (:func:`row_step`)."""

    def __init__(self, obj, W0, b0, working_set, max_sweeps: int, gram_max: int, warm=None):
        self.obj, self.max_sweeps, self.gram_max = obj, max_sweeps, gram_max
        design, pen = obj.design, obj.penalty
        self.intercept = obj.fit_intercept
        self.w = np.array(W0, dtype=np.float64).reshape(-1).copy()
        self.b = float(np.reshape(b0, -1)[0]) if self.intercept else 0.0
        self.warm = WarmState() if warm is None else warm
        self.warm.started()
        resumed = self.warm.resume(self.w, self.b)
        if resumed is None:
            self.s = obj.scores(self.w[None, :], np.array([self.b]))[0]
            self._products = None  # X^T g, X^T h of every column at the point (dense X), once read
            n = self.s.size
            self.g, self.h = np.empty(n), np.empty(n)
            self.loss = obj.terms.binary_terms(self.s, obj.target, obj.sw, self.g, self.h)
        else:
            self.s, self._products, self.loss, self.g, self.h = resumed
        self.F = self.loss + pen.value(self.w)
        self.growth = Growth(pen, priority=False)
        X = design.X
        # a small design calls no compiled loop: its step's score change and next products are
        # BLAS products (Design.small)
        self._ahead_ok = (not design.sparse and not design.small and X.dtype == np.float64
                          and X.flags.c_contiguous)
        self._ahead = None
        # the working set: columns non-zero or violating at the start, grown by the checks
        w = self.w
        if working_set is None:
            G0 = design.gradient(self.g[None, :])[:, 0]
            support = np.flatnonzero(w)
            ws = np.union1d(support, self.growth.grow(w[None, :], G0[None, :], support, 0.0))
            if not support.size and pen.l1 > 0 and hasattr(pen, "strong_set"):
                ws = _strong_start(pen, G0, ws, design.column_nnz())
        else:
            ws = np.union1d(np.flatnonzero(w), np.asarray(working_set, dtype=np.int64).reshape(-1))
            # a path's fit starts from the strong set, which seldom misses a column: the columns
            # outside are looked at once the set is solved (or every CHECK_EVERY iterations), not
            # at the first point (on the 100-value sparse L1 path 99 of those first looks found
            # nothing); the look that ends the fit still covers every column
            self.growth.rest = 0.0
        self.ws = ws

    def _step_ahead(self, delta, db):
        """The score change :math:`\\tilde X\\delta` of a step, and in the same read of X the
        loss, g, h and the products :math:`(X^Tg, X^Th)` at the point of its full step, kept for
        :meth:`move`
        (:func:`~linclass.linear.compiled.sample_terms.step_products`): a full step, the usual one,
        then costs one read of X where the score change and the next products took two."""
        obj = self.obj
        design = obj.design
        n, d = design.n, design.d
        z, g, h, Xg, Xh = np.empty(n), np.empty(n), np.empty(n), np.empty(d), np.empty(d)
        loss = compiled.step_products(design.X, design.shift, delta, self.s, float(db),
                                      obj.target, obj.sw, z, g, h, Xg, Xh)
        self._ahead = _Ahead(delta, z, (Xg, Xh), loss, g, h)
        return z

    def _full_step(self, zb):
        """``(estimate, error)`` of the loss change of the full step ``zb`` when its loss was
        formed with its score change (:meth:`_step_ahead`), else None: the difference of the two
        summed losses, whose error (each a sum of n non-negative terms, each to a few units of
        rounding) is at most :math:`(n + 8)\\epsilon` times their sum; twice that also bounds the
        per-sample differences' own rounding (:func:`line_search`)."""
        ahead = self._ahead
        if ahead is None or ahead.z is not zb:
            return None
        error = 2.0 * (zb.size + 8) * np.finfo(float).eps * (abs(ahead.loss) + abs(self.loss))
        return ahead.loss - self.loss, error

    def products(self):
        """``(X^T g, X^T h)`` over every column at the current point, from one read of dense X:
        the model's gradient and the intercept's column of its Hessian on the working set, and the
        look at every column, come from the same product."""
        if self._products is None:
            P = self.obj.design.gradient(np.vstack((self.g, self.h)))
            self._products = (np.ascontiguousarray(P[:, 0]), np.ascontiguousarray(P[:, 1]))
        return self._products

    def model(self):
        obj = self.obj
        model = RowModel(obj.design, self.ws, self.g, self.h, intercept=self.intercept,
                         gram_max=self.gram_max, products=self.products, hessian=self.warm,
                         ahead=self._step_ahead if self._ahead_ok else None)

        def step(inner_tol, F, damping):
            def loss_change(zb, t):
                return obj.terms.binary_loss_change(self.s, zb, t, obj.target, obj.sw)
            return row_step(model, self.w, obj.penalty, inner_tol, self.max_sweeps, F, loss_change,
                            damping, self._full_step)
        return working_set_violation(obj.penalty, self.w, model, self.intercept), step

    def gradient(self):
        if self.obj.design.sparse:
            return self.obj.design.gradient(self.g[None, :]).T
        return self.products()[0][None, :]

    def point(self):
        return self.w[None, :], np.array([self.b])

    def bare_scores(self):
        return (self.s - self.b)[None, :]

    def held_products(self):
        return self._products

    def add(self, columns) -> bool:
        self.ws = np.union1d(self.ws, columns)
        return True

    def move(self, step) -> float:
        obj, ws = self.obj, self.ws
        t, (delta, db, zb) = step.t, step.step
        self.w[ws] += t * delta[ws]
        self.b += t * db
        self.s += t * zb
        self.warm.moved(t * float(np.max(np.abs(zb), initial=0.0)))
        # the full step's terms and products, formed with its score change (:meth:`_step_ahead`)
        ahead, self._ahead, self._products = self._ahead, None, None
        if ahead is not None and t == 1.0 and ahead.delta is delta:
            self._products, self.loss = ahead.products, ahead.loss
            self.g, self.h = ahead.g, ahead.h
        else:
            self.loss = obj.terms.binary_terms(self.s, obj.target, obj.sw, self.g, self.h)
        return self.loss + obj.penalty.value(self.w)

    def finish(self, *, n_iter, converged, stalled, violation, F, history, sweeps, G, gap, tol):
        obj = self.obj
        self.warm.ended(self.w, self.b, self.s, self._products, (self.loss, self.g, self.h))
        if not converged:
            G = self.gradient()
            violation = max(float(obj.penalty.violation(self.w, G[0]).max()) if G.size else 0.0,
                            abs(float(self.g.sum())) if self.intercept else 0.0)
            # stalled while tightening for the gap: the point still meets tol
            converged = stalled and violation <= tol * obj.total
        return PenalisedResult(self.w[None, :], np.array([self.b]), n_iter, converged,
                               violation / obj.total, F, history, sweeps, G, stalled, gap)


# ---- 1. the working set: which columns the model holds, and when those outside are looked at
class Growth:
    """How a working set grows, and when the columns outside it are looked at.

    With an L1 part the set grows by priority, as celer and skglm grow theirs (Massias, Gramfort
    and Salmon 2018): the worst violators first, at most as many as the non-zero columns or
    :data:`_GROWTH_MIN`, so that it stays near the support instead of taking every column that
    violates at a poor early point; and the columns outside are looked at (one product with X)
    as soon as the violation on the set is :data:`_EARLY` times the largest one left outside at the
    last look, not only once the set is solved to ``tol``: each set is solved about as far as the
    columns it leaves out allow, and the set doubles in a few cheap rounds.  Without an L1 part
    every column is non-zero at the optimum, and every violator joins at once; so do they with
    ``priority=False`` (one row of coefficients, whose model grows by a column per violator, where
    glmnet's rule of taking every violator measured 3 to 4 times faster than the doubling rounds
    on sparse text)."""

    def __init__(self, pen, priority: bool = True) -> None:
        self.pen = pen
        self.sparse = priority and pen.sparse
        self.rest = np.inf  # the largest violation outside the set at the last look
        self.since = 0      # iterations since then

    def due(self, violation: float, limit: float) -> bool:
        """Whether to look outside the set now (its own largest violation is ``violation``)."""
        return violation <= max(limit, _EARLY * self.rest) or self.since >= CHECK_EVERY

    def iterated(self) -> None:
        self.since += 1

    def grow(self, W: np.ndarray, G: np.ndarray, ws: np.ndarray, threshold: float) -> np.ndarray:
        """The columns to add to ``ws``: those violating by more than ``threshold``, the worst
        first (with an L1 part, at most the budget above)."""
        v = self.pen.violation(W, G).max(axis=0) if G.size else np.zeros(W.shape[1])
        v[ws] = 0.0
        out = np.flatnonzero(v > threshold)
        budget = max(_GROWTH_MIN, int(np.count_nonzero(np.any(W != 0, axis=0))))
        if self.sparse and out.size > budget:
            out = out[np.argpartition(-v[out], budget - 1)[:budget]]
        v[out] = 0.0
        self.rest, self.since = float(v.max(initial=0.0)), 0
        return np.sort(out).astype(np.int64)


def _strong_start(pen, G0: np.ndarray, ws: np.ndarray, nnz: np.ndarray) -> np.ndarray:
    """The working set of a fit from zero coefficients: the violators ``ws`` (:math:`|G_j(0)| >
    f_j\\lambda`), or the sequential strong set (Tibshirani et al. 2012) from the penalty at which
    zero is optimal, :math:`\\lambda_{max}`, to the fit's :math:`\\lambda` (every column with
    :math:`|G_j(0)| \\ge f_j(2\\lambda - \\lambda_{max})`; every column when :math:`\\lambda \\le
    \\lambda_{max}/2`) where its columns hold at most :data:`_STRONG_EXTRA` more stored entries
    (``nnz`` per column) than the violators'.

    The violators alone left out columns that the fit needed later, and each check that found some
    cost outer iterations on a changed model.  But a column in the set costs a product with it per
    pass over the whole set, so the strong set is taken where it adds little to each pass: the
    benchmark's text problem (50,000 x 20,000, one BLAS thread, medians of paired rounds), L1 at
    C = 1 (violators: 86% of the entries) 13 -> 6 outer iterations, 1.75x faster; elastic net 12
    -> 5, 2.0x; at C = 0.1 (violators: 157 columns, 49% of the entries) the strong set (every
    column) made the fit 0.79x as fast, and the violators are kept."""
    strong = pen.strong_set(G0[None, :], pen.l1, pen.null_l1(G0[None, :]))
    cols = np.arange(G0.size, dtype=np.int64) if strong is None else np.union1d(ws, strong[0])
    base = float(nnz[ws].sum())
    if float(nnz[cols].sum()) <= (1.0 + _STRONG_EXTRA) * base:
        return cols.astype(np.int64)
    return ws


def working_set_violation(pen, w, model, intercept: bool) -> float:
    """Largest optimality violation on the working set (and the intercept), summed scale."""
    v = pen.violation(w[model.ws], model.G, model.ws)
    out = float(v.max()) if v.size else 0.0
    return max(out, abs(model.gb)) if intercept else out


# ---- 2. the quadratic model on the working set
class RowModel:
    """The quadratic model of one row of coefficients (the binary log-odds, or one class) at the
    current point, restricted to a working set.

    Built from the score gradients g and curvatures h, in one read of the working-set columns: the
    gradient :math:`G = \\tilde X_{ws}^Tg` and either the column curvatures (coordinate descent on
    the data, :func:`~linclass.linear.compiled.cd_naive`) or, for dense X and a small working set,
    the profiled Hessian :math:`Q` (one BLAS product; :func:`~linclass.linear.compiled.cd_gram`).
    Sparse X starts with coordinate descent on the data; only when that misses the inner tolerance
    in all its :data:`_NAIVE_FIRST` passes (strongly correlated columns) is the Hessian of a small
    working set formed (one sparse product) and the model solved exactly: the product and the exact
    solve cost more than a whole step on an ordinary model (the 100-value L1 path of the benchmark's
    text problem took 7.3 s with the exact solve after 32 passes, 1.4 s with coordinate descent).
    """

    def __init__(self, design, ws, g, h, *, intercept: bool, gram_max: int = GRAM_MAX,
                 products=None, hessian=None, ahead=None):
        self.design, self.ws, self.g, self.h = design, ws, g, h
        self.hessian = hessian  # a store of the last Hessian formed, and whether it still serves
        # ``ahead(delta, db)``: the score change of a step of the explicit dense model, with the
        # next point's products formed in the same read of X (:meth:`TwoClass._step_ahead`)
        self.ahead = ahead
        self.H = float(h.sum()) if intercept else 0.0
        self.gb = float(g.sum()) if intercept else 0.0
        self.gram = ws.size <= (SPARSE_GRAM_MAX if design.sparse else gram_max)
        if self.gram and not design.sparse:  # the Hessian is formed when a step is asked for
            # ``products()``: X^T g and X^T h of every column at this point, in one read of X
            G, self._hx = products()
            self.G = G[ws]
        else:
            q = ws.size
            self.G, self.hx, self.a = np.empty(q), np.empty(q), np.empty(q)
            compiled.column_terms(design.kernel_X, design.shift, ws, g, h, self.H, self.G, self.hx,
                                 self.a)

    @property
    def scale(self) -> float:
        """The mean curvature of the model's coordinates (the damping's unit)."""
        if hasattr(self, "a"):
            a = self.a
        else:
            a = np.diag(self._gram()[0])
        return float(np.mean(a)) if a.size else 1.0

    def _gram(self):
        if not hasattr(self, "Q"):
            hx = getattr(self, "_hx", None)
            hx = None if hx is None else hx[self.ws]
            kept = None if self.hessian is None else self.hessian.kept(self.ws)
            if kept is not None and hx is not None:  # curvatures near those it was formed at
                self.Q, self.hx = kept, hx
            else:
                self.Q, self.hx = self.design.weighted_gram(self.ws, self.h, self.H, hx)
                if self.hessian is not None:
                    self.hessian.formed(self.ws, self.Q)
        return self.Q, self.hx

    def solve(self, w, pen, kernel, inner_tol, max_sweeps, nu: float = 0.0):
        """Minimise the model (damped by ``nu``, :class:`Damping`) approximately; returns
        ``(delta (d,), db, z (n,), sweeps)`` with z the score change :math:`\\tilde X\\delta` (the
        intercept step db not included); ``pen`` is the penalty, ``kernel`` the penalty of every
        column as the compiled loops take it (:class:`~linclass.linear.penalties.kernel.PenaltyKernel`)."""
        design, ws, H = self.design, self.ws, self.H
        sweeps = 0
        if not self.gram or design.sparse:
            first = min(_NAIVE_FIRST, max_sweeps) if self.gram else max_sweeps
            delta = np.zeros(design.d)
            m = self.hx / H if H > 0 else np.zeros(ws.size)
            r = self.g.copy()
            state = np.array([self.gb, H])
            sweeps = compiled.cd_naive(design.kernel_X, design.shift, ws, w, delta, self.a, m, self.h,
                                      r, state, kernel.prox, kernel.value, kernel.params,
                                      kernel.curvature, kernel.lower, kernel.upper, inner_tol,
                                      first, float(nu))
            if sweeps >= first and not self.gram and design.sparse:  # too many columns for their
                moving = np.flatnonzero((w[ws] != 0.0) | (delta[ws] != 0.0))  # Hessian: the
                if moving.size <= GRAM_MAX:  # moving ones, if few (:meth:`_explicit`)
                    cols = ws[moving]
                    Q, hx = design.weighted_gram(cols, self.h, H)
                    delta, db, more = self._explicit(cols, self.G[moving], Q, hx, w, pen, kernel,
                                                     inner_tol, max_sweeps, nu)
                    return delta, db, design.step(delta, cols), sweeps + more
            if sweeps < first or not self.gram:
                db = -state[0] / H if H > 0 else 0.0
                return delta, db, design.step(delta, ws), sweeps
        # the explicit model: dense X, or sparse X where coordinate descent on the data is slow
        Q, hx = self._gram()
        delta, db, more = self._explicit(ws, self.G, Q, hx, w, pen, kernel, inner_tol, max_sweeps,
                                         nu)
        z = design.step(delta, ws) if self.ahead is None else self.ahead(delta, db)
        return delta, db, z, sweeps + more

    def _explicit(self, cols, G, Q, hx, w, pen, kernel, inner_tol, max_sweeps, nu):
        """``(delta (d,), db, passes)``: the model on the columns ``cols`` (the working set's
        gradient ``G`` there, their profiled Hessian ``Q`` and :math:`\\tilde X_c^Th`), the other
        columns held, solved as an explicit model (:mod:`.small_model`).  Besides the working set
        itself: the columns that move, for sparse X whose working set is too large for its Hessian
        while coordinate descent on the data used all its passes (strongly correlated columns): on
        the standard library's text (2,609 x 4,934, two classes, L1, C = 3.2) descent on the
        model's 1,722 columns took its 200 passes in each of nine Newton steps, lowering the
        violation by under 1% in each, while 310 columns moved; the fit took 256 ms, and 63 ms
        solved on those.  The held columns are looked at again in the next model."""
        design, H = self.design, self.H
        grad = G - hx * (self.gb / H) if H > 0 else G.copy()
        args = (Q, grad, np.ascontiguousarray(w[cols]), pen, cols, kernel_on(kernel, cols),
                inner_tol * _GRAM_FORCING, max_sweeps, nu)
        if design.small:
            d_cols, more = solve_small_model_uncompiled(*args)
        else:  # dense: every pass of coordinate descent first (solve_small_model's ``first``); a
            # sparse model's columns may number SPARSE_GRAM_MAX, its passes not cheap
            d_cols, more = solve_small_model(*args, first=32 if design.sparse else max_sweeps)
        delta = np.zeros(design.d)
        delta[cols] = d_cols
        db = -(self.gb + hx @ d_cols) / H if H > 0 else 0.0
        return delta, db, more

    def slope(self, w, delta, pen, db) -> float:
        """:math:`D = \\nabla f^T\\delta + r(w + \\delta) - r(w)` (the L2 part counted as smooth)."""
        ws = self.ws
        dw, ww = delta[ws], w[ws]
        return float(self.G @ dw) + self.gb * db + pen.slope(ww, dw, ws)


class WarmState:
    """What a two-class fit leaves for the next fit of the same data that starts where it ended (a
    path's next penalty): the scores at its end point, the loss, score gradients and curvatures
    there (a pass over the scores), on dense X the products
    :math:`X^Tg, X^Th` there (two reads of X the next fit need not make), and the dense model
    Hessian :math:`Q` of a working set, kept from one point to the next while the scores have
    moved by at most :data:`STALE_SCORES` since it was formed.

    A curvature :math:`h_i = w_i\\mu_i(1-\\mu_i)` changes by a factor of at most
    :math:`e^{|\\Delta s_i|}` when the score moves by :math:`\\Delta s_i`, so the kept :math:`Q`
    is within about 10% of the one at the point (0.1% after a fit's first model).  The model's
    gradient stays exact (it fixes the optimum) and the line search judges every step, so a kept Hessian changes only the rate: a
    proximal Newton step with a Hessian off by a factor :math:`\\epsilon` contracts the distance
    to the optimum by about :math:`\\epsilon` per iteration (Lee, Sun and Saunders 2014,
    "Proximal Newton-type methods for minimizing composite functions", sec. 3.3).  Where it pays:
    a path's next penalty starts at the point its previous one ended, near where the Hessian was
    last formed; and the last iteration of a fit, taken to certify its point, often moves the
    scores very little.  Measured on the dense 100-value L1 path (20,000 x 100): 336 Hessians
    formed before, 132 with one bound of 10%, 241 with one of 0.1%; the first left the ends of
    fits up to 2e-10 (relative) from the optimum where Newton's last step had reached it."""

    def __init__(self):
        self.ws, self.Q, self.drift = None, None, np.inf
        self.first = True  # no model of the current fit has asked yet
        self.end = None    # (w, b, scores, products, (loss, g, h)) where the last fit ended

    def ended(self, w, b: float, s, products, terms) -> None:
        self.end = (w.copy(), b, s.copy(), products, terms)

    def resume(self, w, b: float):
        """``(scores, products, loss, g, h)`` at ``(w, b)`` when the last fit ended there, else
        None (g and h: the score gradients and curvatures)."""
        if self.end is None or self.end[1] != b or not np.array_equal(self.end[0], w):
            return None
        loss, g, h = self.end[4]
        return self.end[2].copy(), self.end[3], loss, g.copy(), h.copy()

    def started(self) -> None:
        """A fit starts at the point where the kept Hessian's last fit ended."""
        self.first = True

    def kept(self, ws):
        """The kept Hessian of the working set ``ws`` when it was formed over ``ws`` or more
        columns (the entries of a set's profiled Hessian are those of any larger set's) and is
        still near (:data:`STALE_START` for a fit's first model, else :data:`STALE_SCORES`), else
        None."""
        first, self.first = self.first, False
        if self.Q is None or self.drift > (STALE_START if first else STALE_SCORES):
            return None
        if np.array_equal(ws, self.ws):
            return self.Q
        at = np.searchsorted(self.ws, ws)  # both sorted: ws is a subset when each lands on itself
        if 0 < ws.size < self.ws.size and at[-1] < self.ws.size and np.array_equal(self.ws[at], ws):
            return self.Q[np.ix_(at, at)]
        return None

    def formed(self, ws, Q) -> None:
        self.ws, self.Q, self.drift = ws.copy(), Q, 0.0

    def moved(self, by: float) -> None:
        self.drift += by


# ---- 3. the damped step
def row_step(model, w, pen, inner_tol: float, max_sweeps: int, F: float, loss_change,
             damping: Damping, full_step=None) -> Step:
    """One damped proximal Newton step of one row of coefficients ``w`` (the binary log-odds, or
    one class's row) on its model (:class:`Damping`).

    ``loss_change(zb, t)`` is the change of the summed loss when this row's scores move by
    ``t * zb`` (:func:`line_search`); ``full_step(zb)``, when given, ``(estimate, error)`` of
    ``loss_change(zb, 1)`` when known without it, else None.  Returns a :class:`Step` whose
    ``step`` is ``(delta (d,), db, zb (n,))``, ``zb`` the score change with the intercept's."""
    kernel = pen.kernel(w.size)
    ws = model.ws
    w_ws = w[ws]

    def propose(nu):
        delta, db, z, sweeps = model.solve(w, pen, kernel, inner_tol, max_sweeps, nu)
        z += db  # (z is the model's own array: zb keeps its identity for ``full_step``)
        return (delta, db, z), model.slope(w, delta, pen, db), sweeps

    def search(step, D):
        delta, _, zb = step
        d_ws = delta[ws]
        first = None if full_step is None else full_step(zb)
        if first is not None:
            first = (first[0] + pen.change(w_ws, d_ws, 1.0, ws), first[1])
        return line_search(F, D, lambda t: loss_change(zb, t) + pen.change(w_ws, d_ws, t, ws),
                           first)

    return damped_step(propose, search, damping, model.scale, F)


class Damping:
    """The damping :math:`\\nu` of one block of coefficients, carried from one model to the next."""

    def __init__(self) -> None:
        self.nu = 0.0
        self.floor = 0.0

    def raise_(self, scale: float) -> None:
        """After a rejected step: a stronger damping (module docstring, "Damped steps"), at most
        :math:`10^{10}` times the model's curvature."""
        self.floor = _DAMPING_FLOOR * max(float(scale), np.finfo(float).tiny)
        self.nu = min(max(_DAMPING_GROWTH * self.nu, self.floor), _CEILING * self.floor)

    def accepted(self, t: float, scale: float) -> None:
        """After an accepted step of length ``t``: lower the damping after a full step; after a
        short one raise it in proportion to how short (a model that overshot by 1/t)."""
        if t >= 1.0:
            self.nu = self.nu / _DAMPING_GROWTH if self.nu > _DAMPING_GROWTH * self.floor else 0.0
        elif t < _SHORT:
            self.raise_(scale)
            self.nu = min(max(self.nu, self.floor / t), _CEILING * self.floor)


@dataclass
class Step:
    """An accepted step: its length ``t``, the objective there, the model's step and directional
    derivative, and the damping it was taken with.  ``t = 0`` means none was found (stalled)."""

    t: float
    value: float
    step: object = None
    slope: float = 0.0
    nu: float = 0.0
    sweeps: int = 0


def damped_step(propose, search, damping: Damping, scale: float, f0: float) -> Step:
    """Solve the damped model, search along its step, and damp harder until a step is accepted.

    Parameters
    ----------
    propose : callable ``nu -> (step, slope, sweeps)``
        Minimises the model with damping ``nu``; ``slope`` is the undamped directional derivative
        :math:`D` of the objective along ``step`` (a tuple of arrays or an array).
    search : callable ``(step, slope) -> (t, value)``
        The backtracking line search along ``step`` (``t = 0``: none found).
    damping : :class:`Damping`
        Updated in place.
    scale : float
        The model's mean curvature (sets the damping's floor).
    f0 : float
        The objective at the current point.

    Returns
    -------
    :class:`Step`; ``t = 0`` when the model's step is zero (the point is optimal at working
    precision) or no damping up to :math:`10^{15}` times the model's curvature gives an accepted
    step (a step that is not a descent direction, from a model solved inaccurately, is damped
    like a rejected one).
    """
    return run_requests(damped_steps(propose, _asking_nothing(search), damping, scale, f0))


def damped_steps(propose, search, damping: Damping, scale: float, f0: float):
    """:func:`damped_step` as a generator, for a solver whose evaluations are requests answered
    from outside (:mod:`.prox_newton_chunked`: several fits share each pass over the data).
    ``search`` is a generator function ``(step, slope)`` whose requests are passed on (``yield
    from``) and which returns ``(t, value)``; the generator returns the :class:`Step`."""
    sweeps = 0
    for _ in range(_MAX_TRIES):
        step, slope, work = propose(damping.nu)
        sweeps += work
        if not np.isfinite(slope):
            damping.raise_(scale)
            continue
        if slope == 0.0:  # the model's minimiser is no step: optimal at working precision
            return Step(0.0, f0, step, slope, damping.nu, sweeps)
        if not slope < 0:  # an uphill step: the model is not solved accurately enough, damp it
            damping.raise_(scale)
            continue
        t, value = yield from search(step, slope)
        if t > 0.0:
            nu = damping.nu
            damping.accepted(t, scale)
            return Step(t, value, step, slope, nu, sweeps)
        damping.raise_(scale)
    return Step(0.0, f0, None, 0.0, damping.nu, sweeps)


def _asking_nothing(search):
    """A plain line search ``(step, slope) -> (t, value)`` as a generator function that makes no
    request."""
    def steps(step, slope):
        return search(step, slope)
        yield  # pragma: no cover  (makes this a generator)
    return steps


def run_requests(requests, answer=None):
    """Run the generator ``requests`` to its end, answering each request with ``answer(request)``
    (no request is expected when ``answer`` is None); returns the generator's value."""
    try:
        request = next(requests)
        while True:
            if answer is None:
                raise RuntimeError(f"unexpected request {request!r}")
            request = requests.send(answer(request))
    except StopIteration as stop:
        return stop.value


def line_search(f0: float, slope: float, change, first=None) -> tuple[float, float]:
    """Largest :math:`t = 2^{-k}` with ``change(t) <= sigma t slope``; returns ``(t, f0 +
    change(t))``, ``t = 0`` when none is found.

    ``first``: ``(estimate, error)`` of ``change(1)`` known without its pass over the samples,
    ``error`` bounding the estimate's distance from the exact change and from ``change(1)``'s
    own result; the full step is taken on it when ``estimate + error <= sigma slope`` (where
    ``change(1)`` would take it too), else ``change(1)`` is formed.

    ``change(t)`` is :math:`F(w + t\\delta) - F(w)` computed as a sum of per-sample differences
    (:func:`~linclass.linear.compiled.binary_loss_change`, :meth:`~linclass.linear.penalties.elastic_net.ElasticNet.change`), not as the
    difference of two sums: near the optimum the decrease of a step is far below the rounding of
    :math:`F` itself (a sum of n terms), and only the differences resolve it.  A predicted decrease
    below :math:`F`'s own resolution is accepted with the full step when the step does not raise
    :math:`F`: the stored value cannot tell such points apart, and the next optimality check judges
    it."""
    resolution = np.finfo(float).eps * max(abs(f0), 1.0)
    if first is not None and first[0] + first[1] <= _SIGMA * slope:
        return 1.0, f0 + first[0]
    t = 1.0
    for k in range(_MAX_HALVINGS):
        c = change(t)
        if np.isfinite(c) and c <= _SIGMA * t * slope:
            return t, f0 + c
        if k == 0 and -slope <= resolution and c <= resolution:
            return t, f0 + c
        t *= 0.5
    return 0.0, f0


# ---- 4. the certificate
def look_outside(growth: Growth, certificate: Certificate, W, b, F: float, G, ws, limit: float,
                 violation: float, bare_scores=None, products=None):
    """A look at every column (``G``: the loss gradient of all of them, shape of W), when
    :meth:`Growth.due`.  Returns ``(converged, limit, outside, violation)``: the columns to add to the
    working set; at a KKT point (none to add and the set's ``violation`` within ``limit``) the
    certificate's verdict, the limit it asks for next, and the violation over every column."""
    outside = growth.grow(W, G, ws, limit)
    if outside.size or violation > limit:
        return False, limit, outside, violation
    violation = max(violation, float(growth.pen.violation(W, G).max()) if G.size else 0.0)
    converged, limit = certificate.check(W, b, F, limit, violation, bare_scores, products)
    if converged:
        return True, limit, outside, violation
    # the gap asks for a tighter point: the columns violating the new limit join
    return False, limit, growth.grow(W, G, ws, limit), violation


class Certificate:
    """When a point whose every optimality violation is within the current limit is close enough to
    the optimum, in objective.

    A violation bound alone does not bound the objective (:mod:`linclass.linear.logistic.penalised`, "Duality
    gap").  At each such point (a *KKT point*) the fit is done when

    1. the duality gap is at most :data:`OBJECTIVE_SHARE` ``* tol`` times the objective (a
       certificate: at the default ``tol=1e-6``, within 1e-8 of the optimal objective), or
    2. the objective fell by at most :data:`OBJECTIVE_SHARE` ``* tol`` times itself since the
       previous KKT point, whose limit was at least ten times looser: the lasso's gap is first-order
       in the violation (about :math:`v\\lVert W\\rVert_1`) while the distance to the optimum is
       second-order, so on weakly penalised fits with large coefficients the gap stays pessimistic
       long after the objective has settled.  Two KKT points a decade apart that agree to the
       share asked of the gap bound the remaining decrease by about that share: where the
       objective converges at least geometrically with a ratio of one half or better per decade of
       violation, what is left is at most the last fall.  (Agreement to ``tol`` alone is not
       enough: on the standard library's text, two classes, L1 with C = 10, two KKT points a
       decade apart agreed to 8.9e-7 of the objective while the second was still 3.7e-7 above the
       optimum: the distance fell by 3.4 times for a decade of violation, not by a hundred.), or
    3. the limit is :data:`_GAP_DECADES` decades below ``tol``, or at :data:`_GAP_FLOOR` per unit of
       sample weight (rounding, not the fit, then limits the objective).

    Otherwise the limit drops to a tenth of the current violation (when the gap is within ``tol``
    of the objective, and so second-order in the violation, by the square root of the factor it is
    still too large, at least halved) and the fit goes on.

    ``tol`` bounds the violations; the objective is asked to be :data:`OBJECTIVE_SHARE` of it
    (two decades closer), as a smooth fit's final Newton step squares its gradient: with the gap
    at ``tol`` times the objective the elastic net stopped 1.5e-7 (text from the standard library,
    two classes, C = 10) and 5.4e-7 (its thirteen packages) above the optimum.  The gap converges
    about quadratically with proximal Newton, so the share costs about one more iteration.
    """

    def __init__(self, obj, tol: float):
        self.obj, self.tol = obj, tol
        self.floor = max(tol * 10.0 ** -_GAP_DECADES, _GAP_FLOOR) * obj.total
        self.gap = np.inf
        self.previous = None  # the objective at the previous KKT point

    def check(self, W, b, F: float, limit: float, violation: float,
              bare_scores=None, products=None) -> tuple[bool, float]:
        """``(done, limit)`` at a KKT point (objective ``F``, violations within ``limit``;
        ``bare_scores``: the scores at ``(W, 0)`` when known, which saves a product with X;
        ``products``: :math:`(X^Tg, X^Th)` there when known, which saves the other,
        :meth:`~linclass.linear.logistic.penalised.PenalisedObjective.gap_and_value`)."""
        if bare_scores is None:
            self.gap = self.obj.duality_gap(W, b, F)
        else:
            self.gap = self.obj.duality_gap(W, b, F, bare_scores=bare_scores, products=products)
        allowed = self.tol * max(F, np.finfo(float).tiny)
        wanted = OBJECTIVE_SHARE * allowed
        settled = self.previous is not None and self.previous - F <= wanted
        self.previous = F
        if self.gap <= wanted or settled or limit <= self.floor:
            return True, limit
        # a gap within tol of the objective is second order in the violation near the optimum: a
        # limit sqrt(gap / wanted) times smaller (at least halved) should close it; else a decade
        shrink = 0.1 if self.gap > allowed else min(0.5, max(0.1, np.sqrt(wanted / self.gap)))
        return False, max(shrink * min(limit, violation), self.floor)
