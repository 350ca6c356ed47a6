"""What every model shares: input validation (validation, finiteness, chunk_validation), the chunk
protocol of out-of-memory fits (chunks), per-class statistics that merge exactly (class_stats; its
passes over X: scatter_passes), covariance estimates (covariance; from the rows of each class,
scikit-learn's shrinkage='auto' and covariance objects: row_covariance), priors, the rank rule for
covariance matrices and the one Gaussian-to-linear map (precision), scores to posteriors in log
space (posterior), and progress reports (progress)."""
