"""scikit-learn 1.9's documented behaviours of LogisticRegression, as cases run against both libraries.

Each :class:`Case` builds the estimator with the same arguments in both, runs one action (a fit, a
fit then predict, a ``set_callbacks``) and :func:`observe` records what happened: the exception
(class and message), the warnings (class and message), and the fitted attributes' shapes and
dtypes.  :func:`facts` turns scikit-learn's observation into the facts that hold for it (this
exception class, a message naming these parameters, a warning of this class, coef_ of this shape
and dtype, the same probabilities); :func:`check` says which hold for linclass.
``tests/test_dropin_logistic_contract.py`` asserts them case by case, and

    python tests/dropin/logistic_behaviours.py

prints the count, with every fact that does not hold and the reason it does not
(:data:`DIFFERENCES`, chosen by :func:`difference`).
"""

from __future__ import annotations

import inspect
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_iris, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

__all__ = ["CASES", "DIFFERENCES", "Case", "check", "difference", "facts", "observe",
           "signature_facts"]


# ---------------------------------------------------------------------------------------- data
def binary():
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X)[:, :10], y


def three():
    return make_classification(300, n_features=5, n_informative=3, n_redundant=0, n_classes=3,
                               flip_y=0.1, random_state=0)


def iris():
    return load_iris(return_X_y=True)


def sparse_binary():
    X, y = binary()
    return sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X)), y


def sparse_three():
    X, y = three()
    return sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X)), y


def one_class():
    X, y = binary()
    return X, np.zeros_like(y)


def huge():
    X, y = binary()
    X = X.copy()
    X[0, 0] = 1e31
    return X, y


def strings():
    X, y = three()
    return X, np.array(["a", "b", "c"])[y]


DATA = {"binary": binary, "three": three, "iris": iris, "sparse_binary": sparse_binary,
        "sparse_three": sparse_three, "one_class": one_class, "huge": huge, "strings": strings}


# ---------------------------------------------------------------------------------------- actions
def fit(est, X, y, **kw):
    return est.fit(X, y, **kw)


def fit_weighted(est, X, y):
    w = np.random.default_rng(0).uniform(0.5, 2.0, size=len(y))
    return est.fit(X, y, sample_weight=w)


def fit_negative_weights(est, X, y):
    w = np.ones(len(y))
    w[0] = -1.0
    return est.fit(X, y, sample_weight=w)


def refit_fewer_features(est, X, y):
    est.fit(X, y)
    return est.fit(X[:, :-1], y), X[:, :-1]


def refit_twice(est, X, y):
    est.fit(X, y)
    return est.fit(X, y)


def predict_unfitted(est, X, y):
    return est.predict(X)


def set_callbacks(est, X, y):
    from sklearn.callback.tests._utils import RecordingCallback

    return est.set_callbacks(RecordingCallback())


def fit_recorded(est, X, y):
    """Fit with scikit-learn's recording callback; the task tree as its LogisticRegression tests
    read it (sklearn/linear_model/tests/test_logistic.py), each property a bool."""
    from numpy.testing import assert_allclose
    from sklearn.callback.tests._utils import RecordingCallback

    cb = RecordingCallback()
    est.set_callbacks(cb)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # 'callbacks for lbfgs only' (other solvers)
        est.fit(X, y)
    n_iter = int(est.n_iter_[0])
    root = next(r["context"] for r in cb.record if r["name"] == "setup")
    subtasks = [r for r in cb.record if r["context"] is not root and "kwargs" in r]
    begins = [r for r in subtasks if r["name"] == "on_fit_task_begin"]
    ends = [r for r in subtasks if r["name"] == "on_fit_task_end"]
    params = est.get_params()
    expected = 1 + max(n_iter, 1) + 1
    same = True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, (begin, end) in enumerate(zip(begins, ends)):
            for fitted, at in ((begin["kwargs"]["fitted_estimator"], i),
                               (end["kwargs"]["fitted_estimator"], i + 1)):
                if at == 0 or at > n_iter or params["max_iter"] < 100:
                    continue
                reference = type(est)(**{**params, "max_iter": at}).fit(X, y)
                try:
                    assert_allclose(fitted.coef_, reference.coef_)
                    assert_allclose(fitted.intercept_, reference.intercept_)
                except (AssertionError, AttributeError):
                    same = False
    extras = {
        "callbacks: begin and end hooks 1 + max(n_iter_, 1) + 1":
            cb.count_hooks("on_fit_task_begin") == cb.count_hooks("on_fit_task_end") == expected,
        "callbacks: root max_subtasks max(max_iter, 1) + 1":
            root.max_subtasks == max(params["max_iter"], 1) + 1,
        "callbacks: subtasks 0, 1, ... named '*-iter'":
            [r["context"].task_id for r in begins] == list(range(len(begins)))
            and all("iter" in r["context"].task_name for r in begins),
        "callbacks: the last subtask ends without fitted_estimator, the others with one":
            bool(ends) and ends[-1]["kwargs"]["fitted_estimator"] is None
            and all(r["kwargs"]["fitted_estimator"] is not None for r in ends[:-1]),
        "callbacks: subtask i's fitted_estimator is the fit with max_iter=i": same,
    }
    return est, X, extras


def dataframe_fit(est, X, y):
    pd = __import__("pandas")
    return est.fit(pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])]), y)


@dataclass
class Case:
    """One behaviour: ``params`` for both constructors, ``data`` (a key of :data:`DATA`), the
    ``action`` and the ``names`` a message about it should name (those of scikit-learn's message
    count)."""

    group: str
    params: dict
    data: str = "binary"
    action: Callable = fit
    names: tuple = ()
    proba: float | None = None  # compare predict_proba to this absolute tolerance
    tight: bool = False  # both fitted to tol=1e-10 (probabilities then agree to about 1e-6)

    @property
    def id(self) -> str:
        extra = "" if self.action is fit else f"-{self.action.__name__}"
        return f"{self.group}-{self.data}-{self.params!r}{extra}"


# ---------------------------------------------------------------------------------------- cases
SOLVERS = ("lbfgs", "newton-cg", "newton-cholesky", "sag", "saga", "liblinear")
SMOOTH = ("lbfgs", "newton-cg", "newton-cholesky", "sag")


def _cases():
    out = []
    add = out.append
    # invalid values of each parameter: InvalidParameterError (a ValueError) naming it
    invalid = {
        "C": [-1.0, 0.0, "a"], "tol": [-1.0, "a"], "l1_ratio": [-0.1, 1.5, "a"],
        "dual": ["yes", 2], "fit_intercept": ["no"], "intercept_scaling": [0.0, -1.0, "a"],
        "class_weight": ["bal", [1.0, 2.0]], "random_state": ["x"], "solver": ["foo", "LBFGS"],
        "penalty": ["l3", "none", "L2"], "max_iter": [-1, 1.5, "a"], "verbose": ["x", -1.0],
        "warm_start": ["x"], "n_jobs": ["x", 1.5],
    }
    for name, values in invalid.items():
        for value in values:
            add(Case("invalid", {name: value}, names=(name,)))
    # penalty / solver / l1_ratio / dual combinations
    for solver in SMOOTH:
        for extra in ({"penalty": "l1"}, {"penalty": "elasticnet", "l1_ratio": 0.5},
                      {"l1_ratio": 1.0}, {"l1_ratio": 0.5}, {"dual": True}):
            add(Case("combination", {"solver": solver, **extra},
                     names=("solver",) + tuple(k for k in extra if k != "l1_ratio")))
    for extra in ({"penalty": "elasticnet", "l1_ratio": 0.5}, {"l1_ratio": 0.5},
                  {"penalty": None}, {"C": np.inf}, {"penalty": "l1", "dual": True},
                  {"l1_ratio": 1.0, "dual": True}):
        add(Case("combination", {"solver": "liblinear", **extra}, names=("solver",)))
    add(Case("combination", {"solver": "saga", "dual": True}, names=("solver", "dual")))
    add(Case("combination", {"penalty": "elasticnet", "l1_ratio": None, "solver": "saga"},
             names=("l1_ratio",)))
    add(Case("combination", {"solver": "liblinear"}, data="three", names=("liblinear",)))
    add(Case("combination", {"solver": "liblinear", "fit_intercept": False}, data="three",
             names=("liblinear",)))
    add(Case("combination", {"solver": "liblinear"}, data="huge", names=("liblinear",)))
    for solver in SOLVERS:
        add(Case("combination", {"solver": solver}, data="one_class", names=("class",)))
    # what fits, with the warnings scikit-learn gives
    warn_cases = [
        {"penalty": "l2"}, {"penalty": "l1", "solver": "saga"}, {"penalty": None},
        {"penalty": "elasticnet", "l1_ratio": 0.5, "solver": "saga"},
        {"l1_ratio": None}, {"n_jobs": 2}, {"n_jobs": 1},
        {"penalty": "l1", "l1_ratio": 0.5, "solver": "saga"},
        {"penalty": "l2", "l1_ratio": 1.0}, {"penalty": "l2", "l1_ratio": 0.5},
        {"penalty": None, "C": 0.5}, {"penalty": None, "C": np.inf},
        {"penalty": None, "l1_ratio": 0.5}, {"penalty": "l1", "solver": "liblinear"},
        {"penalty": "l1", "l1_ratio": 1.0, "solver": "liblinear"},
        {"l1_ratio": 1.0, "solver": "liblinear"}, {"l1_ratio": 1.0, "solver": "saga"},
        {"l1_ratio": 0.5, "solver": "saga"}, {"C": np.inf},
        {"penalty": "deprecated"},
    ]
    for params in warn_cases:
        add(Case("warnings", params))
    for solver in SOLVERS:
        add(Case("convergence", {"solver": solver, "max_iter": 1}))
        add(Case("convergence", {"solver": solver, "max_iter": 0}))
    add(Case("callbacks", {"solver": "lbfgs"}, action=set_callbacks))
    for solver in SOLVERS[1:]:
        add(Case("callbacks", {"solver": solver}, action=set_callbacks))
    for data in ("binary", "three"):  # scikit-learn 1.9 reports its 'lbfgs' iterations only
        for max_iter in (0, 2, 100):
            add(Case("callbacks", {"solver": "lbfgs", "max_iter": max_iter}, data=data,
                     action=fit_recorded))
        add(Case("callbacks", {"solver": "lbfgs", "fit_intercept": False}, data=data,
                 action=fit_recorded))
    # fitted attributes: shapes, dtypes, probabilities
    for data in ("binary", "three", "sparse_binary", "sparse_three", "strings", "iris"):
        for solver in SOLVERS:
            if solver == "liblinear" and data in ("three", "sparse_three", "strings", "iris"):
                continue
            add(Case("attributes", {"solver": solver}, data=data, proba=1e-6, tight=True))
    for params in ({"fit_intercept": False}, {"class_weight": "balanced"},
                   {"class_weight": "balanced", "solver": "liblinear"},
                   {"fit_intercept": False, "solver": "liblinear"},
                   {"warm_start": True}, {"C": 0.01}, {"C": 100.0},
                   {"solver": "liblinear", "intercept_scaling": 5.0},
                   {"solver": "liblinear", "dual": True},
                   {"l1_ratio": 1.0, "solver": "saga"}, {"l1_ratio": 0.5, "solver": "saga"},
                   {"l1_ratio": 1.0, "solver": "liblinear"},
                   {"l1_ratio": 1.0, "solver": "liblinear", "C": 0.1},
                   {"l1_ratio": 1.0, "solver": "liblinear", "intercept_scaling": 10.0},
                   {"l1_ratio": 1.0, "solver": "liblinear", "fit_intercept": False}):
        for data in ("binary", "three"):
            if params.get("solver") == "liblinear" and data == "three":
                continue
            add(Case("attributes", params, data=data, proba=1e-6, tight=True))
    for params in ({}, {"solver": "liblinear"}, {"solver": "saga"}):
        add(Case("attributes", params, action=fit_weighted, proba=1e-6, tight=True))
        add(Case("attributes", params, data="three" if params.get("solver") != "liblinear"
                 else "binary", action=fit_negative_weights))
    add(Case("attributes", {"warm_start": True}, action=refit_fewer_features))
    add(Case("attributes", {"warm_start": True}, action=refit_twice, proba=1e-6, tight=True))
    add(Case("attributes", {"warm_start": True, "solver": "saga"}, action=refit_twice))
    add(Case("attributes", {"class_weight": {0: 2.0, 7: 1.0}}, names=("class_weight",)))
    add(Case("attributes", {}, action=predict_unfitted))
    add(Case("attributes", {}, action=dataframe_fit))
    return out


CASES = _cases()

#: the deliberate differences: why a fact of scikit-learn's does not hold for linclass
DIFFERENCES = {
    "penalty": "linclass keeps `penalty` (for 'firth', and the named penalties with it), which "
               "scikit-learn 1.8 deprecates: no FutureWarning when it is set",
    "l1-default-ratio": "penalty='l1' with the default l1_ratio=0 is not inconsistent in linclass, "
                        "which keeps `penalty`: scikit-learn's 'Inconsistent values' UserWarning "
                        "is about the deprecation",
    "stochastic": "scikit-learn's 'sag' / 'saga' stopped short of the optimum (ConvergenceWarning, "
                  "probabilities off by 1e-4); linclass's deterministic solvers reach it",
    "callbacks": "linclass reports callbacks for every solver: no 'only supported for lbfgs' "
                 "UserWarning",
    "negative-weights": "linclass's sample weights are frequencies, refused when negative (the "
                        "objective is then not convex); scikit-learn fits them",
    "warm-start-shape": "warm_start with other features or classes starts afresh in linclass (its "
                        "documented rule); scikit-learn raises ValueError",
    "liblinear-intercept": "without an intercept scikit-learn's liblinear stores intercept_ = 0.0, "
                           "a float; linclass an array of shape (1,), as every other solver",
    "default-penalty": "penalty's default is 'auto' (scikit-learn's spelling 'deprecated' is "
                       "accepted and means the same)",
    "default-tol": "tol=1e-6 (scikit-learn 1e-4, in each solver's own criterion): linclass stops "
                   "on the largest gradient entry of the mean objective and its default reaches the "
                   "optimum to about 1e-8 in the log-loss",
    "default-solver": "solver='auto' picks the linclass solver that reaches the same optimum "
                      "fastest; 'lbfgs' is accepted",
}


def difference(case: Case | None, text: str) -> str | None:
    """The key of :data:`DIFFERENCES` that explains why fact ``text`` of ``case`` does not hold
    for linclass (None: it must hold).  ``case`` None: a signature fact."""
    if case is None:
        for name in ("penalty", "tol", "solver"):
            if text.startswith(f"signature: {name} defaults"):
                return f"default-{name}"
        return None
    params = case.params
    solver = params.get("solver", "lbfgs")
    if text == "warns FutureWarning" and params.get("penalty", "deprecated") != "deprecated":
        return "penalty"
    if (text == "warns UserWarning" and params.get("penalty") == "l1"
            and params.get("l1_ratio", 0.0) in (0.0, 1.0)):
        return "l1-default-ratio"
    if case.group == "callbacks" and text == "warns UserWarning" and solver != "lbfgs":
        return "callbacks"
    if solver in ("sag", "saga") and case.group != "convergence" and (
            text == "warns ConvergenceWarning" or text.startswith("predict_proba")):
        return "stochastic"
    if case.action is fit_negative_weights:
        return "negative-weights"
    if case.action is refit_fewer_features:
        return "warm-start-shape"
    if solver == "liblinear" and not params.get("fit_intercept", True) \
            and text.startswith("intercept_"):
        return "liblinear-intercept"
    return None


# ---------------------------------------------------------------------------------------- observing
@dataclass
class Observation:
    error: BaseException | None = None
    warnings: list = field(default_factory=list)  # (category, message)
    attributes: dict = field(default_factory=dict)  # name -> (shape, dtype) or value
    proba: Any = None


ATTRIBUTES = ("coef_", "intercept_", "n_iter_", "classes_", "n_features_in_", "feature_names_in_")


def observe(cls, case: Case) -> Observation:
    X, y = DATA[case.data]()
    params = dict(case.params)
    if case.tight:
        params.setdefault("tol", 1e-10)
        params.setdefault("max_iter", 10_000)
    out = Observation()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            est = cls(**params)
            result = case.action(est, X, y)
            extras = {}
            if isinstance(result, tuple):  # an action that changed the data, or said more
                result, X, *more = result
                extras = more[0] if more else {}
        except Exception as exc:  # the behaviour observed
            out.error = exc
            result = None
    out.warnings = [(w.category, str(w.message)) for w in caught]
    if out.error is None and result is est and hasattr(est, "coef_"):
        for name in ATTRIBUTES:
            if hasattr(est, name):
                value = getattr(est, name)
                if isinstance(value, np.ndarray):
                    out.attributes[name] = (value.shape, value.dtype.str)
                else:
                    out.attributes[name] = (type(value).__name__, value)
        Xt = X[:50]
        out.attributes["predict"] = (est.predict(Xt).shape, est.predict(Xt).dtype.kind)
        out.attributes["decision_function"] = est.decision_function(Xt).shape
        out.attributes.update(extras)
        out.proba = est.predict_proba(Xt)
    return out


def _has_warning(observation: Observation, category, others=()) -> bool:
    """Whether ``observation`` holds a warning of ``category`` (a subclass counts, unless it is
    one of ``others``, the other categories the reference gave: ConvergenceWarning is a
    UserWarning)."""
    return any(issubclass(c, category) and (c is category or c not in others)
               for c, _ in observation.warnings)


def facts(case: Case, ref: Observation) -> list[tuple[str, Callable[[Observation], bool]]]:
    """What holds for scikit-learn in ``case``, each as ``(text, holds(observation))``."""
    out = []
    if ref.error is not None:
        kind = type(ref.error)
        out.append((f"raises {kind.__name__}", lambda o, k=kind: isinstance(o.error, k)))
        message = str(ref.error)
        for name in case.names:
            if name in message:
                out.append((f"its message names {name!r}",
                            lambda o, n=name: o.error is not None and n in str(o.error)))
    else:
        out.append(("succeeds", lambda o: o.error is None))
    categories = {c for c, _ in ref.warnings}
    for category in sorted(categories, key=lambda c: c.__name__):
        out.append((f"warns {category.__name__}",
                    lambda o, c=category: _has_warning(o, c, tuple(categories - {c}))))
    for name, value in ref.attributes.items():
        if name == "n_iter_" and isinstance(value, tuple):  # the values differ by solver
            out.append((f"{name} shape {value[0]} dtype {value[1]}",
                        lambda o, v=value: o.attributes.get("n_iter_") == v))
        else:
            out.append((f"{name} is {value}", lambda o, n=name, v=value: _same(o.attributes.get(n), v)))
    if case.proba is not None and ref.proba is not None:
        out.append((f"predict_proba within {case.proba:g}",
                    lambda o, p=ref.proba, t=case.proba: o.proba is not None
                    and o.proba.shape == p.shape and float(np.abs(o.proba - p).max()) <= t))
    return out


def _same(a, b) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) == 2 \
            and isinstance(a[1], np.ndarray):
        return a[0] == b[0] and np.array_equal(a[1], b[1])
    try:
        return bool(np.all(a == b)) if not isinstance(a, tuple) else a == b
    except Exception:
        return False


def signature_facts(ours, ref) -> list[tuple[str, bool]]:
    """Every scikit-learn parameter is one of ours, with its default."""
    out = []
    mine = inspect.signature(ours.__init__).parameters
    for name, p in inspect.signature(ref.__init__).parameters.items():
        if name == "self":
            continue
        out.append((f"signature: has {name}", name in mine))
        if name in mine:
            a, b = mine[name].default, p.default
            out.append((f"signature: {name} defaults to {b!r} (ours {a!r})",
                        a == b and type(a) is type(b) or (isinstance(a, float) and a == b)))
    return out


def check(cls_ours, cls_ref, case: Case):
    """``[(text, holds)]`` for one case, and the two observations."""
    ref = observe(cls_ref, case)
    ours = observe(cls_ours, case)
    return [(text, bool(holds(ours))) for text, holds in facts(case, ref)], ours, ref


def main() -> None:  # pragma: no cover - a report
    import sys

    from sklearn.linear_model import LogisticRegression as Reference

    from linclass import LogisticRegression as Ours

    verbose = "-v" in sys.argv
    total = held = 0
    groups: dict[str, list[int]] = {}
    explained: dict[str, int] = {}
    for text, ok in signature_facts(Ours, Reference):
        total += 1
        held += ok
        groups.setdefault("signature", [0, 0])
        groups["signature"][0] += ok
        groups["signature"][1] += 1
        if not ok:
            why = difference(None, text)
            explained[why] = explained.get(why, 0) + 1
            print(f"NO  {text}  [{why}]")
    for case in CASES:
        results, ours, ref = check(Ours, Reference, case)
        g = groups.setdefault(case.group, [0, 0])
        for text, ok in results:
            total += 1
            held += ok
            g[0] += ok
            g[1] += 1
            if not ok:
                detail = ""
                if text.startswith(("raises", "succeeds", "its message")):
                    detail = f" | ours: {type(ours.error).__name__ if ours.error else 'ok'}: " \
                             f"{str(ours.error)[:150] if ours.error else ''} | ref: " \
                             f"{str(ref.error)[:150] if ref.error else ''}"
                elif text.startswith("warns"):
                    detail = f" | ours: {[(c.__name__, m[:80]) for c, m in ours.warnings]}"
                elif text.startswith("predict_proba") and ours.proba is not None:
                    detail = f" | max diff {np.abs(ours.proba - ref.proba).max():.3g}"
                else:
                    name = text.split()[0]
                    detail = f" | ours: {ours.attributes.get(name)}"
                why = difference(case, text)
                explained[why] = explained.get(why, 0) + 1
                print(f"NO  {case.id}: {text}{detail}  [{why}]")
            elif verbose:
                print(f"ok  {case.id}: {text}")
    for name, (a, b) in groups.items():
        print(f"{name:12s} {a:4d} / {b:4d}")
    print(f"agreement: {held} of {total} facts ({100 * held / total:.1f}%)")
    for why, count in sorted(explained.items(), key=lambda kv: str(kv[0])):
        print(f"  {count:3d} not held: {why}: {DIFFERENCES.get(why, 'UNEXPLAINED')}")


if __name__ == "__main__":  # pragma: no cover
    main()
