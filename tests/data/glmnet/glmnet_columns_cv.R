# cv.glmnet and glmnet paths with penalty factors and bounds, for tests/test_penalty_columns.py
# (CI has no R).  Run from this folder: Rscript glmnet_columns_cv.R   (writes glmnet_columns_cv.csv)
#
# Data: breast_cancer10.csv (the first ten features of the Wisconsin breast-cancer data,
# standardised).  Folds: foldid = rep(1:5, length.out = n) (unequal training sizes, so linclass
# runs with fold_penalty = "lambda").  The factors are passed already summing to p, so glmnet does
# not rescale them and linclass's C = 1 / (lambda n) on all rows.  standardize = FALSE, thresh
# tight.  Saved per case and lambda: cvm, cvsd, whether it is lambda.min / lambda.1se, and the
# coefficients of the path on all rows.
suppressMessages(library(glmnet))
options(digits = 17)
data <- as.matrix(read.csv("breast_cancer10.csv", header = FALSE))
y <- data[, 1]
X <- data[, -1]
n <- nrow(X)
p <- ncol(X)
foldid <- rep(1:5, length.out = n)
f <- c(0, 0.5, 1, 1, 2, 1, 1, 0, 1.5, 1)
f <- f * p / sum(f)
cases <- list(
  list(id = "cv_factor_l1", factor = f, lower = -Inf, upper = Inf),
  list(id = "cv_nonneg_l1", factor = rep(1, p), lower = 0, upper = Inf)
)
rows <- list()
for (case in cases) {
  lambda <- exp(seq(log(0.2), log(0.002), length.out = 12))
  cv <- cv.glmnet(X, y, family = "binomial", foldid = foldid, lambda = lambda,
                  penalty.factor = case$factor, lower.limits = case$lower,
                  upper.limits = case$upper, standardize = FALSE, thresh = 1e-14, maxit = 1e7)
  B <- as.matrix(coef(cv$glmnet.fit))
  for (k in seq_along(cv$lambda)) {
    rows[[length(rows) + 1]] <- c(case$id, cv$lambda[k], cv$cvm[k], cv$cvsd[k],
                                  cv$lambda[k] == cv$lambda.min, cv$lambda[k] == cv$lambda.1se,
                                  B[, k])
  }
}
table <- do.call(rbind, rows)
colnames(table) <- c("id", "lambda", "cvm", "cvsd", "is_min", "is_1se", "intercept",
                     paste0("x", seq_len(p)))
write.csv(table, "glmnet_columns_cv.csv", row.names = FALSE, quote = FALSE)
