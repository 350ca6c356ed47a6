"""The Gaussian discriminant estimators' shared machinery: :class:`_GaussianBase` (validate ->
:class:`~linclass.generative.class_stats.ClassStats` -> :func:`linclass.generative.gaussian.estimate` ->
scores, with MASS's posteriors and the closed-form leave-one-out) and :class:`_SklearnCovariance`
(scikit-learn's covariance options of LDA and QDA).  No mathematics lives here.
"""

from __future__ import annotations

from numbers import Real

from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

from linclass.core.validation import validate_priors
from linclass.estimators.stats_classifier import StatsClassifier
from linclass.generative import covariance, gaussian, gaussian_scores, predictive
from linclass.selection import leave_one_out

_SHRINKAGE = [None, StrOptions({"ledoit-wolf", "oas"}), Interval(Real, 0, 1, closed="both")]
# LDA and QDA also take scikit-learn's 'auto' and a covariance estimator object
_SKLEARN_COVARIANCE = {
    "shrinkage": [None, StrOptions({"auto", "ledoit-wolf", "oas"}), Interval(Real, 0, 1, closed="both")],
    "store_covariance": ["boolean"],
    "covariance_estimator": [HasMethods("fit"), None],
}


class _GaussianBase(StatsClassifier):
    """Gaussian class-conditional densities on the :class:`StatsClassifier` machinery.

    Subclasses that fix their covariance structure name it in ``_fixed_covariance_type`` (else the
    ``covariance_type`` parameter gives it) and may add fitted attributes in :meth:`_describe`.
    """

    _fixed_covariance_type: str | None = None
    _on_singular = "warn"  # a singular per-class covariance: floored with a warning, or 'raise'

    _parameter_constraints: dict = {
        "priors": ["array-like", None],
        "unbiased": ["boolean"],
        "shrinkage": _SHRINKAGE,
        "reg_param": [Interval(Real, 0, 1, closed="both")],
        "var_smoothing": [Interval(Real, 0, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
    }

    def _covariance_type(self) -> str:
        if self._fixed_covariance_type is not None:
            return self._fixed_covariance_type
        return self.covariance_type

    def _settings(self) -> dict:
        return {
            "unbiased": getattr(self, "unbiased", False),
            "shrinkage": getattr(self, "shrinkage", None),
            "reg_param": getattr(self, "reg_param", 0.0),
            "var_smoothing": getattr(self, "var_smoothing", 0.0),
            "tol": self._eigen_tol(),
        }

    def _eigen_tol(self) -> float:
        """The rank threshold on eigenvalues of the standardized covariance, relative to the largest
        (:mod:`linclass.generative.precision`)."""
        return getattr(self, "tol", 1e-10)

    def _stats_request(self) -> tuple[str, bool]:
        return gaussian.stats_kind(self._covariance_type(), self._settings()["shrinkage"])

    def _estimate(self, stats, priors, rows=None):
        self._check_posterior(stats)
        return gaussian.estimate(stats, self._covariance_type(), priors=priors, row_covariances=rows,
                                 on_singular=self._on_singular, **self._settings())

    def _posterior(self) -> str:
        return getattr(self, "posterior", "plug-in")

    def _check_settings(self) -> None:
        """Combinations of parameters that no data make valid (raised by ``partial_fit`` at once)."""
        self._check_posterior(None)

    def _check_posterior(self, stats) -> None:
        """MASS's other posteriors are functions of the unregularised statistics (``stats`` None:
        the parameters only)."""
        posterior = self._posterior()
        settings = self._settings()
        if posterior == "plug-in":
            return
        if (settings["shrinkage"] is not None or settings["reg_param"] or settings["var_smoothing"]
                or getattr(self, "covariance_estimator", None) is not None):
            raise ValueError(
                f"posterior={posterior!r} is defined for the unregularised estimates; drop "
                "shrinkage / reg_param / var_smoothing / covariance_estimator, or use "
                "posterior='plug-in'."
            )
        if stats is not None:
            predictive.check_defined(stats, self._covariance_type(), posterior)

    def _joint_log_likelihood(self, model, X):
        posterior = self._posterior()
        if posterior == "plug-in":
            return gaussian_scores.joint_log_likelihood(model, X)
        return predictive.scores(self.stats_, X, self._covariance_type(), posterior,
                                 model.log_priors)

    def _loo_scores(self, data):
        """Class scores of each training row under the model fitted without it (the rows ``data``
        this model was fitted on; :func:`linclass.loo_predict_proba`)."""
        if self._posterior() != "plug-in":
            raise ValueError("The closed-form leave-one-out is implemented for posterior='plug-in'.")
        if self._needs_rows() is not None:
            raise ValueError(f"The closed-form leave-one-out is not available with {self._needs_rows()}: "
                             "it downdates statistics that merge.")
        settings = self._settings()
        del settings["tol"]
        priors = self._priors(self.stats_.n_classes)
        return leave_one_out.loo_joint_log_likelihood(
            self.stats_, self.model_, data.X, data.y, data.sample_weight, self._covariance_type(), priors=priors,
            **settings,
        )

    def _stores_covariance(self) -> bool:
        """Whether ``covariance_`` is set (scikit-learn's LDA and QDA: ``store_covariance``)."""
        return True

    def _describe(self, model) -> None:
        """Expose the fitted parameters under their usual names."""
        self.means_ = model.means
        if self._stores_covariance():
            self.covariance_ = model.covariance
        if model.coef is not None:  # sigmoid(theta^T x + theta_0) for two classes (Bishop 2006 sec. 4.2.1)
            self._describe_linear(model.coef, model.intercept)
        if model.shrinkage is not None:
            self.shrinkage_ = model.shrinkage


class _SklearnCovariance:
    """scikit-learn's covariance options of LDA and QDA: ``solver`` (every one reaches the same
    closed form), ``shrinkage='auto'``, ``covariance_estimator``, ``tol`` on its scale, priors
    renormalised with a warning."""

    def _eigen_tol(self) -> float:
        # scikit-learn's tol bounds singular values of the standardized data: eigenvalues at tol^2
        return float(self.tol) ** 2

    def _priors(self, n_classes: int):
        return validate_priors(self.priors, n_classes, renormalize=True)

    def _check_covariance_options(self) -> None:
        if self.covariance_estimator is not None and self.shrinkage not in (None, 0):
            raise ValueError(
                "covariance_estimator and shrinkage are both set; only one of the two can be (the "
                "estimator object replaces the empirical covariance that shrinkage would shrink)."
            )
        if self.covariance_estimator is not None and self.unbiased:
            raise ValueError("unbiased=True rescales the empirical covariance; it does not apply to "
                             "a covariance_estimator.")
        if self.shrinkage == "auto" and self.unbiased:
            raise ValueError("shrinkage='auto' shrinks the maximum-likelihood covariance; it does not "
                             "combine with unbiased=True.")

    def _settings(self) -> dict:
        self._check_covariance_options()
        settings = super()._settings()
        if self.covariance_estimator is not None:
            settings["shrinkage"] = None
        return settings

    def _stats_request(self) -> tuple[str, bool]:
        if self.covariance_estimator is not None:
            return "tied" if self._covariance_type() == "tied" else "full", False
        return super()._stats_request()

    def _needs_rows(self) -> str | None:
        if self.covariance_estimator is not None:
            return "a covariance_estimator"
        if isinstance(self.shrinkage, str) and self.shrinkage == "auto":
            return "shrinkage='auto' (each class standardized by its own rows)"
        return None

    def _row_estimates(self, X, data, stats):
        self._check_covariance_options()
        if self.covariance_estimator is not None:
            return covariance.estimator_covariances(
                self.covariance_estimator, X, data.y, stats.n_classes, data.sample_weight)
        if isinstance(self.shrinkage, str) and self.shrinkage == "auto":
            return covariance.standardized_ledoit_wolf(X, data.y, stats, data.sample_weight)
        return None
