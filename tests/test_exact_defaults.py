"""Default settings reach the maximum-likelihood estimate to what R prints (issue 41, finding 4):
coefficients and standard errors within 1e-9 (relative) of R's glm at epsilon = 1e-14 (two classes)
and of an exact Newton fit in R (several classes), the standard errors at the estimate itself;
and the separation check of an unpenalised fit runs its linear programme only when the fit cannot
prove overlap itself (finding 8).  R's numbers: tests/data/r/exact/exact.R."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import linclass
from linclass import LogisticRegression
from linclass.exceptions import SeparationWarning
from linclass.linear.logistic import separation as separation_module

DATA = Path(__file__).parent / "data" / "r" / "exact"
REFERENCE = pd.read_csv(DATA / "reference.csv", keep_default_na=False)
RTOL = 1e-9


def design(case):
    frame = pd.read_csv(DATA / f"{case}.data.csv")
    w = frame.pop("w").to_numpy(float) if "w" in frame else None
    y = frame.pop("y").to_numpy()
    return frame.to_numpy(float), y, w


def satellite():
    frame = pd.read_csv(DATA / "satellite.csv.gz")
    levels = pd.read_csv(DATA / "satellite_levels.csv")["level"].tolist()
    y = pd.Categorical(frame.pop("classes"), categories=levels).codes  # R's order: 0 = reference
    return frame.to_numpy(float), np.asarray(y, dtype=np.int64)


def reference(case):
    return REFERENCE[REFERENCE.case == case]


def assert_table(summary, ref, rtol=RTOL):
    """The summary's estimates and standard errors (equations as columns) against R's, in R's
    order (per equation, its intercept first)."""
    params = np.asarray(summary.params).ravel(order="F")
    bse = np.asarray(summary.bse).ravel(order="F")
    np.testing.assert_allclose(params, ref.estimate.to_numpy(), rtol=rtol, atol=0)
    np.testing.assert_allclose(bse, ref.se.to_numpy(), rtol=rtol, atol=0)


@pytest.mark.parametrize("case", ["pima", "birthwt", "infert", "spector"])
@pytest.mark.parametrize("unpenalised", [{"penalty": None}, {"C": np.inf}])
def test_binary_defaults_match_glm(case, unpenalised):
    """Pima.tr's coefficients were 5.2e-7 from glm's (the final Newton step was skipped as
    'below the objective's rounding'); spector's standard errors 1.5e-6 (the Hessian one step
    before the estimate)."""
    X, y, w = design(case)
    ref = reference(case)
    model = LogisticRegression(**unpenalised).fit(X, y, sample_weight=w)
    assert model.converged_ and model.separation_ is None
    np.testing.assert_allclose(np.r_[model.intercept_, model.coef_.ravel()],
                               ref.estimate.to_numpy(), rtol=RTOL, atol=0)
    assert_table(model.summary(), ref)
    assert model.log_likelihood_ == pytest.approx(ref.loglik.iloc[0], rel=1e-12)


def test_formula_default_matches_glm():
    """``from_formula('type ~ .', Pima.tr)`` is R's ``glm(type ~ ., binomial, Pima.tr)``."""
    pima = pd.read_csv(DATA / "pima_tr.csv")
    model = linclass.from_formula("type ~ .", pima)
    assert_table(model.summary(), reference("pima"))


def test_softmax_default_matches_r_weighted():
    """MASS's housing (Sat ~ Infl + Type + Cont, frequency weights): standard errors were 3.4e-8
    from those at the estimate."""
    X, y, w = design("housing")
    model = LogisticRegression(penalty=None).fit(X, y, sample_weight=w)
    assert_table(model.summary(), reference("housing"))


def test_satellite_default_exact_and_overlap_without_linear_programme(monkeypatch):
    """mlbench's Satellite: 6 classes, some rows fitted with probability 1 - 1e-10 or closer, yet
    not separated.  The fit proves the overlap from its own estimate (Stiemke's weights), so the
    linear programme, 3.1 of the fit's 3.2 s, is not run; the estimate is R's to 1e-9."""
    X, y = satellite()

    def refuse(*args, **kwargs):
        raise AssertionError("the separation linear programme ran")

    monkeypatch.setattr(separation_module, "separation", refuse)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SeparationWarning)
        model = LogisticRegression(penalty=None).fit(X, y)
    assert model.converged_ and model.separation_ is None
    ref = reference("satellite")
    assert_table(model.summary(), ref)
    assert model.log_likelihood_ == pytest.approx(ref.loglik.iloc[0], rel=1e-12)


def test_certificate_refuses_separated_softmax():
    """Three classes with the third separated from the others by x > 2 (quasi: one row on the
    boundary): the certificate cannot prove overlap, and the linear programme finds it."""
    rng = np.random.default_rng(0)
    x = np.r_[rng.uniform(-1, 1, 40), 2.0, rng.uniform(2.5, 4, 20)]
    y = np.r_[rng.integers(0, 2, 40), 2, np.full(20, 2)]
    X = np.c_[x, rng.normal(size=x.size)]
    with pytest.warns(SeparationWarning):
        model = LogisticRegression(penalty=None).fit(X, y)
    assert model.separation_ in ("complete", "quasi")
    scores = X @ model.coef_.T + model.intercept_
    assert not separation_module.overlap_proved(X, y, scores, 3)
    assert not separation_module.overlap_proved(sp.csr_matrix(X), y, scores, 3)


def test_certificate_proves_binary_overlap_where_probabilities_round_to_one():
    """Two classes whose far rows are fitted with probability 1 to double precision (1 - mu
    rounds to 0): Stiemke's weights come from the scores, not from 1 - mu."""
    rng = np.random.default_rng(1)
    x = np.r_[rng.normal(size=200), 60.0, -60.0]
    y = np.r_[(x[:200] + rng.normal(size=200) > 0).astype(int), 1, 0]
    X = x[:, None]
    model = LogisticRegression(penalty=None).fit(X, y)
    scores = X @ model.coef_.T + model.intercept_
    assert np.max(np.abs(scores)) > 40  # expit rounds to exactly 0 or 1 there
    assert separation_module.overlap_proved(X, y, scores[:, 0], 2)
    assert model.separation_ is None


def _penalised_optimum(X, y, C):
    """The minimiser of C * sum(log-loss) + |w|^2 / 2 (intercept unpenalised) by plain Newton
    steps in NumPy until they stop changing it."""
    Xt = np.c_[np.ones(len(y)), X]
    theta = np.zeros(Xt.shape[1])
    ridge = np.r_[0.0, np.ones(X.shape[1])] / C
    for _ in range(100):
        mu = 1.0 / (1.0 + np.exp(-Xt @ theta))
        g = Xt.T @ (mu - y) + ridge * theta
        H = (Xt * (mu * (1 - mu))[:, None]).T @ Xt + np.diag(ridge)
        step = np.linalg.solve(H, g)
        theta -= step
        if np.max(np.abs(step)) <= 1e-15 * np.max(np.abs(theta)):
            break
    return theta


def test_penalised_l2_default_at_its_optimum():
    """The default penalised fit (L2, C = 1) on Pima.tr is at its optimum to 1e-9 too."""
    X, y, _ = design("pima")
    model = LogisticRegression().fit(X, y)
    np.testing.assert_allclose(np.r_[model.intercept_, model.coef_.ravel()],
                               _penalised_optimum(X, y, 1.0), rtol=RTOL, atol=0)


def _count_hessians(monkeypatch):
    """Counts the Hessians the fit forms for inference: ``(formed, restore)``, one entry appended to
    ``formed`` per Hessian, ``restore()`` puts the uncounted function back."""
    from linclass.linear.fitting import fit as fitting

    formed = []
    original = fitting.inference_hessian

    def counted(*args, **kwargs):
        formed.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(fitting, "inference_hessian", counted)
    return formed, lambda: monkeypatch.setattr(fitting, "inference_hessian", original)


@pytest.mark.parametrize("solver", ["newton", "lbfgs"])
def test_exact_estimate_costs_one_hessian_more(monkeypatch, solver):
    """The final steps form the Hessian twice: at the solver's last iterate (the steps) and at
    the returned estimate (the covariance); the second step reuses the first's."""
    formed, _ = _count_hessians(monkeypatch)
    X, y, _ = design("pima")
    model = LogisticRegression(penalty=None, solver=solver).fit(X, y)
    assert len(formed) == 2
    np.testing.assert_allclose(model.summary().bse, reference("pima").se.to_numpy(), rtol=RTOL)


@pytest.mark.parametrize("data, C", [("digits", 1.0), ("wine", 1.0), ("wine", np.inf)])
def test_softmax_lbfgs_goes_on_and_forms_one_hessian(monkeypatch, data, C):
    """A softmax L-BFGS fit goes on to a gradient of 1e-13 before the exact Hessian (instead of a
    Newton step and a second Hessian at the estimate): on real data its coefficients are a tight
    Newton fit's, and on wine the Hessian is formed once, at the returned estimate (on
    standardised digits, whose near-constant pixels make the Hessian ill-conditioned, the Newton
    step after a gradient of 2e-14 still moves the scores by 9e-10, so the Hessian is formed again
    at the estimate)."""
    from sklearn.datasets import load_digits, load_wine
    from sklearn.preprocessing import StandardScaler

    X, y = (load_digits if data == "digits" else load_wine)(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    if C == np.inf:  # an unpenalised softmax needs overlapping classes: two wine features
        # (digits, like wine's 13 features, are separated: no maximum-likelihood estimate)
        X = X[:, :2]
    formed, restore = _count_hessians(monkeypatch)
    model = LogisticRegression(C=C, solver="lbfgs").fit(X, y)
    assert model.converged_ and len(formed) == (1 if data == "wine" else 2)
    restore()
    tight = LogisticRegression(C=C, solver="newton", tol=1e-13, max_iter=200).fit(X, y)
    ours = np.r_[model.coef_.ravel(), model.intercept_]
    best = np.r_[tight.coef_.ravel(), tight.intercept_]
    assert np.max(np.abs(ours - best)) <= 1e-10 * np.max(np.abs(best))


def test_certificate_in_row_blocks(monkeypatch):
    """The proof reads X in blocks of rows (no copy of a large X); blocks of any size give the
    same verdict, zero-weight rows left out."""
    X, y = satellite()
    model = LogisticRegression(penalty=None).fit(X, y)
    scores = X @ model.coef_.T + model.intercept_
    w = np.ones(y.size)
    w[::7] = 0.0  # left out: still overlapping
    assert separation_module.overlap_proved(X, y, scores, 6)
    monkeypatch.setattr(separation_module, "_PROOF_ROWS", 999)
    assert separation_module.overlap_proved(X, y, scores, 6)
    assert separation_module.overlap_proved(sp.csr_matrix(X), y, scores, 6)
    weighted = LogisticRegression(penalty=None).fit(X, y, sample_weight=w)
    scores = X @ weighted.coef_.T + weighted.intercept_  # at that fit's estimate
    assert separation_module.overlap_proved(X, y, scores, 6, sample_weight=w)


@pytest.mark.parametrize("case", ["housing", "birthwt"])
def test_penalised_default_equals_a_tight_fit(case):
    """The default L2 fit (softmax with frequency weights, and two classes) is the fit at
    tol=1e-13 to 1e-9, standard errors included."""
    X, y, w = design(case)
    default = LogisticRegression().fit(X, y, sample_weight=w)
    tight = LogisticRegression(tol=1e-13, max_iter=1000).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(default.coef_, tight.coef_, rtol=RTOL, atol=0)
    np.testing.assert_allclose(np.asarray(default.summary().bse), np.asarray(tight.summary().bse),
                               rtol=RTOL, atol=0)
