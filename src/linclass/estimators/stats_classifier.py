"""The fit / partial_fit / predict machinery shared by every classifier built on class statistics.

validate -> ``_prepare`` -> :class:`~linclass.generative.class_stats.ClassStats` (merged across ``partial_fit`` calls)
-> ``_estimate`` (a model record) -> ``_joint_log_likelihood`` -> :mod:`linclass.core.posterior`.
Subclasses supply those steps; no mathematics lives here.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Self

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError
from sklearn.utils._available_if import available_if
from sklearn.utils.validation import check_is_fitted

from linclass.core.validation import (
    FLOAT32_KEPT, cast_fitted, explain_non_finite, explain_underflow, is_low, output_dtype,
    validate_classes, validate_fit, validate_predict, validate_priors,
)
from linclass.core.threads import blas_threads_for
from linclass.sources.dask import is_dask_collection, lazy_on_dask
from linclass.generative.class_stats import ClassStats
from linclass.estimators.fitted_state import clear_fitted_state
from linclass.estimators.score_predictions import ScorePredictions

__all__ = ["StatsClassifier"]


def _factorization_threads(d: int):
    """A context for the d x d factorizations of an estimate (eigendecompositions, Cholesky, triangular
    inverses): one BLAS thread below :data:`~linclass.core.threads.BLAS_THREADS_MIN` multiply-adds,
    where two threads measured 60-80x slower on 2 cores with other processes busy (d = 100: LDA's
    and QDA's estimates from their statistics, 3.3 ms on one thread, 200-270 ms on two).  Too small
    a d for BLAS to thread at all is left alone."""
    return blas_threads_for(d**3) if d >= 32 else nullcontext()


class StatsClassifier(ScorePredictions, ClassifierMixin, BaseEstimator):
    """Base class: a generative classifier whose fit needs only per-class statistics.

    Subclasses implement

    ``_stats_request()``            the :class:`ClassStats` kind and whether fourth moments are needed
    ``_prepare(X)``                 model-specific input checks / transforms (default: none)
    ``_estimate(stats, priors)``    a model record with a ``log_priors`` field
    ``_joint_log_likelihood(m, X)`` class scores of shape (n_samples, n_classes)
    ``_describe(model)``            fitted attributes under their usual names

    and set ``_accept_sparse`` when scipy.sparse input is supported.  Those that keep a float32 X in
    float32, as scikit-learn's estimator of the same name does (:mod:`linclass.core.validation`),
    set ``_keeps_float32``, name in ``_float32_attributes`` the fitted attributes that are then
    float32, and in ``_output_attribute`` the one whose dtype the outputs take.  A model whose estimate needs
    the rows themselves (not only statistics that merge) says so in ``_needs_rows()`` and computes
    that part in ``_row_estimates(X, data, stats)``, passed to ``_estimate(stats, priors, rows)``;
    ``partial_fit`` and chunked fits then refuse it.
    """

    _reads_once = True  # a chunked fit makes one pass (no cache of decoded blocks is kept)

    _accept_sparse = False
    _single_class_ok = False  # naive Bayes, as scikit-learn's, fits a single class
    _partial_fit_needs_classes = False  # naive Bayes, as scikit-learn's: `classes` on the first call
    _keeps_float32 = False  # a float32 X is fitted and scored in float32
    _float32_attributes: tuple = ()  # ... and these fitted attributes are float32 (scikit-learn's)
    _output_attribute = "priors_"  # outputs are float32 when X and this attribute are

    def _float32_names(self) -> tuple:
        """The fitted attributes that a fit on float32 X leaves in float32."""
        return self._float32_attributes

    def _input_dtype(self):
        """Validation's ``dtype``: whether a float32 X stays float32 (``_keeps_float32``)."""
        return FLOAT32_KEPT if self._keeps_float32 else np.float64

    def _prepare(self, X):
        return X

    def _needs_rows(self) -> str | None:
        """What needs all rows at once (a phrase for the error of ``partial_fit``), or None."""
        return None

    def _row_estimates(self, X, data, stats):
        """The part of the estimate computed from the rows (see :meth:`_needs_rows`)."""
        return None

    def _check_training_rows(self, data) -> None:
        """What ``fit`` (not ``partial_fit``) requires of the whole training set beyond validation
        (scikit-learn's LDA and QDA: rows per class)."""

    def _refuse_streaming(self, how: str) -> None:
        need = self._needs_rows()
        if need is not None:
            raise ValueError(
                f"{type(self).__name__} with {need} needs all training rows at once, so it cannot be "
                f"fitted by {how}; use fit on the whole data."
            )

    def _priors(self, n_classes: int):
        """The user's priors, checked (:func:`~linclass.core.validation.validate_priors`)."""
        return validate_priors(self.priors, n_classes)

    # ------------------------------------------------------------------ fitting
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit the model by maximum likelihood.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels (integers, strings, booleans, ...), kept in ``classes_``.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative frequency weights (an integer weight equals repeating the row).

        Returns
        -------
        self
        """
        earlier = dict(vars(self))  # a fit that fails leaves the earlier fit as it was
        try:
            self._start_fit()
            if is_dask_collection(X, y, sample_weight):
                from linclass.sources.dask import DaskSource

                return self._fit_source(DaskSource(X, y, sample_weight))
            data = validate_fit(
                self, X, y, sample_weight, check_finite=False, accept_sparse=self._accept_sparse,
                min_classes=1 if self._single_class_ok else 2, dtype=self._input_dtype(),
            )
            self._check_training_rows(data)
            return self._absorb(data)
        except Exception:
            vars(self).clear()
            vars(self).update(earlier)
            raise

    def fit_source(self, source):
        """Fit from a chunk source (:class:`linclass.sources.chunks.ChunkFittable`): one pass, each
        chunk's class statistics merged; the result equals ``fit`` on all rows at once.

        Parameters
        ----------
        source : ChunkSource
            A chunk source (:class:`linclass.core.chunks.ChunkSource`): a
            :class:`~linclass.datasets.FileSource`, a :class:`~linclass.sources.dask.DaskSource`, ...

        Returns
        -------
        self
        """
        self._start_fit()
        return self._fit_source(source)

    def _start_fit(self) -> None:
        """What every fit from scratch does first: check the parameters, forget any earlier fit
        (fitted attributes, the ``classes`` of ``partial_fit``)."""
        self._validate_params()
        clear_fitted_state(self)  # a refit with other settings must not keep stale fitted attributes
        self._partial_classes = None

    def _streamable(self) -> bool:
        return self._needs_rows() is None

    @available_if(_streamable)
    def partial_fit(self, X: ArrayLike, y: ArrayLike, classes: ArrayLike | None = None,
                    sample_weight: ArrayLike | None = None) -> Self:
        """Update the model with a batch; the result equals ``fit`` on all batches together.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            Every label that will ever appear, on the first call.  When omitted, the classes are the
            labels seen so far (a later batch may bring new ones); the naive Bayes models require
            it on the first call, as scikit-learn's do.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        first = not hasattr(self, "stats_")
        self._refuse_streaming("partial_fit")
        if first:
            self._validate_params()
            if classes is None and self._partial_fit_needs_classes:
                raise ValueError(
                    "classes must be passed on the first call to partial_fit: every label that will "
                    "ever appear, e.g. classes=np.unique(y_all)."
                )
            least = 1 if self._single_class_ok else 2
            self._partial_classes = None if classes is None else validate_classes(classes, least)
        elif classes is not None and (
            self._partial_classes is None
            or not np.array_equal(validate_classes(classes, 1), self._partial_classes)
        ):
            first_classes = (None if self._partial_classes is None
                             else self._partial_classes.tolist())
            raise ValueError(
                f"classes={np.asarray(classes).tolist()} is not the same as on the first call to "
                f"partial_fit: it is not the same as on last call to partial_fit, was: "
                f"{first_classes}. Give `classes` once, on the first call."
            )
        self._streaming = True  # (read by _install: a stream's early batches may be too few)
        try:
            if is_dask_collection(X, y, sample_weight):
                from linclass.sources.dask import DaskSource

                return self._fit_source(DaskSource(X, y, sample_weight), first=first)
            data = validate_fit(
                self, X, y, sample_weight, classes=self._partial_classes, reset=first,
                min_classes=1, check_finite=False, accept_sparse=self._accept_sparse,
                dtype=self._input_dtype(),
            )
            return self._absorb(data)
        finally:
            del self._streaming

    def _absorb(self, data):
        kind, moments = self._stats_request()
        X = self._prepare(data.X)
        with np.errstate(invalid="ignore", over="ignore"):  # non-finite X: explained below
            batch = ClassStats.from_batch(
                X, data.y, data.classes, data.sample_weight, kind=kind, moments=moments
            )
        explain_non_finite(self, data.X, *batch.arrays())
        # (an estimate that needs the rows is refused by partial_fit and chunks: this is fit)
        rows = self._row_estimates(X, data, batch) if self._needs_rows() is not None else None
        return self._install(batch, rows, dtype=data.X.dtype)

    def _fit_source(self, source, *, first: bool = True):
        """``fit`` (``first``, after :meth:`_start_fit`) or ``partial_fit`` from a chunk source: one
        pass, each chunk's class statistics merged into the running ones."""
        from linclass.core.validation import check_label_type
        from linclass.core.chunks import require_two_classes
        from linclass.sources.chunks import record_features

        self._refuse_streaming("chunks")
        if first:
            record_features(self, source)
        elif source.n_features != self.n_features_in_:
            raise ValueError(f"X has {source.n_features} features, but {type(self).__name__} is "
                             f"expecting {self.n_features_in_} features as input.")
        given = getattr(self, "_partial_classes", None)
        kind, moments = self._stats_request()
        batch = ClassStats.from_source(source, given, kind=kind, moments=moments,
                                       prepare=self._prepare, owner=self)
        if not first and given is None:
            check_label_type(batch.classes, self.stats_.classes)
        if first and given is None:
            require_two_classes(self, batch)
        return self._install(batch)

    def _check_settings(self) -> None:
        """Refuse settings that no data can make valid (combinations of parameters), so that
        ``partial_fit`` raises them at once rather than keeping them for ``predict``."""

    def _install(self, batch, rows=None, dtype=np.float64):
        """Merge ``batch`` into the running statistics and derive every fitted attribute (``rows``:
        the estimate's part computed from the rows, on ``fit``; ``dtype``: the batch's X's, and
        the model is a float32 one if every batch so far was float32).

        Within ``partial_fit`` (a stream): statistics that do not determine a model yet (one class seen
        so far, a class of fewer rows than features for QDA, one row of a class for an unbiased
        covariance, ...) are kept without a model and without an error; the reason is kept for
        ``predict``, which refuses until more data (or the regularisation the model allows) give
        a model.  A stream's early chunks may be small: only its end must determine the model."""
        first = not hasattr(self, "stats_")
        stream = getattr(self, "_streaming", False)
        stats = batch if first else self.stats_.merge(batch)
        if self._keeps_float32:  # (the others are float64 models whatever X was)
            self._float32 = bool(np.dtype(dtype) == np.float32
                                 and (first or getattr(self, "_float32", False)))
        if stats.scatter is not None:  # Gaussian statistics: did the squares of X underflow?
            explain_underflow(self, stats.means[stats.counts > 0], stats.total_variance())
        # the batch is absorbed even when the statistics so far do not determine a model yet (one
        # class seen; a class with one row for an unbiased covariance): a later batch may, and the
        # stream must end where fit would.  Until then there is no model to predict with.
        self.stats_ = stats
        for name in ("model_", "priors_", "_no_model"):
            self.__dict__.pop(name, None)
        if stats.n_classes < 2 and not self._single_class_ok:  # (naive Bayes: every prediction
            # is that class, with probability 1, as scikit-learn 1.9 fits it, without a warning)
            refusal = ValueError(
                f"partial_fit has seen only one class ({stats.classes[0]}) so far; pass every label "
                "in `classes` on the first call to partial_fit, or give rows of the other classes."
            )
            if not stream:
                raise refusal
            return self._without_model(refusal, stats)
        priors = self._priors(stats.n_classes)
        self._check_settings()  # the parameters' own errors are not the stream's: at once
        with _factorization_threads(stats.n_features):
            try:
                model = (self._estimate(stats, priors) if rows is None
                         else self._estimate(stats, priors, rows))
            except ValueError as exc:  # numpy's LinAlgError included
                if not stream:
                    raise
                return self._without_model(exc, stats)
            self.model_ = model
            self.classes_ = stats.classes
            self.class_count_ = stats.counts
            self.priors_ = np.exp(model.log_priors)
            self._describe(model)
        cast_fitted(self, self._float32_names(),
                    np.float32 if getattr(self, "_float32", False) else np.float64)
        return self

    def _without_model(self, exc: ValueError, stats):
        """``partial_fit``'s statistics that do not determine a model yet: kept, with the reason
        (``exc``, the error a ``fit`` on these rows raises) for :meth:`_require_model`."""
        self.classes_ = stats.classes
        self.class_count_ = stats.counts
        self._no_model = f"{exc}"
        return self

    def _require_model(self):
        """The fitted model record; a clear error when ``partial_fit`` has statistics but no
        model yet, saying what the statistics so far lack."""
        check_is_fitted(self)
        if hasattr(self, "model_"):
            return self.model_
        counts = ", ".join(f"{label!r}: {count:g}" for label, count in
                           zip(self.stats_.classes.tolist(), self.stats_.counts))
        reason = getattr(self, "_no_model", None) or (
            "the data given to partial_fit so far do not determine one")
        raise NotFittedError(
            f"This {type(self).__name__} has statistics but no model yet. partial_fit has seen "
            f"{self.stats_.total:g} samples so far (per class {{{counts}}}): {reason} Give more "
            "data with partial_fit before predicting."
        )

    def _describe_linear(self, coef: np.ndarray, intercept: np.ndarray) -> None:
        """``coef_`` / ``intercept_`` of linear class scores :math:`a_k(x) = w_k^Tx + w_{k0}`; for two
        classes the log-odds :math:`a_1 - a_0` (shapes (1, d) and (1,))."""
        if len(self.classes_) == 2:
            self.coef_ = (coef[1] - coef[0])[None, :]
            self.intercept_ = np.array([intercept[1] - intercept[0]])
        else:
            self.coef_ = coef
            self.intercept_ = intercept

    # ------------------------------------------------------------------ prediction
    def _scores(self, X) -> np.ndarray:
        self._require_model()
        X = validate_predict(self, X, check_finite=False, accept_sparse=self._accept_sparse,
                             dtype=self._input_dtype())
        if is_low(X) and output_dtype(X, getattr(self, self._output_attribute)) != X.dtype:
            X = X.astype(np.float64)  # a float64 output is computed in float64
        with np.errstate(invalid="ignore", over="ignore"):  # non-finite X: explained below
            scores = self._joint_log_likelihood(self.model_, self._prepare(X))
        explain_non_finite(self, X, scores)
        return scores.astype(X.dtype, copy=False) if is_low(X) else scores

    @lazy_on_dask
    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Class scores :math:`\\ln p(x, C_k)` (up to a term shared by all classes for linear models).

        Returns
        -------
        ndarray
            Of shape (n_samples,) for two classes (score of ``classes_[1]`` minus that of
            ``classes_[0]``, i.e. :math:`\\theta^T x + \\theta_0` for linear models), else
            (n_samples, n_classes).
        """
        scores = self._scores(X)
        if scores.shape[1] == 2:
            return scores[:, 1] - scores[:, 0]
        return scores
