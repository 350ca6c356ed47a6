"""
Are the predicted probabilities calibrated?
===========================================

A classifier is *calibrated* when, among the cases it gives probability 0.8, about 80% belong
to the class.  The Gaussian models are calibrated when their assumptions hold; when they do not,
their posteriors can be confidently wrong.  Logistic regression fits the posterior directly and
is calibrated wherever its linear log-odds are right, whatever the class densities.

The reliability diagrams below come from :func:`sklearn.calibration.calibration_curve` on held-out
rows of a synthetic problem with correlated features: Gaussian naive Bayes, which assumes the
features independent within each class, counts the same evidence several times.
"""

# %%
# A synthetic problem: 6 informative features and 4 pure-noise ones from
# :func:`~sklearn.datasets.make_classification` (in that order, ``shuffle=False``), then 8 noisy
# linear combinations of the informative ones.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.calibration import calibration_curve
from sklearn.datasets import make_classification
from sklearn.metrics import brier_score_loss, log_loss
from sklearn.model_selection import train_test_split

import linclass

X, y = make_classification(n_samples=12000, n_features=10, n_informative=6, n_redundant=0,
                           flip_y=0.05, class_sep=0.8, shuffle=False, random_state=1)
rng = np.random.default_rng(0)
copies = X[:, :6] @ rng.normal(size=(6, 8)) + 0.5 * rng.normal(size=(len(X), 8))
X = np.hstack([X, copies])
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=0)

models = {
    "LDA": linclass.LinearDiscriminantAnalysis(),
    "Gaussian naive Bayes": linclass.GaussianNB(),
    "logistic regression": linclass.LogisticRegression(),
}
probabilities = {}
for name, model in models.items():
    probabilities[name] = model.fit(X_train, y_train).predict_proba(X_test)[:, 1]
    print(f"{name:22s} accuracy {model.score(X_test, y_test):.3f}  "
          f"log-loss {log_loss(y_test, probabilities[name]):.3f}  "
          f"Brier {brier_score_loss(y_test, probabilities[name]):.3f}")


# %%
# The reliability diagram: the held-out rows are binned by predicted probability (12 bins of
# equal size), and the fraction of positives in each bin is plotted against the bin's mean
# prediction.  The diagonal is perfect calibration; the histogram below shows how the
# predictions spread.
def reliability(probabilities, title):
    fig, (ax, ax_hist) = plt.subplots(2, 1, figsize=(6.5, 8), height_ratios=(3, 1.2),
                                      layout="constrained", sharex=True)
    ax.plot([0, 1], [0, 1], color="k", ls=":", lw=1, label="perfectly calibrated")
    for colour, (name, p) in zip(("C0", "C1", "C2", "C3"), probabilities.items()):
        observed, predicted = calibration_curve(y_test, p, n_bins=12, strategy="quantile")
        ax.plot(predicted, observed, marker="o", color=colour, label=name)
        ax_hist.hist(p, bins=40, range=(0, 1), histtype="step", lw=1.5, color=colour)
    ax.set_ylabel("fraction of positives in the bin")
    ax.set_title(title)
    ax.legend(loc="upper left")
    ax.set_aspect("equal")
    ax_hist.set_xlabel("predicted probability of class 1")
    ax_hist.set_ylabel("rows")
    ax_hist.set_yscale("log")
    plt.show()


reliability(probabilities, "reliability diagram, 6,000 held-out rows")

# %%
# Naive Bayes pushes its probabilities towards 0 and 1, and its S-shaped curve means that its
# confident predictions are right less often than it says: it treats the noisy copies of an
# informative feature as independent evidence.  LDA, whose shared covariance sees the
# correlations, and logistic regression stay close to the diagonal; both have linear log-odds,
# LDA's estimated through the class densities, logistic regression's directly.
#
# Two remedies for naive Bayes: give it only features that are (nearly) independent within the
# classes, or recalibrate its scores on held-out folds with scikit-learn's
# :class:`~sklearn.calibration.CalibratedClassifierCV` (isotonic regression), which accepts any
# linclass classifier.
from sklearn.calibration import CalibratedClassifierCV

informative = slice(0, 6)
fixed = {
    "naive Bayes, all 18 features": probabilities["Gaussian naive Bayes"],
    "naive Bayes, the 6 informative ones": linclass.GaussianNB()
    .fit(X_train[:, informative], y_train).predict_proba(X_test[:, informative])[:, 1],
    "naive Bayes, recalibrated (isotonic)": CalibratedClassifierCV(
        linclass.GaussianNB(), method="isotonic", cv=5)
    .fit(X_train, y_train).predict_proba(X_test)[:, 1],
}
for name, p in fixed.items():
    print(f"{name:38s} log-loss {log_loss(y_test, p):.3f}  Brier {brier_score_loss(y_test, p):.3f}")
reliability(fixed, "naive Bayes: two ways back to the diagonal")
