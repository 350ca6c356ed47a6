"""scikit-learn's callback API on LogisticRegression: the fit is a task, each solver iteration a
subtask whose fitted_estimator predicts with that iteration's coefficients, and a callback can stop
the iteration."""

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
    assert len(recorder.iterations) == model.n_iter_[0] > 0
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


def test_a_coordinate_descent_fit_is_one_task():
    X, y = make_data(2)
    recorder = Recorder()
    model = LogisticRegression(penalty="l1", C=0.5).set_callbacks(recorder).fit(X, y)
    assert model.solver_ == "cd"
    assert recorder.events == [("setup", "fit"), ("begin", "fit"), ("end", "fit"), ("teardown", "fit")]
