"""R's glm inference on MASS's birthwt (tests/data/r/inference: glm_inference.R and its saved
output), shared by the tests of the HC2 / HC3 and multi-way cluster covariances, the score tests and
the influence measures."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from linclass import LogisticRegression

HERE = Path(__file__).parent / "data" / "r" / "inference"
FEATURES = ["age", "lwt", "race2", "race3", "smoke", "ptl", "ht", "ui"]
RTOL = 1e-6


def birthwt_and_reference():
    """birthwt's rows and R's numbers for them."""
    return pd.read_csv(HERE / "birthwt.csv"), json.loads((HERE / "glm_inference.json").read_text())


def tight_fit(X, y, w=None, **params):
    """The unpenalised fit, to a tolerance far below the comparisons' 1e-6."""
    return LogisticRegression(penalty=None, tol=1e-12, **params).fit(X, y, sample_weight=w)
