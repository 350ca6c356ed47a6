"""Text the command prints: aligned tables, means with their spread, one-line values."""

from __future__ import annotations

import dataclasses
import json
import math
import re
import sys

import numpy as np

__all__ = ["command_line", "first_sentence", "jsonable", "mean_sd", "numbers_as_written", "one_line",
           "plain", "plus_minus", "print_json", "short", "table"]


def one_line(text) -> str:
    """``text`` with every run of white space (newlines included) made one space."""
    return " ".join(str(text).split())


# abbreviations whose full stop does not end a sentence ("i.e. accuracy", "Hastie et al. 2009")
_ABBREVIATIONS = frozenset({"i.e", "e.g", "etc", "vs", "cf", "al", "approx", "sec", "eq", "fig",
                            "no", "resp"})
# a full stop and white space before what may begin a sentence
_STOP = re.compile(r"\.\s+(?=[A-Z0-9'\"`(\[])")


def first_sentence(text) -> str:
    """The first sentence of ``text`` (in one line, without its full stop): it ends at a full stop
    followed by white space and a capital (or a digit, a quote, a bracket), never at the stop of an
    abbreviation such as "i.e." or "e.g.", so a sentence is never cut inside."""
    text = one_line(text)
    for match in _STOP.finditer(text):
        word = text[:match.start()].rsplit(" ", 1)[-1].lstrip("(\"'`").lower()
        if word in _ABBREVIATIONS:  # "i.e.", "et al."
            continue
        return text[:match.start()]
    return text.rstrip(".")


def plain(value) -> str:
    """A label or number as a user wrote it: ``np.float64(1.0)`` -> ``1.0``, ``np.str_('a')`` ->
    ``'a'`` (text keeps its quotes, so ``'1'`` and ``1`` stay apart)."""
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


# a hint in a library message: "use solver='newton'", "Refit with C=np.inf", ...
_HINT = re.compile(r"(?P<verb>\b(?:[Uu]se|[Ww]ith|[Oo]r|[Ss]et|[Tt]ry)\s+)(?P<name>[A-Za-z_]\w*)="
                   r"(?P<value>-?np\.inf|'[^']*'|\"[^\"]*\"|[\w+-]+(?:\.\w+)*)")
_INCREASE = re.compile(r"\b(?P<verb>[Ii]ncrease|[Rr]aise|[Ll]ower|[Dd]ecrease)\s+(?P<name>[A-Za-z_]\w*)\b(?!=)")
# a hint to call the summary with other intervals: "summary(ci='profile')"
_SUMMARY = re.compile(r"\bsummary\(ci=(?P<q>['\"])(?P<ci>\w+)(?P=q)\)")
# a hint to ask for other intervals: "use ci='wald'"
_CI = re.compile(r"(?P<verb>\b(?:[Uu]se|[Oo]r)\s+)ci=(?P<q>['\"])(?P<ci>\w+)(?P=q)")


# NumPy's repr of a scalar in a message: np.float64(13.74), np.int64(3), np.str_('a'), np.True_
_NUMPY_SCALAR = re.compile(r"\bnp\.(?:float|int|uint|complex|longdouble|str_|bytes_|bool)\w*"
                           r"\(([^()]*)\)")
_NUMPY_BOOL = re.compile(r"\bnp\.(True|False)_")


def numbers_as_written(text) -> str:
    """``text`` with NumPy's scalar reprs as a user writes the values: ``np.float64(13.74)`` ->
    ``13.74``, ``np.str_('a')`` -> ``'a'``, ``np.True_`` -> ``True``."""
    return _NUMPY_BOOL.sub(r"\1", _NUMPY_SCALAR.sub(r"\1", str(text)))


def command_line(text, parameters) -> str:
    """A library message with its hints spelled for the command line: ``use solver='newton'`` ->
    ``use --param solver=newton``, ``Refit with C=np.inf`` -> ``Refit with --param C=inf``,
    ``Increase max_iter`` -> ``Increase --param max_iter`` (only names in ``parameters``, the models'
    parameter names, are rewritten), ``summary(ci='profile')`` -> ``linclass summary --ci
    profile``, ``use ci='wald'`` -> ``use --ci wald``; NumPy's scalar reprs as plain values
    (:func:`numbers_as_written`)."""
    def rewrite(match):
        name = match.group("name")
        if name not in parameters:
            return match.group(0)
        value = match.group("value").strip("'\"").replace("np.inf", "inf")
        return f"{match.group('verb')}--param {name}={value}"

    def more(match):
        name = match.group("name")
        if name not in parameters:
            return match.group(0)
        return f"{match.group('verb')} --param {name}"

    text = _SUMMARY.sub(lambda m: f"linclass summary --ci {m.group('ci')}", numbers_as_written(text))
    text = _CI.sub(lambda m: f"{m.group('verb')}--ci {m.group('ci')}", text)
    return _INCREASE.sub(more, _HINT.sub(rewrite, text))


def table(header: list[str], rows: list[list[str]], right: set[int] = frozenset()) -> str:
    """A plain-text table: columns padded to their widest cell, a dashed rule under the header, the
    columns in ``right`` aligned right."""
    widths = [max(len(str(r[j])) for r in [header, *rows]) for j in range(len(header))]

    def line(row):
        cells = [str(c).rjust(w) if j in right else str(c).ljust(w)
                 for j, (c, w) in enumerate(zip(row, widths))]
        return "  ".join(cells).rstrip()

    return "\n".join([line(header), "  ".join("-" * w for w in widths), *map(line, rows)])


def plus_minus() -> str:
    """'±' where stdout can show it, else '+/-'."""
    try:
        "±".encode(getattr(sys.stdout, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return "+/-"
    return "±"


def mean_sd(values) -> str:
    """``'0.953 ± 0.021'``: the mean and standard deviation of ``values``."""
    return f"{np.mean(values):.3f} {plus_minus()} {np.std(values):.3f}"


def short(value) -> str:
    """A fitted attribute or parameter in one line: an array's shape, type and first values; a
    scalar's repr; a container's repr cut at 80 characters; else its type."""
    if isinstance(value, np.ndarray):
        text = np.array2string(value, precision=4, threshold=8, edgeitems=2, max_line_width=10_000)
        return f"shape {value.shape}, {value.dtype}: {one_line(text)}"
    if isinstance(value, (int, float, str, bool, np.generic)) or value is None:
        return repr(value.item() if isinstance(value, np.generic) else value)
    if isinstance(value, (list, tuple, dict)):
        text = one_line(repr(value))
        return text if len(text) <= 80 else text[:77] + "..."
    return type(value).__name__


def jsonable(value):
    """``value`` as JSON holds it: arrays and tuples as lists, NumPy scalars as numbers, a missing
    number (NaN) as null and an infinite one as the string ``"inf"`` or ``"-inf"`` (JSON has no
    such numbers), a dataclass as its fields, anything else as its one-line text."""
    if isinstance(value, np.ndarray):
        return [jsonable(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        if math.isnan(value):
            return None
        return value if math.isfinite(value) else ("inf" if value > 0 else "-inf")
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)
                if f.repr}
    return one_line(value)


def print_json(value) -> None:
    """``value`` (through :func:`jsonable`) as one strict JSON document on stdout."""
    print(json.dumps(jsonable(value), indent=2, allow_nan=False))
