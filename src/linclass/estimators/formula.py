"""A classifier written as a formula on a data frame, as R's ``glm(low ~ age + race, data = d)``
and statsmodels' formula API: :class:`FormulaClassifier` and :func:`from_formula`.

formulaic parses the formula and codes the factors (:mod:`linclass.formula`); the wrapped estimator
is fitted on the coded columns, which keep formulaic's names (``C(race)[T.black]``), so its summary
reads as R's and statsmodels' do.  The fitted model keeps the encoding (the formula, each factor's
levels, the transforms' state: :class:`~linclass.formula.FormulaEncoding`) and every prediction
method takes a data frame, encoded as the training rows were.  No mathematics here.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Self

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, has_fit_parameter

from linclass.core.validation import validate_fit, validate_predict
from linclass.estimators.wrapped import fit_clone

__all__ = ["FormulaClassifier", "from_formula"]

_FITTED = ("estimator_", "encoding_", "classes_", "n_features_in_", "feature_names_in_",
           "response_levels_")


def _default_estimator():
    from linclass.estimators.logistic.regression import LogisticRegression

    return LogisticRegression(penalty=None)


def _inner_has(attr: str):
    """available_if test: the (fitted, else unfitted) wrapped estimator has ``attr``."""

    def check(self) -> bool:
        inner = getattr(self, "estimator_", None)
        if inner is None:
            inner = _default_estimator() if self.estimator is None else self.estimator
        return hasattr(inner, attr)

    return check


def _on_rows(method: str, doc: str):
    """The wrapped estimator's ``method`` on the encoded rows."""

    def call(self, data):
        X = self._rows(data)  # checks that the model is fitted first
        return getattr(self.estimator_, method)(X, **self._offset(data))

    call.__name__ = method
    call.__qualname__ = f"FormulaClassifier.{method}"
    call.__doc__ = doc
    return available_if(_inner_has(method))(call)


def _set_intercept(estimator, intercept: bool):
    """The formula decides the intercept: ``fit_intercept`` (nested ones too) set to it."""
    keys = [k for k in estimator.get_params(deep=True)
            if k == "fit_intercept" or k.endswith("__fit_intercept")]
    if keys:
        return estimator.set_params(**{k: intercept for k in keys})
    if not intercept:
        raise ValueError(
            f"{type(estimator).__name__} has no fit_intercept: its scores always have a constant per "
            "class. Remove '- 1' / '0 +' from the formula (the intercept column is left out and "
            "the model's own constant takes its place)."
        )
    return estimator


def _check_weights(estimator, weights) -> None:
    if weights is not None and not has_fit_parameter(estimator, "sample_weight"):
        raise TypeError(f"{type(estimator).__name__}.fit does not accept sample_weight; fit "
                        "without weights or use another estimator.")


class FormulaClassifier(ClassifierMixin, BaseEstimator):
    """A classifier given as a formula, ``'low ~ age + lwt + C(race) + smoke'``, fitted on a data frame.

    formulaic (https://matthewwardrop.github.io/formulaic/) builds the model's columns from the
    frame: ``C(race)`` codes a factor with one column per level but the first (treatment coding,
    R's default), ``C(race, Treatment('white'))`` chooses the reference level, ``C(race, contr.sum)``
    and the other codings of R are there, a string or pandas categorical column is a factor without
    ``C()``, ``age:smoke`` is an interaction and ``age * smoke`` both main effects and it,
    ``np.log(lwt)``, ``I(age ** 2)``, ``center(lwt)``, ``poly(age, 2)`` and ``bs(age, df=3)``
    transform a column.  The intercept term becomes the estimator's ``fit_intercept``: a formula
    without one (``- 1`` or ``0 +``) fits without one, and the first factor is then coded with a
    column for every level, as in R.

    Parameters
    ----------
    formula : str or None, default=None
        ``'response ~ terms'`` (the response is a column of the data, or an expression such as
        ``I(bwt < 2500)``), or ``'~ terms'`` with the labels passed as ``y``.  None: the data are
        the model's columns already (a numeric array or frame), as for the wrapped estimator.
        ``'cbind(successes, failures) ~ terms'`` is a grouped binomial response, as R's
        ``glm(cbind(NABOVE, NBELOW) ~ ..., family = binomial)``: two columns (or expressions,
        ``I(trials - successes)``) of counts per row, fitted as the binomial likelihood of the
        counts, with R's deviance, degrees of freedom and AIC in the summary (the wrapped
        estimator must take a two-column y: ``LogisticRegression`` does).
    estimator : classifier or None, default=None
        Fitted (a clone of it) on the coded columns; None: ``LogisticRegression(penalty=None)``,
        the maximum-likelihood fit of R's ``glm(family = binomial)``.  Its ``fit_intercept`` is set
        from the formula.

    Attributes
    ----------
    estimator_ : the fitted estimator, whose ``feature_names_in_`` are the coded columns
    encoding_ : :class:`~linclass.formula.FormulaEncoding` or None
        The formula, expanded, with the levels of every factor and the state of every transform
        (None without a formula).
    classes_ : ndarray of shape (n_classes,)
        Sorted, as scikit-learn's, except for a pandas Categorical response whose levels are not
        in sorted order: then the levels present, in their order, as R takes a factor's (the
        first is the reference class of the summary; ``predict_proba``'s columns follow).
    response_levels_ : ndarray of shape (n_classes,) or None
        Those levels when the wrapped estimator was fitted on their codes 0, 1, ... (its
        ``classes_``), else None.
    n_features_in_, feature_names_in_ : the columns of the data that the formula reads

    See Also
    --------
    linclass.from_formula : Makes and fits one in a call.
    linclass.diagnostics : Case diagnostics of a fitted formula model.
    linclass.drop1 : One likelihood-ratio test per term.
    statsmodels.formula.api.logit : statsmodels' formula interface; R's counterpart is
        ``glm(formula, family=binomial)``.

    Notes
    -----
    Rows with a missing value in a column the formula reads are refused, not dropped (R's glm drops
    them); a level that the training rows did not have is refused at prediction, naming the column
    and the known levels.  A formula's terms may hold column names, numbers, strings, arithmetic,
    comparisons and the formula transforms, nothing else (:mod:`linclass.formula.safety`): a saved
    model holds the formula as text and is loaded without running code from the file.

    Examples
    --------
    >>> import pandas as pd
    >>> import linclass
    >>> d = pd.DataFrame({"y": [0, 0, 1, 1, 0, 1, 1, 0], "x": [1.0, 2.0, 3.0, 4.0, 2.5, 1.5, 3.5, 3.0],
    ...                   "g": ["a", "b", "a", "b", "a", "b", "a", "b"]})
    >>> model = linclass.from_formula("y ~ x + C(g)", d)
    >>> list(model.estimator_.feature_names_in_)
    ['x', 'C(g)[T.b]']
    >>> model.predict(pd.DataFrame({"x": [1.0, 4.0], "g": ["a", "b"]})).tolist()
    [0, 1]
    """

    def __init__(self, formula: str | None = None, estimator: BaseEstimator | None = None) -> None:
        self.formula = formula
        self.estimator = estimator

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(_default_estimator() if self.estimator is None else self.estimator)
        tags.input_tags.sparse = False
        tags.classifier_tags.poor_score = inner.classifier_tags.poor_score
        return tags

    # ------------------------------------------------------------------------------------ fit
    def fit(self, data: Any, y: ArrayLike | None = None,
            sample_weight: ArrayLike | str | None = None) -> Self:
        """Code the frame's columns by the formula and fit a clone of the estimator on them.

        Parameters
        ----------
        data : pandas DataFrame
            The response (when the formula names it) and every column the formula reads.  Without
            a formula, the model's columns (array-like of shape (n_samples, n_features)).
        y : array-like of shape (n_samples,), default=None
            The class labels, when the formula has no left-hand side (``'~ age + C(race)'``).
        sample_weight : array-like of shape (n_samples,) or str, default=None
            Frequency weights (R's ``weights``), or the name of the column that holds them.

        Returns
        -------
        self
        """
        for name in _FITTED:
            self.__dict__.pop(name, None)
        if self.formula is None:
            return self._fit_columns(data, y, sample_weight)
        from linclass.formula.encoding import as_frame, encode, learn, parse_formula
        from linclass.formula.offsets import offset_values
        from linclass.formula.response import level_coding, response_labels, weight_values

        frame = as_frame(data)
        response, rhs = parse_formula(self.formula, frame.columns)
        if (response is None) == (y is None):
            raise ValueError(
                f"The formula {self.formula!r} names the response {response!r}: pass y=None."
                if response is not None else
                f"The formula {self.formula!r} has no response: write it as 'label ~ ...' or pass "
                "the labels as y."
            )
        encoding = learn(rhs, frame, response)
        X = encode(encoding, frame, "fit on")
        if response is not None:  # (named, for the summary's Dep. Variable)
            import pandas as pd

            values, coding = response_labels(response, frame)
            if getattr(values, "ndim", 1) == 2:  # cbind(successes, failures): grouped counts
                labels = values.set_axis(X.index)
            else:
                labels = pd.Series(values if coding is None else coding.encode(values),
                                   name=response.strip("`"), index=X.index)
        else:
            coding = level_coding(y)
            labels = y if coding is None else coding.encode(y)
        estimator = _set_intercept(
            clone(_default_estimator() if self.estimator is None else self.estimator),
            encoding.intercept)
        weights = weight_values(sample_weight, frame)
        _check_weights(estimator, weights)
        extra = {} if weights is None else {"sample_weight": weights}
        offset = offset_values(encoding.offsets, frame)
        if offset is not None:
            if not has_fit_parameter(estimator, "offset"):
                raise ValueError(f"The formula has offset terms, which "
                                 f"{type(estimator).__name__} does not take (LogisticRegression "
                                 "does: a known part of the linear predictor).")
            extra["offset"] = offset
        estimator.fit(X, labels, **extra)
        self.estimator_, self.encoding_ = estimator, encoding
        # a Categorical response's levels in their order (R's), fitted as codes 0, 1, ...
        self.response_levels_ = None if coding is None else coding.levels
        self.classes_ = estimator.classes_ if coding is None else coding.levels
        self.feature_names_in_ = np.asarray(encoding.variables, dtype=object)
        self.n_features_in_ = len(encoding.variables)
        return self

    def _fit_columns(self, X, y, sample_weight):
        """Without a formula: the data are the model's columns."""
        data = validate_fit(self, X, y, sample_weight)
        estimator = _default_estimator() if self.estimator is None else self.estimator
        _check_weights(estimator, data.sample_weight)
        self.estimator_ = fit_clone(estimator, data.X, data.classes[data.y], data.sample_weight)
        self.encoding_ = None
        self.classes_ = self.estimator_.classes_
        return self

    # ------------------------------------------------------------------------------- the rows
    def _rows(self, data, verb: str = "predict"):
        """The model's columns for ``data``: coded by the formula, or checked as columns."""
        check_is_fitted(self)
        if self.encoding_ is None:
            return validate_predict(self, data)
        from linclass.formula.encoding import encode

        return encode(self.encoding_, data, verb)

    def _offset(self, data) -> dict:
        """``{'offset': the rows' offsets}`` when the formula has ``offset(...)`` terms, else
        ``{}`` (keywords for the wrapped estimator's methods)."""
        encoding = getattr(self, "encoding_", None)
        if encoding is None or not encoding.offsets:
            return {}
        from linclass.formula.encoding import as_frame
        from linclass.formula.offsets import offset_values

        return {"offset": offset_values(encoding.offsets, as_frame(data))}

    def _labels(self, data, y):
        """``y``, or the response the formula names, read from ``data`` (as the wrapped estimator
        was fitted on them: level codes for a Categorical response, :meth:`_coding`)."""
        if y is None and self.encoding_ is not None:
            if self.encoding_.response is None:
                raise ValueError("The formula has no response: pass the labels as y.")
            from linclass.formula.encoding import as_frame
            from linclass.formula.response import response_values

            y = response_values(self.encoding_.response, as_frame(data))
        coding = self._coding()
        return y if coding is None or y is None else coding.encode(y)

    def _coding(self):
        """The :class:`~linclass.formula.response.LevelCoding` of a response fitted in its levels'
        order, or None."""
        levels = getattr(self, "response_levels_", None)
        if levels is None:
            return None
        from linclass.formula.response import LevelCoding

        return LevelCoding(levels)

    def _weights(self, data, sample_weight):
        if isinstance(sample_weight, str) and self.encoding_ is not None:
            from linclass.formula.encoding import as_frame
            from linclass.formula.response import weight_values

            return weight_values(sample_weight, as_frame(data))
        return sample_weight

    def training_rows(self, data, y=None, sample_weight=None):
        """``(X, y, sample_weight)``: the rows of ``data`` as the wrapped estimator sees them (the
        coded columns as a DataFrame), the labels (the response's, unless ``y`` is given) and the
        weights (a column name read from ``data``); what the statistics of the wrapped estimator
        (``linclass.diagnostics``, robust covariances) need."""
        return (self._rows(data, "use"), self._labels(data, y), self._weights(data, sample_weight))

    # -------------------------------------------------------------------------- predictions
    def predict(self, data: Any) -> np.ndarray:
        """The wrapped estimator's prediction for the rows of ``data``, shape (n_samples,)."""
        X = self._rows(data)
        labels = self.estimator_.predict(X, **self._offset(data))
        coding = self._coding()
        return labels if coding is None else coding.decode(labels)

    predict_proba = _on_rows("predict_proba", "The class probabilities of the rows of ``data``, "
                             "shape (n_samples, n_classes).")
    predict_log_proba = _on_rows("predict_log_proba", "The log posteriors of the rows of ``data``, "
                                 "shape (n_samples, n_classes).")
    decision_function = _on_rows("decision_function", "The wrapped estimator's decision function "
                                 "on the rows of ``data``.")

    def score(self, data: Any, y: ArrayLike | None = None,
              sample_weight: ArrayLike | str | None = None) -> float:
        """Accuracy on the rows of ``data`` (labels: ``y``, or the formula's response read from
        ``data``; ``sample_weight`` may name a column)."""
        X, labels, weights = self.training_rows(data, y, sample_weight)
        offset = self._offset(data)
        if not offset:
            return self.estimator_.score(X, labels, sample_weight=weights)
        from sklearn.metrics import accuracy_score

        return accuracy_score(labels, self.estimator_.predict(X, **offset), sample_weight=weights)

    # ---------------------------------------------------------------------------- inference
    @available_if(_inner_has("summary"))
    def summary(self, *args, data=None, **kwargs):
        """The wrapped estimator's :meth:`summary`, its rows named by the coded columns
        (``C(race)[T.black]``).

        The training rows that a robust ``cov_type`` or ``ci='profile'`` needs are passed as
        ``data`` (the frame; the labels are the response's, ``sample_weight`` and ``groups`` may
        name columns); ``X=`` takes a frame too.
        """
        check_is_fitted(self)
        if data is None and kwargs.get("X") is not None:
            data = kwargs.pop("X")
        if data is not None:
            kwargs["X"], kwargs["y"], kwargs["sample_weight"] = self.training_rows(
                data, kwargs.get("y"), kwargs.get("sample_weight"))
            kwargs.update(self._offset(data))
            if isinstance(kwargs.get("groups"), str):
                kwargs["groups"] = self._column(data, kwargs["groups"])
        coding = self._coding()
        if coding is not None and kwargs.get("reference") is not None:
            kwargs["reference"] = int(coding.encode([kwargs["reference"]])[0])
        table = self.estimator_.summary(*args, **kwargs)
        if coding is not None and dataclasses.is_dataclass(table):
            from linclass.formula.response import named_classes

            table = named_classes(table, coding.levels, kwargs.get("reference") or 0)
        if self.encoding_ is not None or not dataclasses.is_dataclass(table):
            return table
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            return table
        return _renamed(table, dict(zip([f"x{j}" for j in range(self.n_features_in_)],
                                        map(str, names))))

    @available_if(_inner_has("get_prediction"))
    def get_prediction(self, data, **kwargs):
        """The wrapped estimator's ``get_prediction`` for the rows of ``data`` (probabilities and
        log-odds with standard errors); ``X_train`` (a frame), ``y_train`` and ``sample_weight``
        for a robust ``cov_type`` as in :meth:`summary`."""
        X = self._rows(data)
        if kwargs.get("X_train") is not None:
            train = kwargs["X_train"]
            kwargs["X_train"], kwargs["y_train"], kwargs["sample_weight"] = self.training_rows(
                train, kwargs.get("y_train"), kwargs.get("sample_weight"))
            if self._offset(train):
                kwargs["offset_train"] = self._offset(train)["offset"]
        return self.estimator_.get_prediction(X, **self._offset(data), **kwargs)

    @available_if(_inner_has("marginal_effects"))
    def marginal_effects(self, data, at: str = "overall", method: str = "dydx", *, atexog=None,
                         dummy=False, count=False, sample_weight=None, y=None,
                         cov_type: str = "nonrobust", groups=None):
        """Marginal effects per variable of the data over the rows of ``data``, as Stata's
        ``margins, dydx(*)`` and R's ``marginaleffects::avg_slopes`` define them, with
        delta-method standard errors (:mod:`linclass.formula.variables`,
        :func:`linclass.linear.inference.margins.variable_effects`).

        A number's effect is the derivative through every column built from it (``age`` through
        ``age``, ``I(age ** 2)`` and ``age:smoke``); a factor's, per level but the reference, the
        change of the probability when every row moves from the reference level to the level
        (named ``race[black]``); transforms and interactions are not variables and have no row.

        Parameters
        ----------
        data : pandas DataFrame
            The rows (every column the formula reads), as the training rows for a robust
            ``cov_type``.
        at : {'overall', 'mean'}, default='overall'
            The average of the rows' effects, or the effects at one point: the numbers at their
            (weighted) means and each factor at the proportions of its levels (Stata's
            ``atmeans``; a transform of a number is taken at the number's mean).
        method : {'dydx', 'eyex', 'dyex', 'eydx'}, default='dydx'
            As :meth:`LogisticRegression.marginal_effects`; the elasticities are of the numbers
            (a factor has none and is left out).
        atexog : dict or None, default=None
            Stata's ``margins, at()``: ``{variable: value}`` (a number, one number per row, or a
            factor's level) set in every row before the effects are taken.  A variable's own
            discrete change does not depend on the value it is set to.
        dummy, count : bool or list of str, default=False
            True: the numbers whose values in ``data`` are all 0 or 1 take the change from 0 to 1
            (Stata's ``i.smoke``), the numbers of non-negative integers that vary the centred
            change :math:`(P(v+1) - P(v-1))/2`; a list names the variables.
        sample_weight : array-like or str, default=None
            Frequency weights of the rows (or the column holding them).
        y, cov_type, groups : as in :meth:`summary` (``groups`` may name a column)

        Returns
        -------
        :class:`linclass.linear.inference.margins.MarginalEffects`
            One effect per variable (per level of a factor).  A model fitted without a formula
            gives the wrapped estimator's per-column effects.
        """
        X = self._rows(data)  # checks that the model is fitted first
        weights = self._weights(data, sample_weight)
        if isinstance(groups, str):
            groups = self._column(data, groups)
        if cov_type != "nonrobust" and y is None:
            y = self._labels(data, None)
        options = dict(at=at, method=method, dummy=dummy, count=count, sample_weight=weights, y=y,
                       cov_type=cov_type, groups=groups)
        if self.encoding_ is None:
            return self._named(self.estimator_.marginal_effects(X, atexog=atexog, **options))
        from linclass.estimators.logistic.summary import margins_table
        from linclass.formula.variables import effect_designs

        def designs(weight):  # (called once the model is known to have effects)
            return effect_designs(self.encoding_, data, weight, at=at, atexog=atexog,
                                  dummy=dummy, count=count, method=method)

        return self._named(margins_table(self.estimator_, X, designs=designs, **options))

    def _named(self, table):
        """``table`` with the classes named by the response's levels when the wrapped estimator
        was fitted on their codes (:meth:`_coding`)."""
        coding = self._coding()
        if coding is None or not dataclasses.is_dataclass(table):
            return table
        from linclass.formula.response import named_classes

        return named_classes(table, coding.levels)

    def _column(self, data, name: str):
        from linclass.formula.encoding import as_frame

        frame = as_frame(data)
        if name not in frame.columns:
            raise ValueError(f"{name!r} names no column of the data.")
        return frame[name].to_numpy()

    # ---------------------------------------------------------------------------- the terms
    @property
    def formula_(self) -> str:
        """The fitted formula, expanded (``.`` resolved), with its response."""
        check_is_fitted(self)
        if self.encoding_ is None:
            raise AttributeError("This model was fitted without a formula.")
        return self.encoding_.full_formula

    @property
    def factor_levels_(self) -> dict:
        """``{factor: levels}`` of the categorical factors (R's ``xlevels``)."""
        check_is_fitted(self)
        return {} if self.encoding_ is None else self.encoding_.levels


def _renamed(table, mapping: dict):
    """A summary with its parameters renamed by ``mapping``."""
    if hasattr(table, "renamed"):  # a penalised fit's table
        return table.renamed(mapping)
    return dataclasses.replace(table, names=[mapping.get(n, n) for n in table.names])


def from_formula(formula: str, data: Any, model: BaseEstimator | None = None, *,
                 y: ArrayLike | None = None,
                 sample_weight: ArrayLike | str | None = None) -> FormulaClassifier:
    """Fit ``model`` (default: ``LogisticRegression(penalty=None)``) by a formula on a data frame.

    ``linclass.from_formula("low ~ age + lwt + C(race, Treatment('white')) + smoke", data=birthwt)``
    is R's ``glm(low ~ age + lwt + race + smoke, family = binomial, data = birthwt)`` with race's
    reference level 'white'; any linclass classifier may be ``model``.

    Parameters
    ----------
    formula : str
        See :class:`FormulaClassifier`.
    data : pandas DataFrame
    model : classifier, default=None
    y : array-like, default=None
        The labels, for a formula without a response.
    sample_weight : array-like or str, default=None
        Frequency weights, or the column that holds them.

    Returns
    -------
    FormulaClassifier
        Fitted.

    See Also
    --------
    linclass.FormulaClassifier : The estimator it returns.
    linclass.lr_test : Compare nested formula models.
    linclass.drop1 : One test per term.
    statsmodels.formula.api.logit : statsmodels' formula interface; R's counterpart is
        ``glm(formula, family=binomial)``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import linclass
    >>> rng = np.random.default_rng(0)
    >>> data = pd.DataFrame({'x': rng.normal(size=200),
    ...                      'g': rng.choice(['a', 'b', 'c'], size=200)})
    >>> data['y'] = (data['x'] + rng.normal(size=200) > 0).astype(int)
    >>> model = linclass.from_formula('y ~ x + C(g)', data)
    >>> model.estimator_.coef_.shape
    (1, 3)
    >>> model.predict(data.head(3)).shape
    (3,)
    """
    return FormulaClassifier(formula, model).fit(data, y, sample_weight=sample_weight)
