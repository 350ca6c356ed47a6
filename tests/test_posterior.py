"""Scores to posteriors in log space."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.special import logsumexp, softmax

from linclass.core.posterior import log_posterior, posterior

scores = arrays(
    np.float64,
    st.tuples(st.integers(1, 20), st.integers(2, 6)),
    elements=st.floats(-1e6, 1e6, allow_nan=False),
)


@settings(max_examples=60, deadline=None)
@given(scores)
def test_matches_scipy(s):
    np.testing.assert_allclose(log_posterior(s), s - logsumexp(s, axis=1, keepdims=True), atol=1e-9)
    np.testing.assert_allclose(posterior(s), softmax(s, axis=1), atol=1e-12)
    np.testing.assert_allclose(posterior(s).sum(axis=1), 1.0)


def test_extreme_margins_stay_finite():
    s = np.array([[0.0, -1e300], [1e300, -1e300], [-5e3, -5e3 - 1e3]])
    lp = log_posterior(s)
    assert np.all(np.isfinite(lp))
    np.testing.assert_allclose(lp[:, 0], [0.0, 0.0, 0.0])
    np.testing.assert_allclose(lp[2, 1], -1e3)


def test_minus_infinity_marks_an_impossible_class():
    p = posterior(np.array([[0.0, -np.inf, 1.0]]))
    assert p[0, 1] == 0.0
    np.testing.assert_allclose(p[0, [0, 2]], softmax([0.0, 1.0]))


def test_overflowed_scores_are_an_error_not_nan():
    with pytest.raises(ValueError, match="overflowed for 1 sample"):
        log_posterior(np.array([[0.0, 1.0], [-np.inf, -np.inf]]))
