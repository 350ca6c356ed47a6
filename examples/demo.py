"""Fit the Gaussian classifiers on a bundled data set and print a comparison table.

Run with ``make demo`` (or ``python examples/demo.py [dataset]``; dataset is one of iris, wine,
breast_cancer, digits; default breast_cancer).
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
from sklearn import datasets
from sklearn.model_selection import StratifiedKFold, cross_validate

from sklearn import discriminant_analysis as sk_da
from sklearn import naive_bayes as sk_nb
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import linclass

MODELS = {
    "linclass LDA (tied)": linclass.LinearDiscriminantAnalysis(),
    "  scikit-learn LDA": sk_da.LinearDiscriminantAnalysis(),
    "linclass scaled LDA, Ledoit-Wolf": make_pipeline(
        StandardScaler(), linclass.LinearDiscriminantAnalysis(shrinkage="ledoit-wolf")
    ),
    "linclass QDA (full), reg 0.05": linclass.QuadraticDiscriminantAnalysis(reg_param=0.05),
    "  scikit-learn QDA, reg 0.05": sk_da.QuadraticDiscriminantAnalysis(reg_param=0.05),
    "linclass Gaussian NB (diag)": linclass.GaussianNB(),
    "  scikit-learn GaussianNB": sk_nb.GaussianNB(),
    "linclass shared-variance NB": linclass.GaussianDiscriminantAnalysis(covariance_type="tied_diag"),
    "linclass spherical": linclass.GaussianDiscriminantAnalysis(covariance_type="spherical"),
}


def main(name: str = "breast_cancer") -> None:
    loader = getattr(datasets, f"load_{name}", None)
    if loader is None:
        sys.exit(f"unknown data set {name!r}: use iris, wine, breast_cancer or digits")
    X, y = loader(return_X_y=True)
    print(f"linclass {linclass.__version__} on {name}: {X.shape[0]} samples, {X.shape[1]} features, "
          f"{np.unique(y).size} classes; 5-fold stratified cross-validation\n")
    header = f"{'model':32s} {'accuracy':>10s} {'log-loss':>10s} {'fit ms':>8s}"
    print(header)
    print("-" * len(header))
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    for label, model in MODELS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # collinear features: both libraries warn
            scores = cross_validate(model, X, y, cv=folds, scoring=("accuracy", "neg_log_loss"))
        print(f"{label:32s} {scores['test_accuracy'].mean():10.4f} "
              f"{-scores['test_neg_log_loss'].mean():10.4f} {1000 * scores['fit_time'].mean():8.2f}")
    print("\nRows indented under a linclass model fit the same model with scikit-learn.")


if __name__ == "__main__":
    main(*sys.argv[1:2])
