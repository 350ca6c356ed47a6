"""The command's models, all from :mod:`linclass.registry`: their names, which data and figures
they apply to, and how one is built from ``--model`` and ``--param``."""

from __future__ import annotations

import argparse
import json
import re

import numpy as np

from linclass import registry
from linclass.cli.errors import UsageError

__all__ = ["FIGURE_MODELS", "MODELS", "SEED", "inapplicable", "make_model", "model_name",
           "models_that", "parse_param"]

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


def model_name(text: str) -> str:
    """An argparse type: a model alias from an alias or a class name (any case; '_' for '-')."""
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
    ovr-logistic, a parameter that the wrapper does not have goes to the wrapped estimator).

    A seeded model gets :data:`SEED` unless ``params`` sets ``random_state``, so runs repeat.
    Raises :class:`~linclass.cli.errors.UsageError` for a parameter the model does not have.
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
    return model.set_params(**params)


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
