"""Writes spector.csv: Spector and Mazzeo's (1980) grades data as statsmodels ships it
(statsmodels.api.datasets.spector), which exact.R reads.  Run from this folder."""
import statsmodels.api as sm

sm.datasets.spector.load_pandas().data.to_csv("spector.csv", index=False)
