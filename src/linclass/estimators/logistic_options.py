"""scikit-learn's option names for logistic regression, resolved to linclass's: the penalty from
``penalty`` / ``C`` / ``l1_ratio``, and the solver that reaches the same optimum as each of
scikit-learn's solvers.  The one place that says which penalties are not available yet."""

from __future__ import annotations

import warnings

import numpy as np

__all__ = ["LINCLASS_SOLVERS", "SKLEARN_SOLVERS", "resolve_penalty"]

#: scikit-learn's solver names -> the linclass solver that reaches the same optimum (L2 or none)
SKLEARN_SOLVERS = {
    "lbfgs": "lbfgs",
    "newton-cg": "newton",
    "newton-cholesky": "newton",
    "sag": "auto",
    "saga": "auto",
    "liblinear": "newton",  # on liblinear's objective, whose intercept is penalised
}
LINCLASS_SOLVERS = ("auto", "newton", "bohning", "lbfgs", "sgd")


def resolve_penalty(penalty, C: float, l1_ratio) -> float:
    """The L2 strength :math:`\\lambda = 1/C` (0: no penalty) of scikit-learn 1.9's ``penalty`` /
    ``C`` / ``l1_ratio`` combination.

    ``penalty='auto'`` (scikit-learn's default, which it spells 'deprecated', also accepted) takes
    the penalty from ``l1_ratio``: 0 is L2, 1 is L1, in between elastic net; ``C=np.inf`` is no
    penalty.  ``penalty=None`` is no penalty whatever C.  The L1 and elastic-net penalties are the one
    place that raises: linclass fits them with the coordinate-descent solver that comes with the
    penalised fits.
    """
    if penalty in ("auto", "deprecated"):
        ratio = 0.0 if l1_ratio is None else float(l1_ratio)
        penalty = "l2" if ratio == 0.0 else ("l1" if ratio == 1.0 else "elasticnet")
    elif penalty == "l2" and l1_ratio not in (None, 0, 0.0):
        warnings.warn(f"l1_ratio={l1_ratio} is ignored with penalty='l2' (it mixes L1 into the "
                      "penalty only with penalty='elasticnet' or the default penalty).", UserWarning,
                      stacklevel=4)
    if penalty is None:
        if C != 1.0:
            warnings.warn(f"penalty=None fits without penalty: C={C} is ignored.", UserWarning,
                          stacklevel=4)
        return 0.0
    if penalty in ("l1", "elasticnet"):
        raise ValueError(
            f"The {'L1' if penalty == 'l1' else 'elastic-net'} penalty (penalty={penalty!r} or "
            f"l1_ratio={l1_ratio}) is not available in this linclass release: it needs the "
            "coordinate-descent solver of the penalised fits, which is not here yet. Use l1_ratio=0 "
            "(L2, penalty='l2') or penalty=None."
        )
    return 0.0 if np.isinf(C) else 1.0 / C
