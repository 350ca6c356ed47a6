"""``linclass summary --cov-type ... --groups COL --data FILE --target COL``: robust covariances of
a saved logistic model from its training rows, as the library computes them (the printed standard
errors to their 3 decimals); ``--ci profile`` with the training rows: R's profile-likelihood
intervals; one error line for each misuse."""

from __future__ import annotations

import re

import numpy as np
import pytest

from conftest import cli, one_error_line

import linclass
from linclass.cli import main

pd = pytest.importorskip("pandas")


def printed_std_errors(out: str, names) -> list:
    """The std err column of the printed inference table, for the parameters ``names``."""
    table = out[out.index("std err"):].splitlines()
    found = []
    for name in names:
        line = next(line for line in table if line.startswith(name + " "))
        found.append(float(line[len(name):].split()[1]))
    return found


@pytest.fixture(scope="module")
def training(tmp_path_factory):
    """A CSV of four standardised breast-cancer features, string labels and a school column, and
    an unpenalised model fitted on it by the command."""
    from sklearn.datasets import load_breast_cancer

    folder = tmp_path_factory.mktemp("robust")
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, [0, 1, 4, 8]]
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    frame = pd.DataFrame(X, columns=["radius", "texture", "smooth", "symm"]).assign(
        label=np.where(y == 1, "benign", "malignant"), school=[f"s{i % 23}" for i in range(len(y))],
        region=[f"r{(i // 3) % 7}" for i in range(len(y))])
    data = folder / "cancer.csv"
    frame.to_csv(data, index=False)
    model = folder / "m.linclass"
    assert main(["fit", "--model", "logistic", "--param", "penalty=None", "--param", "tol=1e-10",
                 "--data", str(data), "--target", "label", "--drop", "school", "region",
                 "--out", str(model)]) == 0
    return data, model, frame


@pytest.mark.parametrize("cov_type", ["HC0", "HC1", "HC2", "HC3", "cluster", "two-way"])
def test_summary_prints_the_robust_table(cov_type, training, capsys):
    """Each --cov-type (and --groups with two columns: two-way clustering) prints the standard
    errors summary(cov_type=...) computes from the same rows."""
    data, model, frame = training
    extra, groups = [], None
    if cov_type == "cluster":
        extra, groups = ["--groups", "school"], frame["school"]
    if cov_type == "two-way":
        cov_type = "cluster"
        extra = ["--groups", "school", "region"]
        groups = np.c_[frame["school"].to_numpy(), frame["region"].to_numpy()]
    code, out, err = cli(["summary", "--model-file", model, "--cov-type", cov_type, *extra,
                          "--data", data, "--target", "label"], capsys)
    assert code == 0, err
    assert re.search(rf"Covariance Type:\s+{cov_type}\b", out)
    fitted = linclass.load(model)
    X = frame[["radius", "texture", "smooth", "symm"]]
    expected = fitted.summary(cov_type=cov_type, X=X, y=frame["label"], groups=groups)
    printed = printed_std_errors(out, expected.names)
    np.testing.assert_allclose(printed, expected.std_err[0], atol=5e-4)
    plain = printed_std_errors(cli(["summary", "--model-file", model], capsys)[1], expected.names)
    assert not np.allclose(plain, printed, atol=1e-3)


@pytest.mark.parametrize("correction", ["stata", "statsmodels", "none"])
def test_cluster_correction_is_the_summarys(correction, training, capsys):
    """--cluster-correction chooses the small-sample factor as summary(cluster_correction=...)
    does, and the header names it with the number of clusters."""
    data, model, frame = training
    code, out, err = cli(["summary", "--model-file", model, "--cov-type", "cluster", "--groups",
                          "school", "--cluster-correction", correction, "--data", data,
                          "--target", "label"], capsys)
    assert code == 0, err
    expected = linclass.load(model).summary(
        cov_type="cluster", X=frame[["radius", "texture", "smooth", "symm"]], y=frame["label"],
        groups=frame["school"], cluster_correction=correction)
    np.testing.assert_allclose(printed_std_errors(out, expected.names), expected.std_err[0],
                               atol=5e-4)
    assert re.search(r"No\. Clusters:\s+23\b", out), out
    factor = {"stata": "G/(G-1)", "statsmodels": "G/(G-1)(N-1)/(N-k)", "none": "none"}[correction]
    assert re.search(rf"Cluster Correction:\s+{re.escape(factor)}\s", out), out


def test_scaled_model_on_a_bundled_dataset(tmp_path, capsys):
    model = tmp_path / "scaled.linclass"
    features = ["--features", "0", "1", "4"]
    assert main(["fit", "--model", "logistic", "--param", "penalty=None", "--dataset",
                 "breast_cancer", *features, "--scale", "--out", str(model)]) == 0
    capsys.readouterr()
    code, out, err = cli(["summary", "--model-file", model, "--cov-type", "HC1", "--dataset",
                          "breast_cancer"], capsys)
    assert code == 0, err
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    X, y = data.data, data.target_names[data.target]  # the command's labels
    wrapper = linclass.load(model)
    Z = (X[:, [0, 1, 4]] - wrapper.mean_) / wrapper.scale_
    expected = wrapper.estimator_.summary(cov_type="HC1", X=Z, y=y)
    names = ["const", "mean radius", "mean texture", "mean smoothness"]
    np.testing.assert_allclose(printed_std_errors(out, names), expected.std_err[0], atol=5e-4)


def test_misuses_are_one_error_line(training, tmp_path, capsys):
    data, model, _ = training
    rows = ["--data", data, "--target", "label"]
    cases = [
        (["--cov-type", "HC1"], 2, "computed from the training rows"),
        (["--cov-type", "cluster", *rows], 2, "needs --groups COL"),
        (["--cov-type", "HC0", "--groups", "school", *rows], 2, "--groups is used by --cov-type cluster"),
        (["--groups", "school"], 2, "--groups and --cluster-correction go with --cov-type cluster"),
        (["--cov-type", "HC0", "--cluster-correction", "none", *rows], 2,
         "--cluster-correction goes with --cov-type cluster"),
        (["--cov-type", "HC4", *rows], 2, "invalid choice"),
        (["--cov-type", "cluster", "--groups", "district", *rows], 1, "district"),
        (["--cov-type", "HC0", "--data", data], 2, "--target"),
    ]
    for args, status, words in cases:
        code, out, err = cli(["summary", "--model-file", model, *args], capsys)
        if words == "invalid choice":
            assert code == 2 and words in err
            continue
        line = one_error_line(code, err, out)
        assert code == status and words in line, (args, line)
    penalised, lda = tmp_path / "l2.linclass", tmp_path / "lda.linclass"
    assert main(["fit", "--model", "logistic", "--dataset", "iris", "--out", str(penalised)]) == 0
    assert main(["fit", "--model", "lda", "--dataset", "iris", "--out", str(lda)]) == 0
    capsys.readouterr()
    code, out, err = cli(["summary", "--model-file", penalised, "--cov-type", "HC0", "--dataset",
                          "iris"], capsys)
    line = one_error_line(code, err, out)
    assert code == 1 and "unpenalised fits" in line and "--param penalty=None" in line
    code, out, err = cli(["summary", "--model-file", lda, "--cov-type", "HC0", "--dataset", "iris"],
                         capsys)
    line = one_error_line(code, err, out)
    assert code == 2 and "LinearDiscriminantAnalysis has no inference table" in line


def test_profile_intervals_of_an_unpenalised_fit(tmp_path, capsys):
    """--ci profile with the training rows: R's exact profile ends (tests/data/r/profile_confint.R)
    to the printed 3 decimals; without the rows, one error line that says how to give them."""
    from pathlib import Path

    here = Path(__file__).parent / "data" / "r"
    data = tmp_path / "birthwt.csv"
    pd.read_csv(here / "profile_confint_data.csv").drop(columns=["race", "freq"]).to_csv(
        data, index=False)
    model = tmp_path / "glm.linclass"
    assert main(["fit", "--model", "logistic", "--param", "penalty=None", "--data", str(data),
                 "--target", "low", "--out", str(model)]) == 0
    capsys.readouterr()
    code, out, err = cli(["summary", "--model-file", model, "--ci", "profile", "--data", data,
                          "--target", "low"], capsys)
    assert code == 0, err
    ref = pd.read_csv(here / "profile_confint.csv")
    ref = ref[(ref.model == "binary") & (ref.level == 0.95)]
    table = out[out.index("P>chi2"):].splitlines()
    for name, lower, upper in zip(ref.parameter, ref.exact_lower, ref.exact_upper):
        line = next(line for line in table if line.startswith(name + " "))
        np.testing.assert_allclose([float(v) for v in line.split()[-2:]], [lower, upper], atol=5e-4)
    code, out, err = cli(["summary", "--model-file", model, "--ci", "profile"], capsys)
    line = one_error_line(code, err, out)
    assert code == 2 and "--data FILE --target COL" in line and "penalty=None" in line
