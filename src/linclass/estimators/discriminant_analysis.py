"""Gaussian discriminant analysis: QDA and the general covariance structures (LDA, the shared
covariance, is :mod:`linclass.estimators.linear_discriminant`; the machinery they share:
:mod:`linclass.estimators.gaussian_base`).

validate -> :class:`~linclass.ClassStats` (merged across ``partial_fit`` calls) ->
:func:`linclass.generative.gaussian.estimate` ->
:func:`linclass.generative.gaussian_scores.joint_log_likelihood` ->
:func:`linclass.core.posterior.log_posterior`.  No mathematics lives here.
"""

from __future__ import annotations

from typing import Any
import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils._param_validation import StrOptions

from linclass.estimators.gaussian_base import _SKLEARN_COVARIANCE, _GaussianBase, _SklearnCovariance
from linclass.generative import gaussian, gaussian_scores, predictive

__all__ = [
    "GaussianDiscriminantAnalysis",
    "QuadraticDiscriminantAnalysis",
]


class GaussianDiscriminantAnalysis(_GaussianBase):
    """Gaussian discriminant analysis with a choice of covariance structure.

    Parameters
    ----------
    covariance_type : {'tied', 'full', 'diag', 'tied_diag', 'spherical'}, default='tied'
        'tied': one full covariance shared by all classes (LDA; Bishop 2006 sec. 4.2.1-4.2.2);
        'full': one full covariance per class (QDA; Bishop 2006 sec. 4.2.1);
        'diag': per-class diagonal covariance (Gaussian naive Bayes);
        'tied_diag': one diagonal covariance shared by all classes (naive Bayes with a shared
        variance, whose decision function is linear: :doc:`/math/gaussian`, section "One shared
        variance per feature");
        'spherical': per-class :math:`\\sigma_k^2 I`.
    priors : array-like of shape (n_classes,), default=None
        Class priors; None estimates them by maximum likelihood (:math:`n_k/n`).
    unbiased : bool, default=False
        False divides scatter by :math:`n` (pooled) / :math:`n_k` (per class), the maximum-likelihood
        estimate (:doc:`/math/gaussian`, section "Maximum-likelihood class statistics"); True by
        :math:`n-K` / :math:`n_k-1`.
    shrinkage : None, float in [0, 1], 'ledoit-wolf' or 'oas', default=None
        Shrink the covariance towards :math:`(\\mathrm{tr}\\Sigma/d)I` ('tied' and 'full' only), in
        the units of X: standardize features of very different scales first.
    reg_param : float in [0, 1], default=0.0
        :math:`(1-r)\\Sigma + rI` (scikit-learn's QDA regularisation).
    var_smoothing : float >= 0, default=0.0
        Adds this fraction of the largest feature variance to every variance.
    tol : float, default=1e-10
        Eigenvalues below ``tol`` times the largest count as zero (pseudo-inverse for 'tied', an
        eigenvalue floor otherwise, each with a :class:`~linclass.SingularCovarianceWarning`).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        Total sample weight per class.
    priors_ : ndarray of shape (n_classes,)
    means_ : ndarray of shape (n_classes, n_features)
    covariance_ : ndarray
        (d, d) 'tied'; (K, d, d) 'full'; (K, d) 'diag'; (d,) 'tied_diag'; (K,) 'spherical'.
    coef_, intercept_ : ndarray, linear types ('tied', 'tied_diag') only
        Shapes (1, d) and (1,) for two classes (:math:`\\theta`, :math:`\\theta_0` with
        :math:`p(C_1|x) = \\sigma(\\theta^Tx+\\theta_0)`), (K, d) and (K,) otherwise.
    shrinkage_ : float or ndarray of shape (n_classes,)
        Shrinkage intensity used, when ``shrinkage`` is set.
    stats_ : ClassStats
        The sufficient statistics (mergeable; see :meth:`partial_fit`).
    model_ : GaussianModel
    n_features_in_ : int
    feature_names_in_ : ndarray of str, when X had string column names

    See Also
    --------
    linclass.LinearDiscriminantAnalysis : The 'tied' model, with LDA's projections and summary.
    linclass.QuadraticDiscriminantAnalysis : The 'full' model.
    linclass.GaussianNB : The 'diag' model, with naive Bayes's variance smoothing.
    sklearn.discriminant_analysis.QuadraticDiscriminantAnalysis : scikit-learn has no single class
        for every covariance structure; its LDA and QDA are the 'tied' and 'full' models.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> import linclass
    >>> X, y = load_iris(return_X_y=True)
    >>> for covariance_type in ('tied', 'full', 'diag', 'spherical'):
    ...     model = linclass.GaussianDiscriminantAnalysis(covariance_type).fit(X, y)
    ...     print(covariance_type, round(model.score(X, y), 2))
    tied 0.98
    full 0.98
    diag 0.96
    spherical 0.92
    """

    _parameter_constraints = {
        **_GaussianBase._parameter_constraints,
        "covariance_type": [StrOptions(set(gaussian.COVARIANCE_TYPES))],
    }

    def __init__(self, covariance_type: str = "tied", *, priors: ArrayLike | None = None,
                 unbiased: bool = False, shrinkage: float | str | None = None,
                 reg_param: float = 0.0, var_smoothing: float = 0.0, tol: float = 1e-10) -> None:
        self.covariance_type = covariance_type
        self.priors = priors
        self.unbiased = unbiased
        self.shrinkage = shrinkage
        self.reg_param = reg_param
        self.var_smoothing = var_smoothing
        self.tol = tol


class QuadraticDiscriminantAnalysis(_SklearnCovariance, _GaussianBase):
    """Quadratic discriminant analysis: a full covariance per class (Bishop 2006 sec. 4.2.1).

    Same as ``GaussianDiscriminantAnalysis(covariance_type='full')``, with scikit-learn 1.9's
    interface: the default maximum-likelihood covariance (divided by :math:`n_k`), ``reg_param``,
    ``shrinkage`` and ``covariance_estimator`` are those of scikit-learn's QDA, so the probabilities
    agree.  ``posterior`` chooses among MASS's three posteriors (``predict.qda(method=...)``):
    'plug-in' (the estimates in Bayes' rule), 'predictive' (the Bayesian predictive density, a
    multivariate t per class) or 'debiased' (unbiased estimates of the Mahalanobis distance and
    log-determinant); see :mod:`linclass.generative.predictive`, which lists where MASS's code differs
    from the textbook formulas implemented here.

    Parameters
    ----------
    solver : {'svd', 'eigen'}, default='svd'
        Both give the same model: scikit-learn's 'svd' takes the principal axes of each class from the
        SVD of its centred rows, 'eigen' from the eigendecomposition of :math:`\\Sigma_k`; both are the
        eigenvectors of :math:`\\Sigma_k`, which linclass computes (standardized) for every solver.
        Unlike scikit-learn's 'svd', either accepts ``shrinkage`` and ``covariance_estimator``.
    shrinkage : None, 'auto', float in [0, 1], 'ledoit-wolf' or 'oas', default=None
        Per class.  A float: :math:`(1-\\alpha)\\Sigma_k + \\alpha(\\mathrm{tr}\\Sigma_k/d)I`.  'auto'
        (scikit-learn's): Ledoit-Wolf on the class's standardized rows, i.e. shrinkage towards its own
        diagonal (:mod:`linclass.generative.covariance`; needs ``fit`` on all rows).  'ledoit-wolf' /
        'oas' (linclass's): the intensity from the class's residuals in the units of X, from
        statistics that stream (``partial_fit``).
    priors : array-like of shape (n_classes,), default=None
        None: :math:`n_k / n`.  Priors that do not sum to one are divided by their sum (a warning).
    reg_param : float in [0, 1], default=0.0
        :math:`(1-r)\\Sigma_k + rI` (scikit-learn's rule; linclass applies it with every solver and
        covariance estimate).
    store_covariance : bool, default=False
        Set ``covariance_`` (as in scikit-learn; the model keeps the covariances in ``model_``
        either way).
    tol : float, default=1e-4
        Rank threshold on scikit-learn's scale: a class whose standardized :math:`\\Sigma_k` has an
        eigenvalue at or below ``tol**2`` times the largest (a singular value of the standardized
        class rows at or below ``tol`` times the largest) is not of full rank, and ``fit`` raises a
        ``numpy.linalg.LinAlgError`` naming ``reg_param`` and ``shrinkage``, as scikit-learn does
        (its threshold is ``tol`` on the eigenvalues in the units of X; with well-scaled data the two
        agree).  A class with a single sample is a ``ValueError``, as there.
        ``GaussianDiscriminantAnalysis(covariance_type='full')`` floors such eigenvalues instead.
    covariance_estimator : estimator object or None, default=None
        Any object with scikit-learn's covariance API (``fit(X)``, then ``covariance_``), e.g.
        :class:`sklearn.covariance.OAS` or :class:`~sklearn.covariance.MinCovDet`: a clone (the
        object itself when it has no ``get_params``) is fitted
        on each class's rows and replaces :math:`S_k/n_k`.
    unbiased : bool, default=False
        :math:`S_k/(n_k-1)` instead of the maximum-likelihood :math:`S_k/n_k`.
    posterior : {'plug-in', 'predictive', 'debiased'}, default='plug-in'
        See above (the last two for the unregularised estimates).

    Attributes
    ----------
    classes_, class_count_, priors_, means_, stats_, model_ : see GaussianDiscriminantAnalysis
    covariance_ : list of n_classes ndarrays of shape (d, d)
        The covariance of each class actually used, when ``store_covariance=True`` (files saved
        before hold one (n_classes, d, d) array, which indexes and iterates the same).
    rotations_ : list of n_classes ndarrays of shape (d, d)
        Eigenvectors of each :math:`\\Sigma_k` (its principal axes), by decreasing eigenvalue.
    scalings_ : list of n_classes ndarrays of shape (d,)
        The eigenvalues: the variances along the principal axes.
    rank_ : ndarray of shape (n_classes,)
        Numerical rank of each :math:`\\Sigma_k` (below ``n_features``: eigenvalues were floored).
    quadratic_, linear_, constant_ : ndarrays of shape (K, d, d), (K, d), (K,)
        The quadratic form :math:`\\ln p(x, C_k) = x^TQ_kx + l_k^Tx + c_k` (of the plug-in posterior).
    shrinkage_ : ndarray of shape (n_classes,), when ``shrinkage`` is set

    See Also
    --------
    linclass.LinearDiscriminantAnalysis : One covariance shared by the classes (linear boundaries).
    linclass.GaussianDiscriminantAnalysis : Diagonal, spherical and tied covariances too.
    linclass.RegularizedDiscriminantAnalysis : Shrinks each class's covariance to the pooled one.
    sklearn.discriminant_analysis.QuadraticDiscriminantAnalysis : scikit-learn's QDA, the same
        interface; R's counterpart is ``MASS::qda``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> import linclass
    >>> X, y = load_iris(return_X_y=True)
    >>> qda = linclass.QuadraticDiscriminantAnalysis(store_covariance=True).fit(X, y)
    >>> [round(float(np.trace(c)), 2) for c in qda.covariance_]  # each species its own spread
    [0.3, 0.61, 0.87]
    >>> qda.quadratic_.shape  # so each class score has its own quadratic term x^T Q_k x
    (3, 4, 4)
    """

    _fixed_covariance_type = "full"
    _on_singular = "raise"  # scikit-learn's QDA: a LinAlgError
    _keeps_float32 = True  # scikit-learn 1.9's QDA: float32 means and covariances, float64 outputs
    _float32_attributes = ("means_", "covariance_")
    _parameter_constraints = {
        **_GaussianBase._parameter_constraints,
        **_SKLEARN_COVARIANCE,
        "solver": [StrOptions({"svd", "eigen"})],
        "posterior": [StrOptions(set(predictive.POSTERIORS))],
    }

    def __init__(self, *, solver: str = "svd", shrinkage: float | str | None = None,
                 priors: ArrayLike | None = None, reg_param: float = 0.0,
                 store_covariance: bool = False, tol: float = 1e-4,
                 covariance_estimator: Any = None, unbiased: bool = False,
                 posterior: str = "plug-in") -> None:
        self.posterior = posterior
        self.solver = solver
        self.shrinkage = shrinkage
        self.priors = priors
        self.reg_param = reg_param
        self.store_covariance = store_covariance
        self.tol = tol
        self.covariance_estimator = covariance_estimator
        self.unbiased = unbiased

    def _stores_covariance(self) -> bool:
        return bool(self.store_covariance)

    def _check_training_rows(self, data) -> None:
        # one row, unless its weight makes it several (frequency weights: repeated rows)
        if data.sample_weight is None:
            rows = total = np.bincount(data.y, minlength=data.classes.size)
        else:
            weight = data.sample_weight
            rows = np.bincount(data.y[weight > 0], minlength=data.classes.size)
            total = np.bincount(data.y, weights=weight, minlength=data.classes.size)
        single = (rows == 1) & (total <= 1)
        if np.any(single):
            label = data.classes[np.flatnonzero(single)[0]]
            raise ValueError(
                f"y has only 1 sample in class {label}, so its covariance is ill defined: "
                "QuadraticDiscriminantAnalysis needs at least 2 samples in every class."
            )

    def _describe(self, model) -> None:
        super()._describe(model)
        if self._stores_covariance():  # scikit-learn's form: a list of (d, d) arrays
            self.covariance_ = list(model.covariance)
        self.rank_ = model.rank
        self.quadratic_, self.linear_, self.constant_ = gaussian_scores.quadratic_form(model)

    def _principal_axes(self) -> list:
        self._require_model()
        axes = []
        dtype = self.means_.dtype  # float32 after a float32 fit; the eigh is float64
        for sigma in self.model_.covariance:
            evals, evecs = np.linalg.eigh(sigma.astype(np.float64))
            axes.append((np.maximum(evals[::-1], 0.0).astype(dtype), evecs[:, ::-1].astype(dtype)))
        return axes

    @property
    def rotations_(self) -> list:
        """Eigenvectors of each class covariance, columns by decreasing eigenvalue (a list of
        n_classes arrays of shape (n_features, n_features), computed on access)."""
        return [U for _, U in self._principal_axes()]

    @property
    def scalings_(self) -> list:
        """Eigenvalues of each class covariance, decreasing (a list of n_classes arrays of shape
        (n_features,), computed on access)."""
        return [lam for lam, _ in self._principal_axes()]
