# Coefficients of glmnet at fixed lambda on the two problems of make_data.py, saved as CSV for
# tests/test_penalised_reference.py (CI has no R).  Run from this folder: Rscript glmnet_reference.R
#
# glmnet minimises (1/N) sum_i loss_i + lambda * (alpha ||w||_1 + (1 - alpha)/2 ||w||^2); linclass
# minimises sum_i loss_i + (rho ||w||_1 + (1 - rho)/2 ||w||^2) / C, so alpha = rho, lambda = 1/(C N).
# standardize = FALSE (the penalty acts on the features as given), thresh tight, every class its own
# row of coefficients (type.multinomial = "ungrouped").
suppressMessages(library(glmnet))
options(digits = 17)
cases <- list(
  list(file = "binary.csv", family = "binomial", alpha = 1.0, C = 0.05),
  list(file = "binary.csv", family = "binomial", alpha = 1.0, C = 0.5),
  list(file = "binary.csv", family = "binomial", alpha = 0.5, C = 0.05),
  list(file = "multinomial.csv", family = "multinomial", alpha = 0.5, C = 0.02),
  list(file = "multinomial.csv", family = "multinomial", alpha = 0.5, C = 0.2)
)
rows <- list()
for (case in cases) {
  data <- as.matrix(read.csv(case$file, header = FALSE))
  y <- data[, 1]
  X <- data[, -1]
  n <- nrow(X)
  lambda <- 1 / (case$C * n)
  fit <- glmnet(X, factor(y), family = case$family, alpha = case$alpha, lambda = lambda,
                standardize = FALSE, thresh = 1e-14, maxit = 1e7, type.multinomial = "ungrouped")
  coefs <- coef(fit)
  if (!is.list(coefs)) coefs <- list(coefs)
  for (k in seq_along(coefs)) {
    values <- as.numeric(as.matrix(coefs[[k]]))  # intercept first
    rows[[length(rows) + 1]] <- c(case$file, case$family, case$alpha, case$C, k - 1, values)
  }
}
width <- max(sapply(rows, length))
table <- do.call(rbind, lapply(rows, function(r) c(r, rep("", width - length(r)))))
colnames(table) <- c("file", "family", "alpha", "C", "row", "intercept",
                     paste0("x", seq_len(width - 6)))
write.csv(table, "glmnet_coefficients.csv", row.names = FALSE, quote = FALSE)
