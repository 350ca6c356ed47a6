"""Cross-validation for ``evaluate`` and ``compare``: stratified folds, per-fold tallies (accuracy,
log-loss, confusion, fit time), and the warnings each model raised, counted once per fold."""

from __future__ import annotations

import re
import sys
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from linclass.cli.data import Data
from linclass.cli.errors import UsageError
from linclass.cli.formatting import command_line, first_sentence, one_line, plain
from linclass.cli.models import SEED, parameter_names
from linclass.core.progress import progress
from linclass.sources.tables import DataError

__all__ = ["Tally", "accuracy", "check_folds", "cross_validate", "log_loss", "print_warnings"]

_NUMBER = re.compile(r"\d+(\.\d+)?(e[-+]?\d+)?")


def accuracy(predicted: np.ndarray, y: np.ndarray) -> float:
    """Share of equal labels; labels of different kinds (1 and '1') compare as text."""
    predicted, y = np.asarray(predicted), np.asarray(y)
    if predicted.dtype.kind != y.dtype.kind:
        predicted, y = predicted.astype(str), y.astype(str)
    return float(np.mean(predicted == y))


def log_loss(y: np.ndarray, proba: np.ndarray, classes: np.ndarray) -> float:
    """Mean negative log-probability of the true class (a class unseen in training gets 1e-15)."""
    index = {label: k for k, label in enumerate(classes.tolist())}
    p = np.array([proba[i, index[label]] if label in index else 0.0 for i, label in enumerate(y.tolist())])
    return float(-np.mean(np.log(np.clip(p, 1e-15, 1.0))))


def check_folds(data: Data, cv: int) -> None:
    """Refuse a single class or more folds than the largest class has rows; warn when a class has
    fewer rows than folds."""
    counts = np.unique(data.y, return_counts=True)[1]
    if counts.size < 2:
        raise DataError(f"{data.source} has a single class; classification needs at least two")
    if cv > counts.max():
        raise DataError(f"--cv {cv} is more folds than {data.source} has samples of any class "
                        f"(largest class: {counts.max()}); use a smaller --cv")
    if cv > counts.min():
        classes, counts = np.unique(data.y, return_counts=True)
        print(f"linclass: warning: class {plain(classes[np.argmin(counts)])} has {counts.min()} samples, "
              f"fewer than the {cv} folds: some test folds lack it", file=sys.stderr)


@dataclass
class Tally:
    """Per-fold results of one model: accuracy, log-loss (None without predict_proba), fit time,
    the confusion matrix summed over folds, and ``warnings``: key -> (text shown, folds)."""

    classes: np.ndarray
    accuracy: list = field(default_factory=list)
    log_loss: list | None = field(default_factory=list)
    fit_seconds: list = field(default_factory=list)
    confusion: np.ndarray | None = None
    warnings: dict = field(default_factory=dict)

    def add_fold(self, model, X, y, train, test) -> None:
        """Fit ``model`` on the rows ``train``, score it on the rows ``test``."""
        from sklearn.metrics import confusion_matrix

        start = time.perf_counter()
        model.fit(X[train], y[train])
        self.fit_seconds.append(time.perf_counter() - start)
        predicted = model.predict(X[test])
        self.accuracy.append(float(np.mean(predicted == y[test])))
        fold = confusion_matrix(y[test], predicted, labels=self.classes)
        self.confusion = fold if self.confusion is None else self.confusion + fold
        if self.log_loss is not None and hasattr(model, "predict_proba"):
            self.log_loss.append(log_loss(y[test], model.predict_proba(X[test]), model.classes_))
        else:
            self.log_loss = None

    def record_warnings(self, caught) -> None:
        """Count each kind of warning once per fold: its first sentence (whole: see
        :func:`~linclass.cli.formatting.first_sentence`), numbers aside (they vary by fold); the
        text shown is the first fold's."""
        seen = set()
        for w in caught:
            first = first_sentence(w.message)
            text = f"{w.category.__name__}: {command_line(first, parameter_names())}"
            key = _NUMBER.sub("#", text)
            if key not in seen:
                seen.add(key)
                shown, count = self.warnings.get(key, (text, 0))
                self.warnings[key] = (shown, count + 1)


def _splits(data: Data, cv: int) -> list:
    from sklearn.model_selection import StratifiedKFold

    with warnings.catch_warnings():  # "the least populated class has only n members": said above
        warnings.simplefilter("ignore", UserWarning)
        return list(StratifiedKFold(n_splits=cv, shuffle=True, random_state=SEED).split(data.X, data.y))


#: the most rows of the untimed warm-up fit of each model (see :func:`cross_validate`)
WARM_UP_ROWS = 500


def _warm_up(make, data: Data, train: np.ndarray) -> None:
    """One untimed fit of a fresh model on at most :data:`WARM_UP_ROWS` of the first fold's
    training rows (spread over them, so every class is likely in), its result, warnings and
    failure ignored: the process's first fit of a model pays for imports and for compiling its
    loops, which its timed fits should not."""
    rows = train[::max(1, -(-train.size // WARM_UP_ROWS))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            make().fit(data.X[rows], data.y[rows])
        except Exception:  # noqa: BLE001 - the timed fits report what goes wrong
            pass


def cross_validate(names: list[str], makers: dict, data: Data, cv: int, desc: str):
    """Run every model (``makers[name]()`` builds a fresh one) on the same stratified folds.

    Each model is first fitted once, untimed, on a sample of the first fold's training rows
    (:func:`_warm_up`), so that no model's fit times include the process's warm-up (imports,
    compiling loops): without it, the first model listed took 0.116 s a fold where it takes
    0.026 s.  One model's failure does not end a comparison of several: it is returned instead.
    Returns ``({name: Tally}, {name: error text})``.
    """
    splits = _splits(data, cv)
    classes = np.unique(data.y)
    tallies = {name: Tally(classes) for name in names}
    failed: dict[str, str] = {}
    tasks = [(name, split) for name in names for split in splits]
    bar = progress(tasks, desc=desc, total=len(tasks))
    warm = set()
    for name, (train, test) in bar:
        if name in failed:
            continue
        if name not in warm:
            warm.add(name)
            _warm_up(makers[name], data, splits[0][0])
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
                failed[name] = one_line(f"{type(exc).__name__}: {exc}")
        tallies[name].record_warnings(caught)
    return tallies, failed


def print_warnings(label: str, tally: Tally, folds: int) -> None:
    """One stderr line per kind of warning a model raised, with the number of folds it came in."""
    for text, count in tally.warnings.values():
        print(f"linclass: warning: {label}: {text} (in {count} of {folds} folds)", file=sys.stderr)
