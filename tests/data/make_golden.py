"""Write the golden model files of the *current* persistence format version into this folder.

Run it when a new format version is introduced, or when an estimator is added to the registry
(``python tests/data/make_golden.py``): it writes, for every case below whose file does not exist yet,
``golden_v<N>_<case>.linclass`` and what it must give
(``golden_v<N>_<case>_expected.npz``: the input rows ``X`` and one array per prediction method), for the current
``FORMAT_VERSION`` N.  Existing files are never rewritten: they are the proof that files written by
earlier linclass releases (and before the package was rearranged) still load and predict the same
(tests/test_persistence.py loads every one).  The first three files of version 1 predate this script's
case table and store a single ``_expected.npy``.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import load_iris

import linclass
from linclass import save
from linclass.io.persistence import FORMAT_VERSION

HERE = Path(__file__).parent
METHODS = ("predict", "predict_proba", "predict_log_proba", "decision_function", "transform")


def iris():
    X, y = load_iris(return_X_y=True)
    return X, y


def counts():
    X, y = iris()
    return np.round(X * 2), y


def binary():
    X, y = iris()
    return (X > X.mean(axis=0)).astype(float), y


def cases() -> dict:
    """case name -> (estimator, data maker)."""
    lc = linclass
    return {
        "gda_tied_diag": (lc.GaussianDiscriminantAnalysis("tied_diag"), iris),
        "gda_spherical": (lc.GaussianDiscriminantAnalysis("spherical", unbiased=True), iris),
        "qda": (lc.QuadraticDiscriminantAnalysis(reg_param=0.01), iris),
        "qda_lw": (lc.QuadraticDiscriminantAnalysis(shrinkage="ledoit-wolf"), iris),
        "lda_oas": (lc.LinearDiscriminantAnalysis(shrinkage="oas", n_components=1), iris),
        "gnb": (lc.GaussianNB(), iris),
        "rda": (lc.RegularizedDiscriminantAnalysis(0.3, 0.2), iris),
        "rda_cv": (lc.RegularizedDiscriminantAnalysisCV(poolings=4, shrinkages=4), iris),
        "bernoulli_nb": (lc.BernoulliNB(alpha=0.5), binary),
        "multinomial_nb": (lc.MultinomialNB(), counts),
        "poisson_nb": (lc.PoissonNB(), counts),
        "complement_nb": (lc.ComplementNB(norm=True), counts),
        "categorical_nb": (lc.CategoricalNB(min_categories=4), counts),
        "fisher": (lc.FisherDiscriminantAnalysis(solver="eigen"), iris),
        "fisher_gsvd": (lc.FisherDiscriminantAnalysis(solver="gsvd", threshold="midpoint"), iris),
        "kfda": (lc.KernelFisherDiscriminantAnalysis(gamma=0.2), iris),
        "kfda_nystroem": (lc.KernelFisherDiscriminantAnalysis(approximation="nystroem",
                                                              n_landmarks=30, random_state=0), iris),
        "logistic_bohning": (lc.LogisticRegression(solver="bohning", max_iter=500), iris),
        "logistic_sgd": (lc.LogisticRegression(solver="sgd", random_state=0), iris),
        "logistic_mle_binary": (lc.LogisticRegression(C=np.inf), lambda: (iris()[0][50:], iris()[1][50:])),
        "logistic_l1": (lc.LogisticRegression(penalty="l1", C=0.2), iris),
        "logistic_cv": (lc.LogisticRegressionCV(Cs=4, penalty="elasticnet", l1_ratios=[0.5, 0.9],
                                                cv=3), iris),
        # (tol=None: the files were written when it was the Perceptron's default; they store it)
        "perceptron_poly": (lc.Perceptron(basis="poly", random_state=0, max_epochs=20, tol=None), iris),
        "ovr": (lc.OneVsRestClassifier(lc.LogisticRegression()), iris),
        "ovo": (lc.OneVsOneClassifier(lc.LinearDiscriminantAnalysis()), iris),
        "kclass": (lc.KClassDiscriminant(lc.Perceptron(random_state=0, max_epochs=20, tol=None)), iris),
        "standardized": (lc.StandardizedClassifier(lc.LogisticRegression()), iris),
        "formula_columns": (lc.FormulaClassifier(estimator=lc.LogisticRegression()), iris),
        # iris's classes are not ordered; the file only has to keep what the fit gives
        "ordinal_probit": (lc.OrderedLogisticRegression(link="probit"), iris),
    }


#: a formula model on a frame (MASS's birthwt, tests/data/r/formula_birthwt.csv): the file holds its
#: encoding (factor levels, transforms' state); ``_outputs.npz`` what it gives on those rows
FORMULA = ("low ~ age + bs(lwt, df=3) + C(race, Treatment('white')) * smoke + center(age):ht "
           "+ C(ptl, levels=[0, 1, 2, 3])")


def formula_birthwt(version: int) -> None:
    import pandas as pd

    stem = HERE / f"golden_v{version}_formula_birthwt"
    if stem.with_suffix(".linclass").exists():
        return
    data = pd.read_csv(HERE / "r" / "formula_birthwt.csv")
    model = linclass.from_formula(FORMULA, data, linclass.LogisticRegression(C=10.0),
                                  sample_weight="freq")
    save(model, stem.with_suffix(".linclass"))
    np.savez(HERE / f"{stem.name}_outputs.npz", predict=model.predict(data),
             predict_proba=model.predict_proba(data))
    print("wrote", stem.name)


def expected(model, X) -> dict:
    """The input rows (``X``) and every prediction method's output on them."""
    return {"X": X, **{m: np.asarray(getattr(model, m)(X)) for m in METHODS if hasattr(model, m)}}


def main() -> None:
    version = FORMAT_VERSION
    for name, (model, data) in cases().items():
        stem = HERE / f"golden_v{version}_{name}"
        if stem.with_suffix(".linclass").exists():
            continue
        X, y = data()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # perceptrons that do not converge on iris: fine
            model.fit(X, y)
            values = expected(model, X)
        save(model, stem.with_suffix(".linclass"))
        np.savez(HERE / f"{stem.name}_expected.npz", **values)
        print("wrote", stem.name)
    formula_birthwt(version)


if __name__ == "__main__":
    main()
