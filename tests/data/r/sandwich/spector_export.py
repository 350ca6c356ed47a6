"""Writes spector.csv: Spector and Mazzeo's (1980) 32 students (statsmodels.datasets.spector) with an
artificial cluster id, 8 clusters of 4 consecutive rows, for sandwich.R and tests/test_cluster_*.py.
Run from this folder: python spector_export.py"""
import numpy as np
import statsmodels.api as sm

d = sm.datasets.spector.load_pandas().data
d["class_id"] = np.arange(len(d)) // 4 + 1
d.to_csv("spector.csv", index=False)
