"""The relaxed lasso (``relax``) against glmnet's ``relax=TRUE`` (saved output: CI has no R).

tests/data/r/relaxed.R fits ``glmnet(x, y, family, relax = TRUE, lambda, standardize = FALSE,
thresh = 1e-14)`` on two real data sets of MASS (Pima: binary, 532 rows; Copenhagen housing: three
classes, rows weighted by their resident counts) at three lambdas each (and Pima with every
coefficient in [0, 0.9], which glmnet's refit keeps) and saves
``coef(fit, s = lambda, gamma)`` for gamma 0, 0.5 and 1 and the unpenalised refit itself
(``fit$relaxed``).  glmnet blends with ``max(gamma, 1e-5)``, so its gamma = 0 is relax=1e-5 here
and its refit is relax=0.  :math:`C = 1/(\\lambda W)`, W the total weight.

Softmax: the unpenalised refit's coefficients are defined only up to one shift per column shared
by the classes (linclass reports them summing to zero, glmnet otherwise), so the relaxed
coefficients are compared after centring each column over the classes, and the intercepts after
centring (the probabilities are the same).
"""

import csv
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from linclass import LogisticRegression, SeparationWarning, logistic_path
from linclass.linear.fitting.relax import relax_values

HERE = Path(__file__).parent / "data" / "r"
ATOL = 1e-6  # glmnet stops on the change in deviance; measured: below 7e-7 (softmax), 1e-7 (binary)
GAMMAS = {"refit": 0.0, "0": 1e-5, "0.5": 0.5, "1": 1.0}


#: glmnet's lower.limits / upper.limits of a case (its refit keeps them)
BOUNDS = {"pima-bounded": {"lower_bounds": 0.0, "upper_bounds": 0.9}}


def _data(case):
    name = {"pima": "cv_glmnet_pima.csv", "pima-bounded": "cv_glmnet_pima.csv",
            "housing": "cv_glmnet_housing.csv"}[case]
    with open(HERE / name) as f:
        header = next(csv.reader(f))
    values = np.loadtxt(HERE / name, delimiter=",", skiprows=1)
    first = header.index("InflMedium") if case == "housing" else header.index("npreg")
    weight = values[:, header.index("weight")] if "weight" in header else None
    return values[:, first:], values[:, 0].astype(int), weight


def _reference():
    with open(HERE / "relaxed_reference.csv") as f:
        rows = list(csv.DictReader(f))
    table = {}
    for r in rows:
        table.setdefault((r["case"], float(r["lambda"]), GAMMAS[r["gamma"]]), []).append(r)
    out = {}
    for key, group in table.items():
        coef = np.array([[float(v) for k, v in r.items() if k.startswith("x") and v != ""]
                         for r in group])
        out[key] = coef, np.array([float(r["intercept"]) for r in group])
    return out


REFERENCE = _reference()
CASES = sorted({key[:2] for key in REFERENCE})


def _centred(coef, intercept):
    if coef.shape[0] == 1:
        return coef, intercept
    return coef - coef.mean(axis=0), intercept - intercept.mean()


@pytest.mark.parametrize("case, lam", CASES, ids=[f"{c}-lambda={lam:g}" for c, lam in CASES])
def test_relaxed_coefficients_match_glmnet(case, lam):
    X, y, w = _data(case)
    C = 1.0 / (lam * (y.size if w is None else w.sum()))
    lasso = None
    for relax in GAMMAS.values():
        fit = LogisticRegression(penalty="l1", C=C, relax=relax, tol=1e-10, max_iter=500,
                                 **BOUNDS.get(case, {})).fit(X, y, sample_weight=w)
        coef, intercept = REFERENCE[(case, lam, relax)]
        got, want = _centred(fit.coef_, fit.intercept_), _centred(coef, intercept)
        np.testing.assert_allclose(got[0], want[0], atol=ATOL)
        np.testing.assert_allclose(got[1], want[1], atol=ATOL)
        if relax == 1.0:
            lasso = fit
    # the relaxed fit keeps the lasso's support: a column off it is zero in every class
    off = ~np.any(lasso.coef_ != 0, axis=0)
    assert off.any() or case == "housing"
    relaxed = LogisticRegression(penalty="l1", C=C, relax=0.0, tol=1e-10, max_iter=500,
                                 **BOUNDS.get(case, {})).fit(X, y, sample_weight=w)
    assert not np.any(relaxed.coef_[:, off])
    if case in BOUNDS:  # the refit keeps the bounds: the glucose coefficient sits on 0.9
        assert relaxed.coef_.max() == 0.9 and relaxed.coef_.min() == 0.0


def test_glmnets_gamma_zero_is_not_the_refit():
    """glmnet's gamma = 0 is 1e-5 of the lasso: distinguishable from the refit at this precision."""
    coef0, _ = REFERENCE[("pima", 0.08, 1e-5)]
    refit, _ = REFERENCE[("pima", 0.08, 0.0)]
    assert np.abs(coef0 - refit).max() > 3 * ATOL


@pytest.mark.parametrize("case", ["pima", "housing"])  # the path takes no bounds
def test_the_relaxed_path_matches_glmnet_at_every_lambda(case):
    X, y, w = _data(case)
    lams = sorted({lam for c, lam in CASES if c == case})
    Cs = 1.0 / (np.array(lams) * (y.size if w is None else w.sum()))
    path = logistic_path(X, y, Cs=Cs, penalty="l1", relax=0.5, sample_weight=w, tol=1e-10,
                         max_iter=500)
    assert path.relax == 0.5
    for k, lam in enumerate(lams):
        coef, intercept = REFERENCE[(case, lam, 0.5)]
        got, want = _centred(path.coefs[k], path.intercepts[k]), _centred(coef, intercept)
        np.testing.assert_allclose(got[0], want[0], atol=ATOL)
        np.testing.assert_allclose(got[1], want[1], atol=ATOL)
        # the log-likelihood is the relaxed fit's own
        model = LogisticRegression(penalty="l1", C=Cs[k], relax=0.5, tol=1e-10, max_iter=500)
        model.fit(X, y, sample_weight=w)
        np.testing.assert_allclose(path.log_likelihood[k], model.log_likelihood_, rtol=1e-9)
        proba = model.predict_proba(X)[np.arange(y.size), y]
        np.testing.assert_allclose(model.log_likelihood_, np.sum((1 if w is None else w)
                                                                  * np.log(proba)), rtol=1e-9)


def test_relax_one_is_the_penalised_fit_and_an_empty_support_is_left_alone():
    X, y, _ = _data("pima")
    plain = LogisticRegression(penalty="l1", C=0.01).fit(X, y)
    same = LogisticRegression(penalty="l1", C=0.01, relax=1.0).fit(X, y)
    np.testing.assert_array_equal(plain.coef_, same.coef_)
    tiny = LogisticRegression(penalty="l1", C=1e-5, relax=0.0).fit(X, y)  # every coefficient zero
    assert not np.any(tiny.coef_)
    np.testing.assert_allclose(tiny.intercept_, [np.log(y.mean() / (1 - y.mean()))], atol=1e-8)


def test_sparse_x_and_elastic_net_relax_as_dense():
    X, y, _ = _data("pima")
    params = {"penalty": "elasticnet", "l1_ratio": 0.5, "C": 0.005, "relax": 0.3, "tol": 1e-10}
    dense = LogisticRegression(**params).fit(X, y)
    sparse = LogisticRegression(**params).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, atol=1e-8)
    lasso = LogisticRegression(**{**params, "relax": 1.0}).fit(X, y)
    support = np.flatnonzero(lasso.coef_[0])
    refit = LogisticRegression(penalty=None, tol=1e-10).fit(X[:, support], y)
    expected = 0.3 * lasso.coef_[0, support] + 0.7 * refit.coef_[0]
    np.testing.assert_allclose(dense.coef_[0, support], expected, atol=1e-8)
    assert dense.solver_ == "cd+newton"


def test_a_refit_that_does_not_exist_is_warned_about_and_stays_finite():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 6))
    y = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)  # separated by the first two columns
    with pytest.warns(SeparationWarning, match=r"relax=0\.5.*refit on the selected features does "
                                               r"not exist"):
        model = LogisticRegression(penalty="l1", C=1.0, relax=0.5).fit(X, y)
    assert np.all(np.isfinite(model.coef_)) and model.separation_ in ("complete", "quasi")
    with warnings.catch_warnings():
        warnings.simplefilter("error", SeparationWarning)  # relax=1 refits nothing
        LogisticRegression(penalty="l1", C=1.0).fit(X, y)
    with pytest.warns(SeparationWarning, match="logistic_path"):
        logistic_path(X, y, Cs=[0.1, 1.0], relax=0.0)


@pytest.mark.parametrize("params, match", [
    ({"penalty": "l1", "relax": 1.5}, "relax"),
    ({"penalty": "l1", "relax": -0.1}, "relax"),
    ({"penalty": "l1", "relax": "half"}, "relax"),
    ({"penalty": "l2", "relax": 0.5}, r"relax=0\.5 needs a penalty with an L1 part.*penalty='l2'"),
    ({"penalty": None, "relax": 0.0}, "needs a penalty with an L1 part"),
    ({"penalty": "firth", "relax": 0.0}, "needs a penalty with an L1 part"),
    ({"C": np.inf, "l1_ratio": 1.0, "relax": 0.5}, "needs a penalty with an L1 part"),
])
def test_bad_relax_is_refused_by_name(params, match):
    X, y, _ = _data("pima")
    with pytest.raises(ValueError, match=match):
        LogisticRegression(**params).fit(X, y)


def test_bad_relax_in_the_path_and_as_a_list():
    X, y, _ = _data("pima")
    with pytest.raises(ValueError, match=r"relax must be a number in \[0, 1\]"):
        logistic_path(X, y, Cs=3, relax=2.0)
    with pytest.raises(ValueError, match="needs a penalty with an L1 part"):
        logistic_path(X, y, Cs=3, penalty="l2", relax=0.5)
    from linclass.linear.fitting.choice import make_penalty
    np.testing.assert_array_equal(relax_values([1, 0.5, 0.5, 0], make_penalty("l1", 1.0, None)),
                                  [0.0, 0.5, 1.0])
    with pytest.raises(ValueError, match="non-empty"):
        relax_values([], make_penalty("l1", 1.0, None))


def test_relaxed_models_round_trip_through_model_files(tmp_path):
    from linclass import LogisticRegressionCV, load, save

    X, y, _ = _data("pima")
    models = [LogisticRegression(penalty="l1", C=0.02, relax=0.25).fit(X, y),
              LogisticRegressionCV(Cs=4, penalty="l1", cv=3, relax=[0.0, 1.0], refit_rule="1se",
                                   fold_penalty="lambda").fit(X, y)]
    for k, model in enumerate(models):
        back = load(save(model, tmp_path / f"model{k}.linclass"))
        assert back.get_params()["relax"] == model.get_params()["relax"]
        np.testing.assert_array_equal(back.predict_proba(X), model.predict_proba(X))
        if k:
            assert (back.refit_rule, back.fold_penalty) == ("1se", "lambda")
            assert back.relax_ == model.relax_
            np.testing.assert_array_equal(back.cv_se_, model.cv_se_)
        else:
            assert "relax=0.25" in str(back.summary())
