"""Models fitted from class statistics: Gaussian class densities (gaussian: parameters,
gaussian_scores: scoring new points, densities: exact class densities), the discrete naive Bayes
event models (discrete) and categorical features (categorical), Fisher's discriminant (fisher), kernel Fisher (kernel_fisher, kernels)."""
