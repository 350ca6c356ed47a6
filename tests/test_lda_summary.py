"""LinearDiscriminantAnalysis.summary() against MASS's lda and print.lda (tests/data/r/lda_mass.R and
its output): iris (with and without given priors), MASS's birthwt (age, lwt, ptl, ftv by low), crabs
(five measurements by species and sex: four classes) and Pima.tr (seven measurements by type).

The prior, group means, MASS's ``scaling`` (signs included: MASS's are scikit-learn's, see
linclass.projection.discriminant_axes) and ``svd`` agree to 1e-7 relative (measured: 1e-13), and the
printed summary is MASS's print, character for character, less its "Call:" lines and R's trailing
spaces.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn import discriminant_analysis as skda
from sklearn.datasets import load_iris

import linclass
from linclass import load

R_DIR = Path(__file__).parent / "data" / "r"
CASES = ["iris", "iris_prior", "birthwt", "crabs", "pima"]
PRIORS = {"iris_prior": [0.5, 0.3, 0.2]}
RTOL = 1e-7


def mass_data(case):
    table = pd.read_csv(R_DIR / "lda_mass_data.csv")
    rows = table[table.case == case]
    return rows.filter(like="x").dropna(axis=1).to_numpy(), rows.y.to_numpy()


def mass_fit(case):
    table = pd.read_csv(R_DIR / "lda_mass.csv", skipinitialspace=True)
    rows = table[table.case == case]
    parts = {}
    for part, values in rows.groupby("part"):
        M = np.full((values.row.max() + 1, values.col.max() + 1), np.nan)
        M[values.row, values.col] = values.value
        parts[part] = M
    return {"prior": parts["prior"][0], "means": parts["means"], "scaling": parts["scaling"],
            "svd": parts["svd"][0]}


def mass_print(case):
    blocks = (R_DIR / "lda_mass_print.txt").read_text().split("## ")[1:]
    text = dict(block.split("\n", 1) for block in blocks)[case]
    lines = text.split("\n")
    assert lines[0] == "Call:" and lines[2] == ""  # the call, which linclass does not print
    return "\n".join(line.rstrip() for line in lines[3:]).strip("\n")


def fitted(case, **params):
    X, y = mass_data(case)
    return linclass.LinearDiscriminantAnalysis(priors=PRIORS.get(case), **params).fit(X, y)


def assert_rel(ours, ref, what):
    ours, ref = np.asarray(ours, dtype=float), np.asarray(ref, dtype=float)
    assert ours.shape == ref.shape, what
    assert np.abs(ours - ref).max() <= RTOL * np.abs(ref).max(), (what, np.abs(ours - ref).max())


@pytest.mark.parametrize("case", CASES)
def test_numbers_match_mass(case):
    summary = fitted(case).summary()
    ref = mass_fit(case)
    assert_rel(summary.prior, ref["prior"], "prior")
    assert_rel(summary.means, ref["means"], "means")
    assert_rel(summary.scaling, ref["scaling"], "scaling")  # signs included
    assert_rel(summary.svd, ref["svd"], "svd")
    assert_rel(summary.proportion_of_trace, ref["svd"] ** 2 / np.sum(ref["svd"] ** 2), "trace")
    X, y = mass_data(case)
    np.testing.assert_array_equal(summary.counts, np.bincount(y))
    assert summary.N == len(y)


@pytest.mark.parametrize("case", CASES)
def test_prints_as_mass_prints(case):
    assert str(fitted(case).summary()) == mass_print(case)


def test_scaling_is_sklearns_on_the_divisor_n_minus_k():
    """MASS normalises the scores' within-group covariance with n - K, scikit-learn with n; the
    directions and their signs are the same."""
    X, y = mass_data("crabs")
    n, K = len(y), 4
    ref = skda.LinearDiscriminantAnalysis().fit(X, y)
    summary = fitted("crabs").summary()
    np.testing.assert_allclose(summary.scaling.to_numpy(), ref.scalings_ * np.sqrt((n - K) / n), rtol=1e-9)
    scores = X @ summary.coefficients
    centred = scores - summary.group_means[y] @ summary.coefficients
    np.testing.assert_allclose(centred.T @ centred / (n - K), np.eye(3), atol=1e-10)
    np.testing.assert_allclose(summary.proportion_of_trace, ref.explained_variance_ratio_, rtol=1e-9)


def test_the_same_whichever_solver_or_divisor():
    base = fitted("crabs").summary()
    for params in ({"solver": "lsqr"}, {"solver": "eigen"}, {"unbiased": True}):
        other = fitted("crabs", **params).summary()
        np.testing.assert_allclose(other.coefficients, base.coefficients, rtol=1e-10, err_msg=str(params))
        np.testing.assert_allclose(other.singular_values, base.singular_values, rtol=1e-10)
        np.testing.assert_array_equal(other.group_means, base.group_means)


def test_integer_weights_are_repeated_rows():
    X, y = mass_data("iris")
    w = np.random.default_rng(1).integers(1, 4, size=len(y))
    weighted = linclass.LinearDiscriminantAnalysis().fit(X, y, sample_weight=w).summary()
    repeated = linclass.LinearDiscriminantAnalysis().fit(np.repeat(X, w, axis=0), np.repeat(y, w)).summary()
    np.testing.assert_allclose(weighted.coefficients, repeated.coefficients, rtol=1e-10)
    np.testing.assert_allclose(weighted.singular_values, repeated.singular_values, rtol=1e-10)
    assert weighted.N == repeated.N == w.sum()


def test_parts_are_labelled_as_mass_labels_them():
    data = load_iris(as_frame=True)
    y = data.target.map(dict(enumerate(data.target_names)))
    summary = linclass.LinearDiscriminantAnalysis().fit(data.data, y).summary()
    assert list(summary.prior.index) == ["setosa", "versicolor", "virginica"]
    assert list(summary.means.columns) == list(data.data.columns)
    assert list(summary.scaling.index) == list(data.data.columns)
    assert list(summary.scaling.columns) == ["LD1", "LD2"]
    assert list(summary.proportion_of_trace.index) == ["LD1", "LD2"]
    pd.testing.assert_frame_equal(summary.to_frame(), summary.scaling)
    assert "Coefficients of linear discriminants:" in repr(summary)
    assert "petal width (cm)  -2.8104603 -2.83918785" in str(summary)


def test_without_pandas_the_parts_are_arrays(monkeypatch):
    summary = fitted("iris").summary()
    monkeypatch.setitem(sys.modules, "pandas", None)
    assert isinstance(summary.prior, np.ndarray) and isinstance(summary.scaling, np.ndarray)
    np.testing.assert_array_equal(summary.scaling, summary.coefficients)
    with pytest.raises(ImportError, match="pip install"):
        summary.to_frame()
    assert str(summary) == mass_print("iris")


def test_a_loaded_model_has_its_summary():
    """The summary comes from the fitted statistics, so files saved before it existed have one."""
    model = load(Path(__file__).parent / "data" / "golden_v1_lda.linclass")
    X, y = load_iris(return_X_y=True)
    refit = linclass.LinearDiscriminantAnalysis(**model.get_params()).fit(X, y)
    np.testing.assert_allclose(model.summary().coefficients, refit.summary().coefficients, rtol=1e-10)
    assert str(model.summary()) == str(refit.summary())


def test_needs_more_weight_than_classes():
    X, y = mass_data("iris")
    model = linclass.LinearDiscriminantAnalysis().fit(X, y, sample_weight=np.full(len(y), 0.01))
    with pytest.raises(ValueError, match="n - K"):
        model.summary()
