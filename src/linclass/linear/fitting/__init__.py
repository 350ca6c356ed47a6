"""Fitting a logistic model: which solver runs (choice) and penalty paths (path)."""
