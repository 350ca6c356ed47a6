"""scikit-learn 1.9's documented ``LogisticRegressionCV`` behaviours, run against both libraries.

Every behaviour is a named observation (an exception's class, the warnings a fit gives, a fitted
attribute's type, keys, shape and dtype, a chosen value) made on scikit-learn's estimator and on
linclass's with the same arguments and data; linclass agrees on a behaviour when its observation
matches scikit-learn's (an exception of scikit-learn's class or a subclass, naming the parameter
where scikit-learn's names it).  ``python tests/dropin/logistic_cv_trial.py`` prints the count and
every difference; ``tests/test_dropin_logistic_cv.py`` runs the same cases as tests.
"""

from __future__ import annotations

import inspect
import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import KFold, StratifiedKFold

__all__ = ["CASES", "DIFFERENCES", "Case", "agree", "difference", "observe", "run"]

#: scikit-learn's FutureWarnings silenced by naming every deprecated parameter's new spelling
QUIET = {"l1_ratios": (0.0,), "scoring": "accuracy", "use_legacy_attributes": True}
#: fits solved tightly in both libraries where values are compared
TIGHT = {"tol": 1e-10, "max_iter": 10_000}
#: warnings that are not part of the comparison: convergence notes (each library's own solver) and
#: linclass's own warning classes (its extensions), recognised by their module
OWN_WARNINGS = ("ConvergenceWarning",)


def binary(n=120, seed=0):
    return make_classification(n, n_features=4, n_informative=3, n_redundant=0, flip_y=0.15,
                               random_state=seed)


def three(n=150, seed=1):
    return make_classification(n, n_features=4, n_informative=3, n_redundant=0, n_classes=3,
                               n_clusters_per_class=1, flip_y=0.1, random_state=seed)


def strings(n=120, seed=2):
    X, y = binary(n, seed)
    return X, np.array(["no", "yes"])[y]


@dataclass
class Case:
    """One call of ``fit`` (or ``score``) with ``params`` on ``data``; ``what`` says what is
    observed: 'outcome' (the exception class or success, and the warnings), 'layout' (every
    fitted attribute's description) or 'values' (the chosen values and predictions)."""

    id: str
    params: dict
    data: str = "binary"
    what: str = "outcome"
    fit: dict = field(default_factory=dict)

    def make(self, cls):
        return cls(**self.params)


def sparse():
    import scipy.sparse as sp

    X, y = three()
    return sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X)), y


DATA = {"binary": binary, "three": three, "strings": strings, "sparse": sparse}


def sklearn_class():
    from sklearn.linear_model import LogisticRegressionCV

    return LogisticRegressionCV


def linclass_class():
    from linclass import LogisticRegressionCV

    return LogisticRegressionCV


# ------------------------------------------------------------------------------- the cases
def _bad(param, value, **extra):
    return Case(f"invalid {param}={value!r}{' ' + repr(extra) if extra else ''}",
                {**QUIET, **extra, param: value})


INVALID = [
    *(_bad("Cs", v) for v in (0, -1, 1.5, "10", None)),
    *(_bad("l1_ratios", v) for v in ("foo", 0.5, 1)),
    *(_bad("fit_intercept", v) for v in ("yes", None)),
    *(_bad("cv", v) for v in ("five", 1.5, 1)),
    *(_bad("dual", v) for v in ("no", None)),
    *(_bad("penalty", v) for v in ("l3", None, "none")),
    *(_bad("scoring", v) for v in ("bogus", 3)),
    *(_bad("solver", v) for v in ("bogus", None, "LBFGS")),
    *(_bad("tol", v) for v in (-1.0, "1e-4")),
    *(_bad("max_iter", v) for v in (-1, 1.5, "100")),
    *(_bad("class_weight", v) for v in ("bogus", [1.0, 2.0])),
    *(_bad("n_jobs", v) for v in ("2", 1.5)),
    *(_bad("verbose", v) for v in ("x", -1)),
    *(_bad("refit", v) for v in ("yes", None)),
    *(_bad("intercept_scaling", v) for v in (0, -1.0, "1")),
    *(_bad("random_state", v) for v in ("x", 1.5)),
    *(_bad("use_legacy_attributes", v) for v in ("yes", None)),
    _bad("class_weight", {5: 1.0}),
]

SMOOTH = ("lbfgs", "newton-cg", "newton-cholesky", "sag")
COMBINATIONS = [
    *(Case(f"{s} with l1_ratios={r}", {**QUIET, "solver": s, "l1_ratios": r})
      for s in SMOOTH for r in ((1.0,), (0.5,), (0.0, 1.0))),
    *(Case(f"{s} with penalty={p!r}", {**QUIET, "solver": s, "penalty": p, "l1_ratios": None})
      for s in SMOOTH for p in ("l1",)),
    Case("lbfgs with penalty='elasticnet'", {**QUIET, "solver": "lbfgs", "penalty": "elasticnet",
                                             "l1_ratios": (0.5,)}),
    Case("liblinear with l1_ratios=(0.5,)", {**QUIET, "solver": "liblinear", "l1_ratios": (0.5,)}),
    Case("liblinear with l1_ratios=(0, 1)", {**QUIET, "solver": "liblinear", "l1_ratios": (0.0, 1.0)}),
    Case("liblinear with l1_ratios=(1,)", {**QUIET, "solver": "liblinear", "l1_ratios": (1.0,)}),
    Case("liblinear with l1_ratios=(0,)", {**QUIET, "solver": "liblinear"}),
    Case("liblinear, three classes", {**QUIET, "solver": "liblinear"}, "three"),
    Case("saga with l1_ratios=(0, 0.5, 1)", {**QUIET, "solver": "saga", "l1_ratios": (0.0, 0.5, 1.0)}),
    *(Case(f"dual=True with {s}", {**QUIET, "solver": s, "dual": True})
      for s in (*SMOOTH, "saga")),
    Case("dual=True with liblinear", {**QUIET, "solver": "liblinear", "dual": True}),
    Case("dual=True with liblinear and L1", {**QUIET, "solver": "liblinear", "dual": True,
                                             "l1_ratios": (1.0,)}),
    Case("penalty='elasticnet' without l1_ratios", {**QUIET, "solver": "saga",
                                                     "penalty": "elasticnet", "l1_ratios": None}),
    Case("penalty='elasticnet' with l1_ratios=[]", {**QUIET, "solver": "saga",
                                                     "penalty": "elasticnet", "l1_ratios": []}),
    Case("penalty='elasticnet' with l1_ratios=[0.5, 2]",  # (a tuple: scikit-learn's message fails)
         {**QUIET, "solver": "saga", "penalty": "elasticnet", "l1_ratios": [0.5, 2.0]}),
    Case("penalty='elasticnet' with l1_ratios=('a',)",
         {**QUIET, "solver": "saga", "penalty": "elasticnet", "l1_ratios": ("a",)}),
    Case("l1_ratios=(1.5,) with saga", {**QUIET, "solver": "saga", "l1_ratios": (1.5,)}),
    Case("l1_ratios=(-0.5,) with saga", {**QUIET, "solver": "saga", "l1_ratios": (-0.5,)}),
    Case("penalty='l1' with l1_ratios=(0.3,)", {**QUIET, "solver": "saga", "penalty": "l1",
                                                 "l1_ratios": (0.3,)}),
    Case("penalty='l2' with l1_ratios=(0.3, 0.7)", {**QUIET, "penalty": "l2",
                                                     "l1_ratios": (0.3, 0.7)}),
    Case("Cs=[-1, 1]", {**QUIET, "Cs": [-1.0, 1.0]}),
    Case("l1_ratios=[]", {**QUIET, "l1_ratios": []}),
    Case("saga with l1_ratios=[0, 0]", {**QUIET, "solver": "saga", "l1_ratios": [0.0, 0.0]}),
    Case("max_iter=0", {**QUIET, "max_iter": 0}),
    Case("tol=0", {**QUIET, "tol": 0.0, "max_iter": 5}),
]

WARNINGS = [
    Case("defaults", {}),
    Case("l1_ratios=None", {"scoring": "accuracy", "use_legacy_attributes": True,
                            "l1_ratios": None}),
    Case("penalty='l2'", {**QUIET, "penalty": "l2"}),
    Case("penalty='l1' (liblinear)", {**QUIET, "penalty": "l1", "solver": "liblinear",
                                      "l1_ratios": None}),
    Case("penalty='elasticnet'", {**QUIET, "penalty": "elasticnet", "solver": "saga",
                                  "l1_ratios": (0.5,)}),
    Case("scoring=None", {**QUIET, "scoring": None}),
    Case("scoring default", {"l1_ratios": (0.0,), "use_legacy_attributes": False}),
    Case("use_legacy_attributes default", {"l1_ratios": (0.0,), "scoring": "accuracy"}),
    Case("use_legacy_attributes=False", {**QUIET, "use_legacy_attributes": False}),
    Case("every new spelling", QUIET),
    Case("l1_ratios default", {"scoring": "accuracy", "use_legacy_attributes": False}),
]

DATA_ERRORS = [
    Case("one class", QUIET, "one-class"),
    Case("NaN in X", QUIET, "nan"),
    Case("continuous y", QUIET, "continuous"),
    Case("sample_weight of the wrong length", QUIET, fit={"sample_weight": np.ones(5)}),
    Case("fit(groups=...) without metadata routing", QUIET, fit={"groups": np.arange(120) % 3}),
    Case("string labels", QUIET, "strings"),
    Case("score(X, y, sample_weight) positional", QUIET, fit={"score_positional": True}),
    Case("fit(groups=...) with metadata routing and GroupKFold",
         {**QUIET, "cv": "groups"}, fit={"groups": "groups", "routing": True}),
]


def _layouts():
    cases = []
    for data in ("binary", "three"):
        for legacy in (True, False):
            for refit in (True, False):
                for label, ratios, solver in (("l1_ratios=None", None, "lbfgs"),
                                              ("l1_ratios=(0,)", (0.0,), "lbfgs"),
                                              ("l1_ratios=(1,)", (1.0,), "saga"),
                                              ("l1_ratios=(0, 0.5, 1)", (0.0, 0.5, 1.0), "saga")):
                    # an array: scikit-learn's refit=False indexes l1_ratios with an array
                    ratios = None if ratios is None else np.array(ratios)
                    params = {"Cs": 3, "cv": 3, "l1_ratios": ratios, "solver": solver,
                              "scoring": "neg_log_loss", "use_legacy_attributes": legacy,
                              "refit": refit, **TIGHT}
                    cases.append(Case(f"{data} legacy={legacy} refit={refit} {label}", params,
                                      data, "layout"))
        for legacy in (True, False):
            base = {"Cs": [0.1, 1.0], "cv": 3, "l1_ratios": (0.0,), "scoring": "neg_log_loss",
                    "use_legacy_attributes": legacy, **TIGHT}
            cases += [
                Case(f"{data} legacy={legacy} fit_intercept=False", {**base, "fit_intercept": False},
                     data, "layout"),
                Case(f"{data} legacy={legacy} penalty='l1' (liblinear)",
                     {**base, "l1_ratios": None, "penalty": "l1",
                      "solver": "liblinear" if data == "binary" else "saga"}, data, "layout"),
                Case(f"{data} legacy={legacy} penalty='elasticnet'",
                     {**base, "l1_ratios": np.array([0.2, 0.8]), "penalty": "elasticnet",
                      "solver": "saga"},
                     data, "layout"),
                Case(f"{data} legacy={legacy} defaults (l1_ratios and scoring)",
                     {"use_legacy_attributes": legacy, "cv": 3}, data, "layout"),
                Case(f"{data} legacy={legacy} int Cs=1", {**base, "Cs": 1}, data, "layout"),
                Case(f"{data} legacy={legacy} Cs=[1, 10] (ints)", {**base, "Cs": [1, 10]}, data,
                     "layout"),
                Case(f"{data} legacy={legacy} l1_ratios=[0] (an int)", {**base, "l1_ratios": [0]},
                     data, "layout"),
                Case(f"{data} legacy={legacy} refit=False, l1_ratios=None",
                     {**base, "l1_ratios": None, "refit": False}, data, "layout"),
            ]
        cases.append(Case(f"sparse X legacy={legacy}", {"Cs": 3, "cv": 3, "l1_ratios": (0.0,),
                                                        "scoring": "neg_log_loss",
                                                        "use_legacy_attributes": legacy},
                          "sparse", "layout"))
    return cases


LAYOUTS = _layouts()

VALUES = [
    Case("values: binary, neg_log_loss", {"Cs": 6, "cv": 4, "l1_ratios": (0.0,),
                                          "scoring": "neg_log_loss",
                                          "use_legacy_attributes": False, **TIGHT}, "binary", "values"),
    Case("values: three classes, neg_log_loss", {"Cs": 6, "cv": 4, "l1_ratios": (0.0,),
                                                 "scoring": "neg_log_loss",
                                                 "use_legacy_attributes": False, **TIGHT},
         "three", "values"),
    Case("values: sample weights", {"Cs": 5, "cv": 3, "l1_ratios": (0.0,), "scoring": "neg_log_loss",
                                    "use_legacy_attributes": False, **TIGHT}, "binary", "values",
         {"sample_weight": "weights"}),
    Case("values: a splitter object", {"Cs": 5, "cv": KFold(4, shuffle=True, random_state=0),
                                       "l1_ratios": (0.0,), "scoring": "neg_log_loss",
                                       "use_legacy_attributes": False, **TIGHT}, "three", "values"),
    Case("values: a list of folds", {"Cs": 5, "cv": "folds", "l1_ratios": (0.0,),
                                     "scoring": "neg_log_loss", "use_legacy_attributes": False,
                                     **TIGHT}, "binary", "values"),
    Case("values: L1 (saga)", {"Cs": 6, "cv": 4, "l1_ratios": (1.0,), "solver": "saga",
                               "scoring": "neg_log_loss", "use_legacy_attributes": False,
                               "tol": 1e-8, "max_iter": 50_000}, "binary", "values"),
    Case("values: L1 (liblinear)", {"Cs": 6, "cv": 4, "l1_ratios": (1.0,), "solver": "liblinear",
                                    "scoring": "neg_log_loss", "use_legacy_attributes": False,
                                    "tol": 1e-10, "max_iter": 50_000}, "binary", "values"),
    Case("values: L2 (liblinear, intercept_scaling=3)",
         {"Cs": 6, "cv": 4, "l1_ratios": (0.0,), "solver": "liblinear", "intercept_scaling": 3.0,
          "scoring": "neg_log_loss", "use_legacy_attributes": False, **TIGHT}, "binary", "values"),
    Case("values: class_weight='balanced'", {"Cs": 5, "cv": 3, "l1_ratios": (0.0,),
                                             "class_weight": "balanced", "scoring": "neg_log_loss",
                                             "use_legacy_attributes": False, **TIGHT},
         "three", "values"),
    Case("values: fit_intercept=False", {"Cs": 5, "cv": 3, "l1_ratios": (0.0,),
                                         "fit_intercept": False, "scoring": "neg_log_loss",
                                         "use_legacy_attributes": False, **TIGHT}, "binary", "values"),
    *(Case(f"values: scoring={s!r}", {"Cs": 5, "cv": 3, "l1_ratios": (0.0,), "scoring": s,
                                      "use_legacy_attributes": False, **TIGHT}, d, "values")
      for s, d in (("roc_auc", "binary"), ("neg_brier_score", "binary"), ("f1_macro", "three"),
                   ("balanced_accuracy", "three"), ("accuracy", "three"))),
    Case("values: string labels", {"Cs": 4, "cv": 3, "l1_ratios": (0.0,), "scoring": "neg_log_loss",
                                   "use_legacy_attributes": False, **TIGHT}, "strings", "values"),
    Case("values: refit=False", {"Cs": 5, "cv": 3, "l1_ratios": (0.0,), "scoring": "neg_log_loss",
                                 "refit": False, "use_legacy_attributes": False, **TIGHT},
         "binary", "values"),
    Case("values: Cs in no order", {"Cs": [1.0, 0.01, 100.0, 0.1], "cv": 3, "l1_ratios": (0.0,),
                                    "scoring": "neg_log_loss", "use_legacy_attributes": False,
                                    **TIGHT}, "three", "values"),
    Case("values: refit=False, Cs in no order",
         {"Cs": [1.0, 0.01, 100.0, 0.1], "cv": 3, "l1_ratios": (0.0,), "scoring": "neg_log_loss",
          "refit": False, "use_legacy_attributes": False, **TIGHT}, "binary", "values"),
    Case("values: class_weight dict", {"Cs": 5, "cv": 3, "l1_ratios": (0.0,),
                                       "class_weight": {0: 2.0, 1: 0.5}, "scoring": "neg_log_loss",
                                       "use_legacy_attributes": False, **TIGHT}, "binary", "values"),
    # random_state: scikit-learn's dual liblinear shuffles the rows, and stopped unconverged at
    # C=1e4 its score there varies from run to run (-0.91 to -0.75), once above C=1's
    Case("values: dual=True (liblinear)", {"Cs": 5, "cv": 3, "l1_ratios": (0.0,), "dual": True,
                                           "solver": "liblinear", "scoring": "neg_log_loss",
                                           "use_legacy_attributes": False, "random_state": 0,
                                           **TIGHT},
         "binary", "values"),
    Case("values: sparse X", {"Cs": 5, "cv": 3, "l1_ratios": (0.0,), "scoring": "neg_log_loss",
                              "use_legacy_attributes": False, **TIGHT}, "sparse", "values"),
    Case("values: default scoring (accuracy)", {"Cs": 5, "cv": 3, "l1_ratios": (0.0,),
                                                "use_legacy_attributes": False, **TIGHT},
         "binary", "values"),
    Case("values: elastic net (saga)", {"Cs": 4, "cv": 3, "l1_ratios": (0.2, 0.8), "solver": "saga",
                                        "scoring": "neg_log_loss", "use_legacy_attributes": False,
                                        "tol": 1e-8, "max_iter": 50_000}, "three", "values"),
]

CASES = [*(("signature", None),), *INVALID, *COMBINATIONS, *WARNINGS, *DATA_ERRORS, *LAYOUTS, *VALUES]


# --------------------------------------------------------------------------- observations
def describe(value):
    """Type, keys, shape and dtype of a fitted attribute."""
    if isinstance(value, dict):
        return ("dict", tuple(sorted(_plain(k) for k in value)),
                tuple(describe(value[k]) for k in sorted(value, key=_plain)))
    if isinstance(value, str):
        return ("str", value)
    if isinstance(value, np.ndarray):
        return ("ndarray", value.shape, value.dtype.kind)
    if value is None:
        return ("None",)
    if isinstance(value, (bool, np.bool_)):
        return ("bool",)
    if isinstance(value, (int, np.integer)):
        return ("int",)
    if isinstance(value, (float, np.floating)):
        return ("float",)
    return (type(value).__name__,)


def _plain(k):
    return k.item() if isinstance(k, np.generic) else k


ATTRIBUTES = ("classes_", "coef_", "intercept_", "Cs_", "l1_ratios_", "coefs_paths_", "scores_",
              "C_", "l1_ratio_", "n_iter_", "n_features_in_")


def _data(case):
    if case.data == "one-class":
        X, y = binary()
        return X, np.zeros_like(y)
    if case.data == "nan":
        X, y = binary()
        X = X.copy()
        X[3, 1] = np.nan
        return X, y
    if case.data == "continuous":
        X, y = binary()
        return X, y + 0.5 * X[:, 0]
    return DATA[case.data]()


def _topic(message: str) -> str:
    for topic in ("use_legacy_attributes", "'penalty'", "scoring", "l1_ratios", "positional"):
        if topic in message:
            return topic.strip("'")
    return "other"


def _fit(case, cls):
    X, y = _data(case)
    params = dict(case.params)
    if params.get("cv") == "folds":
        params["cv"] = list(StratifiedKFold(3).split(X, y))
    fit = dict(case.fit)
    score_positional = fit.pop("score_positional", False)
    routing = fit.pop("routing", False)
    if params.get("cv") == "groups":
        from sklearn.model_selection import GroupKFold

        params["cv"] = GroupKFold(3)
    if fit.get("groups") == "groups":
        fit["groups"] = np.arange(y.size) % 4
    if routing:
        import sklearn

        with sklearn.config_context(enable_metadata_routing=True):
            model = cls(**params)
            model.fit(X, y, **fit)
            return model, X, y
    if fit.get("sample_weight") == "weights":
        fit["sample_weight"] = np.random.default_rng(0).uniform(0.2, 3.0, y.size)
    model = cls(**params)
    model.fit(X, y, **fit)
    if score_positional:
        model.score(X, y, np.ones(y.size))
    return model, X, y


def outcome(case, cls):
    """``(exception class or None, parameter named in its message, warnings, model, X, y)``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            model, X, y = _fit(case, cls)
            error = None
        except Exception as exc:  # noqa: BLE001 - the class is what is observed
            model = X = y = None
            error = exc
    seen = sorted({(w.category.__name__, _topic(str(w.message))) for w in caught
                   if w.category.__name__ not in OWN_WARNINGS
                   and not w.category.__module__.startswith("linclass")
                   and issubclass(w.category, (FutureWarning, DeprecationWarning, UserWarning))})
    return error, seen, model, X, y


def observe(case, cls) -> dict:
    """The named observations of one case on one library, each a tuple tagged by its kind."""
    if case == ("signature", None):
        params = inspect.signature(cls.__init__).parameters
        names = [p for p in params if p != "self"]
        methods = sorted(m for m in dir(cls) if not m.startswith("_") and callable(getattr(cls, m)))
        return {"signature: parameter order": ("order", tuple(names)),
                **{f"signature: default {p}": ("default", repr(params[p].default)) for p in names},
                **{f"method: {m}": ("method",) for m in methods}}
    error, seen, model, X, y = outcome(case, cls)
    if error is not None:
        changed = [k for k, v in case.params.items() if k not in QUIET or QUIET[k] != v]
        named = any(k in str(error) for k in changed)
        return {f"{case.id}: raises": ("raises", type(error), named),
                f"{case.id}: warnings": ("warnings", seen)}
    out = {f"{case.id}: raises": ("ok",)}
    if case.what == "outcome":
        out[f"{case.id}: warnings"] = ("warnings", seen)
    elif case.what == "layout":
        for name in ATTRIBUTES:
            out[f"{case.id}: {name}"] = describe(getattr(model, name, "<missing>"))
        out[f"{case.id}: predict_proba"] = describe(model.predict_proba(X[:3]))
        out[f"{case.id}: decision_function"] = describe(model.decision_function(X[:3]))
        out[f"{case.id}: score"] = describe(model.score(X, y))
        tight = case.params.get("tol") == TIGHT["tol"] and case.params.get("solver") != "saga"
        if tight and case.params.get("use_legacy_attributes") is False:  # the last axis: dof
            dof = model.coefs_paths_.shape[-1]
            out[f"{case.id}: coefs_paths_ intercept column"] = (
                "close", model.coefs_paths_[..., dof - 1] if model.fit_intercept else np.zeros(1))
    else:
        out[f"{case.id}: Cs_"] = ("close", model.Cs_)
        out[f"{case.id}: C_"] = ("close", np.ravel(model.C_)[:1])
        out[f"{case.id}: l1_ratio_"] = ("close", np.ravel(model.l1_ratio_)[:1])
        out[f"{case.id}: scores_"] = ("close", model.scores_)
        out[f"{case.id}: predict_proba"] = ("close", model.predict_proba(X))
        out[f"{case.id}: predict"] = ("equal", tuple(model.predict(X)))
        out[f"{case.id}: score"] = ("close", np.array(model.score(X, y)))
    return out


#: the agreement asked of values: scikit-learn stops its solvers at their own criteria (saga and
#: liblinear's coordinate descent are the loosest)
ATOL = 2e-4


def agree(ours, ref) -> bool:
    """Whether linclass's observation ``ours`` matches scikit-learn's ``ref``: an exception of
    scikit-learn's class (or a subclass) that names the parameter where scikit-learn's does; the
    parameter order as a prefix (linclass's own parameters come after); values within ``ATOL``;
    everything else equal."""
    if ours[0] != ref[0]:
        return False
    if ref[0] == "raises":
        return issubclass(ours[1], ref[1]) and (ours[2] or not ref[2])
    if ref[0] == "order":
        return ours[1][: len(ref[1])] == ref[1]
    if ref[0] == "close":
        a, b = np.asarray(ours[1], dtype=float), np.asarray(ref[1], dtype=float)
        return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-6, atol=ATOL))
    return ours == ref


#: every behaviour of scikit-learn's that does not hold for linclass, by name, with the reason
DIFFERENCES = {
    "signature: default solver": (
        "linclass's 'auto' (every path is fitted by coordinate descent, which reaches the optimum of "
        "every penalty); scikit-learn's 'lbfgs' would refuse l1_ratios=(1,), as it does when named "
        "(LogisticRegression keeps 'auto' too)"),
    "signature: default tol": (
        "1e-6 on the largest optimality violation per unit of weight (scikit-learn: 1e-4 in each "
        "solver's own criterion), as LogisticRegression's"),
    **{f"signature: default {name}": (
        f"{value}: what scikit-learn 1.9's placeholder 'warn' means, as a value; scikit-learn warns "
        "FutureWarning on every fit that it changes the meaning in 1.10 / 1.11, linclass keeps it "
        "and warns nothing") for name, value in (("l1_ratios", "None"), ("scoring", "None"),
                                                  ("use_legacy_attributes", "True"))},
    **{f"{case}: warnings": (
        "no FutureWarning: linclass's defaults (l1_ratios=None, scoring=None, "
        "use_legacy_attributes=True) are scikit-learn 1.9's meanings kept as values, and "
        "l1_ratios=None is not deprecated") for case in (
            "defaults", "l1_ratios=None", "scoring default", "use_legacy_attributes default",
            "l1_ratios default")},
    "method: set_callbacks": (
        "scikit-learn's LogisticRegressionCV inherits set_callbacks from LogisticRegression, but "
        "its fit reports to no callback; linclass does not accept callbacks it would not call"),
    "method: set_score_request": (
        "scikit-learn's is inherited from LogisticRegression and routes nothing (score's "
        "sample_weight is marked unused for routing, in both libraries)"),
    "Cs=[-1, 1]: raises": (
        "scikit-learn fits a negative C (its penalty then rewards large coefficients); linclass "
        "refuses Cs that are not positive, naming Cs"),
    "values: L1 (saga): scores_": (
        "scikit-learn's saga stops after one epoch where the lasso zeroes every coefficient, its "
        "intercept short of the optimum (on fold 4 at C=0.004 its objective is 62.194, linclass's "
        "62.183); the chosen C, the coefficients and the probabilities agree"),
    "values: elastic net (saga): scores_": (
        "as for L1: saga's early stop at the strong penalties"),
    "values: L2 (liblinear, intercept_scaling=3): predict_proba": (
        "scikit-learn 1.9.1's refit leaves intercept_scaling out (its folds use 3, its refit 1: "
        "its coef_ is LogisticRegression(intercept_scaling=1)'s); linclass refits with the "
        "intercept_scaling given. The folds' scores agree to 1e-8"),
    "values: L2 (liblinear, intercept_scaling=3): score": (
        "the refit's probabilities differ (above)"),
    "values: dual=True (liblinear): scores_": (
        "scikit-learn's dual liblinear stops at its max_iter (10000) unconverged at C=1e4; linclass "
        "solves the primal, whose optimum is the dual's, to tol"),
}


def difference(name: str):
    """The reason why the behaviour ``name`` does not hold for linclass, or None (it must)."""
    return DIFFERENCES.get(name)


def run(verbose: bool = True, only: str = ""):
    """``(held, total, differences)`` over every case (whose id contains ``only``)."""
    sk, lc = sklearn_class(), linclass_class()
    total = held = 0
    differences = []
    for case in CASES:
        if only and (isinstance(case, tuple) or only not in case.id):
            continue
        ref = observe(case, sk)
        try:
            ours = observe(case, lc)
        except Exception as exc:  # noqa: BLE001 - a crash of the observation is a difference
            ours = {k: ("crash", repr(exc)[:200]) for k in ref}
        for name, value in ref.items():
            total += 1
            if name in ours and agree(ours[name], value):
                held += 1
            else:
                differences.append((name, ours.get(name, "<missing>"), value))
    if verbose:
        for name, a, b in differences:
            why = difference(name) or "NOT EXPLAINED"
            print(f"DIFF {name}\n    linclass:     {_short(a)}\n    scikit-learn: {_short(b)}\n"
                  f"    why: {why}")
        print(f"\n{held} of {total} behaviours of scikit-learn's hold for linclass "
              f"({100 * held / total:.1f}%)")
    return held, total, differences


def _short(value):
    text = repr(value)
    return text if len(text) < 300 else text[:300] + "..."


if __name__ == "__main__":
    import sys

    run(only=" ".join(sys.argv[1:]))
