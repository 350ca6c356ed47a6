# Maximum-likelihood logistic and multinomial fits to full precision, for tests/test_exact_*.py
# (the suite needs no R).  Run from this folder:  Rscript exact.R
# (spector.csv comes from export_spector.py: statsmodels' copy of Spector and Mazzeo's data.)
#
# Binary: glm(family = binomial) at epsilon = 1e-14, maxit = 100, then two more IRLS steps from
# its estimate, so that the standard errors are those at the estimate (glm computes them at the
# weights of its last step's start).  Multinomial: nnet::multinom to a tight reltol, then Newton
# steps on the exact log-likelihood (gradient and Hessian written out below) until the step is
# below 1e-15 of the coefficients; standard errors from the inverse Hessian at the estimate.
#
# Writes, per case, <case>.data.csv (the model matrix without its intercept column, the response
# as 0-based class index "y" and, where used, the frequency weight "w") and reference.csv (case,
# equation, term, estimate, se, loglik).  Satellite (mlbench) is written as it is instead,
# satellite.csv.gz (36 features x.1..x.36 and classes, the response; also for the benchmark), with
# satellite_levels.csv, the classes in R's level order (the first is the reference).
options(digits = 17)
suppressPackageStartupMessages({library(MASS); library(nnet); library(mlbench)})
tight <- glm.control(epsilon = 1e-14, maxit = 100)
out <- list()
save_design <- function(case, X, y, w = NULL) {
  frame <- data.frame(X[, colnames(X) != "(Intercept)", drop = FALSE], y = y, check.names = FALSE)
  if (!is.null(w)) frame$w <- w
  write.csv(frame, paste0(case, ".data.csv"), row.names = FALSE)
}

binary <- function(case, formula, data) {
  fit <- glm(formula, family = binomial, data = data, control = tight)
  for (k in 1:2) fit <- update(fit, start = coef(fit), control = glm.control(epsilon = 1e-14, maxit = 1))
  X <- model.matrix(fit)
  save_design(case, X, as.integer(fit$y))
  s <- summary(fit)$coefficients
  out[[length(out) + 1]] <<- data.frame(case = case, equation = "", term = rownames(s),
                                        estimate = s[, 1], se = s[, 2],
                                        loglik = as.numeric(logLik(fit)))
}

binary("pima", type ~ ., MASS::Pima.tr)
write.csv(MASS::Pima.tr, "pima_tr.csv", row.names = FALSE)
bw <- MASS::birthwt
bw$race <- factor(bw$race, labels = c("white", "black", "other"))
binary("birthwt", low ~ age + lwt + race + smoke + ptl + ht + ui + ftv, bw)
binary("infert", case ~ age + parity + education + spontaneous + induced, datasets::infert)
spector <- read.csv("spector.csv")
binary("spector", GRADE ~ GPA + TUCE + PSI, spector)

# the multinomial log-likelihood, its gradient and Hessian in the parameters of classes 2..K
# (class 1 the reference), with frequency weights w
multinomial <- function(case, X, y, w = rep(1, nrow(X)), save = TRUE) {
  K <- nlevels(y)
  Y <- outer(as.integer(y), seq_len(K), "==") * 1
  start <- nnet::multinom(y ~ X - 1, weights = w, reltol = 1e-16, maxit = 5000, trace = FALSE,
                          MaxNWts = 10000)
  B <- t(coef(start))  # p x (K - 1)
  p <- ncol(X)
  probs <- function(B) {
    S <- cbind(0, X %*% B)
    S <- S - apply(S, 1, max)
    E <- exp(S)
    E / rowSums(E)
  }
  for (it in 1:50) {
    P <- probs(B)
    g <- as.vector(t(X) %*% (w * (Y - P))[, -1])
    H <- matrix(0, p * (K - 1), p * (K - 1))
    for (k in 2:K) for (l in 2:K) {
      d <- w * P[, k] * ((k == l) - P[, l])
      H[(k - 2) * p + 1:p, (l - 2) * p + 1:p] <- t(X) %*% (X * d)
    }
    step <- solve(H, g)
    B <- B + matrix(step, p, K - 1)
    if (max(abs(step)) <= 1e-15 * max(abs(B))) break
  }
  P <- probs(B)
  H <- matrix(0, p * (K - 1), p * (K - 1))
  for (k in 2:K) for (l in 2:K) {
    d <- w * P[, k] * ((k == l) - P[, l])
    H[(k - 2) * p + 1:p, (l - 2) * p + 1:p] <- t(X) %*% (X * d)
  }
  se <- sqrt(diag(solve(H)))
  loglik <- sum(w * log(P[cbind(seq_len(nrow(X)), as.integer(y))]))
  if (save) save_design(case, X, as.integer(y) - 1L, if (all(w == 1)) NULL else w)
  out[[length(out) + 1]] <<- data.frame(
    case = case, equation = rep(levels(y)[-1], each = p), term = rep(colnames(X), K - 1),
    estimate = as.vector(B), se = se, loglik = loglik)
}

housing <- MASS::housing
multinomial("housing", model.matrix(~ Infl + Type + Cont, housing), housing$Sat, housing$Freq)
data(Satellite, package = "mlbench")
sat_gz <- gzfile("satellite.csv.gz", "w")
write.csv(Satellite, sat_gz, row.names = FALSE)
close(sat_gz)
write.csv(data.frame(level = levels(Satellite$classes)), "satellite_levels.csv", row.names = FALSE)
multinomial("satellite", model.matrix(~ . - classes, Satellite), Satellite$classes, save = FALSE)

write.csv(do.call(rbind, out), "reference.csv", row.names = FALSE)
