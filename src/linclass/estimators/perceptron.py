"""scikit-learn estimator for Rosenblatt's perceptron (Rosenblatt 1958; Bishop 2006 sec. 4.1.7).

validate -> basis functions (:mod:`linclass.linear.perceptron.basis_functions`) -> the perceptron rule
(:mod:`linclass.linear.perceptron.rule`, epochs and stopping in
:mod:`linclass.linear.perceptron.training`; the settings turned into their arguments in
:mod:`linclass.estimators.perceptron_setup`) -> ``coef_`` / ``intercept_``.  No mathematics here.
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Integral, Real
from typing import Self

import numpy as np
from numpy.typing import ArrayLike
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model._base import SparseCoefMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from linclass.core.validation import (
    FLOAT32_KEPT, cast_fitted, check_magnitude, explain_non_finite, float64_data, validate_classes,
    validate_fit, validate_predict,
)
from linclass.estimators import perceptron_setup as setup
from linclass.linear.perceptron import rule as perceptron
from linclass.linear.perceptron import training
from linclass.linear.perceptron.basis_functions import basis_features

__all__ = ["Perceptron"]


class Perceptron(SparseCoefMixin, ClassifierMixin, BaseEstimator):
    """The perceptron: a step function of a linear model in fixed basis functions.

    :math:`y(x) = f(w^T\\phi(x))` with :math:`f(a) = +1` for :math:`a \\ge 0` and :math:`-1` otherwise
    (Bishop 2006 eq. 4.52), trained by cycling through the patterns and, for each misclassified one,
    :math:`w \\leftarrow w + \\phi_n t_n` (stochastic gradient descent on the perceptron criterion
    :math:`E_P(w) = -\\sum_{n\\in\\mathcal{M}} w^T\\phi_n t_n`, eq. 6.9, learning rate 1).  For K > 2
    classes, the multi-class perceptron (one weight vector per class, see
    :mod:`linclass.linear.perceptron.rule`).  The perceptron gives no probabilities, so there is no
    ``predict_proba``.

    **Stopping.**  By default (``tol=1e-3``, scikit-learn's) training stops once ``n_iter_no_change``
    epochs in a row fail to lower the epoch's mean objective (perceptron criterion per pattern, plus
    the penalty) below the best so far minus ``tol``, or after ``max_iter`` epochs (with a
    ConvergenceWarning); with ``early_stopping=True``, a stratified ``validation_fraction`` of the
    rows is held out and training stops once ``n_iter_no_change`` epochs fail to raise the
    validation accuracy above the best plus ``tol``.  ``tol=None`` is the rule of the perceptron
    convergence theorem (Rosenblatt's; Bishop 2006 sec. 4.1.7): train until an epoch makes no
    mistake, which happens in finitely many steps (Novikoff 1962) when the data are linearly
    separable in the basis, or warn after ``max_iter`` epochs (without a penalty; with one, which
    keeps moving the weights, ``tol=None`` runs ``max_iter`` epochs, as scikit-learn's does).

    Parameters
    ----------
    penalty : {None, 'l2', 'l1', 'elasticnet'}, default=None
        Stochastic gradient descent on the criterion plus :math:`\\alpha((1-\\rho)\\tfrac12\\lVert
        w\\rVert^2 + \\rho\\lVert w\\rVert_1)` (not on the bias), as scikit-learn does it, at every
        pattern visited: the weights shrink by :math:`\\max(0, 1-(1-\\rho)\\eta_0\\alpha)` and the L1
        part is the truncated-gradient step with a cumulative penalty (Tsuruoka et al. 2009;
        :mod:`linclass.linear.perceptron.truncated`).  'l2': :math:`\\rho = 0`; 'l1': :math:`\\rho = 1`;
        'elasticnet': :math:`\\rho` = ``l1_ratio``.
    alpha : float, default=1e-4
        Penalty strength (with ``penalty``).
    l1_ratio : float in [0, 1], default=0.15
        :math:`\\rho`, the L1 share with ``penalty='elasticnet'``.
    fit_intercept : bool, default=True
        False: no bias, :math:`y(x) = f(w^T\\phi(x))` through the origin.
    max_iter : int, default=1000
        Epochs before giving up (with a ConvergenceWarning).
    tol : float >= 0 or None, default=1e-3
        See Stopping above (None: train until an epoch without mistakes).
    shuffle : bool, default=True
        Visit the patterns in a new random order each epoch.
    verbose : int, default=0
        > 0 prints the mistakes and criterion of each epoch.
    eta0 : float > 0, default=1.0
        Learning rate: each update is :math:`\\eta_0\\phi_nt_n`.  From zero weights and without penalty it
        only scales the weights (same predictions).
    n_jobs : int or None, default=None
        No effect (the rule is sequential; scikit-learn parallelises its one-vs-all binary fits).
    random_state : int, numpy Generator, RandomState or None, default=0
        Seeds the numpy Generator that draws the visiting orders and the early-stopping split.
    early_stopping : bool, default=False
    validation_fraction : float in (0, 1), default=0.1
    n_iter_no_change : int, default=5
        See Stopping above.
    class_weight : dict, 'balanced' or None, default=None
        Multiplies each pattern's update by its class's weight ('balanced':
        ``n_samples / (n_classes * count)``).  For K > 2 classes it weights the pull of the true
        class's weights towards the pattern, not the push of the wrongly predicted class's, as
        scikit-learn's one-vs-rest weights a class's own patterns (the others weigh 1), so that a
        heavily weighted class wins its region.
    warm_start : bool, default=False
        ``fit`` starts from the previous weights when the classes and features match.
    basis : None, 'poly' or callable, default=None
        The basis functions :math:`\\phi(x)`; the bias :math:`\\phi_0 = 1` is added unless
        ``fit_intercept=False``.  None: the inputs themselves (scipy.sparse X accepted, never
        densified).  'poly': every monomial of the inputs of degree 1 to ``degree``.  A callable
        ``phi(X)`` maps an (n_samples, n_features) array to an (n_samples, n_basis) array.
    degree : int, default=2
        Degree of ``basis='poly'``.
    pocket : bool, default=False
        The pocket algorithm for data that are not separable: keep the weights with the fewest
        (weighted) training errors among those after each epoch (and the starting weights).
    max_epochs : int or None, default=None
        The first release's name for ``max_iter`` (when given, it is used).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_basis) for two classes, else (n_classes, n_basis)
        :math:`w` (two classes: ``classes_[1]`` is :math:`t = +1`) or the per-class :math:`w_k`.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Weight of :math:`\\phi_0 = 1` (zero without intercept).
    classes_ : ndarray of shape (n_classes,)
    n_iter_ : int
        Epochs run by the last call to ``fit`` or ``partial_fit`` (scikit-learn's meaning).
    n_epochs_ : int
        Epochs run in all, summed over ``partial_fit`` calls (the length of ``errors_``).
    t_ : float
        scikit-learn's count of update steps: patterns visited plus one.
    converged_ : bool
        Whether training stopped by its rule rather than at ``max_iter``.
    errors_ : ndarray of shape (n_iter_,)
        Mistakes (updates) made in each epoch: the training curve.
    n_features_in_, feature_names_in_ : as in scikit-learn

    See Also
    --------
    linclass.LogisticRegression : A linear classifier with probabilities.
    linclass.StandardizedClassifier : Standardises the features first (the perceptron depends on
        their units).
    sklearn.linear_model.Perceptron : scikit-learn's perceptron, the same interface.

    Examples
    --------
    >>> import linclass
    >>> X, y, *_ = linclass.datasets.load_dataset('iris')
    >>> setosa = (y == 0).astype(int)  # setosa against the other two species: linearly separable
    >>> model = linclass.Perceptron(tol=None, random_state=0).fit(X, setosa)
    >>> model.errors_.tolist(), model.converged_  # mistakes per epoch, until an epoch makes none
    ([7, 0], True)
    >>> model.predict(X[[0, 50, 100]])
    array([1, 0, 0])
    """

    # files written before tol was a parameter were fitted with Rosenblatt's rule (linclass.load)
    _file_defaults = {"tol": None}
    _parameter_constraints: dict = {
        "penalty": [StrOptions({"l2", "l1", "elasticnet"}), None],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "l1_ratio": [Interval(Real, 0, 1, closed="both")],
        "fit_intercept": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left"), None],
        "shuffle": ["boolean"],
        "verbose": ["verbose"],
        "eta0": [Interval(Real, 0, None, closed="neither")],
        "n_jobs": [None, Integral],
        "random_state": ["random_state", np.random.Generator],
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "warm_start": ["boolean"],
        "basis": [None, StrOptions({"poly"}), callable],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "pocket": ["boolean"],
        "max_epochs": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(self, *, penalty: str | None = None, alpha: float = 0.0001, l1_ratio: float = 0.15,
                 fit_intercept: bool = True, max_iter: int = 1000, tol: float | None = 1e-3,
                 shuffle: bool = True, verbose: int = 0, eta0: float = 1.0,
                 n_jobs: int | None = None, random_state: int | np.random.RandomState | None = 0,
                 early_stopping: bool = False, validation_fraction: float = 0.1,
                 n_iter_no_change: int = 5, class_weight: dict | str | None = None,
                 warm_start: bool = False,
                 basis: str | Callable[[np.ndarray], np.ndarray] | None = None, degree: int = 2,
                 pocket: bool = False, max_epochs: int | None = None) -> None:
        self.penalty = penalty
        self.alpha = alpha
        self.l1_ratio = l1_ratio
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.shuffle = shuffle
        self.verbose = verbose
        self.eta0 = eta0
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.basis = basis
        self.degree = degree
        self.pocket = pocket
        self.max_epochs = max_epochs

    # ------------------------------------------------------------------ settings
    def _epochs(self) -> int:
        return self.max_iter if self.max_epochs is None else self.max_epochs

    def _penalty(self) -> tuple[float, float]:
        """The penalty strength and its L1 share (scikit-learn's: 'l2' 0, 'l1' 1)."""
        if self.penalty is None:
            return 0.0, 0.0
        share = {"l2": 0.0, "l1": 1.0, "elasticnet": float(self.l1_ratio)}[self.penalty]
        return float(self.alpha), share

    def _rule_options(self) -> dict:
        alpha, l1_ratio = self._penalty()
        return {"eta": float(self.eta0), "alpha": alpha, "l1_ratio": l1_ratio, "bias": self.fit_intercept,
                "pocket": self.pocket, "shuffle": self.shuffle,
                "report": self._report if self.verbose else None}

    def _report(self, epoch: int, mistakes: int, loss: float) -> None:
        print(f"-- Epoch {epoch}: {mistakes} mistakes, mean objective {loss:.6g}")

    def _features(self, X, fitted: bool):
        n_output = self.coef_.shape[1] if fitted and callable(self.basis) else None
        return basis_features(X, self.basis, self.degree, n_output)

    def _dense_coef(self):
        return self.coef_.toarray() if sp.issparse(self.coef_) else self.coef_

    # ------------------------------------------------------------------ fitting
    def fit(self, X: ArrayLike, y: ArrayLike, coef_init: ArrayLike | None = None,
            intercept_init: ArrayLike | None = None,
            sample_weight: ArrayLike | None = None) -> Self:
        """Train from zero weights (or ``coef_init`` / ``intercept_init``, or the previous fit with
        ``warm_start``) until the stopping rule holds or ``max_iter`` epochs have run.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels (integers, strings, booleans, ...), kept in ``classes_``.
        coef_init : ndarray of shape (1, n_basis) or (n_classes, n_basis), default=None
        intercept_init : ndarray of shape (1,) or (n_classes,), default=None
        sample_weight : array-like of shape (n_samples,), default=None
            Each update :math:`\\phi_n t_n` is multiplied by the pattern's weight; zero-weight patterns
            never update.

        Returns
        -------
        self
        """
        self._validate_params()
        options = self._rule_options()
        previous = (self.classes_, self._dense_coef(), self.intercept_) if (
            self.warm_start and hasattr(self, "coef_")) else None
        data = validate_fit(self, X, y, sample_weight, accept_sparse=self.basis is None,
                            dtype=self._input_dtype())  # float32 weights, as scikit-learn's
        dtype, data = data.X.dtype, float64_data(data)  # the rule runs in float64
        check_magnitude(self, data.X)  # activations are sums of products of X's values
        weight, push = setup.update_weights(data, self.class_weight)
        Phi = self._features(data.X, fitted=False)
        K = data.classes.size
        coef, intercept = setup.start_weights(coef_init, intercept_init, previous, data.classes,
                                              Phi.shape[1])
        self._rng = training.make_rng(self.random_state)
        stopping, Phi, y_idx, weight, push = setup.stopping_rule(self, Phi, data.y, K, weight, push,
                                                                  self._rng)
        result = training.train(Phi, y_idx, K, weight, coef=coef, intercept=intercept, push=push,
                                max_epochs=self._epochs(), rng=self._rng, stopping=stopping, **options)
        self.classes_ = data.classes
        self._store(result, previous=None, n_rows=data.X.shape[0], dtype=dtype)
        # (with tol=None and a penalty, every epoch runs: an epoch without mistakes is convergence)
        if not result.converged and (self.tol is not None or result.mistakes[-1] > 0):
            setup.warn_not_converged(self, result, self._epochs(), weighted=weight is not None)
        return self

    def partial_fit(self, X: ArrayLike, y: ArrayLike, classes: ArrayLike | None = None,
                    sample_weight: ArrayLike | None = None) -> Self:
        """One epoch of the perceptron rule over a batch, starting from the current weights.

        With ``pocket=True`` the weights after the epoch are kept only if they misclassify less of
        the batch than the weights before it.  ``tol``, ``early_stopping`` and ``max_iter`` do not
        apply (as in scikit-learn).

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            Every label that will ever appear: required on the first call, as in scikit-learn.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        first = not hasattr(self, "coef_")
        if first:
            self._validate_params()
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit: every "
                                 "label that will ever appear, e.g. classes=np.unique(y_all).")
            known = validate_classes(classes)
        else:
            known = self.classes_
            if classes is not None and not np.array_equal(validate_classes(classes), known):
                raise ValueError(
                    f"classes={np.asarray(classes).tolist()} is not the same as on the first call to "
                    f"partial_fit ({known.tolist()}); give `classes` once, on the first call."
                )
        if isinstance(self.class_weight, str):
            raise ValueError("class_weight='balanced' needs every label's count, which partial_fit "
                             "does not see; give class_weight as a dict (as scikit-learn requires).")
        options = self._rule_options()
        data = validate_fit(
            self, X, y, sample_weight, classes=known, reset=first, min_classes=2 if first else 1,
            accept_sparse=self.basis is None, dtype=self._input_dtype(),
        )
        dtype, data = data.X.dtype, float64_data(data)
        check_magnitude(self, data.X)
        weight, push = setup.update_weights(data, self.class_weight)
        Phi = self._features(data.X, fitted=not first)
        if first:
            self._rng = training.make_rng(self.random_state)
        result = training.train(
            Phi, data.y, data.classes.size, weight,
            coef=None if first else self._dense_coef(), intercept=None if first else self.intercept_,
            max_epochs=1, rng=self._rng, push=push, **options,
        )
        self.classes_ = data.classes
        # (models saved by the first release have no t_: their count starts again at 1)
        previous = None if first else (self.errors_, getattr(self, "t_", 1))
        self._store(result, previous=previous, n_rows=Phi.shape[0], dtype=dtype)
        return self

    def _input_dtype(self):
        """Validation's ``dtype``: a float32 X stays float32 without a basis expansion, as in
        scikit-learn."""
        return FLOAT32_KEPT if self.basis is None else np.float64

    def _store(self, result, previous, n_rows: int, dtype=np.float64) -> None:
        self.coef_ = result.coef
        self.intercept_ = result.intercept
        # after float32 X, scikit-learn's dtypes: float32 weights, a float64 bias for two classes
        cast_fitted(self, ("coef_", "intercept_") if self.coef_.shape[0] > 1 else ("coef_",), dtype)
        errors, t = (np.zeros(0, dtype=np.intp), 1) if previous is None else previous
        self.errors_ = np.concatenate([errors, result.mistakes])
        self.n_epochs_ = int(self.errors_.size)
        self.n_iter_ = int(result.mistakes.size)  # of this call, as scikit-learn's
        self.t_ = float(t + result.mistakes.size * n_rows)
        self.converged_ = bool(result.converged)

    # ------------------------------------------------------------------ prediction
    def _activations(self, X) -> np.ndarray:
        check_is_fitted(self)
        # a basis function sees X itself, so X is scanned first; else the activations tell
        X = validate_predict(self, X, check_finite=self.basis is not None,
                             accept_sparse=self.basis is None, dtype=self._input_dtype())
        with np.errstate(invalid="ignore", over="ignore"):  # non-finite X: explained below
            S = np.asarray(perceptron.scores(self._features(X, fitted=True), self._dense_coef(),
                                             self.intercept_))
        explain_non_finite(self, X, S)
        return S

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Activations :math:`a = w^T\\phi(x)`.

        Returns
        -------
        ndarray
            Of shape (n_samples,) for two classes (:math:`a \\ge 0` predicts ``classes_[1]``), else
            (n_samples, n_classes) (the largest predicts).
        """
        S = self._activations(X)
        return S[:, 0] if S.shape[1] == 1 else S

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Class labels: ``classes_[1]`` where :math:`f(a) = +1` (two classes), else the arg max."""
        index = perceptron.predict_index(self._activations(X))
        return self.classes_[index]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.basis is None
        return tags
