"""
The L1 coefficient path of a logistic regression
================================================

An L1 penalty sets coefficients exactly to zero: the stronger the penalty (the smaller ``C``),
the fewer features a logistic regression keeps.  :func:`linclass.logistic_path` fits a whole
path of ``C`` at once, from the penalty at which every coefficient vanishes down to a weak one,
each fit warm-started from the previous one (as glmnet does).
:func:`linclass.plot.coefficient_path` draws the coefficients along it.
"""

# %%
# Breast cancer, 30 standardised features
# ---------------------------------------
# The L1 penalty treats all coefficients alike, so the features are put on one scale first.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

import linclass
from linclass.plot import coefficient_path

cancer = load_breast_cancer()
X = StandardScaler().fit_transform(cancer.data)
y = cancer.target

path = linclass.logistic_path(X, y, Cs=60, penalty="l1")
print(f"{len(path.Cs)} values of C from {path.Cs[0]:.2g} to {path.Cs[-1]:.2g}")
print("non-zero coefficients along the path:", path.n_nonzero[::6])
print("every fit converged:", bool(path.converged.all()))

# %%
# The ten features with the largest coefficients at the weakest penalty are drawn and
# labelled; the top axis counts the non-zero coefficients.
fig, ax = plt.subplots(figsize=(9, 5.5), layout="constrained")
coefficient_path(path, feature_names=cancer.feature_names, ax=ax)
plt.show()

# %%
# How much of the null deviance each fit explains (glmnet's ``dev.ratio``), and how many
# features it uses, along the path: a handful of features already explain most of the
# deviance.  (A feature can also leave the path as C grows, when others take over its role.)
fig, ax = plt.subplots(figsize=(8, 4), layout="constrained")
log_C = np.log10(path.Cs)
ax.plot(log_C, path.deviance_explained, color="C0", marker="o", markersize=3)
ax.set_xlabel("log10 C  (weaker penalty to the right)")
ax.set_ylabel("deviance explained", color="C0")
ax.grid(alpha=0.3)
count_ax = ax.twinx()
count_ax.step(log_C, path.n_nonzero, where="mid", color="C1")
count_ax.set_ylabel("non-zero coefficients", color="C1")
ax.set_title("breast cancer: L1 path")
plt.show()

# %%
# The first features to enter the model, in order:
first = np.argmax(path.coefs[:, 0, :] != 0, axis=0).astype(float)
first[~(path.coefs[:, 0, :] != 0).any(axis=0)] = np.inf
for j in np.argsort(first, kind="stable")[:5]:
    print(f"C = {path.Cs[int(first[j])]:.3g}: {cancer.feature_names[j]}")

# %%
# Three classes: one panel per class
# ----------------------------------
# On the wine data the path is a softmax regression with one row of coefficients per class;
# :func:`~linclass.plot.coefficient_path` draws one panel per class, each with its own top
# features (here the top five).
from sklearn.datasets import load_wine

wine = load_wine()
Xw = StandardScaler().fit_transform(wine.data)
wine_path = linclass.logistic_path(Xw, wine.target_names[wine.target], Cs=40, penalty="l1")
fig, axes = plt.subplots(1, 3, figsize=(15, 4.8), layout="constrained")
coefficient_path(wine_path, feature_names=wine.feature_names, top=5, ax=axes)
plt.show()
