"""Firth's penalised likelihood on a chunked design (Dask collections, files read in blocks): the
objective of :mod:`linclass.linear.firth.objective` (two classes) and
:mod:`linclass.linear.firth.multinomial` (K classes), its sums formed by a map over the
chunks and a sum, so that the in-memory Newton / IRLS solver
(:func:`linclass.linear.solvers.newton`) runs on it unchanged.

What a pass needs
    The modified score :math:`U^* = \\tilde X^T(W(Y - \\Pi) + A)` has per-row adjustments
    :math:`a_i` (two classes: :math:`h_i(\\tfrac12 - \\mu_i)`, with the hat diagonal
    :math:`h_i = w_i\\mu_i(1-\\mu_i)\\,\\tilde x_i^TI^{-1}\\tilde x_i`) that are local to the row
    once the (q, q) inverse information :math:`I^{-1}` is known (q = p(K - 1) parameters, p =
    d + 1 with an intercept).  But
    :math:`I(\\theta)` is itself a sum over the rows: in one pass at :math:`\\theta` the chunks can
    form :math:`\\ell(\\theta)`, :math:`I(\\theta)` (hence :math:`\\ln|I(\\theta)|` and the exact
    :math:`\\ell^*(\\theta)`) and the score with the adjustments of a matrix
    :math:`A \\approx I(\\theta)^{-1}` shipped with :math:`\\theta`, not with
    :math:`I(\\theta)^{-1}` itself.

The lagged score
    Each pass at a new point ships the inverse information of the point of the pass before (the
    last one known: the Newton iterate the step starts from, or a rejected trial of its line
    search), so that one Newton iteration may read the data once.  The score it gives,
    :math:`U^*(\\theta; A) = U(\\theta) + \\tilde X^T a(A)`, differs from the exact one by a term
    linear in :math:`I(\\theta)^{-1} - A`, which shrinks with the step; the value
    :math:`\\ell^*(\\theta)` it gives (on which the line search decides) is exact, and so is the
    information (the curvature of the step).  The same pass bounds that error
    (:meth:`ChunkedFirthObjective._lag_bound`): with :math:`I = LL^T` and
    :math:`\\rho = \\lVert L^TAL - 1\\rVert_2`, each quadratic form
    :math:`\\tilde x_i^TA\\tilde x_i` is within :math:`\\rho/(1-\\rho)` of its exact value
    relative to its size (for K classes the blocks :math:`Q_i`, whose entries their diagonals
    bound).  Where the bound exceeds the lagged score's largest entry, its direction is not trusted
    and the point is read again with its own inverse (two passes that iteration).  Where the
    adjustments need no lag: :math:`I(\\theta)` is known without a pass at a point whose slopes are
    zero (every row has the same probabilities, :math:`I = \\tilde X^TW\\tilde X \\otimes C(b)`,
    from the Gram matrix of the first pass), so the first score, at the intercept-only start, is
    exact.

Settling
    The fit stops on the exact modified score: when a lagged score's largest entry is at most
    :attr:`ChunkedFirthObjective.settle_below` (the fit's ``tol``, per unit of weight), the point is
    read once more with its own :math:`I(\\theta)^{-1}`, and that exact score is the one the solver
    tests (and steps with, if it is still above ``tol``).  The limit is therefore the Firth estimate
    itself: at a fixed point of the lagged iteration the lag is zero.

Passes of a fit (``n_passes_``)
    1 (labels, class totals, centring and the Gram matrix) + 1 per Newton iteration whose lagged
    score is trusted, 2 per one whose is not, + 1 per halving of a line search + 1 to settle
    (sometimes 2, when a settled score is still above ``tol``); + 1 after a warm start, whose
    information is not known before a pass.  Measured (two cores, Dask's synchronous scheduler,
    tol 1e-10): 11-14 passes where memory's Newton takes 6-8 iterations (n = 320 to 50,000, two and
    three classes), against 14-18 with the exact score in every iteration; where Fisher scoring
    converges slowly (three classes on 320 rows, breast cancer, separated classes: 17-40
    iterations) the lag is rarely trusted and a fit takes about two passes per iteration.  A point
    read again with its own inverse does not form the information again (it brings back the
    log-likelihood and the score only).  The Wald table needs no more passes: the information at
    the estimate came with the last one, and the null model's penalised likelihood (its slopes
    held at 0, the penalty on the full model) has a closed form (:meth:`null_penalised`).  The
    profile penalised-likelihood intervals refit the model on every row many times and stay in
    memory.
"""

from __future__ import annotations

import numpy as np

from linclass.core.chunks import Chunk
from linclass.linear.inference.wald import MAX_PARAMS
from linclass.linear.logistic import losses
from linclass.linear.logistic.chunked import ChunkedObjective, chunk_objective
from linclass.linear.logistic.objective import LinearObjective
from linclass.linear.firth.objective import check_information
from linclass.linear.firth.multinomial import leverage_blocks, score_adjustment

__all__ = ["NO_PROFILE", "ChunkedFirthObjective", "check_width", "null_penalised"]

#: why a chunked Firth fit has no profile intervals (summary(ci='profile') says it)
NO_PROFILE = ("profile penalised-likelihood intervals are computed by the fit from every row in "
              "memory, and this fit read its rows in chunks; refit in memory for them")
_TRUST = 1.0  # a lagged score is used while its error bound is below this part of its size
_BLOCK = 1 << 20  # entries of a block of rows (p columns) in the adjustment's products


def _chunk_part(chunk: Chunk, n_features, classes, per_class, offset, fit_intercept):
    """The in-memory objective of one chunk's rows (:func:`~linclass.linear.logistic.chunked.
    chunk_objective`: centred at the whole data's ``offset``, weighted by the class weights);
    None without rows or weight."""
    part = chunk_objective(chunk, n_features, classes, per_class, offset, fit_intercept)
    return None if part is None or part.total <= 0 else part


def _adjustment(part: LinearObjective, theta: np.ndarray, inverse: np.ndarray):
    """``(X^T A, A^T 1, |X~|^T B)`` of the rows' score adjustments A (shape (n, 1) or (n, K)) with
    the inverse information ``inverse`` (q, q), in blocks of rows; B (same shape) bounds how much
    each adjustment moves per unit of relative error in ``inverse``
    (:meth:`ChunkedFirthObjective._lag_bound`)."""
    X, n_rows = part.X, part.X.shape[0]
    p, m = part.shape
    width = 1 if part.basis is None else part.n_classes
    XtA, asum, spread = np.zeros((X.shape[1], width)), np.zeros(width), np.zeros((p, width))
    step = max(64, _BLOCK // max(p * m, 1))
    d = X.shape[1]
    for start in range(0, n_rows, step):
        rows = slice(start, start + step)
        Xb = X[rows]
        S = part.scores(theta, Xb)
        centred = Xb - part.offset
        w = None if part.w is None else part.w[rows]
        if part.basis is None:  # the quadratic forms of [x - m, 1] without forming it
            mu = losses.Binomial.probabilities(S)
            q = np.einsum("ij,ij->i", centred @ inverse[:d, :d], centred)
            if part.fit_intercept:
                q += 2.0 * (centred @ inverse[:d, d]) + inverse[d, d]
            h = q * losses.Binomial.curvature_at(mu, w)
            A = (h * (0.5 - mu))[:, None]
            B = np.abs(A)
            spread[:d] += np.abs(centred).T @ B
            if part.fit_intercept:
                spread[d] += B.sum(axis=0)
        else:
            design = centred
            if part.fit_intercept:
                design = np.hstack([centred, np.ones((centred.shape[0], 1))])
            mu = losses.Multinomial.probabilities(S)
            Q = part.basis @ leverage_blocks(design, inverse, m) @ part.basis.T
            A = score_adjustment(mu, Q, w)
            # |Q_kl| <= (Q_kk + Q_ll) / 2 bounds the error of every entry of s_i
            diag = np.einsum("ikk->ik", Q)
            s_abs = 2.0 * diag + np.einsum("ik,ik->i", mu, diag)[:, None]
            B = 0.5 * mu * (s_abs + np.einsum("ik,ik->i", mu, s_abs)[:, None])
            B = B if w is None else B * w[:, None]
            spread += np.abs(design).T @ B
        XtA += Xb.T @ A
        asum += A.sum(axis=0)
    return XtA, asum, spread


def _chunk_firth(chunk: Chunk, n_features, classes, per_class, offset, fit_intercept, theta,
                 inverse, with_information):
    """One chunk's ``(log-likelihood, gradient of -l* (p, m), information (q, q) or 0, spread)``:
    the gradient's adjustments with ``inverse`` (None: the plain score's gradient, spread 0); the
    information only ``with_information`` (a point read again knows it)."""
    part = _chunk_part(chunk, n_features, classes, per_class, offset, fit_intercept)
    if part is None:
        return None
    loss, G, info = part.partial_sums(theta, np.float64 if with_information else None)
    info = 0.0 if info is None else info
    spread = 0.0
    if inverse is not None:
        XtA, asum, spread = _adjustment(part, theta, inverse)
        G = G - part._data_gradient(XtA, asum)
    return -loss, G, info, spread


def _add(a, b):
    return a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]


def check_width(n_features: int, n_classes: int) -> None:
    """Refuse a model of more than :data:`~linclass.linear.inference.wald.MAX_PARAMS` parameters
    on a chunked design: each pass forms its (q, q) information and sends its inverse to every
    chunk."""
    q = (n_features + 1) * (n_classes - 1)
    if q > MAX_PARAMS:
        raise ValueError(
            f"penalty='firth' on Dask or file input forms the Fisher information of all {q} "
            f"parameters ({n_classes - 1} x ({n_features} features + 1)) in each pass and sends "
            f"its inverse to every chunk, at most MAX_PARAMS={MAX_PARAMS}. Fit on arrays in "
            "memory, or select fewer features.")



def null_penalised(class_totals: np.ndarray, gram: np.ndarray, basis, fit_intercept: bool,
                   log_det_shift: float = 0.0) -> float:
    """:math:`\\max_b \\ell^*` over the intercepts with every slope held at 0 and the penalty on
    the full model (the null model of a Firth summary), from the class totals and the Gram matrix.

    With zero slopes every row has the probabilities :math:`\\pi`, so
    :math:`\\ell = \\sum_k N_k\\ln\\pi_k` and :math:`I = \\tilde X^TW\\tilde X\\otimes C`,
    :math:`C = P^T(\\mathrm{diag}\\,\\pi - \\pi\\pi^T)P` (:math:`\\pi_0\\pi_1` for two classes),
    whose determinant is :math:`K\\prod_k\\pi_k` (P orthonormal on the sum-to-zero subspace).
    Hence :math:`\\ell^* = \\sum_k(N_k + p/2)\\ln\\pi_k` + constants, maximised at
    :math:`\\pi_k = (N_k + p/2)/(N + Kp/2)` (with an intercept; without, :math:`\\pi_k = 1/K`).

    Parameters
    ----------
    class_totals : ndarray of shape (K,)
        The weighted class totals :math:`N_k`.
    gram : ndarray of shape (p, p)
        :math:`\\tilde X^TW\\tilde X`.
    basis : ndarray of shape (K, K-1) or None (two classes)
    fit_intercept : bool
    log_det_shift : float
        :math:`2p\\ln|\\det(DP)|` of the K-class report (firth_multinomial), 0 for two classes.
    """
    N = np.asarray(class_totals, dtype=np.float64)
    K, p = N.size, gram.shape[0]
    pi = (N + 0.5 * p) / (N.sum() + 0.5 * K * p) if fit_intercept else np.full(K, 1.0 / K)
    covariance = np.diag(pi) - np.outer(pi, pi)
    C = (np.array([[pi[0] * pi[1]]]) if basis is None else basis.T @ covariance @ basis)
    log_det = C.shape[0] * np.linalg.slogdet(gram)[1] + p * np.linalg.slogdet(C)[1]
    return float(N @ np.log(pi) + 0.5 * (log_det - log_det_shift))


class ChunkedFirthObjective(ChunkedObjective):
    """:math:`f(\\theta) = -\\ell^*(\\theta)/N` over a chunk source, two or K classes: the value,
    gradient (:math:`-U^*/N`) and curvature (:math:`I/N`) of
    :class:`~linclass.linear.firth.objective.FirthObjective` and
    :class:`~linclass.linear.firth.multinomial.MultinomialFirthObjective`, one pass per
    point with the lagged score of the module docstring.

    Construction is the first pass (:class:`~linclass.linear.logistic.chunked.ChunkedObjective`:
    labels, class totals under the class weights, the centring point and the Gram matrix).

    Parameters
    ----------
    source : a chunk source
    classes : ndarray or None
    class_weight : dict, 'balanced' or None
    fit_intercept : bool
    """

    def __init__(self, source, classes=None, *, class_weight=None, fit_intercept=True):
        check_width(source.n_features, 2)  # before the first pass; K classes after it
        super().__init__(source, classes, class_weight=class_weight, fit_intercept=fit_intercept)
        check_width(self.n_features, self.n_classes)
        if self.basis is None:
            self._log_det_shift = 0.0
        else:  # ln|I_beta| = ln|I_theta| - 2 p ln|det(D P)| (firth_multinomial)
            differences = self.basis[1:] - self.basis[0]
            self._log_det_shift = 2.0 * self.shape[0] * float(np.linalg.slogdet(differences)[1])
        #: the largest entry of a lagged mean score below which a point is read again with its own
        #: inverse information (the fit sets it to its tol); 0 settles only on an exact zero
        self.settle_below = 0.0
        self._points = []  # recent points: (theta, log-likelihood, info, gradient, exact)
        self._recent = None  # (theta, info) of the last pass: the lagged inverse's source

    # ------------------------------------------------------------------ the information
    def _known_information(self, theta: np.ndarray):
        """:math:`I(\\theta)` where known without a pass: at a point already read, or with zero
        slopes (the Gram matrix times the common curvature); else None."""
        for point in self._points:
            if np.array_equal(point[0], theta):
                return point[2]
        if not np.any(theta[: self.n_features]):
            return np.kron(self.gram, self._curvature_weights_at_constant(theta))
        return None

    @staticmethod
    def _inverse(info: np.ndarray):
        """:math:`I^{-1}` by Cholesky, or None where I is numerically singular."""
        try:
            L = np.linalg.cholesky(info)
        except np.linalg.LinAlgError:
            return None
        L_inv = np.linalg.solve(L, np.eye(L.shape[0]))
        return L_inv.T @ L_inv

    def _read(self, theta: np.ndarray, inverse, exact: bool, info=None):
        """One pass at theta with the adjustments of ``inverse`` (and the information there,
        unless ``info`` gives it); kept among the recent points as ``(theta, log-likelihood,
        information, mean gradient, exact, bound)``, the bound on the mean gradient's error (0 when
        exact)."""
        ll, G, formed, spread = self.source.map_reduce(
            _chunk_firth, _add, self.n_features, self.classes, self.per_class, self.offset,
            self.fit_intercept, theta, inverse, info is None)
        self.passes += 1
        info = (formed + formed.T) / 2 if info is None else info
        if inverse is None:  # no inverse information to adjust with: I is singular
            G = np.full(G.shape, np.nan)
        bound = 0.0 if exact else self._lag_bound(inverse, info, spread)
        point = (theta.copy(), float(ll), info, G / self.total, exact, bound)
        self._points = [point] + [p for p in self._points if not np.array_equal(p[0], theta)][:3]
        self._recent = (theta.copy(), info)
        return point

    def _lag_bound(self, inverse, info, spread) -> float:
        """How far a lagged mean score may be from the exact one: with :math:`I = LL^T` and
        :math:`\\rho = \\lVert L^TAL - 1\\rVert_2` (A the lagged inverse), every quadratic form
        :math:`\\tilde x^TA\\tilde x` is within :math:`\\rho/(1-\\rho)` of its exact value
        relative to its own size, so each adjustment moves by at most that times its spread B
        (:func:`_adjustment`; for K classes through Q's entries, bounded by its diagonal).
        Infinite when :math:`\\rho \\ge 1` or I is singular."""
        if inverse is None:
            return np.inf
        try:
            L = np.linalg.cholesky(info)
        except np.linalg.LinAlgError:
            return np.inf
        rho = float(np.max(np.abs(np.linalg.eigvalsh(L.T @ inverse @ L) - 1.0)))
        if not rho < 1.0:
            return np.inf
        spread = spread if self.basis is None else spread @ np.abs(self.basis)
        return rho / (1.0 - rho) * float(np.max(spread)) / self.total

    def _point(self, theta, *, exact: bool = False):
        """The recent point at theta, read when not known (``exact``: with the score's own
        inverse information).  A lagged score is read again with its own inverse when it may be
        within :attr:`settle_below` of zero, or when its error bound exceeds its largest entry
        (its direction is then unreliable)."""
        theta = np.array(theta, dtype=np.float64).reshape(self.shape)
        for point in self._points:
            if np.array_equal(point[0], theta) and (point[4] or not exact):
                return point
        info = self._known_information(theta)
        if info is not None:  # its own inverse: the exact score in one pass
            return self._read(theta, self._inverse(info), True, info)
        lag = None if self._recent is None else self._inverse(self._recent[1])
        if lag is None:  # nothing to lag with (a warm start, a singular I): I first, then the score
            info = self._read(theta, None, False)[2]
            return self._read(theta, self._inverse(info), True, info)
        lagged = self._read(theta, lag, False)
        largest, bound = np.max(np.abs(lagged[3]), initial=0.0), lagged[5]
        if exact or largest <= self.settle_below or bound > _TRUST * largest:
            return self._read(theta, self._inverse(lagged[2]), True, lagged[2])
        return lagged

    def _log_det(self, info: np.ndarray) -> float:
        """:math:`\\ln|I_\\beta|` (the K-class report's parametrisation), :math:`-\\infty` where I
        is numerically singular."""
        try:
            L = np.linalg.cholesky(info)
        except np.linalg.LinAlgError:
            return -np.inf
        return 2.0 * float(np.sum(np.log(np.diag(L)))) - self._log_det_shift

    # ------------------------------------------------------------------ the solver's interface
    def value(self, theta) -> float:
        """:math:`-\\ell^*(\\theta)/N`."""
        return -self.penalised_log_likelihood(theta) / self.total

    def value_gradient(self, theta):
        """:math:`-\\ell^*/N` and the (lagged or settled) :math:`-U^*/N` of shape (p, m)."""
        point = self._point(theta)
        return -(point[1] + 0.5 * self._log_det(point[2])) / self.total, point[3].copy()

    def hessian(self, theta) -> np.ndarray:
        """The Fisher information :math:`I(\\theta)/N`, the curvature of Firth's IRLS step (no
        pass at a point just read)."""
        theta = np.asarray(theta, dtype=np.float64).reshape(self.shape)
        info = self._known_information(theta)
        if info is None:
            info = self._point(theta)[2]
        return info / self.total

    step_hessian = hessian  # Firth's steps never use float32 products

    def curvature_sum(self, theta) -> np.ndarray:
        """The Fisher information :math:`I(\\theta)` (q, q)."""
        return self.hessian(theta) * self.total

    def check_identifiable(self, theta) -> None:
        """Refuse a design whose information matrix is singular (constant or collinear
        features)."""
        check_information(self.curvature_sum(np.asarray(theta).reshape(self.shape)))

    def log_likelihood(self, theta) -> float:
        """:math:`\\ell(\\theta)` without the penalty."""
        return self._point(theta)[1]

    def penalised_log_likelihood(self, theta) -> float:
        """:math:`\\ell^*(\\theta) = \\ell(\\theta) + \\tfrac12\\ln|I_\\beta(\\theta)|`."""
        point = self._point(theta)
        return point[1] + 0.5 * self._log_det(point[2])

    def null_penalised(self) -> float:
        """:math:`\\ell^*` of the null model (:func:`null_penalised`): no pass."""
        return null_penalised(self.class_weight, self.gram, self.basis, self.fit_intercept,
                              self._log_det_shift)

    def firth_state(self, theta) -> dict:
        """The Firth part of the inference record at the estimate (as
        :func:`~linclass.linear.firth.inference.firth_state`): the penalised
        log-likelihoods of the model and of its null model; no profile intervals (they need the
        rows in memory) and no separation check (a linear programme over the rows)."""
        return {"penalised": float(self.penalised_log_likelihood(theta)),
                "null_penalised": self.null_penalised(), "separation": None, "profile": None,
                "no_profile": NO_PROFILE, "separation_checked": False}
