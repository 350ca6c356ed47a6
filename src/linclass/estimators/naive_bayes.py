"""Naive Bayes: Gaussian, and the discrete family (Bernoulli, multinomial, Poisson, complement);
categorical features in :mod:`linclass.estimators.categorical_nb`."""

from __future__ import annotations

from numbers import Real

import numpy as np
from numpy.typing import ArrayLike
import scipy.sparse as sp
from scipy.special import gammaln
from sklearn.utils._param_validation import Interval

from linclass.generative import discrete
from linclass.core.validation import check_finite, validate_priors
from linclass.generative.priors import class_log_priors
from linclass.estimators.gaussian_base import _GaussianBase
from linclass.estimators.stats_classifier import StatsClassifier
from linclass.sources.dask import lazy_on_dask

__all__ = ["BernoulliNB", "ComplementNB", "GaussianNB", "MultinomialNB", "PoissonNB"]


class NaiveBayesMixin:
    """What every naive Bayes model shares with scikit-learn's: ``predict_joint_log_proba``, a
    defined answer for a training set of one class (that class, with probability 1), and
    ``partial_fit`` that needs ``classes`` on its first call."""

    _single_class_ok = True
    _partial_fit_needs_classes = True

    def _shared_log_term(self, X):
        """The part of :math:`\\ln p(x, C_k)` that the class scores leave out (shared by all classes)."""
        return 0.0

    @lazy_on_dask
    def predict_joint_log_proba(self, X):
        """Joint log-likelihoods :math:`\\ln p(x, C_k) = \\ln p(x \\mid C_k) + \\ln p(C_k)`, shape
        (n_samples, n_classes): the unnormalised log posterior (``predict_log_proba`` is this minus
        its log-sum-exp over the classes).  As in scikit-learn, the multinomial and complement scores
        leave out the term shared by all classes (the multinomial coefficient)."""
        scores = self._scores(X)
        extra = self._shared_log_term(X)
        return scores if np.isscalar(extra) else scores + extra[:, None]


class GaussianNB(NaiveBayesMixin, _GaussianBase):
    """Gaussian naive Bayes: independent features, a variance per class and feature.

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
    var_smoothing : float, default=1e-9
        Adds ``var_smoothing * max(feature variance)`` to every variance (scikit-learn's rule; with
        the same value the probabilities equal scikit-learn's GaussianNB).
    unbiased : bool, default=False

    Attributes
    ----------
    classes_, class_count_, priors_, stats_, model_ : see GaussianDiscriminantAnalysis
    class_prior_ : ndarray of shape (n_classes,)
        The priors (scikit-learn's name; also ``priors_``).
    theta_ : ndarray of shape (n_classes, n_features)
        Class means (scikit-learn's name; also ``means_``).
    var_ : ndarray of shape (n_classes, n_features)
        Variances including the smoothing (also ``covariance_``).
    epsilon_ : float
        The variance added.

    See Also
    --------
    linclass.GaussianDiscriminantAnalysis : ``covariance_type='diag'`` is the same model without
        the variance smoothing.
    linclass.BernoulliNB : Binary features.
    linclass.MultinomialNB : Counts.
    sklearn.naive_bayes.GaussianNB : scikit-learn's Gaussian naive Bayes, the same interface;
        R's counterpart is ``e1071::naiveBayes``.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> import linclass
    >>> X, y = load_iris(return_X_y=True)  # 4 measurements of 3 species of iris, setosa first
    >>> nb = linclass.GaussianNB().fit(X, y)
    >>> nb.theta_[0].round(2)  # setosa's mean of each feature
    array([5.01, 3.43, 1.46, 0.25])
    >>> nb.var_[0].round(3)  # and its variance of each: no covariances, the features independent
    array([0.122, 0.141, 0.03 , 0.011])
    >>> round(nb.score(X, y), 2)
    0.96
    """

    _fixed_covariance_type = "diag"
    _keeps_float32 = True  # scikit-learn 1.9's GaussianNB: every fitted float is float32
    _float32_attributes = ("priors_", "class_prior_", "class_count_", "theta_", "means_", "var_",
                           "covariance_", "epsilon_")
    _output_attribute = "var_"

    def __init__(self, *, priors: ArrayLike | None = None, var_smoothing: float = 1e-9,
                 unbiased: bool = False) -> None:
        self.priors = priors
        self.var_smoothing = var_smoothing
        self.unbiased = unbiased

    def _describe(self, model) -> None:
        super()._describe(model)
        self.class_prior_ = self.priors_
        self.theta_ = model.means
        self.var_ = model.covariance
        self.epsilon_ = np.float64(self.var_smoothing * np.max(self.stats_.total_variance()))

    @staticmethod
    def _update_mean_variance(n_past, mu, var, X, sample_weight=None):
        """The mean and variance of ``n_past`` earlier rows (``mu``, ``var``, per feature) merged
        with the rows of ``X``: Chan, Golub and LeVeque's pairwise update. scikit-learn's private
        helper of the same name and arguments, kept for code that calls it; returns
        ``(mean, variance)``, unchanged when ``X`` has no rows."""
        X = np.asarray(X, dtype=np.float64)
        if X.shape[0] == 0:
            return mu, var
        w = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
        n_new = float(w.sum())
        new_mu = np.average(X, axis=0, weights=w)
        new_var = np.average((X - new_mu) ** 2, axis=0, weights=w)
        if n_past == 0:
            return new_mu, new_var
        n_total = float(n_past + n_new)
        total_mu = (n_new * new_mu + n_past * np.asarray(mu)) / n_total
        ssd = (n_past * np.asarray(var) + n_new * new_var
               + (n_new * n_past / n_total) * (np.asarray(mu) - new_mu) ** 2)
        return total_mu, ssd / n_total


def _values(X):
    """The stored values of X (all of them when dense)."""
    return X.data if sp.issparse(X) else X


class _DiscreteNB(NaiveBayesMixin, StatsClassifier):
    """Naive Bayes with one of the event models of :mod:`linclass.generative.discrete`.

    Accepts scipy.sparse X without densifying it: the fit is one sparse product
    :math:`X^T\\mathrm{onehot}(y)`, prediction one product :math:`X W^T`.

    scikit-learn's prior parameters: ``fit_prior=False`` gives uniform priors, ``class_prior`` fixed
    ones (``priors`` is linclass's earlier name for it; give one of the two), else they are learned.
    """

    _event_model: str
    _accept_sparse = True
    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0, None, closed="left"), "array-like"],
        "force_alpha": ["boolean"],
        "fit_prior": ["boolean"],
        "class_prior": ["array-like", None],
        "priors": ["array-like", None],
    }

    def __init__(self, *, alpha: float | ArrayLike = 1.0, force_alpha: bool = True,
                 fit_prior: bool = True, class_prior: ArrayLike | None = None,
                 priors: ArrayLike | None = None) -> None:
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.priors = priors

    def _priors(self, n_classes: int):
        if self.class_prior is not None and self.priors is not None:
            raise ValueError("class_prior and priors name the same thing (priors is linclass's earlier "
                             "name); give only class_prior.")
        given = self.class_prior if self.class_prior is not None else self.priors
        if given is not None:
            return validate_priors(given, n_classes, renormalize=True, name="class_prior")
        if not self.fit_prior:
            return np.full(n_classes, 1.0 / n_classes)
        return None

    def _stats_request(self) -> tuple[str, bool]:
        return "mean", False

    def _check_alpha(self):
        """The smoothing the fit uses: ``alpha`` checked and raised to 1e-10 where smaller, with a
        warning. scikit-learn's private helper of the same name, kept for code that calls it
        (scikit-learn leaves a smaller alpha as it is with ``force_alpha=True``; linclass does not)."""
        return discrete.smoothing(self.alpha, getattr(self, "n_features_in_", np.size(self.alpha)))

    def _estimate(self, stats, priors):
        return discrete.estimate(
            stats, self._event_model, class_log_priors(stats, priors), self.alpha,
            **({"norm": self.norm} if self._event_model == "complement" else {}),
        )

    def _joint_log_likelihood(self, model, X):
        return discrete.joint_log_likelihood(model, X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        # scikit-learn's generic training check draws Gaussian blobs, which a model of binary
        # features or counts fits poorly (scikit-learn marks its own Bernoulli/Multinomial NB so)
        tags.classifier_tags.poor_score = True
        return tags

    def _describe(self, model) -> None:
        self.feature_count_ = self.stats_.sums()
        self.class_log_prior_ = model.log_priors
        self.feature_log_prob_ = model.log_params
        self._describe_linear(model.coef, model.intercept)


class _CountNB(_DiscreteNB):
    """Event models for counts: negative values are refused."""

    def _prepare(self, X):
        # NaN / infinity need no pass of their own: they poison the statistics and scores, which
        # the base class checks (and then names the entry)
        values = _values(X)
        low = values.min() if values.size else 0.0
        if low < 0:
            if np.isinf(low):  # -inf is not a negative count but a non-finite value: say so
                check_finite(X, feature_names=getattr(self, "feature_names_in_", None))
            raise ValueError(
                f"Negative values in data passed to {type(self).__name__} (input X): it models "
                "counts, which "
                "must be >= 0 (use GaussianNB for real-valued features)."
            )
        return X

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        return tags


class BernoulliNB(_DiscreteNB):
    """Naive Bayes for binary features (multivariate Bernoulli event model, Laplace smoothing).

    :math:`\\phi_{kj} = (S_{kj} + \\alpha) / (n_k + 2\\alpha)` and the class scores are linear:
    :math:`w_{kj} = \\ln\\frac{\\phi_{kj}}{1-\\phi_{kj}}`, :math:`w_{k0} = \\sum_j\\ln(1-\\phi_{kj}) + \\ln\\pi_k`
    (see :mod:`linclass.generative.discrete`).  Same model as scikit-learn's BernoulliNB.

    Parameters
    ----------
    alpha : float >= 0 or array-like of shape (n_features,), default=1.0
        Additive smoothing, one value or one per feature (1.0: one success and one failure added
        per class and feature); values below 1e-10 are raised as in MultinomialNB.
    force_alpha : bool, default=True
        Accepted for scikit-learn compatibility (see ``alpha``).
    binarize : float >= 0 or None, default=0.0
        Features are 1 where ``x > binarize``; None means X is already 0/1 (checked).
    fit_prior, class_prior, priors : as in MultinomialNB

    Attributes
    ----------
    classes_, class_count_, priors_, class_log_prior_ : per class
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted number of ones per class and feature, :math:`S_{kj}`.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        :math:`\\ln\\phi_{kj}`.
    coef_, intercept_ : ndarray
        The linear form: log-odds ``X_binary @ coef_.T + intercept_`` (two classes, shapes (1, d),
        (1,)) or class scores (K classes, shapes (K, d), (K,)), up to a term shared by all classes.
    stats_, model_ : the statistics and the fitted model record

    See Also
    --------
    linclass.MultinomialNB : Counts rather than presence.
    linclass.CategoricalNB : Features with more than two levels.
    linclass.GaussianNB : Real-valued measurements.
    sklearn.naive_bayes.BernoulliNB : scikit-learn's Bernoulli naive Bayes, the same interface.

    Examples
    --------
    >>> import numpy as np
    >>> import linclass
    >>> X = np.array([[1, 1, 0], [1, 0, 0], [1, 1, 1], [0, 0, 1], [0, 1, 1]])  # 3 words: in a text?
    >>> y = np.array(['spam', 'spam', 'spam', 'ham', 'ham'])
    >>> nb = linclass.BernoulliNB(binarize=None).fit(X, y)
    >>> np.exp(nb.feature_log_prob_).round(2)  # (texts holding the word + 1) / (texts + 2)
    array([[0.25, 0.5 , 0.75],
           [0.8 , 0.6 , 0.4 ]])
    >>> nb.classes_, nb.predict_proba([[0, 0, 0]]).round(2)  # a missing word is evidence too
    (array(['ham', 'spam'], dtype='<U4'), array([[0.57, 0.43]]))
    """

    _event_model = "bernoulli"
    _parameter_constraints = {**_DiscreteNB._parameter_constraints,
                              "binarize": [None, Interval(Real, 0, None, closed="left")]}

    def __init__(self, *, alpha: float | ArrayLike = 1.0, force_alpha: bool = True,
                 binarize: float | None = 0.0, fit_prior: bool = True,
                 class_prior: ArrayLike | None = None, priors: ArrayLike | None = None) -> None:
        super().__init__(alpha=alpha, force_alpha=force_alpha, fit_prior=fit_prior,
                         class_prior=class_prior, priors=priors)
        self.binarize = binarize

    def _prepare(self, X):
        # thresholding would turn NaN into 0 silently: scan first
        check_finite(X, feature_names=getattr(self, "feature_names_in_", None))
        if self.binarize is None:
            values = _values(X)
            if values.size and not np.all((values == 0) | (values == 1)):
                raise ValueError(
                    "BernoulliNB(binarize=None) needs features that are 0 or 1; X holds other "
                    "values. Set binarize to a threshold (features are 1 where x > binarize)."
                )
            return X
        if sp.issparse(X):  # binarize >= 0: zeros stay zeros, so the ones keep X's sparsity
            X = X.copy()
            X.data = (X.data > self.binarize).astype(np.float64)
            X.eliminate_zeros()
            return X
        return (X > self.binarize).astype(np.float64)


class MultinomialNB(_CountNB):
    """Naive Bayes for counts (multinomial event model, e.g. word counts), additive smoothing.

    :math:`\\theta_{kj} = (S_{kj} + \\alpha_j) / (\\sum_l S_{kl} + \\sum_l\\alpha_l)`; class scores
    :math:`x^T\\ln\\theta_k + \\ln\\pi_k`.  Same model as scikit-learn's MultinomialNB.

    Parameters
    ----------
    alpha : float >= 0 or array-like of shape (n_features,), default=1.0
        Additive smoothing, one value or one per feature.  Values below 1e-10 are raised
        to 1e-10 with a warning whatever ``force_alpha`` says (an exact 0 makes the posterior 0/0
        for rows holding a feature never seen in a class, where scikit-learn returns NaN).
    force_alpha : bool, default=True
        Accepted for scikit-learn compatibility (see ``alpha``).
    fit_prior : bool, default=True
        False: uniform class priors.
    class_prior : array-like of shape (n_classes,), default=None
        Fixed class priors (divided by their sum, with a warning, when that is not 1).
    priors : array-like of shape (n_classes,), default=None
        linclass's earlier name for ``class_prior`` (give one of the two).

    Attributes
    ----------
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        :math:`\\ln\\theta_{kj}`.
    feature_count_, class_log_prior_, coef_, intercept_, classes_, class_count_, priors_, stats_, model_
        As in :class:`BernoulliNB`.

    See Also
    --------
    linclass.ComplementNB : Estimated from the other classes (better on imbalanced text).
    linclass.PoissonNB : Each count Poisson.
    linclass.BernoulliNB : Presence or absence of each feature.
    sklearn.naive_bayes.MultinomialNB : scikit-learn's multinomial naive Bayes, the same interface.

    Examples
    --------
    >>> import numpy as np
    >>> import linclass
    >>> X = np.array([[3, 2, 0, 0], [1, 3, 0, 1], [0, 0, 2, 3], [0, 1, 3, 2]])  # counts of 4 words
    >>> y = np.array(['sport', 'sport', 'politics', 'politics'])
    >>> nb = linclass.MultinomialNB().fit(X, y)
    >>> np.exp(nb.feature_log_prob_).round(2)  # each class's word frequencies, smoothed
    array([[0.07, 0.13, 0.4 , 0.4 ],
           [0.36, 0.43, 0.07, 0.14]])
    >>> nb.predict_proba([[2, 1, 0, 1]]).round(2)  # politics, sport
    array([[0.03, 0.97]])
    """

    _event_model = "multinomial"


class PoissonNB(_CountNB):
    """Naive Bayes with independent Poisson counts per class and feature.

    :math:`\\lambda_{kj} = (S_{kj} + \\alpha) / (n_k + \\alpha)`: the maximum-likelihood rate
    :math:`S_{kj}/n_k` with :math:`\\alpha` pseudo-samples in which every feature counts 1.  Class scores
    :math:`x^T\\ln\\lambda_k - \\sum_j\\lambda_{kj} + \\ln\\pi_k` are linear in x, so the posterior is a
    logistic / softmax function of x (Bishop 2006 sec. 4.2.4).  Non-integer non-negative values are accepted
    (the score extends the Poisson log-likelihood through :math:`\\ln\\Gamma(x+1)`, shared by all classes).

    Parameters
    ----------
    alpha, force_alpha, fit_prior, class_prior, priors : as in MultinomialNB

    Attributes
    ----------
    rates_, feature_log_prob_ : ndarrays of shape (n_classes, n_features)
        The rates :math:`\\lambda_{kj}` and their logarithms.
    feature_count_, class_log_prior_, coef_, intercept_, classes_, class_count_, priors_, stats_, model_
        As in :class:`BernoulliNB`.

    See Also
    --------
    linclass.MultinomialNB : Counts given their total (the document length).
    linclass.GaussianNB : Real-valued measurements.
    sklearn.naive_bayes.MultinomialNB : scikit-learn has no Poisson naive Bayes; its multinomial
        model is the nearest.

    Examples
    --------
    >>> import numpy as np
    >>> import linclass
    >>> X = np.array([[2, 1], [1, 1], [3, 2], [8, 5], [10, 6], [9, 7]])  # two kinds of event a day
    >>> y = np.array([0, 0, 0, 1, 1, 1])  # quiet days, then busy ones
    >>> nb = linclass.PoissonNB().fit(X, y)
    >>> nb.rates_.round(2)  # (summed count + alpha) / (days + alpha), per class
    array([[1.75, 1.25],
           [7.  , 4.75]])
    >>> nb.predict([[2, 1], [8, 4]])  # the same proportions told apart by their totals
    array([0, 1])
    """

    _event_model = "poisson"

    def _describe(self, model) -> None:
        super()._describe(model)
        self.rates_ = model.params

    def _shared_log_term(self, X):
        """:math:`-\\sum_j \\ln x_j!` (:math:`\\ln\\Gamma(x+1)`, zero for the zeros of a sparse X)."""
        if sp.issparse(X):
            X = X.tocsr(copy=True)
            X.data = gammaln(X.data + 1.0)
            return -np.asarray(X.sum(axis=1)).ravel()
        return -gammaln(np.asarray(X, dtype=np.float64) + 1.0).sum(axis=1)


class ComplementNB(_CountNB):
    """Complement naive Bayes (Rennie, Shih, Teevan & Karger 2003) for counts, as scikit-learn's
    ComplementNB: suited to imbalanced text classes.

    Each class is described by the smoothed counts of all *other* classes,
    :math:`\\bar\\theta_{kj} = (\\bar S_{kj} + \\alpha_j) / \\sum_l(\\bar S_{kl} + \\alpha_l)`, and a row is
    scored by :math:`x^Tw_k` with :math:`w_{kj} = -\\ln\\bar\\theta_{kj}` (``norm=True``:
    :math:`\\ln\\bar\\theta_{kj}/\\sum_l\\ln\\bar\\theta_{kl}`); see :mod:`linclass.generative.discrete`.  The
    class prior is not part of the score (the paper's rule, and scikit-learn's) unless there is a single
    class; ``predict_proba`` is the softmax of the scores.  Fitted from the per-class feature totals
    (class statistics), so ``partial_fit``, chunks and sparse X work as for MultinomialNB.

    Parameters
    ----------
    alpha, force_alpha, fit_prior, class_prior, priors : as in MultinomialNB
    norm : bool, default=False
        Normalise each class's weights (the paper's second normalisation).

    Attributes
    ----------
    feature_count_ : ndarray of shape (n_classes, n_features)
    feature_all_ : ndarray of shape (n_features,)
        Total count of each feature over all classes.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        The weights :math:`w_{kj}` (scikit-learn's name).
    class_log_prior_, coef_, intercept_, classes_, class_count_, priors_, stats_, model_ : as in
    BernoulliNB

    See Also
    --------
    linclass.MultinomialNB : Estimated from each class's own counts.
    linclass.PoissonNB : Each count Poisson.
    sklearn.naive_bayes.ComplementNB : scikit-learn's complement naive Bayes, the same interface.

    Examples
    --------
    >>> import numpy as np
    >>> import linclass
    >>> X = np.array([[3, 2, 0, 0], [1, 3, 0, 1], [2, 2, 1, 0], [0, 0, 2, 3]])  # word counts
    >>> y = np.array(['sport', 'sport', 'sport', 'politics'])  # one politics text against three
    >>> nb = linclass.ComplementNB().fit(X, y)
    >>> nb.feature_log_prob_.round(2)  # politics' weights from the sport texts' counts, and back
    array([[1.  , 0.86, 2.25, 2.25],
           [2.2 , 2.2 , 1.1 , 0.81]])
    >>> text = [[1, 1, 1, 1]]  # no prior in the score: the three sport texts do not outvote it
    >>> nb.predict(text).tolist(), linclass.MultinomialNB().fit(X, y).predict(text).tolist()
    (['politics'], ['sport'])
    """

    _event_model = "complement"
    _parameter_constraints = {**_DiscreteNB._parameter_constraints, "norm": ["boolean"]}

    def __init__(self, *, alpha: float | ArrayLike = 1.0, force_alpha: bool = True,
                 fit_prior: bool = True, class_prior: ArrayLike | None = None, norm: bool = False,
                 priors: ArrayLike | None = None) -> None:
        super().__init__(alpha=alpha, force_alpha=force_alpha, fit_prior=fit_prior,
                         class_prior=class_prior, priors=priors)
        self.norm = norm

    def _describe(self, model) -> None:
        super()._describe(model)
        self.feature_all_ = self.feature_count_.sum(axis=0)
