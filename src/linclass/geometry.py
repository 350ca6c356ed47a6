"""The geometry of linear decision boundaries: hyperplanes, signed distances, and the map from a
tied-covariance Gaussian model to its logistic form.

Pure functions over fitted models; nothing here changes a model.

* :func:`hyperplanes`: the boundaries :math:`w^Tx + w_0 = 0` of a linear classifier (Bishop
  2006 sec. 4.1.1-4.1.2).
* :func:`signed_distance`: :math:`r = y(x)/\\lVert w\\rVert` (Bishop eqs. 4.4-4.7).
* :func:`generative_to_logistic`: :math:`\\theta = \\Sigma^{-1}(\\mu_1 - \\mu_0)` and :math:`\\theta_0`
  (docs/math/gaussian.md#two-class-gaussian-model-in-logistic-form), from the means, covariance and priors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from linclass import registry
from linclass.generative.precision import gaussian_discriminants, precision_root, whitening
from linclass.core.validation import validate_predict
from linclass.generative.gaussian import LINEAR_TYPES, GaussianModel, feature_scale

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
    from sklearn.base import BaseEstimator

__all__ = ["Hyperplanes", "generative_to_logistic", "hyperplanes", "signed_distance"]


@dataclass(frozen=True, eq=False)
class Hyperplanes:
    """The decision boundaries :math:`w_m^Tx + w_{m0} = 0` of a linear classifier.

    Attributes
    ----------
    w : ndarray of shape (n_hyperplanes, n_features)
    w0 : ndarray of shape (n_hyperplanes,)
    pairs : list of tuples ``(a, b)``
        The classes each hyperplane separates; :math:`w^Tx + w_0 > 0` on the side of ``b``.  In a
        one-versus-rest model ``a`` is None, standing for "every other class".
    """

    w: np.ndarray
    w0: np.ndarray
    pairs: list

    def __len__(self) -> int:
        return self.w.shape[0]

    def __str__(self) -> str:
        lines = [f"{len(self)} hyperplane{'s' if len(self) != 1 else ''} in {self.w.shape[1]} dimensions"]
        for (a, b), w, w0 in zip(self.pairs, self.w, self.w0):
            left = "rest" if a is None else repr(a)
            lines.append(f"  {left} | {b!r}: w = {np.array2string(w, precision=4)}, w0 = {w0:.4g}")
        return "\n".join(lines)


def _plain(label):
    """A label as a Python scalar (np.int64(2) -> 2) for readable pairs."""
    return label.item() if isinstance(label, np.generic) else label


def _entry(model) -> registry.Entry | None:
    """The registry entry of the model's class, or of the nearest registered class it derives from
    (None for a class the registry does not know)."""
    for cls in type(model).__mro__:
        entry = registry.by_class(cls)
        if entry is not None:
            return entry
    return None


def _is_meta(model) -> bool:
    """Whether the model wraps binary or K-class models whose hyperplanes are its own."""
    entry = _entry(model)
    return entry is not None and entry.can("meta")


def _not_a_hyperplane(model) -> str | None:
    """Why the fitted model's boundary is not a hyperplane in x, or None when it is linear in x.

    Read from the registry (a kernel model, a model that is never linear) and from the fitted model
    itself: a Gaussian record without linear coefficients has a covariance per class; a model with
    basis functions is linear in them, not in x.
    """
    name = type(model).__name__
    entry = _entry(model)
    record = getattr(model, "model_", None)
    if isinstance(record, GaussianModel) and record.coef is None:
        kind = getattr(model, "covariance_type", None)
        what = name if kind is None else f"{name}(covariance_type={kind!r})"
        return (f"{what} has a covariance per class, so its log-odds are quadratic in x: the "
                "decision boundary is a quadric surface, not a hyperplane.")
    if entry is not None and entry.can("kernel"):
        return (f"{name} is linear in the kernel's feature space, not in x: its decision boundary is "
                "not a hyperplane.")
    basis = getattr(model, "basis", None)
    if basis is not None:
        return (f"{name}(basis={basis!r}) is linear in its basis functions phi(x), not in x: its "
                "decision boundary is not a hyperplane.")
    if (entry is not None and not entry.can("linear")) or not (
        hasattr(model, "coef_") and hasattr(model, "intercept_")
    ):
        return (f"{name} has no coef_ / intercept_: it is not a linear classifier, so its decision "
                "boundary is not a hyperplane.")
    return None


def _linear_form(model) -> tuple[np.ndarray, np.ndarray]:
    """``(coef, intercept)`` of shapes (m, d), (m,) of a fitted linear classifier, checked."""
    check_is_fitted(model)
    reason = _not_a_hyperplane(model)
    if reason is not None:
        raise TypeError(reason)
    coef = np.asarray(model.coef_, dtype=np.float64)
    intercept = np.atleast_1d(np.asarray(model.intercept_, dtype=np.float64))
    d = getattr(model, "n_features_in_", coef.shape[-1])
    if coef.ndim != 2 or coef.shape[1] != d or intercept.shape != (coef.shape[0],):
        raise TypeError(
            f"{type(model).__name__}.coef_ of shape {coef.shape} does not describe linear functions of "
            f"the {d} input features, so its decision boundary is not a hyperplane in x."
        )
    if not (np.all(np.isfinite(coef)) and np.all(np.isfinite(intercept))):
        raise ValueError(
            f"{type(model).__name__} has non-finite coefficients (a class with zero prior?): its "
            "boundaries are not hyperplanes."
        )
    return coef, intercept


def _model_hyperplanes(model) -> Hyperplanes:
    """Hyperplanes of one linear model: the log-odds for two classes, else every pairwise boundary
    :math:`(w_j - w_k)^Tx + (w_{j0} - w_{k0}) = 0`, :math:`k < j` (Bishop 2006 sec. 4.1.2)."""
    coef, intercept = _linear_form(model)
    classes = [_plain(c) for c in model.classes_]
    if coef.shape[0] == 1:
        return Hyperplanes(w=coef, w0=intercept, pairs=[(classes[0], classes[1])])
    k, j = np.triu_indices(coef.shape[0], 1)
    return Hyperplanes(
        w=coef[j] - coef[k], w0=intercept[j] - intercept[k],
        pairs=[(classes[a], classes[b]) for a, b in zip(k, j)],
    )


def hyperplanes(model: BaseEstimator) -> Hyperplanes:
    """The decision hyperplanes of a fitted linear classifier.

    * Two-class linear model (``coef_`` of shape (1, d)): the one boundary
      :math:`\\theta^Tx + \\theta_0 = 0` between ``classes_[0]`` and ``classes_[1]`` (Bishop
      2006 sec. 4.1.1).
    * K class scores :math:`y_k = w_k^Tx + w_{k0}` (``coef_`` of shape (K, d)): for every pair
      :math:`k < j`, :math:`(w_j - w_k)^Tx + (w_{j0} - w_{k0}) = 0`, positive on the side of class j
      (Bishop 2006 sec. 4.1.2).  Only parts of these are boundaries of the arg-max regions.
    * :class:`~linclass.estimators.multiclass.OneVsRestClassifier`: each binary model's hyperplane, labelled
      ``(None, k)`` ("class k" against the rest); :class:`~linclass.estimators.multiclass.OneVsOneClassifier`:
      each pair's, labelled ``(i, j)``; :class:`~linclass.estimators.multiclass.KClassDiscriminant`: those of its
      estimator; :class:`~linclass.StandardizedClassifier`: its estimator's, written in the raw
      features x.

    Works for LinearDiscriminantAnalysis, GaussianDiscriminantAnalysis ('tied', 'tied_diag'),
    LogisticRegression, Perceptron (without basis functions), the discrete naive Bayes models
    (BernoulliNB: in the space of the binarized features) and FisherDiscriminantAnalysis.

    Parameters
    ----------
    model : fitted classifier
        One of the linear models above, or one of the wrappers of one.

    Raises
    ------
    TypeError
        When the boundary is not a hyperplane in x (QDA, GaussianNB, the per-class covariance types,
        kernel Fisher, a perceptron with basis functions, or no ``coef_``).

    Returns
    -------
    Hyperplanes

    See Also
    --------
    linclass.geometry.Hyperplanes : The record it returns.
    linclass.geometry.signed_distance : Distances to these hyperplanes.
    linclass.plot.decision_regions : Draws them.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from linclass import LinearDiscriminantAnalysis
    >>> from linclass.geometry import hyperplanes
    >>> planes = hyperplanes(LinearDiscriminantAnalysis().fit(*load_iris(return_X_y=True)))
    >>> planes.w.shape, planes.pairs
    ((3, 4), [(0, 1), (0, 2), (1, 2)])
    """
    if _is_meta(model):
        check_is_fitted(model)
        return _wrapper_hyperplanes(model)
    return _model_hyperplanes(model)


def _wrapper_hyperplanes(model) -> Hyperplanes:
    """Hyperplanes of a fitted wrapper, told apart by what it fitted: one model on standardised
    features (``scale_``), one model per pair (``pairs_``), one K-class model (``estimator_``), or one
    model per class against the rest."""
    if hasattr(model, "scale_"):
        return _standardized_hyperplanes(model)
    if hasattr(model, "estimator_"):
        return _model_hyperplanes(model.estimator_)
    parts = [_model_hyperplanes(est) for est in model.estimators_]
    classes = [_plain(c) for c in model.classes_]
    if hasattr(model, "pairs_"):
        pairs = [(classes[i], classes[j]) for i, j in model.pairs_]
    elif len(classes) == 2:
        pairs = [(classes[0], classes[1])]
    else:
        pairs = [(None, c) for c in classes]
    return Hyperplanes(
        w=np.vstack([p.w for p in parts]), w0=np.concatenate([p.w0 for p in parts]), pairs=pairs
    )


def _standardized_hyperplanes(model) -> Hyperplanes:
    """The hyperplanes :math:`w^Tz + w_0 = 0` of a model fitted on :math:`z = (x - m) / s`, written
    in x: :math:`(w / s)^Tx + (w_0 - (w / s)^Tm) = 0`."""
    inner = model.estimator_
    if getattr(inner, "binarize", None) is not None:
        raise TypeError(f"{type(inner).__name__} on standardised features binarizes z, not x: its "
                        "decision boundary is not a hyperplane in x.")
    H = hyperplanes(inner)
    w = H.w / model.scale_
    return Hyperplanes(w=w, w0=H.w0 - w @ model.mean_, pairs=H.pairs)


def _inputs(model, X):
    """X validated against the model, mapped to the space its hyperplanes live in (BernoulliNB:
    the binarized features)."""
    X = validate_predict(model, X, accept_sparse=True)
    inner = model
    while _is_meta(inner) and not hasattr(inner, "scale_"):  # a standardised model maps x itself
        inner = inner.estimators_[0]
    threshold = getattr(inner, "binarize", None)  # a model of binary features: x > threshold
    if threshold is not None:
        if sp.issparse(X) and threshold >= 0:
            X = X.copy()
            X.data = (X.data > threshold).astype(np.float64)
        else:
            X = (X.toarray() if sp.issparse(X) else X) > threshold
            X = X.astype(np.float64)
    return X


def signed_distance(model: BaseEstimator, X: ArrayLike) -> np.ndarray:
    """Signed perpendicular distance of each point to each decision hyperplane.

    .. math::  r = \\frac{y(x)}{\\lVert w\\rVert} = \\frac{w^Tx + w_0}{\\lVert w\\rVert}

    (Bishop 2006 sec. 4.1.1, eqs. 4.4-4.7): writing :math:`x = x_\\perp + r\\,w/\\lVert w\\rVert`
    with :math:`x_\\perp` on the hyperplane gives :math:`y(x) = r\\lVert w\\rVert`.  Positive on the side
    of the second class of each pair of :func:`hyperplanes`.  A degenerate "hyperplane" with
    :math:`w = 0` (two classes whose scores differ by a constant) puts every point at
    :math:`\\pm\\infty` (the sign of :math:`w_0`), or at 0 when :math:`w_0 = 0` too.

    Parameters
    ----------
    model : fitted linear classifier (see :func:`hyperplanes`)
    X : array-like of shape (n_samples, n_features)

    Returns
    -------
    ndarray of shape (n_samples,) when the model has one hyperplane (two classes), else
    (n_samples, n_hyperplanes), in the order of ``hyperplanes(model).pairs``.

    See Also
    --------
    linclass.geometry.hyperplanes : The hyperplanes measured from.
    sklearn.svm.SVC.decision_function : scikit-learn's scores, not divided by the normal's
        length.

    Examples
    --------
    >>> import linclass
    >>> from linclass.geometry import signed_distance
    >>> X, y, *_ = linclass.datasets.load_dataset('iris')
    >>> model = linclass.LogisticRegression().fit(X[:100], y[:100])  # setosa, versicolor
    >>> d = signed_distance(model, X[:100])
    >>> d.shape, bool((d[:50] < 0).all() and (d[50:] > 0).all())
    ((100,), True)
    """
    H = hyperplanes(model)
    X = _inputs(model, X)
    y = np.asarray(X @ H.w.T) + H.w0
    norm = np.linalg.norm(H.w, axis=1)
    safe = np.where(norm > 0, norm, 1.0)
    r = np.where(norm > 0, y / safe, np.where(y == 0, 0.0, np.copysign(np.inf, y)))
    return r[:, 0] if r.shape[1] == 1 else r


# ----------------------------------------------------------------------------- generative -> logistic


def _tied_model(model) -> None:
    """Refuse all but a fitted binary Gaussian model with one shared covariance: a Gaussian model
    (by the registry, or by its fitted record) whose record has a linear covariance structure."""
    entry = _entry(model)
    gaussian = entry.can("gaussian") if entry is not None else isinstance(
        getattr(model, "model_", None), GaussianModel)
    if gaussian:
        check_is_fitted(model)
    if not gaussian or model.model_.covariance_type not in LINEAR_TYPES:
        what = type(model).__name__
        kind = getattr(model, "covariance_type", None)
        if kind is not None:
            what += f"(covariance_type={kind!r})"
        raise TypeError(
            f"generative_to_logistic needs a fitted binary Gaussian model with one shared covariance "
            f"(LinearDiscriminantAnalysis, or GaussianDiscriminantAnalysis with covariance_type 'tied' "
            f"or 'tied_diag'); got {what}. Only a shared covariance makes the log-odds linear in x "
            "(Bishop 2006 sec. 4.2.1)."
        )
    if len(model.classes_) != 2:
        raise ValueError(
            f"generative_to_logistic maps a two-class model; this one has {len(model.classes_)} classes. "
            "Use hyperplanes(model) for the pairwise boundaries of K classes."
        )


def generative_to_logistic(model: BaseEstimator) -> tuple[np.ndarray, float]:
    """The logistic form of a binary tied-covariance Gaussian model (Bishop 2006 sec. 4.2.1;
    docs/math/gaussian.md#two-class-gaussian-model-in-logistic-form):

    .. math::  P(y=1\\mid x) = \\sigma(\\theta^Tx + \\theta_0),\\qquad
               \\theta = \\Sigma^{-1}(\\mu_1 - \\mu_0),\\qquad
               \\theta_0 = -\\tfrac12\\mu_1^T\\Sigma^{-1}\\mu_1 + \\tfrac12\\mu_0^T\\Sigma^{-1}\\mu_0
                          + \\ln\\frac{\\phi}{1-\\phi}

    with :math:`\\phi = P(y = 1)`.  Computed from ``means_``, the fitted covariance and ``priors_``
    (never from ``coef_``) by the one Gaussian-to-linear map
    (:func:`linclass.generative.precision.gaussian_discriminants`) about the midpoint
    :math:`c = (\\mu_0 + \\mu_1)/2`, where the two quadratic terms are equal and cancel exactly:
    :math:`\\theta_0 = -\\tfrac12(\\mu_1 + \\mu_0)^T\\theta + \\ln\\phi - \\ln(1-\\phi)`, which avoids
    the cancellation of two large quadratic forms.  Class 1 is ``classes_[1]``.  A singular
    :math:`\\Sigma` uses the pseudo-inverse exactly as the fit did (:func:`linclass.generative.precision.precision_root`).

    Parameters
    ----------
    model : fitted LinearDiscriminantAnalysis, or GaussianDiscriminantAnalysis with
        covariance_type 'tied' or 'tied_diag', on two classes

    Returns
    -------
    theta : ndarray of shape (n_features,)
    theta0 : float

    Raises
    ------
    TypeError for other models; ValueError for more than two classes or a zero prior.

    See Also
    --------
    linclass.LinearDiscriminantAnalysis : A tied-covariance Gaussian model.
    linclass.LogisticRegression : The discriminative model of the same form.

    Examples
    --------
    >>> import linclass
    >>> X, y, *_ = linclass.datasets.load_dataset('iris')
    >>> lda = linclass.LinearDiscriminantAnalysis().fit(X[:100], y[:100])
    >>> w, w0 = linclass.geometry.generative_to_logistic(lda)
    >>> w.shape
    (4,)
    """
    _tied_model(model)
    mu0, mu1 = np.asarray(model.means_, dtype=np.float64)
    phi = np.asarray(model.priors_, dtype=np.float64)
    if np.any(phi <= 0):
        raise ValueError(
            f"A class prior is zero (priors_={phi.tolist()}): the log-odds are infinite, there is no "
            "finite logistic form."
        )
    sigma = np.asarray(model.model_.covariance, dtype=np.float64)  # (covariance_ is optional)
    root, _ = precision_root(sigma, float(model.tol), feature_scale(model.stats_))
    middle = 0.5 * (mu0 + mu1)  # about the midpoint the two quadratic terms cancel exactly
    coef, intercept = gaussian_discriminants(np.array([mu0, mu1]), np.log(phi), *whitening(root),
                                             middle)
    theta = coef[1] - coef[0]
    theta0 = float(intercept[1] - intercept[0]) - float(middle @ theta)
    return theta, theta0
