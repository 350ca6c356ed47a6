# Reference values for the one-standard-error rule and glmnet's cross-validation statistics
# (tests/test_cv_1se.py); also writes the two data sets that relaxed.R reads.
# Run from this folder: Rscript cv_glmnet.R   (writes cv_glmnet_pima.csv, cv_glmnet_housing.csv and
# cv_glmnet_reference.csv; glmnet 4.1-6)
#
# Data (MASS, real):
#   Pima   Pima.tr and Pima.te together (532 women; diabetes yes/no from 7 measurements, standardised
#          with scale()); binary.  Two fold assignments: `fold5`, 5 folds of 107/107/106/106/106
#          rows, and `fold4`, 4 folds of 133 rows (equal training sizes).
#   housing  Copenhagen housing survey (1681 residents; satisfaction Low/Medium/High from influence,
#          type of housing and contact, dummy-coded); three classes.  The residents are dealt at
#          random into 4 folds, and those of one cell (the same answers) and fold are one row whose
#          weight is their count: 4 folds of unequal weight, the held-out deviance per resident.
#
# The script reads the saved CSV files back, so that R and the tests fit the same numbers.
#
# cv.glmnet(x, y, family, foldid, lambda = <the grid below>, standardize = FALSE, thresh = 1e-14)
# with its default type.measure = "deviance" (grouped): for each lambda, cvm is the mean held-out
# deviance (the folds' weighted mean deviances, averaged with the folds' weight sums as weights) and
#   cvsd = sqrt(weighted.mean((cvraw - cvm)^2, w) / (N - 1)),  N the number of folds;
# lambda.min is the largest lambda of least cvm, lambda.1se the largest lambda with
# cvm <= cvm[min] + cvsd[min].  With relax = TRUE and gamma = c(0, 0.5) the same statistics per
# gamma; glmnet's relaxed selection breaks ties by the largest lambda, then the largest gamma, and
# it blends with max(gamma, 1e-5) (so its gamma = 0 is 1e-5 of the lasso plus the rest of the refit).
#
# glmnet.control(fdev = 0): no fold's path stops early (each fold fits every lambda of the grid).
suppressMessages(library(glmnet))
suppressMessages(library(MASS))
options(digits = 17)
glmnet.control(fdev = 0)

set.seed(20240611)
pima <- rbind(Pima.tr, Pima.te)
xp <- scale(as.matrix(pima[, 1:7]))
yp <- as.integer(pima$type == "Yes")
fold5 <- sample(rep(1:5, length.out = nrow(xp)))
fold4 <- sample(rep(1:4, length.out = nrow(xp)))
write.csv(data.frame(y = yp, fold5 = fold5, fold4 = fold4, format(xp, digits = 17)),
          "cv_glmnet_pima.csv", row.names = FALSE, quote = FALSE)

cells <- model.matrix(~ Infl + Type + Cont, data = housing)[, -1]
resident <- rep(seq_len(nrow(housing)), housing$Freq)  # the cell of each resident
dealt <- sample(rep(1:4, length.out = length(resident)))
counts <- table(factor(resident, levels = seq_len(nrow(housing))), factor(dealt, levels = 1:4))
keep <- which(counts > 0, arr.ind = TRUE)
housing_rows <- data.frame(y = as.integer(housing$Sat[keep[, 1]]) - 1L, weight = counts[keep],
                           fold = keep[, 2], cells[keep[, 1], ])
write.csv(housing_rows, "cv_glmnet_housing.csv", row.names = FALSE, quote = FALSE)

pima <- read.csv("cv_glmnet_pima.csv")
xp <- as.matrix(pima[, -(1:3)])
yp <- pima$y
fold5 <- pima$fold5
fold4 <- pima$fold4
housing_rows <- read.csv("cv_glmnet_housing.csv")
xh <- as.matrix(housing_rows[, -(1:3)])
yh <- housing_rows$y
wh <- housing_rows$weight
foldh <- housing_rows$fold

grid <- function(x, y, family, weights, n) {  # from just below glmnet's lambda_max down 1000-fold
  top <- glmnet(x, y, family = family, weights = weights, standardize = FALSE)$lambda[1]
  top * 10^seq(-0.02, -3, length.out = n)
}

rows <- list()
record <- function(case, cv, gamma, cvm, cvsd, lambda.min, lambda.1se, gamma.min = NA,
                   gamma.1se = NA) {
  for (k in seq_along(cv$lambda)) {
    rows[[length(rows) + 1]] <<- data.frame(
      case = case, gamma = gamma, lambda = cv$lambda[k], cvm = cvm[k], cvsd = cvsd[k],
      is_min = cv$lambda[k] == lambda.min && (is.na(gamma.min) || gamma == gamma.min),
      is_1se = cv$lambda[k] == lambda.1se && (is.na(gamma.1se) || gamma == gamma.1se))
  }
}
fit_cv <- function(case, x, y, family, foldid, lambda, weights = NULL, ...) {
  if (is.null(weights)) weights <- rep(1, nrow(x))
  cv <- cv.glmnet(x, y, family = family, foldid = foldid, lambda = lambda, weights = weights,
                  standardize = FALSE, thresh = 1e-14, maxit = 1e7, ...)
  cv
}

lp <- grid(xp, yp, "binomial", NULL, 20)
for (f in c("fold5", "fold4")) {
  cv <- fit_cv(paste0("pima-", f), xp, yp, "binomial", get(f), lp)
  record(paste0("pima-", f), cv, 1, cv$cvm, cv$cvsd, cv$lambda.min, cv$lambda.1se)
}
lh <- grid(xh, factor(yh), "multinomial", wh, 20)
cv <- fit_cv("housing", xh, factor(yh), "multinomial", foldh, lh, weights = wh)
record("housing", cv, 1, cv$cvm, cv$cvsd, cv$lambda.min, cv$lambda.1se)

cv <- fit_cv("pima-relaxed", xp, yp, "binomial", fold5, lp, relax = TRUE, gamma = c(0, 0.5))
for (g in seq_along(cv$relaxed$gamma)) {
  stats <- cv$relaxed$statlist[[g]]
  record("pima-relaxed", stats, cv$relaxed$gamma[g], stats$cvm, stats$cvsd, cv$relaxed$lambda.min,
         cv$relaxed$lambda.1se, cv$relaxed$gamma.min, cv$relaxed$gamma.1se)
}
write.csv(do.call(rbind, rows), "cv_glmnet_reference.csv", row.names = FALSE, quote = FALSE)
