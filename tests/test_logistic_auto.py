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
    assert len(model.loss_curve_) == model.n_iter_ + 1 and model.n_iter_ > 100  # 100 + Newton's
    assert np.all(np.diff(model.loss_curve_) <= 1e-12)  # never uphill
    lbfgs = LogisticRegression(solver="lbfgs")
    with pytest.warns(ConvergenceWarning):
        lbfgs.fit(X, y)  # the first choice alone stops short
    newton = LogisticRegression(solver="newton", tol=1e-10).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), newton.predict_proba(X), atol=1e-5)
    assert not any("did not converge" in note for note in model.summary().notes)


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
