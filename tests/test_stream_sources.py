"""Chunked sources get the checks an array in memory gets (issue 41, finding 7).

A CSV with one value 1.3e306 was refused in memory ("Input X holds values too large ... Rescale the
features") but fitted with ``--chunksize`` into "Eigenvalues did not converge" (LDA, QDA, Fisher), a
model of NaN (GaussianNB) or a saved non-converged logistic fit; the same for a damaged Parquet file
whose page decodes to such a value and for Dask arrays.  Every source now gets the in-memory checks
(NaN / infinity, values whose squares overflow, for the models that square X the limit of
``check_magnitude`` and its underflow, complex values), and the messages name the file and row (or
the row of the array) where the bad value is.
"""

from __future__ import annotations

import re
import struct

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine

import linclass as lc
from conftest import cli, one_error_line
from linclass.sources.chunks import fit_chunked
from linclass.sources.files import FileSource

HUGE = 1.3e306
TOO_LARGE = r"Input X holds values too large for {}'s arithmetic \(largest magnitude {}"


def _wine_frame() -> pd.DataFrame:
    return load_wine(as_frame=True).frame


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """wine with one huge value (row 51 of the file, column 'ash'), one in the limit between
    the statistics models' and logistic regression's, and one with a feature too small to square."""
    root = tmp_path_factory.mktemp("sources")
    out = {}
    for name, row, value in (("huge", 50, HUGE), ("mid", 50, 1e153)):
        frame = _wine_frame()
        frame.loc[row, "ash"] = value
        frame.to_csv(root / f"{name}.csv", index=False)
        out[name] = root / f"{name}.csv"
    frame = _wine_frame()
    frame["ash"] = frame["ash"] * 1e-160
    frame.to_csv(root / "tiny.csv", index=False)
    out["tiny"] = root / "tiny.csv"
    return out


def _error(args, capsys) -> str:
    """The one error line of ``linclass ARGS`` (and no traceback, no warning)."""
    code, out, err = cli(args, capsys)
    return one_error_line(code, err, out)


MODELS = {"lda": "LinearDiscriminantAnalysis", "qda": "QuadraticDiscriminantAnalysis",
          "gnb": "GaussianNB", "fisher": "FisherDiscriminantAnalysis", "rda-cv":
          "RegularizedDiscriminantAnalysisCV", "logistic": "LogisticRegression",
          "logistic-cv": "LogisticRegressionCV",
          "kfda": "KernelFisherDiscriminantAnalysis"}
# kernel Fisher reads chunks with Nystroem features only
EXTRA = {"kfda": ["--param", "approximation=nystroem", "--param", "n_landmarks=20"]}


@pytest.mark.parametrize("model, extra", [*((m, EXTRA.get(m, [])) for m in MODELS),
                                          ("rda-cv", ["--param", "cv=5"])])
def test_command_line_refuses_a_huge_value_with_chunksize_as_in_memory(model, extra, files, tmp_path,
                                                                        capsys):
    base = ["fit", "--model", model, *extra, "--data", files["huge"], "--target", "target",
            "--out", tmp_path / "m.linclass"]
    memory = _error(base, capsys)
    chunked = _error([*base, "--chunksize", "40"], capsys)
    for line in (memory, chunked):
        assert re.search(TOO_LARGE.format(MODELS[model], "1.3e\\+306"), line), line
        assert "Rescale the features" in line
    assert f"at '{files['huge']}' row 51, column 'ash'" in chunked
    assert not (tmp_path / "m.linclass").exists()


def test_command_line_logistic_limit_is_the_in_memory_one(files, tmp_path, capsys):
    """1e153: its square is finite (the statistics models fit it, in memory and in chunks), but the
    sums of squares of 178 x 13 such values are not, which logistic regression refuses in memory;
    in chunks it did fit. Values too small to square are refused alike, naming the feature."""
    for data, model, expected in (("mid", "logistic", "too large"), ("mid", "logistic-cv", "too large"),
                                  ("tiny", "logistic", "too small"), ("tiny", "logistic-cv", "too small")):
        base = ["fit", "--model", model, "--data", files[data], "--target", "target",
                "--out", tmp_path / "m.linclass"]
        memory = _error(base, capsys)
        chunked = _error([*base, "--chunksize", "40"], capsys)
        assert expected in memory and expected in chunked, (memory, chunked)
        if data == "tiny":
            assert "feature(s) ['ash']" in chunked and MODELS[model] in chunked
    code, out, _ = cli(["fit", "--model", "lda", "--data", files["mid"], "--target", "target",
                        "--out", tmp_path / "m.linclass", "--chunksize", "40"], capsys)
    assert code == 0, out


def _damaged_parquet(path):
    """wine as Parquet (plain encoding, no compression), then one 8-byte value of column 'ash' in
    its data page overwritten by the bytes of 1.3e306: a file damaged on disk that still decodes."""
    frame = _wine_frame()
    marker = 7.654321  # a value found once in the file: row 51 of 'ash'
    frame.loc[50, "ash"] = marker
    frame.to_parquet(path, compression="none", use_dictionary=False, write_statistics=False,
                     index=False)
    raw = path.read_bytes()
    at = raw.index(struct.pack("<d", marker))
    assert raw.count(struct.pack("<d", marker)) == 1
    path.write_bytes(raw[:at] + struct.pack("<d", HUGE) + raw[at + 8:])
    return path


def test_damaged_parquet_pages_are_refused_in_chunks_naming_file_and_row(tmp_path):
    path = _damaged_parquet(tmp_path / "wine.parquet")
    for model in (lc.LinearDiscriminantAnalysis(), lc.QuadraticDiscriminantAnalysis(),
                  lc.LogisticRegression()):
        name = type(model).__name__
        with pytest.raises(ValueError, match=TOO_LARGE.format(name, "1.3e\\+306") +
                           f", at '{path}' row 51, column 'ash'"):
            fit_chunked(model, FileSource(path, "target", 40))
    frame = pd.read_parquet(path)  # in memory: the same refusal
    with pytest.raises(ValueError, match=TOO_LARGE.format("LinearDiscriminantAnalysis", "1.3e\\+306")):
        lc.LinearDiscriminantAnalysis().fit(frame.drop(columns="target"), frame["target"])
    dd = pytest.importorskip("dask.dataframe")  # and through Dask: the partition's row and column
    parts = dd.read_parquet(path)
    with pytest.raises(ValueError, match=TOO_LARGE.format("QuadraticDiscriminantAnalysis", "1.3e\\+306")
                       + r", at row 50 of chunk 0, column 'ash'"):
        lc.QuadraticDiscriminantAnalysis().fit(parts.drop(columns="target"), parts["target"])


def test_several_files_name_the_file_and_its_own_row(files):
    source = FileSource([files["mid"], files["huge"]], "target", 40)
    with pytest.raises(ValueError, match=f"at '{files['huge']}' row 51, column 'ash'"):
        fit_chunked(lc.GaussianNB(), source)


def test_dask_arrays_get_the_in_memory_checks():
    da = pytest.importorskip("dask.array")
    X, y = load_wine(return_X_y=True)
    bad = X.copy()
    bad[50, 2] = HUGE
    Xd, yd = da.from_array(bad, chunks=(40, 13)), da.from_array(y, chunks=40)
    for model in (lc.LinearDiscriminantAnalysis(), lc.QuadraticDiscriminantAnalysis(),
                  lc.GaussianNB(), lc.LogisticRegression()):
        name = type(model).__name__
        with pytest.raises(ValueError, match=TOO_LARGE.format(name, "1.3e\\+306")):
            model.fit(bad, y)
        with pytest.raises(ValueError, match=TOO_LARGE.format(name, "1.3e\\+306") +
                           ", at row 50, column 2"):
            model.fit(Xd, yd)
    with pytest.raises(ValueError, match="too large.*at row 50, column 2"):  # partial_fit too
        lc.LinearDiscriminantAnalysis().partial_fit(Xd, yd)
    nan = X.copy()
    nan[77, 4] = np.nan
    with pytest.raises(ValueError, match=r"chunk 1 \(rows from 40\): Input X contains NaN .*first at "
                                         r"row 77, column 4\)"):
        lc.LinearDiscriminantAnalysis().fit(da.from_array(nan, chunks=(40, 13)), yd)
    with pytest.raises(ValueError, match="Complex data not supported"):
        lc.LinearDiscriminantAnalysis().fit(da.from_array(X + 0j, chunks=(40, 13)), yd)


def test_a_finite_source_fits_as_before(files):
    """The checks change nothing for good data: chunks equal memory."""
    frame = _wine_frame()
    whole = lc.LinearDiscriminantAnalysis().fit(frame.drop(columns="target"), frame["target"])
    path = files["huge"].parent / "good.csv"
    frame.to_csv(path, index=False)
    chunked = fit_chunked(lc.LinearDiscriminantAnalysis(), FileSource(path, "target", 40))
    np.testing.assert_allclose(chunked.predict_proba(frame.drop(columns="target")),
                               whole.predict_proba(frame.drop(columns="target")), atol=1e-12)
