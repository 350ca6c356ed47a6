"""Fisher's linear discriminant as a scikit-learn transformer and classifier.

validate -> :class:`~linclass.ClassStats` ('tied') ->
:func:`linclass.projection.fisher.estimate` -> :func:`linclass.projection.fisher.scores` ->
:mod:`linclass.core.posterior`.  No mathematics lives here.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from linclass.projection import fisher
from linclass.sources.dask import lazy_on_dask
from linclass.estimators.projected import checked_projection
from linclass.estimators.stats_classifier import StatsClassifier

__all__ = ["FisherDiscriminantAnalysis"]


class FisherDiscriminantAnalysis(ClassNamePrefixFeaturesOutMixin, TransformerMixin, StatsClassifier):
    """Fisher's linear discriminant: the projection that maximises
    :math:`J(w) = w^TS_Bw / w^TS_Ww`, and a classifier on it.

    Two classes: :math:`w \\propto S_W^{-1}(m_2 - m_1)` (Bishop 2006 eq. 4.30), oriented so that
    ``classes_[1]`` projects higher.  K classes: the generalized symmetric eigenproblem
    :math:`S_Bv = \\lambda S_Wv` (Bishop 2006 sec. 4.1.6; the total-scatter form :math:`S_bA = S_tA\\Lambda`
    gives the same directions), at most K-1 components.  Fitted from the class statistics alone, so
    ``partial_fit`` on chunks equals ``fit``.

    Parameters
    ----------
    n_components : int, default=None
        Directions kept by ``transform`` and used by the classifier (at most
        ``min(n_classes - 1, n_features)``); None keeps all.
    solver : {'svd', 'eigen', 'gsvd'}, default='svd'
        'eigen': Cholesky of :math:`S_W` and a symmetric eigenproblem (the closed form for two
        classes); needs non-singular :math:`S_W` (otherwise it warns and solves as 'svd').
        'svd': whitening on the range of :math:`S_W` and an SVD of the class means; never forms
        :math:`S_B`.  'gsvd': Howland-Park LDA/GSVD, for singular :math:`S_W` and d > n without a
        ridge: directions in the null space of :math:`S_W` that separate the classes come first, with
        eigenvalue ``inf``.
    threshold : {'gaussian', 'midpoint'}, default='gaussian'
        Classification rule on the projection.  'gaussian': Gaussian class densities with the pooled
        within-class covariance (the identity on the normalised directions) and the priors, i.e. the
        nearest projected class mean with a :math:`\\ln p(C_k)` bonus; with every component and
        non-singular :math:`S_W` this predicts exactly as LDA.  'midpoint': the nearest projected class
        mean (for two classes, the midpoint of the projected means).
    priors : array-like of shape (n_classes,), default=None
        Priors for threshold='gaussian'; None uses :math:`n_k/n`.  The directions never depend on them.
    tol : float, default=1e-10
        Eigenvalues of :math:`S_W` (correlation form) below ``tol`` times the largest count as zero.

    Attributes
    ----------
    scalings_ : ndarray of shape (n_features, n_directions)
        Fisher directions by decreasing eigenvalue, normalised to :math:`v^TS_Wv = 1` (:math:`S_W` the
        pooled within-class covariance, scatter/n).
    eigenvalues_ : ndarray of shape (n_directions,)
        :math:`\\lambda_i` of :math:`S_Bv = \\lambda S_Wv`: between- to within-class variance along
        each direction.
    explained_variance_ratio_ : ndarray of shape (n_components,)
        :math:`\\lambda_i / \\sum_j \\lambda_j`.
    canonical_correlations_ : ndarray of shape (n_directions,)
        :math:`\\sqrt{\\lambda_i / (1 + \\lambda_i)}`.
    wilks_lambda_ : float
        :math:`\\prod_i (1 + \\lambda_i)^{-1} = |S_W|/|S_T|`; see :meth:`wilks_test`.
    xbar_ : ndarray of shape (n_features,)
        The weighted training mean subtracted by ``transform``.
    projected_means_ : ndarray of shape (n_classes, n_components)
    coef_, intercept_ : ndarray
        The class scores as linear functions of x; (1, d) and (1,) for two classes (the score of
        ``classes_[1]`` minus that of ``classes_[0]``), else (K, d) and (K,).
    means_ : ndarray of shape (n_classes, n_features)
    classes_, class_count_, priors_, stats_, model_, n_features_in_, feature_names_in_

    See Also
    --------
    linclass.LinearDiscriminantAnalysis : The Gaussian model with the same projection.
    linclass.KernelFisherDiscriminantAnalysis : Fisher's discriminant in a kernel's feature space.
    linclass.plot.fisher_figure : Class histograms of the projections.
    sklearn.discriminant_analysis.LinearDiscriminantAnalysis : scikit-learn's ``transform`` gives
        the same projection; it has no classifier on it alone.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> import linclass
    >>> X, y = load_breast_cancer(return_X_y=True)  # 30 measurements; 0 malignant, 1 benign
    >>> fda = linclass.FisherDiscriminantAnalysis().fit(X, y)
    >>> fda.scalings_.shape  # two classes: one direction, w proportional to S_W^{-1}(m_1 - m_0)
    (30, 1)
    >>> fda.projected_means_.round(2)  # the classes' means on it: benign projects higher
    array([[-2.4 ],
           [ 1.43]])
    >>> fda.transform(X[:3]).round(2)  # three malignant tumours, projected
    array([[-3.33],
           [-2.32],
           [-3.75]])
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "solver": [StrOptions(set(fisher.SOLVERS))],
        "threshold": [StrOptions(set(fisher.THRESHOLDS))],
        "priors": ["array-like", None],
        "tol": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, n_components: int | None = None, *, solver: str = "svd",
                 threshold: str = "gaussian", priors: ArrayLike | None = None,
                 tol: float = 1e-10) -> None:
        self.n_components = n_components
        self.solver = solver
        self.threshold = threshold
        self.priors = priors
        self.tol = tol

    def _stats_request(self) -> tuple[str, bool]:
        return "tied", False

    def _estimate(self, stats, priors):
        limit = min(int(np.sum(stats.counts > 0)) - 1, stats.n_features)
        if self.n_components is not None and self.n_components > limit:
            raise ValueError(
                f"n_components={self.n_components} cannot be larger than min(n_features, "
                f"n_classes - 1) = {limit}."
            )
        return fisher.estimate(
            stats, priors=priors, solver=self.solver, n_components=self.n_components,
            threshold=self.threshold, tol=self.tol,
        )

    def _joint_log_likelihood(self, model, X):
        return fisher.scores(model, X)

    def _describe(self, model) -> None:
        lam = model.eigenvalues
        self.scalings_ = model.directions
        self.eigenvalues_ = lam
        self.explained_variance_ratio_ = fisher.explained_variance_ratio(lam, model.n_components)
        self.canonical_correlations_ = fisher.canonical_correlations(lam)
        self.wilks_lambda_ = fisher.wilks_lambda(lam)
        self.xbar_ = model.center
        self.means_ = self.stats_.means
        self.projected_means_ = model.projected_means
        self._describe_linear(model.coef, model.intercept)
        self._n_features_out = model.n_components

    def wilks_test(self):
        """Bartlett's chi-square test that all class means are equal.

        Returns
        -------
        WilksTest
            ``wilks_lambda``, ``statistic`` :math:`-(n - 1 - (d+K)/2)\\ln\\Lambda`, ``df``
            :math:`d(K-1)`, ``pvalue``.
        """
        check_is_fitted(self)
        return fisher.wilks_test(
            self.eigenvalues_, self.stats_.total, self.n_features_in_, int(np.sum(self.class_count_ > 0))
        )

    @lazy_on_dask
    def transform(self, X: ArrayLike) -> np.ndarray:
        """Project X on the Fisher directions: :math:`z = V^T(x - \\bar x)`.

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        return checked_projection(self, X, lambda X: fisher.project(self.model_, X), check_finite=False)
