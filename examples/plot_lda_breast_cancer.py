"""
LDA on breast cancer
====================

A first fit.
"""
import matplotlib.pyplot as plt
from sklearn.datasets import load_breast_cancer

import linclass

X, y = load_breast_cancer(return_X_y=True)
model = linclass.LinearDiscriminantAnalysis().fit(X, y)
fig, ax = plt.subplots()
ax.hist(model.transform(X)[:, 0], bins=40)
