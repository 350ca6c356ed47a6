"""The seven commands: fit, evaluate, compare and summary here, predict in
:mod:`~linclass.cli.prediction`, plot in :mod:`~linclass.cli.figures`, export in
:mod:`~linclass.cli.exporting`.  Each takes the parsed arguments and returns the exit status; what
goes wrong is raised (:class:`~linclass.cli.errors.UsageError`,
:class:`~linclass.sources.tables.DataError`, ...) and reported by :func:`linclass.cli.main`."""

from __future__ import annotations

import contextlib
import csv
import signal
import sys
import threading
import time
import warnings

import numpy as np

from linclass import registry
from linclass.cli.data import chosen_file_features, frame, labels, load
from linclass.cli.errors import UsageError
from linclass.exceptions import TrainingRowsNeeded
from linclass.cli.evaluation import accuracy, check_folds, cross_validate, print_warnings
from linclass.cli.exporting import export
from linclass.cli.figures import plot
from linclass.cli.formatting import (command_line, jsonable, mean_sd, one_line, plus_minus,
                                    print_json, short, table)
from linclass.cli.model_files import load_model, uses_model_file
from linclass.cli.models import (MODELS, SEED, inapplicable, make_model, models_that,
                                 parameter_names, scale_hint)
from linclass.cli.passes import watching
from linclass.cli.prediction import predict
from linclass.cli.stdin import named
from linclass.sources.tables import DataError

__all__ = ["COMMANDS"]

_KERNEL_EXACT_MAX_ROWS = 3000  # above this, compare uses the Nystroem approximation (exact is O(n^3))
_MAX_CONFUSION_CLASSES = 20  # evaluate prints the full confusion matrix up to this many classes
_TOP_CONFUSIONS = 15  # ... and above it, this many of the most frequent confusions

def _fit_streaming(args, model):
    """--chunksize: fit from the files a chunk at a time (bounded memory); with --train-score, one
    more pass for the training accuracy.  Returns (seconds, accuracy or None, description)."""
    from linclass.cli.passes import CountedSource
    from linclass.sources.file_sets import describe_files
    from linclass.sources.files import FileSource
    from linclass.sources.chunks import chunks_refusal, fit_chunked, supports_chunks

    if args.data is None:
        raise UsageError("--chunksize goes with --data FILE (a bundled --dataset is small)")
    if args.target is None:
        raise UsageError("--data needs --target COLUMN (the column of class labels)")
    if not supports_chunks(model):
        refusal = chunks_refusal(model)  # the model fits chunks with other settings: say which
        why = (f"{type(model).__name__} needs all rows in memory" if refusal is None
               else command_line(refusal, parameter_names()).rstrip("."))
        raise UsageError(f"--chunksize: {why}; chunked fits work for "
                         f"{', '.join(models_that('chunks'))}")
    source = CountedSource(FileSource(args.data, args.target, args.chunksize,
                                      features=chosen_file_features(args),
                                      cache=False if args.no_cache else "auto",
                                      cache_dir=args.cache_dir), verbose=args.verbose)
    start = time.perf_counter()
    # the decoded blocks serve the fit's later passes and --train-score's (removed at the end,
    # also when the command is stopped by SIGTERM)
    with warnings.catch_warnings(), _terminate_as_exit(), source.caching():
        # chunks are NumPy; the names come from the file's header
        warnings.filterwarnings("ignore", message=".*feature names.*", category=UserWarning)
        try:
            fit_chunked(model, source)
        except ValueError as exc:  # the model's parameters need every row at once
            if isinstance(exc, DataError) or " in memory" not in str(exc):
                raise
            raise UsageError(f"--chunksize: {command_line(one_line(exc), parameter_names())} Leave "
                             "out --chunksize to fit on the whole file in memory.") from None
        seconds = time.perf_counter() - start
        passes = source.passes
        score = None
        if args.train_score:
            right = rows = 0
            for chunk in source.chunks():
                right += accuracy(model.predict(chunk.X), chunk.y) * chunk.X.shape[0]
                rows += chunk.X.shape[0]
            score = right / rows
    return seconds, score, (f"{named(describe_files(args.data))} ({source.rows} rows, {source.n_features} "
                            f"features, read {args.chunksize} rows at a time; "
                            f"{passes} pass{'es' * (passes != 1)} over the data)")


@contextlib.contextmanager
def _terminate_as_exit():
    """SIGTERM ends the command as an exception would (exit status 143), so that what it holds on
    disk (the cache of decoded blocks) is removed; the default handler ends the process at once."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise SystemExit(128 + signal.SIGTERM)

    before = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def fit(args) -> int:
    """Fit a model on all rows (or chunk by chunk) and save it."""
    from linclass.io.persistence import UnsupportedObjectError, save

    if args.scale and args.chunksize is not None:
        raise UsageError("--scale needs the rows in memory: it goes without --chunksize")
    if (args.no_cache or args.cache_dir is not None) and args.chunksize is None:
        raise UsageError("--no-cache and --cache-dir go with --chunksize (a fit in memory reads "
                         "the data once)")
    if args.train_score and args.chunksize is None:
        raise UsageError("--train-score goes with --chunksize (a fit in memory always reports "
                         "its training accuracy)")
    model = make_model(args.model, args.params, scale=args.scale)
    if args.chunksize is not None:
        seconds, score, described = _fit_streaming(args, model)
    else:
        data = load(args)
        described = data.describe()
        start = time.perf_counter()
        with watching(model, f"fitting {args.model}"):
            model.fit(frame(data.X, data.feature_names), labels(data, args.model))
        seconds = time.perf_counter() - start
        score = accuracy(model.predict(frame(data.X, data.feature_names)), data.y)
    try:
        path = save(model, args.out)
    except UnsupportedObjectError as exc:  # e.g. a parameter value that cannot be stored safely
        raise DataError(f"cannot save the model: {exc}") from None
    scored = "" if score is None else f"training accuracy {score:.3f}; "
    if not args.quiet:
        print(f"fitted {type(model).__name__} on {described} in {seconds:.3g} s; {scored}saved to {path}")
    return 0


@uses_model_file
def summary(args) -> int:
    """A saved model's parameters and fitted attributes (and a logistic model's inference table,
    with --ci's intervals and --cov-type's covariance, from the training rows of --data)."""
    model = load_model(args.model_file)
    rows = _training_rows(args, model)
    inference, table_text = _inference_table(model, args.ci, args.cov_type, rows)  # before output
    cls = type(model)
    if args.format == "json":
        fitted = sorted(k for k in vars(model) if k.endswith("_") and not k.startswith("_"))
        print_json({
            "model_file": str(args.model_file),
            "class": f"{cls.__module__.split('.')[0]}.{cls.__name__}",
            "parameters": {key: (one_line(repr(value)) if hasattr(value, "get_params") else value)
                           for key, value in sorted(model.get_params(deep=False).items())},
            "fitted_attributes": {key: getattr(model, key) for key in fitted},
            "inference": None if table_text is None else _inference_json(inference, table_text),
        })
        return 0
    print(f"model file: {args.model_file}")
    print(f"class: {cls.__module__.split('.')[0]}.{cls.__name__}")
    print("\nparameters:")
    for key, value in sorted(model.get_params(deep=False).items()):
        shown = one_line(repr(value)) if hasattr(value, "get_params") else short(value)
        print(f"  {key} = {shown}")
    print("\nfitted attributes:")
    for key in sorted(k for k in vars(model) if k.endswith("_") and not k.startswith("_")):
        print(f"  {key}: {short(getattr(model, key))}")
    if table_text is not None:
        print()
        print(table_text)
    return 0


def _inference_json(table, text: str) -> dict:
    """The inference table as JSON: its text as printed, and its fields (coefficients, standard
    errors, p-values, intervals, header facts) when it is a record."""
    fields = jsonable(table)
    return {"text": text, **(fields if isinstance(fields, dict) else {})}


def _training_rows(args, model) -> dict:
    """The training rows of --data / --dataset (and the clusters of --groups) as ``summary``'s
    keyword arguments ``X``, ``y``, ``groups``: the model's features by name.  Empty without
    --data / --dataset."""
    if args.data is None and args.dataset is None:
        if args.cov_type != "nonrobust":
            raise UsageError(f"--cov-type {args.cov_type} is computed from the training rows: give "
                             "them with --data FILE --target COL (or --dataset NAME)")
        if args.groups is not None or args.cluster_correction is not None:
            raise UsageError("--groups and --cluster-correction go with --cov-type cluster and "
                             "--data FILE")
        return {}
    if args.groups is not None and args.cov_type != "cluster":
        raise UsageError(f"--groups is used by --cov-type cluster only (not {args.cov_type})")
    if args.groups is None and args.cov_type == "cluster":
        raise UsageError("--cov-type cluster needs --groups COL: the column of cluster labels")
    if args.cluster_correction is not None and args.cov_type != "cluster":
        raise UsageError(f"--cluster-correction goes with --cov-type cluster (not "
                         f"{args.cov_type})")
    names = getattr(model, "feature_names_in_", None)
    names = None if names is None else [str(n) for n in names]
    data = load(args, need_target=True, features=names)
    expected = getattr(model, "n_features_in_", data.X.shape[1])
    if data.X.shape[1] != expected:
        raise DataError(f"the model expects {expected} features; {data.source} has "
                        f"{data.X.shape[1]} ({', '.join(data.feature_names)})")
    # (a --scale model standardises them itself: StandardizedClassifier.summary)
    X = frame(data.X, data.feature_names) if names is not None else data.X
    rows = {"X": X, "y": data.y}
    if args.groups is not None:
        rows["groups"] = _groups(args)
    if args.cluster_correction is not None:
        rows["cluster_correction"] = args.cluster_correction
    return rows


def _groups(args) -> np.ndarray:
    """The cluster labels of --groups: columns of --data (any type), or features of --dataset;
    one column, or one per way of clustering (n, ways)."""
    from linclass.datasets import load_dataset
    from linclass.sources.tables import feature_columns, read_table

    columns = [args.groups] if isinstance(args.groups, str) else list(args.groups)
    if args.data is not None:
        ways = []
        for column in columns:
            others = [c for c in feature_columns(args.data, column)]
            _, groups, _ = read_table(args.data, column, features=others[:1])
            ways.append(np.asarray(groups))
    else:
        X, _, names, _ = load_dataset(args.dataset)
        missing = [c for c in columns if c not in names]
        if missing:
            raise DataError(f"--groups {' '.join(map(repr, missing))}: data set {args.dataset!r} "
                            f"has no such column; its features: {', '.join(map(repr, names))}")
        ways = [X[:, names.index(c)] for c in columns]
    if len(ways) == 1:
        return ways[0]
    out = np.empty((ways[0].shape[0], len(ways)), dtype=object)
    for k, way in enumerate(ways):
        out[:, k] = way
    return out


def _inference_table(model, ci: str, cov_type: str = "nonrobust", rows: dict | None = None
                     ) -> tuple[object, str | None]:
    """The model's inference table (``model.summary(ci=ci, cov_type=cov_type, **rows)``) and its
    text as the command prints it, its hints in command-line spelling; (None, None) for a model
    without one (the text alone when it could not be computed).  A --ci or --cov-type that does
    not apply is an error that says what does."""
    rows = rows or {}
    asked = [f"--ci {ci}"] * (ci == "profile") + [f"--cov-type {cov_type}"] * (cov_type != "nonrobust")
    entry = registry.by_class(type(model))
    if entry is None or not entry.can("inference") or not hasattr(model, "summary"):
        if asked:
            raise UsageError(f"{asked[0]}: {type(model).__name__} has no inference table; profile "
                             "intervals and robust covariances are for logistic regression")
        if hasattr(model, "summary"):  # LDA's, as MASS prints it
            table = model.summary()
            return table, str(table)
        return None, None
    inner = getattr(model, "estimator_", model)  # the logistic model inside --scale's wrapper
    penalty = getattr(inner, "penalty", None)
    if ci == "profile" and penalty != "firth" and not rows:
        raise UsageError("--ci profile: profile intervals are computed for Firth fits (--param "
                         "penalty=firth) and, from the training rows (--data FILE --target COL or "
                         "--dataset NAME), for unpenalised fits (--param penalty=None); this model "
                         f"was fitted with penalty={penalty!r}")
    kwargs = {"ci": ci}
    if asked or ci == "profile":
        kwargs.update(cov_type=cov_type, **rows)
    try:
        table = model.summary(**kwargs)
        return table, command_line(table, parameter_names())
    except TrainingRowsNeeded:
        raise UsageError("--ci profile: this Firth model was saved before its profile intervals "
                         "were computed, and a model file does not keep the training rows they "
                         "need: give them with --data FILE --target COL (or --dataset NAME)") from None
    except (ValueError, AttributeError, KeyError) as exc:
        if asked:
            raise ValueError(f"{' '.join(asked)}: {command_line(one_line(exc), parameter_names())} "
                             "Leave out " + " and ".join(asked) + " for the Wald table.") from None
        return None, f"(no inference table: {command_line(one_line(exc), parameter_names())})"


# ------------------------------------------------------------------------- cross-validation
def evaluate(args) -> int:
    """One model's cross-validated accuracy, log-loss, fit time and confusion matrix."""
    data = load(args)
    check_folds(data, args.cv)
    make_model(args.model, args.params)  # check the parameters before any work
    maker = {args.model: lambda: make_model(args.model, args.params, scale=args.scale)}
    tallies, _ = cross_validate([args.model], maker, data, args.cv, desc=f"evaluate {args.model}")
    tally = tallies[args.model]
    cls = MODELS[args.model].name
    if args.format == "json":
        print_json({"model": args.model, "class": cls, "scaled": args.scale,
                    "data": _data_json(data), "cv": _cv_json(args.cv),
                    "metrics": {"accuracy": _folds_json(tally.accuracy),
                                "log_loss": (None if tally.log_loss is None
                                             else _folds_json(tally.log_loss)),
                                "fit_seconds": _folds_json(tally.fit_seconds)},
                    "classes": tally.classes, "confusion_matrix": tally.confusion,
                    "warnings": _warnings_json(tally, args.cv)})
        print_warnings(args.model, tally, args.cv)
        return 0
    scaled = ", standardised features" if args.scale else ""
    print(f"{args.model} ({cls}{scaled}) on {data.describe()}")
    print(f"{args.cv}-fold stratified cross-validation (shuffled, seed {SEED})\n")
    rows = [["accuracy", f"{np.mean(tally.accuracy):.4f}", f"{np.std(tally.accuracy):.4f}"]]
    if tally.log_loss is not None:
        rows.append(["log-loss", f"{np.mean(tally.log_loss):.4f}", f"{np.std(tally.log_loss):.4f}"])
    rows.append(["fit seconds", f"{np.mean(tally.fit_seconds):.4f}", f"{np.std(tally.fit_seconds):.4f}"])
    print(table(["metric", "mean", "sd"], rows, right={1, 2}))
    if tally.log_loss is None:
        print(f"(no log-loss: {cls} gives no probabilities)")
    _print_confusion(tally)
    print_warnings(args.model, tally, args.cv)
    _print_scale_hint(args, [args.model], data)
    return 0


def _data_json(data) -> dict:
    return {"source": data.source, "rows": int(data.X.shape[0]), "features": data.feature_names,
            "classes": int(np.unique(data.y).size)}


def _cv_json(folds: int) -> dict:
    return {"folds": folds, "stratified": True, "shuffled": True, "seed": SEED}


def _folds_json(values) -> dict:
    """A metric's mean, standard deviation and median over the folds, and each fold's value."""
    return {"mean": float(np.mean(values)), "sd": float(np.std(values)),
            "median": float(np.median(values)), "folds": [float(v) for v in values]}


def _warnings_json(tally, folds: int) -> list:
    return [{"warning": text, "folds": count, "of": folds} for text, count in tally.warnings.values()]


def _print_scale_hint(args, names, data) -> None:
    """The --scale hint, on stderr, when it applies (see :func:`~linclass.cli.models.scale_hint`);
    none with --quiet."""
    hint = None if args.scale or args.quiet else scale_hint(names, data.X, data.feature_names)
    if hint:
        print(f"linclass: hint: {hint}", file=sys.stderr)


def _print_confusion(tally) -> None:
    """The confusion matrix summed over folds; above :data:`_MAX_CONFUSION_CLASSES` classes, the most
    frequent confusions instead, with a note."""
    labels = [str(c) for c in tally.classes]
    K = len(labels)
    if K <= _MAX_CONFUSION_CLASSES:
        print("\nconfusion matrix, summed over folds (rows: true class, columns: predicted)")
        print(table(["true \\ predicted", *labels],
                    [[label, *map(str, row)] for label, row in zip(labels, tally.confusion)],
                    right=set(range(1, K + 1))))
        return
    off = tally.confusion.astype(float)
    np.fill_diagonal(off, 0)
    order = np.argsort(-off, axis=None, kind="stable")[:_TOP_CONFUSIONS]
    pairs = [(i, j) for i, j in zip(*np.unravel_index(order, off.shape)) if off[i, j] > 0]
    print(f"\nconfusion matrix: {K} classes, too many for a {K} x {K} table (at most "
          f"{_MAX_CONFUSION_CLASSES} are printed);\nthe most frequent confusions, summed over folds:")
    if not pairs:
        print("(none: every prediction was right)")
        return
    print(table(["true class", "predicted as", "count"],
                [[labels[i], labels[j], str(int(tally.confusion[i, j]))] for i, j in pairs], right={2}))


#: how compare times the fits (printed under its table)
_TIMING_NOTE = ("fit seconds: the median over the folds, each model timed after one untimed "
                "warm-up fit (imports, compiled loops)")


def compare(args) -> int:
    """Every applicable model (or those named) on the same folds, best accuracy first; fit seconds
    are the median over the folds, after an untimed warm-up fit of each model
    (:func:`~linclass.cli.evaluation.cross_validate`)."""
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
    makers = {n: (lambda n=n: make_model(n, params[n], scale=args.scale)) for n in names}
    tallies, failed = cross_validate(names, makers, data, args.cv, desc="compare")
    done = [n for n in names if n not in failed]
    if not done:
        reasons = {**skipped, **failed}
        raise DataError("no model could be compared: " + "; ".join(f"{n}: {r}" for n, r in reasons.items()))
    done.sort(key=lambda n: (-np.mean(tallies[n].accuracy),
                             np.mean(tallies[n].log_loss) if tallies[n].log_loss else np.inf))
    if args.format == "json":
        print_json({
            "data": _data_json(data), "cv": _cv_json(args.cv), "scaled": args.scale,
            "models": [{"model": labels[n], "accuracy": _folds_json(t.accuracy),
                        "log_loss": None if t.log_loss is None else _folds_json(t.log_loss),
                        "fit_seconds": _folds_json(t.fit_seconds),
                        "warnings": _warnings_json(t, args.cv)}
                       for n in done for t in [tallies[n]]],
            "not_compared": {**skipped, **{k: f"failed: {v}" for k, v in failed.items()}},
            "timing": _TIMING_NOTE})
    elif args.format == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(["model", "accuracy_mean", "accuracy_sd", "log_loss", "fit_seconds"])
        for n in done:
            t = tallies[n]
            writer.writerow([labels[n], f"{np.mean(t.accuracy):.6f}", f"{np.std(t.accuracy):.6f}",
                             "" if t.log_loss is None else f"{np.mean(t.log_loss):.6f}",
                             f"{np.median(t.fit_seconds):.6f}"])
    else:
        scaled = "; standardised features" if args.scale else ""
        print(f"{data.describe()}: {args.cv}-fold stratified cross-validation (shuffled, seed {SEED})"
              f"{scaled}\n")
        rows = [[labels[n], mean_sd(t.accuracy),
                 "-" if t.log_loss is None else f"{np.mean(t.log_loss):.4f}",
                 f"{np.median(t.fit_seconds):.4f}"] for n in done for t in [tallies[n]]]
        print(table(["model", f"accuracy (mean {plus_minus()} sd)", "log-loss", "fit seconds"], rows,
                    right={2, 3}))
        print(f"\n{_TIMING_NOTE}")
        if skipped or failed:
            print("\nnot compared:")
            for n, reason in {**skipped, **{k: f"failed: {v}" for k, v in failed.items()}}.items():
                print(f"  {n}: {reason}")
    for n in done:
        print_warnings(labels[n], tallies[n], args.cv)
    _print_scale_hint(args, done, data)
    return 0


#: command name -> the function that runs it
COMMANDS = {"fit": fit, "predict": predict, "evaluate": evaluate, "compare": compare, "plot": plot,
            "summary": summary, "export": export}
