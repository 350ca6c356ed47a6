"""The six commands: fit, predict, evaluate, compare, plot, summary.  Each takes the parsed
arguments and returns the exit status; what goes wrong is raised (:class:`~linclass.cli.errors.
UsageError`, :class:`~linclass.io.datasets.DataError`, ...) and reported by :func:`linclass.cli.main`."""

from __future__ import annotations

import csv
import io
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from linclass import registry
from linclass.cli.data import Data, feature_indices, frame, keep_classes, load
from linclass.cli.errors import UsageError
from linclass.cli.evaluation import accuracy, check_folds, cross_validate, print_warnings
from linclass.cli.formatting import mean_sd, one_line, plus_minus, short, table
from linclass.cli.models import FIGURE_MODELS, MODELS, SEED, inapplicable, make_model, models_that
from linclass.io.atomic import atomic_write
from linclass.io.datasets import DataError

__all__ = ["COMMANDS"]

_KERNEL_EXACT_MAX_ROWS = 3000  # above this, compare uses the Nystroem approximation (exact is O(n^3))

# What using a loaded model raises when its file holds values that are each valid but do not fit
# together (load() checks the format, the types and the checksums, not that classes_ matches coef_):
# a hand-edited or hostile file must give the one-line error, not a traceback.  ValueError is not
# here: main() reports it as it is (it is also how the estimators refuse the user's data).
_UNUSABLE_MODEL = (TypeError, LookupError, AttributeError, ArithmeticError, RuntimeError)


# ------------------------------------------------------------------------------ model files
def _load_model(path: str):
    from linclass.io.persistence import load as load_model

    if not Path(path).exists():
        raise DataError(f"{path!r}: no such model file")
    return load_model(path)


def _uses_model_file(command):
    def run(args) -> int:
        try:
            return command(args)
        except _UNUSABLE_MODEL as exc:
            raise DataError(f"the model in {args.model_file!r} cannot be used: its fitted state is "
                            f"inconsistent ({type(exc).__name__}: {one_line(exc)})") from exc
    return run


def _fit_streaming(args, model):
    """--chunksize: fit from the file a chunk at a time (bounded memory), then one more pass for the
    training accuracy.  Returns (seconds, accuracy, description)."""
    from linclass.io.datasets import FileSource
    from linclass.sources.chunks import fit_chunked, supports_chunks

    if args.data is None:
        raise UsageError("--chunksize goes with --data FILE (a bundled --dataset is small)")
    if args.target is None:
        raise UsageError("--data needs --target COLUMN (the column of class labels)")
    if not supports_chunks(model):
        raise UsageError(f"--chunksize: {type(model).__name__} needs all rows in memory; chunked "
                         f"fits work for {', '.join(models_that('chunks'))}")
    source = FileSource(args.data, args.target, args.chunksize)
    start = time.perf_counter()
    with warnings.catch_warnings():  # chunks are NumPy; the names come from the file's header
        warnings.filterwarnings("ignore", message=".*feature names.*", category=UserWarning)
        fit_chunked(model, source)
        seconds = time.perf_counter() - start
        right = rows = 0
        for chunk in source.chunks():
            right += accuracy(model.predict(chunk.X), chunk.y) * chunk.X.shape[0]
            rows += chunk.X.shape[0]
    return seconds, right / rows, (f"{args.data} ({rows} rows, {source.n_features} features, read "
                                   f"{args.chunksize} rows at a time)")


def fit(args) -> int:
    """Fit a model on all rows (or chunk by chunk) and save it."""
    from linclass.io.persistence import UnsupportedObjectError, save

    model = make_model(args.model, args.params)
    if args.chunksize is not None:
        seconds, score, described = _fit_streaming(args, model)
    else:
        data = load(args)
        described = data.describe()
        start = time.perf_counter()
        model.fit(frame(data.X, data.feature_names), data.y)
        seconds = time.perf_counter() - start
        score = accuracy(model.predict(frame(data.X, data.feature_names)), data.y)
    try:
        path = save(model, args.out)
    except UnsupportedObjectError as exc:  # e.g. a parameter value that cannot be stored safely
        raise DataError(f"cannot save the model: {exc}") from None
    print(f"fitted {type(model).__name__} on {described} in {seconds:.3g} s; "
          f"training accuracy {score:.3f}; saved to {path}")
    return 0


@_uses_model_file
def predict(args) -> int:
    """Predictions (and probabilities) of a saved model as CSV, on stdout or written to --out."""
    model = _load_model(args.model_file)
    if args.proba and not hasattr(model, "predict_proba"):
        raise DataError(f"{type(model).__name__} gives no probabilities; drop --proba")
    names = getattr(model, "feature_names_in_", None)
    names = None if names is None else [str(n) for n in names]
    data = load(args, need_target=False, features=names)
    expected = getattr(model, "n_features_in_", data.X.shape[1])
    if data.X.shape[1] != expected:
        raise DataError(f"the model expects {expected} features; {data.source} has "
                        f"{data.X.shape[1]} ({', '.join(data.feature_names)})")
    X = frame(data.X, data.feature_names) if names is not None else data.X
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
        atomic_write(args.out, lambda handle: handle.write(buffer.getvalue()), text=True)
        print(f"wrote {len(predicted)} predictions to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(buffer.getvalue())
    if data.y is not None:
        print(f"accuracy: {accuracy(predicted, data.y):.4f} on {len(predicted)} rows", file=sys.stderr)
    return 0


@_uses_model_file
def summary(args) -> int:
    """A saved model's parameters and fitted attributes (and a logistic model's inference table)."""
    model = _load_model(args.model_file)
    cls = type(model)
    print(f"model file: {args.model_file}")
    print(f"class: {cls.__module__.split('.')[0]}.{cls.__name__}")
    print("\nparameters:")
    for key, value in sorted(model.get_params(deep=False).items()):
        shown = one_line(repr(value)) if hasattr(value, "get_params") else short(value)
        print(f"  {key} = {shown}")
    print("\nfitted attributes:")
    for key in sorted(k for k in vars(model) if k.endswith("_") and not k.startswith("_")):
        print(f"  {key}: {short(getattr(model, key))}")
    entry = registry.by_class(type(model))
    if entry is not None and entry.can("inference"):
        print()
        try:
            print(model.summary())
        except (ValueError, AttributeError, KeyError) as exc:
            print(f"(no inference table: {one_line(exc)})")
    return 0


# ------------------------------------------------------------------------- cross-validation
def evaluate(args) -> int:
    """One model's cross-validated accuracy, log-loss, fit time and confusion matrix."""
    data = load(args)
    check_folds(data, args.cv)
    make_model(args.model, args.params)  # check the parameters before any work
    tallies, _ = cross_validate([args.model], {args.model: lambda: make_model(args.model, args.params)},
                                data, args.cv, desc=f"evaluate {args.model}")
    tally = tallies[args.model]
    cls = MODELS[args.model].name
    print(f"{args.model} ({cls}) on {data.describe()}")
    print(f"{args.cv}-fold stratified cross-validation (shuffled, seed {SEED})\n")
    rows = [["accuracy", f"{np.mean(tally.accuracy):.4f}", f"{np.std(tally.accuracy):.4f}"]]
    if tally.log_loss is not None:
        rows.append(["log-loss", f"{np.mean(tally.log_loss):.4f}", f"{np.std(tally.log_loss):.4f}"])
    rows.append(["fit seconds", f"{np.mean(tally.fit_seconds):.4f}", f"{np.std(tally.fit_seconds):.4f}"])
    print(table(["metric", "mean", "sd"], rows, right={1, 2}))
    if tally.log_loss is None:
        print(f"(no log-loss: {cls} gives no probabilities)")
    print("\nconfusion matrix, summed over folds (rows: true class, columns: predicted)")
    labels = [str(c) for c in tally.classes]
    print(table(["true \\ predicted", *labels],
                [[label, *map(str, row)] for label, row in zip(labels, tally.confusion)],
                right=set(range(1, len(labels) + 1))))
    print_warnings(args.model, tally, args.cv)
    return 0


def compare(args) -> int:
    """Every applicable model (or those named) on the same folds, best accuracy first."""
    data = load(args)
    check_folds(data, args.cv)
    names = args.models or list(MODELS)
    skipped: dict[str, str] = {}
    if not args.models:
        for name in names:
            reason = inapplicable(name, data.X, data.feature_names)
            if reason:
                skipped[name] = reason
    names = [n for n in names if n not in skipped]
    labels = {n: n for n in names}
    params = {n: {} for n in names}
    for n in names:  # an exact kernel fit costs O(n^3): approximate on large data
        if MODELS[n].can("kernel") and data.X.shape[0] > _KERNEL_EXACT_MAX_ROWS:
            params[n] = {"approximation": "nystroem", "random_state": SEED}
            labels[n] = f"{n} (nystroem)"
    makers = {n: (lambda n=n: make_model(n, params[n])) for n in names}
    tallies, failed = cross_validate(names, makers, data, args.cv, desc="compare")
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
        print(f"{data.describe()}: {args.cv}-fold stratified cross-validation (shuffled, seed {SEED})\n")
        rows = [[labels[n], mean_sd(t.accuracy),
                 "-" if t.log_loss is None else f"{np.mean(t.log_loss):.4f}",
                 f"{np.mean(t.fit_seconds):.4f}"] for n in done for t in [tallies[n]]]
        print(table(["model", f"accuracy (mean {plus_minus()} sd)", "log-loss", "fit seconds"], rows,
                    right={2, 3}))
        if skipped or failed:
            print("\nnot compared:")
            for n, reason in {**skipped, **{k: f"failed: {v}" for k, v in failed.items()}}.items():
                print(f"  {n}: {reason}")
    for n in done:
        print_warnings(labels[n], tallies[n], args.cv)
    return 0


# ---------------------------------------------------------------------------------- figures
def plot(args) -> int:
    """One figure of :mod:`linclass.inspect.plot`, written to --out."""
    if args.kind != "fisher" and args.model is None:
        raise UsageError(f"--kind {args.kind} needs --model NAME")
    if args.kind in FIGURE_MODELS and args.model not in FIGURE_MODELS[args.kind]:
        raise UsageError(f"--kind {args.kind} draws {', '.join(FIGURE_MODELS[args.kind])} models; "
                         f"not {args.model}")
    data = load(args)
    if args.classes:
        data = keep_classes(data, args.classes)
    from linclass.inspect import plot as figures

    if args.kind == "fisher":
        _fisher(args, data, figures)
    else:
        columns = feature_indices(args.features or ["0", "1"], data.feature_names)
        if args.kind in ("regions", "contours") and len(columns) != 2:
            raise UsageError(f"--kind {args.kind} draws two features; --features takes two")
        if args.kind == "curve" and not args.features:
            columns = list(range(data.X.shape[1]))
        names = [data.feature_names[j] for j in columns]
        X = data.X[:, columns]
        model = make_model(args.model, args.params).fit(X, data.y)
        if args.kind == "regions":
            figures.decision_regions(model, X, data.y, feature_names=names, path=args.out)
        elif args.kind == "contours":
            figures.gaussian_contours(model, X, data.y, path=args.out)
        else:
            figures.training_curve(model, path=args.out)
    print(f"wrote {args.out}")
    return 0


def _fisher(args, data: Data, figures) -> None:
    columns = feature_indices(args.features, data.feature_names) if args.features else None
    X = data.X if columns is None else data.X[:, columns]
    classes = np.unique(data.y)
    if classes.size != 2:
        raise DataError(f"--kind fisher compares two classes; {data.source} has {classes.size} "
                        f"({', '.join(map(str, classes[:10]))}): choose two with --classes A B")
    figures.fisher_figure(X, data.y, path=args.out)


#: command name -> the function that runs it
COMMANDS = {"fit": fit, "predict": predict, "evaluate": evaluate, "compare": compare, "plot": plot,
            "summary": summary}
