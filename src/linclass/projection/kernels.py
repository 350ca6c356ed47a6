"""Kernel functions and Gram matrices built in bounded-memory row blocks.

:math:`k(x, y) = \\phi(x)^T\\phi(y)` (Bishop 2006 ch. 6).  Kernels (scikit-learn's parametrisation):

``'linear'``   :math:`x^Ty`
``'poly'``     :math:`(\\gamma x^Ty + c_0)^{p}`
``'rbf'``      :math:`\\exp(-\\gamma\\lVert x - y\\rVert^2)`
``'sigmoid'``  :math:`\\tanh(\\gamma x^Ty + c_0)` (not positive semi-definite in general)
callable      ``f(A, B)`` returning the (len(A), len(B)) matrix of kernel values
``'precomputed'``  X is already the kernel matrix: (n, n) at fit, (m, n_train) afterwards

``gamma=None`` means :math:`1/(d\\,\\mathrm{Var}(X))` (scikit-learn's SVC ``gamma='scale'``), so the
default does not depend on the units of X.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from linclass.core.progress import progress

__all__ = ["Kernel", "choose_landmarks", "gamma_from_variance", "make_kernel", "select_landmarks"]

NAMES = ("linear", "poly", "rbf", "sigmoid", "precomputed")
_BLOCK_BYTES = 64 * 2**20  # temporaries per block


@dataclass(frozen=True)
class Kernel:
    """A kernel with its parameters fixed (``gamma`` already resolved)."""

    name: str
    gamma: float = 1.0
    degree: float = 3
    coef0: float = 1.0
    function: Callable | None = None

    # --------------------------------------------------------------------------------------- values
    def __call__(self, A: np.ndarray, B: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Kernel matrix between the rows of A and of B, written into ``out`` when given."""
        if self.name == "precomputed":
            raise ValueError("a precomputed kernel has no function to evaluate.")
        if self.function is not None:
            values = np.asarray(self.function(A, B), dtype=np.float64)
            if values.shape != (A.shape[0], B.shape[0]):
                raise ValueError(
                    f"The kernel callable returned shape {values.shape} for inputs of {A.shape[0]} and "
                    f"{B.shape[0]} rows; it must return ({A.shape[0]}, {B.shape[0]})."
                )
            if out is None:
                return values
            out[...] = values
            return out
        if self.name == "rbf":
            # distances do not depend on the origin: measured from B's mean, the expansion
            # |a|^2 + |b|^2 - 2a.b does not cancel for data far from the origin
            centre = B.mean(axis=0)
            A, B = A - centre, B - centre
        out = np.matmul(A, B.T, out=out)
        if self.name == "linear":
            return out
        if self.name == "rbf":
            out *= -2.0
            out += np.einsum("ij,ij->i", A, A)[:, None]
            out += np.einsum("ij,ij->i", B, B)[None, :]
            np.maximum(out, 0.0, out=out)  # rounding can make tiny squared distances negative
            out *= -self.gamma
            return np.exp(out, out=out)
        out *= self.gamma
        out += self.coef0
        if self.name == "poly":
            return np.power(out, self.degree, out=out)
        return np.tanh(out, out=out)  # sigmoid

    def diag(self, A: np.ndarray) -> np.ndarray:
        """:math:`k(x_i, x_i)` for each row, shape (n,)."""
        if self.name == "rbf":
            return np.ones(A.shape[0])
        if self.function is not None:
            step = 256
            return np.concatenate(
                [np.diag(self(A[i : i + step], A[i : i + step])) for i in range(0, A.shape[0], step)]
            )
        sq = np.einsum("ij,ij->i", A, A)
        if self.name == "linear":
            return sq
        if self.name == "poly":
            return (self.gamma * sq + self.coef0) ** self.degree
        return np.tanh(self.gamma * sq + self.coef0)

    def gram(self, A: np.ndarray, B: np.ndarray | None = None, *, desc: str = "kernel") -> np.ndarray:
        """The full (len(A), len(B)) matrix, built in row blocks (progress shown on long builds)."""
        B = A if B is None else B
        out = np.empty((A.shape[0], B.shape[0]))
        for start, stop in progress(
            list(row_blocks(A.shape[0], B.shape[0])), desc=desc, enabled=A.shape[0] * B.shape[0] > 2e7
        ):
            self(A[start:stop], B, out=out[start:stop])
        return out


def row_blocks(n_rows: int, n_cols: int, budget: int = _BLOCK_BYTES):
    """(start, stop) pairs covering ``range(n_rows)`` with about ``budget`` bytes of float64 per block."""
    step = max(1, min(n_rows, budget // (8 * max(n_cols, 1))))
    for start in range(0, n_rows, step):
        yield start, min(start + step, n_rows)


def resolve_gamma(gamma, X: np.ndarray) -> float:
    """``None`` -> :math:`1/(d\\,\\mathrm{Var}(X))` (or :math:`1/d` for constant X)."""
    if gamma is not None:
        return float(gamma)
    return gamma_from_variance(float(X.var()) if X.size else 0.0, X.shape[1])


def gamma_from_variance(var: float, n_features: int) -> float:
    """``gamma=None``'s value, :math:`1/(d\\,\\mathrm{Var}(X))` (or :math:`1/d` for constant X), from the
    variance of every entry of X (computed in memory by :func:`resolve_gamma`, or merged over chunks)."""
    d = max(n_features, 1)
    return 1.0 / (d * var) if var > 0 else 1.0 / d


def make_kernel(kernel, X: np.ndarray, gamma=None, degree=3, coef0=1.0) -> Kernel:
    """A :class:`Kernel` for the estimator's parameters, with ``gamma`` resolved on the training X."""
    if callable(kernel):
        return Kernel("callable", function=kernel)
    if kernel not in NAMES:
        raise ValueError(f"kernel must be one of {NAMES} or a callable; got {kernel!r}.")
    return Kernel(kernel, gamma=resolve_gamma(gamma, X), degree=degree, coef0=float(coef0))


def select_landmarks(X: np.ndarray, n_landmarks: int, method: str, kernel: Kernel, rng) -> np.ndarray:
    """Row indices of the Nystroem landmarks among the rows of X (:func:`choose_landmarks`)."""
    return choose_landmarks(X.shape[0], n_landmarks, method, kernel, rng, lambda idx: X[idx])


def choose_landmarks(n: int, n_landmarks: int, method: str, kernel: Kernel, rng, rows) -> np.ndarray:
    """Row indices of the Nystroem landmarks among n rows.

    ``'random'``: uniform without replacement.  ``'kmeans++'``: the k-means++ seeding of Arthur and
    Vassilvitskii (2007) with the kernel-induced distance
    :math:`\\lVert\\phi(x)-\\phi(c)\\rVert^2 = k(x,x) + k(c,c) - 2k(x,c)`: each new landmark is drawn
    with probability proportional to its squared distance to the nearest landmark so far.  On more than
    200,000 rows the seeding runs on a uniform subsample of that size.

    The row indices drawn depend only on n and ``rng``; ``rows(idx)`` returns the rows at the sorted
    indices ``idx`` (``X[idx]`` in memory; gathered from the chunks of a chunked fit, which thus picks
    the same landmarks as the in-memory fit for the same ``rng``).  It is called only by 'kmeans++',
    once, for the pool the seeding runs on (every row, or the subsample).
    """
    m = min(n_landmarks, n)
    if method == "random" or m == n:
        return np.sort(rng.choice(n, size=m, replace=False))
    pool = np.arange(n) if n <= 200_000 else np.sort(rng.choice(n, size=200_000, replace=False))
    P = rows(pool)
    self_sim = kernel.diag(P)
    chosen = [int(rng.randint(P.shape[0]))]
    dist = np.full(P.shape[0], np.inf)
    for _ in progress(range(1, m), desc="landmarks", enabled=P.shape[0] * m > 5e7):
        c = chosen[-1]
        k = kernel(P, P[c : c + 1])[:, 0]
        np.minimum(dist, np.maximum(self_sim + self_sim[c] - 2.0 * k, 0.0), out=dist)
        total = dist.sum()
        if not total > 0:  # every remaining point coincides with a landmark: fill uniformly
            rest = np.setdiff1d(np.arange(P.shape[0]), chosen)
            chosen.extend(rng.choice(rest, size=m - len(chosen), replace=False).tolist())
            break
        chosen.append(int(rng.choice(P.shape[0], p=dist / total)))
    return np.sort(pool[np.asarray(chosen)])
