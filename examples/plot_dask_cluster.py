"""
Fitting Dask collections on a local cluster
===========================================

The Gaussian models, the naive Bayes models and Fisher's discriminant depend on the data only
through per-class counts, sums and scatter matrices, which add up exactly over blocks of rows;
logistic regression (solvers ``'newton'``, ``'bohning'``, ``'lbfgs'``) needs only per-block sums
of the loss, its gradient and its Hessian.  So these estimators fit Dask collections block by
block and give the in-memory answer: each block becomes a small summary, the summaries are
added, and no row travels to the client.

Here a :class:`distributed.LocalCluster` of two workers (one thread each, in this process, as
suits a documentation build) stands in for a real cluster: linclass uses whichever Dask
scheduler is active, so creating a :class:`distributed.Client` is all it takes.
"""

# %%
# Start the cluster
# -----------------
import dask
import dask.array as da
import matplotlib.pyplot as plt
import numpy as np
from distributed import Client, LocalCluster
from sklearn.datasets import make_classification

import linclass

cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                       dashboard_address=None)
client = Client(cluster)
print(client)

# %%
# The data: a dask array of 8 row blocks
# --------------------------------------
# In practice ``X`` would come from ``dask.dataframe.read_parquet`` or similar; here a NumPy
# problem is cut into 8 blocks of 2,500 rows so that the result can be compared with the
# in-memory fit.  ``dask.persist`` keeps the blocks in the workers' memory, which the iterative
# logistic fit reads once per iteration.
X, y = make_classification(n_samples=20_000, n_features=20, n_informative=8, n_redundant=0,
                           n_classes=3, random_state=0)
X_dask = da.from_array(X, chunks=(2_500, 20))
y_dask = da.from_array(y, chunks=2_500)
X_dask, y_dask = dask.persist(X_dask, y_dask)
print(X_dask)

# %%
# LDA: one pass over the blocks
# -----------------------------
lda_dask = linclass.LinearDiscriminantAnalysis().fit(X_dask, y_dask)
lda_memory = linclass.LinearDiscriminantAnalysis().fit(X, y)
print("largest difference of the coefficients:",
      f"{np.abs(lda_dask.coef_ - lda_memory.coef_).max():.1e}")

# %%
# Predictions on a Dask collection are lazy Dask arrays, computed block by block on the workers:
proba = lda_dask.predict_proba(X_dask)
print(type(proba).__name__, proba.chunks[0])
proba = proba.compute()
print("largest difference of the probabilities:",
      f"{np.abs(proba - lda_memory.predict_proba(X)).max():.1e}")

# %%
# Softmax regression: one pass per iteration
# ------------------------------------------
# Each Newton iteration sends the current coefficients to the workers and receives each block's
# gradient and Hessian.  ``summary()`` gives standard errors as the in-memory fit does.
logistic_dask = linclass.LogisticRegression(solver="newton").fit(X_dask, y_dask)
logistic_memory = linclass.LogisticRegression(solver="newton").fit(X, y)
print(f"Newton iterations: {logistic_dask.n_iter_} on Dask, {logistic_memory.n_iter_} in memory")
print("largest difference of the coefficients:",
      f"{np.abs(logistic_dask.coef_ - logistic_memory.coef_).max():.1e}")
se_dask = np.asarray(logistic_dask.summary().bse)
se_memory = np.asarray(logistic_memory.summary().bse)
print(f"largest difference of the standard errors: {np.abs(se_dask - se_memory).max():.1e}")

# %%
# The two fits side by side: every coefficient of the Dask fit against the in-memory one.
fig, axes = plt.subplots(1, 2, figsize=(10, 4.5), layout="constrained")
for ax, (name, on_dask, in_memory) in zip(axes, (
        ("LDA", lda_dask.coef_, lda_memory.coef_),
        ("softmax regression", logistic_dask.coef_, logistic_memory.coef_))):
    for k, (row_dask, row_memory) in enumerate(zip(on_dask, in_memory)):
        ax.scatter(row_memory, row_dask, s=25, label=f"class {k}")
    low, high = ax.get_xlim()
    ax.plot([low, high], [low, high], color="k", lw=0.8, ls=":")
    ax.set_xlabel("coefficient, NumPy arrays in memory")
    ax.set_ylabel("coefficient, Dask array of 8 blocks")
    ax.set_title(name)
    ax.legend()
plt.show()

# %%
# Where the blocks are: the persisted blocks of X and y that each worker holds.
for number, keys in enumerate(client.has_what().values(), start=1):
    print(f"worker {number}: {len(keys)} blocks")

# %%
# Close the client and the cluster
# --------------------------------
client.close()
cluster.close()
