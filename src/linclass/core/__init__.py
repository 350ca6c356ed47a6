"""What every model shares: input validation (validation, finiteness, chunk_validation), per-class
statistics that merge exactly (class_stats), covariance estimates, priors, the rank rule for
covariance matrices (precision), scores to posteriors in log space (posterior), and the voting of
the multi-class schemes (voting)."""
