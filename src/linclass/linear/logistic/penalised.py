"""The penalised logistic / softmax objective in the full K x d parametrisation.

.. math::

    F(W, b) = \\sum_i w_i\\,\\ell(s_i, y_i) + r(W), \\qquad s_i = W x_i + b,

with the pointwise losses of :mod:`linclass.linear.logistic.losses` and a penalty :math:`r` of
:mod:`linclass.linear.penalties.elastic_net` on the coefficients only (scikit-learn's scale: the penalty is added
to the *sum* of the weighted losses).

Layout
    Two classes: one row of coefficients (the log-odds of class 1), ``W`` of shape (1, d), ``b`` of
    shape (1,).  K > 2 classes: one row per class, ``W`` of shape (K, d), as glmnet and scikit-learn
    parametrise a penalised softmax.  (The unpenalised objective of :mod:`linclass.linear.logistic.objective`
    uses K - 1 contrasts instead; with an L2 penalty both have the same optimum, since the penalty
    alone fixes the free shift of the K rows, but an L1 penalty is not invariant under the change of
    basis, so penalised fits use the full layout.)

Centring
    Internally the intercept belongs to the shifted design :math:`\\tilde X = X - \\mathbf 1c^T` of
    :class:`~linclass.linear.logistic.design.Design` (dense X with an intercept; :math:`c = 0` otherwise):
    :math:`s = \\tilde XW^T + \\tilde b`, reported as :math:`b = \\tilde b - Wc`.

Gradients
    :math:`\\nabla_W F = V\\tilde X + \\nabla r(W)` and :math:`\\nabla_b F = V\\mathbf 1` with the score
    gradients :math:`V_{ki} = w_i(\\mu_{ik} - [y_i = k])` (binary: :math:`w_i(\\mu_i - y_i)`).
    Optimality is :math:`0 \\in \\nabla F + \\partial r`, measured by :meth:`PenalisedObjective.violation`
    (the largest violation over every coefficient and intercept, per unit of sample weight: the
    number a fit's ``tol`` bounds).

Duality gap
    A violation bound does not bound the objective: on nearly separable data with a weak penalty the
    objective is so flat that a point with every violation below :math:`10^{-6}` can lie
    :math:`10^{-4}` above the optimum.  :meth:`PenalisedObjective.duality_gap` gives a certificate
    instead: with the Fenchel dual of :math:`F` (the conjugate of the log-loss is the negative entropy
    of the fitted probabilities; of the elastic net,
    :math:`h^*(u) = (|u| - \\lambda_1)_+^2/(2\\lambda_2)`, for the lasso the constraint
    :math:`|u| \\le \\lambda_1`), every dual point :math:`\\theta` gives
    :math:`F(W, b) - F^\\star \\le F(W, b) - D(\\theta)`.  The dual point is built from the current fit
    as in Massias, Gramfort and Salmon (2018, "Celer: a fast solver for the lasso with dual
    extrapolation"): the probabilities at the best intercepts for W (which make the dual point meet
    the intercepts' constraint :math:`\\sum_i\\theta_{ik} = 0`), moved towards the labels just enough
    for the lasso's constraint :math:`\\lVert X^T\\theta\\rVert_\\infty \\le \\lambda_1`.
"""

from __future__ import annotations

import numpy as np
from scipy.special import xlogy

from linclass.linear import compiled
from linclass.linear.logistic import losses
from linclass.linear.logistic.design import Design
from linclass.linear.logistic.losses import Binomial, null_log_likelihood
from linclass.linear.logistic.offsets import null_fit

__all__ = ["PenalisedObjective", "original_coefficients", "internal_coefficients"]


def original_coefficients(W: np.ndarray, b: np.ndarray, shift: np.ndarray, fit_intercept: bool,
                          binary: bool) -> tuple[np.ndarray, np.ndarray]:
    """``(coef, intercept)`` on the original features from the centred parametrisation ``(W, b)``
    (rows centred by ``shift``): :math:`b - W c`; softmax intercepts are centred to sum to zero (the
    loss does not see a common shift)."""
    intercept = b - W @ shift if fit_intercept else np.zeros(W.shape[0])
    if not binary and fit_intercept:
        intercept = intercept - intercept.mean()
    return W.copy(), intercept


def internal_coefficients(coef, intercept, shift: np.ndarray, fit_intercept: bool, m: int,
                          d: int, feasible=lambda W: W) -> tuple[np.ndarray, np.ndarray]:
    """Inverse of :func:`original_coefficients` (warm starts); ``feasible`` projects W first."""
    W = feasible(np.array(coef, dtype=np.float64).reshape(m, d))
    b = np.array(intercept, dtype=np.float64).reshape(m)
    return W, (b + W @ shift if fit_intercept else np.zeros(m))



class PenalisedObjective:
    """:math:`F(W, b)`, its gradient and its optimality check on data held in a :class:`Design`.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n_samples, n_features), or a :class:`Design`
    y : ndarray of shape (n_samples,), int
        Class index of each row in ``range(n_classes)``.
    n_classes : int
    sample_weight : ndarray of shape (n_samples,) or None
    penalty : :class:`~linclass.linear.penalties.elastic_net.ElasticNet`
    fit_intercept : bool
    score_offset : ndarray of shape (n_samples, m) or None, default=None
        Known terms added to the scores (:mod:`linclass.linear.logistic.offsets`; m = 1 for two
        classes, else K); the null model is then the intercept-only fit with them.
    """

    def __init__(self, X, y, n_classes: int, sample_weight, penalty, *,
                 fit_intercept: bool = True, score_offset=None):
        self.design = X if isinstance(X, Design) else Design(X, center=fit_intercept)
        self.n_classes = int(n_classes)
        self.binary = self.n_classes == 2
        self.y = np.asarray(y, dtype=np.int64)
        self.target = self.y.astype(np.float64) if self.binary else None
        #: the module of the two-class datafit's per-sample terms (binary_terms, binary_loss, ...):
        #: the compiled loops, or their NumPy forms for a small design (``Design.small``: no
        #: compiled code loaded for it)
        self.terms = losses if self.design.small else compiled
        n = self.design.n
        self.sw = (np.ones(n) if sample_weight is None
                   else np.ascontiguousarray(sample_weight, dtype=np.float64))
        self.total = float(self.sw.sum())
        self.penalty = penalty
        self._lay_out(penalty)
        self.fit_intercept = bool(fit_intercept)
        self.m = 1 if self.binary else self.n_classes
        self.class_totals = np.bincount(self.y, weights=self.sw, minlength=self.n_classes)
        self.score_offset = (None if score_offset is None
                             else np.ascontiguousarray(np.asarray(score_offset, dtype=np.float64).T))

    @property
    def d(self) -> int:
        return self.design.d

    def with_penalty(self, penalty) -> PenalisedObjective:
        """The same data with another penalty (a path step); shares the design and the weights."""
        other = object.__new__(PenalisedObjective)
        other.__dict__.update(self.__dict__)
        other.penalty = penalty
        other._lay_out(penalty)
        return other

    def _lay_out(self, penalty) -> None:
        """The penalty's per-column numbers for this design's columns (per-feature penalties; a
        penalty whose numbers depend on the total sample weight is bound to it)."""
        if hasattr(penalty, "bind"):
            penalty.bind(self.design.d, self.total)
        elif getattr(penalty, "per_feature", False):
            penalty.columns(self.design.d)

    # ------------------------------------------------------------------ values
    def null_start(self) -> tuple[np.ndarray, np.ndarray]:
        """Zero coefficients and the intercept-only maximum-likelihood intercepts (log-odds or
        centred log class frequencies; zeros without an intercept)."""
        W = np.zeros((self.m, self.d))
        b = np.zeros(self.m)
        if self.score_offset is not None:  # the intercept-only fit with the offset
            b = null_fit(self.score_offset.T, self.y, self.sw, self.fit_intercept)[0]
        elif self.fit_intercept:
            freq = np.clip(self.class_totals / self.total, 1e-12, None)
            logf = np.log(freq)
            b = np.array([logf[1] - logf[0]]) if self.binary else logf - logf.mean()
        return self._feasible(W), b

    def _feasible(self, W: np.ndarray) -> np.ndarray:
        """W within the penalty's bounds (lower / upper bounds on the coefficients), if any."""
        clip = getattr(self.penalty, "clip", None)
        return W if clip is None else clip(W)

    def scores(self, W: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Scores of shape (m, n) (internal intercept ``b``)."""
        nonzero = np.flatnonzero(np.any(W != 0, axis=0))
        S = self.design.scores(W, nonzero) + b[:, None]
        return S if self.score_offset is None else S + self.score_offset

    def null_log_likelihood(self) -> float:
        """:math:`\\ell_0`, the log-likelihood of the intercept-only model (with a score offset: its
        fit with the offset)."""
        if self.score_offset is None:
            return null_log_likelihood(self.class_totals, self.total, self.fit_intercept)
        return -self.loss(self.scores(*self.null_start()))

    def loss(self, S: np.ndarray) -> float:
        """Summed weighted log-loss at scores S (m, n)."""
        if self.binary:
            return self.terms.binary_loss(S[0], S[0], 0.0, self.target, self.sw)
        return compiled.softmax_loss(S, 0, S[0], 0.0, self.y, self.sw)

    def value(self, W: np.ndarray, b: np.ndarray) -> float:
        """:math:`F(W, b)` (summed, not per unit weight)."""
        return self.loss(self.scores(W, b)) + self.penalty.value(W)

    def score_gradient(self, S: np.ndarray) -> tuple[float, np.ndarray]:
        """``(loss, V)``: the summed loss and the score gradients V of shape (m, n)."""
        if self.binary:
            g, h = np.empty(S.shape[1]), np.empty(S.shape[1])
            loss = self.terms.binary_terms(S[0], self.target, self.sw, g, h)
            return loss, g[None, :]
        P = np.empty_like(S)
        loss = compiled.softmax_terms(S, self.y, self.sw, P)
        P[self.y, np.arange(self.y.size)] -= 1.0
        P *= self.sw
        return loss, P

    def gradient(self, W: np.ndarray, b: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """``(loss, G, gb)``: the summed loss, its gradient in W (m, d) and in b (m,), penalty not
        included."""
        loss, V = self.score_gradient(self.scores(W, b))
        return loss, self.design.gradient(V).T, V.sum(axis=1)

    def violation(self, W: np.ndarray, G: np.ndarray, gb: np.ndarray) -> float:
        """Largest violation of the optimality conditions (summed scale): the coefficients'
        subgradient conditions and, with an intercept, :math:`|\\nabla_b F|`."""
        v = float(np.max(self.penalty.violation(W, G))) if W.size else 0.0
        if self.fit_intercept:
            v = max(v, float(np.max(np.abs(gb))))
        return v

    # ------------------------------------------------------------------ reporting
    def coefficients(self, W: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(coef, intercept)`` on the original features (:func:`original_coefficients`)."""
        return original_coefficients(W, b, self.design.shift, self.fit_intercept, self.binary)

    def internal(self, coef: np.ndarray, intercept: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Inverse of :meth:`coefficients` (warm starts)."""
        return internal_coefficients(coef, intercept, self.design.shift, self.fit_intercept,
                                     self.m, self.d, self._feasible)

    # ------------------------------------------------------------------ certificate
    def best_intercepts(self, W: np.ndarray, b: np.ndarray, max_iter: int = 50,
                        S0: np.ndarray | None = None) -> np.ndarray:
        """The intercepts minimising the loss for fixed W, by Newton's method on the m intercepts
        alone (softmax: the free common shift fixed by adding :math:`\\mathbf 1\\mathbf 1^T` to the
        singular Hessian); starts from ``b``.  ``S0``: the scores at W without intercepts, when
        known (else one product with X)."""
        b = np.array(b, dtype=np.float64)
        if not self.fit_intercept:
            return b
        if S0 is None:
            S0 = self.scores(W, np.zeros(self.m))
        if self.binary:  # one loop over the scores per Newton step (``terms``)
            s0 = np.ascontiguousarray(S0[0], dtype=np.float64)
            return np.array([self.terms.binary_best_intercept(s0, self.target, self.sw,
                                                              float(b[0]), self.total, max_iter)])
        for _ in range(max_iter):
            _, V = self.score_gradient(S0 + b[:, None])
            g = V.sum(axis=1)
            if not np.all(np.isfinite(g)) or np.max(np.abs(g)) <= 1e-13 * self.total:
                break
            P = self.probabilities(S0 + b[:, None])
            Ps = P * self.sw  # sum_i w_i (diag mu_i - mu_i mu_i^T), plus 11^T for the free shift
            H = np.diag(Ps.sum(axis=1)) - Ps @ P.T + Ps.sum() / self.m
            try:
                b = b - np.linalg.solve(H, g)
            except np.linalg.LinAlgError:
                break
        return b

    def probabilities(self, S: np.ndarray) -> np.ndarray:
        """Fitted probabilities at scores S (m, n): of class 1 (binary) or of every class."""
        if self.binary:
            return Binomial.probabilities(S)
        P = np.empty_like(S)
        compiled.softmax_terms(S, self.y, self.sw, P)
        return P

    def duality_gap(self, W: np.ndarray, b: np.ndarray, value: float | None = None,
                    bare_scores: np.ndarray | None = None, products=None) -> float:
        """An upper bound on :math:`F(W, b) - F^\\star` (summed scale; module docstring); ``inf``
        without a penalty (the dual point must then meet :math:`X^T\\theta = 0` exactly).
        ``bare_scores``: the scores at ``(W, 0)`` (offsets included) when the caller holds them,
        which saves a product with X; ``products``: see :meth:`gap_and_value`."""
        return self.gap_and_value(W, b, value, bare_scores, products)[0]

    def gap_and_value(self, W: np.ndarray, b: np.ndarray, value: float | None = None,
                      bare_scores: np.ndarray | None = None,
                      products=None) -> tuple[float, float]:
        """``(duality_gap(W, b), F(W, b))`` from two products with X (the scores without
        intercepts, which give F, the best intercepts and the dual point; then :math:`X^T` times
        the residuals), where computing F, the intercepts and the dual point apart took four; one
        product when the scores are given, none when ``products`` are too.

        ``products``: two classes, ``(X^T g, X^T h)`` (each (d,)) for the score gradients and
        curvatures at ``(W, b)``, which a two-class fit holds at each point.  The residuals at the
        best intercept :math:`b^* = b + \\Delta` differ from :math:`g` only through :math:`\\Delta`:
        :math:`r = g + \\Delta h + e` with :math:`|e_i| \\le w_i\\max|\\sigma''|\\Delta^2/2`
        (Taylor's theorem; :math:`\\max|\\sigma''| = 1/(6\\sqrt3)`), so each :math:`|X^Tr|_j` is at
        most :math:`|X^Tg + \\Delta X^Th|_j + 0.05\\,\\Delta^2\\sum_iw_i|\\tilde x_{ij}|`
        (:meth:`~linclass.linear.logistic.design.Design.absolute_sums`).  For the lasso and the
        elastic net without per-feature factors or bounds the dual point needs only these bounds
        (the lasso's scale :math:`\\alpha` and the elastic net's conjugate both grow with
        :math:`|X^Tr|_j`), so the gap is still an upper bound, looser by a term second-order in
        :math:`\\Delta`; it is taken without reading X when that term is below :math:`10^{-8}` of
        the largest bound, else :math:`X^Tr` is formed."""
        l1, l2 = self.penalty.scalars()
        b = np.asarray(b, dtype=np.float64).reshape(self.m)
        S0 = None if bare_scores is None else np.reshape(bare_scores, (self.m, -1))
        if value is None:
            S0 = self.scores(W, np.zeros(self.m))
            value = self.loss(S0 + b[:, None]) + self.penalty.value(W)
        if ((l1 == 0.0 and l2 == 0.0 and not getattr(self.penalty, "bounded", False))
                or not getattr(self.penalty, "convex", True)):  # no dual to bound it with
            return np.inf, value
        if S0 is None:
            S0 = self.scores(W, np.zeros(self.m))
        b_point = b[0]
        b = self.best_intercepts(W, b, S0=S0)
        if self.binary:  # mu, 1 - mu (each to full precision) and the residuals (``terms``)
            n = S0.shape[1]
            P, P0, R = np.empty((1, n)), np.empty(n), np.empty((1, n))
            self.terms.binary_gap_residuals(np.ascontiguousarray(S0[0], dtype=np.float64),
                                            float(b[0]), self.target, self.sw, P[0], P0, R[0])
        else:
            P = self.probabilities(S0 + b[:, None])
            Y = np.zeros_like(P)
            Y[self.y, np.arange(self.y.size)] = 1.0
            R = (P - Y) * self.sw
        pen = self.penalty
        G = None
        if products is not None and self.binary and not getattr(pen, "per_feature", False):
            G = self._residual_bound(products, float(b[0]) - float(b_point))
        if G is None:
            G = self.design.gradient(R)  # X^T(mu - y), (d, m)
        if getattr(pen, "per_feature", False):  # per-feature factors or bounds: the general case
            alpha = pen.dual_scale(-G)
            conjugate = pen.conjugate(-alpha * G)
        elif l2 == 0.0:  # the lasso's constraint: move towards the labels until it holds
            top = float(np.max(np.abs(G))) if G.size else 0.0
            alpha = min(1.0, l1 / top) if top > 0 else 1.0
            conjugate = 0.0
        else:
            alpha = 1.0
            conjugate = float(np.sum(np.maximum(np.abs(G) - l1, 0.0) ** 2)) / (2.0 * l2)
        if not np.isfinite(conjugate):
            return np.inf, value
        if self.binary:
            dual = self.terms.binary_dual_entropy(P[0], P0, self.target, self.sw, float(alpha))
        else:
            Q = alpha * P + (1.0 - alpha) * Y
            dual = float(self.sw @ -np.sum(xlogy(Q, Q), axis=0))
        dual -= conjugate
        if self.score_offset is not None:  # the offset's term of the dual, sum_i w_i (q_i - y_i) o_i
            dual += float(alpha * np.sum(R * self.score_offset))  # Q - Y = alpha (P - Y)
        return max(value - dual, 0.0), value

    def _residual_bound(self, products, shift: float) -> np.ndarray | None:
        """Upper bounds on :math:`|X^Tr|` (shape (d, 1)) from the products at the point
        (:meth:`gap_and_value`), the best intercept ``shift`` away; None when the bound's
        second-order term is not negligible (then :math:`X^Tr` is formed)."""
        Xg, Xh = products
        first = np.abs(Xg + shift * Xh)
        if not np.all(np.isfinite(first)):
            return None
        # |sigma(s + D) - sigma(s) - sigma'(s) D| <= max|sigma''| D^2 / 2 = 0.0481 D^2 (0.05 kept)
        slack = (0.05 * shift * shift) * self.design.absolute_sums(self.sw)
        bound = first + slack
        if float(slack.max(initial=0.0)) > 1e-8 * float(bound.max(initial=0.0)):
            return None
        return bound[:, None]
