"""A Sphinx extension: each estimator's API page says what the registry says it can do.

:mod:`linclass.registry` lists every public estimator once with its capabilities (sparse input,
chunked fits, ``partial_fit``, ...); the reference page of each class ends its docstring with that list,
each capability linked to its explanation in the user guide, so the page and the registry never disagree.
"""

from __future__ import annotations

import re

from linclass import registry

#: what each capability means, in one phrase (the registry's module docstring says more)
MEANING = {
    "proba": "``predict_proba`` / ``predict_log_proba``",
    "transform": "``transform`` (a projection)",
    "partial_fit": "``partial_fit`` on batches gives the model ``fit`` gives on all of them",
    "chunks": "fits from Dask collections and files read in blocks (:doc:`/guide/dask`)",
    "sparse": "accepts scipy.sparse ``X`` without densifying it",
    "counts": "models non-negative counts or binary features",
    "gaussian": "Gaussian class densities (``means_``, ``covariance_``)",
    "linear": "decision boundaries are hyperplanes in ``x``",
    "curve": "records a training curve (``loss_curve_`` or ``errors_``)",
    "seeded": "has a ``random_state``",
    "meta": "wraps another estimator",
    "inference": "``summary()``: standard errors, tests and intervals",
    "kernel": "works in a kernel's feature space",
    "units": "its default fit depends on the features' units (standardise them)",
}


_DOC_ROLE = re.compile(r":doc:`(?P<text>[^`<]*?)\s*(?:<(?P<target>[^`>]+)>)?`")


def _unlinked(phrase: str, found_docs) -> str:
    """``phrase`` with each ``:doc:`` link to a page this build lacks written as plain text (the user
    guide is written beside the API reference: a link appears once its page does)."""
    def plain(match):
        target = (match.group("target") or match.group("text")).strip().lstrip("/")
        if target in found_docs:
            return match.group(0)
        return match.group("text").strip() if match.group("target") else ""
    return re.sub(r"\s*\(\s*\)", "", _DOC_ROLE.sub(plain, phrase))


def capability_lines(entry, found_docs=None) -> list[str]:
    """The reST lines of one registry entry's capabilities section (``found_docs``: the build's pages,
    when known, so that links to missing pages are left out)."""
    lines = ["", ".. rubric:: Capabilities (from :mod:`linclass.registry`)", "",
             (f"Command-line name: ``--model {entry.alias}``." if entry.alias
              else "Not offered by the command line."), ""]
    for cap in sorted(entry.capabilities):
        phrase = MEANING[cap] if found_docs is None else _unlinked(MEANING[cap], found_docs)
        lines.append(f"- ``{cap}``: {phrase}")
    lines.append("")
    return lines


def _add_capabilities(app, what, name, obj, options, lines):
    if what != "class":
        return
    entry = registry.by_class(obj)
    if entry is not None:
        lines.extend(capability_lines(entry, app.env.found_docs))


def _is_metadata_routing(name: str) -> bool:
    """scikit-learn's metadata-routing methods (``set_fit_request``, ``set_score_request``, ...,
    ``get_metadata_routing``): generated for every estimator, about routing rather than the model."""
    return (name.startswith("set_") and name.endswith("_request")) or name == "get_metadata_routing"


def _skip_members(app, what, name, obj, skip, options):
    """Leave out scikit-learn's metadata-routing methods, and a method a class withdraws by setting it
    to None (``CategoricalNB.fit_source = None``), which would otherwise show the inherited docstring."""
    if _is_metadata_routing(name) or obj is None:
        return True
    return None


_SKLEARN_ROLE = re.compile(r":(?:ref|term):`(?P<text>[^`<]*?)\s*(?:<[^`>]+>)?`")


def _plain_sklearn_links(app, what, name, obj, options, lines):
    """The methods inherited from scikit-learn (``score``, ``get_params``, ...) keep their docstrings,
    whose ``:ref:`` and ``:term:`` links point into scikit-learn's own site: written as plain text."""
    module = getattr(obj, "__module__", None) or ""
    if module == "sklearn" or module.startswith("sklearn."):
        lines[:] = [_SKLEARN_ROLE.sub(lambda m: m.group("text"), line) for line in lines]


def setup(app):
    app.connect("autodoc-process-docstring", _add_capabilities)
    app.connect("autodoc-process-docstring", _plain_sklearn_links)
    app.connect("autodoc-skip-member", _skip_members)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
