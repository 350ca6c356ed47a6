"""A script written against scikit-learn 1.9's documented API for the classes linclass shares a name
with.  tests/test_dropin_script.py runs it as it is, and again with only its import block replaced by
``from linclass import ...``; both runs must finish and agree (the RESULTS they leave behind).
"""

import numpy as np
from sklearn.covariance import OAS
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

# --- the import block (the only lines that change) ---
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis, QuadraticDiscriminantAnalysis
from sklearn.linear_model import LogisticRegression, Perceptron
from sklearn.naive_bayes import BernoulliNB, CategoricalNB, ComplementNB, GaussianNB, MultinomialNB
# --- end of the import block ---

RESULTS = {}
X, y = load_iris(return_X_y=True)
Xw, yw = load_wine(return_X_y=True)
Xb, yb = load_breast_cancer(return_X_y=True)
Xb = StandardScaler().fit_transform(Xb)
counts = np.round(Xw / Xw.std(axis=0) * 2).clip(0)

# discriminant analysis
lda = LinearDiscriminantAnalysis(solver="svd", store_covariance=True, tol=1e-4, n_components=2).fit(Xw, yw)
RESULTS["lda_proba"] = lda.predict_proba(Xw)
RESULTS["lda_shapes"] = (lda.transform(Xw).shape, lda.scalings_.shape[0], lda.xbar_.shape,
                         lda.covariance_.shape, lda.explained_variance_ratio_.shape, lda.means_.shape)
RESULTS["lda_evr"] = lda.explained_variance_ratio_
RESULTS["lda_priors"] = lda.priors_
lda = LinearDiscriminantAnalysis("lsqr", "auto").fit(Xw, yw)
RESULTS["lda_auto"] = lda.predict_proba(Xw)
lda = LinearDiscriminantAnalysis(solver="eigen", covariance_estimator=OAS()).fit(Xw, yw)
RESULTS["lda_oas"] = lda.predict_proba(Xw)
RESULTS["lda_binary_coef_shape"] = LinearDiscriminantAnalysis().fit(Xb, yb).coef_.shape
qda = QuadraticDiscriminantAnalysis(reg_param=0.05, store_covariance=True, tol=1e-4).fit(X, y)
RESULTS["qda_proba"] = qda.predict_proba(X)
RESULTS["qda_scalings"] = np.array([s for s in qda.scalings_])
RESULTS["qda_cov"] = np.array(qda.covariance_)
RESULTS["qda_eigen_auto"] = QuadraticDiscriminantAnalysis(solver="eigen", shrinkage="auto").fit(X, y).predict_proba(X)

# naive Bayes
gnb = GaussianNB(var_smoothing=1e-8)
for part in np.array_split(np.arange(len(y)), 3):
    gnb.partial_fit(X[part], y[part], classes=np.unique(y))
RESULTS["gnb"] = (gnb.predict_proba(X), gnb.theta_, gnb.var_, gnb.class_prior_, gnb.class_count_)
RESULTS["gnb_joint"] = gnb.predict_joint_log_proba(X)
mnb = MultinomialNB(alpha=0.5, force_alpha=True, fit_prior=False).fit(counts, yw)
RESULTS["mnb"] = (mnb.predict_proba(counts), mnb.feature_log_prob_, mnb.class_log_prior_, mnb.feature_count_)
RESULTS["mnb_prior"] = MultinomialNB(class_prior=[0.5, 0.3, 0.2]).fit(counts, yw).predict_joint_log_proba(counts)
bnb = BernoulliNB(alpha=1.0, binarize=2.0).fit(counts, yw)
RESULTS["bnb"] = bnb.predict_log_proba(counts)
cnb = ComplementNB(norm=True).fit(counts, yw)
RESULTS["cnb"] = (cnb.predict_proba(counts), cnb.feature_all_)
cat = CategoricalNB(min_categories=12).fit(counts, yw)
RESULTS["cat"] = (cat.predict_proba(counts), cat.n_categories_, cat.category_count_[0])
RESULTS["one_class"] = MultinomialNB().fit(counts, np.zeros(len(yw))).predict(counts[:3])

# logistic regression (solved tightly: at its default tol=1e-4 scikit-learn's lbfgs stops ~1e-3 away
# from the optimum in the probabilities, which is not what the comparison is about)
for params in ({}, {"solver": "newton-cg"}, {"solver": "newton-cholesky", "C": 0.1},
               {"penalty": None, "max_iter": 1000}, {"class_weight": "balanced"},
               {"solver": "liblinear", "C": 0.5, "intercept_scaling": 2.0}, {"fit_intercept": False},
               {"tol": 1e-8, "max_iter": 1000, "warm_start": True}):
    model = LogisticRegression(**{"tol": 1e-8, "max_iter": 5000, **params}).fit(Xb, yb)
    RESULTS[f"lr {sorted(params.items())}"] = model.predict_proba(Xb)
    RESULTS[f"lr shapes {sorted(params.items())}"] = (model.coef_.shape, model.intercept_.shape,
                                                      model.n_iter_.shape)
softmax = LogisticRegression(C=2.0, tol=1e-8, max_iter=5000).fit(X, y)
RESULTS["softmax"] = softmax.predict_proba(X)
softmax.sparsify()
RESULTS["softmax_sparse"] = softmax.predict(X)
softmax.densify()
search = GridSearchCV(LogisticRegression(max_iter=1000), {"C": [0.1, 1.0], "solver": ["lbfgs", "newton-cholesky"]},
                      cv=3).fit(Xb, yb)
RESULTS["grid"] = search.best_params_["C"]
RESULTS["pipeline_cv"] = cross_val_score(make_pipeline(StandardScaler(), LinearDiscriminantAnalysis()), Xw, yw, cv=3)

# perceptron
perceptron = Perceptron(max_iter=1000, tol=1e-3, eta0=1.0, random_state=0).fit(Xb, yb)
RESULTS["perceptron_score"] = perceptron.score(Xb, yb)
RESULTS["perceptron_attrs"] = (perceptron.coef_.shape, perceptron.intercept_.shape, type(perceptron.n_iter_),
                               perceptron.t_ > 0)
Perceptron(penalty="l2", alpha=1e-4, early_stopping=True, validation_fraction=0.2, n_iter_no_change=3,
           class_weight="balanced", fit_intercept=True, shuffle=True, warm_start=False).fit(Xb, yb)
stream = Perceptron()
for part in np.array_split(np.arange(len(yb)), 4):
    stream.partial_fit(Xb[part], yb[part], classes=[0, 1])
RESULTS["perceptron_stream"] = stream.score(Xb, yb)
