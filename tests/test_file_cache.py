"""Files at scale, the parts that are not the command's: the cache of decoded blocks that serves the
later passes of an iterative fit from a file source (the same coefficients with and without it, in
memory and on disk; its directory removed at the end of the fit, also when the fit raises), a Dask
partition that cannot be read named with its file, and ``verbose=`` on chunked fits."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from conftest import cli
from linclass import LinearDiscriminantAnalysis, LogisticRegression, load, registry
from linclass.exceptions import DataError
from linclass.sources.chunks import fit_chunked
from linclass.sources.files import FileSource

pd = pytest.importorskip("pandas")
pq = pytest.importorskip("pyarrow.parquet")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """breast_cancer, standardised, as one Parquet file (row groups of 100) and one CSV file."""
    from sklearn.datasets import load_breast_cancer

    root = tmp_path_factory.mktemp("cache")
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    X = (X - X.mean()) / X.std()
    frame = X.assign(label=np.where(y == 1, "benign", "malignant"))
    frame.to_parquet(root / "bc.parquet", row_group_size=100, index=False)
    frame.to_csv(root / "bc.csv", index=False)
    return root, X.to_numpy(), frame["label"].to_numpy()


def _passes(source):
    """Wrap ``source.chunks`` to record how each complete pass read the data."""
    seen, chunks = [], source.chunks

    def recorded():
        yield from chunks()
        seen.append(source.last_pass)

    source.chunks = recorded
    return seen


SETTINGS = [dict(cache=False), dict(cache="auto"), dict(cache="auto", cache_memory=0),
            dict(cache="disk")]


@pytest.mark.parametrize("suffix, params, settings", [
    ("parquet", dict(), SETTINGS),
    ("parquet", dict(penalty="l1", C=0.5, solver="cd"), SETTINGS),
    ("csv", dict(), SETTINGS[:3]),
], ids=["parquet-l2", "parquet-l1", "csv-l2"])
def test_cached_and_uncached_fits_agree_exactly(data, tmp_path, suffix, params, settings):
    root, X, y = data
    fits, reads = [], []
    for setting in settings:
        source = FileSource(root / f"bc.{suffix}", "label", 64, cache_dir=tmp_path, **setting)
        seen = _passes(source)
        fits.append(fit_chunked(LogisticRegression(**params), source))
        reads.append(seen)
        assert not list(tmp_path.iterdir())  # removed at the end of the fit
    for fit in fits[1:]:
        np.testing.assert_array_equal(fit.coef_, fits[0].coef_)
        np.testing.assert_array_equal(fit.intercept_, fits[0].intercept_)
        assert fit.n_passes_ == fits[0].n_passes_ > 3
    memory = LogisticRegression(**params).fit(X, y)
    np.testing.assert_allclose(fits[0].coef_, memory.coef_, atol=1e-6)
    n = len(reads[0])
    assert reads[0] == ["decoded"] * n
    assert reads[1] == ["decoded, cached in memory"] + ["from the cache in memory"] * (n - 1)
    assert reads[2] == ["decoded", "decoded, cached on disk"] + ["from the cache on disk"] * (n - 2)
    if len(reads) > 3:
        assert reads[3] == ["decoded, cached on disk"] + ["from the cache on disk"] * (n - 1)


@pytest.mark.parametrize("entry", registry.entries("chunks"), ids=lambda e: e.name)
def test_every_chunked_estimator_fits_the_same_from_the_cache(data, tmp_path, entry):
    """The cached blocks are read-only (memory-mapped from disk here): a fit that changed its
    chunks in place would fail; every fit gives the uncached fit's predictions exactly."""
    root, X, y = data
    if entry.can("counts"):
        X = np.round(np.abs(X) * 3)
        pd.DataFrame(X).assign(label=y).to_parquet(tmp_path / "counts.parquet", index=False)
        path = tmp_path / "counts.parquet"
    else:
        path = root / "bc.parquet"
    fits = []
    for cache in (False, "disk"):
        model = entry.make()
        if "Cs" in model.get_params():  # a small grid: the point is the passes, not the search
            model.set_params(Cs=3, cv=3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a grid edge, a convergence warning: the same for both
            fits.append(fit_chunked(model, FileSource(path, "label", 200, cache=cache)))
    frame = pd.DataFrame(X, columns=fits[0].feature_names_in_)
    method = "predict_proba" if hasattr(fits[0], "predict_proba") else "predict"
    np.testing.assert_array_equal(getattr(fits[1], method)(frame), getattr(fits[0], method)(frame))


def test_a_one_pass_fit_writes_nothing_and_a_source_outside_a_fit_caches_nothing(data, tmp_path):
    root, _, _ = data
    source = FileSource(root / "bc.parquet", "label", 64, cache_dir=tmp_path, cache_memory=0)
    seen = _passes(source)
    fit_chunked(LinearDiscriminantAnalysis(), source)
    assert seen == ["decoded"] and not list(tmp_path.iterdir())
    list(source.chunks()), list(source.chunks())  # no fit: every pass decodes
    assert seen[1:] == ["decoded", "decoded"]


class _Passes:
    """An estimator whose chunked fit reads its source ``passes`` times, listing the cache's
    directory after each pass, then raises (``fail``) or returns."""

    def __init__(self, passes, fail, folder):
        self.passes, self.fail, self.folder, self.listed = passes, fail, folder, []

    def fit_source(self, source):
        for _ in range(self.passes):
            source.map_reduce(lambda chunk: chunk.X.sum(), np.add)
            self.listed.append(sorted(p.name for p in self.folder.rglob("*")))
        if self.fail:
            raise RuntimeError("the fit failed")
        return self


@pytest.mark.parametrize("fail", [False, True])
def test_the_cache_directory_is_removed_at_the_end_of_the_fit_also_when_it_raises(data, tmp_path,
                                                                                   fail):
    root, _, _ = data
    source = FileSource(root / "bc.csv", "label", 100, cache_dir=tmp_path, cache_memory=0)
    model = _Passes(3, fail, tmp_path)
    if fail:
        with pytest.raises(RuntimeError, match="the fit failed"):
            fit_chunked(model, source)
    else:
        fit_chunked(model, source)
    first, second, third = model.listed
    assert first == []  # the first pass writes nothing (mode 'auto' over its memory)
    blocks = [name for name in second if name.endswith(".npy")]
    assert len(blocks) == 2 * 6 and not [n for n in second if n.endswith(".partial")]
    assert third == second
    assert not list(tmp_path.iterdir())


def test_a_pass_left_unfinished_keeps_nothing(data, tmp_path):
    root, X, _ = data
    source = FileSource(root / "bc.parquet", "label", 64, cache="disk", cache_dir=tmp_path)
    with source.caching():
        for _ in source.chunks():
            break  # the reader closed after one block
        assert not list(tmp_path.rglob("*.npy"))
        total = sum(chunk.X.sum(axis=0) for chunk in source.chunks())
        assert source.last_pass == "decoded, cached on disk"
        again = [chunk for chunk in source.chunks()]
        assert source.last_pass == "from the cache on disk"
        assert not again[0].X.flags.writeable  # the cached blocks cannot be changed by a fit
        np.testing.assert_allclose(sum(c.X.sum(axis=0) for c in again), total, rtol=0, atol=0)
        np.testing.assert_array_equal(np.concatenate([c.X for c in again]), X)
        decoded = list(FileSource(root / "bc.parquet", "label", 64).chunks())
        assert [(c.index, c.start) for c in again] == [(c.index, c.start) for c in decoded]
        assert [c.start for c in again][:4] == [0, 64, 100, 164]  # row groups of 100 rows
    assert not list(tmp_path.iterdir())


def test_bad_cache_settings_are_refused(data):
    root, _, _ = data
    with pytest.raises(ValueError, match="cache must be one of"):
        FileSource(root / "bc.csv", "label", 10, cache="yes")
    with pytest.raises(ValueError, match="cache_memory must be a number of bytes"):
        FileSource(root / "bc.csv", "label", 10, cache_memory=-1)
    with pytest.raises(ValueError, match="cache_dir '.*nowhere' is not a directory"):
        FileSource(root / "bc.csv", "label", 10, cache_dir=root / "nowhere")


def test_the_command_reads_the_cache_and_no_cache_decodes_every_pass(data, tmp_path, capsys):
    root, _, _ = data
    models, errors = [], []
    for extra in ((), ("--no-cache",), ("--cache-dir", tmp_path / "cache")):
        (tmp_path / "cache").mkdir(exist_ok=True)
        out = tmp_path / "m.linclass"
        code, text, err = cli(["fit", "--model", "logistic", "--data", root / "bc.parquet",
                               "--target", "label", "--chunksize", "100", "--verbose",
                               "--train-score", "--out", out, *extra], capsys)
        assert code == 0, err
        models.append(load(out))
        errors.append(err.splitlines())
    assert not list((tmp_path / "cache").iterdir())
    for model in models[1:]:
        np.testing.assert_array_equal(model.coef_, models[0].coef_)
    cached, uncached, elsewhere = errors
    assert len(cached) == len(uncached) == models[0].n_passes_ + 1  # and --train-score's pass
    assert "(decoded, cached in memory)" in cached[0]
    assert all("(from the cache in memory)" in line for line in cached[1:])
    assert all("(decoded)" in line for line in uncached)
    code, _, err = cli(["fit", "--model", "lda", "--dataset", "iris", "--no-cache", "--out",
                        tmp_path / "x.linclass"], capsys)
    assert code == 2 and "--no-cache and --cache-dir go with --chunksize" in err


# ---------------------------------------------------------------------------------- Dask


def _damaged(path):
    """``path`` with the header of the data page of its second row group's second column
    overwritten (pyarrow: "Deserializing page header failed")."""
    column = pq.ParquetFile(path).metadata.row_group(1).column(1)
    raw = bytearray(path.read_bytes())
    raw[column.data_page_offset:column.data_page_offset + 16] = b"\xff" * 16
    path.write_bytes(bytes(raw))


@pytest.fixture
def parts(data, tmp_path):
    root, _, _ = data
    frame = pd.read_parquet(root / "bc.parquet")
    folder = tmp_path / "parts"
    folder.mkdir()
    for i, rows in enumerate(np.array_split(np.arange(len(frame)), 3)):
        frame.iloc[rows].to_parquet(folder / f"part-{i}.parquet", row_group_size=100, index=False)
    return folder


@pytest.mark.parametrize("model", [LogisticRegression(), LinearDiscriminantAnalysis()],
                         ids=["logistic", "lda"])
def test_a_dask_partition_that_cannot_be_read_is_named_with_its_file(parts, model):
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")

    _damaged(parts / "part-1.parquet")
    frame = dd.read_parquet(parts)
    with dask.config.set(scheduler="sync"):
        with pytest.raises(DataError, match=r"partition 1 of 3 of the Dask collection \(reading "
                                            r"'[^']*part-1\.parquet'\) cannot be read: .*page header"):
            model.fit(frame.drop(columns="label"), frame["label"])
        with pytest.raises(ValueError, match="Unknown label type") as caught:  # not a read error
            LogisticRegression().fit(dd.read_parquet(parts / "part-0.parquet").drop(
                columns="label"), dd.from_array(np.full(190, 7.5)))
        assert not isinstance(caught.value, DataError)


# ---------------------------------------------------------------------------------- verbose
def test_verbose_prints_a_line_per_pass_on_a_file_source(data, capsys):
    root, _, _ = data
    model = fit_chunked(LogisticRegression(verbose=1), FileSource(root / "bc.parquet", "label", 100))
    err = capsys.readouterr().err.splitlines()
    assert len(err) == model.n_passes_
    assert err[0].startswith("LogisticRegression: pass 1 over the data: 569 rows in 6 chunks "
                             "(decoded, cached in memory), ")
    assert err[-1].startswith(f"LogisticRegression: pass {model.n_passes_} over the data: 569 rows "
                              "in 6 chunks (from the cache in memory), ")


def test_verbose_prints_a_line_per_pass_on_dask(data, capsys):
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")

    root, X, y = data
    frame = dd.from_pandas(pd.read_parquet(root / "bc.parquet"), npartitions=3)
    with dask.config.set(scheduler="sync"):
        model = LogisticRegression(verbose=1).fit(frame.drop(columns="label"), frame["label"])
    err = capsys.readouterr().err.splitlines()
    assert len(err) == model.n_passes_ > 3
    assert all(line.startswith(f"LogisticRegression: pass {i + 1} over the data: 3 partitions, ")
               for i, line in enumerate(err))
    np.testing.assert_allclose(model.coef_, LogisticRegression().fit(X, y).coef_, atol=1e-6)
