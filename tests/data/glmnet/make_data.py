"""Write the two problems glmnet_reference.R fits (run from this folder: python make_data.py)."""

import numpy as np

rng = np.random.default_rng(17)
# two classes: 120 rows, 8 features, 3 of them informative
X = rng.normal(size=(120, 8)) * np.array([1, 2, 0.5, 1, 1, 3, 1, 0.7])
logit = 0.3 + X[:, 0] - 0.5 * X[:, 1] + 1.5 * X[:, 2]
y = (rng.random(120) < 1 / (1 + np.exp(-logit))).astype(int)
np.savetxt("binary.csv", np.column_stack([y, X]), delimiter=",", fmt="%.17g")
# three classes: 150 rows, 6 features
X = rng.normal(size=(150, 6))
S = X @ rng.normal(size=(6, 3)) + np.array([0.2, 0.0, -0.3])
P = np.exp(S - S.max(axis=1, keepdims=True))
P /= P.sum(axis=1, keepdims=True)
y = np.array([rng.choice(3, p=p) for p in P])
np.savetxt("multinomial.csv", np.column_stack([y, X]), delimiter=",", fmt="%.17g")
