"""Write the golden model files of the *current* persistence format version into this folder.

Run it ONLY when a new format version is introduced (``python tests/data/make_golden.py``): it writes
``golden_v<N>_*.linclass`` and the values they must predict (``golden_v<N>_*_expected.npy``) for the
current ``FORMAT_VERSION`` N.  Never regenerate the files of an older version: they are the proof that
files written by earlier linclass releases still load (tests/test_persistence.py loads every version).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import load_iris

from linclass import LinearDiscriminantAnalysis, LogisticRegression, Perceptron
from linclass.persistence import FORMAT_VERSION, save

HERE = Path(__file__).parent


def main() -> None:
    existing = sorted(HERE.glob(f"golden_v{FORMAT_VERSION}_*"))
    if existing and "--force" not in sys.argv:
        sys.exit(f"golden files of format version {FORMAT_VERSION} exist already ({existing[0].name}, ...); "
                 "they must not change. Bump FORMAT_VERSION first (or pass --force if you really mean it).")
    X, y = load_iris(return_X_y=True)
    models = {
        "logistic": (LogisticRegression(C=10.0), "predict_proba"),
        "lda": (LinearDiscriminantAnalysis(shrinkage="ledoit-wolf"), "predict_proba"),
        "perceptron": (Perceptron(random_state=0, max_epochs=50), "decision_function"),
    }
    for name, (model, method) in models.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the perceptron does not converge on iris; that is fine
            model.fit(X, y)
        stem = f"golden_v{FORMAT_VERSION}_{name}"
        save(model, HERE / f"{stem}.linclass")
        np.save(HERE / f"{stem}_expected.npy", getattr(model, method)(X), allow_pickle=False)
        print("wrote", stem)


if __name__ == "__main__":
    main()
