"""scikit-learn estimator for Rosenblatt's perceptron (seed 003, section 6.1.4)."""

from __future__ import annotations

import warnings
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from linclass.linear import perceptron_rule as perceptron
from linclass.linear.basis_functions import basis_features
from linclass.core.finiteness import check_magnitude, explain_non_finite
from linclass.core.validation import validate_classes, validate_fit, validate_predict

__all__ = ["Perceptron"]


class Perceptron(ClassifierMixin, BaseEstimator):
    """The perceptron: a step function of a linear model in fixed basis functions.

    :math:`y(x) = f(w^T\\phi(x))` with :math:`f(a) = +1` for :math:`a \\ge 0` and :math:`-1` otherwise
    (seed 003, eq. 6.8), trained by cycling through the patterns and, for each misclassified one,
    :math:`w \\leftarrow w + \\phi_n t_n` (stochastic gradient descent on the perceptron criterion
    :math:`E_P(w) = -\\sum_{n\\in\\mathcal{M}} w^T\\phi_n t_n`, eq. 6.9, learning rate 1).  Training stops
    after the first epoch without a mistake, which the perceptron convergence theorem guarantees in
    finitely many steps when the data are linearly separable in the basis.  For K > 2 classes, the
    multi-class perceptron (one weight vector per class, see :mod:`linclass.perceptron`).

    The perceptron gives no probabilities, so there is no ``predict_proba``.

    Parameters
    ----------
    basis : None, 'poly' or callable, default=None
        The basis functions :math:`\\phi(x)`; the bias :math:`\\phi_0 = 1` is always added (``intercept_``).
        None: the inputs themselves.  'poly': every monomial of the inputs of degree 1 to ``degree``.
        A callable ``phi(X)`` maps an (n_samples, n_features) array to an (n_samples, n_basis) array.
    degree : int, default=2
        Degree of ``basis='poly'`` (ignored otherwise).
    max_epochs : int, default=1000
        Passes over the training set before giving up (with a ConvergenceWarning).
    shuffle : bool, default=True
        Visit the patterns in a new random order each epoch.
    random_state : int, numpy Generator, RandomState or None, default=None
        Seeds the numpy Generator that draws the orders.
    pocket : bool, default=False
        The pocket algorithm for data that are not separable: keep the weights with the fewest
        (weighted) training errors among those after each epoch (and the starting weights).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_basis) for two classes, else (n_classes, n_basis)
        :math:`w` (two classes: ``classes_[1]`` is :math:`t = +1`) or the per-class :math:`w_k`.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Weight of :math:`\\phi_0 = 1`.
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of str (when X has string column names)
    n_epochs_ : int
        Epochs run (summed over ``partial_fit`` calls); ``n_iter_`` is the same number.
    converged_ : bool
        Whether the last epoch made no mistake.
    errors_ : ndarray of shape (n_epochs_,)
        Mistakes (updates) made in each epoch: the training curve.
    """

    _parameter_constraints: dict = {
        "basis": [None, StrOptions({"poly"}), callable],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "max_epochs": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean"],
        "random_state": ["random_state", np.random.Generator],
        "pocket": ["boolean"],
    }

    def __init__(
        self,
        *,
        basis=None,
        degree: int = 2,
        max_epochs: int = 1000,
        shuffle: bool = True,
        random_state=None,
        pocket: bool = False,
    ):
        self.basis = basis
        self.degree = degree
        self.max_epochs = max_epochs
        self.shuffle = shuffle
        self.random_state = random_state
        self.pocket = pocket

    # ------------------------------------------------------------------ fitting
    def _features(self, X: np.ndarray, fitted: bool) -> np.ndarray:
        n_output = self.coef_.shape[1] if fitted and callable(self.basis) else None
        return basis_features(X, self.basis, self.degree, n_output)

    def fit(self, X, y, sample_weight=None):
        """Train from zero weights until an epoch makes no mistake or ``max_epochs`` have run.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels (integers, strings, booleans, ...), kept in ``classes_``.
        sample_weight : array-like of shape (n_samples,), default=None
            Each update :math:`\\phi_n t_n` is multiplied by the pattern's weight; zero-weight patterns
            never update.

        Returns
        -------
        self
        """
        self._validate_params()
        data = validate_fit(self, X, y, sample_weight)
        check_magnitude(self, data.X)  # activations are sums of products of X's values
        Phi = self._features(data.X, fitted=False)
        self._rng = perceptron.make_rng(self.random_state)
        result = perceptron.train(
            Phi, data.y, data.classes.size, data.sample_weight, max_epochs=self.max_epochs,
            shuffle=self.shuffle, rng=self._rng, pocket=self.pocket,
        )
        self.classes_ = data.classes
        self._store(result, previous=None)
        if not result.converged:
            self._warn(result, weighted=data.sample_weight is not None)
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One epoch of the perceptron rule over a batch, starting from the current weights.

        With ``pocket=True`` the weights after the epoch are kept only if they misclassify less of
        the batch than the weights before it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            Every label that will ever appear, on the first call (default: the labels of the first
            batch, which must hold two classes or more).
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        first = not hasattr(self, "coef_")
        if first:
            self._validate_params()
            known = None if classes is None else validate_classes(classes)
        else:
            known = self.classes_
            if classes is not None and not np.array_equal(validate_classes(classes), known):
                raise ValueError(
                    f"classes={np.asarray(classes).tolist()} is not the same as on the first call to "
                    f"partial_fit ({known.tolist()}); give `classes` once, on the first call."
                )
        data = validate_fit(
            self, X, y, sample_weight, classes=known, reset=first, min_classes=2 if first else 1
        )
        check_magnitude(self, data.X)
        Phi = self._features(data.X, fitted=not first)
        if first:
            self._rng = perceptron.make_rng(self.random_state)
        result = perceptron.train(
            Phi, data.y, data.classes.size, data.sample_weight,
            coef=None if first else self.coef_, intercept=None if first else self.intercept_,
            max_epochs=1, shuffle=self.shuffle, rng=self._rng, pocket=self.pocket,
        )
        self.classes_ = data.classes
        self._store(result, previous=None if first else self.errors_)
        return self

    def _store(self, result, previous) -> None:
        self.coef_ = result.coef
        self.intercept_ = result.intercept
        self.errors_ = result.mistakes if previous is None else np.concatenate([previous, result.mistakes])
        self.n_epochs_ = self.n_iter_ = int(self.errors_.size)
        self.converged_ = bool(result.converged)

    def _warn(self, result, weighted: bool) -> None:
        kept = "the pocket weights" if self.pocket else "the last weights"
        hint = (
            "a richer basis (e.g. basis='poly')"
            if self.pocket
            else "pocket=True to keep the weights with the fewest training errors, or a richer basis "
            "(e.g. basis='poly')"
        )
        warnings.warn(
            f"Perceptron did not converge in max_epochs={self.max_epochs} epochs: every epoch still "
            f"misclassified some training patterns ({result.mistakes[-1]} in the last one), and "
            f"{kept} misclassify {result.error:g} training samples"
            f"{' (total sample weight)' if weighted else ''}. The data may not be "
            f"linearly separable in this basis; try {hint}.",
            ConvergenceWarning,
            stacklevel=3,
        )

    # ------------------------------------------------------------------ prediction
    def _activations(self, X) -> np.ndarray:
        check_is_fitted(self)
        # a basis function sees X itself, so X is scanned first; else the activations tell
        X = validate_predict(self, X, check_finite=self.basis is not None)
        with np.errstate(invalid="ignore", over="ignore"):  # non-finite X: explained below
            S = perceptron.scores(self._features(X, fitted=True), self.coef_, self.intercept_)
        explain_non_finite(self, X, S)
        return S

    def decision_function(self, X):
        """Activations :math:`a = w^T\\phi(x)`.

        Returns
        -------
        ndarray of shape (n_samples,) for two classes (:math:`a \\ge 0` predicts ``classes_[1]``), else
        (n_samples, n_classes) (the largest predicts).
        """
        S = self._activations(X)
        return S[:, 0] if S.shape[1] == 1 else S

    def predict(self, X):
        """Class labels: ``classes_[1]`` where :math:`f(a) = +1` (two classes), else the arg max."""
        index = perceptron.predict_index(self._activations(X))
        return self.classes_[index]
