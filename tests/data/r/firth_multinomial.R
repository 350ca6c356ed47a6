# Reference values for Firth's multinomial logistic regression (tests/test_firth_multinomial.py).
# Run from this folder: Rscript firth_multinomial.R
#   writes firth_multinomial.data.csv  (the rows of every case: case, row, weight, y, x1..x6)
#          firth_multinomial.coef.csv  (case, class, term, coef, se)
#          firth_multinomial.proba.csv (case, row, p0..p4: fitted probabilities of every row)
#
# The estimates are brglm2's brmultinom(..., type = "AS_mean"): the mean-bias-reduced estimator of
# Kosmidis & Firth (2011, Biometrika 98(3)), which for the multinomial logit (a canonical
# exponential family) maximises l(theta) + 1/2 log|I(theta)| (Firth 1993), in the baseline-category
# parametrisation (each class against the first, with intercepts).  Standard errors are
# summary(fit)$standard.errors (the inverse Fisher information at the estimate).  The fitted
# probabilities are computed here from the estimates and the model matrix for every row (also the
# rows of weight zero, which brmultinom drops from fitted()).
#
# Cases
#   alligators   brglm2's alligators data: foodchoice (5 classes) ~ lake + gender + size, frequency
#                weights freq (zero for some rows); the dummies of R's treatment contrasts.
#   iris_sepal   every third row of iris (50 rows), Sepal.Length and Sepal.Width: quasi-complete
#                separation (setosa), the maximum-likelihood estimate does not exist.
#   iris_length  the same rows, Sepal.Length alone (no separation).
#   separated    a 12-row, 3-class toy set in two features, completely separated.
suppressPackageStartupMessages(library(brglm2))

control <- list(epsilon = 1e-12, maxit = 10000)

run <- function(name, X, y, w) {
  # X: the model matrix without its intercept column; y: a factor; w: frequency weights
  df <- data.frame(y = y, X, w = w)
  fit <- brmultinom(y ~ . - w, weights = w, data = df, type = "AS_mean", control = control)
  stopifnot(isTRUE(fit$converged))
  B <- coef(fit)  # (K-1) x (1 + d): each class against the first
  SE <- summary(fit)$standard.errors
  K <- nlevels(y)
  eta <- cbind(0, cbind(1, X) %*% t(B))
  P <- exp(eta - apply(eta, 1, max))
  P <- P / rowSums(P)
  Pfull <- matrix(NA_real_, nrow(X), 5)
  Pfull[, 1:K] <- P
  Xfull <- matrix(NA_real_, nrow(X), 6)
  Xfull[, seq_len(ncol(X))] <- X
  data <- data.frame(case = name, row = seq_len(nrow(X)) - 1, weight = w, y = as.integer(y) - 1,
                     Xfull)
  names(data)[5:10] <- paste0("x", 1:6)
  coef <- data.frame(case = name, class = rep(seq_len(K - 1), times = ncol(B)),
                     term = rep(seq_len(ncol(B)) - 1, each = K - 1),
                     coef = as.vector(B), se = as.vector(SE))
  proba <- data.frame(case = name, row = seq_len(nrow(X)) - 1, Pfull)
  names(proba)[3:7] <- paste0("p", 0:4)
  list(data = data, coef = coef, proba = proba)
}

data("alligators", package = "brglm2")
X <- model.matrix(~ lake + gender + size, alligators)[, -1]
cases <- list(run("alligators", X, alligators$foodchoice, alligators$freq))

rows <- seq(1, 150, by = 3)
cases[[2]] <- run("iris_sepal", as.matrix(iris[rows, c("Sepal.Length", "Sepal.Width")]),
                  iris$Species[rows], rep(1, length(rows)))
cases[[3]] <- run("iris_length", as.matrix(iris[rows, "Sepal.Length", drop = FALSE]),
                  iris$Species[rows], rep(1, length(rows)))

x1 <- c(-2.0, -1.6, -2.4, -1.2, 0.1, -0.3, 0.4, 0.2, 1.8, 2.3, 1.5, 2.6)
x2 <- c(0.5, -0.3, 0.1, 0.8, 1.9, 1.5, 2.3, 1.2, -0.6, 0.2, -1.1, -0.2)
cases[[4]] <- run("separated", cbind(x1 = x1, x2 = x2), factor(rep(c("a", "b", "c"), each = 4)),
                  rep(1, 12))

out <- function(part, file) {
  table <- do.call(rbind, lapply(cases, `[[`, part))
  write.csv(format(table, digits = 17), file, row.names = FALSE, quote = FALSE, na = "")
}
out("data", "firth_multinomial.data.csv")
out("coef", "firth_multinomial.coef.csv")
out("proba", "firth_multinomial.proba.csv")
cat("brglm2", as.character(packageVersion("brglm2")), R.version.string, "\n")
