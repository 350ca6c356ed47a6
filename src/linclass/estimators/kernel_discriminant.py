"""Kernel Fisher discriminant analysis as a scikit-learn transformer and classifier.

validate -> :mod:`linclass.projection.kernels` (Gram matrix or Nystroem features) ->
:mod:`linclass.projection.kernel_fisher` (centring, solver) -> projection ->
:func:`linclass.generative.gaussian.estimate` on the projected class statistics ->
:mod:`linclass.core.posterior`.  Nystroem fits from chunks (Dask collections, files) go through
:mod:`linclass.projection.kernel_fisher_chunks` to the same solver.  No mathematics lives here.
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Integral, Real
from typing import Self

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from linclass.generative import gaussian, gaussian_scores
from linclass.projection import fisher
from linclass.projection import kernel_fisher, kernel_fisher_chunks
from linclass.core.validation import check_magnitude, validate_fit, validate_priors
from linclass.projection.kernels import (
    NAMES, choose_landmarks, gamma_from_variance, make_kernel, select_landmarks,
)
from linclass.sources.dask import is_dask_collection, lazy_on_dask
from linclass.estimators.fitted_state import clear_fitted_state
from linclass.estimators.projected import checked_projection
from linclass.estimators.score_predictions import ScorePredictions

__all__ = ["KernelFisherDiscriminantAnalysis"]


class KernelFisherDiscriminantAnalysis(
    ScorePredictions, ClassNamePrefixFeaturesOutMixin, TransformerMixin, ClassifierMixin, BaseEstimator
):
    """Kernel Fisher discriminant analysis (Mika et al. 1999; Baudat and Anouar 2000): Fisher's discriminant
    in the feature space of a kernel, and a classifier on the projection.

    Solves :math:`CE\\Pi^{-1}E^TC\\Psi = CC\\Psi\\Lambda` with :math:`C = HKH` by one of three
    methods (:doc:`/math/kernel_fisher`, section "Kernel Fisher discriminant in dual form") and projects a
    new point by
    :math:`\\Psi^TH(k(X, x_0) - K1/n)` (see :mod:`linclass.projection.kernel_fisher`).  Classes are then predicted from
    Gaussian class densities on the projection with a shared covariance and the priors (the nearest projected
    class mean in the Mahalanobis sense, plus :math:`\\ln p(C_k)`); ``predict_proba`` is their posterior.

    Parameters
    ----------
    kernel : {'rbf', 'linear', 'poly', 'sigmoid', 'precomputed'} or callable, default='rbf'
        A callable gets two 2-D arrays and returns their (len(A), len(B)) kernel matrix.
        'precomputed': X is the (n, n) kernel matrix at fit and (m, n) afterwards.
    gamma : float, default=None
        For 'rbf', 'poly', 'sigmoid'; None means :math:`1/(d\\,\\mathrm{Var}(X))`.
    degree : float, default=3
    coef0 : float, default=1
    solver : {'ridge', 'pinv', 'gsvd'}, default='ridge'
        'ridge': :math:`(CC+\\sigma I)^{-1}`, one Cholesky factorisation, the fastest.  'pinv':
        :math:`(CC)^\\dagger`, from the eigendecomposition of C, with eigenvalues below ``tol`` times
        the largest dropped: with a small ``tol`` on a full-rank kernel (rbf) the training classes
        collapse to points (every eigenvalue is 1) and the model overfits; raise ``tol`` to truncate.
        'gsvd': the generalized SVD of :math:`[\\Pi^{-1/2}E^TC; C]`, numerically the most robust and
        the slowest.
    sigma : float or 'auto', default='auto'
        Ridge for solver='ridge', relative: :math:`\\sigma = \\text{sigma}\\cdot(\\mathrm{tr}\\,C)^2`,
        which bounds the condition number of :math:`CC + \\sigma I` by :math:`1 + 1/\\text{sigma}`.
        It is a regularisation strength, best chosen by cross-validation.  'auto' (``sigma_``) is
        :math:`10^{-6}(r/n)^2` with r the kernel coefficients per direction (n exact, the number of
        landmarks with Nystroem): the relative scale alone does not shrink with n, so the ridge
        shrinks with the samples per coefficient (:func:`linclass.projection.kernel_fisher.auto_sigma`).
    tol : float, default=1e-10
        Relative eigenvalue / singular value threshold for 'pinv', 'gsvd' and the Nystroem map.
    n_components : int, default=None
        Directions kept (at most n_classes - 1).
    priors : array-like of shape (n_classes,), default=None
        Class priors of the classifier on the projection; None uses :math:`n_k/n`.
    approximation : {None, 'nystroem'}, default=None
        None: the exact n x n problem (memory is checked first: an exact fit that would not fit in the
        available memory is refused with a message saying how much it needs).  'nystroem': explicit
        features from ``n_landmarks`` landmarks, then the same solver on the small primal problem;
        time and memory linear in n.
    n_landmarks : int, default=1000
    landmarks : {'kmeans++', 'random'}, default='kmeans++'
        How Nystroem landmarks are chosen (k-means++ seeding with the kernel-induced distance, or
        uniformly at random).
    random_state : int, RandomState or None, default=None
        Landmark selection.

    See Also
    --------
    linclass.FisherDiscriminantAnalysis : The linear discriminant.
    linclass.StandardizedClassifier : Standardises the features first (a kernel's width depends
        on their units).
    sklearn.kernel_approximation.Nystroem : scikit-learn has no kernel Fisher discriminant; its
        Nystroem features followed by LDA approximate one.

    Notes
    -----
    With ``approximation='nystroem'`` the model also fits from chunks: Dask collections passed to
    ``fit``, and any chunk source through ``fit_source`` (:func:`linclass.chunks.fit_chunked`,
    the command's ``--chunksize``), with the in-memory answer.  The landmarks are the rows at the
    global row indices that the in-memory fit would draw for the same ``random_state`` (the rows are
    counted in a first pass, then those rows gathered; 'kmeans++' gathers its pool of candidates, at
    most 200,000 rows); then each chunk gives the class statistics of its kernel values against the
    landmarks, merged, and the small problem is solved as in memory
    (:mod:`linclass.projection.kernel_fisher_chunks`).  The exact fit (``approximation=None``) needs
    every row in memory and refuses chunks.  On a Dask collection, ``transform``, ``predict``,
    ``predict_proba``, ``predict_log_proba`` and ``decision_function`` return lazy Dask arrays.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    eigenvalues_ : ndarray of shape (n_components_,)
        Between- over total variance in the feature space along each direction (in [0, 1]).
    explained_variance_ratio_ : ndarray of shape (n_components_,)
    n_components_ : int
    X_fit_ : ndarray
        The training rows (exact) or the landmarks (Nystroem) that new points are compared with.
    dual_coef_ : ndarray of shape (len(X_fit_), n_components_)
        :math:`\\alpha = H\\Psi` (exact) or :math:`U_rS_r^{-1/2}A` (Nystroem):
        ``transform(X) = k(X, X_fit_) @ dual_coef_ - offset_``.
    offset_ : ndarray of shape (n_components_,)
    landmark_indices_ : ndarray, Nystroem only
        Rows of the training X used as landmarks.
    gamma_ : float
        The kernel's gamma (resolved when ``gamma`` is None).
    sigma_ : float
        The relative ridge used (``sigma``, or its 'auto' value).
    projected_means_ : ndarray of shape (n_classes, n_components_)
    projected_covariance_ : ndarray of shape (n_components_, n_components_)
        Pooled within-class covariance of the training projections (the classifier's).
    priors_ : ndarray of shape (n_classes,)
    n_features_in_, feature_names_in_

    Examples
    --------
    >>> import numpy as np
    >>> import linclass
    >>> X = np.array([[0, 0], [1, 1], [0, 1], [1, 0], [.1, .1], [.9, .9], [.1, .9], [.9, .1]])
    >>> y = np.array([0, 0, 1, 1, 0, 0, 1, 1])  # XOR: the class means coincide, no line separates
    >>> kfda = linclass.KernelFisherDiscriminantAnalysis(kernel='rbf', gamma=2.0).fit(X, y)
    >>> kfda.predict([[0.2, 0.1], [0.8, 0.9], [0.1, 0.8], [0.9, 0.2]])
    array([0, 0, 1, 1])
    >>> kfda.transform(X[:4]).round(2)  # one direction in the kernel's feature space
    array([[-1.01],
           [-1.01],
           [ 1.01],
           [ 1.01]])
    """

    _parameter_constraints = {
        "kernel": [StrOptions(set(NAMES)), callable],
        "gamma": [Interval(Real, 0, None, closed="neither"), None],
        "degree": [Interval(Real, 0, None, closed="left")],
        "coef0": [Real],
        "solver": [StrOptions(set(kernel_fisher.SOLVERS))],
        "sigma": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "tol": [Interval(Real, 0, 1, closed="left")],
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "priors": ["array-like", None],
        "approximation": [StrOptions({"nystroem"}), None],
        "n_landmarks": [Interval(Integral, 1, None, closed="left")],
        "landmarks": [StrOptions({"kmeans++", "random"})],
        "random_state": ["random_state"],
    }

    def __init__(self, kernel: str | Callable[[np.ndarray, np.ndarray], np.ndarray] = "rbf", *,
                 gamma: float | None = None, degree: float = 3, coef0: float = 1,
                 solver: str = "ridge", sigma: float | str = "auto", tol: float = 1e-10,
                 n_components: int | None = None, priors: ArrayLike | None = None,
                 approximation: str | None = None, n_landmarks: int = 1000,
                 landmarks: str = "kmeans++",
                 random_state: int | np.random.RandomState | None = None) -> None:
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.sigma = sigma
        self.tol = tol
        self.n_components = n_components
        self.priors = priors
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.landmarks = landmarks
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    # ------------------------------------------------------------------------------------------ fit
    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Fit the kernel Fisher projection and the classifier on it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or (n_samples, n_samples) for 'precomputed'
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        self._validate_params()
        clear_fitted_state(self)  # no stale attributes from an earlier fit (landmark_indices_)
        if is_dask_collection(X, y):
            refusal = self._chunks_refusal()
            if refusal is not None:
                raise TypeError(f"{type(self).__name__} does not work on Dask collections as set: "
                                f"{refusal} Otherwise call X.compute() first if the data fit in memory.")
            from linclass.sources.dask import DaskSource

            return self._fit_source(DaskSource(X, y))
        data = validate_fit(self, X, y)
        X, y, classes = data.X, data.y, data.classes
        n = X.shape[0]
        precomputed = self.kernel == "precomputed"
        if not precomputed:
            check_magnitude(self, X)  # kernels square X (distances, inner products)
        if precomputed and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"kernel='precomputed' needs the square (n_samples, n_samples) kernel matrix at fit; "
                f"got shape {X.shape}."
            )
        limit = classes.size - 1
        if self.n_components is not None and self.n_components > limit:
            raise ValueError(
                f"n_components={self.n_components} cannot be larger than n_classes - 1 = {limit}."
            )
        priors = validate_priors(self.priors, classes.size)
        kernel = None if precomputed else make_kernel(self.kernel, X, self.gamma, self.degree, self.coef0)
        settings = dict(solver=self.solver, sigma=self.sigma, tol=self.tol, n_components=self.n_components)
        if self.approximation is None:
            settings["sigma"] = self.sigma_ = self._sigma(n, n)
            kernel_fisher.check_memory(n, self.solver, type(self).__name__)
            if precomputed:
                model = kernel_fisher.fit_exact(None, y, classes, kernel, gram=X, **settings)
            else:
                model = kernel_fisher.fit_exact(X, y, classes, kernel, **settings)
        else:
            if precomputed:
                raise ValueError(
                    "approximation='nystroem' needs the kernel function, not kernel='precomputed'."
                )
            rng = check_random_state(self.random_state)
            idx = select_landmarks(X, self.n_landmarks, self.landmarks, kernel, rng)
            settings["sigma"] = self.sigma_ = self._sigma(n, idx.size)
            model = kernel_fisher.fit_nystroem(X, y, classes, kernel, idx, **settings)
            self.landmark_indices_ = idx
        return self._install(model, classes, priors, kernel)

    def _chunks_refusal(self) -> str | None:
        """Why these settings cannot fit from chunks (:func:`linclass.sources.chunks.chunks_refusal`),
        or None."""
        if self.approximation is None:
            return (f"{type(self).__name__} needs all rows in memory in its exact form "
                    "(approximation=None solves an n x n kernel problem); use "
                    "approximation='nystroem' to fit from chunks.")
        if self.kernel == "precomputed":
            return ("approximation='nystroem' needs the kernel function, not kernel='precomputed', "
                    "and a precomputed kernel matrix needs all rows in memory.")
        return None

    def fit_source(self, source):
        """Fit the Nystroem approximation from a chunk source
        (:class:`linclass.sources.chunks.ChunkFittable`); the result equals ``fit`` on all rows at
        once with the same ``random_state``.

        Three passes: the rows counted (with the variance of X for ``gamma=None``), the landmark
        rows gathered (the in-memory rule's row indices), the class statistics of the kernel values
        against the landmarks (:mod:`linclass.projection.kernel_fisher_chunks`).

        Parameters
        ----------
        source : ChunkSource
            The rows, read three times (any :class:`linclass.core.chunks.ChunkSource`).

        Returns
        -------
        self
            The fitted estimator.

        Raises
        ------
        ValueError
            With ``approximation=None`` (the exact fit needs every row in memory).
        """
        self._validate_params()
        clear_fitted_state(self)
        return self._fit_source(source)

    def _fit_source(self, source):
        from linclass.sources.chunks import record_features

        refusal = self._chunks_refusal()
        if refusal is not None:
            raise ValueError(refusal)
        record_features(self, source)
        summary = kernel_fisher_chunks.summarise_rows(source)
        n = summary.n_samples
        summary.scan.check_squares(self)  # as check_magnitude, naming the file and row
        gamma = self.gamma
        if gamma is None and not callable(self.kernel):
            gamma = gamma_from_variance(summary.variance, source.n_features)
        kernel = make_kernel(self.kernel, None, gamma, self.degree, self.coef0)
        rng = check_random_state(self.random_state)
        gathered = {}  # kmeans++: the pool's rows, which hold the landmarks

        def rows(at):
            gathered["at"], gathered["rows"] = at, kernel_fisher_chunks.gather_rows(source, summary, at)
            return gathered["rows"]

        idx = choose_landmarks(n, self.n_landmarks, self.landmarks, kernel, rng, rows)
        if gathered:
            landmarks = gathered["rows"][np.searchsorted(gathered["at"], idx)]
        else:
            landmarks = kernel_fisher_chunks.gather_rows(source, summary, idx)
        stats = kernel_fisher_chunks.source_landmark_stats(self, source, kernel, landmarks)
        classes = stats.classes
        limit = classes.size - 1
        if self.n_components is not None and self.n_components > limit:
            raise ValueError(
                f"n_components={self.n_components} cannot be larger than n_classes - 1 = {limit}."
            )
        priors = validate_priors(self.priors, classes.size)
        self.sigma_ = self._sigma(n, idx.size)
        model = kernel_fisher.solve_nystroem(
            stats, kernel, landmarks, solver=self.solver, sigma=self.sigma_, tol=self.tol,
            n_components=self.n_components,
        )
        self.landmark_indices_ = idx
        return self._install(model, classes, priors, kernel)

    def _install(self, model, classes, priors, kernel):
        """Set every fitted attribute from the fitted projection ``model``."""
        zstats = model.projected_stats
        self.model_ = model
        self.classifier_ = gaussian.estimate(zstats, "tied", priors=priors, var_smoothing=1e-9)
        self.classes_ = classes
        self.priors_ = np.exp(self.classifier_.log_priors)
        self.eigenvalues_ = model.eigenvalues
        self.explained_variance_ratio_ = fisher.explained_variance_ratio(model.eigenvalues)
        self.n_components_ = self._n_features_out = model.coef.shape[1]
        self.X_fit_ = model.train
        self.dual_coef_ = model.coef
        self.offset_ = model.offset
        self.gamma_ = getattr(kernel, "gamma", None)
        self.projected_means_ = zstats.means
        self.projected_covariance_ = self.classifier_.covariance
        return self

    def _sigma(self, n_samples: int, n_parameters: int) -> float:
        if isinstance(self.sigma, str):  # 'auto'
            return kernel_fisher.auto_sigma(n_samples, n_parameters)
        return float(self.sigma)

    # ------------------------------------------------------------------------------------------ use
    @lazy_on_dask
    def transform(self, X: ArrayLike) -> np.ndarray:
        """Project X on the kernel Fisher directions.

        Returns
        -------
        ndarray of shape (n_samples, n_components_)
        """
        precomputed = self.kernel == "precomputed"
        return checked_projection(
            self, X, lambda X: kernel_fisher.project(self.model_, X, precomputed=precomputed)
        )

    def _scores(self, X):
        Z = self.transform(X)
        return gaussian_scores.joint_log_likelihood(self.classifier_, Z)

    @lazy_on_dask
    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Class scores on the projection; for two classes the score of ``classes_[1]`` minus that of
        ``classes_[0]``, shape (n_samples,), else (n_samples, n_classes)."""
        scores = self._scores(X)
        return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores

