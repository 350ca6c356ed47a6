"""A Sphinx extension: each estimator's API page says what the registry says it can do.

:mod:`linclass.registry` lists every public estimator once with its capabilities (sparse input,
chunked fits, ``partial_fit``, ...); the reference page of each class ends its docstring with that list,
each capability linked to its explanation in the user guide, so the page and the registry never disagree.
"""

from __future__ import annotations

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


def capability_lines(entry) -> list[str]:
    """The reST lines of one registry entry's capabilities section."""
    lines = ["", ".. rubric:: Capabilities (from :mod:`linclass.registry`)", "",
             (f"Command-line name: ``--model {entry.alias}``." if entry.alias
              else "Not offered by the command line."), ""]
    for cap in sorted(entry.capabilities):
        lines.append(f"- ``{cap}``: {MEANING[cap]}")
    lines.append("")
    return lines


def _add_capabilities(app, what, name, obj, options, lines):
    if what != "class":
        return
    entry = registry.by_class(obj)
    if entry is not None:
        lines.extend(capability_lines(entry))


def setup(app):
    app.connect("autodoc-process-docstring", _add_capabilities)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
