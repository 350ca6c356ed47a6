"""Warnings and errors that linclass raises on purpose."""

from sklearn.exceptions import NotFittedError

__all__ = ["NotFittedError", "SingularCovarianceWarning"]


class SingularCovarianceWarning(UserWarning):
    """A covariance matrix was singular or nearly so (constant or collinear features, or a class with
    fewer samples than features).  The model fell back to a pseudo-inverse or an eigenvalue floor; the
    message says which, and how to regularise instead."""
