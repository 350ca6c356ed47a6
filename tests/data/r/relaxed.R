# Reference coefficients of glmnet's relaxed lasso (tests/test_relaxed.py).
# Run from this folder after cv_glmnet.R (which writes the two data sets):
#   Rscript relaxed.R   (writes relaxed_reference.csv; glmnet 4.1-6)
#
# glmnet(x, y, family, relax = TRUE, lambda = <fixed values>, standardize = FALSE, thresh = 1e-14)
# fits the lasso at each lambda and, on each lambda's support (the columns with a non-zero
# coefficient in some class), the unpenalised fit (glmnet at lambda = 0 on those columns,
# relax.glmnet).  coef(fit, s, gamma) blends them, coefficients and intercepts alike:
#   gamma * lasso + (1 - gamma) * refit,
# with gamma replaced by max(gamma, 1e-5) (blend.relaxed), so that its gamma = 0 is not the refit
# itself; the refit itself is fit$relaxed (saved as gamma = "refit").
#
# Data: cv_glmnet_pima.csv (binary, 532 rows) and cv_glmnet_housing.csv (three classes, its
# weights the resident counts), every row; "pima-bounded" is Pima with every coefficient in
# [0, 0.9] (lower.limits, upper.limits), which the refit keeps (relax.glmnet refits by update()).  Saved: one row per (case, lambda, gamma, class row),
# the intercept first.
suppressMessages(library(glmnet))
options(digits = 17)

pima <- read.csv("cv_glmnet_pima.csv")
housing <- read.csv("cv_glmnet_housing.csv")
cases <- list(
  list(name = "pima", x = as.matrix(pima[, -(1:3)]), y = pima$y, w = rep(1, nrow(pima)),
       family = "binomial", lambda = c(0.08, 0.03, 0.01)),
  list(name = "housing", x = as.matrix(housing[, -(1:3)]), y = factor(housing$y),
       w = housing$weight, family = "multinomial", lambda = c(0.02, 0.005, 0.001)),
  list(name = "pima-bounded", x = as.matrix(pima[, -(1:3)]), y = pima$y, w = rep(1, nrow(pima)),
       family = "binomial", lambda = c(0.03, 0.01), lower = 0, upper = 0.9)
)
as_rows <- function(coefs) {  # a coefficient vector, or one per class, as a matrix of rows
  if (!is.list(coefs)) coefs <- list(coefs)
  do.call(rbind, lapply(coefs, function(k) as.numeric(as.matrix(k))))
}
rows <- list()
for (case in cases) {
  lower <- if (is.null(case$lower)) -Inf else case$lower
  upper <- if (is.null(case$upper)) Inf else case$upper
  fit <- glmnet(case$x, case$y, family = case$family, weights = case$w, relax = TRUE,
                lambda = case$lambda, standardize = FALSE, thresh = 1e-14, maxit = 1e7,
                lower.limits = lower, upper.limits = upper)
  for (s in case$lambda) {
    k <- match(s, fit$lambda)
    refit <- if (is.list(fit$relaxed$beta)) {
      lapply(seq_along(fit$relaxed$beta),
             function(j) c(fit$relaxed$a0[j, k], fit$relaxed$beta[[j]][, k]))
    } else c(fit$relaxed$a0[k], fit$relaxed$beta[, k])
    blends <- list(refit = as_rows(refit))
    for (g in c(0, 0.5, 1)) blends[[as.character(g)]] <- as_rows(coef(fit, s = s, gamma = g))
    for (g in names(blends)) {
      values <- blends[[g]]
      for (r in seq_len(nrow(values))) {
        rows[[length(rows) + 1]] <- c(case$name, s, g, r - 1, values[r, ])
      }
    }
  }
}
width <- max(sapply(rows, length))
table <- do.call(rbind, lapply(rows, function(r) c(r, rep("", width - length(r)))))
colnames(table) <- c("case", "lambda", "gamma", "row", "intercept", paste0("x", seq_len(width - 5)))
write.csv(table, "relaxed_reference.csv", row.names = FALSE, quote = FALSE)
