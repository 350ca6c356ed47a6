"""scikit-learn's callback API on LogisticRegression: the fit is a task, each solver iteration a
subtask whose fitted_estimator predicts with that iteration's coefficients (the fit with max_iter
equal to the iterations done), then one empty subtask, as scikit-learn 1.9's L-BFGS reports them,
for every solver; a callback can stop the iteration.  scikit-learn's own callback tests of its
LogisticRegression run here against linclass's."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from linclass import LogisticRegression, load, save

callback = pytest.importorskip("sklearn.callback")


class Recorder:
    """Records every hook call; stops after ``stop_after`` iterations if given."""

    def __init__(self, stop_after=None):
        self.stop_after = stop_after
        self.events = []
        self.iterations = []  # predict_proba of each iteration's fitted_estimator on the first rows
        self.empty = 0  # subtasks ended without a fitted_estimator (the one after the last iteration)

    def setup(self, estimator, context):
        self.events.append(("setup", context.task_name))

    def teardown(self, estimator, context):
        self.events.append(("teardown", context.task_name))

    def on_fit_task_begin(self, estimator, context, *, X=None, y=None, metadata=None):
        self.events.append(("begin", context.task_name))

    def on_fit_task_end(self, estimator, context, *, X=None, fitted_estimator=None):
        self.events.append(("end", context.task_name))
        if context.parent is None:
            return False
        if fitted_estimator is None:  # the empty subtask after the last iteration
            self.empty += 1
            return False
        # chunked fits (Dask, files) have no rows in memory to hand to the hooks
        self.iterations.append(None if X is None else fitted_estimator.predict_proba(X[:5]))
        return self.stop_after is not None and len(self.iterations) >= self.stop_after


def make_data(k=2, n=300, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    W = rng.normal(size=(d, k))
    y = np.argmax(X @ W + rng.gumbel(size=(n, k)), axis=1)
    return X, y


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("solver", ["newton", "bohning", "lbfgs", "sgd", "newton-cholesky", "liblinear"])
def test_one_subtask_per_iteration_and_the_last_is_the_fit(solver, k):
    if solver == "liblinear" and k > 2:
        pytest.skip("liblinear fits two classes")
    X, y = make_data(k)
    recorder = Recorder()
    model = LogisticRegression(solver=solver, random_state=0, max_iter=200)
    model.set_callbacks(recorder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    kinds = [kind for kind, _ in recorder.events]
    assert kinds[0] == "setup" and kinds[-1] == "teardown"
    assert recorder.events[1] == ("begin", "fit") and recorder.events[-2] == ("end", "fit")
    assert len(recorder.iterations) == model.n_iter_[0] > 0 and recorder.empty == 1
    np.testing.assert_allclose(recorder.iterations[-1], model.predict_proba(X[:5]), rtol=1e-12)
    # the callbacks' state is gone after the fit; the model's answer is that of a model without them
    assert not hasattr(model, "_callback_fit_ctx")
    plain = LogisticRegression(solver=solver, random_state=0, max_iter=200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        plain.fit(X, y)
    np.testing.assert_array_equal(plain.coef_, model.coef_)


def test_each_iteration_is_a_model_that_gets_better():
    X, y = make_data(3, n=500)
    recorder = Recorder()
    model = LogisticRegression(solver="bohning", C=np.inf).set_callbacks(recorder).fit(X, y)
    assert len(recorder.iterations) == model.n_iter_[0] >= 3
    # successive iterations are different models, converging on the fit
    gaps = [np.abs(p - model.predict_proba(X[:5])).max() for p in recorder.iterations]
    assert gaps[0] > gaps[-1] and gaps[-1] < 1e-6


def test_a_callback_stops_the_fit_without_a_convergence_warning():
    X, y = make_data(2)
    recorder = Recorder(stop_after=2)
    model = LogisticRegression(solver="bohning", tol=1e-12, max_iter=100).set_callbacks(recorder)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model.fit(X, y)
    assert model.n_iter_[0] == 2 and len(recorder.iterations) == 2
    assert not model.converged_
    np.testing.assert_allclose(recorder.iterations[-1], model.predict_proba(X[:5]), rtol=1e-12)


def test_firth_and_chunked_fits_report_too():
    X, y = make_data(2)
    recorder = Recorder()
    model = LogisticRegression(penalty="firth").set_callbacks(recorder).fit(X, y)
    assert len(recorder.iterations) == model.n_iter_[0] > 0

    da = pytest.importorskip("dask.array")
    recorder = Recorder()
    model = LogisticRegression(solver="lbfgs").set_callbacks(recorder)
    model.fit(da.from_array(X, chunks=100), da.from_array(y, chunks=100))
    assert len(recorder.iterations) == model.n_iter_[0] > 0


def test_scikit_learns_scoring_monitor_works_unchanged():
    X, y = make_data(3)
    monitor = callback.ScoringMonitor(scoring="neg_log_loss")
    model = LogisticRegression(solver="lbfgs").set_callbacks(monitor).fit(X, y)
    log = monitor.get_logs()
    scores = [row["neg_log_loss"] for row in log.data if row.get("task_name") == "lbfgs-iter"]
    assert len(scores) >= model.n_iter_[0] - 1
    assert scores[-1] == pytest.approx(-np.mean(-np.log(model.predict_proba(X)[np.arange(len(y)), y])),
                                       rel=1e-6)


def test_callbacks_are_checked_and_cloned_like_scikit_learns():
    with pytest.raises(TypeError, match="FitCallback"):
        LogisticRegression().set_callbacks(object())
    recorder = Recorder()
    model = LogisticRegression().set_callbacks(recorder)
    assert clone(model)._skl_callbacks == [recorder]  # by reference, as scikit-learn's clone does
    assert not hasattr(model.set_callbacks(), "_skl_callbacks")


def test_a_model_with_callbacks_saves_without_them(tmp_path):
    X, y = make_data(2)
    model = LogisticRegression().set_callbacks(Recorder()).fit(X, y)
    save(model, tmp_path / "m.linclass")
    loaded = load(tmp_path / "m.linclass")
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert not hasattr(loaded, "_skl_callbacks")


@pytest.mark.parametrize("k", [2, 3])
def test_a_coordinate_descent_fit_reports_its_outer_iterations(k):
    X, y = make_data(k)
    recorder = Recorder()
    model = LogisticRegression(penalty="l1", C=0.5).set_callbacks(recorder).fit(X, y)
    assert model.solver_ == "cd"
    assert recorder.events[:3] == [("setup", "fit"), ("begin", "fit"), ("begin", "cd-iter")]
    assert len(recorder.iterations) == model.n_iter_[0] > 0 and recorder.empty == 1
    np.testing.assert_allclose(recorder.iterations[-1], model.predict_proba(X[:5]), rtol=1e-12)
    stopped = Recorder(stop_after=1)
    model = LogisticRegression(penalty="l1", C=0.5, tol=1e-12).set_callbacks(stopped)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model.fit(X, y)
    assert model.n_iter_[0] == 1 and stopped.empty == 0


# ------------------------------------------------------------- scikit-learn's own callback tests
SKLEARN_TESTS = ("test_logistic_regression_callback_support",
                 "test_logistic_regression_callback_fitted_estimator")


@pytest.fixture(scope="module")
def sklearn_logistic_tests():
    """scikit-learn 1.9's callback tests of its LogisticRegression, their code as it ships
    (sklearn/linear_model/tests/test_logistic.py, without their decorators: importing that module
    needs scikit-learn's own pytest markers), run with linclass's LogisticRegression."""
    import ast
    import types
    from importlib.util import find_spec

    from numpy.testing import assert_allclose
    from sklearn.callback.tests._utils import RecordingCallback
    from sklearn.datasets import make_classification

    spec = find_spec("sklearn.linear_model.tests.test_logistic")
    if spec is None or spec.origin is None:
        pytest.skip("scikit-learn's tests are not installed")
    tree = ast.parse(open(spec.origin, encoding="utf-8").read())
    found = [node for node in tree.body
             if isinstance(node, ast.FunctionDef) and node.name in SKLEARN_TESTS]
    if len(found) != len(SKLEARN_TESTS):
        pytest.skip("this scikit-learn has no callback tests for LogisticRegression")
    for node in found:
        node.decorator_list = []
    namespace = {"LogisticRegression": LogisticRegression, "RecordingCallback": RecordingCallback,
                 "make_classification": make_classification, "assert_allclose": assert_allclose,
                 "np": np, "pytest": pytest}
    exec(compile(ast.Module(body=found, type_ignores=[]), spec.origin, "exec"), namespace)
    return types.SimpleNamespace(**{name: namespace[name] for name in SKLEARN_TESTS})


@pytest.mark.parametrize("max_iter", [0, 2, 1000])
def test_sklearns_callback_support_test_passes(sklearn_logistic_tests, max_iter):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sklearn_logistic_tests.test_logistic_regression_callback_support(max_iter)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_sklearns_callback_fitted_estimator_test_passes(sklearn_logistic_tests, n_classes,
                                                        fit_intercept):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sklearn_logistic_tests.test_logistic_regression_callback_fitted_estimator(n_classes,
                                                                               fit_intercept)


SOLVER_PARAMS = [{"solver": s} for s in ("newton", "bohning", "sgd", "newton-cg",
                                          "newton-cholesky", "sag", "saga", "auto")] + [
    {"solver": "liblinear"}, {"solver": "liblinear", "l1_ratio": 1.0, "C": 0.3},
    {"l1_ratio": 1.0, "C": 0.3}, {"l1_ratio": 0.5, "C": 0.3}, {"penalty": "firth"},
    {"C": np.inf}]


@pytest.mark.parametrize("params", SOLVER_PARAMS, ids=repr)
@pytest.mark.parametrize("max_iter", [0, 2, 100])
def test_every_solver_reports_sklearns_number_of_subtasks(params, max_iter):
    """scikit-learn's count for its L-BFGS (one subtask per iteration, at least one, and one
    empty), with scikit-learn's recording callback, for every solver and penalty."""
    from sklearn.callback.tests._utils import RecordingCallback
    from sklearn.datasets import make_classification

    # scikit-learn's data: two of the four features are combinations of the others, so the
    # unpenalised fit is refitted without them (and Firth's refuses them: two features)
    X, y = make_classification(n_features=4, random_state=0)
    if params.get("penalty") == "firth":
        X = X[:, [0, 3]]
    cb = RecordingCallback()
    model = LogisticRegression(**params, max_iter=max_iter, random_state=0).set_callbacks(cb)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    expected = 1 + max(model.n_iter_[0], 1) + 1
    assert cb.count_hooks("on_fit_task_begin") == cb.count_hooks("on_fit_task_end") == expected
    root = [r["context"] for r in cb.record if r["name"] == "setup"][0]
    assert len(root._children_map) <= root.max_subtasks
    if params.get("solver") in ("newton", "bohning", "sgd", "newton-cholesky", "liblinear"):
        assert root.max_subtasks == max(max_iter, 1) + 1  # scikit-learn's (for its 'lbfgs')


@pytest.mark.parametrize("params", SOLVER_PARAMS, ids=repr)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_every_solvers_iterations_are_its_fits_with_that_max_iter(params, n_classes):
    """scikit-learn's test of the fitted_estimator, for every solver: a subtask begun after i
    iterations holds the fit with max_iter=i, ended after i + 1 the fit with max_iter=i + 1; the
    last subtask is empty."""
    from sklearn.callback.tests._utils import RecordingCallback
    from sklearn.datasets import make_classification

    if params.get("solver") == "liblinear" and n_classes > 2:
        pytest.skip("liblinear fits two classes")
    X, y = make_classification(n_features=4, n_informative=4, n_redundant=0, n_classes=n_classes,
                               random_state=0)
    params = {**params, "random_state": 0}
    cb = RecordingCallback()
    model = LogisticRegression(**params).set_callbacks(cb).fit(X, y)
    n_iter = model.n_iter_[0]
    begins = [r for r in cb.record if r["name"] == "on_fit_task_begin" and "iter" in
              r["context"].task_name]
    ends = [r for r in cb.record if r["name"] == "on_fit_task_end" and "iter" in
            r["context"].task_name]
    assert len(begins) == len(ends) == n_iter + 1
    for i, (begin, end) in enumerate(zip(begins, ends)):
        assert begin["context"].task_id == end["context"].task_id == i
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            for est, at in ((begin["kwargs"]["fitted_estimator"], i),
                            (end["kwargs"]["fitted_estimator"], i + 1)):
                if at == 0 or (est is end["kwargs"]["fitted_estimator"] and i == n_iter):
                    continue
                expected = LogisticRegression(**params, max_iter=at).fit(X, y)
                np.testing.assert_allclose(est.coef_, expected.coef_, rtol=1e-7)
                np.testing.assert_allclose(est.intercept_, expected.intercept_, rtol=1e-7)
                np.testing.assert_array_equal(est.predict(X), expected.predict(X))
    assert ends[-1]["kwargs"]["fitted_estimator"] is None
