"""Models fitted from class statistics: Gaussian class densities (gaussian: parameters,
gaussian_forms: their linear or whitened scoring forms, gaussian_scores: scoring new points,
densities: exact class densities), regularised discriminant analysis (regularized), MASS's
posteriors (predictive), the multivariate-t fit (robust), the discrete naive Bayes event models
(discrete) and categorical features (categorical)."""
