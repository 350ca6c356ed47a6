"""The command's models, all from :mod:`linclass.registry`: their names, which data and figures
they apply to, and how one is built from ``--model`` and ``--param``."""

from __future__ import annotations

import argparse
import ast
import functools
import json
import re

import numpy as np

from linclass import registry
from linclass.cli.errors import UsageError

__all__ = ["FIGURE_MODELS", "MODELS", "SEED", "inapplicable", "make_model", "model_name",
           "models_that", "parameter_names", "parse_param", "scale_hint"]

#: the command's model names (``--model``), from the registry: alias -> registry entry
MODELS: dict[str, registry.Entry] = {e.alias: e for e in registry.ENTRIES if e.alias is not None}

#: the seed of every seeded model (unless the user sets one) and of the cross-validation folds
SEED = 0


def models_that(capability: str) -> tuple[str, ...]:
    """The command's names of the models with ``capability`` (see :mod:`linclass.registry`)."""
    return tuple(alias for alias, entry in MODELS.items() if entry.can(capability))


#: the models each kind of figure draws (kinds not named here draw any model, or none)
FIGURE_MODELS: dict[str, tuple[str, ...]] = {
    "contours": models_that("gaussian"),
    "curve": models_that("curve"),
}


@functools.cache
def parameter_names() -> frozenset:
    """Every ``--param`` name some model takes (a wrapped estimator's without its prefix)."""
    names = set()
    for entry in MODELS.values():
        names.update(k.removeprefix("estimator__") for k in entry.make().get_params(deep=True))
    names.discard("estimator")
    return frozenset(names)


def model_name(text: str) -> str:
    """An argparse type: a model alias from an alias or a class name (any case; '_' for '-')."""
    key = text.strip().lower().replace("_", "-")
    by_class = {e.name.lower(): alias for alias, e in MODELS.items()}
    key = by_class.get(key, key)
    if key not in MODELS:
        raise argparse.ArgumentTypeError(f"unknown model {text!r}; choose from: {', '.join(MODELS)}")
    return key


def parse_param(text: str) -> tuple[str, object]:
    """``'C=0.5'`` -> ``('C', 0.5)``: the value as None, bool, int, float, JSON list/dict, else str;
    a value in matching quotes (``solver='newton'``, as a Python literal) is the string inside, and
    one in parentheses a Python tuple of numbers or strings (``l1_ratios=(0, 1)``, as Python code
    writes it; JSON's spelling is ``[0, 1]``)."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
        raise argparse.ArgumentTypeError(f"--param {text!r} is not of the form key=value (e.g. C=0.5)")
    value = raw.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return key, value[1:-1]
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
            raise argparse.ArgumentTypeError(
                f"--param {text!r}: the value is not valid JSON ({exc}); a list is written [1, 2], "
                "a dict {\"a\": 1}") from None
    if value[:1] == "(":
        return key, _tuple(text, value)
    return key, value


def _tuple(text: str, value: str) -> tuple:
    """A Python tuple literal of numbers, strings, booleans or None: ``'(1,)'`` -> ``(1,)``."""
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        parsed = None
    if not isinstance(parsed, tuple) or not all(
            v is None or isinstance(v, (bool, int, float, str)) for v in parsed):
        raise argparse.ArgumentTypeError(
            f"--param {text!r}: the value is not a tuple of numbers or strings; a list of values is "
            "written [1] or [0, 0.5, 1] (or as a Python tuple, (1,) or (0, 0.5, 1))")
    return parsed


def make_model(name: str, params: dict | None = None, *, scale: bool = False):
    """A fresh estimator for a model alias, with ``params`` set (for a meta-estimator such as
    ovr-logistic, a parameter that the wrapper does not have goes to the wrapped estimator).

    A seeded model gets :data:`SEED` unless ``params`` sets ``random_state``, so runs repeat.
    ``scale``: the model inside a :class:`~linclass.StandardizedClassifier` (``--scale``).
    Raises :class:`~linclass.cli.errors.UsageError` for a parameter the model does not have, or a
    value its constraints refuse.
    """
    entry = MODELS[name]
    model = entry.make()
    params = dict(params or {})
    valid = model.get_params(deep=True)
    for key in list(params):
        if key not in valid and f"estimator__{key}" in valid:
            params[f"estimator__{key}"] = params.pop(key)
    unknown = [key for key in params if key not in valid]
    if unknown:
        names = sorted(k for k in valid if not k.startswith("estimator__") and k != "estimator")
        names += sorted(k.removeprefix("estimator__") for k in valid if k.startswith("estimator__"))
        raise UsageError(f"unknown parameter {unknown[0]!r} for {name} ({entry.name}); its parameters "
                         f"are: {', '.join(dict.fromkeys(names))}")
    for key in ("random_state", "estimator__random_state"):
        if key in valid and key not in params:
            params[key] = SEED
    model.set_params(**params)
    _check_values(model, name)
    if scale:
        return registry.by_name("StandardizedClassifier").cls(model)
    return model


def _check_values(model, name: str) -> None:
    """Each parameter's value against the model's declared constraints (and the wrapped
    estimator's): a bad ``--param`` value is a usage error, as an unknown name is."""
    for part in (model, getattr(model, "estimator", None)):
        if part is None or getattr(type(part), "_parameter_constraints", None) is None:
            continue
        try:
            part._validate_params()
        except (ValueError, TypeError) as exc:  # scikit-learn's InvalidParameterError is both
            lists = " On the command line a list is written [1] or [0, 0.5, 1]." * (
                "array-like" in str(exc))
            raise UsageError(f"bad --param value for {name}: {exc}{lists}") from None


#: features whose standard deviations differ by this factor or more get the --scale hint
SCALE_RATIO = 100.0


def scale_hint(names, X: np.ndarray, feature_names: list[str]) -> str | None:
    """A hint to use ``--scale`` when some of the models ``names`` depend on the features' units
    (registry capability ``units``) and the features' standard deviations differ by
    :data:`SCALE_RATIO` or more (constant features aside); None otherwise."""
    sensitive = [n for n in names if MODELS[n].can("units")]
    if not sensitive or X.shape[1] < 2:
        return None
    sd = X.std(axis=0)
    varying = np.flatnonzero(sd > 0)
    if varying.size < 2:
        return None
    big, small = varying[np.argmax(sd[varying])], varying[np.argmin(sd[varying])]
    ratio = sd[big] / sd[small]
    if ratio < SCALE_RATIO:
        return None
    return (f"the features' standard deviations differ by a factor of {ratio:.3g} "
            f"({feature_names[big]!r}: {sd[big]:.3g}, {feature_names[small]!r}: {sd[small]:.3g}); "
            f"{', '.join(sensitive)} depend{'s' if len(sensitive) == 1 else ''} on the features' units: "
            "try --scale (standardises each feature inside the model)")


def inapplicable(name: str, X: np.ndarray, feature_names: list[str]) -> str | None:
    """Why model ``name`` does not suit the features X (None: it does).  A model of counts or
    binary features (capability ``counts``) needs non-negative integers."""
    if MODELS[name].can("counts"):
        bad = (X < 0) | (X != np.round(X))
        if bad.any():
            i, j = np.argwhere(bad)[0]
            return (f"features are not non-negative counts or binary (column "
                    f"{feature_names[j]!r} holds {X[i, j]:g})")
    return None
