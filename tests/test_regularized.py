"""Regularised discriminant analysis (Friedman 1989): its limits (LDA, QDA), its closed-form
leave-one-out against refits, and the cross-validated grid against brute force."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import LeaveOneOut, StratifiedKFold, cross_val_predict

import linclass as lc
from linclass.selection import scoring as scoring_
from linclass.generative.class_stats import ClassStats
from linclass.selection.regularized_cv import grid_scores
from linclass.selection.regularized_loo import loo_grid_scores

RDA = lc.RegularizedDiscriminantAnalysis
RDACV = lc.RegularizedDiscriminantAnalysisCV


def data(n=45, d=3, K=3, seed=1, offset=5.0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % K
    X = rng.normal(size=(n, d)) * np.linspace(0.5, 2.0, d) + 0.8 * y[:, None] + offset
    X[y == 1] *= 1.5  # unequal class covariances
    return X, y


WEIGHTS = np.random.default_rng(3).integers(1, 4, 45).astype(float)


def test_limits_are_lda_and_qda_exactly():
    X, y = data()
    np.testing.assert_allclose(RDA(1.0, 0.0).fit(X, y).predict_proba(X),
                               lc.LinearDiscriminantAnalysis().fit(X, y).predict_proba(X), atol=1e-12)
    np.testing.assert_allclose(RDA(0.0, 0.0).fit(X, y).predict_proba(X),
                               lc.QuadraticDiscriminantAnalysis().fit(X, y).predict_proba(X),
                               atol=1e-12)
    # gamma alone is QDA with shrinkage towards tr/d I
    np.testing.assert_allclose(
        RDA(0.0, 0.3).fit(X, y).covariance_,
        lc.QuadraticDiscriminantAnalysis(shrinkage=0.3, store_covariance=True).fit(X, y).covariance_,
        atol=1e-12)


def test_covariance_is_friedmans_formula():
    X, y = data()
    lam, gam = 0.3, 0.4
    model = RDA(lam, gam).fit(X, y)
    S_W = sum(np.cov(X[y == k].T, bias=True) * np.sum(y == k) for k in range(3))
    for k in range(3):
        n_k = np.sum(y == k)
        S_k = np.cov(X[y == k].T, bias=True) * n_k
        sig = ((1 - lam) * S_k + lam * S_W) / ((1 - lam) * n_k + lam * y.size)
        expected = (1 - gam) * sig + gam * np.trace(sig) / 3 * np.eye(3)
        np.testing.assert_allclose(model.covariance_[k], expected, rtol=1e-12)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("pooling,shrinkage", [(0, 0), (1, 0), (0.3, 0), (0.3, 0.4), (0.7, 1.0),
                                               (0, 0.2), (1, 0.6), (0.5, 0.999)])
def test_loo_equals_refits(pooling, shrinkage, weighted):
    X, y = data()
    w = WEIGHTS if weighted else None
    est = RDA(pooling, shrinkage)
    brute = cross_val_predict(est, X, y, cv=LeaveOneOut(), method="predict_proba",
                              params=None if w is None else {"sample_weight": w})
    np.testing.assert_allclose(lc.loo_predict_proba(est, X, y, w), brute, atol=1e-9)


def test_loo_series_with_influential_rows():
    # a gross outlier makes its own downdate large (the series ratio past its cut: summed exactly)
    X, y = data(n=30)
    X[0] += 40.0
    est = RDA(0.4, 0.3)
    brute = cross_val_predict(est, X, y, cv=LeaveOneOut(), method="predict_proba")
    np.testing.assert_allclose(lc.loo_predict_proba(est, X, y), brute, atol=1e-9)


def _brute_grid(X, y, w, poolings, shrinkages, splits, scoring):
    out = np.zeros((poolings.size, shrinkages.size))
    for a, lam in enumerate(poolings):
        for g, gam in enumerate(shrinkages):
            values = np.zeros(y.size)
            for train, test in splits:
                model = RDA(lam, gam).fit(X[train], y[train], sample_weight=w[train])
                values[test] = scoring_.row_values(model._scores(X[test]), y[test], scoring)
            out[a, g] = np.average(values, weights=w)
    return out


@pytest.mark.parametrize("scoring", ["neg_log_loss", "accuracy", "log_likelihood"])
@pytest.mark.parametrize("cv", [None, 3], ids=["loo", "3-fold"])
def test_grid_equals_brute_force(cv, scoring):
    X, y = data()
    w = WEIGHTS
    stats = ClassStats.from_batch(X, y, np.arange(3), w, kind="full")
    poolings, shrinkages = np.array([0.0, 0.5, 1.0]), np.array([0.0, 0.3, 1.0])
    got = grid_scores(stats, X, y, w, poolings, shrinkages, cv=cv, scoring=scoring)
    splits = list((LeaveOneOut() if cv is None else StratifiedKFold(cv)).split(X, y))
    np.testing.assert_allclose(got, _brute_grid(X, y, w, poolings, shrinkages, splits, scoring),
                               rtol=1e-10, atol=1e-12)


def test_given_splits_and_splitters():
    X, y = data()
    splitter = StratifiedKFold(4, shuffle=True, random_state=0)
    a = RDACV(poolings=3, shrinkages=3, cv=splitter).fit(X, y)
    b = RDACV(poolings=3, shrinkages=3, cv=list(splitter.split(X, y))).fit(X, y)
    np.testing.assert_allclose(a.cv_scores_, b.cv_scores_)
    # training parts that are not the complement of the test part
    splits = [(np.arange(0, 30), np.arange(30, 45)), (np.arange(15, 45), np.arange(0, 15))]
    c = RDACV(poolings=3, shrinkages=3, cv=splits).fit(X, y)
    w = np.ones(45)
    held = np.concatenate([s[1] for s in splits])
    ref = _brute_grid(X, y, w, c.poolings_, c.shrinkages_, splits, "neg_log_loss")
    # the brute-force helper averages over all rows; here every row is held out at most once
    ref = ref * 45 / held.size
    np.testing.assert_allclose(c.cv_scores_, ref, rtol=1e-10)


def test_cv_estimator_picks_the_best_grid_point_and_refits():
    X, y = data(n=60)
    model = RDACV(poolings=5, shrinkages=[0.0, 0.1, 0.5]).fit(X, y)
    best = np.unravel_index(np.argmax(model.cv_scores_), model.cv_scores_.shape)
    assert model.pooling_ == model.poolings_[best[0]]
    assert model.shrinkage_ == model.shrinkages_[best[1]]
    assert model.best_score_ == model.cv_scores_.max()
    np.testing.assert_allclose(model.predict_proba(X),
                               RDA(model.pooling_, model.shrinkage_).fit(X, y).predict_proba(X))
    # the loo score of the chosen point is the grid's
    assert lc.loo_score(RDA(model.pooling_, model.shrinkage_), X, y,
                        scoring="neg_log_loss") == pytest.approx(model.best_score_, abs=1e-12)


def test_singular_grid_points_are_skipped():
    # 4 rows per class in 4 dimensions: QDA (pooling 0, shrinkage 0) is singular without a row
    X, y = data(n=12, d=4)
    model = RDACV(poolings=[0.0, 0.5], shrinkages=[0.0, 0.5]).fit(X, y)
    assert model.cv_scores_[0, 0] == -np.inf
    assert np.all(np.isfinite(model.cv_scores_[:, 1]))
    with pytest.raises(ValueError, match="shrinkage"):
        RDACV(poolings=[0.0], shrinkages=[0.0]).fit(X, y)


def test_grids_and_bad_parameters():
    X, y = data()
    model = RDACV(poolings=4, shrinkages=[0.5, 0.0, 0.5]).fit(X, y)
    np.testing.assert_allclose(model.poolings_, [0, 1 / 3, 2 / 3, 1])
    np.testing.assert_allclose(model.shrinkages_, [0.0, 0.5])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        RDACV(shrinkages=[0.5, 1.5]).fit(X, y)
    with pytest.raises(ValueError, match="rows of every class"):
        RDACV(cv=20).fit(X, y)
    with pytest.raises(ValueError, match="pooling"):
        RDA(pooling=2.0).fit(X, y)


def test_cv_estimator_fits_chunks_but_not_partial_fit():
    """The search needs every row at once (no partial_fit), but reads them in passes from chunks
    (files, Dask) with cv=None or an int; a splitter needs the rows in memory."""
    from sklearn.model_selection import KFold

    from linclass.sources.chunks import supports_chunks

    model = RDACV()
    assert not hasattr(model, "partial_fit")
    assert supports_chunks(model) and supports_chunks(RDACV(cv=3))
    assert not supports_chunks(RDACV(cv=KFold(3)))
    assert hasattr(RDA(), "partial_fit") and supports_chunks(RDA())


def test_rda_partial_fit_equals_fit():
    X, y = data()
    a = RDA(0.3, 0.2).fit(X, y)
    b = clone(RDA(0.3, 0.2)).partial_fit(X[:20], y[:20], classes=[0, 1, 2]).partial_fit(X[20:], y[20:])
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-12)


@pytest.mark.parametrize("pooling", [0.0, 0.5, 1.0])
def test_shrinkage_depends_on_the_features_units(pooling):
    """The shrinkage target :math:`\\mathrm{tr}\\,\\Sigma/d\\, I` adds the same variance to every
    feature: measuring one feature in other units (x 100) changes the model when shrinkage > 0,
    while shrinkage = 0 (between QDA and LDA) rescales every covariance with the feature."""
    X, y = data(n=90)
    Xs = X * np.array([100.0, 1.0, 1.0])
    for shrinkage in (0.1, 0.5):
        raw = RDA(pooling=pooling, shrinkage=shrinkage).fit(X, y).predict_proba(X)
        rescaled = RDA(pooling=pooling, shrinkage=shrinkage).fit(Xs, y).predict_proba(Xs)
        assert np.max(np.abs(raw - rescaled)) > 0.05
    raw = RDA(pooling=pooling, shrinkage=0.0).fit(X, y).predict_proba(X)
    rescaled = RDA(pooling=pooling, shrinkage=0.0).fit(Xs, y).predict_proba(Xs)
    np.testing.assert_allclose(rescaled, raw, atol=1e-10)
    assert lc.registry.by_class(RDA).can("units") and lc.registry.by_class(RDACV).can("units")


def test_loo_grid_equals_refits_at_every_grid_point():
    # the compiled grid (every shrinkage of a pooling in one pass, the shifted sums by their
    # series, an influential row divided term by term) against a refit without each row
    n = 24
    X, y = data(n=n, d=4)
    X[3] += 25.0  # influential: its downdate's series ratio is past the cut
    w = WEIGHTS[:n]
    stats = ClassStats.from_batch(X, y, np.arange(3), w, kind="full")
    poolings, shrinkages = np.array([0.4, 1.0]), np.array([0.0, 0.3, 1.0])
    for lam in poolings:
        got, valid = loo_grid_scores(stats, X, y, w, lam, shrinkages)
        assert valid.all()
        for g, gam in enumerate(shrinkages):
            ref = np.empty((n, 3))
            for i in range(n):
                keep = np.arange(n) != i
                model = RDA(lam, gam).fit(X[keep], y[keep], sample_weight=w[keep])
                ref[i] = model._scores(X[i:i + 1])[0]
            np.testing.assert_allclose(got[g], ref, rtol=1e-10, atol=1e-10)


def test_loo_grid_vectorised_rows_equal_refits():
    # enough rows per class that most downdate factors x = beta q_rr stay below 0.01 (scored in the
    # vectorised pass), mixed in one chunk with an influential row and rows past the log's series,
    # which are scored again one by one; sampled rows against refits without them
    n = 1800
    X, y = data(n=n, d=3)
    X[7] += 30.0  # influential
    w = np.random.default_rng(5).integers(1, 4, n).astype(float)
    stats = ClassStats.from_batch(X, y, np.arange(3), w, kind="full")
    sample = [7, 0, 1, 2, 3, 100, 901, 1799]
    shrinkages = np.array([0.0, 0.3, 0.9, 1.0])
    for lam in (0.0, 0.6):
        got, valid = loo_grid_scores(stats, X, y, w, lam, shrinkages)
        assert valid.all()
        for g, gam in enumerate(shrinkages):
            for i in sample:
                keep = np.arange(n) != i
                model = RDA(lam, gam).fit(X[keep], y[keep], sample_weight=w[keep])
                np.testing.assert_allclose(got[g, i], model._scores(X[i:i + 1])[0],
                                           rtol=1e-10, atol=1e-10)


def test_loo_grid_sums_in_threads_equal_one_thread(monkeypatch):
    # real data: the poolings in worker threads give what one thread gives, to the bit
    from sklearn.datasets import load_digits
    from threadpoolctl import threadpool_limits

    import linclass.selection.regularized_cv as rcv

    X, y = load_digits(return_X_y=True)
    X, y = X[:900], y[:900]
    stats = ClassStats.from_batch(X, y, np.arange(10), None, kind="full")
    poolings, shrinkages = np.linspace(0, 1, 4), np.array([0.05, 0.5, 1.0])
    results = []
    with threadpool_limits(1, user_api="blas"):
        for workers in (1, 2):
            monkeypatch.setattr(rcv, "worker_threads", lambda work, tasks, k=workers: k)
            results.append(rcv.loo_grid_sums(stats, X, y, None, poolings, shrinkages))
    (a, wa, sa), (b, wb, sb) = results
    assert np.isfinite(a).all() and wa == wb == 900
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(sa, sb)
