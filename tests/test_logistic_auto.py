"""'auto' converges where its first choice does not (finding 6: the default logistic model did not
converge on the bundled digits inside ``compare``): an L-BFGS run that stops at max_iter goes on with
Newton when the model has at most 2000 parameters, in memory and chunk by chunk."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning

from linclass import LogisticRegression


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    keep = y < 5
    return X[keep][::2], y[keep][::2]  # 451 rows, 5 classes, 64 unscaled pixel counts: 325 parameters


def test_auto_finishes_an_unconverged_lbfgs_with_newton(digits):
    X, y = digits
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = LogisticRegression().fit(X, y)
    assert model.solver_ == "lbfgs+newton" and model.converged_
    # handed over once L-BFGS's rate predicts more work than Newton's (HandOver), long before 100
    assert len(model.loss_curve_) == model.n_iter_ + 1 and model.n_iter_ < 60
    assert np.all(np.diff(model.loss_curve_) <= 1e-12)  # never uphill
    lbfgs = LogisticRegression(solver="lbfgs")
    with pytest.warns(ConvergenceWarning):
        lbfgs.fit(X, y)  # the first choice alone stops short
    newton = LogisticRegression(solver="newton", tol=1e-10).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), newton.predict_proba(X), atol=1e-5)
    assert not any("did not converge" in note for note in model.summary().notes)


def test_auto_hands_an_ill_conditioned_lbfgs_fit_to_newton_early(digits):
    """Raw pixel counts, tol 1e-9: L-BFGS alone needs hundreds of iterations (939 on all ten
    digits), Newton about a dozen; 'auto' hands over within a few windows and ends at the
    optimum."""
    X, y = digits
    model = LogisticRegression(tol=1e-9, max_iter=1000).fit(X, y)
    assert model.solver_ == "lbfgs+newton" and model.converged_ and model.n_iter_[0] < 60
    newton = LogisticRegression(solver="newton", tol=1e-12).fit(X, y)
    np.testing.assert_allclose(model.coef_, newton.coef_, rtol=0, atol=1e-7)


def test_auto_leaves_a_well_conditioned_lbfgs_fit_alone():
    """All of the standardised digits at the default tol: L-BFGS converges in 31 iterations,
    and 'auto' returns exactly what solver='lbfgs' does."""
    X, y = load_digits(return_X_y=True)
    X = (X - X.mean(axis=0)) / np.maximum(X.std(axis=0), 1e-12)
    auto = LogisticRegression().fit(X, y)
    lbfgs = LogisticRegression(solver="lbfgs").fit(X, y)
    assert auto.solver_ == "lbfgs" and auto.n_iter_ == lbfgs.n_iter_
    np.testing.assert_array_equal(auto.coef_, lbfgs.coef_)


def test_hand_over_rule():
    """HandOver: never within the first window or once at tol; a stall hands over at once after
    it; a linear rate hands over exactly when the iterations it predicts to tol cost more than
    Newton's."""
    from linclass.linear.fitting.choice import _NEWTON_AFTER, _WINDOW, HandOver

    class Shape:  # the objective's shape is all the cost model reads
        shape, n_classes, n_params = (11, 1), 2, 11

    rule = HandOver(Shape(), 1000, tol=1e-8)
    assert not any(rule(1e-2) for _ in range(_WINDOW))  # a stall, but within the first window
    assert rule(1e-2)  # the stall measured over a whole window
    fast = HandOver(Shape(), 1000, tol=1e-8)
    # from 1, the rate (decades per iteration) at which the 8 - rate * window decades left cost
    # as much as _NEWTON_AFTER Newton iterations, at the window's end
    rate = 8.0 / (_WINDOW + _NEWTON_AFTER * fast.ratio)
    answers = [fast(10.0 ** (-1.5 * rate * k)) for k in range(_WINDOW + 1)]
    assert not any(answers)  # faster than break-even: L-BFGS goes on
    slow = HandOver(Shape(), 1000, tol=1e-8)
    answers = [slow(10.0 ** (-0.5 * rate * k)) for k in range(_WINDOW + 1)]
    assert answers[-1] and not any(answers[:-1])
    done = HandOver(Shape(), 1000, tol=1e-2)
    assert not any(done(1e-3) for _ in range(3 * _WINDOW))  # at tol: nothing to hand over


def test_an_explicit_solver_is_left_alone(digits):
    X, y = digits
    with pytest.warns(ConvergenceWarning, match="solver='lbfgs'"):
        model = LogisticRegression(solver="lbfgs").fit(X, y)
    assert model.solver_ == "lbfgs" and not model.converged_ and model.n_iter_ == 100


@pytest.mark.slow
def test_auto_finishes_with_newton_chunk_by_chunk(digits, tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    from linclass.sources.chunks import fit_chunked
    from linclass.sources.files import FileSource

    X, y = digits
    frame = pd.DataFrame(X, columns=[f"p{j}" for j in range(64)])
    frame["digit"] = y
    frame.to_parquet(tmp_path / "digits.parquet", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = fit_chunked(LogisticRegression(), FileSource(tmp_path / "digits.parquet", "digit", 150))
    assert model.solver_ == "lbfgs+newton" and model.converged_
    memory = LogisticRegression().fit(frame.drop(columns="digit"), y)
    np.testing.assert_allclose(model.predict_proba(frame.drop(columns="digit")),
                               memory.predict_proba(frame.drop(columns="digit")), atol=1e-5)
