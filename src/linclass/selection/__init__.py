"""Model selection without refitting: leave-one-out posteriors of the Gaussian models by rank-one
downdates of the class statistics (leave_one_out, downdate, rank_one), and regularised discriminant
analysis scored over its grid by leave-one-out or K folds (regularized_loo, regularized_cv), and
cv.glmnet's statistics and one-standard-error rule for cross-validated penalties (cv_rule)."""
