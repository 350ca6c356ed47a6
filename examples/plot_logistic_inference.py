"""
Logistic regression as a statistical model
==========================================

Beyond predictions, an unpenalised logistic regression is a statistical model: its
coefficients have standard errors, confidence intervals and tests.  linclass reports them as
statsmodels' ``Logit`` and R's ``glm(family = binomial)`` do: a ``summary()`` table, Wald and
profile-likelihood intervals, likelihood-ratio tests between nested models (R's ``anova`` and
``drop1``), and predicted probabilities with standard errors (``get_prediction``).

The data: the 569 tumours of the breast cancer data, with four of their measurements, modelled
through a formula with :func:`linclass.from_formula` (which needs the ``formulaic`` package,
``pip install 'linclass[formula]'``).
"""

# %%
# The model
# ---------
# Each measurement is standardised (``z_`` columns: one unit is one standard deviation), so
# that the coefficients compare: each is the change in the log-odds of a malignant tumour per
# standard deviation of its feature, the others held fixed.
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer

import linclass

cancer = load_breast_cancer(as_frame=True).frame
measurements = {"radius": "mean radius", "texture": "mean texture",
                "smoothness": "mean smoothness", "symmetry": "mean symmetry"}
data = pd.DataFrame({name: cancer[column] for name, column in measurements.items()})
for name in measurements:
    data[f"z_{name}"] = (data[name] - data[name].mean()) / data[name].std()
data["malignant"] = 1 - cancer["target"]            # the data code benign as 1

model = linclass.from_formula("malignant ~ z_radius + z_texture + z_smoothness + z_symmetry", data)
summary = model.summary()
print(summary)

# %%
# Confidence intervals: Wald and profile likelihood
# -------------------------------------------------
# The table's intervals are Wald's, coefficient :math:`\pm 1.96` standard errors.  The
# profile-likelihood intervals (R's ``confint``) follow the likelihood itself and need the
# training rows, which the model does not keep.  On the odds scale (``exp`` of the
# coefficients) they are the odds ratios per standard deviation.
wald = summary.conf_int()
profile = model.summary(ci="profile", X=data).conf_int()
names = [name for name in summary.params.index if name != "const"]

fig, ax = plt.subplots(figsize=(7.5, 3.8), layout="constrained")
positions = np.arange(len(names))
for shift, (label, interval, colour) in zip((-0.12, 0.12), (("Wald", wald, "C0"),
                                                             ("profile likelihood", profile, "C1"))):
    low, high = np.exp(interval.loc[names, 0]), np.exp(interval.loc[names, 1])
    ax.hlines(positions + shift, low, high, color=colour, lw=3, label=f"95% interval, {label}")
ax.plot(np.exp(summary.params[names]), positions, "ko", label="estimate")
ax.axvline(1, color="grey", lw=0.8, ls=":")
ax.set_xscale("log")
ax.set_yticks(positions, [name.removeprefix("z_") for name in names])
ax.invert_yaxis()
ax.set_xlabel("odds ratio of malignancy per standard deviation (log scale)")
ax.legend(loc="lower right", fontsize=9)
plt.show()

# %%
# Likelihood-ratio tests
# ----------------------
# ``drop1`` refits the model without each term in turn (R's ``drop1(model, test = "Chisq")``);
# ``lr_test`` compares two nested fits (R's ``anova(small, large, test = "Chisq")``).  Symmetry
# adds the least.
print(linclass.drop1(model, data).round(3))
smaller = linclass.from_formula("malignant ~ z_radius + z_texture + z_smoothness", data)
print(linclass.lr_test(smaller, model))

# %%
# Predicted probabilities with intervals
# --------------------------------------
# ``get_prediction`` gives each row's probability with a delta-method standard error and a
# confidence interval built on the log-odds scale (so it stays inside [0, 1]), as statsmodels'
# ``GLM.get_prediction`` and R's ``predict(se.fit = TRUE)``.  Here: the probability of
# malignancy along the radius, for a smooth and a rough tumour (smoothness at its 10th and 90th
# percentiles; texture and symmetry at their means).
radius = np.linspace(data["radius"].min(), data["radius"].quantile(0.98), 120)

fig, ax = plt.subplots(figsize=(8, 4.5), layout="constrained")
for quantile, colour in ((0.1, "C0"), (0.9, "C3")):
    smoothness = data["smoothness"].quantile(quantile)
    rows = pd.DataFrame({
        "z_radius": (radius - data["radius"].mean()) / data["radius"].std(),
        "z_texture": 0.0,
        "z_smoothness": (smoothness - data["smoothness"].mean()) / data["smoothness"].std(),
        "z_symmetry": 0.0,
    })
    frame = model.get_prediction(rows).summary_frame(alpha=0.05)
    ax.plot(radius, frame["mean"], color=colour, label=f"smoothness {smoothness:.3f}")
    ax.fill_between(radius, frame["mean_ci_lower"], frame["mean_ci_upper"], color=colour,
                    alpha=0.2)
ax.set_xlabel("mean radius")
ax.set_ylabel("probability of malignancy")
ax.set_title("predicted probability with 95% confidence band")
ax.legend(title="mean smoothness")
plt.show()

# %%
# The first rows of such a prediction, as a table:
with pd.option_context("display.width", 120, "display.max_columns", 10):
    print(frame.iloc[::30].round(4))
