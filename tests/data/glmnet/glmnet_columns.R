# Coefficients of glmnet at fixed lambda with per-feature penalty factors and box constraints on
# the coefficients, on two real data sets (the first ten features of the Wisconsin breast-cancer
# data and the 13 features of the wine data, standardised, as scikit-learn bundles them), for
# tests/test_penalty_columns.py (CI has no R).
# Run from this folder: Rscript glmnet_columns.R   (writes glmnet_columns.csv)
#
# linclass minimises sum_i loss_i + sum_j f_j (rho |w_j| + (1 - rho)/2 w_j^2) / C with the factors
# f as given; glmnet rescales penalty.factor to sum to the number of features, so the same
# objective divided by N is glmnet's at lambda = sum(f) / (C N p) (p features).  C = Inf is no
# penalty (lambda = 0).  standardize = FALSE, thresh tight, type.multinomial = "ungrouped" unless
# the case says "grouped" (one Euclidean norm per feature across the classes).
suppressMessages(library(glmnet))
options(digits = 17)
p10 <- 10
p13 <- 13
cases <- list(
  list(id = "factor_l1", file = "breast_cancer10.csv", family = "binomial", alpha = 1.0, C = 0.5,
       factor = c(0, 0.5, 1, 1, 2, 1, 1, 0, 1.5, 1), lower = -Inf, upper = Inf),
  list(id = "box_enet", file = "breast_cancer10.csv", family = "binomial", alpha = 0.5, C = 0.1,
       factor = rep(1, p10), lower = -0.5, upper = seq(0.1, 1, length.out = p10)),
  list(id = "nonneg_factor_l1", file = "breast_cancer10.csv", family = "binomial", alpha = 1.0,
       C = 1.0, factor = c(1, 1, 1, 0, 1, 1, 1, 1, 1, 3), lower = 0, upper = Inf),
  list(id = "box_ridge", file = "breast_cancer10.csv", family = "binomial", alpha = 0.0, C = 0.2,
       factor = rep(1, p10), lower = -1, upper = 0.3),
  list(id = "box_none", file = "breast_cancer10.csv", family = "binomial", alpha = 1.0, C = Inf,
       factor = rep(1, p10), lower = -1.5, upper = 1.5),
  list(id = "factor_enet_multi", file = "wine.csv", family = "multinomial", alpha = 0.5, C = 0.2,
       factor = c(0, rep(1, 5), 2, 2, rep(1, 4), 0.5), lower = -Inf, upper = Inf),
  list(id = "nonneg_l1_multi", file = "wine.csv", family = "multinomial", alpha = 1.0, C = 0.3,
       factor = rep(1, p13), lower = 0, upper = Inf),
  list(id = "grouped_l1_multi", file = "wine.csv", family = "multinomial", alpha = 1.0, C = 0.3,
       factor = rep(1, p13), lower = -Inf, upper = Inf, type = "grouped"),
  list(id = "grouped_factor_enet_multi", file = "wine.csv", family = "multinomial", alpha = 0.5,
       C = 0.05, factor = c(0, rep(1, 5), 2, 2, rep(1, 4), 0.5), lower = -Inf, upper = Inf,
       type = "grouped")
)
rows <- list()
for (case in cases) {
  data <- as.matrix(read.csv(case$file, header = FALSE))
  y <- data[, 1]
  X <- data[, -1]
  n <- nrow(X)
  p <- ncol(X)
  lambda <- if (is.infinite(case$C)) 0 else sum(case$factor) / (case$C * n * p)
  fit <- glmnet(X, factor(y), family = case$family, alpha = case$alpha, lambda = lambda,
                penalty.factor = case$factor, lower.limits = case$lower,
                upper.limits = case$upper, standardize = FALSE, thresh = 1e-15, maxit = 1e7,
                type.multinomial = if (is.null(case$type)) "ungrouped" else case$type)
  coefs <- coef(fit)
  if (!is.list(coefs)) coefs <- list(coefs)
  for (k in seq_along(coefs)) {
    values <- as.numeric(as.matrix(coefs[[k]]))  # intercept first
    rows[[length(rows) + 1]] <- c(case$id, k - 1, values)
  }
}
width <- max(sapply(rows, length))
table <- do.call(rbind, lapply(rows, function(r) c(r, rep("", width - length(r)))))
colnames(table) <- c("id", "row", "intercept", paste0("x", seq_len(width - 3)))
write.csv(table, "glmnet_columns.csv", row.names = FALSE, quote = FALSE)
