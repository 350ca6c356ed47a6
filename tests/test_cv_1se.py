"""LogisticRegressionCV's cross-validation statistics and its one-standard-error rule against
``cv.glmnet`` (saved output: CI has no R).

tests/data/r/cv_glmnet.R runs cv.glmnet on two real data sets of MASS (Pima: binary, 532 rows;
Copenhagen housing: three classes, rows weighted by their resident counts) with given folds
(``foldid``, here :class:`~sklearn.model_selection.PredefinedSplit`) and a given lambda grid, and
saves ``cvm``, ``cvsd``, ``lambda.min`` and ``lambda.1se`` (and, with ``relax=TRUE``, the same per
gamma with ``gamma.min`` / ``gamma.1se``).

The mapping: glmnet penalises the mean loss of the rows it fits, linclass the summed loss, so
:math:`\\lambda = 1/(CW)` with W the rows' total weight.  In cross-validation glmnet keeps lambda
fixed while the folds' training weights :math:`W_k` differ, so a fold sees :math:`C = 1/(\\lambda
W_k)`: ``fold_penalty='lambda'`` does exactly that (grid ``Cs = 1/(lambda W)`` on all rows), for any
folds.  The default ``fold_penalty='C'`` fits every fold at the same C; it reproduces cv.glmnet only
when every fold's training rows weigh the same (Pima's 4 folds of 133 rows, grid
``Cs = 1/(lambda * 399)``).  glmnet's deviance is twice the log-loss: ``cvm = -2 cv_mean_``,
``cvsd = 2 cv_se_``.
"""

import csv
from pathlib import Path

import numpy as np
import pytest
from sklearn.model_selection import PredefinedSplit

from linclass import LogisticRegression, LogisticRegressionCV
from linclass.selection.cv_rule import choose, cv_statistics

HERE = Path(__file__).parent / "data" / "r"
TOL = 1e-7  # on glmnet's deviance scale (measured: 1e-8 and below; glmnet's thresh=1e-14)


def _data(name):
    with open(HERE / f"cv_glmnet_{name}.csv") as f:
        header = next(csv.reader(f))
    values = np.loadtxt(HERE / f"cv_glmnet_{name}.csv", delimiter=",", skiprows=1)
    columns = {h: values[:, j] for j, h in enumerate(header)}
    features = [h for h in header if h not in ("y", "weight", "fold", "fold4", "fold5")]
    X = np.column_stack([columns[h] for h in features])
    return X, columns["y"].astype(int), columns.get("weight"), columns


def _reference(case):
    with open(HERE / "cv_glmnet_reference.csv") as f:
        rows = [r for r in csv.DictReader(f) if r["case"] == case]
    table = {}
    for r in rows:
        table.setdefault(float(r["gamma"]), []).append(r)
    out = {}
    for gamma, group in table.items():
        lam = np.array([float(r["lambda"]) for r in group])
        order = np.argsort(lam)  # increasing lambda: decreasing C ... reversed below
        lam = lam[order][::-1]
        pick = lambda key: np.array([float(r[key]) for r in group])[order][::-1]  # noqa: E731
        flag = lambda key: np.array([r[key] == "TRUE" for r in group])[order][::-1]  # noqa: E731
        out[gamma] = {"lambda": lam, "cvm": pick("cvm"), "cvsd": pick("cvsd"),
                      "min": flag("is_min"), "1se": flag("is_1se")}
    return out


def _cv(X, y, w, folds, Cs, **params):
    # the folds' lambda = 1/(C W) is glmnet's; tight tol so that the fits are the optimum to ~1e-10;
    # glmnet's deviance is twice the log-loss
    model = LogisticRegressionCV(Cs=Cs, l1_ratios=(1.0,), scoring="neg_log_loss",
                                 use_legacy_attributes=False, cv=PredefinedSplit(folds - 1),
                                 tol=1e-10, max_iter=500, **params)
    return model.fit(X, y, sample_weight=w)


@pytest.mark.parametrize("case, fold, fold_penalty", [
    ("pima-fold5", "fold5", "lambda"),  # folds of 107/107/106/106/106 rows
    ("pima-fold4", "fold4", "C"),  # 4 folds of 133 rows: every fold's training rows weigh 399
])
@pytest.mark.parametrize("rule", ["min", "1se"])
def test_binary_cv_statistics_and_choice_are_cv_glmnets(case, fold, fold_penalty, rule):
    X, y, _, columns = _data("pima")
    ref = _reference(case)[1.0]
    lam = ref["lambda"]  # decreasing: C increasing
    weight = y.size if fold_penalty == "lambda" else y.size * 3 / 4
    # (without a refit, scikit-learn's rule averages each fold's own best C with fold_penalty='C')
    model = _cv(X, y, None, columns[fold].astype(int), 1.0 / (lam * weight),
                fold_penalty=fold_penalty, refit_rule=rule, refit=fold_penalty == "C")
    np.testing.assert_allclose(-2.0 * model.cv_mean_[0], ref["cvm"], atol=TOL)
    np.testing.assert_allclose(2.0 * model.cv_se_[0], ref["cvsd"], atol=TOL)
    i_min, i_1se = np.flatnonzero(ref["min"])[0], np.flatnonzero(ref["1se"])[0]
    assert i_1se < i_min  # the rule picks a stronger penalty here: the test can tell them apart
    assert model.C_1se_ == model.Cs_[i_1se]
    assert model.C_min_ == model.Cs_[i_min]  # lambda.min, whatever the rule
    assert model.C_ == model.Cs_[i_min if rule == "min" else i_1se]
    assert model.relax_ == model.relax_1se_ == 1.0


def test_weighted_multinomial_cv_statistics_and_choice_are_cv_glmnets():
    X, y, w, columns = _data("housing")
    ref = _reference("housing")[1.0]
    lam = ref["lambda"]
    model = _cv(X, y, w, columns["fold"].astype(int), 1.0 / (lam * w.sum()), fold_penalty="lambda",
                refit_rule="1se", refit=False)
    np.testing.assert_allclose(-2.0 * model.cv_mean_[0], ref["cvm"], atol=TOL)
    np.testing.assert_allclose(2.0 * model.cv_se_[0], ref["cvsd"], atol=TOL)
    i_min, i_1se = np.flatnonzero(ref["min"])[0], np.flatnonzero(ref["1se"])[0]
    assert i_1se < i_min
    assert model.C_ == model.C_1se_ == model.Cs_[i_1se]
    assert np.argmax(model.cv_mean_[0]) == i_min
    assert model.C_min_ == model.Cs_[i_min]


def test_relaxed_cv_chooses_lambda_and_gamma_as_cv_glmnet():
    X, y, _, columns = _data("pima")
    ref = _reference("pima-relaxed")
    lam = ref[0.0]["lambda"]
    # glmnet blends with max(gamma, 1e-5): its gamma = 0 is relax=1e-5 here
    model = _cv(X, y, None, columns["fold5"].astype(int), 1.0 / (lam * y.size), relax=[1e-5, 0.5],
                fold_penalty="lambda", refit_rule="1se", refit=False)
    np.testing.assert_array_equal(model.relax_grid_, [1e-5, 0.5])
    weights = np.bincount(columns["fold5"].astype(int) - 1).astype(float)
    mean, se = cv_statistics(model.relax_scores_, weights)
    for g, gamma in enumerate([0.0, 0.5]):
        np.testing.assert_allclose(-2.0 * mean[0, :, g], ref[gamma]["cvm"], atol=TOL)
        np.testing.assert_allclose(2.0 * se[0, :, g], ref[gamma]["cvsd"], atol=TOL)
    (_, c, g), (c1, g1) = choose(mean, se)
    gammas = [0.0, 0.5]
    assert ref[gammas[g]]["min"][c] and ref[gammas[g1]]["1se"][c1]
    assert (model.C_, model.relax_) == (model.Cs_[c1], model.relax_grid_[g1])
    assert (model.C_1se_, model.relax_1se_) == (model.C_, model.relax_)
    np.testing.assert_array_equal(model.scores_, model.relax_scores_[..., g1])
    assert (c, g) != (c1, g1)


def test_the_refit_at_the_chosen_c_is_the_full_data_fit():
    X, y, _, columns = _data("pima")
    lam = _reference("pima-fold5")[1.0]["lambda"]
    model = _cv(X, y, None, columns["fold5"].astype(int), 1.0 / (lam * y.size),
                fold_penalty="lambda", refit_rule="1se", relax=[0.0, 1.0])
    alone = LogisticRegression(penalty="l1", C=model.C_, relax=model.relax_, tol=1e-10,
                               max_iter=500).fit(X, y)
    np.testing.assert_allclose(model.coef_, alone.coef_, atol=1e-8)
    np.testing.assert_allclose(model.intercept_, alone.intercept_, atol=1e-8)


def test_cv_statistics_are_the_plain_standard_error_for_equal_weights():
    rng = np.random.default_rng(3)
    scores = rng.normal(size=(5, 2, 4))
    mean, se = cv_statistics(scores, np.full(5, 7.0))
    np.testing.assert_allclose(mean, scores.mean(axis=0))
    np.testing.assert_allclose(se, scores.std(axis=0, ddof=1) / np.sqrt(5))
    # unequal weights: weighted mean and cv.glmnet's weighted spread over N - 1 folds
    w = np.array([1.0, 2.0, 3.0, 4.0, 10.0])
    mean, se = cv_statistics(scores, w)
    m = np.average(scores, axis=0, weights=w)
    np.testing.assert_allclose(mean, m)
    np.testing.assert_allclose(se, np.sqrt(np.average((scores - m) ** 2, axis=0, weights=w) / 4))


def test_choose_breaks_ties_as_glmnet_does():
    mean = np.array([[[0.5, 0.6], [0.9, 0.8], [1.0, 1.0], [1.0, 0.2]]])  # (ratio, C, relax)
    se = np.full_like(mean, 0.25)
    (r, c, g), (c1, g1) = choose(mean, se)
    assert (r, c, g) == (0, 2, 1)  # the smallest C of the best, then the largest relax
    assert (c1, g1) == (1, 1)  # 0.8 and 0.9 >= 1.0 - 0.25 at the smallest such C: the larger relax
    se[0, 2, 1] = 0.45  # the best's standard error sets the threshold: now 0.6 >= 0.55
    assert choose(mean, se)[1] == (0, 1)
    with pytest.raises(ValueError, match="NaN"):
        choose(np.full((1, 2, 1), np.nan), se[:, :2, :1])


@pytest.mark.parametrize("params, match", [
    ({"refit_rule": "max"}, "refit_rule"),
    ({"fold_penalty": "mean"}, "fold_penalty"),
    ({"relax": 1.5}, "relax"),
    ({"relax": [0.5, 2.0]}, "relax must be a number in"),
    ({"relax": []}, "non-empty"),
    ({"relax": 0.5, "penalty": "l2"}, "relax=0.5 needs a penalty with an L1 part"),
    ({"relax": [0.0, 1.0], "penalty": "elasticnet", "l1_ratios": [0.0, 0.5]},
     "relax=0 needs a penalty with an L1 part"),
])
def test_bad_parameters_are_refused_by_name(params, match):
    X, y, _, _ = _data("pima")
    with pytest.raises(ValueError, match=match):
        LogisticRegressionCV(**{"penalty": "l1", "Cs": 3, "cv": 3, **params}).fit(X, y)


def test_a_chosen_candidate_whose_refit_does_not_exist_is_warned_about():
    from linclass import SeparationWarning

    rng = np.random.default_rng(7)
    X = rng.normal(size=(60, 4))
    y = (X[:, 0] > 0).astype(int)  # separated by the first column
    with pytest.warns(SeparationWarning) as record:
        model = LogisticRegressionCV(Cs=[0.05, 0.5], penalty="l1", cv=3, relax=0.0).fit(X, y)
    messages = " ".join(str(w.message) for w in record)
    assert "chosen C_=" in messages and "refit on the selected features does not exist" in messages
    assert np.all(np.isfinite(model.coef_))
