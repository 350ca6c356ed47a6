"""Models fitted from class statistics: Gaussian class densities (gaussian: parameters,
gaussian_forms: their linear or whitened scoring forms, gaussian_scores: scoring new points,
densities: exact class densities), regularised discriminant analysis (regularized,
regularized_cv, regularized_loo), MASS's posteriors (predictive), the multivariate-t fit (robust),
leave-one-out downdates (leave_one_out), the discrete naive Bayes event models (discrete) and
categorical features (categorical), Fisher's discriminant (fisher), kernel Fisher (kernel_fisher,
kernels)."""
