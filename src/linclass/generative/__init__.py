"""Models fitted from class statistics, along the spine statistics -> parameters -> scores.

Statistics: per-class counts, sums and centred scatter that merge exactly (class_stats: ClassStats
with from_batch, from_source and merge; its passes over X: scatter_passes, their float32 form
scatter_float32 and their compiled loops stats_kernels).  Parameters: covariance estimates
(covariance), class priors (priors), the rank rule for covariance matrices and the one
Gaussian-to-linear map (precision), Gaussian class densities and their linear or whitened scoring
forms (gaussian).  Scores: scoring new points (gaussian_scores), exact class densities (densities).
Beside them: regularised discriminant analysis (regularized), MASS's posteriors (predictive), the
multivariate-t fit (robust), the discrete naive Bayes event models (discrete) and categorical
features (categorical)."""
