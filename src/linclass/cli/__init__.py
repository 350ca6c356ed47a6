"""The ``linclass`` command: fit, predict, evaluate, compare, plot and summarise models from a shell.

Subcommands (``linclass COMMAND --help`` for each)::

    linclass fit      --model lda --dataset iris --out iris-lda.linclass
    linclass predict  --model-file iris-lda.linclass --data new.csv --proba --out predictions.csv
    linclass evaluate --model logistic --data train.csv --target label --cv 5
    linclass compare  --dataset wine --cv 5
    linclass plot     --model qda --dataset iris --kind regions --features 2 3 --out regions.png
    linclass summary  --model-file iris-logistic.linclass

A user's mistake (missing file, unknown column or model, non-numeric feature, bad ``--param``, a file
that is not a model) prints one line, ``linclass: error: ...``, and exits with status 2 (usage) or 1
(data or model); set ``LINCLASS_DEBUG=1`` to see the traceback instead.  Warnings print as one line
each.  A progress bar (tqdm, when installed) shows on long work, only when stderr is a terminal.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from linclass.core.progress import progress
from linclass import registry
from linclass.io.datasets import DATASETS, DataError, load_dataset, read_table

__all__ = ["MODELS", "main", "make_model", "parse_param"]

#: the command's model names (``--model``), from the registry: alias -> registry entry
MODELS: dict[str, registry.Entry] = {e.alias: e for e in registry.ENTRIES if e.alias is not None}
_KERNEL_EXACT_MAX_ROWS = 3000  # above this, compare uses the Nystroem approximation (exact is O(n^3))
_PLOT_FORMATS = (".png", ".svg", ".pdf")
_PLOT_KINDS = ("regions", "fisher", "contours", "curve")
_PLOT_MODELS = {kind: tuple(a for a, e in MODELS.items() if e.can(capability))
                for kind, capability in (("contours", "gaussian"), ("curve", "curve"))}
_SEED = 0
_NUMBER = re.compile(r"\d+(\.\d+)?(e[-+]?\d+)?")


class UsageError(Exception):
    """A mistake on the command line: exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake raises :class:`UsageError` (one line, no usage dump)."""

    def error(self, message):
        raise UsageError(f"{message} (see '{self.prog} --help')")


# ------------------------------------------------------------------------------------ models
def _model_name(text: str) -> str:
    """A model alias from an alias or a class name (any case; '_' for '-')."""
    key = text.strip().lower().replace("_", "-")
    by_class = {e.name.lower(): alias for alias, e in MODELS.items()}
    key = by_class.get(key, key)
    if key not in MODELS:
        raise argparse.ArgumentTypeError(f"unknown model {text!r}; choose from: {', '.join(MODELS)}")
    return key


def parse_param(text: str) -> tuple[str, object]:
    """``'C=0.5'`` -> ``('C', 0.5)``: the value as None, bool, int, float, JSON list/dict, else str."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
        raise argparse.ArgumentTypeError(f"--param {text!r} is not of the form key=value (e.g. C=0.5)")
    value = raw.strip()
    lowered = value.lower()
    if lowered in ("none", "null"):
        return key, None
    if lowered in ("true", "false"):
        return key, lowered == "true"
    if re.fullmatch(r"[+-]?\d+", value):
        return key, int(value)
    try:
        return key, float(value)
    except ValueError:
        pass
    if value[:1] in "[{":
        try:
            return key, json.loads(value)
        except json.JSONDecodeError as exc:
            raise argparse.ArgumentTypeError(f"--param {text!r}: the value is not valid JSON ({exc})")
    return key, value


def make_model(name: str, params: dict | None = None):
    """A fresh estimator for a model alias, with ``params`` set (for a meta-estimator such as
    ovr-logistic, a parameter that the wrapper does not have goes to the wrapped estimator)."""
    entry = MODELS[name]
    model = entry.make()
    cls_name = entry.name
    params = dict(params or {})
    valid = model.get_params(deep=True)
    for key in list(params):
        if key not in valid and f"estimator__{key}" in valid:
            params[f"estimator__{key}"] = params.pop(key)
    unknown = [key for key in params if key not in valid]
    if unknown:
        names = sorted(k for k in valid if not k.startswith("estimator__") and k != "estimator")
        names += sorted(k.removeprefix("estimator__") for k in valid if k.startswith("estimator__"))
        raise UsageError(f"unknown parameter {unknown[0]!r} for {name} ({cls_name}); its parameters "
                         f"are: {', '.join(dict.fromkeys(names))}")
    # reproducible runs: a seeded model gets seed 0 unless the user chose one
    for key in ("random_state", "estimator__random_state"):
        if key in valid and key not in params:
            params[key] = _SEED
    return model.set_params(**params)


# -------------------------------------------------------------------------------------- data
@dataclass
class _Data:
    X: np.ndarray
    y: np.ndarray | None
    feature_names: list[str]
    source: str

    def describe(self) -> str:
        text = f"{self.source} ({self.X.shape[0]} rows, {self.X.shape[1]} features"
        if self.y is not None:
            text += f", {np.unique(self.y).size} classes"
        return text + ")"


def _load(args, *, need_target: bool = True, features=None) -> _Data:
    """The data named by --dataset or by --data/--target (``features`` selects columns by name)."""
    if args.dataset is not None:
        if getattr(args, "target", None) is not None:
            raise UsageError("--target goes with --data; a --dataset has its own labels")
        X, y, names, target_names = load_dataset(args.dataset)
        if target_names is not None:
            y = np.asarray(target_names)[y]
        if features is not None:
            missing = [f for f in features if f not in names]
            if missing:
                raise DataError(f"data set {args.dataset!r} has no feature {missing[0]!r}; the model "
                                f"needs: {', '.join(map(repr, features))}")
            X = X[:, [names.index(f) for f in features]]
            names = list(features)
        return _Data(X, y, names, args.dataset)
    if need_target and args.target is None:
        raise UsageError("--data needs --target COLUMN (the column of class labels)")
    X, y, names = read_table(args.data, args.target, features=features)
    return _Data(X, y, names, args.data)


def _frame(X: np.ndarray, names):
    """X with column names (a DataFrame, so a fitted model records ``feature_names_in_``) when
    pandas is installed; else X itself."""
    try:
        import pandas as pd
    except ImportError:
        return X
    return pd.DataFrame(X, columns=list(names))


def _check_cv(data: _Data, cv: int) -> None:
    counts = np.unique(data.y, return_counts=True)[1]
    if counts.size < 2:
        raise DataError(f"{data.source} has a single class; classification needs at least two")
    if cv > counts.max():
        raise DataError(f"--cv {cv} is more folds than {data.source} has samples of any class "
                        f"(largest class: {counts.max()}); use a smaller --cv")
    if cv > counts.min():
        classes, counts = np.unique(data.y, return_counts=True)
        print(f"linclass: warning: class {classes[np.argmin(counts)]!r} has {counts.min()} samples, "
              f"fewer than the {cv} folds: some test folds lack it", file=sys.stderr)


def _accuracy(predicted: np.ndarray, y: np.ndarray) -> float:
    """Share of equal labels; labels of different kinds (1 and '1') compare as text."""
    predicted, y = np.asarray(predicted), np.asarray(y)
    if predicted.dtype.kind != y.dtype.kind:
        predicted, y = predicted.astype(str), y.astype(str)
    return float(np.mean(predicted == y))


# --------------------------------------------------------------------------- cross-validation
@dataclass
class _Tally:
    """Per-fold results of one model: accuracy, log-loss (None without predict_proba), fit time."""

    classes: np.ndarray
    accuracy: list = field(default_factory=list)
    log_loss: list | None = field(default_factory=list)
    fit_seconds: list = field(default_factory=list)
    confusion: np.ndarray | None = None
    warnings: dict = field(default_factory=dict)

    def add_fold(self, model, X, y, train, test) -> None:
        start = time.perf_counter()
        model.fit(X[train], y[train])
        self.fit_seconds.append(time.perf_counter() - start)
        predicted = model.predict(X[test])
        self.accuracy.append(float(np.mean(predicted == y[test])))
        from sklearn.metrics import confusion_matrix

        fold = confusion_matrix(y[test], predicted, labels=self.classes)
        self.confusion = fold if self.confusion is None else self.confusion + fold
        if self.log_loss is not None and hasattr(model, "predict_proba"):
            self.log_loss.append(_log_loss(y[test], model.predict_proba(X[test]), model.classes_))
        else:
            self.log_loss = None


def _log_loss(y: np.ndarray, proba: np.ndarray, classes: np.ndarray) -> float:
    """Mean negative log-probability of the true class (a class unseen in training gets 1e-15)."""
    index = {label: k for k, label in enumerate(classes.tolist())}
    p = np.array([proba[i, index[label]] if label in index else 0.0 for i, label in enumerate(y.tolist())])
    return float(-np.mean(np.log(np.clip(p, 1e-15, 1.0))))


def _splits(data: _Data, cv: int) -> list:
    from sklearn.model_selection import StratifiedKFold

    with warnings.catch_warnings():  # "the least populated class has only n members": said below
        warnings.simplefilter("ignore", UserWarning)
        return list(StratifiedKFold(n_splits=cv, shuffle=True, random_state=_SEED).split(data.X, data.y))


def _record_warnings(tally: _Tally, caught) -> None:
    """Count each kind of warning once per fold: its first sentence, numbers aside (they vary by
    fold); the text shown is the first fold's."""
    seen = set()
    for w in caught:
        text = f"{w.category.__name__}: {_one_line(w.message).split('. ')[0].rstrip('.')}"
        key = _NUMBER.sub("#", text)
        if key not in seen:
            seen.add(key)
            shown, count = tally.warnings.get(key, (text, 0))
            tally.warnings[key] = (shown, count + 1)


def _cross_validate(names: list[str], makers: dict, data: _Data, cv: int, desc: str):
    """Run every model on the same stratified folds. Returns ({name: _Tally}, {name: error})."""
    splits = _splits(data, cv)
    classes = np.unique(data.y)
    tallies = {name: _Tally(classes) for name in names}
    failed: dict[str, str] = {}
    tasks = [(name, split) for name in names for split in splits]
    bar = progress(tasks, desc=desc, total=len(tasks))
    for name, (train, test) in bar:
        if name in failed:
            continue
        if hasattr(bar, "set_postfix_str"):
            bar.set_postfix_str(name, refresh=False)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                tallies[name].add_fold(makers[name](), data.X, data.y, train, test)
            except UsageError:
                raise
            except Exception as exc:  # one model's failure must not end a comparison
                if len(names) == 1:
                    raise
                failed[name] = _one_line(f"{type(exc).__name__}: {exc}")
        _record_warnings(tallies[name], caught)
    return tallies, failed


def _print_warnings(label: str, tally: _Tally, folds: int) -> None:
    for text, count in tally.warnings.values():
        print(f"linclass: warning: {label}: {text} (in {count} of {folds} folds)", file=sys.stderr)


# ------------------------------------------------------------------------------------ output
def _table(header: list[str], rows: list[list[str]], right: set[int] = frozenset()) -> str:
    widths = [max(len(str(r[j])) for r in [header, *rows]) for j in range(len(header))]

    def line(row):
        cells = [str(c).rjust(w) if j in right else str(c).ljust(w)
                 for j, (c, w) in enumerate(zip(row, widths))]
        return "  ".join(cells).rstrip()

    return "\n".join([line(header), "  ".join("-" * w for w in widths), *map(line, rows)])


def _plus_minus() -> str:
    """'±' where stdout can show it, else '+/-'."""
    try:
        "±".encode(getattr(sys.stdout, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return "+/-"
    return "±"


def _mean_sd(values) -> str:
    return f"{np.mean(values):.3f} {_plus_minus()} {np.std(values):.3f}"


def _write_atomic(path: Path, text: str) -> None:
    path = Path(path)
    if not path.parent.is_dir():
        raise DataError(f"cannot write {str(path)!r}: directory {str(path.parent)!r} does not exist")
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as handle:
            handle.write(text)
        umask = os.umask(0)  # mkstemp makes the file private; give it the usual permissions
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


# ---------------------------------------------------------------------------------- commands
def _fit_streaming(args, model):
    """--chunksize: fit from the file a chunk at a time (bounded memory), then one more pass for the
    training accuracy.  Returns (seconds, accuracy, description)."""
    from linclass.sources.chunks import fit_chunked, supports_chunks
    from linclass.io.datasets import FileSource

    if args.data is None:
        raise UsageError("--chunksize goes with --data FILE (a bundled --dataset is small)")
    if args.target is None:
        raise UsageError("--data needs --target COLUMN (the column of class labels)")
    if not supports_chunks(model):
        raise UsageError(f"--chunksize: {type(model).__name__} needs all rows in memory; chunked "
                         "fits work for lda, qda, gnb, gda, the naive Bayes models, fisher and "
                         "logistic")
    source = FileSource(args.data, args.target, args.chunksize)
    start = time.perf_counter()
    with warnings.catch_warnings():  # chunks are NumPy; the names come from the file's header
        warnings.filterwarnings("ignore", message=".*feature names.*", category=UserWarning)
        fit_chunked(model, source)
        seconds = time.perf_counter() - start
        right = rows = 0
        for chunk in source.chunks():
            right += _accuracy(model.predict(chunk.X), chunk.y) * chunk.X.shape[0]
            rows += chunk.X.shape[0]
    return seconds, right / rows, (f"{args.data} ({rows} rows, {source.n_features} features, read "
                                   f"{args.chunksize} rows at a time)")


def _cmd_fit(args) -> int:
    from linclass.io.persistence import UnsupportedObjectError, save

    model = make_model(args.model, args.params)
    if args.chunksize is not None:
        seconds, accuracy, described = _fit_streaming(args, model)
    else:
        data = _load(args)
        described = data.describe()
        start = time.perf_counter()
        model.fit(_frame(data.X, data.feature_names), data.y)
        seconds = time.perf_counter() - start
        accuracy = _accuracy(model.predict(_frame(data.X, data.feature_names)), data.y)
    try:
        path = save(model, args.out)
    except UnsupportedObjectError as exc:  # e.g. a parameter value that cannot be stored safely
        raise DataError(f"cannot save the model: {exc}") from None
    print(f"fitted {type(model).__name__} on {described} in {seconds:.3g} s; "
          f"training accuracy {accuracy:.3f}; saved to {path}")
    return 0


def _load_model(path: str):
    from linclass.io.persistence import load

    if not Path(path).exists():
        raise DataError(f"{path!r}: no such model file")
    return load(path)


# What using a loaded model raises when its file holds values that are each valid but do not fit
# together (load() checks the format, the types and the checksums, not that classes_ matches coef_):
# a hand-edited or hostile file must give the one-line error, not a traceback.  ValueError is not
# here: main() reports it as it is (it is also how the estimators refuse the user's data).
_UNUSABLE_MODEL = (TypeError, LookupError, AttributeError, ArithmeticError, RuntimeError)


def _uses_model_file(command):
    def run(args) -> int:
        try:
            return command(args)
        except _UNUSABLE_MODEL as exc:
            raise DataError(f"the model in {args.model_file!r} cannot be used: its fitted state is "
                            f"inconsistent ({type(exc).__name__}: {_one_line(exc)})") from exc
    return run


@_uses_model_file
def _cmd_predict(args) -> int:
    model = _load_model(args.model_file)
    if args.proba and not hasattr(model, "predict_proba"):
        raise DataError(f"{type(model).__name__} gives no probabilities; drop --proba")
    names = getattr(model, "feature_names_in_", None)
    names = None if names is None else [str(n) for n in names]
    data = _load(args, need_target=False, features=names)
    expected = getattr(model, "n_features_in_", data.X.shape[1])
    if data.X.shape[1] != expected:
        raise DataError(f"the model expects {expected} features; {data.source} has "
                        f"{data.X.shape[1]} ({', '.join(data.feature_names)})")
    X = _frame(data.X, data.feature_names) if names is not None else data.X
    with warnings.catch_warnings():  # columns were matched by name already
        warnings.filterwarnings("ignore", message=".*feature names.*", category=UserWarning)
        predicted = model.predict(X)
        proba = model.predict_proba(X) if args.proba else None
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header = ["prediction"]
    if proba is not None:
        header += [f"proba_{c}" for c in model.classes_]
    writer.writerow(header)
    for i, label in enumerate(predicted.tolist()):
        row = [label] + ([repr(float(p)) for p in proba[i]] if proba is not None else [])
        writer.writerow(row)
    if args.out:
        _write_atomic(Path(args.out), buffer.getvalue())
        print(f"wrote {len(predicted)} predictions to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(buffer.getvalue())
    if data.y is not None:
        print(f"accuracy: {_accuracy(predicted, data.y):.4f} on {len(predicted)} rows", file=sys.stderr)
    return 0


def _cmd_evaluate(args) -> int:
    data = _load(args)
    _check_cv(data, args.cv)
    make_model(args.model, args.params)  # check the parameters before any work
    tallies, _ = _cross_validate([args.model], {args.model: lambda: make_model(args.model, args.params)},
                                 data, args.cv, desc=f"evaluate {args.model}")
    tally = tallies[args.model]
    cls = MODELS[args.model].name
    print(f"{args.model} ({cls}) on {data.describe()}")
    print(f"{args.cv}-fold stratified cross-validation (shuffled, seed {_SEED})\n")
    rows = [["accuracy", f"{np.mean(tally.accuracy):.4f}", f"{np.std(tally.accuracy):.4f}"]]
    if tally.log_loss is not None:
        rows.append(["log-loss", f"{np.mean(tally.log_loss):.4f}", f"{np.std(tally.log_loss):.4f}"])
    rows.append(["fit seconds", f"{np.mean(tally.fit_seconds):.4f}", f"{np.std(tally.fit_seconds):.4f}"])
    print(_table(["metric", "mean", "sd"], rows, right={1, 2}))
    if tally.log_loss is None:
        print(f"(no log-loss: {cls} gives no probabilities)")
    print("\nconfusion matrix, summed over folds (rows: true class, columns: predicted)")
    labels = [str(c) for c in tally.classes]
    print(_table(["true \\ predicted", *labels],
                 [[label, *map(str, row)] for label, row in zip(labels, tally.confusion)],
                 right=set(range(1, len(labels) + 1))))
    _print_warnings(args.model, tally, args.cv)
    return 0


def _applicable(name: str, data: _Data) -> str | None:
    """Why model ``name`` does not fit the data (None: it does)."""
    if MODELS[name].can("counts"):
        X = data.X
        bad = (X < 0) | (X != np.round(X))
        if bad.any():
            i, j = np.argwhere(bad)[0]
            return (f"features are not non-negative counts or binary (column "
                    f"{data.feature_names[j]!r} holds {X[i, j]:g})")
    return None


def _cmd_compare(args) -> int:
    data = _load(args)
    _check_cv(data, args.cv)
    names = args.models or list(MODELS)
    skipped: dict[str, str] = {}
    if not args.models:
        for name in names:
            reason = _applicable(name, data)
            if reason:
                skipped[name] = reason
    names = [n for n in names if n not in skipped]
    labels = {n: n for n in names}
    params = {n: {} for n in names}
    for n in names:  # an exact kernel fit costs O(n^3): approximate on large data
        if MODELS[n].can("kernel") and data.X.shape[0] > _KERNEL_EXACT_MAX_ROWS:
            params[n] = {"approximation": "nystroem", "random_state": _SEED}
            labels[n] = f"{n} (nystroem)"
    makers = {n: (lambda n=n: make_model(n, params[n])) for n in names}
    tallies, failed = _cross_validate(names, makers, data, args.cv, desc="compare")
    done = [n for n in names if n not in failed]
    if not done:
        reasons = {**skipped, **failed}
        raise DataError("no model could be compared: " + "; ".join(f"{n}: {r}" for n, r in reasons.items()))
    done.sort(key=lambda n: (-np.mean(tallies[n].accuracy),
                             np.mean(tallies[n].log_loss) if tallies[n].log_loss else np.inf))
    if args.format == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(["model", "accuracy_mean", "accuracy_sd", "log_loss", "fit_seconds"])
        for n in done:
            t = tallies[n]
            writer.writerow([labels[n], f"{np.mean(t.accuracy):.6f}", f"{np.std(t.accuracy):.6f}",
                             "" if t.log_loss is None else f"{np.mean(t.log_loss):.6f}",
                             f"{np.mean(t.fit_seconds):.6f}"])
    else:
        print(f"{data.describe()}: {args.cv}-fold stratified cross-validation (shuffled, seed {_SEED})\n")
        rows = [[labels[n], _mean_sd(t.accuracy),
                 "-" if t.log_loss is None else f"{np.mean(t.log_loss):.4f}",
                 f"{np.mean(t.fit_seconds):.4f}"] for n in done for t in [tallies[n]]]
        print(_table(["model", f"accuracy (mean {_plus_minus()} sd)", "log-loss", "fit seconds"], rows,
                     right={2, 3}))
        if skipped or failed:
            print("\nnot compared:")
            for n, reason in {**skipped, **{k: f"failed: {v}" for k, v in failed.items()}}.items():
                print(f"  {n}: {reason}")
    for n in done:
        _print_warnings(labels[n], tallies[n], args.cv)
    return 0


def _feature_indices(spec, names: list[str]) -> list[int]:
    out = []
    for item in spec:
        if re.fullmatch(r"\d+", item):
            j = int(item)
            if j >= len(names):
                raise UsageError(f"--features {item}: the data has features 0..{len(names) - 1}")
        elif item in names:
            j = names.index(item)
        else:
            raise UsageError(f"--features {item!r} is neither an index nor a feature name; features: "
                             f"{', '.join(map(repr, names))}")
        out.append(j)
    if len(set(out)) != len(out):
        raise UsageError("--features names the same feature twice")
    return out


def _cmd_plot(args) -> int:
    if args.kind != "fisher" and args.model is None:
        raise UsageError(f"--kind {args.kind} needs --model NAME")
    if args.kind in _PLOT_MODELS and args.model not in _PLOT_MODELS[args.kind]:
        raise UsageError(f"--kind {args.kind} draws {', '.join(_PLOT_MODELS[args.kind])} models; "
                         f"not {args.model}")
    data = _load(args)
    if args.classes:
        keep = np.isin(np.asarray(data.y).astype(str), args.classes)
        found = set(np.asarray(data.y)[keep].astype(str))
        lost = [c for c in args.classes if c not in found]
        if lost:
            raise DataError(f"--classes: no class {lost[0]!r} in {data.source}; classes: "
                            f"{', '.join(map(str, np.unique(data.y)))}")
        data = _Data(data.X[keep], data.y[keep], data.feature_names, data.source)
    from linclass.inspect import plot

    if args.kind == "fisher":
        columns = _feature_indices(args.features, data.feature_names) if args.features else None
        X = data.X if columns is None else data.X[:, columns]
        classes = np.unique(data.y)
        if classes.size != 2:
            raise DataError(f"--kind fisher compares two classes; {data.source} has {classes.size} "
                            f"({', '.join(map(str, classes[:10]))}): choose two with --classes A B")
        plot.fisher_figure(X, data.y, path=args.out)
    else:
        columns = _feature_indices(args.features or ["0", "1"], data.feature_names)
        if args.kind in ("regions", "contours") and len(columns) != 2:
            raise UsageError(f"--kind {args.kind} draws two features; --features takes two")
        if args.kind == "curve" and not args.features:
            columns = list(range(data.X.shape[1]))
        names = [data.feature_names[j] for j in columns]
        X = data.X[:, columns]
        model = make_model(args.model, args.params).fit(X, data.y)
        if args.kind == "regions":
            plot.decision_regions(model, X, data.y, feature_names=names, path=args.out)
        elif args.kind == "contours":
            plot.gaussian_contours(model, X, data.y, path=args.out)
        else:
            plot.training_curve(model, path=args.out)
    print(f"wrote {args.out}")
    return 0


def _short(value) -> str:
    if isinstance(value, np.ndarray):
        text = np.array2string(value, precision=4, threshold=8, edgeitems=2, max_line_width=10_000)
        return f"shape {value.shape}, {value.dtype}: {_one_line(text)}"
    if isinstance(value, (int, float, str, bool, np.generic)) or value is None:
        return repr(value.item() if isinstance(value, np.generic) else value)
    if isinstance(value, (list, tuple, dict)):
        text = _one_line(repr(value))
        return text if len(text) <= 80 else text[:77] + "..."
    return type(value).__name__


@_uses_model_file
def _cmd_summary(args) -> int:
    model = _load_model(args.model_file)
    cls = type(model)
    print(f"model file: {args.model_file}")
    print(f"class: {cls.__module__.split('.')[0]}.{cls.__name__}")
    print("\nparameters:")
    for key, value in sorted(model.get_params(deep=False).items()):
        shown = _one_line(repr(value)) if hasattr(value, "get_params") else _short(value)
        print(f"  {key} = {shown}")
    print("\nfitted attributes:")
    for key in sorted(k for k in vars(model) if k.endswith("_") and not k.startswith("_")):
        print(f"  {key}: {_short(getattr(model, key))}")
    from linclass.estimators import LogisticRegression

    if isinstance(model, LogisticRegression):
        print()
        try:
            print(model.summary())
        except (ValueError, AttributeError, KeyError) as exc:
            print(f"(no inference table: {_one_line(exc)})")
    return 0


# ------------------------------------------------------------------------------------ parser
def _integer_at_least(minimum: int, what: str):
    """An argparse type: an integer >= ``minimum``, refused with a message naming ``what``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be an integer >= {minimum}; got "
                                             f"{text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{what} must be an integer >= {minimum}; got {value}")
        return value
    return parse


_positive_cv = _integer_at_least(2, "--cv")
_positive_int = _integer_at_least(1, "--chunksize")


def _dataset_name(text: str) -> str:
    key = text.strip().lower().replace("-", "_")
    if key not in DATASETS:
        raise argparse.ArgumentTypeError(f"unknown data set {text!r}; choose from: {', '.join(DATASETS)}")
    return key


def _figure_path(text: str) -> str:
    if Path(text).suffix.lower() not in _PLOT_FORMATS:
        raise argparse.ArgumentTypeError(f"--out {text!r} must end in {', '.join(_PLOT_FORMATS)}")
    return text


def _model_help() -> str:
    width = max(map(len, MODELS))
    lines = [f"  {alias.ljust(width)}  {e.name}: {e.summary}" for alias, e in MODELS.items()]
    return "models (--model):\n" + "\n".join(lines) + "\n\ndata sets (--dataset): " + ", ".join(DATASETS)


def _add_data(parser, *, target_required_note: str = "required with --data") -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--data", metavar="FILE", help="CSV (.csv, .tsv, .csv.gz) or Parquet file")
    source.add_argument("--dataset", metavar="NAME", type=_dataset_name,
                        help=f"bundled data set: {', '.join(DATASETS)}")
    parser.add_argument("--target", metavar="COL", help=f"label column of --data ({target_required_note})")


def _add_model(parser, *, required: bool = True) -> None:
    parser.add_argument("--model", metavar="NAME", type=_model_name, required=required,
                        help=f"model: {', '.join(MODELS)}")
    parser.add_argument("--param", metavar="KEY=VALUE", type=parse_param, action="append", default=[],
                        dest="params", help="model parameter, repeatable (e.g. --param C=0.5)")


def build_parser() -> argparse.ArgumentParser:
    """The ``linclass`` argument parser."""
    fmt = argparse.RawDescriptionHelpFormatter
    parser = _Parser(prog="linclass", formatter_class=fmt, epilog=_model_help(),
                     description="Fit, evaluate and compare the classic linear classifiers.")
    from linclass import __version__

    parser.add_argument("--version", action="version", version=f"linclass {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def command(name, text, example):
        return commands.add_parser(name, help=text, description=text, formatter_class=fmt,
                                   epilog=f"example:\n  {example}\n\n{_model_help()}")

    p = command("fit", "fit a model and save it", "linclass fit --model lda --dataset iris --out lda.linclass")
    _add_model(p)
    _add_data(p)
    p.add_argument("--out", metavar="MODEL_FILE", required=True, help="where to save the model")
    p.add_argument("--chunksize", metavar="ROWS", type=_positive_int, default=None,
                   help="read --data this many rows at a time (memory stays bounded whatever the "
                        "file's size; for lda, qda, gnb, gda, naive Bayes, fisher, logistic)")
    p.set_defaults(run=_cmd_fit)

    p = command("predict", "predict with a saved model (CSV on stdout or --out)",
                "linclass predict --model-file lda.linclass --data new.csv --proba")
    p.add_argument("--model-file", metavar="FILE", required=True)
    _add_data(p, target_required_note="optional: then it is not a feature, and accuracy is reported")
    p.add_argument("--proba", action="store_true", help="add a probability column per class")
    p.add_argument("--out", metavar="CSV", help="write here (atomically) instead of stdout")
    p.set_defaults(run=_cmd_predict)

    p = command("evaluate", "cross-validated accuracy, log-loss, confusion matrix, fit time",
                "linclass evaluate --model logistic --dataset wine --cv 5")
    _add_model(p)
    _add_data(p)
    p.add_argument("--cv", metavar="K", type=_positive_cv, default=5, help="folds (default 5)")
    p.set_defaults(run=_cmd_evaluate)

    p = command("compare", "cross-validate every applicable model on one data set",
                "linclass compare --dataset iris --cv 5 --models lda qda logistic")
    _add_data(p)
    p.add_argument("--cv", metavar="K", type=_positive_cv, default=5, help="folds (default 5)")
    p.add_argument("--models", metavar="NAME", nargs="+", type=_model_name,
                   help="models to compare (default: every applicable one)")
    p.add_argument("--format", choices=("table", "csv"), default="table")
    p.set_defaults(run=_cmd_compare)

    p = command("plot", "draw a figure: decision regions, Fisher projections, Gaussian contours, "
                "training curve", "linclass plot --model qda --dataset iris --kind regions --out r.png")
    _add_model(p, required=False)
    _add_data(p)
    p.add_argument("--kind", choices=_PLOT_KINDS, required=True)
    p.add_argument("--features", metavar="F", nargs=2,
                   help="two features (index from 0 or name) for 2-D plots (default: the first two)")
    p.add_argument("--classes", metavar="C", nargs="+", help="keep only these classes")
    p.add_argument("--out", metavar="FIG", type=_figure_path, required=True,
                   help=f"figure file ({', '.join(_PLOT_FORMATS)})")
    p.set_defaults(run=_cmd_plot)

    p = command("summary", "describe a saved model (and LogisticRegression's inference table)",
                "linclass summary --model-file logistic.linclass")
    p.add_argument("--model-file", metavar="FILE", required=True)
    p.set_defaults(run=_cmd_summary)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None):
    print(f"linclass: warning: {category.__name__}: {_one_line(message)}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run the ``linclass`` command; returns the exit status."""
    debug = bool(os.environ.get("LINCLASS_DEBUG"))
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            args = build_parser().parse_args(argv)
            return args.run(args)
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else 0
    except UsageError as exc:
        if debug:
            raise
        print(f"linclass: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as exc:  # DataError, ModelFileError, an estimator's input checks
        if isinstance(exc, BrokenPipeError):  # `linclass predict ... | head`: not an error
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 0
        if debug:
            raise
        print(f"linclass: error: {_one_line(exc)}", file=sys.stderr)
        return 1
    except ImportError as exc:  # an optional dependency (matplotlib, pyarrow) is not installed
        optional = exc.name in ("matplotlib", "pyarrow", "pandas") or "pip install" in str(exc)
        if debug or not optional:
            raise
        print(f"linclass: error: {_one_line(exc)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("linclass: interrupted", file=sys.stderr)
        return 130
