"""Warnings and errors that linclass raises on purpose."""

from scipy.linalg import LinAlgWarning

__all__ = ["AliasedColumnsWarning", "DataError", "GridEdgeWarning", "NotFittedError",
           "SeparationWarning", "SingularCovarianceWarning", "TrainingRowsNeeded"]


class DataError(ValueError):
    """A data file or data set name that cannot be used: the message says what and where."""


class TrainingRowsNeeded(ValueError):
    """A result that is computed from the training rows, which a fitted model does not keep (the
    profile intervals of a Firth model saved before a summary computed them): the message says how
    to pass them (``X=``, ``y=``)."""


class GridEdgeWarning(UserWarning):
    """Cross-validation chose the first or the last value of a grid (the strongest or the weakest
    penalty tried): the best value may lie beyond it.  The message names the edge; extend the grid
    past it (more values of ``Cs`` on that side) and fit again."""


class SingularCovarianceWarning(UserWarning):
    """A covariance matrix was singular or nearly so (constant or collinear features, or a class with
    fewer samples than features).  The model fell back to a pseudo-inverse or an eigenvalue floor; the
    message says which, and how to regularise instead."""


class AliasedColumnsWarning(SingularCovarianceWarning, LinAlgWarning):
    """What an unpenalised fit with ``solver='newton-cholesky'`` warns when some features are
    linear combinations of the features before them (or of the intercept): they were set aside, as
    R's ``glm`` aliases them, and the rest fitted.  A :class:`scipy.linalg.LinAlgWarning` (so a
    RuntimeWarning), the class scikit-learn's newton-cholesky warns with on such data before it
    falls back to L-BFGS, so code that filters or expects that warning sees this one; the other
    solvers, where scikit-learn does not warn, warn its base :class:`SingularCovarianceWarning`."""


class SeparationWarning(UserWarning):
    """The classes are (quasi-)completely separated by a hyperplane, so the logistic / softmax
    maximum-likelihood estimate does not exist: the unpenalised coefficients diverge, and the finite
    values returned depend on where the iteration stopped.  A finite ``C`` gives a penalised estimate,
    which always exists."""


def __getattr__(name: str):
    """``NotFittedError``, scikit-learn's, imported on first use (``import linclass.exceptions``,
    which the command's help reads, costs no scikit-learn import)."""
    if name == "NotFittedError":
        from sklearn.exceptions import NotFittedError

        return NotFittedError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
