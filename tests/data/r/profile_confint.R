# Reference profile-likelihood intervals of unpenalised logistic and multinomial fits
# (tests/test_profile_confint.py).
# Run from this folder: Rscript profile_confint.R
#   (writes profile_confint_data.csv, the rows, and profile_confint.csv, the intervals)
#
# Data: MASS's birthwt (Hosmer and Lemeshow), 189 births; freq = 1 + (row %% 3) are integer
# frequency weights for the weighted fit.
#
# Binary (low ~ age + lwt + smoke + ptl + ht + ui, unweighted and weighted):
#   confint_*  R's confint() of the glm: MASS's profile.glm evaluates the signed root of the
#              deviance difference on a grid of a few points per side and interpolates a spline
#              through them, so its ends are approximate (to about 1e-4 here);
#   exact_*    the same equation solved tightly: the deviance of glm.fit with the parameter held by
#              an offset (epsilon 1e-14), the root by uniroot (tol 1e-12);
#   lr_zero    the deviance difference at 0 (the likelihood-ratio statistic of beta_j = 0).
# Multinomial (race ~ age + lwt + smoke; the contrasts of black and other against white, as nnet's
# multinom and statsmodels' MNLogit report them): no profile method in R for multinom, so the
# exact ends only, by a constrained Newton fit of the multinomial log-likelihood written out
# below, and uniroot; multinom's estimates are printed for comparison with the Newton fit.
suppressPackageStartupMessages({library(MASS); library(nnet)})

data(birthwt)
d <- birthwt[, c("low", "race", "age", "lwt", "smoke", "ptl", "ht", "ui")]
d$freq <- 1 + (seq_len(nrow(d)) %% 3)
write.csv(d, "profile_confint_data.csv", row.names = FALSE)

features <- c("age", "lwt", "smoke", "ptl", "ht", "ui")
X <- cbind(const = 1, as.matrix(d[, features]))
rows <- list()

binary_exact <- function(fit, wts, level) {
  z <- qnorm(1 - (1 - level) / 2)
  b <- coef(fit)
  se <- sqrt(diag(vcov(fit)))
  dev0 <- deviance(fit)
  profile_dev <- function(j, t) {
    refit <- glm.fit(X[, -j, drop = FALSE], d$low, weights = wts, offset = t * X[, j],
                     family = binomial(), control = glm.control(epsilon = 1e-14, maxit = 100))
    refit$deviance - dev0
  }
  out <- NULL
  for (j in seq_along(b)) {
    signed <- function(t) sign(t - b[j]) * sqrt(max(profile_dev(j, t), 0))
    lo <- uniroot(function(t) signed(t) + z, c(b[j] - 3 * z * se[j], b[j]), extendInt = "upX",
                  tol = 1e-12)$root
    hi <- uniroot(function(t) signed(t) - z, c(b[j], b[j] + 3 * z * se[j]), extendInt = "upX",
                  tol = 1e-12)$root
    out <- rbind(out, data.frame(lower = lo, upper = hi, lr_zero = profile_dev(j, 0)))
  }
  out
}

for (weighted in c(FALSE, TRUE)) {
  wts <- if (weighted) d$freq else rep(1, nrow(d))  # (a name that is not a column of d)
  fit <- glm(low ~ age + lwt + smoke + ptl + ht + ui, family = binomial, data = d, weights = wts,
             control = glm.control(epsilon = 1e-14, maxit = 100))
  for (level in c(0.95, 0.90)) {
    spline <- suppressMessages(confint(fit, level = level))
    exact <- binary_exact(fit, wts, level)
    rows[[length(rows) + 1]] <- data.frame(
      model = if (weighted) "binary_weighted" else "binary", level = level,
      parameter = c("const", features), estimate = unname(coef(fit)),
      std_err = unname(sqrt(diag(vcov(fit)))), confint_lower = unname(spline[, 1]),
      confint_upper = unname(spline[, 2]), exact_lower = exact$lower, exact_upper = exact$upper,
      lr_zero = exact$lr_zero)
  }
}

# ------------------------------------------------------------------------------- multinomial
Xm <- cbind(const = 1, as.matrix(d[, c("age", "lwt", "smoke")]))
Y <- cbind(d$race == 2, d$race == 3) * 1  # black, other; white is the reference
p <- ncol(Xm)
loglik_parts <- function(beta) {  # beta: vector of (p x 2), equation by equation
  B <- matrix(beta, p, 2)
  eta <- cbind(0, Xm %*% B)
  top <- apply(eta, 1, max)
  E <- exp(eta - top)
  lse <- log(rowSums(E)) + top
  P <- E / rowSums(E)
  ll <- sum(eta[cbind(seq_len(nrow(Xm)), d$race)] - lse)
  mu <- P[, 2:3]
  g <- as.vector(crossprod(Xm, Y - mu))
  H <- matrix(0, 2 * p, 2 * p)
  for (k in 1:2) for (l in 1:2) {
    wkl <- mu[, k] * ((k == l) - mu[, l])
    H[(k - 1) * p + 1:p, (l - 1) * p + 1:p] <- crossprod(Xm, Xm * wkl)
  }
  list(ll = ll, g = g, H = H)  # H: the information (minus the Hessian)
}
maximise <- function(beta, free) {
  parts <- loglik_parts(beta)
  for (it in 1:200) {
    step <- solve(parts$H[free, free, drop = FALSE], parts$g[free])
    if (sum(parts$g[free] * step) < 1e-22) break
    t <- 1
    repeat {
      cand <- beta
      cand[free] <- beta[free] + t * step
      new <- loglik_parts(cand)
      if (new$ll >= parts$ll - 1e-12 || t < 1e-10) break
      t <- t / 2
    }
    beta <- cand
    parts <- new
  }
  list(beta = beta, ll = parts$ll)
}
best <- maximise(rep(0, 2 * p), rep(TRUE, 2 * p))
mn <- multinom(race ~ age + lwt + smoke, data = d, trace = FALSE, reltol = 1e-14, maxit = 1000)
cat("max |multinom - Newton| of the coefficients:",
    max(abs(as.vector(t(coef(mn))) - best$beta)), "\n")
se_m <- sqrt(diag(solve(loglik_parts(best$beta)$H)))
names_m <- c("const", "age", "lwt", "smoke")
for (level in c(0.95, 0.90)) {
  z <- qnorm(1 - (1 - level) / 2)
  lower <- upper <- lr <- numeric(2 * p)
  for (j in seq_len(2 * p)) {
    free <- rep(TRUE, 2 * p)
    free[j] <- FALSE
    dev_at <- function(t) {
      start <- best$beta
      start[j] <- t
      2 * (best$ll - maximise(start, free)$ll)
    }
    b <- best$beta[j]
    signed <- function(t) sign(t - b) * sqrt(max(dev_at(t), 0))
    lower[j] <- uniroot(function(t) signed(t) + z, c(b - 3 * z * se_m[j], b), extendInt = "upX",
                        tol = 1e-12)$root
    upper[j] <- uniroot(function(t) signed(t) - z, c(b, b + 3 * z * se_m[j]), extendInt = "upX",
                        tol = 1e-12)$root
    lr[j] <- dev_at(0)
  }
  rows[[length(rows) + 1]] <- data.frame(
    model = rep(c("multinomial_2", "multinomial_3"), each = p), level = level,
    parameter = rep(names_m, 2), estimate = best$beta, std_err = se_m, confint_lower = NA,
    confint_upper = NA, exact_lower = lower, exact_upper = upper, lr_zero = lr)
}

write.csv(do.call(rbind, rows), "profile_confint.csv", row.names = FALSE)
